"""boilerpipe's ArticleExtractor and DefaultExtractor as filter chains.

Each extractor is a list of filters run in order over one TextDocument, as in
the seed (boilerpipe 1.1.0, ``ArticleExtractor.process()``); a filter's only
effect is on the blocks' classes, labels and fusion.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from lxml import etree

from ..document import Document, as_document
from ..result import Result
from ..text import is_chinese
from .blocks import (
    Measure,
    TextDocument,
    build_text_document,
    chinese_measure,
    cjk_run_measure,
    english_measure,
)
from .classifiers import (
    DensityRulesClassifier,
    DocumentTitleMatchClassifier,
    NumWordsRulesClassifier,
    TerminatingBlocksFinder,
)
from .filters import (
    BlockProximityFusion,
    BoilerplateBlockFilter,
    ExpandTitleToContentFilter,
    Filter,
    IgnoreBlocksAfterContentFilter,
    KeepLargestBlockFilter,
    LargeBlockSameTagLevelToContentFilter,
    ListAtEndFilter,
    SimpleBlockFusionProcessor,
    TrailingHeadlineToBoilerplateFilter,
    run_chain,
)


@dataclass(frozen=True, slots=True)
class Params:
    """Thresholds of both extractors; defaults are boilerpipe's published ones."""

    # -- block model (BoilerpipeHTMLContentHandler.flushBlock) --
    line_width: int = 80  # seed/original: maxLineLength = 80 columns
    # Chinese has no spaces, so an 80-column line is filled with CJK characters
    # at a width chosen to hold as many jieba words as an English line holds
    # English words. Measured on daniel-en/daniel-zh/zh-news truth: English
    # words average 5.07 chars (+1 space) -> 13.2 words per line; jieba words
    # 1.91 chars -> 13.2 words = 25 characters per line.
    cjk_chars_per_line: float = 25.0
    # "auto": jieba when the page's text is Chinese, else the original tokenizer;
    # "cjk-runs": Chinese counted as characters / cjk_chars_per_word, no jieba.
    tokenizer: str = "auto"
    cjk_chars_per_word: float = 1.91  # mean jieba word length in the same truth texts
    # jieba cuts at most this many characters of a page (real pages hold far
    # fewer); blocks past them are counted as "cjk-runs" does, so a hostile
    # multi-megabyte page stays within a bounded time.
    max_jieba_chars: int = 100_000
    # -- TerminatingBlocksFinder --
    terminating_max_words: int = 20  # seed: only blocks with getNumWords() < 20
    # -- IgnoreBlocksAfterContentFilter(60) --
    min_words_before_end: int = 60  # seed: DEFAULT_INSTANCE, 60 words
    full_text_min_density: float = 9  # HeuristicFilterBase.getNumFullTextWords(tb, 9)
    # -- NumWordsRulesClassifier / DensityRulesClassifier (seed's trees) --
    max_link_density: float = 0.333333  # curr_linkDensity <= 0.333333
    max_prev_link_density: float = 0.555556  # prev_linkDensity <= 0.555556
    curr_words: int = 16  # curr_numWords <= 16
    next_words: int = 15  # next_numWords <= 15
    prev_words: int = 4  # prev_numWords <= 4
    curr_words_after_links: int = 40  # curr_numWords <= 40 (prev link-heavy branch)
    next_words_after_links: int = 17  # next_numWords <= 17 (prev link-heavy branch)
    curr_text_density: float = 9  # curr_textDensity <= 9
    next_text_density: float = 10  # next_textDensity <= 10
    prev_text_density: float = 4  # prev_textDensity <= 4
    next_text_density_after_links: float = 11  # next_textDensity <= 11
    # -- BlockProximityFusion.MAX_DISTANCE_1 --
    max_block_distance: int = 1  # seed: offsets differ by at most 2
    # KeepLargestFulltextBlockFilter (seed) ranks by words of blocks with text
    # density >= 9; False ranks by all words (KeepLargestBlockFilter, as boilerpy3).
    largest_by_full_text: bool = True
    # -- optional boilerpipe 1.2 refinements of ArticleExtractor --
    chain_1_2: bool = False  # seed is 1.1.0; True adds 1.2's tag-level filters
    expand_min_words: int = 150  # 1.2: INSTANCE_EXPAND_TO_SAME_TAGLEVEL_MIN_WORDS
    large_block_min_words: int = 100  # 1.2: LargeBlockSameTagLevelToContentFilter


def _params(overrides: dict[str, Any]) -> Params:
    base = overrides.pop("params", None) or Params()
    known = {f.name for f in fields(Params)}
    unknown = set(overrides) - known
    if unknown:
        raise TypeError(f"unknown boilerpipe parameter(s): {', '.join(sorted(unknown))}")
    return replace(base, **overrides) if overrides else base


