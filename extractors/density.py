"""CETD: content extraction via (composite) text density.

Sun, Song and Liao, "DOM based content extraction via text density" (SIGIR
2011) — the long-page method of the SCEDD seed. Content is dense in text and
poor in tags and links, so every element gets a composite text density (CTD);
the element whose children add up to the largest density sum leads to the
content; the smallest density on its path to ``<body>`` is the threshold.
The paper then marks every dense region reachable through nodes above the
threshold (``scope="page"``); by default we keep the leader's subtree and
leave out its blocks under the threshold (``scope="leader"``), which is far
more precise on real pages (see :class:`Params`).

All counts come from the shared :class:`~extractors.document.NodeStats`
(non-whitespace characters), in one bottom-up pass: O(number of elements).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from typing import Any

from lxml import etree

from .document import BLOCK_TAGS, Document, NodeStats, as_document, text_lines
from .result import PageType, Result

_E = math.e
# Blocks that may be left out inside the content.
_PRUNABLE = BLOCK_TAGS - {"br", "hr"}


@dataclass(frozen=True, slots=True)
class Params:
    """CETD's choices. The paper publishes no numeric thresholds: the
    threshold is derived from each page, so the knobs are which variant runs."""

    # CTD (link-aware density) rather than plain chars/tags: the paper's
    # best variant ("CETD-DS with CTD") on its eight data sets.
    composite: bool = True
    # "path": the minimum density on the path from the max-density-sum node
    # to <body> (paper §4.3 and the authors' code); "body": <body>'s density.
    threshold: str = "path"
    # "page": every dense region reachable from <body> adds its density-sum
    # leader (the paper's MarkContent); "leader": only the max-density-sum
    # subtree, with its blocks under the threshold left out. Tuned: on the
    # development sets "page" keeps sidebars and comment lists (char F1
    # daniel-en 0.77, daniel-zh 0.71), "leader" does not (0.90, 0.89).
    scope: str = "leader"


@dataclass(slots=True)
class Density:
    """Densities of every element under ``<body>``, computed once."""

    doc: Document
    td: dict[etree._Element, float]  # text density (composite or plain)
    ds: dict[etree._Element, float]  # density sum
    best: dict[etree._Element, etree._Element]  # max-density-sum node of each subtree


def composite_density(
    chars: int, tags: int, link_chars: int, link_tags: int, body_link_ratio: float
) -> float:
    """CTD_i = C/T * log_{ln(C/nonLC*LC + LCb/Cb*C + e)}(C/LC * T/LT).

    Zero counts become 1, as in the paper, so that a node without links keeps
    a finite, large density.
    """
    if chars <= 0:
        return 0.0
    tags = max(1, tags)
    non_link = max(1, chars - link_chars)
    link_chars = max(1, link_chars)
    link_tags = max(1, link_tags)
    base = math.log(chars * link_chars / non_link + body_link_ratio * chars + _E)
    return (chars / tags) * math.log(chars * tags / (link_chars * link_tags)) / math.log(base)


def plain_density(chars: int, tags: int) -> float:
    """TD_i = C/T (T of 0 counts as 1)."""
    return chars / max(1, tags) if chars > 0 else 0.0


def body_elements(doc: Document) -> list[etree._Element]:
    """Elements of ``<body>`` in document order (the body first)."""
    stats = doc.stats
    return [el for el in doc.body.iter() if el in stats]


def compute_density(doc: Document, params: Params | None = None) -> Density:
    """Text density, density sum and the density-sum leader of every subtree."""
    params = params or Params()
    stats = doc.stats
    body_st = stats.get(doc.body, NodeStats())
    ratio = body_st.link_text_len / body_st.text_len if body_st.text_len else 0.0
    nodes = body_elements(doc)

    def density(chars: int, tags: int, link_chars: int, link_tags: int) -> float:
        if params.composite:
            return composite_density(chars, tags, link_chars, link_tags, ratio)
        return plain_density(chars, tags)

    td: dict[etree._Element, float] = {}
    for el in nodes:
        st = stats[el]
        td[el] = density(st.text_len, st.tag_count, st.link_text_len, st.link_count)

    ds: dict[etree._Element, float] = {}
    best: dict[etree._Element, etree._Element] = {}
    for el in reversed(nodes):  # children before parents
        st = stats[el]
        children = [c for c in el if c in td]
        if not children:
            ds[el] = td[el]
            best[el] = el
            continue
        total = 0.0
        child_chars = child_links = 0
        leader, leader_ds = el, -1.0
        for child in children:
            cst = stats[child]
            total += td[child]
            child_chars += cst.text_len
            child_links += cst.link_text_len
            cand = best[child]
            if ds[cand] > leader_ds:
                leader, leader_ds = cand, ds[cand]
        # The element's own text (and its children's tails) counts as one text node.
        own = st.text_len - child_chars
        if own > 0:
            total += density(own, 0, max(0, st.link_text_len - child_links), 0)
        ds[el] = total
        # Ties go to the ancestor, as in the authors' code.
        best[el] = el if total >= leader_ds else leader
    return Density(doc, td, ds, best)


def threshold_of(dens: Density, target: etree._Element, params: Params) -> float:
    """The marking threshold: min density from ``target`` up to <body>."""
    body = dens.doc.body
    if params.threshold == "body":
        return dens.td.get(body, 0.0)
    value = dens.td[target]
    el: etree._Element | None = target
    while el is not None and el in dens.td:
        value = min(value, dens.td[el])
        if el is body:
            break
        el = el.getparent()
    return value


def mark_content(dens: Density, threshold: float) -> list[etree._Element]:
    """Roots of the content subtrees, in document order, none inside another.

    From <body> down, every node at or above the threshold marks the
    density-sum leader of its subtree; marked subtrees are not entered again.
    """
    marked: set[etree._Element] = set()
    stack = [dens.doc.body]
    eps = 1e-9
    while stack:
        el = stack.pop()
        if el in marked or dens.td.get(el, 0.0) < threshold - eps:
            continue
        leader = dens.best[el]
        marked.add(leader)
        if leader is el:
            continue
        stack.extend(c for c in reversed(el) if c in dens.td)
    return outermost(dens.doc, marked)


def outermost(doc: Document, nodes: set[etree._Element]) -> list[etree._Element]:
    """``nodes`` in document order without those nested in another one."""
    stats = doc.stats
    roots: list[etree._Element] = []
    end = -1
    for el in sorted(nodes, key=lambda e: stats[e].index):
        st = stats[el]
        if st.index <= end:
            continue
        roots.append(el)
        end = st.index + st.tag_count
    return roots


def render(roots: list[etree._Element], skip: set[etree._Element] | None = None) -> str:
    """One paragraph per line, the roots' texts in order."""
    lines: list[str] = []
    for root in roots:
        lines.extend(text_lines(root, skip=skip))
    return "\n".join(lines)


