"""Mark captcha / access-denied pages served as 200 as blocked, not content."""

from __future__ import annotations

from scrapy import Spider
from scrapy.crawler import Crawler

from crawler.blocking import BlockDetector
from crawler.items import Outcome, PageItem
from extractors.document import text_content
from pipelines.offload import off_reactor


class BlockedPagePipeline:
    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.detector = BlockDetector()

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> BlockedPagePipeline:
        return cls(crawler)

    async def process_item(self, item: PageItem, spider: Spider | None = None) -> PageItem:
        if item.outcome is not Outcome.OK or item.document is None:
            return item
        # The page's text in the worker thread (~0.4 s for a 6 MB page); the
        # detector's per-group history is kept here, in the reactor thread.
        text = await off_reactor(self.crawler, text_content, item.document.body)
        reason = self.detector.check(item.url_group or item.site, text, item.title or "")
        if reason:
            item.outcome = Outcome.BLOCKED
            item.reason = reason
            self.crawler.stats.inc_value("sitesift/pages/blocked")
        return item
