"""Store every fetch outcome in the database, in batched transactions.

Runs last. A failed fetch never overwrites the content of an earlier good
fetch of the same URL: the row keeps the last good HTML beside the latest
outcome. Items that are not good pages are dropped here, after storing, so
that feeds (``-O``) carry pages only.
"""

from __future__ import annotations

import logging
import time
from datetime import datetime

from scrapy import Spider
from scrapy.crawler import Crawler
from scrapy.exceptions import DropItem
from sqlalchemy import Engine, case, insert, update
from twisted.internet.task import LoopingCall

from crawler.items import Outcome, PageItem

from .schema import (
    compress_html,
    connect,
    crawl_runs,
    dialect_insert,
    pages,
    sites,
    utcnow,
)

logger = logging.getLogger(__name__)

# Columns that describe the content: kept from the last good fetch when a
# later fetch of the same URL fails.
_CONTENT_COLUMNS = (
    "final_url",
    "content_type",
    "etag",
    "last_modified",
    "encoding",
    "content_hash",
    "title",
    "html_zlib",
    "html_size",
)


def page_row(item: PageItem, run_id: int | None) -> dict:
    """The ``pages`` row of an item."""
    fetched = datetime.fromisoformat(item.fetched_at) if item.fetched_at else utcnow()
    html = item.html if item.outcome is Outcome.OK else None
    return {
        "url": item.url,
        "final_url": item.final_url,
        "site": item.site,
        "run_id": run_id,
        "outcome": str(item.outcome),
        "reason": item.reason,
        "status": item.status,
        "fetched_at": fetched,
        "fetch_count": 1,
        "content_type": item.content_type,
        "etag": item.etag,
        "last_modified": item.last_modified,
        "encoding": item.encoding,
        "content_hash": item.content_hash,
        "url_group": item.url_group,
        "depth": item.depth,
        "referer": item.referer,
        "title": item.title,
        "html_zlib": compress_html(html),
        "html_size": len(html) if html is not None else None,
    }


class StorePipeline:
    def __init__(self, crawler: Crawler, db_url: str, batch: int, flush_seconds: float) -> None:
        self.crawler = crawler
        self.db_url = db_url
        self.batch = max(1, batch)
        self.flush_seconds = flush_seconds
        self.engine: Engine | None = None
        self.run_id: int | None = None
        self.buffer: list[dict] = []
        self.last_flush = time.monotonic()
        self._timer: LoopingCall | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> StorePipeline:
        s = crawler.settings
        return cls(
            crawler,
            s.get("SITESIFT_DB"),
            s.getint("SITESIFT_STORE_BATCH"),
            s.getfloat("SITESIFT_STORE_FLUSH_SECONDS"),
        )

    # -- lifecycle -------------------------------------------------------------

    def open_spider(self, spider: Spider | None = None) -> None:
        spider = spider or self.crawler.spider
        self.engine = connect(self.db_url)
        now = utcnow()
        with self.engine.begin() as conn:
            self.run_id = conn.execute(
                insert(crawl_runs).values(
                    spider=spider.name,
                    sites_file=getattr(spider, "sites_file", None),
                    started_at=now,
                    settings={
                        k: v
                        for k, v in self.crawler.settings.copy_to_dict().items()
                        if k.startswith("SITESIFT_") and k != "SITESIFT_DB"
                    },
                )
            ).inserted_primary_key[0]
            for spec in getattr(spider, "sites", []):
                stmt = dialect_insert(self.engine, sites).values(
                    host=spec.host,
                    start_url=spec.url,
                    options={k: v for k, v in vars(spec.options).items() if v is not None},
                    first_seen=now,
                    last_crawled=now,
                )
                conn.execute(
                    stmt.on_conflict_do_update(
                        index_elements=[sites.c.host],
                        set_={
                            "start_url": stmt.excluded.start_url,
                            "options": stmt.excluded.options,
                            "last_crawled": now,
                        },
                    )
                )
        logger.info(
            "storing into %s (run %s)",
            self.engine.url.render_as_string(hide_password=True),
            self.run_id,
        )
        if self.flush_seconds > 0:
            self._timer = LoopingCall(self._flush_if_due)
            self._timer.start(self.flush_seconds, now=False)

    def close_spider(self, spider: Spider | None = None) -> None:
        if self._timer is not None and self._timer.running:
            self._timer.stop()
        self.flush()
        if self.engine is None:
            return
        stats = self.crawler.stats.get_stats()
        counts = {k: v for k, v in stats.items() if k.startswith("sitesift/")}
        with self.engine.begin() as conn:
            conn.execute(
                update(crawl_runs)
                .where(crawl_runs.c.id == self.run_id)
                .values(
                    finished_at=utcnow(),
                    finish_reason=str(stats.get("finish_reason", "")) or None,
                    counts=counts,
                )
            )
        self.engine.dispose()

    # -- items -------------------------------------------------------------------

    def process_item(self, item: PageItem, spider: Spider | None = None) -> PageItem:
        self.buffer.append(page_row(item, self.run_id))
        self.crawler.stats.inc_value(f"sitesift/stored/{item.outcome}")
        if len(self.buffer) >= self.batch:
            self.flush()
        if item.outcome is not Outcome.OK:
            raise DropItem(f"{item.outcome}: {item.url}", log_level="DEBUG")
        return item

    def _flush_if_due(self) -> None:
        if self.buffer and time.monotonic() - self.last_flush >= self.flush_seconds:
            self.flush()

    def flush(self) -> None:
        """Write the buffered rows in one transaction."""
        self.last_flush = time.monotonic()
        if not self.buffer or self.engine is None:
            return
        rows, self.buffer = self.buffer, []
        stmt = dialect_insert(self.engine, pages)
        ok = stmt.excluded.outcome == str(Outcome.OK)
        set_ = {
            col.name: stmt.excluded[col.name]
            for col in pages.columns
            if col.name not in ("id", "url", "fetch_count", *_CONTENT_COLUMNS)
        }
        for name in _CONTENT_COLUMNS:
            set_[name] = case((ok, stmt.excluded[name]), else_=pages.c[name])
        set_["fetch_count"] = pages.c.fetch_count + 1
        stmt = stmt.on_conflict_do_update(index_elements=[pages.c.url], set_=set_)
        with self.engine.begin() as conn:
            conn.execute(stmt, rows)