def below_threshold(dens: Density, root: etree._Element, threshold: float) -> set[etree._Element]:
    """Blocks inside ``root`` whose density is under the threshold (inline
    elements stay: a link inside a sentence belongs to it)."""
    td = dens.td
    return {
        el
        for el in root.iterdescendants()
        if el in td and el.tag in _PRUNABLE and td[el] < threshold - 1e-9
    }


def cetd(
    doc: Document, params: Params | None = None
) -> tuple[list[etree._Element], etree._Element, set[etree._Element]]:
    """Run CETD; return the content roots, the max-density-sum node and the
    nodes to leave out when rendering."""
    params = params or Params()
    dens = compute_density(doc, params)
    body = doc.body
    if body not in dens.td or doc.stats[body].text_len == 0:
        return [], body, set()
    target = dens.best[body]
    threshold = threshold_of(dens, target, params)
    if params.scope == "leader":
        return [target], target, below_threshold(dens, target, threshold)
    return mark_content(dens, threshold), target, set()


def resolve_params(params: Params | None, overrides: dict[str, Any], cls: type = Params) -> Any:
    """A Params from ``params=`` and keyword overrides of its fields."""
    base = params if params is not None else cls()
    known = {f.name for f in fields(cls)}
    unknown = set(overrides) - known
    if unknown:
        names = ", ".join(sorted(unknown))
        raise TypeError(f"unknown parameter(s) for {cls.__qualname__}: {names}")
    return replace(base, **overrides) if overrides else base


def extract(
    html: str | bytes | Document,
    url: str | None = None,
    params: Params | None = None,
    **overrides: Any,
) -> Result:
    """Main text of a page by CETD (see the module docstring)."""
    p = resolve_params(params, overrides)
    doc = as_document(html, url)
    roots, target, skip = cetd(doc, p)
    text = render(roots, skip)
    return Result(
        text=text,
        title=doc.title,
        method="cetd",
        page_type=PageType.ARTICLE if text else None,
        node=target if text else None,
        language=doc.language if text else None,
    )
