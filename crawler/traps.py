"""Crawler-trap guards: URLs that only an endless URL space produces.

Calendars, paths that grow by a relative link (``/a/b/b/b/``), query strings
that grow by one word a click and session ids that change on every visit all
make infinite URL spaces. The page and depth caps bound them, but a trap can
still eat a site's whole page budget. These guards stop it sooner: a URL is
refused when it is too long, when one path segment repeats too often, or when
its URL pattern (the shape-only group of crawler/urlgroups.py) already had its
share of pages. Session ids are dropped earlier, by the canonicaliser.

Pure and Scrapy-free; one ``TrapGuard`` per crawl. In a distributed crawl
each worker has one, and the pattern counts are shared through Redis (the
``admit`` callable: crawler.distributed.SharedState.admit_to_pattern), so the
workers together keep a pattern to its budget.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from crawler.urlgroups import url_pattern

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class TrapParams:
    """Limits; 0 turns a guard off."""

    # Longer URLs come from query strings or paths that grow with each click.
    # Real pages stay far below: 1,024 leaves room for long search URLs.
    max_url_length: int = 1024
    # A path segment seen more than this many times (/a/b/b/b/) is a relative
    # link resolved against itself (Heritrix's PathologicalPath uses 2 too).
    max_segment_repeats: int = 2
    # Pages per URL pattern (e.g. ``host/calendar/{n}/{n}/{n}/``): with the
    # default 1,000 pages per site, a trap takes half of the budget at most.
    max_group_pages: int = 500

    @classmethod
    def from_settings(cls, settings: Any) -> TrapParams:
        params = cls(
            max_url_length=settings.getint("SITESIFT_TRAP_MAX_URL_LENGTH", cls.max_url_length),
            max_segment_repeats=settings.getint(
                "SITESIFT_TRAP_MAX_SEGMENT_REPEATS", cls.max_segment_repeats
            ),
            max_group_pages=settings.getint("SITESIFT_TRAP_MAX_GROUP_PAGES", cls.max_group_pages),
        )
        for name, value in vars(params).items():
            if value < 0:
                raise ValueError(f"trap guard {name} must be 0 (off) or positive, not {value}")
        return params


class TrapGuard:
    """Decides, URL by URL, whether a crawl should stop following."""

    def __init__(
        self,
        params: TrapParams | None = None,
        admit: Callable[[str, str, int], bool] | None = None,
    ) -> None:
        """``admit(pattern, url, limit)``: counts ``url`` against ``pattern``
        elsewhere (shared by workers) and says whether it was under ``limit``;
        by default the counts are this guard's own."""
        self.params = params or TrapParams()
        self.admit = admit or self._admit_locally
        self.pages_per_pattern: Counter[str] = Counter()
        self.full_patterns: set[str] = set()
        # URLs already counted: a URL checked again (the links of a page taken
        # over from a dead worker are followed a second time) uses no budget.
        self.counted: set[str] = set()

    def check(self, url: str) -> str | None:
        """Why ``url`` (canonical) looks like a trap, or None. A URL that
        passes counts against its pattern's budget, once."""
        reason = self.shape_reason(url)
        if reason:
            return reason
        limit = self.params.max_group_pages
        if not limit or url in self.counted:
            return None
        pattern = url_pattern(url)
        if not self.admit(pattern, url, limit):
            if pattern not in self.full_patterns:  # actionable: said once per pattern
                self.full_patterns.add(pattern)
                logger.warning("URL pattern %s reached %d pages: further URLs of it are "
                               "skipped as a crawler trap", pattern, limit)  # fmt: skip
            return (
                f"crawler trap: URL pattern {pattern} reached {limit} pages "
                "(SITESIFT_TRAP_MAX_GROUP_PAGES; raise it if this is a real section)"
            )
        self.counted.add(url)
        return None

    def _admit_locally(self, pattern: str, url: str, limit: int) -> bool:
        if self.pages_per_pattern[pattern] >= limit:
            return False
        self.pages_per_pattern[pattern] += 1
        return True

    def shape_reason(self, url: str) -> str | None:
        """The guards that look at one URL alone."""
        p = self.params
        if p.max_url_length and len(url) > p.max_url_length:
            return f"crawler trap: URL longer than {p.max_url_length} characters"
        if p.max_segment_repeats:
            segments = Counter(s for s in urlsplit(url).path.split("/") if s)
            segment, count = max(segments.items(), key=lambda kv: kv[1], default=("", 0))
            if count > p.max_segment_repeats:
                return f"crawler trap: path segment {segment!r} repeated {count} times"
        return None
