"""SCEDD: short-content extraction via the depth of the DOM tree.

Xi et al., "A Content Extraction Method for Short Web Pages" (Journal of
Chinese Information Processing, 2016) — seed ``scedd-short-content-extraction``.
A short body can weigh less than the copyright footer, so density *sums*
pick the wrong block. The seed therefore (1) classifies pages: a rough
text-density extraction under 450 bytes means "short"; (2) on short pages
takes the node of maximum (link-weighted) text density, refusing nodes that
start in the top 5% or bottom 5% of the page's lines (up to five retries,
each narrowing the search to after / before the refused node), after cutting
everything that precedes the headline; the smallest density on the chosen
node's ancestor path is the threshold for keeping content nodes.

A line lies in the top 5% only when the whole line does (on a four-line
page the first line is no header), and an ancestor's density for the
threshold counts its own tag among its tags, as a leaf's count of 0 is taken
as 1: otherwise a body of nothing but paragraphs has their mean length for
its density and the threshold cuts the shorter half of them.

Where the seed is silent (it shows no code for step 8) we climb from the
chosen node towards the highest ancestor that lies wholly inside the legal
window, add the contiguous sibling blocks inside the window that clear the
threshold, and prune inside them the blocks under the threshold. On a short
page the content is kept tight, as the seed's first observation says (a short
body sits under one dense tag): the climb stops at a parent that is mostly
other text (when the page's headline was found in its body, the mark of a
single-record page); a single weak block between siblings does not end the run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lxml import etree

from .boilerplate import clean_lines
from .density import Params as CetdParams
from .density import body_elements, compute_density
from .document import BLOCK_TAGS, HEADING_TAGS, Document, as_document, data_table_nodes, text_lines
from .params import resolve_params
from .result import LengthClass, PageType, Result

# Form controls the seed cleans before measuring (step 2); <form> itself is
# kept because some sites wrap the whole page in one.
_FORM_CONTROLS = frozenset(
    {"input", "select", "option", "optgroup", "textarea", "button", "noembed", "label"}
)


# Blocks that may be pruned inside the content (inline elements never are:
# a short <span> or <a> inside a sentence is part of it).
_PRUNABLE = BLOCK_TAGS - {"br", "hr"}


@dataclass(frozen=True, slots=True)
class Params:
    """SCEDD thresholds: the seed's published values unless noted."""

    top_coef: float = 0.05  # seed §4.3.1, Fig. 5: content never starts above line_sum*0.05
    bottom_coef: float = 0.95  # seed §4.3.1, Fig. 4: nor below line_sum*0.95
    max_retries: int = 5  # seed §3.2 step 6: at most five searches
    short_bytes: int = 450  # seed §4.2, Table 1: rough text under 450 bytes is "short"
    # The seed counts bytes; it does not name the encoding. We use UTF-8
    # (3 bytes per Chinese character, 1 per ASCII letter).
    encoding: str = "utf-8"
    # Weight of link characters in the density (seed step 1: "links weigh
    # less"; no value published). 0.1 was picked among 0, 0.1, 0.3, 0.5 by
    # char F1 on daniel-zh/en, zh-news and magic-html (0.1 best on all four).
    link_weight: float = 0.1
    # A body element is the headline when its text covers at least this share
    # of the <title> text (or the <title> covers this share of it). Not in the
    # seed; 0.5 keeps site names and breadcrumbs from passing as headlines.
    title_min_cover: float = 0.5
    # Add the contiguous legal siblings of the kept block that clear the
    # threshold (not in the seed, which shows no code for its step 8).
    extend_siblings: bool = True
    # Climb from the max-density node to its highest ancestor wholly inside
    # the legal window before keeping siblings (not in the seed). Tuned by
    # char F1: without climbing, the densest node is one paragraph
    # (daniel-zh 0.85 -> 0.44 without climb and siblings).
    climb: bool = True
    # Short pages (seed §3.1, observation 1: a short body sits under one
    # dense tag, its siblings may be dense too, only the densest is taken):
    # climb to a parent only while the kept block holds at least this share
    # of the parent's weighted text, i.e. through wrappers, not into a
    # container that is mostly something else. 0 = climb as on long pages.
    # Tried 0.3-0.8 on the 40 short article pages of the development sets
    # (daniel-zh/en, zh-news, magic-html articles, readability, wcxb-dev
    # articles; before tight_needs_title), with short_sibling_gap 1: 0.6 gave
    # the best char F1, 0.781 (0.5: 0.776; 0.7-0.8: 0.755, precision error
    # within 20% on 75% of the pages instead of 72.5%, recall 0.75 not 0.82).
    short_climb_share: float = 0.6
    # Short pages: the siblings kept must be contiguous with the kept block,
    # bridging at most this many siblings under the threshold (an ad slot or
    # "continued below" label inside the body; jusText's "short between good
    # is good"). 0 stops at the first one (char F1 0.707 on those pages),
    # 1: 0.781, 2: 0.773.
    short_sibling_gap: int = 1
    # Long pages: siblings under the threshold bridged (0: stop at the first,
    # the earlier rule); None keeps every legal sibling over the threshold,
    # contiguous or not (CETD's marking, which the seed applies to long
    # pages). For SCEDD alone None is better: benchmarks.extraction, first 60
    # pages of each set, mean score 0.826 with 0 (1: 0.845, 2: 0.852, None:
    # 0.863); all pages 0.807 -> 0.837, no set worse. But any change here
    # moves auto's medoid vote (SCEDD is one of its six voters) on a zh-news
    # page from a near tie into list routing, under auto's quality floor, so
    # the default stays 0 until auto's routing is settled.
    long_sibling_gap: int | None = 0
    # The short-page climb rule only on pages whose headline was found in the
    # body (seed step 4; SCEDD is for single-record news and blog pages).
    # Short landing, list and forum pages have no headline there and their
    # content spreads over many blocks: without this the rule cost wcxb-dev
    # 0.010 char F1 (list pages 0.034) on all pages; with it wcxb-dev moves
    # 0.694 -> 0.693 and the 40 short articles score F1 0.797 (precision error
    # within 20% on 70% of them instead of 72.5%).
    tight_needs_title: bool = True
    # Run CETD instead when the page classifies as long (the seed's
    # divide-and-conquer pipeline). Off: always run SCEDD.
    route_long: bool = False
    # Drop the generic boilerplate lines (:mod:`extractors.boilerplate`:
    # bylines, editor and source lines, disclaimers) from the kept blocks.
    # Not in the seed; a short body's container holds them beside the text,
    # and on a short page they are a large share of the output. On the 46
    # short article pages of the seed bar (first half / second half), with
    # the Chinese credit-line rule, precision error within 20% 65% / 61% ->
    # 74% / 78%.
    clean: bool = True


