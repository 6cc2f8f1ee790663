"""Which pages go through the browser, and what happens to their pictures.

Policy (``SITESIFT_SCREENSHOTS``, or a site's ``screenshots=`` option):
``none``; ``all`` pages; or, by default, ``group``: the first
``SITESIFT_SCREENSHOT_PER_GROUP`` pages of each URL group. Pages of a group
share a template, so a handful tell the type of the whole group. The group a
page will get is known only after its fetch, so the decision uses
:func:`crawler.urlgroups.url_pattern` on the request URL: the shape-only
pattern (numbers, dates, ids and slugs abstracted, pagination folded) that
the online grouper starts from.

A chosen request is fetched by scrapy-playwright (Debian's Chromium) with
:func:`crawler.screenshots.capture_page` as its page method; the response
body is then the rendered DOM, so JavaScript-built pages are stored as the
browser saw them. The picture is shrunk and stored content-addressed; its
``{"sha256", "path", "width", "height"}`` reaches ``PageItem.screenshot``
through :class:`ScreenshotItems`, a spider middleware (the spider knows
nothing of screenshots).

No leaks: scrapy-playwright closes each page after the capture; every
``SITESIFT_SCREENSHOT_BROWSER_PAGES`` pages new browser requests wait, the
open ones finish, the browser is closed and the handler launches a fresh one
for the next request.

A crash (the browser killed or gone, or the page's renderer dead): the pages
open in it fail with ``TargetClosedError``, which scrapy-playwright retries
up to three times in a fresh page; once the browser process is gone the
handler launches a new one for the next page. A page that still fails, and a
page that fails in the browser for any other reason (a hang past the
timeout, a failed capture, a network error, a script that never lets it
render), is fetched once more with Scrapy's own client: the page itself is
stored, with why it has no picture as its ``reason`` (``screenshot failed
(browser crashed): ...``, ``screenshot failed: TimeoutError: ...``), or fails
as it would without the browser. So does a page that breaks a limit of that
client (``DOWNLOAD_MAXSIZE``, its header line length): Chromium keeps none.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections import OrderedDict
from collections.abc import AsyncIterator, Iterable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import Response
from scrapy.linkextractors import IGNORED_EXTENSIONS
from scrapy.settings import BaseSettings

from crawler.distributed import SharedState, shared_state
from crawler.failures import HEADER_LINE_LIMIT
from crawler.items import Outcome, PageItem
from crawler.middlewares.destinations import DestinationGuard
from crawler.screenshots import (
    Capture,
    CaptureParams,
    ScreenshotStore,
    StoredScreenshot,
    capture_page,
)
from crawler.sitelist import SCREENSHOT_MODES
from crawler.urlgroups import url_pattern
from extractors.encoding import browser_misread, normalize_encoding
from pipelines.schema import database_key

logger = logging.getLogger(__name__)

WANTED = "sitesift_screenshot_wanted"  # request meta: this request goes through the browser
RESULT = "sitesift_screenshot"  # response meta: the stored screenshot dict
RAW = "sitesift_raw_body"  # request meta: the page's bytes as the server sent them
FALLBACK = "sitesift_screenshot_fallback"  # the browser could not connect: plain HTTP
SHOT_FAILED = "sitesift_screenshot_failed"  # why a page fell back to plain HTTP
CONTEXT = "sitesift"  # the browser context used for screenshots
# request meta: a page fetched again through the browser because its body
# showed nothing but scripts (the spider's SITESIFT_RENDER_EMPTY); it is
# rendered whatever the policy, and photographed only if the policy says so.
RENDER = "sitesift_render"
PHOTOGRAPH = "sitesift_photograph"  # request meta: the policy counted this page
# request meta, set on the way back: the charset the page was served in
# (the response body is then the browser's DOM, written as UTF-8)
SOURCE_ENCODING = "sitesift_source_encoding"
_SKIP_EXTENSIONS = frozenset("." + ext for ext in IGNORED_EXTENSIONS)
_MAX_SCRIPTED_PATTERNS = 10_000  # a trap's patterns must not grow the set for ever


@dataclass(frozen=True)
class ScreenshotConfig:
    """The SITESIFT_SCREENSHOT* settings, read and checked once."""

    mode: str = "group"
    per_group: int = 3
    directory: str = "sitesift-screenshots"
    browser_pages: int = 200
    cache_mb: int = 64  # subresources kept for the browser's next pages
    capture: CaptureParams = CaptureParams()
    # Scrapy's client limits, which the browser's pages keep too.
    max_size: int = 0  # DOWNLOAD_MAXSIZE; 0 = none
    download_timeout: float = 30.0  # DOWNLOAD_TIMEOUT, seconds
    navigation_timeout: float = 30.0  # PLAYWRIGHT_DEFAULT_NAVIGATION_TIMEOUT, seconds

    def __post_init__(self) -> None:
        if self.mode not in SCREENSHOT_MODES:
            raise ValueError(
                f"SITESIFT_SCREENSHOTS must be one of {', '.join(SCREENSHOT_MODES)},"
                f" not {self.mode!r}"
            )
        if self.per_group < 1:
            raise ValueError("SITESIFT_SCREENSHOT_PER_GROUP must be at least 1")
        if self.browser_pages < 1:
            raise ValueError("SITESIFT_SCREENSHOT_BROWSER_PAGES must be at least 1")
        if not self.directory:
            raise ValueError("SITESIFT_SCREENSHOT_DIR must name a directory")

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> ScreenshotConfig:
        capture = CaptureParams(
            viewport_width=settings.getint("SITESIFT_SCREENSHOT_VIEWPORT_WIDTH", 1280),
            viewport_height=settings.getint("SITESIFT_SCREENSHOT_VIEWPORT_HEIGHT", 800),
            max_height=settings.getint("SITESIFT_SCREENSHOT_MAX_HEIGHT", 6000),
            width=settings.getint("SITESIFT_SCREENSHOT_WIDTH", 320),
            format=str(settings.get("SITESIFT_SCREENSHOT_FORMAT", "webp")).lower(),
            quality=settings.getint("SITESIFT_SCREENSHOT_QUALITY", 70),
            timeout_ms=round(1000 * settings.getfloat("SITESIFT_SCREENSHOT_TIMEOUT", 20.0)),
        )
        return cls(
            mode=str(settings.get("SITESIFT_SCREENSHOTS", "group")).lower(),
            per_group=settings.getint("SITESIFT_SCREENSHOT_PER_GROUP", 3),
            directory=str(settings.get("SITESIFT_SCREENSHOT_DIR", "sitesift-screenshots")),
            browser_pages=settings.getint("SITESIFT_SCREENSHOT_BROWSER_PAGES", 200),
            cache_mb=settings.getint("SITESIFT_SCREENSHOT_CACHE_MB", 64),
            capture=capture,
            max_size=settings.getint("DOWNLOAD_MAXSIZE", 0),
            download_timeout=settings.getfloat("DOWNLOAD_TIMEOUT", 30.0),
            navigation_timeout=settings.getfloat("PLAYWRIGHT_DEFAULT_NAVIGATION_TIMEOUT", 30_000)
            / 1000,
        )


def browser_in_use(settings: BaseSettings) -> bool:
    """Whether pages can go through the browser: scrapy-playwright (or
    sitesift's bounded version of it) is the http download handler; it
    passes other requests to Scrapy's own."""
    from scrapy.utils.misc import load_object
    from scrapy_playwright.handler import ScrapyPlaywrightDownloadHandler

    handler = (settings.getdict("DOWNLOAD_HANDLERS") or {}).get("http")
    try:
        cls = load_object(handler) if isinstance(handler, str) else handler
    except (ImportError, NameError, ValueError):
        return False
    return isinstance(cls, type) and issubclass(cls, ScrapyPlaywrightDownloadHandler)


class ScreenshotPolicy:
    """Decides per request URL; a slot freed by a failed capture is reused."""

    def __init__(
        self, mode: str = "group", per_group: int = 3, shared: SharedState | None = None
    ) -> None:
        self.mode = mode
        self.per_group = per_group
        self._taken: dict[str, int] = {}
        self.shared = shared  # a distributed crawl counts per group in Redis

    def _count(self, key: str, by: int) -> int:
        if self.shared is not None:
            return self.shared.incr("screenshots", key, by)
        self._taken[key] = self._taken.get(key, 0) + by
        return self._taken[key]

    def take(self, url: str, mode: str | None = None) -> bool:
        """Whether ``url`` is photographed (and, if so, count it)."""
        mode = mode or self.mode
        if mode == "none" or _looks_like_file(url):
            return False
        if mode == "all":
            return True
        key = url_pattern(url)
        if self._count(key, 1) > self.per_group:
            self._count(key, -1)
            return False
        return True

    def release(self, url: str) -> None:
        self._count(url_pattern(url), -1)


def _looks_like_file(url: str) -> bool:
    path = urlsplit(url).path.lower()
    dot = path.rfind(".")
    return dot > path.rfind("/") and path[dot:] in _SKIP_EXTENSIONS


_CACHEABLE = frozenset({"stylesheet", "script", "image", "font"})


@dataclass(frozen=True)
class _Cached:
    status: int
    headers: dict[str, str]
    body: bytes


class SubresourceCache:
    """Stylesheets, scripts, images and fonts shared by the browser's pages.

    Each screenshot opens a fresh page; without this, every page of a
    template would fetch the template's CSS, scripts and images again
    (servers rarely send caching headers that a new page would honour). A
    resource is fetched once per crawl while it stays in the cache (LRU,
    bounded in bytes); a request for a resource already being fetched waits
    for that fetch. ``Cache-Control: no-store`` responses are not kept.
    """

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._items: OrderedDict[str, _Cached] = OrderedDict()
        self._size = 0
        self._pending: dict[str, asyncio.Future[None]] = {}
        self.hits = 0

    def get(self, url: str) -> _Cached | None:
        item = self._items.get(url)
        if item is not None:
            self._items.move_to_end(url)
        return item

    def put(self, url: str, item: _Cached) -> None:
        if url in self._items or len(item.body) > self.max_bytes // 4:
            return
        self._items[url] = item
        self._size += len(item.body)
        while self._size > self.max_bytes:
            _, old = self._items.popitem(last=False)
            self._size -= len(old.body)

    async def attach(self, page: Any, request: Request) -> None:
        """``playwright_page_init_callback``: serve and fill the cache for one page."""
        mine: dict[str, asyncio.Future[None]] = {}  # the fetches this page started

        def forget(*_: Any) -> None:  # a crashed or closed page fires no more events
            for url, future in mine.items():
                if self._pending.get(url) is future:
                    self._settle(url)

        await page.route("**/*", lambda route: self._route(route, mine))
        page.on("response", self._remember)
        page.on("requestfailed", lambda req: self._settle(req.url))
        page.on("crash", forget)
        page.on("close", forget)

    async def _route(self, route: Any, mine: dict[str, asyncio.Future[None]]) -> None:
        req = route.request
        if req.method != "GET" or req.resource_type not in _CACHEABLE:
            await route.fallback()
            return
        pending = self._pending.get(req.url)
        if pending is not None and self.get(req.url) is None:
            try:
                await asyncio.wait_for(asyncio.shield(pending), 10)
            except TimeoutError:  # that fetch never ended: fetch it again
                self._settle(req.url)
        hit = self.get(req.url)
        if hit is not None:
            self.hits += 1
            await route.fulfill(status=hit.status, headers=hit.headers, body=hit.body)
            return
        if req.url not in self._pending:
            self._pending[req.url] = mine[req.url] = asyncio.get_running_loop().create_future()
        await route.fallback()

    async def _remember(self, response: Any) -> None:
        req = response.request
        if req.url not in self._pending:
            return
        try:
            no_store = "no-store" in (response.headers.get("cache-control") or "")
            if response.status == 200 and not no_store:
                body = await response.body()
                self.put(req.url, _Cached(response.status, dict(response.headers), body))
        except Exception:  # a page closed mid-read: just not cached
            pass
        finally:
            self._settle(req.url)

    def _settle(self, url: str) -> None:
        future = self._pending.pop(url, None)
        if future is not None and not future.done():
            future.set_result(None)

    def settle_all(self) -> None:
        """The browser is gone: its fetches will never end (nor fire events)."""
        for url in list(self._pending):
            self._settle(url)


class ScreenshotMiddleware:
    """Downloader middleware: route chosen page requests through Playwright."""

    def __init__(self, config: ScreenshotConfig, crawler: Crawler | None = None) -> None:
        self.config = config
        self.crawler = crawler
        shared = shared_state(crawler.settings) if crawler is not None else None
        self.policy = ScreenshotPolicy(config.mode, config.per_group, shared)
        self.store = ScreenshotStore(config.directory)
        self._owner_recorded = False
        self._browser: Any = None
        self._pages_in_browser = 0
        self._in_flight = 0
        self._open: set[str] = set()  # URLs of the browser requests under way
        self._recycled: Any = None  # the browser _finished closed last
        self._recycling: asyncio.Event | None = None
        self.cache = SubresourceCache(config.cache_mb * 1024 * 1024)
        # URL patterns a page of which came back empty but for its scripts:
        # their next pages go straight to the browser (one fetch, not two).
        self._scripted: set[str] = set()
        # SITESIFT_DENY_PRIVATE holds for the browser's own requests too.
        self.guard = DestinationGuard.from_settings(crawler.settings) if crawler else None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ScreenshotMiddleware:
        try:
            config = ScreenshotConfig.from_settings(crawler.settings)
        except ValueError as exc:
            raise NotConfigured(str(exc)) from exc
        if not browser_in_use(crawler.settings):
            raise NotConfigured("screenshots need scrapy-playwright as the http download handler")
        logger.info(
            "screenshots: %s%s, stored under %s, browser recycled every %d pages",
            config.mode,
            f" ({config.per_group} per URL group)" if config.mode == "group" else "",
            config.directory,
            config.browser_pages,
        )
        return cls(config, crawler)

    def _inc(self, key: str, count: int = 1) -> None:
        if self.crawler is not None and self.crawler.stats is not None:
            self.crawler.stats.inc_value(f"sitesift/screenshots/{key}", count)

    def _mode_for(self, request: Request) -> str | None:
        """The site's own ``screenshots=`` option, if the site list set one."""
        spider = self.crawler.spider if self.crawler is not None else None
        by_host = getattr(spider, "by_host", None)
        spec = by_host.get(request.meta.get("sitesift_site")) if isinstance(by_host, dict) else None
        return getattr(getattr(spec, "options", None), "screenshots", None)

    def _is_page_request(self, request: Request) -> bool:
        spider = self.crawler.spider if self.crawler is not None else None
        parse = getattr(spider, "parse", None)
        return parse is not None and request.callback == parse

    async def process_request(self, request: Request) -> None:
        if request.meta.get(FALLBACK) or request.meta.get("playwright"):
            return None
        if not self._is_page_request(request):
            return None
        render = self._render_wanted(request)
        photograph = self.policy.take(request.url, self._mode_for(request))
        if not (photograph or render):
            return None
        while self._recycling is not None:  # let the old browser drain first
            await self._recycling.wait()
        self._in_flight += 1
        self._open.add(request.url)
        params = self.config.capture
        request.meta.update(
            {
                WANTED: True,
                PHOTOGRAPH: photograph,
                "playwright": True,
                "playwright_context": CONTEXT,
                "playwright_context_kwargs": {
                    "viewport": {"width": params.viewport_width, "height": params.viewport_height},
                },
                "playwright_page_methods": [_page_method(self._capture)],
                "playwright_page_init_callback": self._init_page,
                "playwright_page_goto_kwargs": {"timeout": 1000 * self._page_timeout(request)},
            }
        )
        return None

    def _page_timeout(self, request: Request) -> float:
        """Seconds the browser waits for the page to load: the navigation
        timeout, or the request's download timeout when that is shorter. A
        page Scrapy's client would give up on is not stored from the
        browser; it falls back to that client, which records the timeout."""
        download = request.meta.get("download_timeout", self.config.download_timeout)
        return min(self.config.navigation_timeout, float(download))

    def _render_wanted(self, request: Request) -> bool:
        """Whether the page is rendered for its text: the spider found it
        empty but for its scripts, or another page of its URL pattern was."""
        if request.meta.get(RENDER):
            if len(self._scripted) < _MAX_SCRIPTED_PATTERNS:
                self._scripted.add(url_pattern(request.url))
            return True
        if self._scripted and url_pattern(request.url) in self._scripted:
            request.meta[RENDER] = True
            self._inc("rendered_by_pattern")
            return True
        return False

    async def _init_page(self, page: Any, request: Request) -> None:
        self._watch(page.context.browser)
        await self.cache.attach(page, request)
        if self.guard is not None:  # routed last, so asked first
            await page.route("**/*", lambda route: self._check_route(route, request))

        async def keep_raw(response: Any) -> None:
            req = response.request
            if req.resource_type == "document" and req.frame == page.main_frame:
                with contextlib.suppress(Exception):  # redirects have no body
                    request.meta[RAW] = await response.body()

        page.on("response", keep_raw)

    async def _check_route(self, route: Any, page_request: Request) -> None:
        """With SITESIFT_DENY_PRIVATE, the browser goes only where a crawl
        request may: no request (the page, an image, a style sheet, a frame)
        to a forbidden address, and the page's redirects kept in its site's
        scope. Playwright does not route a redirect's next hop, so a
        navigation is fetched here without following redirects and handed to
        the browser, which follows a redirect with a new request that comes
        back here. A refused page fails in the browser and is fetched by
        Scrapy's client, which records why. Only with the guard: Chromium
        treats a page handed over so as public, and refuses its requests to
        private addresses (an intranet page's images on another host). A
        resource's redirect is not routed; that private-network rule refuses
        it (docs/reliability.md)."""
        try:
            await self._answer(route, page_request)
        except Exception as exc:  # the page closed meanwhile (a crash): must not stall
            logger.debug("browser request for %s left unanswered: %s", route.request.url, exc)

    async def _answer(self, route: Any, page_request: Request) -> None:
        request = route.request
        why = await self._refusal(request.url)
        if why is None and request.is_navigation_request():
            timeout = self.config.capture.timeout_ms / 1000
            try:
                response = await asyncio.wait_for(route.fetch(max_redirects=0), timeout)
            except Exception:  # a network error, or no answer in time: the browser's too
                await route.abort("failed")
                return
            location = response.headers.get("location")
            if 300 <= response.status < 400 and location:
                target = urljoin(request.url, location)
                why = await self._refusal(target)
                main_page = request.frame.parent_frame is None
                if why is None and main_page and not self._follows(page_request, target):
                    why = f"redirected out of the site's scope to {target}"
            if why is None:
                await route.fulfill(response=response)
                return
        if why is None:
            await route.fallback()
            return
        self._inc("refused_requests")
        logger.info("browser request for %s refused: %s", request.url, why)
        await route.abort("blockedbyclient")

    async def _refusal(self, url: str) -> str | None:
        host = urlsplit(url).hostname
        return await self.guard.refusal(host) if host and self.guard is not None else None

    def _follows(self, request: Request, url: str) -> bool:
        spider = self.crawler.spider if self.crawler is not None else None
        follows = getattr(spider, "follows_redirect", None)
        return follows is None or follows(request, url)

    async def _capture(self, page: Any) -> Capture:
        return await capture_page(page, self.config.capture)

    def _watch(self, browser: Any) -> None:
        """Hear of a browser's end, whoever ended it."""
        if browser is None or browser is self._browser:
            return
        self._browser, self._pages_in_browser = browser, 0
        browser.on("disconnected", self._browser_gone)

    def _browser_gone(self, browser: Any) -> None:
        """A browser disconnected: recycled by us, closed at the end of the
        crawl, or crashed / killed. The handler launches a new one for the
        next browser request either way."""
        self.cache.settle_all()
        if browser is self._browser:
            self._browser = None
        if browser is self._recycled or not self._open:
            logger.debug("the browser disconnected with no page open")
            return
        self._inc("browser_lost")
        logger.warning(
            "Chromium went away (crashed or killed) with %d page(s) under way: %s; "
            "they are retried, and the next page launches a new browser",
            len(self._open),
            ", ".join(sorted(self._open)[:5]),
        )

    async def process_response(self, request: Request, response: Response) -> Response:
        if not request.meta.get(WANTED):
            return response
        methods = request.meta.get("playwright_page_methods") or []
        capture = getattr(methods[0], "result", None) if methods else None
        raw = request.meta.pop(RAW, None)
        if over := self._over_limits(response, raw):
            # Chromium keeps no size or header limit: fetch the page with
            # Scrapy's client, which refuses it and records why.
            self._inc("over_limits")
            logger.info("%s from the browser is %s: fetched again without it", request.url, over)
            await self._finished(request, photographed=False)
            return self._plain_fetch(request, f"screenshot not taken: {over}")
        if isinstance(capture, Capture) and raw:
            response = self._trust_our_decoding(request, response, raw, capture.charset)
        if not request.meta.get(PHOTOGRAPH, True):
            self._inc("rendered_only")  # rendered for its text; no picture wanted
        elif isinstance(capture, Capture):
            try:
                stored = await asyncio.to_thread(self._save, capture)
            except (OSError, ValueError) as exc:
                self._inc("failed/store")
                logger.warning("screenshot of %s not stored: %s", request.url, exc)
            else:
                request.meta[RESULT] = stored.as_dict()
                self._inc("taken")
        else:
            self._inc("failed/no_capture")
        await self._finished(request)
        return response

    def _save(self, capture: Capture) -> StoredScreenshot:
        """Store a capture; the first time, record the crawl's database as
        storing in the folder (a sweep for another database sharing it must
        not take ours: ``sitesift prune-screenshots``)."""
        if not self._owner_recorded and self.crawler is not None:
            self.store.add_owner(database_key(self.crawler.settings.get("SITESIFT_DB")))
            self._owner_recorded = True
        return self.store.save(capture, self.config.capture)

    def _over_limits(self, response: Response, raw: bytes | None) -> str | None:
        """What the page the browser fetched breaks of the limits Scrapy's
        client keeps (``DOWNLOAD_MAXSIZE``, its header line length), or None."""
        size = max(len(raw or b""), len(response.body))
        limit = self.config.max_size
        if limit and size > limit:
            return f"{size} bytes, over DOWNLOAD_MAXSIZE ({limit})"
        longest = max(
            (len(k) + 2 + len(v) for k, values in response.headers.items() for v in values),
            default=0,
        )
        if longest > HEADER_LINE_LIMIT:
            return f"a header line of {longest} bytes, over {HEADER_LINE_LIMIT}"
        return None

    def _plain_fetch(self, request: Request, why: str) -> Request:
        """The request again for Scrapy's own client: the page or its failure
        is recorded as without the browser; ``why`` is the stored page's
        reason when that fetch succeeds."""
        self._inc("fallback_http")
        browser_keys = (WANTED, PHOTOGRAPH)
        meta = {k: v for k, v in request.meta.items()
                if not k.startswith("playwright") and k not in browser_keys}  # fmt: skip
        meta[FALLBACK] = True
        meta[SHOT_FAILED] = why[:300]
        return request.replace(meta=meta, dont_filter=True)

    def _trust_our_decoding(
        self, request: Request, response: Response, raw: bytes, charset: str
    ) -> Response:
        """When Chromium read the server's bytes otherwise than sitesift does
        (a wrong charset header), store those bytes, not its mojibake DOM.
        Otherwise note the charset the browser read the page in for its row
        (the stored DOM is UTF-8): Chromium hands a page's body back decoded,
        so ``raw`` may be that text in UTF-8, not the server's GBK bytes."""
        served = normalize_encoding(charset)
        if served not in (None, "utf-8", "cp1252") and _handed_back(raw, response.text):
            # its own reading of a GBK or Big5 page, handed back in UTF-8
            request.meta[SOURCE_ENCODING] = served
            return response
        ctype = (response.headers.get(b"Content-Type") or b"").decode("latin-1")
        ours = browser_misread(raw, ctype, charset)
        if ours is None:
            if served and served != "cp1252":  # Chromium's guess for an undeclared page
                request.meta[SOURCE_ENCODING] = served
            return response
        self._inc("raw_html_kept")
        logger.debug("%s: browser decoded %s, bytes are %s", response.url, charset, ours)
        return response.replace(body=raw, encoding=ours)

    async def process_exception(self, request: Request, exception: BaseException) -> Request | None:
        if not request.meta.get(WANTED) or isinstance(exception, IgnoreRequest):
            return None  # a refusal (robots, a forbidden address) holds for any client
        self._inc(f"failed/{type(exception).__name__}")
        await self._finished(request, photographed=False)
        # Whatever went wrong in the browser (it could not reach the page, died
        # on it, timed out on its capture, or a page wanted for its text would
        # not render), the page is fetched with Scrapy's own client: stored
        # from that fetch, or failed with the reason that client gives.
        first_line = str(exception).strip().splitlines()[0] if str(exception) else ""
        why = f"{type(exception).__name__}: {first_line}"
        if _browser_died(exception):
            why = f"screenshot failed (browser crashed): {why}"
        elif request.meta.get(RENDER):
            self._scripted.discard(url_pattern(request.url))  # no use sending more
            why = f"not rendered (its scripts failed in the browser): {why}"
        else:
            why = f"screenshot failed: {why}"
        return self._plain_fetch(request, why)

    async def _finished(self, request: Request, photographed: bool = True) -> None:
        """Count a browser page; every ``browser_pages`` pages, hold new
        browser requests back, and when the open ones are done close the
        browser: the handler launches a fresh one for the next request. A
        page the policy counted but that got no picture frees its slot."""
        if not photographed and request.meta.get(PHOTOGRAPH, True):
            self.policy.release(request.url)
        self._in_flight -= 1
        self._open.discard(request.url)
        self._pages_in_browser += 1
        if self._pages_in_browser >= self.config.browser_pages and self._recycling is None:
            self._recycling = asyncio.Event()
        if self._recycling is None or self._in_flight > 0:
            return
        browser, self._browser, self._pages_in_browser = self._browser, None, 0
        self._recycled = browser
        if browser is not None:
            logger.info("recycling the browser after %d pages", self.config.browser_pages)
            self._inc("browser_recycled")
            with contextlib.suppress(Exception):
                await browser.close()
        gate, self._recycling = self._recycling, None
        gate.set()


_NON_ASCII_RUN = re.compile(r"[^\x00-\x7f]{2,}")


def _handed_back(raw: bytes, dom: str) -> bool:
    """Whether ``raw`` is the browser's own reading of the page in UTF-8
    (what Chromium gives for a body it decoded), not the server's bytes:
    it reads as UTF-8 and its non-ASCII text is the DOM's. UTF-8 bytes the
    browser misread as GBK read as UTF-8 too, but the DOM holds mojibake."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    runs = _NON_ASCII_RUN.findall(text)[:50]
    return bool(runs) and sum(run in dom for run in runs) >= 0.8 * len(runs)


def _browser_died(exception: BaseException) -> bool:
    """The browser or the page's renderer died under a request (killed,
    crashed, out of memory): Playwright's TargetClosedError ("Target page,
    context or browser has been closed", "Page crashed")."""
    text = str(exception)
    return type(exception).__name__ == "TargetClosedError" or any(
        marker in text for marker in ("Target crashed", "Page crashed", "has been closed")
    )


