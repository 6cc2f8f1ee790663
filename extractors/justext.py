"""jusText (Pomikálek) with the Chinese adaptation of the seed
``justext-chinese-adaptation.zh.txt``.

The algorithm reads as its stages, as in jusText's ``core.justext()``:

1. :func:`make_paragraphs` splits the cleaned tree at block tags and at runs of
   two or more ``<br>`` (the cleaned tree has no head, script or style left);
2. :func:`classify_context_free` gives each paragraph a class from its link
   density, length and stopword density alone (``<select>`` and "©" are bad);
3. :func:`revise_classes` re-classifies short and near-good paragraphs from
   their neighbours, and keeps headings that lead into good text.

Chinese has no spaces, so whitespace tokens make every paragraph one "word"
and the English stoplist never matches (the seed's diagnosis). Here the
tokenizer is pluggable and chosen per language, and each language has its own
stoplist and thresholds (:meth:`Params.for_language`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, fields, replace
from enum import Enum
from typing import Any

from lxml import etree

from . import stoplists
from .document import (
    CELL_SEPARATOR,
    CELL_TAGS,
    HEADING_TAGS,
    PREFORMATTED_TAGS,
    Document,
    as_document,
    in_data_table,
    is_data_row,
    row_line,
)
from .result import Result
from .text import Tokenizer, cjk_ratio, clean_text, collapse_ws, preformatted_text, tokens

METHOD = "justext"
# Language code for pages no stoplist fits: jusText's language-independent
# mode (no stoplist, stopword thresholds 0).
UNDETERMINED = "und"
# A page at least this share CJK ideographs is Chinese (text.is_chinese's cut).
CHINESE_SHARE = 0.3

# Tags that end one paragraph and start the next: the seed's list, plus
# <body> (as in jusText's code) and the HTML5 block tags the 2011 list
# predates — where the seed is silent, split where a browser breaks lines.
_SEED_BLOCKS = (
    "blockquote caption center col colgroup dd div dl dt fieldset form h1 h2 h3 h4 h5 h6"
    " legend li optgroup option p pre table td textarea tfoot th thead tr ul"
)
_HTML5_BLOCKS = (
    "body ol article section header footer nav aside main figure figcaption address"
    " details summary hr menu dir tbody"
)
PARAGRAPH_TAGS = frozenset((_SEED_BLOCKS + " " + _HTML5_BLOCKS).split())
_WS = re.compile(r"\s+")
_COPYRIGHT = ("\xa9", "&copy")


class ParagraphClass(Enum):
    """jusText's paragraph classes."""

    BAD = "bad"  # boilerplate
    SHORT = "short"  # too short to tell alone
    NEAR_GOOD = "near-good"  # between short and good
    GOOD = "good"  # main content


_BAD, _SHORT, _NEAR, _GOOD = (
    ParagraphClass.BAD,
    ParagraphClass.SHORT,
    ParagraphClass.NEAR_GOOD,
    ParagraphClass.GOOD,
)


@dataclass(frozen=True, slots=True)
class Params:
    """jusText's thresholds. Defaults are the seed's (English); use
    :meth:`for_language` for another language's preset."""

    max_link_density: float = 0.2  # seed: MAX_LINK_DENSITY
    length_low: int = 70  # seed: LENGTH_LOW, characters
    length_high: int = 200  # seed: LENGTH_HIGH, characters
    stopwords_low: float = 0.30  # seed: STOPWORDS_LOW
    stopwords_high: float = 0.32  # seed: STOPWORDS_HIGH
    # jusText: short/near-good headings this many characters before good text are kept.
    max_heading_distance: int = 200
    no_headings: bool = False  # jusText's --no-headings
    language: str = "en"  # selects the stoplist
    tokenizer: Tokenizer = Tokenizer.WHITESPACE
    # Stopword density is measured on at most this many leading characters of a
    # paragraph: a sample estimates a density well and keeps jieba's time bounded.
    max_sample_chars: int = 3000
    stoplist: frozenset[str] | None = field(default=None, repr=False)  # None: the language's

    @classmethod
    def for_language(cls, language: str | None, **overrides: Any) -> Params:
        """The preset of ``language``: ``"zh"``'s own; the seed's thresholds
        with the language's stoplist for the others that have one; jusText's
        language-independent mode for the rest."""
        lang = (language or "en").lower().split("-")[0]
        preset = dict(_PRESETS.get(lang, {}))
        if lang not in _PRESETS and not stoplists.load(lang):
            preset = dict(_LANGUAGE_INDEPENDENT)
        preset.update(overrides)
        return cls(language=lang, **preset)

    def words(self) -> frozenset[str]:
        """The stoplist in force."""
        if self.stoplist is not None:
            return self.stoplist
        return stoplists.load(self.language)


