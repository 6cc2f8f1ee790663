"""Run a page's CPU-heavy work (parse, classification, extraction) off the reactor.

Extraction is pure Python and costs ~0.1 s on a usual page and seconds on a
multi-megabyte one. Inline in a pipeline it would stall the event loop:
downloads, timeouts, heartbeats and Redis calls would all wait. One worker
thread (``SITESIFT_EXTRACT_THREADS``) takes that work instead; the GIL makes
more threads no faster, but the reactor keeps running between its slices.
Pipelines hand it pure functions of the page and touch shared state (caches,
stats) only in the reactor thread, before and after. The spider's parse of a
page has a thread of its own, so that link discovery never waits behind a
queue of extractions.
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

_pools: WeakKeyDictionary[Crawler, dict[str, ThreadPool]] = WeakKeyDictionary()


def _pool(crawler: Crawler, name: str, size: int) -> ThreadPool:
    """The crawl's pool ``name``, started on first use, stopped with the engine."""
    pools = _pools.setdefault(crawler, {})
    pool = pools.get(name)
    if pool is None:
        pool = ThreadPool(minthreads=0, maxthreads=max(1, size), name=f"sitesift-{name}")
        pool.start()
        crawler.signals.connect(pool.stop, signal=signals.engine_stopped)
        pools[name] = pool
    return pool


async def _in(pool: ThreadPool, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    from twisted.internet import reactor

    d = threads.deferToThreadPool(reactor, pool, fn, *args, **kwargs)
    return await maybe_deferred_to_future(d)


async def off_reactor(crawler: Crawler, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)`` in the crawl's extraction thread; its exception,
    if any, is raised here."""
    size = crawler.settings.getint("SITESIFT_EXTRACT_THREADS")
    return await _in(_pool(crawler, "extract", size), fn, *args, **kwargs)


async def parse_off_reactor(crawler: Crawler, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)`` in the crawl's parse thread: a page's parse
    (the spider needs its links) must not queue behind the extractions."""
    return await _in(_pool(crawler, "parse", 1), fn, *args, **kwargs)
