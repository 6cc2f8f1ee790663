"""One page rendered by the crawl's browser, for `sitesift extract --render`.

Some pages ship an empty body that their scripts fill (forum and shop
front ends); a plain fetch sees nothing to extract. This loads the page in
the Chromium the crawl uses for screenshots (the launch options of
``crawler.settings``), waits for it to load and settle, and returns the
HTML the scripts left, within one deadline. When Chromium read the bytes
in another charset than sitesift does (a wrong header on a GBK page), the
server's bytes are returned instead, as the crawl stores them.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass

# Once loaded, how long the page may go on fetching (scripts filling it)
# before its HTML is taken as it stands.
SETTLE_SECONDS = 5.0


class RenderError(Exception):
    """The page could not be rendered; the message says why, in one line."""


@dataclass(frozen=True)
class Rendered:
    url: str  # after redirects
    status: int | None
    html: str | bytes  # the DOM; the server's bytes when the browser misread them
    content_type: str | None = None  # the server's, for those bytes


def render(url: str, deadline: float) -> Rendered:
    """The page at ``url`` after its scripts ran, within ``deadline`` seconds."""
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import sync_playwright

    from crawler.settings import PLAYWRIGHT_LAUNCH_OPTIONS, USER_AGENT
    from extractors.encoding import browser_misread

    end = time.monotonic() + deadline

    def left_ms() -> float:
        return max(1.0, (end - time.monotonic()) * 1000)

    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(**PLAYWRIGHT_LAUNCH_OPTIONS, timeout=left_ms())
            try:
                page = browser.new_page(user_agent=USER_AGENT)
                response = page.goto(url, wait_until="load", timeout=left_ms())
                # still fetching after that (a poll, a stream): taken as it is
                with contextlib.suppress(PlaywrightTimeout):
                    settle = min(SETTLE_SECONDS * 1000, left_ms())
                    page.wait_for_load_state("networkidle", timeout=settle)
                status = response.status if response else None
                html, charset = page.content(), page.evaluate("document.characterSet")
                raw = response.body() if response else b""
                ctype = response.headers.get("content-type") if response else None
                if raw and browser_misread(raw, ctype, charset):
                    return Rendered(page.url, status, raw, ctype)  # as the crawl does
                return Rendered(page.url, status, html)
            finally:
                browser.close()
    except PlaywrightTimeout:
        raise RenderError(f"no rendered page within {deadline:g} s") from None
    except PlaywrightError as exc:
        first = str(exc).strip().split("\n", 1)[0]
        raise RenderError(first or type(exc).__name__) from None
