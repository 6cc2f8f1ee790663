"""A crawl shared by many workers through Redis (scrapy-redis underneath).

scrapy-redis gives the shared frontier: one request queue and one duplicate
filter in Redis, so a URL is fetched once whichever worker finds it. What it
does not give, and a crawl that loses nothing needs, is added here:

* **In-flight requests survive a dead worker.** A popped request is recorded
  in the worker's in-flight hash until the store has committed (or spooled)
  its page. Workers beat a heartbeat key; the in-flight hash of a worker whose
  heartbeat has expired is pushed back onto the queue by the first live worker
  that notices, so its pages are fetched again rather than lost.
* **The crawl ends when the frontier is empty everywhere**, not when one
  worker's share runs out: a worker idles while the queue is empty but live
  workers still have requests in flight (their pages may add links).
* **Politeness per site holds across workers**: each request to a site
  reserves the site's next free time in Redis (one Lua call), so N workers
  together keep to the site's delay instead of N times its rate.
* **Per-site state is shared**: the pages scheduled per site (for the page
  cap and the spider's own "seen" check) live in Redis.
* **A Redis outage is waited out.** Every Redis call of a worker (scrapy-redis's
  queue and duplicate filter, heartbeats, in-flight hashes, seen sets,
  politeness, the URL-group log) is retried with backoff on connection errors
  and timeouts, with one warning per outage; the worker pauses meanwhile. The
  calls whose retry could double an effect are idempotent: a pop and its
  in-flight record are one Lua call numbered by the worker, and "is this URL
  new" claims carry a token, so a call whose reply was lost in the outage
  gives the same answer when retried. Past ``SITESIFT_REDIS_OUTAGE_LIMIT``
  seconds the worker gives up: it stops with the finish reason
  ``redis_unavailable`` (exit status 1), its buffered pages flushed to the
  database, and what it had in flight left in Redis for the others.

All keys of one crawl share the prefix ``sitesift:<crawl id>:``; the crawl id
defaults to a hash of the site list's contents, so every worker given the same
list joins the same crawl.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import itertools
import json
import logging
import os
import socket
import threading
import time
import uuid
import warnings
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

import redis
from redis.backoff import ExponentialBackoff
from redis.retry import Retry
from scrapy import Request, Spider, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import DontCloseSpider, NotConfigured, ScrapyDeprecationWarning
from scrapy.utils.defer import deferred_from_coro
from scrapy.utils.httpobj import urlparse_cached
from scrapy_redis.dupefilter import RFPDupeFilter
from scrapy_redis.scheduler import Scheduler as RedisScheduler
from twisted.internet.task import LoopingCall

from crawler.items import pages_stored
from crawler.throttle import META_KEY as DELAY_META
from crawler.urlgroups import URLGrouper

logger = logging.getLogger(__name__)
# scrapy-redis 0.9 still passes ``spider=`` to the stats collector.
warnings.filterwarnings("ignore", category=ScrapyDeprecationWarning, module=r"scrapy_redis\.")

PREFIX = "sitesift"
# Meta key of a request taken over from a dead worker. That worker may have
# claimed the page's links (seen set, dupefilter) and died before queueing
# them: the spider follows a recovered page's links past those claims.
RECOVERED = "sitesift_recovered"
SITE_META = "sitesift_site"  # a request's site: the host of its SiteSpec
T = TypeVar("T")

# -- Redis outages -----------------------------------------------------------------------


class RedisOutage:
    """Whether this process can reach Redis, shared by all its clients: one
    warning when an outage starts, one line when it ends, and the bound past
    which the worker gives up (``on_give_up`` is called once)."""

    def __init__(self) -> None:
        self.limit = 60.0  # seconds; SITESIFT_REDIS_OUTAGE_LIMIT
        self.since: float | None = None  # monotonic start of the current outage
        self.started = 0.0  # ... and of the last one
        self.flap_seconds = 10.0  # an outage this soon after the last one continues it
        self.ended = float("-inf")  # monotonic end of the last one
        self.given_up = False
        self.on_give_up: Callable[[], None] | None = None
        self._lock = threading.Lock()

    def failed(self, error: Exception) -> bool:
        """A Redis call failed with ``error``: True to retry it."""
        with self._lock:
            if self.given_up:
                return False
            now = time.monotonic()
            if self.since is None and now - self.ended < self.flap_seconds:
                self.since = self.started  # back only briefly (e.g. loading): the same outage
            if self.since is None:
                self.since = self.started = now
                logger.warning(
                    "Redis unreachable (%s): pausing, retrying for up to %.0f s",
                    error,
                    self.limit,
                )
            if now - self.since < self.limit:
                return True
            self.given_up = True
        logger.error(
            "Redis unreachable for %.0f s (SITESIFT_REDIS_OUTAGE_LIMIT): this worker stops; "
            "its stored pages are kept and its in-flight requests stay in Redis for "
            "the other workers or the next run",
            self.limit,
        )
        if self.on_give_up is not None:
            self.on_give_up()
        return False

    def succeeded(self) -> None:
        if self.since is None or self.given_up:
            return
        with self._lock:
            if self.since is not None:
                self.ended = time.monotonic()
                logger.warning("Redis is back after %.1f s", self.ended - self.since)
                self.since = None

    def recent(self, seconds: float) -> bool:
        """Redis is down, or came back less than ``seconds`` ago."""
        return self.since is not None or time.monotonic() - self.ended < seconds


OUTAGE = RedisOutage()


class OutageRetry(Retry):
    """redis-py's retry policy for sitesift's clients: retry connection
    errors and timeouts with backoff (50 ms doubling to 1 s) for as long as
    :data:`OUTAGE` allows."""

    def __init__(self) -> None:
        super().__init__(ExponentialBackoff(cap=1.0, base=0.05), -1)

    def call_with_retry(
        self,
        do: Callable[[], T],
        fail: Callable[..., Any],
        is_retryable: Callable[[Exception], bool] | None = None,
        with_failure_count: bool = False,
    ) -> T:
        failures = 0
        while True:
            try:
                result = do()
            except self._supported_errors as error:
                if is_retryable is not None and not is_retryable(error):
                    raise
                failures += 1
                if with_failure_count:
                    fail(error, failures)
                else:
                    fail(error)
                if not OUTAGE.failed(error):
                    raise
                time.sleep(self._backoff.compute(failures))
            else:
                # Any answer ends an outage, whichever call saw it begin (that
                # call may have ended with an error Redis gave on its way back).
                OUTAGE.succeeded()
                return result


def redis_params() -> dict[str, Any]:
    """Connection parameters of every Redis client of a worker."""
    return {
        "retry": OutageRetry(),
        "retry_on_error": [redis.ConnectionError, redis.TimeoutError],
        "socket_timeout": 10,
        "socket_connect_timeout": 5,
    }


def redis_client(url: str) -> redis.Redis:
    return redis.Redis.from_url(url, **redis_params())


def quick_client(url: str) -> redis.Redis:
    """A client for one-off questions (status, totals, a reachability check):
    it fails fast instead of waiting an outage out like a worker's."""
    return redis.Redis.from_url(
        url, decode_responses=True, socket_connect_timeout=5, socket_timeout=10
    )


