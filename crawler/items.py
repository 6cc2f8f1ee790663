"""What the spider hands to the item pipelines: one item per fetch outcome."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

# Sent by the store pipeline with ``urls=[...]`` (requested URLs) once their
# pages are committed or spooled: the distributed scheduler stops tracking them.
pages_stored = object()


class Outcome(StrEnum):
    """How a fetch ended. Only ``OK`` pages go through extraction."""

    OK = "ok"
    HTTP_ERROR = "http_error"  # 4xx/5xx after retries
    FAILED = "failed"  # DNS, refused, timeout, too large...
    SKIPPED = "skipped"  # not HTML (PDF, image, binary)
    ROBOTS = "robots"  # disallowed by robots.txt
    BLOCKED = "blocked"  # a captcha / access-denied page served as 200
    OFFSITE = "offsite"  # redirected out of the site's scope


@dataclass
class PageItem:
    """A fetched (or failed) page. ``document`` is the parsed tree shared with
    later stages; it is never exported or stored."""

    url: str
    site: str
    outcome: Outcome = Outcome.OK
    reason: str | None = None
    final_url: str | None = None
    status: int | None = None
    fetched_at: str | None = None
    content_type: str | None = None
    etag: str | None = None
    last_modified: str | None = None
    encoding: str | None = None
    content_hash: str | None = None
    url_group: str | None = None
    depth: int = 0
    referer: str | None = None
    title: str | None = None
    html: str | None = None
    # Filled by the analyse pipeline (extractors.Result fields).
    page_type: str | None = None
    length_class: str | None = None
    confidence: float | None = None
    method: str | None = None
    text: str | None = None
    published: str | None = None
    author: str | None = None
    language: str | None = None
    image: str | None = None
    records: list[dict[str, Any]] | None = None
    next_page: str | None = None  # an article's next page (pipelines/parts.py joins them)
    # Filled by the screenshot middleware: {"sha256", "path", "width", "height"}.
    screenshot: dict[str, Any] | None = None
    # Filled by the dedup pipeline: why a page was not stored as new content.
    duplicate_of: str | None = None
    # ...and the cleaned text's hash and MinHash signature (None: too short),
    # so that the store does not hash a text twice.
    text_hash: str | None = None
    minhash: list[int] | None = None
    document: Any = field(default=None, repr=False)
