"""Every sitesift default in one place.

Scrapy knobs and sitesift's own (``SITESIFT_*``). Anything here can be
overridden with ``-s NAME=VALUE`` on the command line, and every
``SITESIFT_*`` name also by an environment variable of the same name.
"""

from __future__ import annotations

import os

BOT_NAME = "sitesift"
SPIDER_MODULES = ["crawler.spiders"]
NEWSPIDER_MODULE = "crawler.spiders"

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
RANDOMIZE_DOWNLOAD_DELAY = True
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
}

# -- bounds: nothing unbounded reaches the parser -------------------------------
DOWNLOAD_TIMEOUT = 30
DOWNLOAD_MAXSIZE = 32 * 1024 * 1024
DOWNLOAD_WARNSIZE = 8 * 1024 * 1024
REDIRECT_MAX_TIMES = 10
RETRY_TIMES = 2
RETRY_HTTP_CODES = [500, 502, 503, 504, 522, 524, 408, 429]
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
    "published",
    "author",
    "language",
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

# -- extraction (pipelines/classify.py, pipelines/extract.py) -------------------------

# -- storage, dedup, export, schedule (pipelines/store.py, pipelines/dedup.py) ---------

# -- screenshots (crawler/middlewares/screenshot.py) ------------------------------


def _apply_env_overrides(namespace: dict[str, object]) -> None:
    """``SITESIFT_*`` environment variables override the defaults above,
    converted to the type of the default."""
    for name, default in list(namespace.items()):
        if not name.startswith("SITESIFT_") or name not in os.environ:
            continue
        raw = os.environ[name]
        if isinstance(default, bool):
            value: object = raw.strip().lower() in ("1", "true", "yes", "on")
        elif isinstance(default, int):
            value = int(raw)
        elif isinstance(default, float):
            value = float(raw)
        else:
            value = raw
        namespace[name] = value


_apply_env_overrides(globals())
