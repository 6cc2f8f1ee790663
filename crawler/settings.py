"""Every sitesift default in one place.

Scrapy knobs and sitesift's own (``SITESIFT_*``). Anything here can be
overridden with ``-s NAME=VALUE`` on the command line, and every
``SITESIFT_*`` name also by an environment variable of the same name.
"""

from __future__ import annotations

import math
import os
from collections.abc import Collection
from typing import Any

from crawler import sitelist  # not a name in capitals: Scrapy would take it for a setting

BOT_NAME = "sitesift"
SPIDER_MODULES = ["crawler.spiders"]
NEWSPIDER_MODULE = "crawler.spiders"
COMMANDS_MODULE = "crawler.commands"  # scrapy crawl site: sitesift crawl's checks up front

# -- identity and politeness ------------------------------------------------
USER_AGENT = "sitesift/0.1 (+https://github.com/sitesift/sitesift; polite research crawler)"
ROBOTSTXT_OBEY = True
# Two requests at a time per site (a site is one download slot, host:port);
# more sites run in parallel up to the global limit.
CONCURRENT_REQUESTS = 16
CONCURRENT_REQUESTS_PER_DOMAIN = 2
# The floor delay between two requests to one site; AutoThrottle raises it
# when the site slows down, robots.txt Crawl-delay raises it too.
DOWNLOAD_DELAY = 0.25
DOWNLOAD_DELAY_JITTER = 0.5  # each delay drawn from 0.5x..1.5x of it
AUTOTHROTTLE_ENABLED = True
AUTOTHROTTLE_START_DELAY = 0.5
AUTOTHROTTLE_MAX_DELAY = 30.0
AUTOTHROTTLE_TARGET_CONCURRENCY = 1.5
# Scrapy's AutoThrottle would lower a delay below robots.txt's Crawl-delay;
# ours keeps each site's floor (see crawler/throttle.py).
EXTENSIONS = {
    "scrapy.extensions.throttle.AutoThrottle": None,
    "scrapy.extensions.telnet.TelnetConsole": None,
    "crawler.throttle.SiteThrottle": 0,
    "crawler.progress.Progress": 500,
    "crawler.quickstop.QuickStop": 505,
    "crawler.looplag.LoopLag": 510,
}

# -- bounds: nothing unbounded reaches the parser -------------------------------
DOWNLOAD_TIMEOUT = 30
DOWNLOAD_MAXSIZE = 32 * 1024 * 1024
DOWNLOAD_WARNSIZE = 8 * 1024 * 1024
REDIRECT_MAX_TIMES = 10
RETRY_TIMES = 2
RETRY_HTTP_CODES = [500, 502, 503, 504, 522, 524, 408, 429]
# A 429/503 retry waits the server's Retry-After, up to this many seconds; a
# longer one is recorded as the HTTP error, not waited for.
SITESIFT_RETRY_AFTER_MAX = 60.0
# Error statuses reach the spider so that they are recorded, not lost.
HTTPERROR_ALLOW_ALL = True
DEPTH_LIMIT = 0  # per-site depth is SITESIFT_MAX_DEPTH / the site list's depth=

# -- housekeeping ----------------------------------------------------------------
REMOTE_CONTROL_ENABLED = False
TELNETCONSOLE_ENABLED = False
LOG_LEVEL = "INFO"
LOGSTATS_INTERVAL = 0  # the progress extension prints a better line
STATS_DUMP = False  # the progress extension prints a summary
DEFAULT_DROPITEM_LOG_LEVEL = "DEBUG"
TWISTED_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"
FEED_EXPORT_ENCODING = "utf-8"
# Feeds (-O out.jsonl) carry these fields; the raw HTML stays in the database.
FEED_EXPORT_FIELDS = [
    "url",
    "final_url",
    "status",
    "outcome",
    "site",
    "url_group",
    "depth",
    "referer",
    "fetched_at",
    "encoding",
    "content_type",
    "title",
    "page_type",
    "length_class",
    "method",
    "confidence",
    "published",
    "author",
    "language",
    "image",
    "text",
    "records",
    "duplicate_of",
]

# -- the page pipeline, in order ---------------------------------------------------
# blocked (100) marks challenge pages; classify (300) decides page type and
# length; extract (400) runs the extractor that suits the page; dedup (600)
# drops unchanged and duplicate content; store (800) writes everything.
ITEM_PIPELINES = {
    "pipelines.blocked.BlockedPagePipeline": 100,
    "pipelines.analyse.AnalysePipeline": 300,  # page type, then main content
    "pipelines.dedup.DedupPipeline": 600,
    "pipelines.store.StorePipeline": 800,
}