# Claim ``member`` ARGV[1] of hash KEYS[1] for the token ARGV[2]: 1 when it
# is ours (new, or claimed by this very call before a lost reply), 0 when
# taken. With a set KEYS[2], a claimed member is added to it in the same step.
_CLAIM = """
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 1
   or redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
  if KEYS[2] then redis.call('SADD', KEYS[2], ARGV[1]) end
  return 1
end
return 0
"""

# Count URL ARGV[1] in the set KEYS[1] of a URL pattern's pages unless the set
# already holds ARGV[2] of them; 1 when the URL is (now) counted, 0 when full.
_ADMIT = """
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 1 end
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1
"""

# A near-duplicate original for signature ARGV[2] of URL ARGV[1] (packed,
# 8 bytes a slot): among the URLs of the text's LSH band sets KEYS[2..], the
# one whose signature in hash KEYS[1] shares the most slots, at least ARGV[3]
# of them (ties: the smallest URL, as the worker's own lookup). None found:
# the text is an original, its signature and band entries are added (TTL
# ARGV[4]) and ARGV[1] is returned. One script, so two workers holding near
# copies at once cannot both claim to be the original.
_CLAIM_NEAR = """
local url, sig, threshold = ARGV[1], ARGV[2], tonumber(ARGV[3])
local best, best_share, seen = nil, -1, {}
for i = 2, #KEYS do
  for _, other in ipairs(redis.call('SMEMBERS', KEYS[i])) do
    if other ~= url and not seen[other] then
      seen[other] = true
      local theirs = redis.call('HGET', KEYS[1], other)
      if theirs and #theirs == #sig then
        local equal = 0
        for j = 1, #sig, 8 do
          if string.sub(sig, j, j + 7) == string.sub(theirs, j, j + 7) then equal = equal + 1 end
        end
        local share = equal / (#sig / 8)
        if share > best_share or (share == best_share and other < best) then
          best, best_share = other, share
        end
      end
    end
  end
end
if best and best_share >= threshold then return best end
redis.call('HSET', KEYS[1], url, sig)
redis.call('EXPIRE', KEYS[1], ARGV[4])
for i = 2, #KEYS do
  redis.call('SADD', KEYS[i], url)
  redis.call('EXPIRE', KEYS[i], ARGV[4])
end
return url
"""

