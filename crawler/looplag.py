"""How long the event loop was kept from running, as the stat
``sitesift/reactor/max_lag_ms``.

Everything a crawl does waits on one event loop: downloads, timeouts,
politeness delays, heartbeats. Work that holds it (a parse, an extraction
left inline) delays all of them; this measures by how much, with a tick every
``period`` seconds that notes how late it runs.
"""

from __future__ import annotations

import time

from scrapy import Spider, signals
from scrapy.crawler import Crawler
from twisted.internet.task import LoopingCall

STAT = "sitesift/reactor/max_lag_ms"


class LoopLag:
    period = 0.05  # seconds between ticks

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.last = 0.0
        self.max_lag = 0.0
        self._task: LoopingCall | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> LoopLag:
        ext = cls(crawler)
        crawler.signals.connect(ext.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(ext.spider_closed, signal=signals.spider_closed)
        return ext

    def spider_opened(self, spider: Spider) -> None:
        self.last = time.monotonic()
        self._task = LoopingCall(self.tick)
        self._task.start(self.period, now=False)

    def tick(self) -> None:
        now = time.monotonic()
        lag = now - self.last - self.period
        self.last = now
        if lag > self.max_lag:
            self.max_lag = lag
            self.crawler.stats.set_value(STAT, round(lag * 1000))

    def spider_closed(self, spider: Spider) -> None:
        if self._task is not None and self._task.running:
            self._task.stop()