# -- sitesift ---------------------------------------------------------------------
SITESIFT_DB = "sqlite:///sitesift.db"
SITESIFT_MAX_PAGES = 1000  # per site, unless the site list says max_pages=
SITESIFT_MAX_DEPTH = 10  # link hops from the start URL, unless depth=
SITESIFT_CRAWL_DELAY_CAP = 10.0  # robots.txt Crawl-delay is honoured up to this
SITESIFT_FOLLOW_SITEMAPS = True
SITESIFT_FOLLOW_FEEDS = True
SITESIFT_STORE_BATCH = 50  # items per database transaction
SITESIFT_STORE_FLUSH_SECONDS = 2.0  # ...or sooner when this much time passed
SITESIFT_PROGRESS_INTERVAL = 10.0  # seconds between progress lines; 0 = off
# Ctrl-C / SIGTERM: drop the requests still queued behind a site's delay
# (crawler/quickstop.py; --resume fetches them) instead of waiting them out.
SITESIFT_STOP_DROPS_QUEUED = True
# Crawler-trap guards (crawler/traps.py); a refused URL is recorded as skipped.
# 0 turns one off. Session ids are dropped from URLs by the canonicaliser.
SITESIFT_TRAP_MAX_URL_LENGTH = 1024
SITESIFT_TRAP_MAX_SEGMENT_REPEATS = 2  # /a/b/b/b/: a segment more often than this
SITESIFT_TRAP_MAX_GROUP_PAGES = 500  # pages per URL pattern (calendars, faceted lists)
# Refuse hosts that are or resolve to loopback, private, link-local... addresses
# (crawler/middlewares/destinations.py): for untrusted site lists on a server.
# The resolver checks again the address each connection uses (DNS rebinding);
# with screenshots on, the browser's own requests (images, styles, frames) are
# checked too.
SITESIFT_DENY_PRIVATE = False
# Addresses or networks the guard lets through all the same, comma-separated
# ("10.1.0.0/16, 192.168.1.5"): an intranet host among untrusted sites.
SITESIFT_ALLOW_NETWORKS = ""
TWISTED_DNS_RESOLVER = "crawler.resolver.PublicOnlyResolver"

# -- extraction (pipelines/analyse.py, classify.py, extract.py) ------------------------
SITESIFT_CLASSIFY_ENABLED = True
SITESIFT_CLASSIFY_GROUP_REUSE = True  # a URL group's page type holds for its pages...
SITESIFT_CLASSIFY_GROUP_OVERRIDE = 0.9  # ...unless the DOM is at least this confident
SITESIFT_CLASSIFY_MAX_GROUPS = 1000  # URL groups whose decision is remembered
SITESIFT_EXTRACT_ENABLED = True
SITESIFT_EXTRACT_METHOD = "auto"  # or any name of extractors.METHODS
SITESIFT_EXTRACT_REFERENCES = 2  # pages kept per URL group for layout similarity
SITESIFT_EXTRACT_MAX_GROUPS = 200  # URL groups kept in that cache (LRU)
# Classification and extraction run off the reactor (pipelines/offload.py),
# so that a slow page never stalls the crawl: in this many worker processes
# (one per CPU: a crawl uses every core; `--workers N` gives each of its
# crawls an equal share; at most 8 by default), or, with 0 (the default on
# one CPU), in this many threads of the crawl's own process.
_cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
SITESIFT_EXTRACT_PROCESSES = min(_cpus, 8) if _cpus > 1 else 0
SITESIFT_EXTRACT_THREADS = 1

# -- storage, dedup, export, schedule (pipelines/store.py, pipelines/dedup.py) ---------
# A batch the database refuses is retried this often, waiting BACKOFF, 2x,
# 4x... seconds, then spooled as JSONL under SPOOL_DIR and replayed later.
SITESIFT_STORE_RETRIES = 4
SITESIFT_STORE_BACKOFF = 0.5
# One folder per user, found whatever folder a crawl, a resume or `status`
# runs from (each database has its own folder in it).
SITESIFT_SPOOL_DIR = os.path.join(
    os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state"),
    "sitesift",
    "spool",
)
SITESIFT_STORE_CLOSE_WAIT = 30.0  # seconds a finished crawl waits for the database
# Near-duplicate: estimated Jaccard of 3-shingles (words / CJK characters).
SITESIFT_DEDUP_ENABLED = True
SITESIFT_DEDUP_NEAR_THRESHOLD = 0.5
SITESIFT_DEDUP_SHINGLE = 3
# Recrawl: send ETag / Last-Modified of the stored copy; a page whose group's
# revisit interval has not passed since its last fetch is not refetched (its
# stored links are followed). Intervals adapt per URL group, in seconds.
SITESIFT_CONDITIONAL_REQUESTS = True
SITESIFT_REVISIT = True
SITESIFT_REVISIT_START = 21600.0
SITESIFT_REVISIT_MIN = 3600.0
SITESIFT_REVISIT_MAX = 604800.0
# Resume: pages stored by unfinished runs of the same site list count as done.
SITESIFT_RESUME = False
SITESIFT_JOB = ""  # the scheduled job that launched this crawl (set by the scheduler)
SITESIFT_SCHEDULER_TICK = 5.0  # seconds between the scheduler's looks at due jobs
SITESIFT_SCHEDULER_LEASE = 60.0  # a running job's lease, renewed every tick

