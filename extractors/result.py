"""The one result type every extractor returns."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from enum import StrEnum
from typing import Any


class PageType(StrEnum):
    """What kind of page it is: its main content is one text, a list of
    records, or neither."""

    ARTICLE = "article"
    LIST = "list"
    OTHER = "other"


class LengthClass(StrEnum):
    """SCEDD's body-length classes (rough text under 450 bytes is short)."""

    SHORT = "short"
    LONG = "long"


@dataclass(slots=True)
class Record:
    """One entry of a list page."""

    text: str
    url: str | None = None
    title: str | None = None
    date: str | None = None
    # Which list of the page it belongs to: 0 = the main list, 1, 2, ... =
    # other regions of records (a second result block, featured cards).
    region: int = 0


@dataclass(slots=True)
class Result:
    """What an extractor found on a page.

    ``text`` keeps paragraphs, headings and list items as separate lines.
    ``node`` is the main-content element in the parsed tree when the method
    picks one (not serialised; useful to combine methods).
    """

    text: str = ""
    title: str | None = None
    method: str = ""
    page_type: PageType | None = None
    length_class: LengthClass | None = None
    confidence: float | None = None
    published: str | None = None
    author: str | None = None
    language: str | None = None
    image: str | None = None
    records: list[Record] = field(default_factory=list)
    # An article split over pages: the URL of its next page (the crawl joins them).
    next_page: str | None = None
    node: Any = field(default=None, repr=False, compare=False)

    @property
    def lines(self) -> list[str]:
        return [line for line in self.text.split("\n") if line]

    def __getstate__(self) -> list[Any]:
        """Pickled (sent to another process) without ``node``: lxml cannot
        pickle an element, and it would carry the whole parsed page."""
        return [None if f.name == "node" else getattr(self, f.name) for f in fields(self)]

    def __setstate__(self, state: list[Any]) -> None:
        for f, value in zip(fields(self), state, strict=True):
            object.__setattr__(self, f.name, value)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (enums as strings, no tree node)."""
        data = asdict(self)
        data.pop("node", None)
        for key in ("page_type", "length_class"):
            if data[key] is not None:
                data[key] = str(data[key])
        return data
