"""Store every fetch outcome, article, list record and screenshot.

Runs last. Items are buffered and written in batches, each batch in one
transaction, so a killed process never leaves half an article behind. In a
crawl the batches are written by a thread of their own, in order: a write
(seconds for a multi-megabyte page, or a database retried with backoff) never
stalls the event loop; stats and signals still happen in the reactor thread. A
failed fetch never overwrites the content of an earlier good fetch of the
same URL. An article gets a new version only when its cleaned text changes
(earlier versions go to ``article_versions``). When the database goes away,
a batch is retried with backoff and then spooled to a local JSONL file
(``SITESIFT_SPOOL_DIR``), replayed as soon as the database answers again.
An item the database refuses for its data rather than for being away costs
only itself: it is kept in the spool folder's ``rejected.jsonl``.
Items that are not good pages are dropped here, after storing, so that feeds
(``-O``) carry pages only.
"""

from __future__ import annotations

import atexit
import logging
import os
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, fields
from datetime import datetime
from typing import Any

from scrapy import Spider, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import DropItem
from scrapy.utils.defer import deferred_from_coro
from sqlalchemy import Connection, Engine, insert, select, update
from sqlalchemy.exc import DBAPIError, InterfaceError, InternalError, OperationalError
from twisted.internet.task import LoopingCall

from crawler.items import Outcome, PageItem, pages_stored
from crawler.screenshots import ScreenshotStore
from crawler.settings import SITESIFT_SPOOL_DIR as DEFAULT_SPOOL_DIR

from .history import interrupted_runs
from .parts import join_parts
from .schema import connect, crawl_runs, dialect_insert, error_line, sites, utcnow
from .spool import Spool
from .writer import FETCHED_BY, RevisitParams, write_batch

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class StoreConfig:
    db_url: str
    batch: int = 50
    flush_seconds: float = 2.0
    # Retries of a failed batch before it is spooled: 0.5+1+2+4 = 7.5 s
    # covers a PostgreSQL restart (1-3 s here) without stalling a crawl long.
    retries: int = 4
    backoff: float = 0.5
    spool_dir: str = DEFAULT_SPOOL_DIR
    # How long a finished crawl waits for an absent database before leaving
    # its items in the spool for the next run.
    close_wait: float = 30.0
    revisit: RevisitParams = RevisitParams()

    @classmethod
    def from_settings(cls, s: Any) -> StoreConfig:  # noqa: ANN401 - scrapy Settings
        config = cls(
            db_url=s.get("SITESIFT_DB"),
            batch=max(1, s.getint("SITESIFT_STORE_BATCH", 50)),
            flush_seconds=s.getfloat("SITESIFT_STORE_FLUSH_SECONDS", 2.0),
            retries=s.getint("SITESIFT_STORE_RETRIES", 4),
            backoff=s.getfloat("SITESIFT_STORE_BACKOFF", 0.5),
            spool_dir=s.get("SITESIFT_SPOOL_DIR") or DEFAULT_SPOOL_DIR,
            close_wait=s.getfloat("SITESIFT_STORE_CLOSE_WAIT", 30.0),
            revisit=RevisitParams.from_settings(s),
        )
        if config.retries < 0 or config.backoff < 0:
            raise ValueError("SITESIFT_STORE_RETRIES and SITESIFT_STORE_BACKOFF must be >= 0")
        return config


def item_record(item: PageItem) -> dict[str, Any]:
    """An item as plain JSON-able data (the parsed tree left out)."""
    record = {f.name: getattr(item, f.name) for f in fields(item) if f.name != "document"}
    record["outcome"] = str(item.outcome)
    return record


# Batches queued for the writer thread before the crawl waits for it.
MAX_QUEUED_BATCHES = 2

# A picture used this recently may belong to a page not yet committed (in a
# batch, the spool, another worker): kept; `sitesift prune-screenshots` sweeps later.
SCREENSHOT_GRACE = 600.0