# -- distributed crawl (crawler/distributed.py; `sitesift crawl --redis URL`) ------------
SITESIFT_REDIS_URL = ""  # set: this process is one worker of a crawl shared through Redis
SITESIFT_CRAWL_ID = ""  # the shared crawl's id; by default a hash of the site list
SITESIFT_WORKERS_REDIS = "redis://127.0.0.1:6379/0"  # `--workers N` without --redis
# A worker silent this long is dead: its in-flight requests go back to the queue.
# Generous: a worker's reactor may be busy extracting a large page for a while.
SITESIFT_WORKER_TIMEOUT = 30.0
# A worker waits out a Redis outage (every call retried with backoff) this many
# seconds, then stops with exit 1; rerunning the same command finishes the crawl.
SITESIFT_REDIS_OUTAGE_LIMIT = 60.0

# -- screenshots (crawler/middlewares/screenshot.py) ------------------------------
# Which pages go through the browser: none | group (the first PER_GROUP pages
# of each URL pattern; pages of one group share a template) | all. A site's
# `screenshots=` option in the site list overrides it.
SITESIFT_SCREENSHOTS = "group"
# A page Scrapy's client fetched whose body shows under this many characters
# but carries scripts (a front end its scripts fill) is fetched once more
# through the browser, whatever the policy above (photographed only if it
# says so); false or 0 never does.
SITESIFT_RENDER_EMPTY = True
SITESIFT_RENDER_EMPTY_CHARS = 100
SITESIFT_SCREENSHOT_PER_GROUP = 3
SITESIFT_SCREENSHOT_DIR = "sitesift-screenshots"  # <dir>/<sha256[:2]>/<sha256>.webp
SITESIFT_SCREENSHOT_VIEWPORT_WIDTH = 1280  # the classifier was trained at 1280
SITESIFT_SCREENSHOT_VIEWPORT_HEIGHT = 800
SITESIFT_SCREENSHOT_MAX_HEIGHT = 6000  # CSS px photographed at most
SITESIFT_SCREENSHOT_WIDTH = 320  # stored width in px (1/4 of the viewport)
SITESIFT_SCREENSHOT_FORMAT = "webp"  # or png
SITESIFT_SCREENSHOT_QUALITY = 70
SITESIFT_SCREENSHOT_TIMEOUT = 20.0  # seconds for one capture; then a plain fetch stores the page
SITESIFT_SCREENSHOT_BROWSER_PAGES = 200  # the browser is recycled after this many
# Stylesheets, scripts, images and fonts fetched once and shared by the browser's
# pages (LRU, in MiB): a template's assets are not refetched for every screenshot.
SITESIFT_SCREENSHOT_CACHE_MB = 64
# Browser fetches go through scrapy-playwright, each within a deadline
# (crawler/browser.py); other requests through Scrapy's own HTTP handler (the
# handler passes them on). Playwright cannot download a browser here: Debian's
# Chromium, headless, no sandbox-breaking flags needed.
DOWNLOAD_HANDLERS = {
    "http": "crawler.browser.BoundedPlaywrightHandler",
    "https": "crawler.browser.BoundedPlaywrightHandler",
}
PLAYWRIGHT_BROWSER_TYPE = "chromium"
PLAYWRIGHT_LAUNCH_OPTIONS = {
    "executable_path": "/usr/bin/chromium",
    "headless": True,
    "args": [
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-extensions",
        "--hide-scrollbars",
        "--mute-audio",
        "--no-pings",
        "--disable-domain-reliability",
        "--disable-features=Translate,MediaRouter,OptimizationHints",
    ],
}
PLAYWRIGHT_MAX_PAGES_PER_CONTEXT = 4  # open pages at once: ~600 MiB of Chromium at 4
PLAYWRIGHT_DEFAULT_NAVIGATION_TIMEOUT = 30_000  # ms; a hung page fails, the crawl goes on
PLAYWRIGHT_ABORT_REQUEST = "crawler.middlewares.screenshot.abort_request"
DOWNLOADER_MIDDLEWARES = globals().get("DOWNLOADER_MIDDLEWARES", {}) | {
    # First of all: where a request may go (SITESIFT_DENY_PRIVATE).
    "crawler.middlewares.destinations.DestinationGuard": 40,
    # Scrapy's retry and redirects, with Retry-After honoured and redirect loops
    # recorded instead of silently dropped by the duplicate filter.
    "scrapy.downloadermiddlewares.retry.RetryMiddleware": None,
    "crawler.middlewares.retry_after.RetryAfterMiddleware": 550,
    "scrapy.downloadermiddlewares.redirect.MetaRefreshMiddleware": None,
    "crawler.middlewares.redirects.LoopSafeMetaRefreshMiddleware": 580,
    "scrapy.downloadermiddlewares.redirect.RedirectMiddleware": None,
    "crawler.middlewares.redirects.LoopSafeRedirectMiddleware": 600,
    # Close to the downloader: it sees the browser's response first.
    "crawler.middlewares.screenshot.ScreenshotMiddleware": 950,
    # Distributed crawls only: all workers together keep to a site's delay.
    "crawler.distributed.SharedPoliteness": 590,
}
SPIDER_MIDDLEWARES = globals().get("SPIDER_MIDDLEWARES", {}) | {
    "crawler.middlewares.screenshot.ScreenshotItems": 950,
}