# Chinese preset (seed, "方案一": cut with jieba, then retune the parameters).
# Lengths: jusText counts characters. In running text an English word takes
# 5.41 characters (4.41 letters + a space) and a jieba word 1.64 characters
# (frequency-weighted means over wordfreq's lists, scripts/derive_stoplists.py
# --ratio), so the same number of words is 3.29 times fewer characters:
# 70 -> 21, 200 -> 61, heading distance 200 -> 61.
# Stopword densities: a threshold means where it cuts the density
# distribution of real paragraphs. On English web text (wcxb-dev truth
# paragraphs) 0.30/0.32 cut at the 9.7th/11.1th percentiles; the same
# percentiles of Chinese news paragraphs (daniel-zh truth, jieba, zh list) are
# 0.079/0.088 (derive_stoplists.py --calibrate). Chinese text has fewer
# grammar words, so the seed's values would drop ~40% of Chinese paragraphs.
_PRESETS: dict[str, dict[str, Any]] = {
    "en": {},
    "zh": {
        "length_low": 21,
        "length_high": 61,
        "max_heading_distance": 61,
        "stopwords_low": 0.08,
        "stopwords_high": 0.09,
        "tokenizer": Tokenizer.JIEBA,
    },
}


# Languages without a stoplist: jusText's language-independent mode.
_LANGUAGE_INDEPENDENT: dict[str, Any] = {"stopwords_low": 0.0, "stopwords_high": 0.0}


@dataclass(slots=True, eq=False)
class Paragraph:
    """One block of text with what jusText measures of it."""

    text: str
    link_chars: int  # characters of the text inside <a>
    element: etree._Element  # innermost block element open where it starts
    heading: bool = False  # starts inside <h1>..<h6>
    in_select: bool = False  # holds text of a <select>
    shown: str | None = None  # preformatted text (<pre>) as the page shows it
    row: bool = False  # a table row of data (see ``document.is_data_row``)
    # A row of a data table (``document.in_data_table``): its link text is a
    # linked cell's (a film's title), not a menu's.
    in_data_table: bool = False
    stopword_density: float | None = None  # measured only when needed
    cf_class: ParagraphClass = ParagraphClass.SHORT  # context-free class
    cls: ParagraphClass = ParagraphClass.SHORT  # final class

    @property
    def length(self) -> int:
        return len(self.text)

    @property
    def link_density(self) -> float:
        return self.link_chars / len(self.text) if self.text else 0.0

    @property
    def is_boilerplate(self) -> bool:
        return self.cls is not ParagraphClass.GOOD


# -- stage 1: paragraphs ------------------------------------------------------


def _paragraph(parts: list[str], link_chars: int, element: etree._Element, heading: bool,
               in_select: bool, preformatted: bool) -> Paragraph | None:  # fmt: skip
    raw = "".join(parts)
    text = collapse_ws(raw)
    if not text:
        return None
    return Paragraph(text=text, link_chars=min(link_chars, len(text)), element=element,
                     heading=heading, in_select=in_select,
                     shown=preformatted_text(raw) if preformatted else None)  # fmt: skip