# -- the short/long classifier ---------------------------------------------


def rough_text(doc: Document) -> str:
    """The classifier's rough extraction: the text under CETD's
    max-density-sum node, before any threshold marking.

    The seed (§2.1) measures "the text of the densest tag". The text of
    CETD's whole output almost never falls under 450 bytes (its marking adds
    headers and footers), and the single densest tag almost always does (one
    long paragraph); the density-sum leader flags about as many pages short
    as the seed reports (144 of 2,823 = 5%; here 10% of 2,194 pages of the
    development sets, 32 of the 56 whose true body is under 450 bytes).
    """
    if doc.body not in doc.stats or doc.stats[doc.body].text_len == 0:
        return ""
    # Shared: a crawled page's length is classified by the classify
    # pipeline and again by SCEDD inside auto.
    return doc.derived(
        "scedd.rough_text",
        lambda: "\n".join(text_lines(compute_density(doc, CetdParams()).best[doc.body])),
    )


def text_bytes(text: str, encoding: str = "utf-8") -> int:
    """Size of the text without whitespace, in bytes of ``encoding``."""
    return len("".join(text.split()).encode(encoding, errors="replace"))


def classify_length(
    html: str | bytes | Document, params: Params | None = None
) -> tuple[LengthClass, str]:
    """Short or long page by the seed's rule, with the rough text it used."""
    params = params or Params()
    doc = as_document(html)
    text = rough_text(doc)
    size = text_bytes(text, params.encoding)
    return (LengthClass.SHORT if size < params.short_bytes else LengthClass.LONG), text


# -- SCEDD -------------------------------------------------------------------


@dataclass(slots=True)
class _Scores:
    """Link-weighted text density of each element after cleaning."""

    density: dict[etree._Element, float]
    chars: dict[etree._Element, float]
    removed: set[etree._Element]
    tags: dict[etree._Element, int]

    def ancestor_density(self, el: etree._Element) -> float:
        """An ancestor's density for the threshold, its own tag counted
        among its tags: a leaf block's count of 0 is taken as 1 (itself), so
        a parent of n plain paragraphs counts n + 1. Counted without it, a
        body holding nothing but paragraphs has their mean length for its
        density, and the threshold cut every paragraph shorter than that."""
        chars = self.chars[el]
        return chars / (self.tags[el] + 1) if chars > 0 else 0.0


def _norm(text: str) -> str:
    return "".join(text.split()).lower()


