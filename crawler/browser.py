"""scrapy-playwright's download handler with a deadline on each browser page.

Chromium can leave a page's close hanging for ever: a page that refreshes
itself every 0 s (``<meta http-equiv="refresh" content="0">`` to itself) is
always between two navigations, and ``page.close()`` sent at the wrong moment
never returns (seen with Playwright 1.65 and Debian's Chromium, with or
without routes). scrapy-playwright closes the page after a failed capture, so
the download never ended and the crawl waited for it until it was killed.

Here every browser download ends within the navigation timeout plus the
capture timeout plus :data:`CLOSE_MARGIN`: past that the download fails with
:class:`BrowserDeadline`, the screenshot middleware fetches the page with
Scrapy's own client (which records the loop, or stores the page), and the
page left open goes with the browser when it is recycled. Requests that do
not go through the browser are scrapy-playwright's: Scrapy's own client.
"""

from __future__ import annotations

import asyncio
from typing import Any

from scrapy import Request
from scrapy.http import Response
from scrapy_playwright.handler import ScrapyPlaywrightDownloadHandler

from crawler.middlewares.screenshot import ScreenshotConfig

CLOSE_MARGIN = 15.0  # seconds past both timeouts for retries and the page's close


class BrowserDeadline(Exception):
    """A browser page did not finish within its deadline."""


class BoundedPlaywrightHandler(ScrapyPlaywrightDownloadHandler):
    """``DOWNLOAD_HANDLERS`` for http and https: scrapy-playwright, bounded."""

    def __init__(self, crawler: Any) -> None:
        super().__init__(crawler)
        config = ScreenshotConfig.from_settings(crawler.settings)  # the timeouts it reads
        self.deadline = config.navigation_timeout + config.capture.timeout_ms / 1000 + CLOSE_MARGIN

    async def download_request(self, request: Request, *args: Any) -> Response:
        if not request.meta.get("playwright"):
            return await super().download_request(request, *args)
        try:
            return await asyncio.wait_for(super().download_request(request, *args), self.deadline)
        except TimeoutError:
            raise BrowserDeadline(
                f"the browser did not finish the page in {self.deadline:g} s"
            ) from None