def make_paragraphs(doc: Document) -> list[Paragraph]:
    """Split the page body into jusText paragraphs, in document order.

    jusText's ParagraphMaker on one walk of lxml's start/end events of the
    shared tree: a paragraph ends where a block tag starts or ends and at a
    second ``<br>`` in a row. Its state is kept in local variables, not an
    object's: this walk is most of jusText's time."""
    root = doc.body
    paragraphs: list[Paragraph] = []
    parts: list[str] = []
    link_chars = 0
    links = headings = selects = pre = 0  # open <a>, <hN>, <select>, <pre>
    blocks = [root]  # open block elements
    br = start_heading = start_select = start_pre = False
    start_block = root
    rows: set[etree._Element] = set()  # data rows: one paragraph each
    tables: dict[etree._Element, bool] = {}  # in_data_table's answers
    ws_sub, block_tags, heading_tags = _WS.sub, PARAGRAPH_TAGS, HEADING_TAGS
    for event, el in etree.iterwalk(root, events=("start", "end")):
        tag = el.tag
        boundary = False
        if not isinstance(tag, str):  # a comment: only its tail is text
            text = el.tail if event == "end" and el is not root else None
        elif tag in CELL_TAGS and el.getparent() in rows:  # inline in its row
            if event == "start":
                if el.getprevious() is not None:
                    parts.append(CELL_SEPARATOR)
                text = el.text
            else:
                text = el.tail
        elif event == "start":
            if tag == "a":
                links += 1
            elif tag in heading_tags:
                headings += 1
            elif tag == "select":
                selects += 1
            elif tag in PREFORMATTED_TAGS:
                pre += 1
            if tag in block_tags or (br and tag == "br"):
                if tag != "br":
                    blocks.append(el)
                if tag == "tr" and is_data_row(el):
                    rows.add(el)
                br, boundary = False, True
            elif tag == "br":
                br = True
                parts.append(" ")
            else:
                br = False
            text = el.text
        else:
            if tag == "a":
                links -= 1
            elif tag in heading_tags:
                headings -= 1
            elif tag == "select":
                selects -= 1
            elif tag in PREFORMATTED_TAGS:
                pre -= 1
            if tag in block_tags:
                if len(blocks) > 1 and blocks[-1] is el:
                    blocks.pop()
                boundary = True
            text = el.tail if el is not root else None
        if boundary:
            if start_block in rows and not row_line(parts):
                parts.clear()  # a data row of empty cells
            if parts and (para := _paragraph(parts, link_chars, start_block, start_heading,
                                             start_select, start_pre)):  # fmt: skip
                if start_block in rows:
                    para.row = True
                    para.in_data_table = in_data_table(start_block, doc.stats, tables)
                paragraphs.append(para)
            parts.clear()
            link_chars = 0
            start_heading, start_select, start_block = headings > 0, selects > 0, blocks[-1]
            start_pre = pre > 0
        if text and not text.isspace():
            if not pre:
                text = ws_sub(" ", text)
            parts.append(text)
            if links:
                link_chars += len(text.strip())
            if selects:
                start_select = True
            br = False
        elif text and pre:  # preformatted: its line breaks and indentation
            parts.append(text)
        elif text and parts:  # the space between two inline elements
            parts.append(" ")
    if parts and (
        para := _paragraph(parts, link_chars, start_block, start_heading, start_select, start_pre)
    ):
        paragraphs.append(para)
    return paragraphs


# -- stage 2: context-free classes ------------------------------------------------


def stopword_density(
    text: str, stoplist: frozenset[str], tokenize: Callable[[str], list[str]]
) -> float:
    """Share of tokens that are stopwords (0 for a text without tokens)."""
    words = tokenize(text)
    if not words:
        return 0.0
    return sum(1 for w in words if w.lower() in stoplist) / len(words)


def context_free_class(
    p: Paragraph, params: Params, stoplist: frozenset[str], tokenize: Callable[[str], list[str]]
) -> ParagraphClass:
    """The seed's decision on one paragraph alone (its "核心代码")."""
    if p.link_density > params.max_link_density and not p.in_data_table:
        return _BAD
    if p.in_select or any(mark in p.text for mark in _COPYRIGHT):
        return _BAD  # seed, preprocessing: <select> and © blocks are bad
    if p.length < params.length_low:
        return _BAD if p.link_chars > 0 and not p.in_data_table else _SHORT
    sample = p.text[: params.max_sample_chars]
    p.stopword_density = density = stopword_density(sample, stoplist, tokenize)
    # ">=" as in jusText's code (the seed's listing has ">"): with thresholds
    # 0 it is what makes the language-independent mode keep text.
    if density >= params.stopwords_high:
        return _GOOD if p.length > params.length_high else _NEAR
    if density >= params.stopwords_low:
        return _NEAR
    # a table row of data is no prose: few stopwords do not make it
    # boilerplate; its neighbours decide, as they did for its short cells
    return _SHORT if p.row else _BAD


