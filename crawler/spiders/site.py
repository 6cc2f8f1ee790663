"""SiteSpider: a site list in, every in-scope page out as a PageItem.

Per site (one per host): robots.txt first (its Crawl-delay and Sitemap lines),
then the start pages, links, ``<link rel=alternate>`` feeds and sitemaps (nested
indexes included). URLs are canonicalised before they are requested, so a page
is fetched once; per-site page and depth caps bound the crawl (robots.txt,
feeds and sitemaps are not pages: they do not count). No extraction
happens here: the spider parses the page once (the shared Document) for its
links and hands the tree on to the item pipelines.

Recrawl and resume read what the database already holds (pipelines/history.py):
a refetch carries the stored ETag / Last-Modified, and a 304 or the same bytes
as the stored copy becomes a "not modified" item that skips extraction; pages
stored by an interrupted run (``SITESIFT_RESUME``) and pages whose URL group
is not due for a revisit are not fetched again: their stored HTML gives their
links back, so the crawl still reaches everything an uninterrupted one would.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from functools import cached_property
from typing import Any
from urllib.parse import urlsplit

from lxml import etree
from protego import Protego
from scrapy import Request, Spider, signals
from scrapy.crawler import Crawler
from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware
from scrapy.exceptions import StopDownload
from scrapy.http import Response
from scrapy.settings import SETTINGS_PRIORITIES
from scrapy.utils.gz import gunzip
from scrapy.utils.misc import build_from_crawler
from scrapy.utils.sitemap import Sitemap
from sqlalchemy.exc import SQLAlchemyError
from twisted.python.failure import Failure

from crawler.distributed import RECOVERED, SITE_META, SharedGrouper, SharedState, shared_state
from crawler.failures import describe_failure
from crawler.items import Outcome, PageItem
from crawler.middlewares.retry_after import RETRY_AFTER_META
from crawler.middlewares.screenshot import FALLBACK, RENDER, SOURCE_ENCODING, browser_in_use
from crawler.quickstop import CrawlStopping
from crawler.sitelist import SiteSpec, bare_host, merge_by_host, read_site_list
from crawler.throttle import META_KEY as DELAY_META
from crawler.traps import TrapGuard, TrapParams
from crawler.urlgroups import URLGrouper
from crawler.urls import canonicalize_url, host_of
from extractors.document import Document
from extractors.encoding import SNIFF_BYTES, looks_binary, looks_html, served_as_other
from pipelines.history import (
    NOT_MODIFIED,
    KnownPage,
    interrupted_runs,
    known_pages,
    revisit_intervals,
    stored_html,
)
from pipelines.schema import DatabaseError, connect, utcnow

logger = logging.getLogger(__name__)

DEPTH = "sitesift_depth"
REFERER = "sitesift_referer"
ASKED = "sitesift_asked_url"  # the URL a page was first asked for, before redirects
# Meta Scrapy sets as a request is fetched: a page asked for again (to be
# rendered) starts without it, and keeps the URL it was asked for in ASKED.
_PER_FETCH_META = frozenset({"download_latency", "retry_times", "redirect_times", "redirect_ttl",
                             "redirect_reasons", "redirect_urls", "_auth_proxy", "_scheme_proxy",
                             "cache_timestamp", "_dont_cache"})  # fmt: skip

# Content types that are no page (extractors.encoding.HTML_TYPES are): the
# download stops at the headers, and the response is recorded as skipped.
_NOT_PAGE_PREFIXES = ("image/", "audio/", "video/", "font/", "application/pdf",
                      "application/zip", "application/octet-stream", "application/x-",
                      "application/vnd.", "application/msword", "application/gzip")  # fmt: skip
_SCRIPT_TAG = re.compile(rb"<script\b", re.I)


class SiteSpider(Spider):
    name = "site"

    def __init__(self, sites: str | None = None, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if not sites:
            raise ValueError("no site list: pass -a sites=FILE (one start URL per line)")
        self.sites_file = sites
        specs, errors = read_site_list(sites)
        for error in errors:
            logger.error("site list: %s", error)
        self.site_list_errors = errors
        # One site per host: the lines of a host make one site.
        self.sites, warnings = merge_by_host(specs, sites)
        for warning in warnings:
            logger.warning("site list: %s", warning)
        self.by_host: dict[str, SiteSpec] = {spec.host: spec for spec in self.sites}
        self._by_bare_host = {bare_host(spec.host): spec for spec in self.sites}
        self.grouper: URLGrouper | SharedGrouper = URLGrouper()
        self.seen: dict[str, set[str]] = {spec.host: set() for spec in self.sites}  # pages only
        # Pages scheduled per site, against its page cap: a redirect's target
        # is seen (never fetched again) but not a second page.
        self.scheduled: dict[str, int] = dict.fromkeys(self.seen, 0)
        # Distributed: the URLs this worker fetched or won the crawl-wide
        # claim of. A URL seen here may be another worker's claim, never
        # queued if that worker died.
        self.ours: set[str] = set()
        self.aux: set[str] = set()  # robots.txt, sitemaps, feeds: requested, not pages
        self.trapped: set[str] = set()
        self.traps = TrapGuard()
        self.delay_floor: dict[str, float] = {}
        self.known: dict[str, KnownPage] = {}
        self.resumed_runs: list[int] = []
        self.history: Any = None  # an Engine while the database's history is in use
        self.shared: SharedState | None = None  # per-site sets in Redis (distributed crawl)

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> SiteSpider:
        spider = super().from_crawler(crawler, *args, **kwargs)
        crawler.signals.connect(spider.headers_received, signal=signals.headers_received)
        crawler.signals.connect(spider.close_history, signal=signals.spider_closed)
        spider.shared = shared_state(crawler.settings)
        admit = spider.shared.admit_to_pattern if spider.shared is not None else None
        spider.traps = TrapGuard(TrapParams.from_settings(crawler.settings), admit)
        if spider.shared is not None:
            spider.grouper = SharedGrouper(spider.shared, spider.grouper)
        # A site's own concurrency / delay from the site list become its
        # download slot's settings (settings are still mutable here).
        slots = dict(crawler.settings.getdict("DOWNLOAD_SLOTS"))
        for spec in spider.sites:
            opts = spec.options
            if opts.concurrency or opts.delay is not None:
                slot = dict(slots.get(spec.host, {}))
                if opts.concurrency:
                    slot["concurrency"] = opts.concurrency
                if opts.delay is not None:
                    slot["delay"] = opts.delay
                    spider.delay_floor[spec.host] = opts.delay
                slots[spec.host] = slot
        crawler.settings.set("DOWNLOAD_SLOTS", slots, priority="spider")
        if not spider.sites:
            logger.error("the site list %s has no usable site", spider.sites_file)
        spider._say_where_the_list_wins()
        return spider

    def _say_where_the_list_wins(self) -> None:
        """A site's own max_pages / depth in the site list win over
        --max-pages / --depth: say so where both were given."""
        for option, setting, flag in (("max_pages", "SITESIFT_MAX_PAGES", "--max-pages"),
                                      ("depth", "SITESIFT_MAX_DEPTH", "--depth")):  # fmt: skip
            if self.settings.getpriority(setting) != SETTINGS_PRIORITIES["cmdline"]:
                continue
            own = [f"{s.host} ({getattr(s.options, option)})" for s in self.sites
                   if getattr(s.options, option) is not None]  # fmt: skip
            if own:
                logger.warning("%s %s does not apply to the sites whose line sets %s: %s", flag,
                               self.settings.get(setting), option, ", ".join(own))  # fmt: skip

    # -- limits ------------------------------------------------------------------

    def max_pages(self, spec: SiteSpec) -> int:
        return spec.options.max_pages or self.settings.getint("SITESIFT_MAX_PAGES")

    def max_depth(self, spec: SiteSpec) -> int:
        depth = spec.options.depth
        return depth if depth is not None else self.settings.getint("SITESIFT_MAX_DEPTH")

    # -- requests ------------------------------------------------------------------

    def _meta(self, spec: SiteSpec, depth: int, referer: str | None = None) -> dict[str, Any]:
        meta: dict[str, Any] = {"download_slot": spec.host, SITE_META: spec.host, DEPTH: depth}
        if referer:
            meta[REFERER] = referer
        floor = self.delay_floor.get(spec.host)
        if floor:
            meta[DELAY_META] = floor
        return meta

    def page_request(
        self,
        spec: SiteSpec,
        url: str,
        depth: int,
        referer: str | None = None,
        *,
        reclaim: bool = False,
    ) -> Request | PageItem | None:
        """A request for a page of ``spec`` — or None when the URL is out of
        scope, already seen, too deep, or the site's page cap is reached; a
        skipped item recording why, the first time, for a crawler trap.

        ``reclaim``: a link of a page taken over from a dead distributed
        worker, which may have claimed it without queueing it: requested
        even when the crawl-wide claim says seen (a few refetches, nothing
        lost), once: not when this worker has it, nor after another
        worker took it over (every page of a site links its sections).
        """
        if not spec.in_scope(url) or url in self.trapped or url in self.aux:
            return None
        if reclaim and (url in self.ours or not self._reclaimed(spec, url)):
            reclaim = False
        if url in self.seen[spec.host] and not reclaim:
            return None
        if depth > self.max_depth(spec):
            self.crawler.stats.inc_value("sitesift/skipped/too_deep")
            return None
        scheduled = (
            self.scheduled[spec.host] if self.shared is None else self.shared.count_pages(spec.host)
        )
        if scheduled >= self.max_pages(spec):
            self.crawler.stats.inc_value("sitesift/skipped/page_cap")
            return None
        trap = self.traps.check(url)
        if trap:
            return self._trapped(spec, url, depth, referer, trap)
        if not self._mark_seen(spec, url) and not reclaim:
            return None
        return Request(
            url,
            callback=self.parse,
            errback=self.fetch_failed,
            meta=self._meta(spec, depth, referer),
            priority=-depth,
            headers=self._validators(url),
            dont_filter=reclaim,
        )

    def _trapped(
        self, spec: SiteSpec, url: str, depth: int, referer: str | None, reason: str
    ) -> PageItem | None:
        """A URL the trap guards refused: recorded once, never fetched. A page
        stored by an earlier run keeps its row (a rerun with a smaller budget,
        or a section grown past it, must not mark stored pages as traps)."""
        self.trapped.add(url)
        self.crawler.stats.inc_value("sitesift/skipped/trap")
        logger.debug("%s: %s", url, reason)
        if self._known_good(url):
            return None
        self.crawler.stats.inc_value("sitesift/pages/skipped")
        now = datetime.now(UTC).isoformat()
        return PageItem(url=url, site=spec.host, outcome=Outcome.SKIPPED, reason=reason,
                        fetched_at=now, depth=depth, referer=referer)  # fmt: skip

    def _reclaimed(self, spec: SiteSpec, url: str) -> bool:
        """Claim ``url`` as taken over from a dead worker's page (crawl-wide)."""
        return self.shared is None or self.shared.add_reclaimed(spec.host, url)

    def _mark_seen(self, spec: SiteSpec, url: str, *, page: bool = True) -> bool:
        """Record ``url`` as scheduled (``page``: one more against the cap;
        a redirect's target is not); False when it already was (by any
        worker of a distributed crawl)."""
        if url not in self.seen[spec.host]:
            self.scheduled[spec.host] += page
            self.seen[spec.host].add(url)
        if self.shared is None:
            return True
        if url in self.ours or not self.shared.add_seen(spec.host, url, page=page):
            return False
        self.ours.add(url)
        return True

    def _validators(self, url: str) -> dict[str, str]:
        """Conditional-request headers from the stored copy of a page."""
        known = self.known.get(url)
        if known is None or known.outcome != str(Outcome.OK):
            return {}
        if not self.settings.getbool("SITESIFT_CONDITIONAL_REQUESTS", True):
            return {}
        headers = {}
        if known.etag:
            headers["If-None-Match"] = known.etag
        if known.last_modified:
            headers["If-Modified-Since"] = known.last_modified
        return headers

    async def start(self) -> AsyncIterator[Request]:
        replayed = self._load_history()
        for spec in self.sites:
            origin = spec.url.split("/", 3)
            robots = f"{origin[0]}//{origin[2]}/robots.txt"
            self.aux.add(robots)
            meta = self._meta(spec, 0) | {
                "dont_obey_robotstxt": True,
                "handle_httpstatus_all": True,
            }
            yield Request(
                robots,
                callback=self.parse_robots,
                errback=self.robots_failed,
                meta=meta,
                dont_filter=True,
                priority=100,
            )
        for request in replayed:
            yield request

    # -- what the database already holds ---------------------------------------------

    def _load_history(self) -> list[Request | PageItem]:
        """Read the stored pages of these sites; mark as seen those not to
        fetch again (resumed or not due) and return requests for their links."""
        s = self.settings
        wanted = (s.getbool("SITESIFT_RESUME") or s.getbool("SITESIFT_REVISIT", True)
                  or s.getbool("SITESIFT_CONDITIONAL_REQUESTS", True))  # fmt: skip
        if not wanted or not s.get("SITESIFT_DB") or not self.sites:
            return []
        try:
            self.history = connect(s.get("SITESIFT_DB"))
            self.known = known_pages(self.history, [spec.host for spec in self.sites])
        except (DatabaseError, SQLAlchemyError) as exc:
            logger.warning("no recrawl history, every page is fetched: %s", exc)
            return []
        done = self._resumed() | self._not_due()
        for url in done:
            spec = self.site_of(url)
            if spec is not None:
                self._mark_seen(spec, url)
        requests: list[Request | PageItem] = []
        good = sorted(u for u in done if self.known[u].outcome == str(Outcome.OK))
        for url, html in stored_html(self.history, good):
            requests.extend(self._follow_stored(url, html))
        if done:
            logger.info("%d stored page(s) not fetched again; %d link request(s) from them",
                        len(done), len(requests))  # fmt: skip
        return requests

    def _resumed(self) -> set[str]:
        if not self.settings.getbool("SITESIFT_RESUME"):
            return set()
        runs = set(interrupted_runs(self.history, self.sites_file))
        done = {url for url, page in self.known.items() if page.run_id in runs}
        self.resumed_runs = sorted({self.known[url].run_id for url in done})  # type: ignore[misc]
        self.crawler.stats.set_value("sitesift/resume/done_pages", len(done))
        if done:
            logger.info("resuming runs %s: %d page(s) already stored", self.resumed_runs, len(done))
        else:
            logger.info("--resume: no page of an interrupted crawl of %s stored; crawling anew",
                        self.sites_file)  # fmt: skip
        return done

    def _not_due(self) -> set[str]:
        """Good pages fetched more recently than their group's revisit interval."""
        if not self.settings.getbool("SITESIFT_REVISIT", True):
            return set()
        intervals = revisit_intervals(self.history, [spec.host for spec in self.sites])
        start = self.settings.getfloat("SITESIFT_REVISIT_START", 21600.0)
        now = utcnow()
        starts = {url for spec in self.sites for url in spec.start_urls}
        done = set()
        for url, page in self.known.items():
            if page.outcome != str(Outcome.OK) or url in starts or page.fetched_at is None:
                continue
            seconds = intervals.get(page.url_group or "", start)
            if (now - page.fetched_at).total_seconds() < seconds:
                done.add(url)
        self.crawler.stats.set_value("sitesift/recrawl/not_due", len(done))
        return done

    def site_of(self, url: str) -> SiteSpec | None:
        """The site a URL's host belongs to (``www.`` or not)."""
        return self._by_bare_host.get(bare_host(host_of(url) or ""))

    def _follow_stored(
        self, url: str, html: str, *, reclaim: bool = False
    ) -> Iterator[Request | PageItem]:
        spec = self.site_of(url)
        if spec is None:
            return
        doc = Document(html, url=url)
        yield from self._follow(spec, doc, url, self.known[url].depth + 1, reclaim=reclaim)

    def close_history(self, spider: Spider) -> None:
        if self.history is not None:
            self.history.dispose()

    # -- robots, sitemaps, feeds -----------------------------------------------------

    def parse_robots(self, response: Response) -> Iterator[Request | PageItem]:
        spec = self.by_host[response.meta[SITE_META]]
        self._share_robots(spec, response.body)
        sitemaps: list[str] = []
        if response.status == 200:
            try:
                rules = Protego.parse(response.body.decode("utf-8", "replace"))
                delay = rules.crawl_delay(self.settings.get("USER_AGENT") or "*")
                sitemaps = list(rules.sitemaps)
            except Exception as exc:  # a garbage robots.txt must not stop the site
                logger.warning("unreadable robots.txt at %s: %s", response.url, exc)
                delay = None
            if delay and self.settings.getbool("ROBOTSTXT_OBEY"):
                self._set_delay_floor(spec, float(delay))
        yield from self._site_entries(spec, sitemaps)

    def robots_failed(self, failure: Failure) -> Iterator[Request | PageItem]:
        if failure.check(CrawlStopping):
            return  # the site starts again with --resume
        spec = self.by_host[failure.request.meta[SITE_META]]
        self._share_robots(spec, None)
        yield from self._site_entries(spec, [])

    def _share_robots(self, spec: SiteSpec, body: bytes | None) -> None:
        """Give the robots.txt just read (None: it could not be fetched, so
        everything is allowed, as Scrapy does) to Scrapy's RobotsTxtMiddleware,
        which would otherwise fetch it a second time for the site's first page.
        Its parser cache is private: on a Scrapy without it, it fetches again."""
        middleware = next(
            (m for m in self.crawler.engine.downloader.middleware.middlewares
             if isinstance(m, RobotsTxtMiddleware)),
            None,
        )  # fmt: skip
        parsers = getattr(middleware, "_parsers", None)
        netloc = urlsplit(spec.url).netloc  # the site's, where a redirect took robots.txt
        if middleware is None or not isinstance(parsers, dict) or netloc in parsers:
            return
        parsers[netloc] = (
            None if body is None else build_from_crawler(middleware._parserimpl, self.crawler, body)
        )

    def _set_delay_floor(self, spec: SiteSpec, delay: float) -> None:
        cap = self.settings.getfloat("SITESIFT_CRAWL_DELAY_CAP")
        floor = max(self.delay_floor.get(spec.host, 0.0), min(delay, cap))
        self.delay_floor[spec.host] = floor
        slot = self.crawler.engine.downloader.slots.get(spec.host)
        if slot is not None:
            slot.delay = max(slot.delay, floor)
        logger.info("%s: robots.txt Crawl-delay %.2fs (using %.2fs)", spec.host, delay, floor)

    def _site_entries(self, spec: SiteSpec, sitemaps: list[str]) -> Iterator[Request | PageItem]:
        for start_url in spec.start_urls:
            request = self.page_request(spec, start_url, 0)
            if request is not None:
                yield request
        if not self.settings.getbool("SITESIFT_FOLLOW_SITEMAPS"):
            return
        origin = spec.url.split("/", 3)
        candidates = sitemaps or [f"{origin[0]}//{origin[2]}/sitemap.xml"]
        for url in candidates:
            url = canonicalize_url(url)
            if url and spec.on_host(url):
                yield from self._aux_request(spec, url, self.parse_sitemap)

    def _aux_request(self, spec: SiteSpec, url: str, callback: Any) -> Iterator[Request]:
        """A request for a sitemap or feed, unless the URL was requested already
        (as a page too). Not a page: not counted against the page cap, not stored."""
        if url in self.aux or url in self.seen[spec.host]:
            return
        self.aux.add(url)
        meta = self._meta(spec, 1) | {"handle_httpstatus_all": True}
        yield Request(url, callback=callback, errback=self.aux_failed, meta=meta, priority=50)

    def parse_sitemap(self, response: Response) -> Iterator[Request | PageItem]:
        spec = self.by_host[response.meta[SITE_META]]
        if response.status != 200:
            return
        body = response.body
        if body[:2] == b"\x1f\x8b":
            try:
                body = gunzip(body, max_size=self.settings.getint("DOWNLOAD_MAXSIZE"))
            except OSError:
                logger.warning("bad gzip sitemap %s", response.url)
                return
        try:
            sitemap = Sitemap(body)
        except Exception:
            logger.warning("unreadable sitemap %s", response.url)
            return
        for entry in sitemap:
            url = canonicalize_url(entry.get("loc", ""), base=response.url)
            if not url:
                continue
            if sitemap.type == "sitemapindex":
                if spec.on_host(url):
                    yield from self._aux_request(spec, url, self.parse_sitemap)
            else:
                request = self.page_request(spec, url, 1, referer=response.url)
                if request is not None:
                    yield request

    def parse_feed(self, response: Response) -> Iterator[Request | PageItem]:
        spec = self.by_host[response.meta[SITE_META]]
        if response.status != 200:
            return
        try:
            root = etree.fromstring(
                response.body, parser=etree.XMLParser(recover=True, resolve_entities=False)
            )
        except etree.XMLSyntaxError:
            root = None
        if root is None:
            logger.warning("unreadable feed %s", response.url)
            return
        for el in root.iter("{*}link", "link"):
            href = el.get("href") if el.get("href") else (el.text or "")
            if el.get("rel") not in (None, "alternate"):
                continue
            url = canonicalize_url(href.strip(), base=response.url)
            if url:
                request = self.page_request(spec, url, 1, referer=response.url)
                if request is not None:
                    yield request

    def aux_failed(self, failure: Failure) -> None:
        logger.debug("sitemap/feed failed: %s", failure.getErrorMessage())

    # -- pages ---------------------------------------------------------------------

    def headers_received(
        self, headers: Any, body_length: int, request: Request, spider: Spider
    ) -> None:
        """Stop downloading bodies that are not pages (the item records them)."""
        if request.callback != self.parse:
            return
        ctype = (headers.get(b"Content-Type") or b"").decode("latin-1").lower()
        if ctype.startswith(_NOT_PAGE_PREFIXES):
            raise StopDownload(fail=False)

    def follows_redirect(self, request: Request, url: str) -> bool:
        """Whether the redirect middlewares follow ``request`` to ``url``: a
        page's redirect must stay in its site's scope, or it is recorded as
        offsite without contacting the target (robots.txt, sitemaps and feeds
        may live elsewhere)."""
        spec = self.by_host.get(request.meta.get(SITE_META, ""))
        if spec is None or request.callback != self.parse:
            return True
        final = canonicalize_url(url)
        return final is not None and spec.in_scope(final)

    def claims_redirect_target(self, request: Request, url: str) -> bool:
        """Whether a page's redirect may fetch ``url``: not when the crawl
        has it already (linked directly, or another redirect's target),
        which would fetch and store it twice. Otherwise the hop claims it, so
        a link to it found later is not fetched again. A page taken over from
        a dead worker follows past the claims (the dead worker's hop may
        never have been stored)."""
        spec = self.by_host.get(request.meta.get(SITE_META, ""))
        final = canonicalize_url(url)
        if spec is None or request.callback != self.parse or final is None:
            return True
        if request.meta.get(RECOVERED):
            return True
        return final not in self.seen[spec.host] and self._mark_seen(spec, final, page=False)

    def _item(self, response: Response, spec: SiteSpec) -> PageItem:
        headers = response.headers

        def header(name: bytes) -> str | None:
            value = headers.get(name)
            return value.decode("latin-1") if value else None

        return PageItem(
            url=_asked_url(response.meta, response.url),
            site=spec.host,
            final_url=response.url,
            status=response.status,
            fetched_at=datetime.now(UTC).isoformat(),
            content_type=header(b"Content-Type"),
            etag=header(b"ETag"),
            last_modified=header(b"Last-Modified"),
            depth=response.meta.get(DEPTH, 0),
            referer=response.meta.get(REFERER),
        )

    def parse(self, response: Response) -> Iterator[PageItem | Request]:
        spec = self.by_host[response.meta[SITE_META]]
        item = self._item(response, spec)
        final = canonicalize_url(response.url)
        if final:
            self.seen[spec.host].add(final)
            if self.shared is not None:
                self.ours.add(final)
        # A page taken over from a dead worker: its links may be claimed
        # (seen set, dupefilter) but were never queued, so follow them past
        # those claims, whether the page is new, changed or unchanged.
        reclaim = bool(response.meta.get(RECOVERED))
        if response.status == 304 and self._known_good(item.url):
            yield from self._unchanged(spec, item, None, reclaim)
            return
        reason = self._not_a_page(response, item.content_type)
        if response.status >= 400:
            item.outcome, item.reason = Outcome.HTTP_ERROR, f"HTTP {response.status}"
            if RETRY_AFTER_META in response.meta:
                item.reason += (f", Retry-After {response.meta[RETRY_AFTER_META]:.0f} s: "
                                "not retried (over SITESIFT_RETRY_AFTER_MAX)")  # fmt: skip
        elif reason:
            item.outcome, item.reason = Outcome.SKIPPED, reason
        elif not final or not spec.in_scope(final):
            item.outcome, item.reason = (
                Outcome.OFFSITE,
                f"redirected out of scope to {response.url}",
            )
        if item.outcome is not Outcome.OK:
            self.crawler.stats.inc_value(f"sitesift/pages/{item.outcome}")
            yield item
            return
        doc = Document(response.body, url=response.url, content_type=item.content_type)
        if self._scripts_fill(response, doc):
            # Asked for again, through the browser, and processed then; first
            # in line, so the next pages of its URL pattern learn from it.
            self.crawler.stats.inc_value("sitesift/pages/rendered_empty")
            meta = {k: v for k, v in response.request.meta.items() if k not in _PER_FETCH_META}
            meta |= {RENDER: True, ASKED: item.url}
            yield response.request.replace(
                meta=meta, dont_filter=True, priority=response.request.priority + 1
            )
            return
        item.content_hash = hashlib.sha256(response.body).hexdigest()
        known = self.known.get(item.url)
        if self._known_good(item.url) and known.content_hash == item.content_hash:
            yield from self._unchanged(spec, item, doc, reclaim)
            return
        item.document = doc
        item.html = doc.text
        item.encoding = response.meta.get(SOURCE_ENCODING) or doc.encoding  # as served
        item.title = doc.title
        item.url_group = self.grouper.group(final)
        self.crawler.stats.inc_value("sitesift/pages/ok")
        # Links first: once the page is stored it counts as done, so its links
        # must already be scheduled (a distributed worker may die in between).
        yield from self._follow(spec, doc, response.url, item.depth + 1, reclaim=reclaim)
        yield item

    def _scripts_fill(self, response: Response, doc: Document) -> bool:
        """Whether a page Scrapy's client fetched shows (almost) nothing but
        carries scripts, which would fill it in a browser (a forum's or a
        shop's front end): SITESIFT_RENDER_EMPTY, with the browser in use."""
        meta = response.meta
        if meta.get(RENDER) or meta.get(FALLBACK) or meta.get("playwright"):
            return False  # the browser's page already, or the browser failed on it
        below = self._render_empty_below
        body = doc.stats.get(doc.body)
        if not below or (body is not None and body.text_len >= below):
            return False
        return _SCRIPT_TAG.search(response.body) is not None

    @cached_property
    def _render_empty_below(self) -> int:
        """SITESIFT_RENDER_EMPTY_CHARS when pages may be rendered for their
        text (the setting on, the browser in use), else 0: read once."""
        if not (self.settings.getbool("SITESIFT_RENDER_EMPTY") and browser_in_use(self.settings)):
            return 0
        return max(0, self.settings.getint("SITESIFT_RENDER_EMPTY_CHARS"))

    def _known_good(self, url: str) -> bool:
        known = self.known.get(url)
        return known is not None and known.outcome == Outcome.OK

    def _unchanged(
        self, spec: SiteSpec, item: PageItem, doc: Document | None, reclaim: bool
    ) -> Iterator[PageItem | Request]:
        """A refetch that found the stored content: recorded, not reprocessed;
        its links come from the stored copy when the server sent none (304)."""
        known = self.known[item.url]
        item.outcome, item.reason = Outcome.SKIPPED, NOT_MODIFIED
        item.content_hash = known.content_hash
        item.url_group = known.url_group
        self.crawler.stats.inc_value("sitesift/pages/unchanged")
        if doc is not None:
            page_url = item.final_url or item.url
            yield from self._follow(spec, doc, page_url, item.depth + 1, reclaim=reclaim)
        elif self.history is not None:
            for url, html in stored_html(self.history, [item.url]):
                yield from self._follow_stored(url, html, reclaim=reclaim)
        yield item  # after its links, as in parse()

    def _follow(
        self, spec: SiteSpec, doc: Document, page_url: str, depth: int, *, reclaim: bool = False
    ) -> Iterator[Request | PageItem]:
        base = canonicalize_url(doc.base_href, base=page_url) if doc.base_href else None
        base = base or page_url
        if self.settings.getbool("SITESIFT_FOLLOW_FEEDS"):
            for href in doc.feeds:
                url = canonicalize_url(href, base=base)
                if url and spec.on_host(url):
                    yield from self._aux_request(spec, url, self.parse_feed)
        for href in doc.hrefs:
            url = canonicalize_url(href, base=base)
            if url:
                request = self.page_request(spec, url, depth, referer=page_url, reclaim=reclaim)
                if request is not None:
                    yield request

    @staticmethod
    def _not_a_page(response: Response, content_type: str | None) -> str | None:
        """Why a response is not an HTML page, or None if it is one."""
        head = response.body[:SNIFF_BYTES]
        if other := served_as_other(content_type, head):
            return f"not HTML ({other})"  # a PDF's body is not even fetched
        if not head.strip() and not response.body.strip():
            return "empty response (no content)"
        if not (content_type or "").split(";")[0].strip() and not looks_html(head):
            return "not HTML (no content type, no markup)"
        if looks_binary(head, content_type):
            return "binary content served as HTML"
        return None

    def fetch_failed(self, failure: Failure) -> Iterator[PageItem]:
        if failure.check(CrawlStopping):
            return  # never sent: no row, and --resume fetches it
        request = failure.request
        spec = self.by_host[request.meta[SITE_META]]
        outcome, reason = describe_failure(failure, self.settings)
        self.crawler.stats.inc_value(f"sitesift/pages/{outcome}")
        yield PageItem(
            # A redirect hop that failed is recorded under the URL that was asked for.
            url=_asked_url(request.meta, request.url),
            site=spec.host,
            outcome=outcome,
            reason=reason,
            fetched_at=datetime.now(UTC).isoformat(),
            depth=request.meta.get(DEPTH, 0),
            referer=request.meta.get(REFERER),
        )


def _asked_url(meta: dict[str, Any], url: str) -> str:
    """The URL a page was asked for: a redirect's first hop, or the page's
    own URL when it was asked for again to be rendered."""
    return meta.get(ASKED) or (meta.get("redirect_urls") or [url])[0]
