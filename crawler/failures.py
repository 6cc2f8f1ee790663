"""A failed fetch in words: the outcome to record and a reason a person reads.

Scrapy's failures name exception classes (``DownloadCancelledError:`` with no
message for a body that outgrew ``DOWNLOAD_MAXSIZE``); the pages table should
say what happened and which setting bounds it, and keep the original message
for the details.

One failure Twisted's HTTP client hides: a response header line longer than
its limit (``LineReceiver.MAX_LENGTH``, 16 KiB) makes it hang up without a
word, which reads like a server dropping the connection and is retried for
nothing. Importing this module (the spider and the retry middleware do) makes
the client fail such a response with :class:`ResponseHeadersTooLong` instead.
"""

from __future__ import annotations

import gzip
import re
import zlib

from scrapy.exceptions import (
    CannotResolveHostError,
    DownloadCancelledError,
    DownloadConnectionRefusedError,
    DownloadFailedError,
    DownloadTimeoutError,
    IgnoreRequest,
    ResponseDataLossError,
)
from scrapy.settings import BaseSettings
from scrapy.utils.httpobj import urlparse_cached
from twisted.python.failure import Failure
from twisted.web._newclient import HTTPClientParser
from twisted.web.client import ResponseFailed, ResponseNeverReceived

from crawler.items import Outcome
from crawler.middlewares.destinations import ForbiddenDestination
from crawler.middlewares.redirects import (
    OffsiteRedirect,
    RedirectLoop,
    RedirectToKnown,
    TooManyRedirects,
)
from crawler.resolver import refusal

MAX_REASON = 500
# The longest status or header line Twisted's HTTP client accepts.
HEADER_LINE_LIMIT: int = HTTPClientParser.MAX_LENGTH


class ResponseHeadersTooLong(Exception):
    """A response's status or header line is longer than the HTTP client accepts."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"a header line over {limit} bytes")
        self.limit = limit


def _refuse_long_line(parser: HTTPClientParser, line: bytes) -> None:
    """Raise where Twisted would silently hang up: its HTTP11ClientProtocol then
    fails the response with this exception as the ResponseFailed reason."""
    raise ResponseHeadersTooLong(parser.MAX_LENGTH)


HTTPClientParser.lineLengthExceeded = _refuse_long_line  # type: ignore[method-assign]


def _reasons(exc: BaseException) -> list[BaseException]:
    """What Twisted's HTTP client gave as the causes of a failed download
    (Scrapy's ``DownloadFailedError`` wraps its ``ResponseFailed`` or
    ``ResponseNeverReceived``, which list them)."""
    cause = exc if isinstance(exc, ResponseFailed | ResponseNeverReceived) else exc.__cause__
    return [reason.value for reason in getattr(cause, "reasons", None) or []]


def headers_too_long(exc: BaseException) -> ResponseHeadersTooLong | None:
    """The oversized header behind a failed download, or None."""
    return next((r for r in _reasons(exc) if isinstance(r, ResponseHeadersTooLong)), None)


def tls_error(exc: BaseException) -> str | None:
    """The TLS handshake's error behind a failed download (an https URL on
    a server that speaks plain HTTP: "wrong version number"), or None."""
    from OpenSSL.SSL import Error as TLSError

    for error in _reasons(exc):
        if isinstance(error, TLSError):
            # OpenSSL's queue: [(library, function, reason), ...]
            queue = error.args[0] if error.args and isinstance(error.args[0], list) else []
            details = [str(e[-1]) for e in queue if isinstance(e, tuple) and e and e[-1]]
            return "; ".join(details) or str(error) or type(error).__name__
    return None


# Scrapy's size messages: "Expected to receive N bytes ...", "Received N bytes ...".
_BYTES_SEEN = re.compile(r"[Rr]eceived? (\d+) bytes")


def describe_failure(failure: Failure, settings: BaseSettings) -> tuple[Outcome, str]:
    """(outcome, reason) for a request whose errback got ``failure``."""
    exc, message = failure.value, failure.getErrorMessage().strip()
    outcome, reason = Outcome.FAILED, f"{type(exc).__name__}: {message}"
    if isinstance(exc, ForbiddenDestination):
        outcome, reason = Outcome.SKIPPED, message
    elif isinstance(exc, OffsiteRedirect):
        outcome, reason = Outcome.OFFSITE, message
    elif isinstance(exc, RedirectToKnown):
        outcome, reason = Outcome.SKIPPED, message
    elif isinstance(exc, RedirectLoop | TooManyRedirects):
        reason = message
    elif isinstance(exc, IgnoreRequest) and "robots.txt" in message:
        outcome, reason = Outcome.ROBOTS, "disallowed by robots.txt"
    elif isinstance(exc, IgnoreRequest) and "DOWNLOAD_MAXSIZE" in message:
        reason = (f"body over DOWNLOAD_MAXSIZE ({settings.getint('DOWNLOAD_MAXSIZE')} bytes) "
                  "once decompressed (a compression bomb)")  # fmt: skip
    elif isinstance(exc, DownloadCancelledError) and (not message or "max size" in message):
        limit = settings.getint("DOWNLOAD_MAXSIZE")
        reason = f"response over the max size (DOWNLOAD_MAXSIZE = {limit} bytes): cancelled"
        if size := _BYTES_SEEN.search(message):  # announced, or received so far
            reason += f" at {size.group(1)} bytes"
    elif isinstance(exc, gzip.BadGzipFile | zlib.error):
        reason = f"a body sent compressed (Content-Encoding) that does not decompress: {message}"
    elif isinstance(exc, DownloadTimeoutError):
        reason = f"timeout: no complete response in {settings.getfloat('DOWNLOAD_TIMEOUT'):g} s"
    elif isinstance(exc, DownloadConnectionRefusedError):
        reason = f"connection refused: {message}"
    elif isinstance(exc, CannotResolveHostError):
        request = getattr(failure, "request", None)
        refused = refusal(urlparse_cached(request).hostname or "") if request else None
        if refused:  # SITESIFT_DENY_PRIVATE, at connection time (crawler/resolver.py)
            outcome, reason = Outcome.SKIPPED, refused
        elif message.startswith("DNS lookup failed"):
            reason = message
        else:
            reason = f"DNS lookup failed: {message}"
    elif too_long := headers_too_long(exc):
        reason = f"response headers too long ({too_long}): the server sent an oversized header"
    elif tls := tls_error(exc):
        reason = f"TLS handshake failed ({tls}): does the site serve https at this address?"
    elif isinstance(exc, ResponseDataLossError | DownloadFailedError):
        reason = f"connection dropped before the response was complete ({type(exc).__name__})"
    return outcome, reason[:MAX_REASON]