def classify_context_free(paragraphs: list[Paragraph], params: Params) -> None:
    """Set ``cf_class`` (and ``cls``) of every paragraph."""
    stoplist = params.words()
    kind = params.tokenizer

    def tokenize(text: str) -> list[str]:
        return tokens(text, kind)

    for p in paragraphs:
        p.cf_class = p.cls = context_free_class(p, params, stoplist, tokenize)
        p.heading = p.heading and not params.no_headings


# -- stage 3: context-sensitive revision --------------------------------------------


def _nearest(
    classes: list[ParagraphClass], wanted: frozenset[ParagraphClass], backwards: bool
) -> list[ParagraphClass]:
    """For each index, the class of the nearest paragraph before it (or after
    it) whose class is in ``wanted``; BAD past the page's edge (as jusText)."""
    n = len(classes)
    out = [_BAD] * n
    last = _BAD
    for i in range(n - 1, -1, -1) if backwards else range(n):
        out[i] = last
        if classes[i] in wanted:
            last = classes[i]
    return out


_GOOD_BAD = frozenset({_GOOD, _BAD})
_GOOD_BAD_NEAR = frozenset({_GOOD, _BAD, _NEAR})


def _good_within(paragraphs: list[Paragraph], i: int, classes: list[ParagraphClass], limit: int):
    """Whether a GOOD paragraph starts within ``limit`` characters after ``i``."""
    distance = 0
    for j in range(i + 1, len(paragraphs)):
        if distance > limit:
            return False
        if classes[j] is _GOOD:
            return True
        distance += paragraphs[j].length
    return False


def _promote_headings(paragraphs: list[Paragraph], params: Params) -> None:
    """Short headings shortly before good text become near-good."""
    classes = [p.cf_class for p in paragraphs]
    for i, p in enumerate(paragraphs):
        if (
            p.heading
            and p.cls is _SHORT
            and _good_within(paragraphs, i, classes, params.max_heading_distance)
        ):
            p.cls = _NEAR


def _resolve_short(paragraphs: list[Paragraph]) -> None:
    """Short between good is good, between bad is bad; at a good/bad border it
    is good only if near-good text lies on its bad side's way."""
    classes = [p.cls for p in paragraphs]
    prev_gb = _nearest(classes, _GOOD_BAD, backwards=False)
    next_gb = _nearest(classes, _GOOD_BAD, backwards=True)
    prev_any = _nearest(classes, _GOOD_BAD_NEAR, backwards=False)
    next_any = _nearest(classes, _GOOD_BAD_NEAR, backwards=True)
    for i, p in enumerate(paragraphs):
        if classes[i] is not _SHORT:
            continue
        before, after = prev_gb[i], next_gb[i]
        if before is _GOOD and after is _GOOD:
            p.cls = _GOOD
        elif before is _BAD and after is _BAD:
            p.cls = _BAD
        elif (before is _BAD and prev_any[i] is _NEAR) or (after is _BAD and next_any[i] is _NEAR):
            p.cls = _GOOD
        else:
            p.cls = _BAD


def _resolve_near_good(paragraphs: list[Paragraph]) -> None:
    """Near-good between bad and bad is bad, otherwise good (in order, so
    earlier decisions count as neighbours, as in jusText)."""
    next_gb = _nearest([p.cls for p in paragraphs], _GOOD_BAD, backwards=True)
    before = _BAD
    for i, p in enumerate(paragraphs):
        if p.cls is _NEAR:
            p.cls = _BAD if before is _BAD and next_gb[i] is _BAD else _GOOD
        before = p.cls


def _rescue_headings(paragraphs: list[Paragraph], params: Params) -> None:
    """Headings made bad only by context come back when good text follows."""
    classes = [p.cls for p in paragraphs]
    for i, p in enumerate(paragraphs):
        if (
            p.heading
            and p.cls is _BAD
            and p.cf_class is not _BAD
            and _good_within(paragraphs, i, classes, params.max_heading_distance)
        ):
            p.cls = _GOOD


def revise_classes(paragraphs: list[Paragraph], params: Params) -> None:
    """jusText's context-sensitive stage; sets ``cls`` of every paragraph."""
    for p in paragraphs:
        p.cls = p.cf_class
    _promote_headings(paragraphs, params)
    _resolve_short(paragraphs)
    _resolve_near_good(paragraphs)
    _rescue_headings(paragraphs, params)


# -- the whole algorithm --------------------------------------------------------


