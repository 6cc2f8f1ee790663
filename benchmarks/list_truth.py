"""Record truth for the real list pages of ``pagetype``, annotated here.

``pagetype`` labels pages list or article but holds no records, and the
labelled list pages with text truth (wcxb-dev ``collection`` / ``listing``)
are shop grids and directories whose truth is often a category's buying guide
or one section, not the records. The I-AWCE seed measured its list extractor
on news and government portal list pages (网易, 新浪, 国家税务总局, ...);
``pagetype``'s 19 real list pages are of that kind: portal and fund-company
sections, rolling news, a forum board, four English tech-news sections.

Their records were annotated for this project by reading each page, without
sitesift's output at hand (the guideline: ``benchmarks/truth/README.md``):
one XPath per page selecting one element per entry of the page's main list,
in ``benchmarks/truth/pagetype_lists.json``. A page's truth is those
elements' text, one record a line, in page order; a page whose list its
scripts fill (nothing in the HTML) has no XPath and is left out.

``pagetype``'s 164 list pages from NEXT-EVAL (Web data record extraction,
NeurIPS 2025; github.com/wordbricks/next-eval, MIT) come with that
benchmark's own record truth: one XPath per record, copied unchanged into
``benchmarks/truth/next_eval_records.json.gz`` (see its ``source``). They are
loaded the same way (:func:`load_next_eval`).
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

from lxml import etree
from lxml import html as lxml_html

from benchmarks import datasets, metrics
from benchmarks.extraction import page_input
from extractors.document import screen_reader_only
from extractors.listing import looks_like_navigation

ANNOTATIONS = Path(__file__).resolve().parent / "truth" / "pagetype_lists.json"
NEXT_EVAL = ANNOTATIONS.with_name("next_eval_records.json.gz")
SET = "pagetype"
_SKIPPED_TEXT = {"script", "style", "noscript", "template"}


def annotations() -> dict[str, dict[str, Any]]:
    """Page id -> its annotation (``xpath`` null when the list is not in the HTML)."""
    return json.loads(ANNOTATIONS.read_text(encoding="utf-8"))


def element_text(el: Any) -> str:
    """An element's shown text, whitespace collapsed: the text of scripts,
    styles and screen-reader-only labels (``sr-only``, ``visually-hidden``,
    ``screen-reader-text``: read aloud, not shown) left out, what follows
    them kept."""
    parts: list[str] = []
    stack: list[tuple[Any, bool]] = [(el, False)]
    while stack:
        node, done = stack.pop()
        if done or not isinstance(node.tag, str) or _unshown(node):
            if node is not el and node.tail:
                parts.append(node.tail)
            continue
        if node.text:
            parts.append(node.text)
        stack.append((node, True))
        stack.extend((child, False) for child in reversed(node))
    return " ".join(" ".join(parts).split())


def _unshown(node: Any) -> bool:
    return node.tag in _SKIPPED_TEXT or screen_reader_only(node)


def _headline_link(*elements: Any) -> tuple[Any, str] | None:
    """The link with the most words among ``elements`` (CJK characters
    counted one by one) and its text; None when no link has words."""
    links = [
        (len(metrics.shingle_tokens(t)), a, t)
        for el in elements
        for a in el.iter("a")
        if (t := element_text(a))
    ]
    words, a, text = max(links, key=lambda wat: wat[0], default=(0, None, ""))
    return (a, text) if words else None


def headline(*elements: Any) -> str:
    """A record's headline: its link with the most words, or the whole
    record's text when it has no link with words. Records are matched by
    their headlines: the rest of a record (a share menu its CSS hides, a copy
    of the title for phones) is not all shown."""
    if link := _headline_link(*elements):
        return link[1]
    return " ".join(t for el in elements if (t := element_text(el)))


def annotated_records(html: str, xpath: str) -> list[tuple[str, str]]:
    """(text, headline) of each element ``xpath`` selects, in document
    order (an XPath node-set's, unions included), empty ones left out."""
    found = lxml_html.fromstring(html).xpath(xpath)
    elements = [el for el in found if isinstance(el, etree._Element)]
    return [(text, headline(el)) for el in elements if (text := element_text(el))]


def next_eval_xpaths() -> dict[str, list[list[str]]]:
    """Page id -> each record's absolute XPaths (most records are one
    element, some several), in NEXT-EVAL's order."""
    data = json.loads(gzip.decompress(NEXT_EVAL.read_bytes()))
    out = {}
    for page_id, entry in data["pages"].items():
        head = "/html" + entry["prefix"]
        out[page_id] = [
            [head + rest] if isinstance(rest, str) else [head + r for r in rest]
            for rest in entry["records"]
        ]
    return out


def records_at(html: str, records: list[list[str]]) -> list[tuple[str, str]] | None:
    """(text, headline) of each record given as the XPaths of its elements
    (the first element each selects): their texts joined, the headline the
    wordiest link among them (or the text); blank records left out. A record
    whose headline is the very link of an earlier one's is that record
    listed again and left out: NEXT-EVAL's truth lists the records of some
    pages twice, at two granularities (a card's title and body, then the
    card; a menu item, then its sub-items). None when an XPath selects
    nothing: the truth was not written on this document (a few NEXT-EVAL
    pages hold XPaths of another DOM)."""
    tree = lxml_html.fromstring(html).getroottree()
    out = []
    seen_links: set[str] = set()
    for xpaths in records:
        elements = []
        for xpath in xpaths:
            found = [el for el in tree.xpath(xpath) if isinstance(el, etree._Element)]
            if not found:
                return None
            elements.append(found[0])
        link = _headline_link(*elements)
        if link is not None:
            where = tree.getpath(link[0])
            if where in seen_links:
                continue
            seen_links.add(where)
        text = " ".join(t for el in elements if (t := element_text(el)))
        if text:
            out.append((text, link[1] if link else text))
    return out


def _with_records(page: datasets.Page, records: list[tuple[str, str]]) -> datasets.Page:
    texts = [text for text, _ in records]
    truth = {**page.truth, "records": texts, "headlines": [h for _, h in records]}
    return dataclasses.replace(page, truth=truth, truth_text="\n".join(texts))


def load_next_eval(limit: int | None = None) -> tuple[list[datasets.Page], list[str]]:
    """pagetype's NEXT-EVAL list pages with their records as :func:`load`
    gives them (the first ``limit`` of them), and the ids left out (an
    XPath of their truth selects nothing on the page)."""
    xpaths = next_eval_xpaths()
    pages: list[datasets.Page] = []
    left_out: list[str] = []
    for page in datasets.load(SET, kinds="list"):
        if limit is not None and len(pages) >= limit:
            break
        if page.id not in xpaths:
            continue
        records = records_at(page_input(page), xpaths[page.id])
        if records is None:
            left_out.append(page.id)
        else:
            pages.append(_with_records(page, records))
    return pages, left_out


def load() -> tuple[list[datasets.Page], list[str]]:
    """The annotated list pages, their ``truth_text`` the records (one a
    line), ``truth["records"]`` the list of them and ``truth["headlines"]``
    their headlines; and the ids left out (list not in the HTML)."""
    notes = annotations()
    pages: list[datasets.Page] = []
    left_out: list[str] = []
    for page in datasets.load(SET, kinds="list"):
        note = notes.get(page.id)
        if note is None:
            continue
        if not note.get("xpath"):
            left_out.append(page.id)
            continue
        pages.append(_with_records(page, annotated_records(page_input(page), note["xpath"])))
    return pages, left_out


# -- what NEXT-EVAL's records are --------------------------------------------------

_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
_CHROME_TAGS = frozenset({"nav", "header", "footer", "aside", "menu"})


def record_kind(el: Any, records: set[Any]) -> str:
    """Where a NEXT-EVAL truth record lies: among a form control's options,
    hidden, in navigation or page chrome, inside another truth record, or
    none of these (a record as the list extractor means one)."""
    chain = [el, *el.iterancestors()]
    if any(a.tag in ("select", "option", "datalist") for a in chain):
        return "form options"
    if any(
        a.get("hidden") is not None
        or a.get("aria-hidden") == "true"
        or _HIDDEN_STYLE.search(a.get("style") or "")
        for a in chain
    ):
        return "hidden"
    shown = [a for a in chain if isinstance(a.tag, str) and a.tag not in ("html", "body")]
    if any(a.tag in _CHROME_TAGS or looks_like_navigation(a) for a in shown):
        return "navigation or chrome"
    if any(a in records for a in el.iterancestors()):
        return "inside another record"
    return "record"


def next_eval_kinds() -> tuple[Counter[str], Counter[str]]:
    """Truth records of the usable NEXT-EVAL pages by :func:`record_kind`
    (each record by its first element), and the pages holding each kind."""
    xpaths = next_eval_xpaths()
    kinds: Counter[str] = Counter()
    pages: Counter[str] = Counter()
    for page in datasets.load(SET, kinds="list"):
        if page.id not in xpaths:
            continue
        tree = lxml_html.fromstring(page_input(page)).getroottree()
        found = [tree.xpath(record[0]) for record in xpaths[page.id]]
        if not all(found):  # truth of another DOM: left out, as load_next_eval does
            continue
        elements = [f[0] for f in found]
        chosen = set(elements)
        here = Counter(record_kind(el, chosen) for el in elements)
        kinds.update(here)
        pages.update(here.keys())
        pages["pages"] += 1
    return kinds, pages


def main() -> int:
    """Print what NEXT-EVAL's truth records are (a Markdown table)."""
    kinds, pages = next_eval_kinds()
    total = kinds.total()
    print(f"NEXT-EVAL truth: {total} records on {pages['pages']} pages\n")
    print("| kind | records | share | pages |\n|---|---|---|---|")
    for kind, n in kinds.most_common():
        print(f"| {kind} | {n} | {n / total:.3f} | {pages[kind]} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
