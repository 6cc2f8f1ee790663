"""Page type and main content of every fetched page, in one job
(``pipelines.job``: classify, then extract), run in the crawl's worker
processes (``SITESIFT_EXTRACT_PROCESSES``, one per CPU by default: a crawl
uses every core) or, with none, its worker thread. What spans pages stays
here, in the reactor: each URL group's page type (``pipelines.classify``)
and reference pages (``pipelines.extract``).
"""

from __future__ import annotations

import logging

from scrapy import Spider
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured

from crawler.distributed import SharedReferences, shared_state
from crawler.items import Outcome, PageItem
from pipelines.classify import ClassifyConfig, GroupTypes
from pipelines.extract import ExtractConfig, ReferenceCache, fill
from pipelines.job import PageAnalysis, PageJob, analyse
from pipelines.offload import in_worker, off_reactor, processes

log = logging.getLogger(__name__)


class AnalysePipeline:
    """Runs :func:`pipelines.job.analyse` on every page fetched whole, off
    the reactor, and copies its decision and result onto the item."""

    def __init__(
        self,
        crawler: Crawler,
        classify: ClassifyConfig | None,
        extract: ExtractConfig | None,
    ) -> None:
        self.crawler = crawler
        self.classify = classify
        self.extract = extract
        # A distributed crawl keeps group decisions and reference pages in
        # Redis, for every worker.
        shared = shared_state(crawler.settings)
        self.groups = GroupTypes(classify.max_groups if classify else 1, shared)
        self.references: ReferenceCache | SharedReferences | None = None
        if extract is not None:
            self.references = (
                ReferenceCache(extract.references, extract.max_groups)
                if shared is None
                else SharedReferences(shared, extract.references)
            )

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> AnalysePipeline:
        classify = ClassifyConfig.from_settings(crawler.settings)
        extract = ExtractConfig.from_settings(crawler.settings)
        if not classify.enabled and not extract.enabled:
            raise NotConfigured("SITESIFT_CLASSIFY_ENABLED and SITESIFT_EXTRACT_ENABLED are off")
        if extract.enabled:
            log.info(
                "extract: method %s, %d reference pages per URL group, %s",
                extract.method,
                extract.references,
                f"{processes(crawler)} worker processes" if processes(crawler) else "one thread",
            )
        return cls(
            crawler,
            classify if classify.enabled else None,
            extract if extract.enabled else None,
        )

    async def process_item(self, item: PageItem, spider: Spider | None = None) -> PageItem:
        if item.outcome is not Outcome.OK or item.document is None:
            return item
        url = item.final_url or item.url
        group = item.url_group
        reuse = self.classify is not None and self.classify.group_reuse
        known = self.groups.known(group) if reuse else None
        refs = self.references.get(group, url) if self.references is not None else []
        # What the spider parsed (over the size budget, cut): a worker
        # process gets no more, and no more is kept as a reference page.
        html = item.document.markup
        job = PageJob(
            url=url,
            html=html,
            fetched_at=item.fetched_at,
            screenshot=item.screenshot,
            classify=self.classify,
            group_type=known,
            method=self.extract.method if self.extract is not None else None,
            references=tuple(refs),
        )
        try:
            if processes(self.crawler):
                analysis = await in_worker(self.crawler, analyse, job)
            else:
                analysis = await off_reactor(self.crawler, analyse, job, item.document)
        except Exception as exc:  # a worker died, or the pool shut down: kept as fetched
            analysis = PageAnalysis(None, None, None, (("analyse", type(exc).__name__, str(exc)),))
        for step, kind, message in analysis.failures:
            log.warning("%s failed on %s: %s: %s", step, url, kind, message)
            self.crawler.stats.inc_value(f"sitesift/{step}/failed/{kind}")
        if analysis.decision is not None and analysis.page_type is not None:
            if reuse:
                self.groups.learn(group, known, analysis.decision, analysis.page_type)
            item.page_type = str(analysis.page_type)
            length = analysis.decision.length_class
            item.length_class = str(length) if length else None
            item.confidence = analysis.decision.confidence
            self.crawler.stats.inc_value(f"sitesift/classify/{analysis.page_type}")
        if analysis.result is not None:
            fill(item, analysis.result)
            if self.references is not None:
                self.references.add(group, url, html)
            self.crawler.stats.inc_value(f"sitesift/extract/{analysis.result.method}")
        return item
