"""Run a page's CPU-heavy work (classification, extraction) off the reactor.

Extraction is pure Python and costs ~0.1 s on a usual page and seconds on a
multi-megabyte one. Inline in a pipeline it would stall the event loop:
downloads, timeouts, heartbeats and Redis calls would all wait. One worker
thread (``SITESIFT_EXTRACT_THREADS``) takes that work instead; the GIL makes
more threads no faster, but the reactor keeps running between its slices.
Pipelines hand it pure functions of the page and touch shared state (caches,
stats) only in the reactor thread, before and after.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar
from weakref import WeakKeyDictionary

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet import threads
from twisted.python.threadpool import ThreadPool

T = TypeVar("T")

_pools: WeakKeyDictionary[Crawler, ThreadPool] = WeakKeyDictionary()


def _pool(crawler: Crawler) -> ThreadPool:
    """The crawl's worker pool, started on first use, stopped with the engine
    or, when a second Ctrl-C forces the crawl down and the engine never
    reports stopping, with the reactor: its threads are not daemons, and
    Python waits for them before it exits."""
    from twisted.internet import reactor

    pool = _pools.get(crawler)
    if pool is None:
        size = max(1, crawler.settings.getint("SITESIFT_EXTRACT_THREADS"))
        pool = ThreadPool(minthreads=0, maxthreads=size, name="sitesift-extract")
        pool.start()

        def stop() -> None:
            if not pool.joined:
                pool.stop()

        crawler.signals.connect(stop, signal=signals.engine_stopped, weak=False)
        reactor.addSystemEventTrigger("during", "shutdown", stop)
        _pools[crawler] = pool
    return pool


async def off_reactor(crawler: Crawler, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)`` in the crawl's worker thread; its exception,
    if any, is raised here."""
    from twisted.internet import reactor

    d = threads.deferToThreadPool(reactor, _pool(crawler), fn, *args, **kwargs)
    return await maybe_deferred_to_future(d)