# Pop the first request of queue KEYS[1] into in-flight hash KEYS[2] under the
# pop's number ARGV[1]; a retried pop whose reply was lost gets the same one.
_POP = """
local again = redis.call('HGET', KEYS[2], ARGV[1])
if again then return again end
local items = redis.call('ZRANGE', KEYS[1], 0, 0)
if #items == 0 then return false end
redis.call('ZREM', KEYS[1], items[1])
redis.call('HSET', KEYS[2], ARGV[1], items[1])
return items[1]
"""

_TOKEN = uuid.uuid4().hex[:8]
_claims = itertools.count(1)


def _text(reply: Any) -> Any:  # noqa: ANN401 - a Redis reply
    """A Redis reply as str: bytes unless the client decodes (None stays None)."""
    return reply.decode() if isinstance(reply, bytes) else reply


def claim_token() -> str:
    """A token unique to one claim call of this process."""
    return f"{_TOKEN}:{next(_claims)}"


class ClaimDupeFilter(RFPDupeFilter):
    """scrapy-redis's Redis duplicate filter, made safe to retry: a request
    fingerprint is claimed with a token (a hash, not a set), so a claim
    retried after its reply was lost is still "new" to the one who made it."""

    def __init__(self, server: redis.Redis, key: str, debug: bool = False) -> None:
        super().__init__(server, key, debug)
        self.claim = server.register_script(_CLAIM)

    def request_seen(self, request: Request) -> bool:
        fingerprint = self.request_fingerprint(request)
        return not self.claim(keys=[self.key], args=[fingerprint, claim_token()])