def _page_method(func: Any) -> Any:
    from scrapy_playwright.page import PageMethod

    return PageMethod(func)


class ScreenshotItems:
    """Spider middleware: copy a response's stored screenshot onto its page item."""

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ScreenshotItems:
        return cls()

    @staticmethod
    def _attach(response: Response, item: Any) -> Any:
        if not isinstance(item, PageItem):
            return item
        shot = response.meta.get(RESULT)
        if shot and item.screenshot is None:
            item.screenshot = dict(shot)
        failed = response.meta.get(SHOT_FAILED)
        if failed and item.outcome == Outcome.OK and item.reason is None:
            item.reason = failed  # stored from a plain fetch; say why without a picture
        return item

    def process_spider_output(self, response: Response, result: Iterable[Any]) -> Iterator[Any]:
        for item in result:
            yield self._attach(response, item)

    async def process_spider_output_async(
        self, response: Response, result: AsyncIterator[Any]
    ) -> AsyncIterator[Any]:
        async for item in result:
            yield self._attach(response, item)


def abort_request(request: Any) -> bool:
    """PLAYWRIGHT_ABORT_REQUEST: what a screenshot never needs (audio, video,
    websockets, beacons). Images, styles and fonts stay: they are the layout."""
    return request.resource_type in ("media", "websocket", "eventsource", "ping")
