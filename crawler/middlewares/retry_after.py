"""Retries that honour ``Retry-After``.

Scrapy retries 429/503 at once, ignoring the server's ``Retry-After``. Here a
retry waits what the server asked, and when it asks for more than
``SITESIFT_RETRY_AFTER_MAX`` seconds the page is not retried at all: it is
recorded as the HTTP error it is, with the wait the server asked for in its
reason (``request.meta["sitesift_retry_after"]``), to be fetched by a later run.
A response whose headers are too long for the HTTP client is not retried
either: the server would send the same headers again. Nor is a failed TLS
handshake (an https URL on a plain-HTTP port, no shared protocol or cipher):
the server would answer the same, unless it hung up mid-handshake ("eof").
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from scrapy.downloadermiddlewares.retry import RetryMiddleware
from scrapy.http import Request, Response
from scrapy.settings import BaseSettings

from crawler.failures import headers_too_long, tls_error

logger = logging.getLogger(__name__)

RETRY_AFTER_META = "sitesift_retry_after"


def retry_after_seconds(value: bytes | str | None, now: datetime | None = None) -> float | None:
    """Seconds a ``Retry-After`` header asks for (delta-seconds or an HTTP
    date), never negative; None when absent or unreadable."""
    if value is None:
        return None
    text = (value.decode("latin-1") if isinstance(value, bytes) else value).strip()
    if text.isdigit():
        return float(text)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


class RetryAfterMiddleware(RetryMiddleware):
    """Scrapy's RetryMiddleware, waiting ``Retry-After`` before a retry."""

    def __init__(self, settings: BaseSettings) -> None:
        super().__init__(settings)
        self.max_wait = settings.getfloat("SITESIFT_RETRY_AFTER_MAX", 60.0)

    async def process_response(self, request: Request, response: Response) -> Request | Response:
        wait = retry_after_seconds(response.headers.get(b"Retry-After"))
        if wait is None or response.status not in self.retry_http_codes:
            return super().process_response(request, response)
        if wait > self.max_wait:
            request.meta[RETRY_AFTER_META] = wait
            logger.info("%s asks to come back in %.0f s (over SITESIFT_RETRY_AFTER_MAX=%.0f): "
                        "not retried", request.url, wait, self.max_wait)  # fmt: skip
            return response
        result = super().process_response(request, response)
        if isinstance(result, Request) and wait > 0:
            await asyncio.sleep(wait)
        return result

    def process_exception(self, request: Request, exception: Exception) -> Request | None:
        if headers_too_long(exception):
            return None
        if (tls := tls_error(exception)) and "eof" not in tls.lower():
            return None
        return super().process_exception(request, exception)
