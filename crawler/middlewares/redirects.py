"""Redirects that end: loops are caught at once, and every hop is followed.

Scrapy's redirect middlewares hand each hop to the scheduler, whose duplicate
filter silently drops a hop to a URL already seen: a loop (A -> B -> A), or
an old URL redirecting to a page fetched before, then leaves the requested URL
with no record at all. Here a hop back into its own chain fails the request
as a redirect loop, the other hops skip the duplicate filter (the chain is
bounded by ``REDIRECT_MAX_TIMES``), and running out of hops says so plainly.
A hop the spider would not follow (``spider.follows_redirect``: a page's
redirect out of its site's scope) fails the request as an offsite redirect
before the target, dead or alive, is ever contacted; a hop to a page the
crawl has already (``spider.claims_redirect_target``: linked directly, or
another redirect's target) is recorded as such, not fetched a second time.
Both the HTTP 3xx and the ``<meta http-equiv=refresh>`` middlewares get this.
"""

from __future__ import annotations

from scrapy.crawler import Crawler
from scrapy.downloadermiddlewares.redirect import MetaRefreshMiddleware, RedirectMiddleware
from scrapy.exceptions import IgnoreRequest
from scrapy.http import Request, Response

from crawler.urls import canonicalize_url


class RedirectLoop(IgnoreRequest):
    """A redirect back to a URL of its own chain."""


class TooManyRedirects(IgnoreRequest):
    """A chain longer than ``REDIRECT_MAX_TIMES``."""


class OffsiteRedirect(IgnoreRequest):
    """A redirect out of the site's scope: recorded, not followed."""


class RedirectToKnown(IgnoreRequest):
    """A redirect to a page the crawl fetches anyway: recorded, not followed."""


def _key(url: str) -> str:
    return canonicalize_url(url) or url


class _ChainGuard:
    crawler: Crawler
    max_redirect_times: int

    def process_response(self, request: Request, response: Response) -> Request | Response:
        try:
            result = super().process_response(request, response)  # type: ignore[misc]
        except IgnoreRequest as exc:
            if "max redirections" in str(exc):
                chain = [*request.meta.get("redirect_urls", []), request.url]
                raise TooManyRedirects(
                    f"too many redirects: more than {self.max_redirect_times} "
                    f"(REDIRECT_MAX_TIMES) from {chain[0]}"
                ) from exc
            raise
        if isinstance(result, Request) and result is not request:
            chain = result.meta.get("redirect_urls", [])
            if _key(result.url) in {_key(url) for url in chain}:
                raise RedirectLoop("redirect loop: " + " -> ".join([*chain, result.url]))
            follows = getattr(self.crawler.spider, "follows_redirect", None)
            if follows is not None and not follows(request, result.url):
                raise OffsiteRedirect(f"redirected out of scope to {result.url}")
            claims = getattr(self.crawler.spider, "claims_redirect_target", None)
            if claims is not None and not claims(request, result.url):
                raise RedirectToKnown(f"redirects to {result.url}, a page fetched on its own")
            result.dont_filter = True
        return result


class LoopSafeRedirectMiddleware(_ChainGuard, RedirectMiddleware):
    """Scrapy's 3xx redirects, with loops caught and no hop lost."""


class LoopSafeMetaRefreshMiddleware(_ChainGuard, MetaRefreshMiddleware):
    """Scrapy's meta-refresh redirects, with loops caught and no hop lost."""