# Settings that take one of a few words (read in lower case, as their readers do).
_choices: dict[str, tuple[str, ...]] = {
    "SITESIFT_SCREENSHOTS": sitelist.SCREENSHOT_MODES,
    "SITESIFT_SCREENSHOT_FORMAT": ("webp", "png"),
}
# Scrapy numbers users often pass with -s; checked like sitesift's own. Scrapy
# reads DOWNLOAD_TIMEOUT as a float although its default here is whole.
_checked_scrapy: dict[str, type] = {
    "DOWNLOAD_TIMEOUT": float,
    "DOWNLOAD_DELAY": float,
    "CONCURRENT_REQUESTS": int,
    "CONCURRENT_REQUESTS_PER_DOMAIN": int,
    "DEPTH_LIMIT": int,
    "DOWNLOAD_MAXSIZE": int,
}
# The type of every checked setting, taken from its default before the
# environment overrides it.
_kinds: dict[str, type] = {
    name: type(value) for name, value in globals().items() if name.startswith("SITESIFT_")
} | _checked_scrapy
# Every checked number is finite and at least 0; these at least 1 (a count
# of zero would stop the work they size), those at most 1 (shares). The
# screenshot settings' own ranges are ScreenshotConfig's, asked below.
_at_least_one = frozenset({
    "SITESIFT_MAX_PAGES", "SITESIFT_STORE_BATCH", "SITESIFT_EXTRACT_THREADS",
    "SITESIFT_DEDUP_SHINGLE", "SITESIFT_TRAP_MAX_URL_LENGTH",
    "CONCURRENT_REQUESTS", "CONCURRENT_REQUESTS_PER_DOMAIN",
})  # fmt: skip
_shares = frozenset({"SITESIFT_CLASSIFY_GROUP_OVERRIDE", "SITESIFT_DEDUP_NEAR_THRESHOLD"})
_takes = {
    bool: "true or false (or 1 or 0)",
    int: "a whole number",
    float: "a number",
}
_env_true, _env_false = ("1", "true", "yes", "on"), ("0", "false", "no", "off", "")


