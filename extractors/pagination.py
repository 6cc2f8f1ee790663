"""The next page of an article split over several pages.

A link is taken as the article's continuation only when two independent
signs agree:

* **the link says so**: ``rel="next"``, or its text is a pager word
  ("下一页", "Next page", "›", the next page's number) — never "next article"
  (下一篇, "Next post"), which leads to another article;
* **the URL is the same address one page on**: the two URLs differ only by a
  small page number (``a.html`` -> ``a_2.html``, ``?id=7`` -> ``?id=7&page=2``,
  ``/story/`` -> ``/story/2/``, ``_2`` -> ``_3``). Sequential article ids
  (``/news/12345.html`` -> ``12346``) are beyond a page count.

The crawl joins the parts (``pipelines/parts.py``); this module only reads
one page. Some CMSs send every page of the story at once, in sibling boxes
numbered in their ids (``page1``, ``page2``: a script shows one at a time):
:func:`numbered_parts` finds them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from lxml import etree

from .document import Document, absolute_url, text_content

__all__ = ["Params", "in_series", "next_page", "numbered_parts", "page_step"]


MAX_PAGES = 50


@dataclass(frozen=True, slots=True)
class Params:
    # An article of more pages than this is a listing, not a story.
    max_pages: int = MAX_PAGES
    # Pager link texts (lower case, whitespace removed): the page after this one.
    next_words: frozenset[str] = frozenset(
        {"下一页", "下页", "下一頁", "下頁", "后一页", "後一頁", "next", "nextpage", "next›",
         "next»", "next>", "next>>", "›", "»", ">", ">>", "→", "次へ", "次のページ", "다음"}
    )  # fmt: skip
    # ...and of the other pages of a series (the one before, older, newer):
    # with the above, what tells a page of a series.
    series_words: frozenset[str] = frozenset(
        {"上一页", "上页", "上一頁", "上頁", "prev", "previous", "previouspage", "‹", "«",
         "older", "newer"}
    )  # fmt: skip


# The part a page-numbered URL adds to the first page's URL: a separator, an
# optional page parameter name, the number.
_ADDED_PAGE = re.compile(
    r"[/_\-&?.,;]?(?:(?:page|pg|p|pn|pageno|pagenum|page_num|seite|pagina)[=/_\-]?)?"
    r"(\d{1,3})/?",
    re.IGNORECASE,
)


def page_step(url: str, candidate: str, max_pages: int = MAX_PAGES) -> bool:
    """Whether ``candidate`` is ``url``'s address one page on: the URLs differ
    only by a page number that goes up by one (the first page often has none)."""
    if url == candidate:
        return False
    # The common prefix and suffix (lengths hoisted: this runs for every
    # link of the page).
    shorter = min(len(url), len(candidate))
    start = 0
    while start < shorter and url[start] == candidate[start]:
        start += 1
    end = 0
    while end < shorter - start and url[-1 - end] == candidate[-1 - end]:
        end += 1
    # Whole numbers: "a_10" -> "a_11" share a "1" that belongs to both numbers.
    if _digit_at(url, start) or _digit_at(candidate, start):
        while start > 0 and url[start - 1].isdigit():
            start -= 1
    if _digit_at(url, len(url) - end - 1) or _digit_at(candidate, len(candidate) - end - 1):
        while end > 0 and url[len(url) - end].isdigit():
            end -= 1
    old, new = url[start : len(url) - end], candidate[start : len(candidate) - end]
    if old.isdigit() and new.isdigit():
        return 1 <= int(old) < max_pages and int(new) == int(old) + 1
    if old:
        return False
    added = _ADDED_PAGE.fullmatch(new)
    return added is not None and int(added.group(1)) == 2


_HAS_DIGIT = re.compile(r"\d")


def _digit_at(text: str, i: int) -> bool:
    return 0 <= i < len(text) and text[i].isdigit()


def next_page(doc: Document, url: str | None = None, params: Params | None = None) -> str | None:
    """The URL of the article's next page, or None (see the module doc)."""
    p = params or Params()
    url = url or doc.url
    if not url:
        return None
    base = absolute_url(doc.base_href, url) if doc.base_href else url
    for href, anchor in _links(doc):
        # One page on is a page number the link writes: a link without a
        # digit is none, and is not resolved (most of a page's links).
        if not href or not _HAS_DIGIT.search(href):
            continue
        target = absolute_url(href, base)
        target = target.split("#")[0] if target else None
        # The URL test first: it is cheap, and few links pass it.
        if target and page_step(url, target, p.max_pages) and (anchor is None or _pager(anchor, p)):
            return target
    return None


def in_series(doc: Document, params: Params | None = None) -> bool:
    """Whether the page is one of a series: a rel=prev/next link, or a link
    worded as a pager (the last page of a paginated list has only "prev")."""
    p = params or Params()
    if any({"prev", "previous", "next"} & set(rel.split()) for rel, _ in doc.links):
        return True
    words = p.next_words | p.series_words
    return any(_label(a) in words for a in doc.body.iter("a"))


def _links(doc: Document) -> Iterator[tuple[str | None, etree._Element | None]]:
    """The ``rel=next`` links (no label needed), then every anchor."""
    for rel, href in doc.links:
        if "next" in rel.split():
            yield href, None
    for a in doc.root.iter("a"):
        yield a.get("href"), a


def _label(a: etree._Element) -> str:
    """A link's words, lower case, whitespace removed (its title or ARIA
    label when it shows none)."""
    label = text_content(a) or a.get("title") or a.get("aria-label") or ""
    return "".join(label.split()).lower()


def _pager(a: etree._Element, p: Params) -> bool:
    """A pager word, or a page number ("2" on the first page)."""
    text = _label(a)
    return text in p.next_words or (text.isdigit() and len(text) <= 3)


_NUMBERED_ID = re.compile(r"(.*?[^\d\W_][-_]?)(\d{1,2})")
# Boxes a page of a story is sent in (numbered list items, table rows are
# entries: footnotes, steps).
_PART_TAGS = frozenset({"div", "section", "article"})
# A part is prose: under this share of its text in links.
PART_MAX_LINK_DENSITY = 0.3


def numbered_parts(doc: Document, node: etree._Element | None) -> list[etree._Element]:
    """``node`` (a div, section or article) and its siblings of one id
    numbered in a run (``page1``, ``page2``...; same tag), in number order,
    when there are two or more and each is prose with text; else []."""
    if node is None or node.tag not in _PART_TAGS:
        return []
    if not (m := _NUMBERED_ID.fullmatch(node.get("id") or "")):
        return []
    parent = node.getparent()
    if parent is None:
        return []
    stem, numbered = m.group(1), {}
    for sibling in parent:
        found = _NUMBERED_ID.fullmatch(sibling.get("id") or "") if sibling.tag == node.tag else None
        if found and found.group(1) == stem:
            numbered[int(found.group(2))] = sibling
    first = last = int(m.group(2))
    while first - 1 in numbered:
        first -= 1
    while last + 1 in numbered:
        last += 1
    run = [numbered[i] for i in range(first, last + 1)]
    stats = doc.stats
    if len(run) < 2 or any(
        el not in stats or not stats[el].text_len or stats[el].link_density >= PART_MAX_LINK_DENSITY
        for el in run
    ):
        return []
    return run