def _num_words_classifier(p: Params) -> NumWordsRulesClassifier:
    return NumWordsRulesClassifier(
        p.max_link_density,
        p.max_prev_link_density,
        (p.curr_words, p.next_words, p.prev_words,
         p.curr_words_after_links, p.next_words_after_links),
    )  # fmt: skip


def article_chain(title: str | None, p: Params) -> list[Filter]:
    """ArticleExtractor: the seed's chain (+ 1.2's filters when ``chain_1_2``)."""
    end_filter = IgnoreBlocksAfterContentFilter(p.min_words_before_end, p.full_text_min_density)
    head = [
        TerminatingBlocksFinder(p.terminating_max_words),
        DocumentTitleMatchClassifier(title),
        _num_words_classifier(p),
        end_filter,
        TrailingHeadlineToBoilerplateFilter(),
        BlockProximityFusion(p.max_block_distance),
        BoilerplateBlockFilter(keep_title=True),
    ]
    if not p.chain_1_2:
        return [
            *head,
            BlockProximityFusion(p.max_block_distance, content_only=True),
            KeepLargestBlockFilter(
                min_text_density=p.full_text_min_density if p.largest_by_full_text else None
            ),
            ExpandTitleToContentFilter(),
        ]
    return [
        *head,
        BlockProximityFusion(p.max_block_distance, content_only=True, same_tag_level=True),
        KeepLargestBlockFilter(expand_min_words=p.expand_min_words),
        ExpandTitleToContentFilter(),
        LargeBlockSameTagLevelToContentFilter(p.large_block_min_words),
        ListAtEndFilter(),
    ]


def default_chain(title: str | None, p: Params) -> list[Filter]:
    """DefaultExtractor: SimpleBlockFusion | BlockProximityFusion | DensityRulesClassifier."""
    return [
        SimpleBlockFusionProcessor(),
        BlockProximityFusion(p.max_block_distance),
        DensityRulesClassifier(
            p.max_link_density,
            p.max_prev_link_density,
            (
                p.curr_text_density,
                p.next_text_density,
                p.prev_text_density,
                p.next_text_density_after_links,
            ),
        ),  # fmt: skip
    ]


def _sample_text(doc: Document, limit: int = 5000) -> str:
    """The first ``limit`` characters of the body, enough to tell the script."""
    parts: list[str] = []
    size = 0
    for text in doc.body.itertext():
        parts.append(text)
        size += len(text)
        if size >= limit:
            break
    return "".join(parts)


def measure_for(doc: Document, p: Params) -> Measure:
    """Word measure for the page: jieba for Chinese pages, the original's otherwise."""
    kind = p.tokenizer
    if kind == "auto":
        chinese = doc.language == "zh" or is_chinese(_sample_text(doc))
        kind = "jieba" if chinese else "whitespace"
    if kind == "jieba":
        return chinese_measure(
            p.line_width / p.cjk_chars_per_line, p.max_jieba_chars, p.cjk_chars_per_word
        )
    if kind == "cjk-runs":
        return cjk_run_measure(p.line_width / p.cjk_chars_per_line, p.cjk_chars_per_word)
    if kind == "whitespace":
        return english_measure
    raise ValueError(f"unknown tokenizer {p.tokenizer!r}; use auto, jieba, cjk-runs or whitespace")


def _common_ancestor(elements: list[etree._Element]) -> etree._Element | None:
    """Lowest common ancestor of the first and last element (document order)."""
    if not elements:
        return None
    first, last = elements[0], elements[-1]
    ancestors = {id(a) for a in first.iterancestors()} | {id(first)}
    node: etree._Element | None = last
    while node is not None and id(node) not in ancestors:
        node = node.getparent()
    return node


def run(
    html: str | bytes | Document,
    url: str | None,
    method: str,
    chain: Any,
    overrides: dict[str, Any],
) -> tuple[Result, TextDocument]:
    """Parse (or reuse) the page, build blocks, run ``chain``, render the content."""
    p = _params(dict(overrides))
    doc = as_document(html, url)
    text_doc = build_text_document(doc, measure_for(doc, p), p.line_width)
    run_chain(text_doc, chain(doc.title, p))
    content = [b for b in text_doc.blocks if b.is_content]
    elements = [el for b in content for el in b.elements]
    result = Result(
        text=text_doc.content,
        title=doc.title,
        method=method,
        language=doc.language,
        node=_common_ancestor(elements),
    )
    return result, text_doc