def find_title(doc: Document, params: Params) -> etree._Element | None:
    """The body element holding the headline: the one whose text best matches
    the ``<title>`` (a heading wins ties, then the earliest)."""
    if not doc.title:
        return None
    title = _norm(doc.title)
    if len(title) < 4:
        return None
    stats = doc.stats
    best, best_score = None, 0.0
    for el in body_elements(doc):
        st = stats[el]
        if st.text_len < 4 or st.text_len > 2 * len(title) or st.tag_count > 8:
            continue
        if st.link_count and st.link_text_len * 2 > st.text_len:
            continue  # a link to another page, not this page's headline
        text = _norm("".join(el.itertext()))
        if text in title:
            score = len(text) / len(title)
        elif title in text:
            score = len(title) / len(text)
        else:
            continue
        score += 0.01 if el.tag in HEADING_TAGS else 0.0
        if score > best_score + 1e-9:
            best, best_score = el, score
    return best if best is not None and best_score >= params.title_min_cover else None


def _removed_nodes(doc: Document, title: etree._Element | None) -> set[etree._Element]:
    """Form controls, the headline and everything before it (seed steps 2, 4)."""
    removed: set[etree._Element] = set()
    for el in body_elements(doc):
        if el.tag in _FORM_CONTROLS and el not in removed:
            removed.add(el)
            removed.update(el.iterdescendants())
    if title is None:
        return removed
    ancestors = set()
    el = title
    while el is not None:
        ancestors.add(el)
        el = el.getparent()
    end = doc.stats[title].index + doc.stats[title].tag_count
    for el in body_elements(doc):
        idx = doc.stats[el].index
        if idx > end:
            break
        if el not in ancestors or el is title:
            removed.add(el)
    return removed


def score_nodes(doc: Document, removed: set[etree._Element], params: Params) -> _Scores:
    """Weighted chars / tags for every element, removed subtrees left out.

    One bottom-up pass: each element's counts are its NodeStats minus what
    its removed descendants held.
    """
    stats = doc.stats
    nodes = body_elements(doc)
    cut: dict[etree._Element, list[int]] = {}  # [chars, link chars, tags] removed below
    density: dict[etree._Element, float] = {}
    chars: dict[etree._Element, float] = {}
    tag_counts: dict[etree._Element, int] = {}
    w = params.link_weight
    for el in reversed(nodes):
        st = stats[el]
        c, lc, t = cut.pop(el, (0, 0, 0))
        text = st.text_len - c
        links = st.link_text_len - lc
        tags = st.tag_count - t
        weighted = (text - links) + w * links
        chars[el] = weighted
        tag_counts[el] = tags
        density[el] = weighted / max(1, tags) if weighted > 0 else 0.0
        parent = el.getparent()
        if parent is None or parent not in stats:
            continue
        acc = cut.setdefault(parent, [0, 0, 0])
        if el in removed:
            acc[0] += st.text_len
            acc[1] += st.link_text_len
            acc[2] += st.tag_count + 1
        else:
            acc[0] += c
            acc[1] += lc
            acc[2] += t
    return _Scores(density, chars, removed, tag_counts)


@dataclass(slots=True)
class _Window:
    """Where content may lie: element indexes [lo, hi] and lines [top, bottom]."""

    lo: int
    hi: int
    top: float
    bottom: float


def locate(doc: Document, scores: _Scores, params: Params) -> tuple[etree._Element | None, _Window]:
    """Seed step 6: the max-density node in a legal position, with the
    window narrowed by each refused candidate."""
    stats = doc.stats
    line_sum = doc.line_count
    window = _Window(0, len(stats), line_sum * params.top_coef, line_sum * params.bottom_coef)
    candidates = sorted(
        (el for el, d in scores.density.items() if d > 0 and not _inside_removed(el, scores)),
        key=lambda el: (-scores.density[el], stats[el].index),
    )
    found = None
    tries = 0
    for el in candidates:
        st = stats[el]
        if not window.lo <= st.index <= window.hi:
            continue
        found = el
        if st.line + 1 <= window.top:  # the whole line lies in the top share
            window.lo = st.index + st.tag_count + 1  # search after it
        elif st.line > window.bottom:
            window.hi = st.index - 1  # search before it
        else:
            return el, window
        tries += 1
        if tries >= params.max_retries:
            break
    return found, window


def _inside_removed(el: etree._Element, scores: _Scores) -> bool:
    return el in scores.removed


def _in_window(doc: Document, el: etree._Element, window: _Window) -> bool:
    st = doc.stats[el]
    return (
        window.lo <= st.index
        and st.index + st.tag_count <= window.hi
        and st.line + 1 > window.top
        and st.last_line <= window.bottom
    )


