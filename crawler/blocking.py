"""Recognise block and challenge pages served with status 200.

A captcha or "access denied" page must not be stored as a page of the site.
Two signals must agree: the page carries typical markers, and it is an
outlier in its URL group (far less text than the group's usual page) or, when
the group has no history yet, short in absolute terms. Markers alone are not
enough: an article may well discuss captchas.
"""

from __future__ import annotations

import re
import statistics
from collections import defaultdict, deque
from dataclasses import dataclass

# Phrases of challenge and denial pages (English and Chinese), general
# wording used by CDNs, WAFs and bot checks, not by any one site.
MARKERS = re.compile(
    r"captcha|recaptcha|hcaptcha|verify (?:that )?you are (?:a )?human|are you a robot"
    r"|access denied|access to this page has been denied|request blocked|you have been blocked"
    r"|unusual traffic|bot (?:check|detection|protection)|checking your browser"
    r"|enable javascript and cookies to continue|attention required|just a moment\.\.\."
    r"|ddos protection|security check"
    r"|访问被拒绝|拒绝访问|禁止访问|验证码|人机验证|安全验证|请完成验证|访问过于频繁|异常访问|请求被拦截",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class BlockParams:
    short_chars: int = 600  # with no group history, a page this short may be a block page
    outlier_ratio: float = 0.25  # text under this share of the group median is an outlier
    min_history: int = 3  # group pages needed before the median is trusted
    history: int = 50  # recent text lengths kept per group


def find_markers(text: str) -> list[str]:
    """The block-page phrases found in ``text`` (lower-cased, unique)."""
    return sorted({m.group(0).lower() for m in MARKERS.finditer(text)})


class BlockDetector:
    """Online: learns each URL group's usual text length from the pages it
    accepts and flags outliers that carry block markers."""

    def __init__(self, params: BlockParams | None = None) -> None:
        self.params = params or BlockParams()
        self._lengths: dict[str, deque[int]] = defaultdict(
            lambda: deque(maxlen=self.params.history)
        )

    def check(self, group: str, text: str, title: str = "") -> str | None:
        """Return the reason if the page is a block page, else None (and
        remember its length as normal for the group)."""
        length = len(text)
        markers = find_markers(f"{title}\n{text[:5000]}")
        history = self._lengths[group]
        if markers:
            if len(history) >= self.params.min_history:
                outlier = length < self.params.outlier_ratio * statistics.median(history)
            else:
                outlier = length < self.params.short_chars
            if outlier:
                return "block page: " + ", ".join(markers[:3])
        history.append(length)
        return None
