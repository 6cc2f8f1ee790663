"""A progress line while crawling and a summary at the end.

Reads the ``sitesift/*`` stats the spider and pipelines keep; prints through
the ``sitesift.progress`` logger so that ``-L`` and log files apply.
"""

from __future__ import annotations

import logging
import time
from collections import Counter

from scrapy import Spider, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from twisted.internet.task import LoopingCall

from pipelines.history import NOT_MODIFIED

logger = logging.getLogger("sitesift.progress")
# Outcomes of the summary that are no failure.
_NOT_FAILED = frozenset({"ok", "skipped", "unchanged"})


def _failed(counts: Counter[str]) -> int:
    return sum(n for outcome, n in counts.items() if outcome not in _NOT_FAILED)


class Progress:
    def __init__(self, crawler: Crawler, interval: float) -> None:
        self.crawler = crawler
        self.interval = interval
        self.started = time.monotonic()
        self.per_site: dict[str, Counter[str]] = {}
        self._task: LoopingCall | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Progress:
        interval = crawler.settings.getfloat("SITESIFT_PROGRESS_INTERVAL")
        if interval < 0:
            raise NotConfigured
        ext = cls(crawler, interval)
        crawler.signals.connect(ext.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(ext.spider_closed, signal=signals.spider_closed)
        crawler.signals.connect(ext.item_seen, signal=signals.item_scraped)
        crawler.signals.connect(ext.item_seen, signal=signals.item_dropped)
        return ext

    def item_seen(self, item, **kwargs) -> None:  # noqa: ANN001
        site = getattr(item, "site", None)
        outcome = str(getattr(item, "outcome", "ok"))
        if getattr(item, "reason", None) == NOT_MODIFIED:
            outcome = "unchanged"  # refetched, the stored copy still current
        if site:
            self.per_site.setdefault(site, Counter())[outcome] += 1

    def spider_opened(self, spider: Spider) -> None:
        self.started = time.monotonic()
        sites = getattr(spider, "sites", [])
        logger.info(
            "crawling %d site(s); pipelines: %s",
            len(sites),
            ", ".join(
                p.rsplit(".", 1)[-1] for p in self.crawler.settings.getdict("ITEM_PIPELINES")
            ),
        )
        if self.interval > 0:
            self._task = LoopingCall(self.report)
            self._task.start(self.interval, now=False)

    def _totals(self) -> Counter[str]:
        total: Counter[str] = Counter()
        for counts in self.per_site.values():
            total.update(counts)
        return total

    def report(self) -> None:
        total = self._totals()
        elapsed = max(1e-9, time.monotonic() - self.started)
        done = sum(total.values())
        engine = self.crawler.engine
        if engine is not None and not engine.running:  # Ctrl-C: a graceful stop
            downloader = getattr(engine, "downloader", None)
            under_way = len(getattr(downloader, "active", ()))
            logger.info("stopping: %d fetched; waiting for %d request(s) under way; "
                        "Ctrl-C again stops at once", done, under_way)  # fmt: skip
            return
        stats = self.crawler.stats
        scheduler = getattr(engine, "scheduler", None)  # Scrapy >= 2.19
        try:
            pending = len(scheduler) if scheduler is not None else 0
        except TypeError:  # a scheduler without __len__ (e.g. a distributed one)
            pending = 0
        logger.info(
            "progress: %d fetched (%.1f/s), %d stored, %d failed, %d queued | %s",
            done,
            done / elapsed,
            stats.get_value("sitesift/stored/ok", 0),
            _failed(total),
            pending,
            "; ".join(
                f"{site} {c['ok']} ok/{_failed(c)} bad" for site, c in sorted(self.per_site.items())
            ),
        )

    def spider_closed(self, spider: Spider, reason: str) -> None:
        if self._task is not None and self._task.running:
            self._task.stop()
        elapsed = time.monotonic() - self.started
        total = self._totals()
        logger.info(
            "finished (%s) in %.1fs: %d pages ok, %s",
            reason,
            elapsed,
            total["ok"],
            ", ".join(f"{n} {k}" for k, n in sorted(total.items()) if k != "ok") or "no failures",
        )
        for site, counts in sorted(self.per_site.items()):
            logger.info(
                "  %s: %s",
                site,
                ", ".join(f"{n} {k}" for k, n in sorted(counts.items())),
            )
        stats = self.crawler.stats
        deep, capped = (stats.get_value(f"sitesift/skipped/{key}", 0)
                        for key in ("too_deep", "page_cap"))  # fmt: skip
        if deep or capped:
            logger.info("links not followed: %d beyond the depth limit, %d over the page cap "
                        "(depth= / max_pages= in the site list, or --depth / --max-pages)",
                        deep, capped)  # fmt: skip
        resumed, not_due = (stats.get_value(f"sitesift/{key}", 0)
                            for key in ("resume/done_pages", "recrawl/not_due"))  # fmt: skip
        if resumed or not_due:  # else "0 pages ok" reads as a failure
            logger.info("stored pages not fetched again: %d stored by the run resumed, %d not "
                        "due for a revisit yet (-s SITESIFT_REVISIT=False fetches them)",
                        resumed, not_due)  # fmt: skip
        if reason == "shutdown" and getattr(spider, "shared", None) is None:  # not distributed
            logger.info("stopped early (Ctrl-C or a stop signal): crawl again with --resume "
                        "to go on; the pages stored are not fetched again")  # fmt: skip
