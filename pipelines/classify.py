"""Page type and body length for every fetched page (thin: the decision is
``extractors.classify``). With a screenshot and the visual classifier
installed, the two are combined by ``extractors.visual.combine`` (a logistic
stack of their log-odds, fitted on validation pages); a URL group's decision
is reused for its other pages unless the DOM is confident the other way."""

from __future__ import annotations

import logging
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scrapy import Spider
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured

from crawler.distributed import shared_state
from crawler.items import Outcome, PageItem
from extractors.classify import Classification, classify
from extractors.result import PageType
from pipelines.offload import off_reactor

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


def _visual_classifier() -> Any:
    """``extractors.visual.list_probability`` when that module (numpy, Pillow)
    can be imported."""
    try:
        from extractors.visual import list_probability
    except ImportError:
        return None
    return list_probability


def combine(dom: Classification, p_visual: float | None) -> Classification:
    """The DOM decision with the screenshot's P(list) (``None``: no screenshot),
    by ``extractors.visual.combine``."""
    if p_visual is None:
        return dom
    from extractors.visual import combine as stacked

    return stacked(dom, p_visual)


class ClassifyPipeline:
    def __init__(self, crawler: Crawler, config: ClassifyConfig) -> None:
        self.crawler = crawler
        self.config = config
        self.visual = _visual_classifier()
        self.groups: OrderedDict[str, PageType] = OrderedDict()
        # A distributed crawl keeps the group decisions in Redis, for every worker.
        self.shared = shared_state(crawler.settings)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ClassifyPipeline:
        config = ClassifyConfig.from_settings(crawler.settings)
        if not config.enabled:
            raise NotConfigured("SITESIFT_CLASSIFY_ENABLED is off")
        return cls(crawler, config)

    async def process_item(self, item: PageItem, spider: Spider | None = None) -> PageItem:
        if item.outcome is not Outcome.OK or item.document is None:
            return item
        try:
            decision = await off_reactor(self.crawler, self._decide, item)
        except Exception as exc:  # never lose the page over a classification
            log.warning("classify failed on %s: %s", item.url, exc)
            self.crawler.stats.inc_value(f"sitesift/classify/failed/{type(exc).__name__}")
            return item
        page_type = self._with_group(item.url_group, decision)
        item.page_type = str(page_type)
        item.length_class = str(decision.length_class) if decision.length_class else None
        item.confidence = decision.confidence
        self.crawler.stats.inc_value(f"sitesift/classify/{page_type}")
        return item

    def _decide(self, item: PageItem) -> Classification:
        """The page's own decision, DOM and screenshot (in the worker thread)."""
        # The URL the extract pipeline passes too: the article methods' runs
        # that the decision reads are kept per page and URL for extraction.
        url = item.final_url or item.url
        return combine(classify(item.document, url), self._visual(item))

    def _visual(self, item: PageItem) -> float | None:
        """The screenshot's P(list), when the page has one."""
        shot = item.screenshot or {}
        if self.visual is None or not shot.get("path"):
            return None
        try:
            return float(self.visual([Path(shot["path"]).read_bytes()])[0])
        except Exception as exc:
            log.debug("visual classifier failed on %s: %s", item.url, exc)
            return None

    def _with_group(self, group: str | None, decision: Classification) -> PageType:
        """The group's page type, unless the DOM is sure of another."""
        if not self.config.group_reuse or not group or decision.page_type is PageType.OTHER:
            return decision.page_type
        known = self._known(group)
        if known is None or decision.confidence >= self.config.group_override:
            if known is None or decision.page_type is not known:
                self._remember(group, decision.page_type)
            return decision.page_type
        return known

    def _known(self, group: str) -> PageType | None:
        if self.shared is not None:
            value = self.shared.get("pagetype", group)
            return PageType(value) if value else None
        known = self.groups.get(group)
        if known is not None:
            self.groups.move_to_end(group)
        return known

    def _remember(self, group: str, page_type: PageType) -> None:
        if self.shared is not None:
            self.shared.put("pagetype", group, str(page_type))
            return
        self.groups[group] = page_type
        self.groups.move_to_end(group)
        while len(self.groups) > self.config.max_groups:
            self.groups.popitem(last=False)
