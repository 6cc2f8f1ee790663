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

As in the authors' code, ``<select>`` counts as a link (and so does
``<textarea>``), and an element's link tags are the tags inside its
anchors plus the anchors and the children made only of links, so that a
list of links has a density of 0. Inside the leader the headline (it is the
result's title), blocks of markup far sparser than the leader and blocks of
widget markup (few characters per tag) are left out too, and the output
loses the generic boilerplate lines (:mod:`extractors.boilerplate`).

Character and tag counts come from the shared
:class:`~extractors.document.NodeStats` (non-whitespace characters); link
tags, densities and density sums are computed in one bottom-up pass:
O(number of elements).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from lxml import etree

from .boilerplate import clean_lines
from .document import BLOCK_TAGS, Document, NodeStats, as_document, data_table_nodes, text_lines
from .params import resolve_params
from .result import PageType, Result

_E = math.e
# Blocks that may be left out inside the content.
_PRUNABLE = BLOCK_TAGS - {"br", "hr"}
# Controls whose text is counted as link text, as the authors' code counts
# <select> with <a>: a jump menu's options lead elsewhere like a list of
# links. A <textarea>'s text is an input's value (often escaped markup), not
# the page's prose, so it counts the same way. Their text is never rendered.
# The authors' code treats <button> alike; we do not: buttons now carry
# content, the questions of FAQ accordions (wcxb-dev: char F1 of the first
# 30 pages 0.784 with <button>, 0.816 without).
_CONTROLS = ("select", "textarea")
_HEADINGS = ("h1", "h2", "h3")
_TABLE = frozenset({"table", "thead", "tbody", "tfoot", "tr", "td", "th", "caption"})
# A headline shorter than this (non-space characters) is not matched.
_MIN_HEADLINE = 4


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
    # Count the text of <select> and <textarea> as link text (the authors'
    # code does so for <select>) and leave it out of the output.
    controls_as_links: bool = True
    # Link tags of an element: "subtree", every tag inside an anchor plus
    # the anchors and the children made only of links (the authors' code,
    # so that a list of links has a density of 0); "anchors": the <a href>
    # elements only.
    link_tags: str = "subtree"
    # Leave out the headline (the first heading of the content when it
    # repeats the page's <title>): it is the result's title.
    drop_headline: bool = True
    # Inside the leader, a block holding markup (tags) is also left out when
    # its density is under this share of the leader's own: the leader is the
    # content region, and a block much sparser than it (date and source
    # lines, tag and share bars, comment forms) is not its prose. Text-only
    # blocks are exempt: their density grows with their length alone, so a
    # short paragraph or subheading would always fall under it. Not in the
    # paper. Tuned on the even half of the seed bar's 266 long Chinese pages
    # (0.2/0.3/0.4/0.5/0.7/1.0: 122/126/126/126/127/127 of 133 within the
    # 20% bound, 0 share: 122): 0.3, the start of the plateau; from 0.5 on,
    # short paragraphs go and char F1 drops (daniel-zh 0.931 at 0.3, 0.923 at
    # 0.7). 0 turns it off.
    leader_share: float = 0.3
    # Inside the leader, a block of at least ``markup_min_tags`` tags is also
    # left out when it holds fewer than this many characters per tag (its
    # plain text density C/T): widget markup inside the content box (a video
    # player's controls, rating and share bars, comment lists with their
    # buttons) whose composite density is pulled above the leader share by
    # text without links, while the leader itself is diluted by that markup.
    # A block whose text is mostly a table's is exempt: data cells are
    # markup-dense by nature. Not in the paper. Tuned with ``clean`` on, on
    # the even half of the seed bar's 262 long Chinese pages (0/2/3/4/5/6/8:
    # 121/122/122/122/122/123/123 of 131 within the 20% bound; mean LCS F1
    # 0.9370 at 0, 0.9411 at 4, 0.9434 at 6, 0.9433 at 8): 6; without the
    # table exemption 6 cost wcxb-dev (first 100) 0.003 char F1 on product
    # and price tables. It also drops a forum's replies (magic-html forum
    # pages: CETD 0.574 -> 0.555), so auto's CETD voter and the page-type
    # classifier's length feature run with it off. 0 turns it off.
    markup_chars_per_tag: float = 6.0
    # The fewest tags a block needs before ``markup_chars_per_tag`` judges it
    # (a paragraph with a link or two is never widget markup). Not tuned.
    markup_min_tags: int = 3
    # Drop the generic boilerplate lines (:mod:`extractors.boilerplate`:
    # editor, source and disclaimer lines, share prompts, readers' comments
    # after a comments header) from the output, as SCEDD does. Not in the
    # paper: the leader holds them beside the text. Seed bar's even half
    # 119 -> 121 of 131; CETD's char F1 (first 100) daniel-en 0.918 -> 0.942,
    # daniel-zh 0.905 -> 0.907, zh-news 0.981 -> 0.989, magic-html 0.749 ->
    # 0.747, wcxb-dev 0.801 -> 0.801. auto's voters vote on the raw output
    # (auto cleans the winner) and the page-type classifier measures the raw
    # output's length, so both run CETD with it off.
    clean: bool = True
    # A leader that yields no text (every block under the threshold, or with
    # ``clean`` every line boilerplate: a site footer of licence and report
    # lines outweighing a short article) is refused and the next
    # max-density-sum node outside it tried, at most this many times, as
    # SCEDD retries an excluded node (at most 5). Not in the paper.
    retries: int = 5


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
    """Elements of ``<body>`` in document order (the body first): listed
    once per document, for CETD and SCEDD walk it several times (read only)."""
    stats = doc.stats
    return doc.derived("body_elements", lambda: [el for el in doc.body.iter() if el in stats])


def controls(doc: Document) -> list[etree._Element]:
    """The outermost form controls of ``<body>`` that hold text."""
    stats = doc.stats
    found: list[etree._Element] = []
    end = -1
    for el in doc.body.iter(*_CONTROLS):
        st = stats.get(el)
        if st is None or st.index <= end or not st.text_len:
            continue
        found.append(el)
        end = st.index + st.tag_count
    return found


def control_links(doc: Document) -> dict[etree._Element, int]:
    """Link characters that form controls add to themselves, their
    descendants and each element on their path to ``<body>``: all of a
    control's text is link text, as all of an anchor's."""
    stats = doc.stats
    body = doc.body
    extra: dict[etree._Element, int] = {}
    for ctl in controls(doc):
        st = stats[ctl]
        chars = st.text_len - st.link_text_len
        if chars <= 0:
            continue
        for sub in ctl.iterdescendants():
            sst = stats.get(sub)
            if sst is not None:
                extra[sub] = sst.text_len - sst.link_text_len
        el: etree._Element | None = ctl
        while el is not None and el in stats:
            extra[el] = extra.get(el, 0) + chars
            if el is body:
                break
            el = el.getparent()
    return extra


def compute_density(doc: Document, params: Params | None = None) -> Density:
    """Text density, density sum and the density-sum leader of every subtree,
    in one bottom-up pass (once per document and parameters: CETD and
    SCEDD's length classifier share it)."""
    params = params or Params()
    # Only these fields shape the densities: runs that differ in the others
    # (auto's raw CETD, SCEDD's classifier, the cleaned default) share them.
    key = ("density", params.composite, params.controls_as_links, params.link_tags)
    return doc.derived(key, lambda: _compute_density(doc, params))


def _compute_density(doc: Document, params: Params) -> Density:
    stats = doc.stats
    body_st = stats.get(doc.body, NodeStats())
    use_controls = params.controls_as_links
    extra = control_links(doc) if use_controls else {}
    body_links = body_st.link_text_len + extra.get(doc.body, 0)
    ratio = body_links / body_st.text_len if body_st.text_len else 0.0
    composite = params.composite
    subtree_tags = params.link_tags == "subtree"
    nodes = body_elements(doc)

    def density(chars: int, tags: int, link_chars: int, link_tags: int) -> float:
        if composite:
            return composite_density(chars, tags, link_chars, link_tags, ratio)
        return plain_density(chars, tags)

    td: dict[etree._Element, float] = {}
    ds: dict[etree._Element, float] = {}
    best: dict[etree._Element, etree._Element] = {}
    lc: dict[etree._Element, int] = {}  # link characters
    lt: dict[etree._Element, int] = {}  # link tags
    linkish: set[etree._Element] = set()  # anchors and controls
    for el in reversed(nodes):  # children before parents
        st = stats[el]
        tag = el.tag
        links = st.link_text_len + extra.get(el, 0)
        lc[el] = links
        # The authors' LinkTagNumber: every tag under an anchor, each anchor,
        # and each child made of nothing but links.
        anchor = subtree_tags and (
            (tag == "a" and el.get("href") is not None) or (use_controls and tag in _CONTROLS)
        )
        count_tags = subtree_tags and not anchor
        tags = 0
        total = 0.0
        child_chars = child_links = 0
        leader, leader_ds = el, -1.0
        has_children = False
        for child in el:
            if child not in td:
                continue
            has_children = True
            cst = stats[child]
            clc = lc[child]
            if count_tags:
                ct = lt[child]
                tags += ct
                if child in linkish or (ct and ct == cst.tag_count and clc == cst.text_len):
                    tags += 1
            total += td[child]
            child_chars += cst.text_len
            child_links += clc
            cand = best[child]
            if ds[cand] > leader_ds:
                leader, leader_ds = cand, ds[cand]
        if anchor:
            linkish.add(el)
            tags = st.tag_count
        elif not subtree_tags:
            tags = st.link_count
        lt[el] = tags
        td[el] = density(st.text_len, st.tag_count, links, tags)
        if not has_children:
            ds[el] = td[el]
            best[el] = el
            continue
        # The element's own text (and its children's tails) counts as one text node.
        own = st.text_len - child_chars
        if own > 0:
            total += density(own, 0, max(0, links - child_links), 0)
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


def below_threshold(
    dens: Density,
    root: etree._Element,
    threshold: float,
    inner: float = 0.0,
    params: Params | None = None,
) -> set[etree._Element]:
    """Blocks inside ``root`` whose density is under the threshold (inline
    elements stay: a link inside a sentence belongs to it), blocks with
    markup inside whose density is under ``inner``, and blocks of widget
    markup (``Params.markup_chars_per_tag``)."""
    td = dens.td
    stats = dens.doc.stats
    eps = 1e-9
    per_tag = params.markup_chars_per_tag if params else 0.0
    min_tags = params.markup_min_tags if params else 0
    out = set()
    tables = data_table_nodes(root, stats)
    for el in root.iterdescendants():
        if el.tag not in _PRUNABLE or el not in td or el in tables:
            continue
        d = td[el]
        st = stats[el]
        sparse = d < threshold - eps or (d < inner - eps and st.tag_count)
        if sparse or (
            per_tag
            and st.tag_count >= min_tags
            and st.text_len < per_tag * st.tag_count
            and not _mostly_table(el, st.text_len, stats)
        ):
            out.add(el)
    return out


def _mostly_table(el: etree._Element, chars: int, stats: dict[etree._Element, NodeStats]) -> bool:
    """Whether ``el`` is part of a table or holds at least half its text in one."""
    if el.tag in _TABLE:
        return True
    return any(2 * stats[t].text_len >= chars for t in el.iter("table") if t in stats)


def headline(doc: Document, root: etree._Element) -> etree._Element | None:
    """The first heading inside ``root`` when it repeats the page's
    ``<title>``: the headline, which is the result's title, not its text."""
    title = "".join((doc.title or "").split())
    if len(title) < _MIN_HEADLINE:
        return None
    el = next(root.iter(_HEADINGS), None)
    if el is None:
        return None
    text = "".join("".join(el.itertext()).split())
    return el if len(text) >= _MIN_HEADLINE and (text in title or title in text) else None


def next_leader(dens: Density, refused: list[etree._Element]) -> etree._Element | None:
    """The max-density-sum node outside the ``refused`` leaders' subtrees and
    their ancestors (ties go to the ancestor, as in :func:`compute_density`)."""
    stats = dens.doc.stats
    spans = [(stats[el].index, stats[el].index + stats[el].tag_count) for el in refused]
    found, found_ds = None, 0.0
    for el in body_elements(dens.doc):
        ds = dens.ds[el]
        if ds <= found_ds:
            continue
        first = stats[el].index
        last = first + stats[el].tag_count
        if not any(first <= end and start <= last for start, end in spans):
            found, found_ds = el, ds
    return found


def cetd(
    doc: Document, params: Params | None = None, refused: list[etree._Element] | None = None
) -> tuple[list[etree._Element], etree._Element, set[etree._Element]]:
    """Run CETD; return the content roots, the max-density-sum node and the
    nodes to leave out when rendering. ``refused`` leaders (and what holds
    them) are passed over."""
    params = params or Params()
    dens = compute_density(doc, params)
    body = doc.body
    if body not in dens.td or doc.stats[body].text_len == 0:
        return [], body, set()
    target = next_leader(dens, refused) if refused else dens.best[body]
    if target is None:
        return [], body, set()
    # The body as its own leader (a page that is all article): its density
    # sums its children's, so its own would prune them all.
    threshold = threshold_of(dens, target, params) if target is not body else 0.0
    skip = set(controls(doc)) if params.controls_as_links else set()
    if params.drop_headline and (head := headline(doc, target)) is not None:
        skip.add(head)
    if params.scope == "leader":
        inner = params.leader_share * dens.td[target]
        return [target], target, below_threshold(dens, target, threshold, inner, params) | skip
    return mark_content(dens, threshold), target, skip


def extract(
    html: str | bytes | Document,
    url: str | None = None,
    params: Params | None = None,
    **overrides: Any,
) -> Result:
    """Main text of a page by CETD (see the module docstring)."""
    p = resolve_params(params, overrides, Params)
    doc = as_document(html, url)
    roots, target, skip = cetd(doc, p)
    refused: list[etree._Element] = []
    while True:
        text = render(roots, skip)
        if p.clean and text:
            text = "\n".join(clean_lines(text.split("\n"), [doc.title or ""]))
        if text or not roots or len(refused) >= p.retries:
            break
        # The leader yields nothing (all under the threshold, or all
        # boilerplate: a site footer): try the next.
        refused.append(target)
        roots, target, skip = cetd(doc, p, refused)
    return Result(
        text=text,
        title=doc.title,
        method="cetd",
        page_type=PageType.ARTICLE if text else None,
        node=target if text else None,
        language=doc.language if text else None,
    )
