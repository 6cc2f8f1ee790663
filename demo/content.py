"""The articles of the demo web, as data.

Bodies are hand-written so that extraction on the demo web meets prose, not
filler. A body is a tuple of blocks: a plain string is a paragraph, ``"## "``
starts a subheading and ``"- "`` starts a bulleted list (items separated by
newlines, each starting with ``"- "``). The sites themselves are assembled by
``demo.build_web``; the English and Chinese texts live in ``content_en`` and
``content_zh``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Visibility(Enum):
    """How a crawler can discover an article."""

    LISTED = "link"  # on the section's list pages, in the feed and the sitemap
    SITEMAP_ONLY = "sitemap"  # linked from nowhere, only in a nested sitemap
    FEED_ONLY = "feed"  # linked from nowhere, only in the feed


class Encoding(Enum):
    """How an article page is encoded and declared (zh site only)."""

    UTF8 = "utf-8"  # meta charset=utf-8, header without charset
    GBK_HEADER = "gbk-header"  # GBK, charset only in the Content-Type header
    GBK_META = "gbk-meta"  # GBK, charset only in <meta>
    GB18030_BARE = "gb18030-bare"  # GB18030, declared nowhere
    BIG5_HEADER = "big5-header"  # Big5, charset only in the header
    BIG5_WRONG_HEADER = "big5-wrong-header"  # Big5, header says iso-8859-1
    GBK_CONFLICT = "gbk-conflict"  # GBK, header says utf-8 (wrong), meta says gbk (right)


# Encoding case -> (codec of the bytes, <meta charset>, Content-Type header).
ENCODINGS: dict[Encoding, tuple[str, str | None, str]] = {
    Encoding.UTF8: ("utf-8", "utf-8", "text/html"),
    Encoding.GBK_HEADER: ("gbk", None, "text/html; charset=gbk"),
    Encoding.GBK_META: ("gbk", "gbk", "text/html"),
    Encoding.GB18030_BARE: ("gb18030", None, "text/html"),
    Encoding.BIG5_HEADER: ("big5", None, "text/html; charset=big5"),
    Encoding.BIG5_WRONG_HEADER: ("big5", None, "text/html; charset=iso-8859-1"),
    # The header is wrong, the meta is right: GBK bytes do not decode as UTF-8.
    Encoding.GBK_CONFLICT: ("gbk", "gbk", "text/html; charset=utf-8"),
}


@dataclass(frozen=True)
class Article:
    """One article: where it lives, what it says, how it is served."""

    section: str
    key: str  # slug (en) or numeric id (zh); part of the URL
    title: str
    published: str  # "YYYY-MM-DD HH:MM", local time of the site
    author: str
    body: tuple[str, ...]
    comments: bool = False
    visibility: Visibility = Visibility.LISTED
    encoding: Encoding = Encoding.UTF8
    traditional: bool = False  # written in traditional characters
    tags: tuple[str, ...] = field(default_factory=tuple)

    @property
    def paragraphs(self) -> list[str]:
        """The body as plain text lines: paragraphs, subheadings and list items."""
        lines: list[str] = []
        for block in self.body:
            if block.startswith("## "):
                lines.append(block[3:])
            elif block.startswith("- "):
                lines.extend(item[2:] for item in block.split("\n"))
            else:
                lines.append(block)
        return lines

    @property
    def lead(self) -> str:
        """The first paragraph: the snippet on list pages and in the feed."""
        return next(b for b in self.body if not b.startswith(("## ", "- ")))