def content_roots(
    doc: Document,
    leader: etree._Element,
    scores: _Scores,
    window: _Window,
    params: Params,
    short: bool = False,
    titled: bool = True,
) -> tuple[list[etree._Element], float]:
    """Seed steps 7-8: the threshold from the leader's ancestors and the
    blocks kept around the leader (``short``: the page is a short page;
    ``titled``: its headline was found in the body)."""
    body = doc.body
    threshold = scores.density[leader]
    el = leader.getparent()
    while el is not None and el in scores.density:
        threshold = min(threshold, scores.ancestor_density(el))
        if el is body:
            break
        el = el.getparent()
    # Climb while the whole ancestor lies in the legal window.
    root = leader
    while params.climb and root.getparent() is not None and root.getparent() is not body:
        parent = root.getparent()
        if parent not in scores.density or not _in_window(doc, parent, window):
            break
        share = scores.chars[root] / max(scores.chars[parent], 1e-9)
        if short and titled and share < params.short_climb_share:
            break
        root = parent
    roots = [root]
    if not params.extend_siblings:
        return roots, threshold
    # Siblings that are legal and dense enough belong to the content; on short
    # pages only those in a run with the kept block (see Params).
    max_gap = params.short_sibling_gap if short else params.long_sibling_gap
    for direction in (root.itersiblings(preceding=True), root.itersiblings()):
        gap = 0
        for sib in direction:
            if sib not in scores.density or scores.chars[sib] <= 0:
                continue
            if sib in scores.removed or not _in_window(doc, sib, window):
                break  # positions only grow: every further sibling is out too
            if scores.density[sib] < threshold:
                gap += 1
                if max_gap is not None and gap > max_gap:
                    break
                continue
            gap = 0
            roots.append(sib)
    roots.sort(key=lambda e: doc.stats[e].index)
    return roots, threshold


def _pruned(doc: Document, roots: list[etree._Element], scores: _Scores, threshold: float) -> set:
    """Inside the kept blocks, removed nodes and blocks under the threshold."""
    skip: set[etree._Element] = set()
    for root in roots:
        tables = data_table_nodes(root, doc.stats)
        for el in root.iterdescendants():
            if el in scores.removed or (
                el.tag in _PRUNABLE
                and el not in tables
                and 0 < scores.density.get(el, 0.0) < threshold
            ):
                skip.add(el)
    return skip


def scedd(
    doc: Document, params: Params | None = None, short: bool = False
) -> tuple[list[etree._Element], etree._Element | None, etree._Element | None, set]:
    """Run SCEDD; return the kept blocks, the leader, the headline element
    and the nodes to leave out when rendering (``short``: the page classified
    short, which keeps the content tighter; see :class:`Params`)."""
    params = params or Params()
    if not doc.stats.get(doc.body) or doc.stats[doc.body].text_len == 0:
        return [], None, None, set()
    title = find_title(doc, params)
    scores = score_nodes(doc, _removed_nodes(doc, title), params)
    leader, window = locate(doc, scores, params)
    if leader is None:
        return [], None, title, set()
    # The tight climb is for single-record pages: ones whose headline was
    # found in the body (seed step 4). Without one (landing, list, forum
    # pages) the content is spread out and the climb goes on as on long pages.
    titled = title is not None or not params.tight_needs_title
    roots, threshold = content_roots(doc, leader, scores, window, params, short, titled)
    return roots, leader, title, _pruned(doc, roots, scores, threshold)


def extract(
    html: str | bytes | Document,
    url: str | None = None,
    params: Params | None = None,
    **overrides: Any,
) -> Result:
    """Main text of a short page by SCEDD (see the module docstring)."""
    p = resolve_params(params, overrides, Params)
    doc = as_document(html, url)
    length, rough = classify_length(doc, p)
    if p.route_long and length is LengthClass.LONG:
        from .density import extract as cetd_extract

        result = cetd_extract(doc)
        result.method = "scedd"
        result.length_class = length
        return result
    roots, leader, title_el, skip = scedd(doc, p, short=length is LengthClass.SHORT)
    lines: list[str] = []
    for root in roots:
        lines.extend(text_lines(root, skip=skip))
    title = " ".join(text_lines(title_el)) if title_el is not None else doc.title
    if p.clean:
        lines = clean_lines(lines, [title or doc.title or ""])
    text = "\n".join(lines)
    return Result(
        text=text,
        title=title or doc.title,
        method="scedd",
        page_type=PageType.ARTICLE if text else None,
        length_class=length,
        node=leader if text else None,
        language=doc.language if text else None,
    )
