"""Main text, records and metadata of a fetched page (thin: the work is
``extractors.extract``). A few pages of each URL group are kept so that
layout similarity can remove the group's template from the next page.
``pipelines.analyse`` runs this after classification, on every page."""

from __future__ import annotations

from collections import OrderedDict, deque
from dataclasses import asdict, dataclass
from typing import Any

from crawler.items import PageItem
from crawler.urls import canonicalize_url
from extractors import METHODS
from extractors.classify import Classification
from extractors.result import PageType, Result


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


def given_classification(
    decision: Classification, page_type: PageType, screenshot: dict[str, Any] | None
) -> Classification | None:
    """What auto is told of the page's type: the classify step's decision
    (``page_type``, its group's if reused) when it knows more than the DOM (a
    screenshot was classified too); otherwise nothing, and auto decides from
    the DOM with its own evidence (records, agreement of methods), which a
    URL group's reused decision must not overrule."""
    if not screenshot:
        return None
    conf = decision.confidence
    p_list = conf if page_type is PageType.LIST else 1.0 - conf
    return Classification(page_type, conf, decision.length_class, p_list)


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