class StorePipeline:
    def __init__(self, crawler: Crawler, config: StoreConfig) -> None:
        self.crawler = crawler
        self.config = config
        self.engine: Engine | None = None
        self.run_id: int | None = None
        self.buffer: list[dict[str, Any]] = []
        self.last_flush = time.monotonic()
        self.spool = Spool(config.spool_dir, config.db_url)
        self.db_down = False
        # Batches neither the database nor the spool took (an unwritable or
        # full spool folder): kept here, the crawl stops, closing tries again.
        self.held: list[dict[str, Any]] = []
        self._timer: LoopingCall | None = None
        # In a crawl: the writer thread, its queued batches, and what it left
        # for the reactor thread to do (stats, signals).
        self._writer: ThreadPoolExecutor | None = None
        self._writes: list[Future[None]] = []
        self._effects: deque[Callable[[], Any]] = deque()
        self._home = threading.current_thread()  # the reactor's, from open_spider on

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> StorePipeline:
        pipe = cls(crawler, StoreConfig.from_settings(crawler.settings))
        crawler.signals.connect(pipe.spider_closed, signal=signals.spider_closed)
        # Nothing waits in the buffer while the crawl idles (or a worker of a
        # distributed crawl decides whether the frontier is empty).
        crawler.signals.connect(pipe.idle, signal=signals.spider_idle)
        return pipe

    # kept for callers that set these directly (tests)
    @property
    def flush_seconds(self) -> float:
        return self.config.flush_seconds

    @flush_seconds.setter
    def flush_seconds(self, value: float) -> None:
        self.config = _replace(self.config, flush_seconds=value)

    # -- lifecycle -------------------------------------------------------------

    def open_spider(self, spider: Spider | None = None) -> None:
        spider = spider or self.crawler.spider
        self.engine = connect(self.config.db_url)
        now = utcnow()
        settings = self.crawler.settings
        with self.engine.begin() as conn:
            self.run_id = conn.execute(
                insert(crawl_runs).values(
                    spider=spider.name,
                    sites_file=getattr(spider, "sites_file", None),
                    started_at=now,
                    job=settings.get("SITESIFT_JOB") or None,
                    pid=_pid(),
                    settings={
                        k: v
                        for k, v in settings.copy_to_dict().items()
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
        problem = self.spool.check()
        if problem:
            logger.warning("%s: if the database fails, the crawl stops", problem)
        for folder, database, waiting in self.spool.elsewhere():
            logger.warning("%d spooled item(s) in %s wait for %s, not this one: left there",
                           waiting, folder, database)  # fmt: skip
        self.replay_spool()
        if _reactor_running():
            self._home = threading.current_thread()
            self._writer = ThreadPoolExecutor(1, thread_name_prefix="sitesift-store")
            atexit.register(self._spool_at_exit)
        if self.config.flush_seconds > 0:
            self._timer = LoopingCall(self._flush_if_due)
            self._timer.start(self.config.flush_seconds, now=False)

    def _spool_at_exit(self) -> None:
        """A forced stop (a second Ctrl-C) ends the process without
        close_spider: the items still buffered go to the spool, which the
        next crawl replays, instead of being lost."""
        records, self.buffer = self.buffer, []
        if not records:
            return
        for record in records:
            record[FETCHED_BY] = self.run_id
        try:
            path = self.spool.write(records)
        except OSError as exc:
            print(f"sitesift: {len(records)} item(s) not stored: cannot spool them ({exc})",
                  file=sys.stderr)  # fmt: skip
            return
        print(f"sitesift: stopped before storing {len(records)} item(s): spooled to {path}; "
              "the next crawl stores them", file=sys.stderr)  # fmt: skip

    def close_spider(self, spider: Spider | None = None) -> None:
        spider = spider or getattr(self.crawler, "spider", None)
        atexit.unregister(self._spool_at_exit)
        if self._timer is not None and self._timer.running:
            self._timer.stop()
        self.idle()
        if self._writer is not None:
            self._writer.shutdown()
            self._writer = None
        if self.engine is None:
            return
        if self.spool.files() or self.held:
            self._replay_before_closing()
        stats = self.crawler.stats
        if self.held:
            stats.inc_value("sitesift/store/lost", len(self.held))
            logger.error("%d item(s) could be neither stored nor spooled and are lost",
                         len(self.held))  # fmt: skip
        left = self.spool.pending()
        if left:
            stats.set_value("sitesift/spool/pending", left)
            logger.error(
                "%d item(s) could not be stored and wait in %s; the next run replays them",
                left,
                self.spool.directory,
            )
        elif stats.get_value("sitesift/spool/spooled"):
            logger.warning(
                "the database went away: %d item(s) were spooled and all %d replayed",
                stats.get_value("sitesift/spool/spooled"),
                stats.get_value("sitesift/spool/replayed", 0),
            )
        try:
            joined = self._retrying(lambda: join_parts(self.engine))
            if joined:
                stats.set_value("sitesift/articles/joined_parts", joined)
        except DBAPIError as exc:
            logger.error("could not join the pages of multi-page articles: %s", error_line(exc))
        counts = {k: v for k, v in stats.get_stats().items() if k.startswith("sitesift/")}
        resumed = getattr(spider, "resumed_runs", None) or None
        reason = stats.get_value("finish_reason")
        end = {"finished_at": utcnow(), "finish_reason": str(reason) if reason else None,
               "counts": counts, "resumed_runs": resumed}  # fmt: skip
        try:
            self._retrying(lambda: self._record_run_end(self.run_id, end))
        except DBAPIError as exc:
            self._keep_run_end(end, exc)

    def spider_closed(self, spider: Spider, reason: str) -> None:
        """The finish reason is known only after the pipelines closed."""
        if self.engine is None:
            return
        end = {"finish_reason": str(reason)}
        try:
            self._record_run_end(self.run_id, end)
        except DBAPIError as exc:
            self._keep_run_end(end, exc)
        self.engine.dispose()

    def _keep_run_end(self, end: dict[str, Any], exc: DBAPIError) -> None:
        """The database missed the end of this run: keep it in the spool
        folder for the next run's replay, so that the run is not taken for
        an interrupted one (``--resume`` would redo it, ``status`` says
        "running or interrupted")."""
        try:
            path = self.spool.keep_run_end(self.run_id, end)
        except OSError as os_exc:
            logger.error("could not record the end of run %s (%s) nor keep it in %s (%s)",
                         self.run_id, error_line(exc), self.spool.directory,
                         os_exc.strerror or os_exc)  # fmt: skip
            return
        logger.error("could not record the end of run %s (%s); it is kept in %s and "
                     "recorded by the next run", self.run_id, error_line(exc), path)  # fmt: skip

    def _replay_before_closing(self) -> None:
        """Give a database that is away ``close_wait`` seconds to come back."""
        deadline = time.monotonic() + self.config.close_wait
        while True:
            try:
                self.replay_spool()
                if self.held:
                    self._store(self.held)  # leaves in it what it could not write
                    self.held = []
                return
            except DBAPIError as exc:
                if time.monotonic() >= deadline:
                    logger.error("database still unavailable at the end: %s", error_line(exc))
                    return
                time.sleep(min(2.0, max(0.1, deadline - time.monotonic())))

    def _record_run_end(self, run_id: int | None, end: dict[str, Any]) -> None:
        """Write what is known of a run's end (any of end time, reason,
        counts, resumed runs); a resumed run is noted on the runs it resumed."""
        assert self.engine is not None
        values = dict(end)
        if isinstance(values.get("finished_at"), str):
            values["finished_at"] = datetime.fromisoformat(values["finished_at"])
        resumed = values.get("resumed_runs")
        with self.engine.begin() as conn:
            conn.execute(update(crawl_runs).where(crawl_runs.c.id == run_id).values(**values))
            if resumed:
                self._mark_resumed(conn, run_id, resumed)

    def _mark_resumed(self, conn: Connection, run_id: int | None, resumed: list[int]) -> None:
        """Note on each earlier run that ``run_id`` resumed it, after its own
        reason ("shutdown; resumed by run 4"), once."""
        earlier = select(crawl_runs.c.id, crawl_runs.c.finish_reason).where(
            crawl_runs.c.id.in_(resumed)
        )
        for earlier_id, why in conn.execute(earlier).all():
            if why is None or "resumed by run" not in why:
                conn.execute(
                    update(crawl_runs)
                    .where(crawl_runs.c.id == earlier_id)
                    .values(finish_reason=f"{why or 'interrupted'}; resumed by run {run_id}"[:64])
                )

    def interrupted_runs(self, sites_file: str) -> list[int]:
        """Interrupted earlier runs of this site list (for resume)."""
        assert self.engine is not None
        return interrupted_runs(self.engine, sites_file, before=self.run_id)

    # -- items -------------------------------------------------------------------

    def process_item(self, item: PageItem, spider: Spider | None = None) -> PageItem:
        self.buffer.append(item_record(item))
        self.crawler.stats.inc_value(f"sitesift/stored/{item.outcome}")
        if len(self.buffer) >= self.config.batch:
            self.flush()
        if item.outcome is not Outcome.OK:
            raise DropItem(f"{item.outcome}: {item.url}", log_level="DEBUG")
        return item

    def _flush_if_due(self) -> None:
        if self.buffer and time.monotonic() - self.last_flush >= self.config.flush_seconds:
            self.flush()

    def flush(self) -> None:
        """Write the buffered items in one transaction (in the writer
        thread during a crawl); spool them if the database stays away
        through every retry."""
        self.last_flush = time.monotonic()
        if not self.buffer or self.engine is None:
            return
        records, self.buffer = self.buffer, []
        if self._writer is None:
            self._write_or_spool(records)
            return
        future = self._writer.submit(self._write_or_spool, records)
        future.add_done_callback(self._written)
        self._writes = [f for f in self._writes if not f.done()] + [future]
        if len(self._writes) > MAX_QUEUED_BATCHES:  # a slow database slows the crawl
            wait(self._writes[:-MAX_QUEUED_BATCHES])

    def idle(self, spider: Spider | None = None) -> None:
        """Flush and wait until every batch is written: nothing is left in
        flight when the crawl idles (a distributed worker then releases its
        claims) or closes. Blocking is harmless here, the crawl has nothing
        else to do."""
        self.flush()
        wait(self._writes)  # the writer logs its own errors (_written)
        self._apply_effects()

    def _written(self, future: Future[None]) -> None:
        """In the writer thread, once a batch is done: its effects go to the
        reactor thread; an unexpected error is logged, never lost silently."""
        exc = future.exception()
        if exc is not None:
            logger.error("storing a batch failed", exc_info=exc)
        from twisted.internet import reactor

        reactor.callFromThread(self._apply_effects)

    def _effect(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:  # noqa: ANN401
        """``fn(*args, **kwargs)`` now in the reactor thread, or queued for it
        from the writer thread: Scrapy's stats and signals are not thread-safe."""
        if threading.current_thread() is self._home:
            fn(*args, **kwargs)
        else:
            self._effects.append(lambda: fn(*args, **kwargs))

    def _apply_effects(self) -> None:
        while self._effects:
            self._effects.popleft()()

    def _inc(self, key: str, value: int = 1) -> None:
        self._effect(self.crawler.stats.inc_value, key, value)

    def _write_or_spool(self, records: list[dict[str, Any]]) -> None:
        if self.spool.files() and not self._try(self.replay_spool):
            self._to_spool(records)
            return
        # Once the database is known to be down, one quick try per batch.
        try:
            self._retrying(lambda: self._store(records), 0 if self.db_down else None)
            self.db_down = False
        except DBAPIError as exc:
            self.db_down = True
            logger.warning("database unavailable (%s): spooling", error_line(exc))
            self._to_spool(records)

    def _store(self, records: list[dict[str, Any]]) -> None:
        """Write a batch in one transaction. When the database refuses it for
        its data (a value it cannot take, a bug) rather than being away, each
        record is written alone: a bad record costs only itself and goes to
        the spool folder's rejected file with the reason, while the batch
        retried or spooled as a whole would fail again at every replay. An
        outage meanwhile raises, with ``records`` cut to those not written."""
        try:
            self._write(records)
            records.clear()
            return
        except Exception as exc:
            if is_outage(exc):
                raise
            logger.warning("the database refused a batch of %d item(s) (%s): "
                           "storing them one by one", len(records), _reason(exc))  # fmt: skip
        while records:
            try:
                self._write(records[:1])
            except Exception as exc:
                if is_outage(exc):
                    raise
                self._reject(records[0], exc)
            del records[0]

    def _reject(self, record: dict[str, Any], exc: Exception) -> None:
        reason = _reason(exc)
        try:
            path = self.spool.reject(record, reason)
        except OSError as os_exc:
            self._inc("sitesift/store/lost")
            logger.error("could not store %s (%s) nor keep it in %s (%s): lost", record.get("url"),
                         reason, self.spool.directory, os_exc.strerror or os_exc)  # fmt: skip
            return
        self._inc("sitesift/store/rejected")
        self._stored([record])
        logger.error("could not store %s: %s; the item is kept in %s",
                     record.get("url"), reason, path)  # fmt: skip

    def _write(self, records: list[dict[str, Any]]) -> None:
        assert self.engine is not None
        released: set[str] = set()
        with self.engine.begin() as conn:
            counts = write_batch(conn, records, self.run_id, self.config.revisit, released)
        if released:  # committed: no page refers to these pictures any more
            store = ScreenshotStore(self.crawler.settings.get("SITESIFT_SCREENSHOT_DIR"))
            gone = sum(store.delete(sha, min_age=SCREENSHOT_GRACE) for sha in released)
            self._inc("sitesift/screenshots/deleted", gone)
        for key, value in counts.items():
            self._inc(f"sitesift/articles/{key}", value)
        self._stored(records)

    def _stored(self, records: list[dict[str, Any]]) -> None:
        urls = [r["url"] for r in records]
        self._effect(self.crawler.signals.send_catch_log, pages_stored, urls=urls)

    def _to_spool(self, records: list[dict[str, Any]]) -> None:
        try:
            path = self.spool.write(records)
        except OSError as exc:
            self._hold(records, exc)
            return
        self._inc("sitesift/spool/spooled", len(records))
        self._stored(records)
        logger.warning("spooled %d item(s) to %s", len(records), path)

    def _hold(self, records: list[dict[str, Any]], exc: OSError) -> None:
        """The spool failed too: keep the batch in memory and stop the crawl,
        which could only pile up more items it cannot keep."""
        first = not self.held
        self.held.extend(records)
        self._inc("sitesift/spool/failed", len(records))
        if not first:
            return
        logger.error("cannot spool to %s (%s) while the database is unavailable: "
                     "stopping the crawl", self.spool.directory, exc.strerror or exc)  # fmt: skip
        self._effect(self._stop_crawl)

    def _stop_crawl(self) -> None:
        engine = getattr(self.crawler, "engine", None)
        if engine is not None and engine.spider is not None:
            deferred_from_coro(engine.close_spider_async(reason="store_failed"))

    def replay_spool(self) -> bool:
        """Store every spooled batch, oldest first. Raises if the database is
        away; a batch it stopped in keeps only the items not yet stored."""
        with self.spool.locked():
            for path, records in self.spool.batches():
                count = len(records)
                try:
                    self._store(records)
                except DBAPIError:
                    if len(records) < count:
                        self.spool.rewrite(path, records)
                    raise
                self.spool.done(path)
                self._inc("sitesift/spool/replayed", count)
                logger.info("replayed %d spooled item(s) from %s", count, path.name)
            for path, end in self.spool.run_ends():
                run_id = end.pop("run_id")
                self._record_run_end(run_id, end)
                self.spool.done(path)
                logger.info("recorded the end of run %s, kept in %s", run_id, path.name)
        return True

    def _try(self, action: Any) -> bool:  # noqa: ANN401
        try:
            action()
        except DBAPIError:
            return False
        return True

    def _retrying(self, action: Any, retries: int | None = None) -> Any:  # noqa: ANN401
        """Run ``action``; while the database is away, wait, doubling, and
        try again (``retries`` times, the configured number by default)."""
        retries = self.config.retries if retries is None else retries
        delay = self.config.backoff
        for attempt in range(retries + 1):
            try:
                return action()
            except DBAPIError as exc:
                if attempt == retries or not is_outage(exc):
                    raise
                self._inc("sitesift/store/retries")
                logger.warning("database error (%s); retrying in %.1fs", error_line(exc), delay)
                time.sleep(delay)
                delay *= 2


def is_outage(exc: BaseException) -> bool:
    """Whether a write failed because the database is away, busy or out of
    room (worth retrying, then spooling) rather than because it refuses the
    data (a NUL character, a value too long, a constraint: it would fail
    again every time)."""
    return isinstance(exc, (OperationalError, InterfaceError, InternalError)) or bool(
        getattr(exc, "connection_invalidated", False)
    )


def _reason(exc: BaseException) -> str:
    """One line naming the error: a database's own message, or the type of
    any other error with its message."""
    line, name = error_line(exc), type(exc).__name__
    return line if isinstance(exc, DBAPIError) or line == name else f"{name}: {line}"


def _replace(config: StoreConfig, **changes: Any) -> StoreConfig:  # noqa: ANN401
    values = asdict(config) | changes
    values["revisit"] = config.revisit
    return StoreConfig(**values)


def _reactor_running() -> bool:
    """Whether a crawl's reactor runs (never imports one: that would install
    the default reactor in a process that has not chosen one yet)."""
    reactor = sys.modules.get("twisted.internet.reactor")
    return bool(getattr(reactor, "running", False))


def _pid() -> int:
    return os.getpid()
