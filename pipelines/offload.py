"""Run a page's CPU-heavy work (classification, extraction) off the reactor.

Extraction is pure Python and costs ~0.1 s on a usual page and seconds on a
multi-megabyte one. Inline in a pipeline it would stall the event loop:
downloads, timeouts, heartbeats and Redis calls would all wait.

- ``off_reactor``: one worker thread (``SITESIFT_EXTRACT_THREADS``). The GIL
  makes more threads no faster, but the reactor keeps running between its
  slices. Cheap steps (a blocked page's text, a fingerprint) go here.
- ``in_worker``: a pool of worker processes (``SITESIFT_EXTRACT_PROCESSES``,
  one per CPU by default), so that a single crawl uses every core; with 0,
  callers use the thread above. The function and its arguments must
  pickle: a worker gets the page's HTML, not its tree.

Pipelines hand either one pure functions of the page and touch shared state
(caches, stats) only in the reactor thread, before and after.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar
from weakref import WeakKeyDictionary

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet import threads
from twisted.internet.defer import Deferred
from twisted.python.threadpool import ThreadPool

T = TypeVar("T")

_pools: WeakKeyDictionary[Crawler, ThreadPool] = WeakKeyDictionary()
_processes: WeakKeyDictionary[Crawler, ProcessPoolExecutor] = WeakKeyDictionary()


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


def processes(crawler: Crawler) -> int:
    """The crawl's worker processes (0: none, the worker thread instead)."""
    return max(0, crawler.settings.getint("SITESIFT_EXTRACT_PROCESSES"))


def _quiet_worker() -> None:
    """A worker leaves Ctrl-C to the crawl, which finishes the pages in
    flight (the terminal sends it to the whole process group)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _process_pool(crawler: Crawler) -> ProcessPoolExecutor:
    """The crawl's worker processes, started on first use (spawned: the
    reactor's threads do not survive a fork), shut down with the engine or,
    when a forced stop never lets it report stopping, with the reactor."""
    from twisted.internet import reactor

    pool = _processes.get(crawler)
    if pool is None:
        pool = ProcessPoolExecutor(
            max_workers=processes(crawler),
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_quiet_worker,
        )

        def stop() -> None:
            pool.shutdown(wait=False, cancel_futures=True)

        crawler.signals.connect(stop, signal=signals.engine_stopped, weak=False)
        reactor.addSystemEventTrigger("during", "shutdown", stop)
        _processes[crawler] = pool
    return pool


async def in_worker(crawler: Crawler, fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` in one of the crawl's worker processes (it has some:
    :func:`processes`). A worker that dies (killed for memory, a crash in a
    parser) fails the pages it held with ``BrokenProcessPool``; the next
    page gets a new pool."""
    from twisted.internet import reactor

    pool = _process_pool(crawler)
    try:
        future = pool.submit(fn, *args)
    except BrokenProcessPool:  # broke since the last page's answer
        _drop(crawler, pool)
        pool = _process_pool(crawler)
        future = pool.submit(fn, *args)
    d: Deferred[T] = Deferred()

    def fire(future: Future[T]) -> None:
        try:
            result = future.result()
        except Exception as exc:
            if isinstance(exc, BrokenProcessPool):
                _drop(crawler, pool)
            d.errback(exc)
        else:
            d.callback(result)

    future.add_done_callback(lambda done: reactor.callFromThread(fire, done))
    return await maybe_deferred_to_future(d)


def _drop(crawler: Crawler, pool: ProcessPoolExecutor) -> None:
    """Forget a broken pool (once), so that the next page starts a new one."""
    if _processes.get(crawler) is pool:
        del _processes[crawler]
        pool.shutdown(wait=False, cancel_futures=True)
