"""Main text, records and metadata for every fetched page (thin: the work
is ``extractors.extract``). Keeps a few pages of each URL group so that
layout similarity can remove the group's template from the next page."""

from __future__ import annotations

import logging
from collections import OrderedDict, deque
from dataclasses import asdict, dataclass
from typing import Any

from scrapy import Spider
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured

from crawler.distributed import SharedReferences, shared_state
from crawler.items import Outcome, PageItem
from crawler.urls import canonicalize_url
from extractors import METHODS, extract
from extractors.classify import Classification
from extractors.result import LengthClass, PageType, Result
from pipelines.offload import off_reactor

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ExtractConfig:
    enabled: bool = True
    method: str = "auto"
    # Reference pages kept per URL group, and groups kept (least recently
    # used dropped): memory stays bounded on any crawl.
    references: int = 2
    max_groups: int = 200

    @classmethod
    def from_settings(cls, settings: Any) -> ExtractConfig:
        config = cls(
            enabled=settings.getbool("SITESIFT_EXTRACT_ENABLED", True),
            method=settings.get("SITESIFT_EXTRACT_METHOD", "auto"),
            references=settings.getint("SITESIFT_EXTRACT_REFERENCES", 2),
            max_groups=settings.getint("SITESIFT_EXTRACT_MAX_GROUPS", 200),
        )
        if config.method not in METHODS:
            raise ValueError(
                f"SITESIFT_EXTRACT_METHOD={config.method!r} is not one of {', '.join(METHODS)}"
            )
        if config.references < 0 or config.max_groups < 1:
            raise ValueError(
                "SITESIFT_EXTRACT_REFERENCES >= 0 and SITESIFT_EXTRACT_MAX_GROUPS >= 1"
            )
        return config


class ReferenceCache:
    """A few HTML pages per URL group, bounded in pages and in groups."""

    def __init__(self, per_group: int, max_groups: int) -> None:
        self.per_group = per_group
        self.max_groups = max_groups
        self._groups: OrderedDict[str, deque[tuple[str, str]]] = OrderedDict()

    def get(self, group: str | None, url: str) -> list[str]:
        if not group or group not in self._groups:
            return []
        self._groups.move_to_end(group)
        return [html for u, html in self._groups[group] if u != url]

    def add(self, group: str | None, url: str, html: str | None) -> None:
        if not group or not html or self.per_group == 0:
            return
        pages = self._groups.setdefault(group, deque(maxlen=self.per_group))
        if all(u != url for u, _ in pages):
            pages.append((url, html))
        self._groups.move_to_end(group)
        while len(self._groups) > self.max_groups:
            self._groups.popitem(last=False)

    def __len__(self) -> int:
        return len(self._groups)


def _classification(item: PageItem) -> Classification | None:
    """The classify pipeline's decision when it knows more than the DOM
    (a screenshot was classified too); otherwise auto decides from the DOM
    with its own evidence (records, agreement of methods), which a URL
    group's reused decision must not overrule."""
    if not item.page_type or item.confidence is None or not item.screenshot:
        return None
    page_type = PageType(item.page_type)
    conf = item.confidence
    p_list = conf if page_type is PageType.LIST else 1.0 - conf
    length = LengthClass(item.length_class) if item.length_class else None
    return Classification(page_type, conf, length, p_list)


def fill(item: PageItem, result: Result) -> None:
    """Copy a result's fields onto the item (the title only when found)."""
    item.text = result.text
    item.title = result.title or item.title
    item.method = result.method
    item.page_type = str(result.page_type) if result.page_type else item.page_type
    item.length_class = str(result.length_class) if result.length_class else item.length_class
    item.confidence = result.confidence if result.confidence is not None else item.confidence
    item.published = result.published
    item.author = result.author
    item.language = result.language
    item.image = result.image
    item.records = [asdict(r) for r in result.records] or None
    item.next_page = canonicalize_url(result.next_page) if result.next_page else None


class ExtractPipeline:
    def __init__(self, crawler: Crawler, config: ExtractConfig) -> None:
        self.crawler = crawler
        self.config = config
        # A distributed crawl keeps each group's reference pages in Redis.
        shared = shared_state(crawler.settings)
        self.references: ReferenceCache | SharedReferences = (
            ReferenceCache(config.references, config.max_groups)
            if shared is None
            else SharedReferences(shared, config.references)
        )

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ExtractPipeline:
        config = ExtractConfig.from_settings(crawler.settings)
        if not config.enabled:
            raise NotConfigured("SITESIFT_EXTRACT_ENABLED is off")
        log.info(
            "extract: method %s, %d reference pages per URL group", config.method, config.references
        )
        return cls(crawler, config)

    async def process_item(self, item: PageItem, spider: Spider | None = None) -> PageItem:
        if item.outcome is not Outcome.OK or item.document is None:
            return item
        url = item.final_url or item.url
        refs = self.references.get(item.url_group, url)
        kwargs: dict[str, Any] = {"reference": refs or None, "fetched_at": item.fetched_at}
        if self.config.method == "auto":
            kwargs["classification"] = _classification(item)
        try:
            result = await off_reactor(
                self.crawler, extract, item.document, url, method=self.config.method, **kwargs
            )
        except Exception as exc:  # the page is stored without text, never lost
            log.warning("extract failed on %s: %s", url, exc)
            self.crawler.stats.inc_value(f"sitesift/extract/failed/{type(exc).__name__}")
            return item
        fill(item, result)
        self.references.add(item.url_group, url, item.html)
        self.crawler.stats.inc_value(f"sitesift/extract/{result.method}")
        return item
