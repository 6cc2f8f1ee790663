"""A graceful stop that does not wait out the download queue.

Ctrl-C (or SIGTERM) asks Scrapy to stop gracefully: it waits for every
request the engine has handed to the downloader. On a polite site most of
those wait in the site's download slot, one delay apart: 16 requests behind
a 10 s crawl delay hold the stop for close to three minutes. Once the engine
stops, this extension drops the requests still waiting there (none has been
sent); the ones under way finish and are stored. A dropped request leaves
no row: ``--resume`` finds its link again on the stored pages and fetches it.

Not in distributed mode: there a dropped URL is this worker's claim, which
no other worker would take up.
"""

from __future__ import annotations

import logging

from scrapy import Spider, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import IgnoreRequest, NotConfigured
from twisted.internet.task import LoopingCall
from twisted.python.failure import Failure

logger = logging.getLogger(__name__)

CHECK_SECONDS = 0.2  # how soon after the stop the queue is emptied
DROPPED_STAT = "sitesift/stop/dropped_queued"


class CrawlStopping(IgnoreRequest):
    """A queued request dropped because the crawl is stopping (no failure:
    nothing is recorded for it)."""


def drop_queued(downloader: object) -> int:
    """Fail every request waiting in a download slot's queue (not yet sent)
    with :class:`CrawlStopping`; how many there were."""
    dropped = 0
    for slot in list(getattr(downloader, "slots", {}).values()):
        queue = getattr(slot, "queue", None)
        while queue:
            request, waiting = queue.popleft()
            waiting.errback(Failure(CrawlStopping(f"the crawl is stopping: {request.url}")))
            dropped += 1
    return dropped


class QuickStop:
    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self._task = LoopingCall(self._check)
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> QuickStop:
        if not crawler.settings.getbool("SITESIFT_STOP_DROPS_QUEUED"):
            raise NotConfigured
        return cls(crawler)

    def spider_opened(self, spider: Spider) -> None:
        if getattr(spider, "shared", None) is None:  # not distributed
            self._task.start(CHECK_SECONDS, now=False)

    def _check(self) -> None:
        engine = self.crawler.engine
        if engine is None or engine.running:
            return
        # Requests still in the middlewares (one waiting for robots.txt)
        # reach the queue later: checked again until the spider closes.
        if dropped := drop_queued(engine.downloader):
            stats = self.crawler.stats
            if not stats.get_value(DROPPED_STAT):  # said once
                logger.info("stopping: %d queued request(s) dropped, not fetched; "
                            "--resume fetches them", dropped)  # fmt: skip
            stats.inc_value(DROPPED_STAT, dropped)

    def spider_closed(self, spider: Spider) -> None:
        if self._task.running:
            self._task.stop()
