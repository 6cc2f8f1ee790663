"""Page type and body length of a fetched page (thin: the decision is
``extractors.classify``). With a screenshot and the visual classifier
installed, the two are combined by ``extractors.visual.combine`` (a logistic
stack of their log-odds, fitted on validation pages); a URL group's decision
is reused for its other pages unless the DOM is confident the other way.
``pipelines.analyse`` runs this beside extraction, on every page."""

from __future__ import annotations

import functools
import logging
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from extractors.classify import Classification, classify
from extractors.result import PageType

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ClassifyConfig:
    enabled: bool = True
    group_reuse: bool = True
    # The DOM overrides its group's decision when at least this confident.
    group_override: float = 0.9
    max_groups: int = 1000

    @classmethod
    def from_settings(cls, settings: Any) -> ClassifyConfig:
        config = cls(
            enabled=settings.getbool("SITESIFT_CLASSIFY_ENABLED", True),
            group_reuse=settings.getbool("SITESIFT_CLASSIFY_GROUP_REUSE", True),
            group_override=settings.getfloat("SITESIFT_CLASSIFY_GROUP_OVERRIDE", 0.9),
            max_groups=settings.getint("SITESIFT_CLASSIFY_MAX_GROUPS", 1000),
        )
        if not 0.5 <= config.group_override <= 1.0:
            raise ValueError("SITESIFT_CLASSIFY_GROUP_OVERRIDE must be within 0.5..1")
        if config.max_groups < 1:
            raise ValueError("SITESIFT_CLASSIFY_MAX_GROUPS must be positive")
        return config


@functools.cache
def _visual_classifier() -> Any:
    """``extractors.visual.list_probability`` when that module (numpy, Pillow)
    can be imported."""
    try:
        from extractors.visual import list_probability
    except ImportError:
        return None
    return list_probability


def visual_probability(screenshot: dict[str, Any] | None) -> float | None:
    """The screenshot's P(list), when the page has one (and the classifier
    its packages)."""
    visual = _visual_classifier()
    if visual is None or not (screenshot or {}).get("path"):
        return None
    try:
        return float(visual([Path(screenshot["path"]).read_bytes()])[0])
    except Exception as exc:
        log.debug("visual classifier failed on %s: %s", screenshot["path"], exc)
        return None


def combine(dom: Classification, p_visual: float | None) -> Classification:
    """The DOM decision with the screenshot's P(list) (``None``: no screenshot),
    by ``extractors.visual.combine``."""
    if p_visual is None:
        return dom
    from extractors.visual import combine as stacked

    return stacked(dom, p_visual)


def decide(document: Any, url: str, screenshot: dict[str, Any] | None) -> Classification:
    """A page's own decision, DOM and screenshot. ``url`` is the one extraction
    gets too: the article methods' runs the decision reads are kept per page
    and URL for it."""
    return combine(classify(document, url), visual_probability(screenshot))


def with_group(
    decision: Classification, known: PageType | None, config: ClassifyConfig
) -> PageType:
    """The page type of the page's URL group (``known``), unless the DOM is
    sure of another."""
    if (
        not config.group_reuse
        or known is None
        or decision.page_type is PageType.OTHER
        or decision.confidence >= config.group_override
    ):
        return decision.page_type
    return known


class GroupTypes:
    """Each URL group's page type: in memory, least recently used dropped
    past ``max_groups``, or in Redis for every worker of a distributed crawl."""

    def __init__(self, max_groups: int, shared: Any = None) -> None:
        self.max_groups = max_groups
        self.shared = shared
        self.groups: OrderedDict[str, PageType] = OrderedDict()

    def known(self, group: str | None) -> PageType | None:
        if not group:
            return None
        if self.shared is not None:
            value = self.shared.get("pagetype", group)
            return PageType(value) if value else None
        known = self.groups.get(group)
        if known is not None:
            self.groups.move_to_end(group)
        return known

    def learn(
        self,
        group: str | None,
        known: PageType | None,
        decision: Classification,
        page_type: PageType,
    ) -> None:
        """Remember a page's type for its group when it is the page's own
        decision (not the group's, and not "other") and news to the group."""
        if (
            not group
            or page_type is not decision.page_type
            or page_type is PageType.OTHER
            or page_type is known
        ):
            return
        if self.shared is not None:
            self.shared.put("pagetype", group, str(page_type))
            return
        self.groups[group] = page_type
        self.groups.move_to_end(group)
        while len(self.groups) > self.max_groups:
            self.groups.popitem(last=False)