def crawl_id_for(sites_file: str) -> str:
    """The crawl every worker given this site list joins (hash of its bytes)."""
    with open(sites_file, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()[:12]


@dataclass(frozen=True)
class Keys:
    """The Redis keys of one crawl."""

    crawl: str

    def _key(self, *parts: str) -> str:
        return ":".join((PREFIX, self.crawl, *parts))

    @property
    def queue(self) -> str:
        return self._key("requests")

    @property
    def dupefilter(self) -> str:
        return self._key("dupefilter")

    @property
    def workers(self) -> str:
        return self._key("workers")

    @property
    def finished(self) -> str:
        return self._key("finished")

    def alive(self, worker: str) -> str:
        return self._key("alive", worker)

    def inflight(self, worker: str) -> str:
        return self._key("inflight", worker)

    def stats(self, worker: str) -> str:
        return self._key("stats", worker)

    def seen(self, host: str) -> str:
        return self._key("seen", host)

    def reclaimed(self, host: str) -> str:
        return self._key("reclaimed", host)

    def redirect_targets(self, host: str) -> str:
        return self._key("targets", host)

    def next_slot_time(self, slot: str) -> str:
        return self._key("next", slot)

    def pattern(self) -> str:
        return self._key("*")


def redis_settings(redis_url: str, crawl: str) -> dict[str, Any]:
    """The Scrapy settings that turn a crawl into a worker of crawl ``crawl``."""
    keys = Keys(crawl)
    return {
        "SCHEDULER": "crawler.distributed.DistributedScheduler",
        "DUPEFILTER_CLASS": "crawler.distributed.ClaimDupeFilter",
        "SCHEDULER_QUEUE_CLASS": "scrapy_redis.queue.PriorityQueue",
        # With the default (False) the first worker to finish deletes the
        # shared queue and filter, and the others refetch everything.
        "SCHEDULER_PERSIST": True,
        "SCHEDULER_QUEUE_KEY": keys.queue,
        "SCHEDULER_DUPEFILTER_KEY": keys.dupefilter,
        "REDIS_URL": redis_url,
        "REDIS_PARAMS": redis_params(),
        "SITESIFT_REDIS_URL": redis_url,
        "SITESIFT_CRAWL_ID": crawl,
        "JOBDIR": None,  # the frontier lives in Redis
    }


# Reserve a slot's next free time: returns how long the caller waits (s).
_RESERVE = """
local now = tonumber(ARGV[1])
local delay = tonumber(ARGV[2])
local free = tonumber(redis.call('GET', KEYS[1]) or '0')
local at = math.max(now, free)
redis.call('SET', KEYS[1], tostring(at + delay), 'PX', math.ceil((delay + 60) * 1000))
return tostring(at - now)
"""

# Start a new crawl over a finished one, atomically (one worker clears).
_RESTART_IF_FINISHED = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  local keys = redis.call('KEYS', ARGV[1])
  for _, key in ipairs(keys) do redis.call('DEL', key) end
  return 1
end
return 0
"""


class DistributedScheduler(RedisScheduler):
    """scrapy-redis's scheduler with in-flight tracking, heartbeats, dead
    worker recovery and a crawl-wide end condition."""

    heartbeat_seconds = 5.0
    # The frontier must look empty on this many idle checks in a row (the
    # engine checks about every 5 s) before a worker stops.
    idle_checks_to_close = 2

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> DistributedScheduler:
        scheduler = super().from_crawler(crawler)
        scheduler.crawler = crawler
        scheduler.keys = Keys(crawler.settings.get("SITESIFT_CRAWL_ID"))
        scheduler.worker = f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:4]}"
        scheduler.idle_checks = 0
        # A worker is dead when its heartbeat is this old (SITESIFT_WORKER_TIMEOUT).
        scheduler.heartbeat_ttl = max(
            1, round(crawler.settings.getfloat("SITESIFT_WORKER_TIMEOUT"))
        )
        scheduler.heartbeat_seconds = min(5.0, scheduler.heartbeat_ttl / 3)
        scheduler._beat: LoopingCall | None = None
        # Requests popped and not yet stored: URL -> their in-flight fields.
        scheduler.pops = itertools.count(1)
        scheduler.popped: dict[str, list[str]] = {}
        scheduler.pop = scheduler.server.register_script(_POP)
        OUTAGE.limit = crawler.settings.getfloat("SITESIFT_REDIS_OUTAGE_LIMIT", 60.0)
        OUTAGE.on_give_up = scheduler.give_up
        crawler.signals.connect(scheduler.spider_idle, signal=signals.spider_idle)
        crawler.signals.connect(scheduler.pages_stored, signal=pages_stored)
        return scheduler

    # -- lifecycle -----------------------------------------------------------------

    def open(self, spider: Spider) -> None:
        restarted = self.server.eval(
            _RESTART_IF_FINISHED, 1, self.keys.finished, self.keys.pattern()
        )
        if restarted:
            logger.info("crawl %s had finished: starting it anew", self.keys.crawl)
        super().open(spider)
        self.server.sadd(self.keys.workers, self.worker)
        self.heartbeat()
        self._beat = LoopingCall(self.heartbeat)
        self._beat.start(self.heartbeat_seconds, now=False)
        logger.info(
            "worker %s joined crawl %s (%d request(s) queued)",
            self.worker,
            self.keys.crawl,
            len(self.queue),
        )

    def close(self, reason: str) -> None:
        if self._beat is not None and self._beat.running:
            self._beat.stop()
        try:
            self.heartbeat()
            self.server.delete(self.keys.alive(self.worker))
            if reason == "finished":
                # Everything this worker took was processed and stored.
                self.server.delete(self.keys.inflight(self.worker))
                self.server.srem(self.keys.workers, self.worker)
            super().close(reason)
        except redis.RedisError as exc:  # gone for good: what is in flight stays there
            logger.error("worker %s closed without Redis: %s", self.worker, exc)

    def give_up(self) -> None:
        """Redis stayed away past the limit: stop this worker (exit status 1)."""
        from twisted.internet import reactor  # the installed one (importing installs)

        def close() -> None:
            engine = self.crawler.engine
            if engine is not None and engine.spider is not None:
                deferred_from_coro(engine.close_spider_async(reason="redis_unavailable"))

        reactor.callFromThread(close)

    def heartbeat(self) -> None:
        stats = self.crawler.stats
        record = {
            "fetched": stats.get_value("response_received_count", 0),
            "stored": stats.get_value("sitesift/stored/ok", 0),
            "failed": sum(
                v
                for k, v in stats.get_stats().items()
                if k.startswith("sitesift/stored/") and not k.endswith("/ok")
            ),
            "inflight": self.server.hlen(self.keys.inflight(self.worker)),
            "seen_at": time.time(),
        }
        pipe = self.server.pipeline()
        pipe.set(self.keys.alive(self.worker), "1", ex=self.heartbeat_ttl)
        pipe.set(self.keys.stats(self.worker), json.dumps(record), ex=7 * 86400)
        pipe.execute()

    # -- requests ------------------------------------------------------------------

    def next_request(self) -> Request | None:
        """Pop the queue's first request into this worker's in-flight hash, in
        one call that is safe to retry (numbered: a retry returns the same)."""
        number = str(next(self.pops))
        data = self.pop(keys=[self.keys.queue, self.keys.inflight(self.worker)], args=[number])
        if not data:
            return None
        request = self.queue._decode_request(data)
        self.popped.setdefault(request.url, []).append(number)
        self.crawler.stats.inc_value("scheduler/dequeued/redis")
        return request

    def pages_stored(self, urls: Iterable[str]) -> None:
        """The store committed (or spooled) these pages: no longer in flight."""
        fields = [number for url in urls for number in self.popped.pop(url, ())]
        if fields:
            self.server.hdel(self.keys.inflight(self.worker), *fields)

    def has_pending_requests(self) -> bool:
        return len(self.queue) > 0

    # -- the end of the crawl ----------------------------------------------------------

    def spider_idle(self, spider: Spider) -> None:
        """Called when this worker has nothing to do. Everything it popped has
        been processed (the store flushes on idle), so its in-flight hash is
        cleared; it stops only when no worker has anything left either."""
        self.server.delete(self.keys.inflight(self.worker))
        self.popped.clear()
        if OUTAGE.recent(self.heartbeat_ttl):
            # Heartbeats lapsed with Redis: wait until live workers beat again
            # before taking anyone's work or ending the crawl.
            self.idle_checks = 0
            raise DontCloseSpider
        recovered = self.recover_dead_workers()
        busy = [w for w in self.live_workers() if w != self.worker and self._inflight(w)]
        if recovered or len(self.queue) or busy:
            self.idle_checks = 0
            raise DontCloseSpider
        self.idle_checks += 1
        if self.idle_checks < self.idle_checks_to_close:
            raise DontCloseSpider
        self.server.set(self.keys.finished, str(time.time()))
        logger.info("crawl %s: frontier empty on every worker", self.keys.crawl)

    def _inflight(self, worker: str) -> int:
        return int(self.server.hlen(self.keys.inflight(worker)))

    def live_workers(self) -> list[str]:
        workers = sorted(_text(w) for w in self.server.smembers(self.keys.workers))
        return [w for w in workers if self.server.exists(self.keys.alive(w))]

    def recover_dead_workers(self) -> int:
        """Requeue the in-flight requests of workers whose heartbeat expired."""
        recovered = 0
        for raw in self.server.smembers(self.keys.workers):
            worker = _text(raw)
            if worker == self.worker or self.server.exists(self.keys.alive(worker)):
                continue
            claimed = f"{self.keys.inflight(worker)}:recovering:{self.worker}"
            # No such key: nothing in flight, another worker took it, or this
            # is the retry of our own rename (then ``claimed`` exists).
            with contextlib.suppress(redis.ResponseError):
                self.server.rename(self.keys.inflight(worker), claimed)
            if not self.server.exists(claimed):
                self.server.srem(self.keys.workers, worker)
                continue
            requests = [self.queue._decode_request(v) for v in self.server.hvals(claimed)]
            for request in requests:
                request.meta[RECOVERED] = True  # its links may be claimed but not queued
                self.queue.push(request)  # past the dupefilter: these were seen
                if host := request.meta.get(SITE_META):  # queued: no link takes it over
                    self.server.hset(self.keys.reclaimed(host), request.url, "requeued")
            self.server.delete(claimed)
            self.server.srem(self.keys.workers, worker)
            recovered += len(requests)
            self.crawler.stats.inc_value("sitesift/distributed/recovered", len(requests))
            logger.warning(
                "worker %s is gone: %d request(s) it had in flight are queued again",
                worker,
                len(requests),
            )
        return recovered


class SharedState:
    """What the workers of one crawl must agree on, kept in Redis: the pages
    scheduled per site (the page cap and the seen check), a URL group's page
    type, its reference pages for layout similarity, the per-group
    screenshot counts and the trap guard's pages per URL pattern."""

    # Shared entries outlive an idle crawl for this long (seconds).
    ttl = 7 * 86400

    def __init__(self, server: redis.Redis, keys: Keys) -> None:
        self.server = server
        self.keys = keys
        self.claim = server.register_script(_CLAIM)
        self.admit = server.register_script(_ADMIT)
        self.near = server.register_script(_CLAIM_NEAR)

    # -- scheduled pages per site ----------------------------------------------------

    def add_seen(self, host: str, url: str, *, page: bool = True) -> bool:
        """True when ``url`` is new to the whole crawl (a claim: safe to
        retry). A redirect's target (``page`` False) is claimed in the same
        set, so no worker fetches it again, and noted apart: it is no second
        page against the site's cap (in the claim's own step: a worker dying
        between the two cannot leave a target counted as a page)."""
        keys = [self.keys.seen(host)] if page else [self.keys.seen(host),
                                                     self.keys.redirect_targets(host)]  # fmt: skip
        return bool(self.claim(keys=keys, args=[url, claim_token()]))

    def add_reclaimed(self, host: str, url: str) -> bool:
        """True for the first worker to take ``url`` over as a link of a dead
        worker's page: fetched once more, not once per page linking it."""
        return bool(self.claim(keys=[self.keys.reclaimed(host)], args=[url, claim_token()]))

    def count_pages(self, host: str) -> int:
        """Pages scheduled for the site by the whole crawl (its cap's count)."""
        pipe = self.server.pipeline(transaction=False)
        pipe.hlen(self.keys.seen(host))
        pipe.scard(self.keys.redirect_targets(host))
        seen, targets = pipe.execute()
        return int(seen) - int(targets)

    def admit_to_pattern(self, pattern: str, url: str, limit: int) -> bool:
        """Count ``url`` among the pages of URL ``pattern`` for the whole crawl
        (trap guard); False when the pattern already has ``limit`` pages."""
        key = self.keys._key("trap", hashlib.sha256(pattern.encode()).hexdigest()[:16])
        return bool(self.admit(keys=[key], args=[url, limit, self.ttl]))

    # -- exact duplicates across workers ------------------------------------------------

    def claim_text(self, digest: str, url: str) -> str:
        """The URL that holds the text ``digest`` in this crawl: ``url`` when it
        is the first (or holds it already), else the original's URL."""
        key = self._table("texts")
        pipe = self.server.pipeline()
        pipe.hsetnx(key, digest, url)
        pipe.hget(key, digest)
        pipe.expire(key, self.ttl)
        _, owner, _ = pipe.execute()
        return _text(owner)

    # -- near duplicates across workers --------------------------------------------------

    def claim_near(self, url: str, sig: bytes, keys: list[int], threshold: float) -> str:
        """The original of a near-duplicate text (packed MinHash ``sig``, LSH
        band ``keys``) among the originals any worker has claimed, or ``url``,
        now claimed as one, when none shares ``threshold`` of the slots."""
        band_sets = [self.keys._key("near", str(key)) for key in keys]
        owner = self.near(
            keys=[self._table("signatures"), *band_sets], args=[url, sig, threshold, self.ttl]
        )
        return _text(owner)

    # -- small tables ----------------------------------------------------------------

    def _table(self, name: str) -> str:
        return self.keys._key("table", name)

    def get(self, table: str, field: str) -> str | None:
        value = self.server.hget(self._table(table), field)
        return _text(value)

    def put(self, table: str, field: str, value: str) -> None:
        pipe = self.server.pipeline()
        pipe.hset(self._table(table), field, value)
        pipe.expire(self._table(table), self.ttl)
        pipe.execute()

    def incr(self, table: str, field: str, by: int = 1) -> int:
        return int(self.server.hincrby(self._table(table), field, by))

    # -- reference pages of a URL group --------------------------------------------------

    def _refs(self, group: str) -> str:
        return self.keys._key("refs", hashlib.sha256(group.encode()).hexdigest()[:16])

    def references(self, group: str, exclude_url: str) -> list[str]:
        pages = []
        for raw in self.server.lrange(self._refs(group), 0, -1):
            url, _, html = zlib.decompress(raw).decode("utf-8").partition("\n")
            if url != exclude_url:
                pages.append(html)
        return pages

    def add_reference(self, group: str, url: str, html: str, keep: int) -> None:
        key = self._refs(group)
        if self.server.llen(key) >= keep:
            return  # a group's first pages serve as its references
        pipe = self.server.pipeline()
        pipe.rpush(key, zlib.compress(f"{url}\n{html}".encode(), 6))
        pipe.ltrim(key, 0, keep - 1)
        pipe.expire(key, self.ttl)
        pipe.execute()


class SharedGrouper:
    """URL groups that every worker agrees on. The URLs grouped by any worker
    form one log in Redis; each worker feeds its own online grouper that log
    in order, so all groupers learn the same thing, and a URL's group is the
    one a single grouper fed the crawl's URLs in that order would give."""

    def __init__(self, state: SharedState, grouper: URLGrouper) -> None:
        self.state = state
        self.grouper = grouper
        self.key = state.keys._key("grouped")
        self.offset = 0

    def group(self, url: str) -> str:
        server = self.state.server
        position = int(server.rpush(self.key, url))
        group = ""
        for raw in server.lrange(self.key, self.offset, position - 1):
            group = self.grouper.group(_text(raw))
        self.offset = position
        return group  # the last URL fed is ours

    def groups(self) -> dict[str, int]:
        return self.grouper.groups()


@functools.cache
def _state(redis_url: str, crawl: str) -> SharedState:
    return SharedState(redis_client(redis_url), Keys(crawl))


def shared_state(settings: Any) -> SharedState | None:  # noqa: ANN401 - scrapy Settings
    """The crawl's :class:`SharedState` when it is distributed, else None."""
    url = settings.get("SITESIFT_REDIS_URL")
    return _state(url, settings.get("SITESIFT_CRAWL_ID")) if url else None


class SharedReferences:
    """``pipelines.extract.ReferenceCache``'s interface over :class:`SharedState`."""

    def __init__(self, state: SharedState, per_group: int) -> None:
        self.state = state
        self.per_group = per_group

    def get(self, group: str | None, url: str) -> list[str]:
        return self.state.references(group, url) if group else []

    def add(self, group: str | None, url: str, html: str | None) -> None:
        if group and html and self.per_group:
            self.state.add_reference(group, url, html, self.per_group)


class SharedPoliteness:
    """Downloader middleware: space the requests of all workers to one site
    by the site's current delay (AutoThrottle, Crawl-delay or ``delay=``)."""

    def __init__(self, crawler: Crawler) -> None:
        url = crawler.settings.get("SITESIFT_REDIS_URL")
        if not url:
            raise NotConfigured
        self.crawler = crawler
        self.server = redis_client(url)
        self.keys = Keys(crawler.settings.get("SITESIFT_CRAWL_ID"))
        self.reserve = self.server.register_script(_RESERVE)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> SharedPoliteness:
        return cls(crawler)

    async def process_request(self, request: Request, spider: Spider | None = None) -> None:
        import asyncio

        delay = self._delay(request)
        if delay <= 0:
            return None
        site = urlparse_cached(request).netloc
        wait = float(self.reserve(keys=[self.keys.next_slot_time(site)], args=[time.time(), delay]))
        if wait > 0:
            self.crawler.stats.inc_value("sitesift/distributed/politeness_waits")
            await asyncio.sleep(wait)
        return None

    def _delay(self, request: Request) -> float:
        """The site's current delay: its download slot's (AutoThrottle keeps it
        at or above the site's floor), or the configured one before the slot
        exists."""
        downloader = self.crawler.engine.downloader
        key = downloader.get_slot_key(request)
        slot = downloader.slots.get(key)
        if slot is not None:
            delay = slot.delay
        else:
            settings = self.crawler.settings
            configured = settings.getdict("DOWNLOAD_SLOTS").get(key, {})
            delay = configured.get("delay", settings.getfloat("DOWNLOAD_DELAY"))
        return max(float(delay), float(request.meta.get(DELAY_META) or 0.0))


# -- status ----------------------------------------------------------------------------


def crawl_status(redis_url: str) -> list[dict[str, Any]]:
    """Every crawl in this Redis: frontier size, workers and their counts."""
    server = quick_client(redis_url)
    server.ping()
    crawls = sorted(
        key.split(":")[1]
        for suffix in ("requests", "workers", "finished")
        for key in server.scan_iter(f"{PREFIX}:*:{suffix}")
    )
    crawls = sorted(set(crawls))
    report = []
    for crawl in crawls:
        keys = Keys(crawl)
        workers = []
        for key in sorted(server.scan_iter(keys.stats("*"))):
            worker = key.rsplit(":", 1)[1]
            stats = json.loads(server.get(key) or "{}")
            stats["worker"] = worker
            stats["alive"] = bool(server.exists(keys.alive(worker)))
            stats["inflight"] = server.hlen(keys.inflight(worker))
            workers.append(stats)
        report.append(
            {
                "crawl": crawl,
                "queued": server.zcard(keys.queue),
                "seen": server.hlen(keys.dupefilter),
                "finished": server.get(keys.finished),
                "workers": workers,
            }
        )
    return report


def workers_totals(redis_url: str, crawl: str, pids: Iterable[int]) -> dict[str, int]:
    """The counts of this machine's workers ``pids`` in ``crawl``, summed
    (each worker records its own at every heartbeat and when it closes)."""
    server = quick_client(redis_url)
    keys, host = Keys(crawl), socket.gethostname()
    totals = {"fetched": 0, "stored": 0, "failed": 0}
    for pid in pids:
        for key in server.scan_iter(keys.stats(f"{host}-{pid}-*")):
            record = json.loads(server.get(key) or "{}")
            for name in totals:
                totals[name] += int(record.get(name, 0))
    return totals