def _sample_text(paragraphs: Iterable[Paragraph], limit: int = 5000) -> str:
    """Up to ``limit`` characters of the page's text, from the paragraphs
    without links when there are any (navigation says little about the
    language)."""
    paragraphs = list(paragraphs)
    plain = [p for p in paragraphs if not p.link_chars] or paragraphs
    sample: list[str] = []
    size = 0
    for p in plain:
        sample.append(p.text)
        size += len(p.text)
        if size > limit:
            break
    return " ".join(sample)


def detect_language(doc: Document, paragraphs: Iterable[Paragraph] = ()) -> str:
    """The language whose preset fits the page: ``zh`` when its text is mostly
    Chinese, else the language whose stoplist matches most of its words (as
    jusText's authors pick stoplists), the declared ``lang`` and English
    winning ties; ``und`` (language-independent) when no stoplist matches."""
    text = _sample_text(paragraphs) or doc.title or ""
    if cjk_ratio(text) >= CHINESE_SHARE:
        return "zh"
    counts = Counter(w.lower() for w in tokens(text))
    declared = (doc.lang_attr or "").split("-")[0]
    candidates = sorted(stoplists.available() - {"zh"}, key=lambda x: (x != declared, x != "en", x))
    best, best_hits = UNDETERMINED, 0
    for language in candidates:
        stoplist = stoplists.load(language)
        hits = sum(counts[word] for word in stoplist.intersection(counts))  # in C
        if hits > best_hits:
            best, best_hits = language, hits
    return best


def resolve_params(
    doc: Document,
    paragraphs: list[Paragraph],
    params: Params | None = None,
    overrides: dict[str, Any] | None = None,
) -> Params:
    """The Params in force: the given ones, or the detected language's preset;
    ``overrides`` (field name -> value) on top."""
    overrides = dict(overrides or {})
    unknown = set(overrides) - {f.name for f in fields(Params)}
    if unknown:
        raise TypeError(f"unknown jusText parameter(s): {', '.join(sorted(unknown))}")
    if "tokenizer" in overrides:
        overrides["tokenizer"] = Tokenizer(overrides["tokenizer"])
    if params is not None:
        return replace(params, **overrides)
    language = overrides.pop("language", None) or detect_language(doc, paragraphs)
    return Params.for_language(language, **overrides)


def classify_paragraphs(
    doc: Document | str | bytes, params: Params | None = None, **overrides: Any
) -> list[Paragraph]:
    """All paragraphs of a page with their jusText classes (for reuse by
    other methods); ``params`` None picks the page language's preset."""
    doc = as_document(doc)
    paragraphs = make_paragraphs(doc)
    params = resolve_params(doc, paragraphs, params, overrides)
    classify_context_free(paragraphs, params)
    revise_classes(paragraphs, params)
    return paragraphs


def common_ancestor(elements: list[etree._Element]) -> etree._Element | None:
    """The deepest element that contains all ``elements``."""
    if not elements:
        return None
    path = list(elements[0].iterancestors())[::-1] + [elements[0]]
    depth = len(path)
    for el in elements[1:]:
        chain = list(el.iterancestors())[::-1] + [el]
        depth = min(depth, len(chain))
        while depth and chain[depth - 1] is not path[depth - 1]:
            depth -= 1
    return path[depth - 1] if depth else None


def extract(
    html: str | bytes | Document,
    url: str | None = None,
    params: Params | None = None,
    **overrides: Any,
) -> Result:
    """Main text of a page by jusText: the good paragraphs, one per line."""
    doc = as_document(html, url)
    paragraphs = make_paragraphs(doc)
    chosen = resolve_params(doc, paragraphs, params, overrides)
    classify_context_free(paragraphs, chosen)
    revise_classes(paragraphs, chosen)
    good = [p for p in paragraphs if p.cls is ParagraphClass.GOOD]
    lines = [line for line in (p.shown or clean_text(p.text).strip() for p in good) if line]
    node = common_ancestor(_distinct(p.element for p in good))
    return Result(
        text="\n".join(lines),
        title=doc.title,
        method=METHOD,
        language=chosen.language,
        node=node,
    )


def _distinct(elements: Iterable[etree._Element]) -> list[etree._Element]:
    seen: dict[int, etree._Element] = {}
    for el in elements:
        seen.setdefault(id(el), el)
    return list(seen.values())
