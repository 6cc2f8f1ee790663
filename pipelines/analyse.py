"""Page type and main content of every fetched page, in one job.

Classification and extraction read the same parsed page, and auto reuses
the article methods' runs that classification made (they are kept on the
document): so the two run together, in one call of :func:`analyse`. With
worker processes (``SITESIFT_EXTRACT_PROCESSES``, one per CPU by default) a
process parses the page's HTML again (a tree does not pickle) and a crawl
uses every core; with none, the worker thread takes the spider's tree. What
spans pages stays in the reactor: each URL group's page type
(``pipelines.classify``) and reference pages (``pipelines.extract``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from scrapy import Spider
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured

from crawler.distributed import SharedReferences, shared_state
from crawler.items import Outcome, PageItem
from extractors import extract
from extractors.classify import Classification
from extractors.document import Document
from extractors.result import PageType, Result
from pipelines.classify import ClassifyConfig, GroupTypes, decide, with_group
from pipelines.extract import ExtractConfig, ReferenceCache, fill, given_classification
from pipelines.offload import in_worker, off_reactor, processes

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class PageJob:
    """What a worker needs of a page (all of it pickles)."""

    url: str
    html: str
    fetched_at: str | None
    screenshot: dict[str, Any] | None
    classify: ClassifyConfig | None  # None: no classification
    group_type: PageType | None  # the page's URL group's, when known
    method: str | None  # None: no extraction
    references: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PageAnalysis:
    decision: Classification | None  # the page's own
    page_type: PageType | None  # the decision, or its group's when reused
    result: Result | None
    failures: tuple[tuple[str, str, str], ...]  # (step, exception type, message)


def analyse(job: PageJob, document: Document | None = None) -> PageAnalysis:
    """Classify the page, then extract it, each step on its own: a step that
    fails is reported, and the other still runs."""
    doc = document if document is not None else Document(job.html, url=job.url)
    decision = page_type = result = None
    failures = []
    if job.classify is not None:
        try:
            decision = decide(doc, job.url, job.screenshot)
            page_type = with_group(decision, job.group_type, job.classify)
        except Exception as exc:  # never lose the page over a classification
            failures.append(("classify", type(exc).__name__, str(exc)))
    if job.method is not None:
        kwargs: dict[str, Any] = {
            "reference": list(job.references) or None,
            "fetched_at": job.fetched_at,
        }
        if job.method == "auto" and decision is not None and page_type is not None:
            kwargs["classification"] = given_classification(decision, page_type, job.screenshot)
        try:
            result = extract(doc, job.url, method=job.method, **kwargs)
        except Exception as exc:  # the page is stored without text, never lost
            failures.append(("extract", type(exc).__name__, str(exc)))
    return PageAnalysis(decision, page_type, result, tuple(failures))


class AnalysePipeline:
    """Runs :func:`analyse` on every page fetched whole, off the reactor,
    and copies its decision and result onto the item."""

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
        job = PageJob(
            url=url,
            html=item.html or "",
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
        except Exception as exc:  # a worker process died: the page is kept as fetched
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
                self.references.add(group, url, item.html)
            self.crawler.stats.inc_value(f"sitesift/extract/{analysis.result.method}")
        return item