def check_settings(settings: Any, only: Collection[str] | None = None) -> list[str]:  # noqa: ANN401
    """What is wrong with the checked settings (from -s or the environment;
    those named in ``only``), one line each: a bad value must stop the crawl
    before it starts, not fail in every request or be silently ignored."""
    from scrapy.settings import SETTINGS_PRIORITIES

    problems = []
    kinds = _kinds | _scrapy_kinds_set_by_hand(settings, only)
    for name, kind in kinds.items():
        if only is not None and name not in only:
            continue
        value = settings.get(name)
        by_hand = (settings.getpriority(name) or 0) >= SETTINGS_PRIORITIES["cmdline"]
        source = "" if by_hand else _from_env(name)
        if name in _choices:
            if str(value).lower() not in _choices[name]:
                problems.append(
                    f"{name}={value!r}{source} takes one of {', '.join(_choices[name])}"
                )
            continue
        if name == "SITESIFT_ALLOW_NETWORKS":
            from crawler.middlewares.destinations import allowed_networks

            try:
                allowed_networks(str(value))
            except ValueError as exc:
                problems.append(f"{name}={value!r}{source}: {exc}")
            continue
        if name == "SITESIFT_EXTRACT_METHOD":
            from extractors import METHODS

            if value not in METHODS:
                problems.append(f"{name}={value!r}{source} takes one of {', '.join(METHODS)}")
            continue
        read = {bool: settings.getbool, int: settings.getint, float: settings.getfloat}.get(kind)
        if read is None:
            continue
        try:
            number = read(name)
        except (TypeError, ValueError):
            problems.append(f"{name}={value!r}{source} takes {_takes[kind]}")
            continue
        if name not in _kinds:  # another Scrapy setting: its type only (DEPTH_PRIORITY=-1)
            continue
        if kind is not bool and (out_of_range := _out_of_range(name, number)):
            problems.append(f"{name}={value!r}{source} {out_of_range}")
    problems += _log_level_problem(settings, only)
    return problems + _screenshot_problems(settings, only, problems)


def _scrapy_kinds_set_by_hand(
    settings: Any,  # noqa: ANN401
    only: Collection[str] | None,
) -> dict[str, type]:
    """The type of each other Scrapy setting given with -s whose default is
    a flag or a number (ROBOTSTXT_OBEY=maybe, RETRY_TIMES=x): Scrapy reads
    them as the crawl starts and stops it with a traceback. A whole-number
    default is checked as a number: Scrapy reads some as floats
    (CLOSESPIDER_TIMEOUT=0.5)."""
    from scrapy.settings import SETTINGS_PRIORITIES, default_settings

    out: dict[str, type] = {}
    for name in only if only is not None else list(settings):
        if name in _kinds or (settings.getpriority(name) or 0) < SETTINGS_PRIORITIES["cmdline"]:
            continue
        kind = type(getattr(default_settings, name, None))
        if kind in (bool, int, float):
            out[name] = float if kind is int else kind
    return out


def _log_level_problem(settings: Any, only: Collection[str] | None) -> list[str]:  # noqa: ANN401
    """LOG_LEVEL must name a level (Python's logging raises on any other)."""
    import logging

    if only is not None and "LOG_LEVEL" not in only:
        return []
    value = settings.get("LOG_LEVEL")
    if isinstance(value, int) or str(value).upper() in logging.getLevelNamesMapping():
        return []
    return [f"LOG_LEVEL={value!r} takes one of CRITICAL, ERROR, WARNING, INFO, DEBUG"]


def _screenshot_problems(
    settings: Any,  # noqa: ANN401
    only: Collection[str] | None,
    found: list[str],
) -> list[str]:
    """What ScreenshotConfig refuses (a quality over 100, a zero width): the
    middleware would only switch itself off. Asked once the values parse."""
    names = [n for n in _kinds if n.startswith("SITESIFT_SCREENSHOT")]
    if only is not None and not set(names) & set(only):
        return []
    if any(problem.split("=", 1)[0] in names for problem in found):
        return []  # a value that does not parse is already reported
    from crawler.middlewares.screenshot import ScreenshotConfig

    try:
        ScreenshotConfig.from_settings(settings)
    except ValueError as exc:
        return [str(exc)]
    return []


def _out_of_range(name: str, number: float) -> str | None:
    if not math.isfinite(number):
        return "takes a finite number"
    low = 1 if name in _at_least_one else 0
    if number < low:
        return f"must be at least {low}"
    if name in _shares and number > 1:
        return "is a share: at most 1"
    return None


def _from_env(name: str) -> str:
    return " (from the environment)" if name in os.environ else ""


def _apply_env_overrides(namespace: dict[str, object]) -> None:
    """``SITESIFT_*`` environment variables override the defaults above,
    converted to the type of the default; a value that does not convert is
    kept as it is, for :func:`check_settings` to report."""
    for name, default in list(namespace.items()):
        if not name.startswith("SITESIFT_") or name not in os.environ:
            continue
        raw = os.environ[name]
        value: object = raw
        try:
            if isinstance(default, bool):
                word = raw.strip().lower()
                value = True if word in _env_true else False if word in _env_false else raw
            elif isinstance(default, int):
                value = int(raw)
            elif isinstance(default, float):
                value = float(raw)
        except ValueError:
            pass
        namespace[name] = value


_apply_env_overrides(globals())
