"""Mark captcha / access-denied pages served as 200 as blocked, not content."""

from __future__ import annotations

from scrapy import Spider
from scrapy.crawler import Crawler

from crawler.blocking import BlockDetector
from crawler.items import Outcome, PageItem
from extractors.document import text_content


class BlockedPagePipeline:
    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.detector = BlockDetector()

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> BlockedPagePipeline:
        return cls(crawler)

    def process_item(self, item: PageItem, spider: Spider | None = None) -> PageItem:
        if item.outcome is not Outcome.OK or item.document is None:
            return item
        text = text_content(item.document.body)
        reason = self.detector.check(item.url_group or item.site, text, item.title or "")
        if reason:
            item.outcome = Outcome.BLOCKED
            item.reason = reason
            self.crawler.stats.inc_value("sitesift/pages/blocked")
        return item
