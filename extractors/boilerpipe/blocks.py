"""boilerpipe's data model: a TextDocument of TextBlocks, built from the shared tree.

The original builds blocks in a SAX handler (``BoilerpipeHTMLContentHandler``):
every tag that is not a known inline tag ends the current block, ``<a>`` text
counts as anchor words, and a block's text density is its words per 80-column
wrapped line. This module replays those events over :class:`Document`'s
cleaned tree instead of parsing again.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

from lxml import etree

from ..document import (
    CELL_SEPARATOR,
    CELL_TAGS,
    HEADING_TAGS,
    PREFORMATTED_TAGS,
    Document,
    is_data_row,
    row_line,
)
from ..text import CJK_CHAR, clean_text, collapse_ws, jieba_words, preformatted_text

# Tags the original's DefaultTagActionMap treats as inline (TA_INLINE_NO_WHITESPACE,
# TA_INLINE_WHITESPACE, TA_ANCHOR_TEXT, TA_FONT): they neither end a block nor,
# except <a>, raise the tag level. Every other tag is a block separator.
BOILERPIPE_INLINE_TAGS = frozenset(
    {
        "strike",
        "u",
        "b",
        "i",
        "em",
        "strong",
        "span",
        "sup",
        "code",
        "tt",
        "sub",
        "var",
        "abbr",
        "acronym",
        "font",
    }  # fmt: skip
)
# HTML5 phrasing tags that boilerpipe 1.2 (2011) predates; treated as inline
# like their older siblings (<small> like <font>, <time>/<mark> like <span>),
# otherwise a date or a highlighted word would split a paragraph in two.
HTML5_INLINE_TAGS = frozenset(
    {
        "small",
        "big",
        "time",
        "mark",
        "cite",
        "q",
        "s",
        "del",
        "ins",
        "kbd",
        "samp",
        "dfn",
        "bdi",
        "bdo",
        "data",
        "nobr",
        "wbr",
        "label",
    }  # fmt: skip
)
# TA_IGNORABLE_ELEMENT tags that survive the shared cleaning.
IGNORABLE_TAGS = frozenset({"option", "applet"})
# The original's PAT_WORD (a token) and PAT_VALID_WORD_CHARACTER (a word).
_TOKEN = re.compile(r"[\w\"'.,!@\-:;$?()/]+")
# Deleting these from a token leaves only its letters and digits ([^\W_]).
_NOT_WORD_CHARS = str.maketrans("", "", "\"'.,!@-:;$?()/_")


class Label(StrEnum):
    """boilerpipe's DefaultLabels used by the two extractors."""

    TITLE = "de.l3s.boilerpipe/TITLE"
    INDICATES_END_OF_TEXT = "de.l3s.boilerpipe/INDICATES_END_OF_TEXT"
    MIGHT_BE_CONTENT = "de.l3s.boilerpipe/MIGHT_BE_CONTENT"
    VERY_LIKELY_CONTENT = "de.l3s.boilerpipe/VERY_LIKELY_CONTENT"
    HEADING = "de.l3s.boilerpipe/HEADING"
    LI = "de.l3s.boilerpipe/LI"


@dataclass(slots=True, eq=False)
class TextBlock:
    """A run of text between two block separators, with its shallow features.

    ``elements`` are the block-level elements holding the text (first and last),
    kept so that the result can name a main-content node.
    """

    parts: list[str]  # the texts of the fused original blocks
    num_words: int = 0
    num_words_in_anchor_text: int = 0
    num_words_in_wrapped_lines: int = 0
    num_wrapped_lines: int = 0
    offset_blocks_start: int = 0
    offset_blocks_end: int = 0
    tag_level: int = 0
    is_content: bool = False
    labels: set[str] = field(default_factory=set)
    elements: list[etree._Element] = field(default_factory=list)
    link_density: float = 0.0
    text_density: float = 0.0

    def __post_init__(self) -> None:
        self.init_densities()

    @property
    def text(self) -> str:
        """The block's text; fused blocks keep one line per original block."""
        return "\n".join(self.parts)

    def init_densities(self) -> None:
        """TextBlock.initDensities(): a block without full lines is one line."""
        if self.num_words_in_wrapped_lines == 0:
            self.num_words_in_wrapped_lines = self.num_words
            self.num_wrapped_lines = 1
        self.text_density = self.num_words_in_wrapped_lines / max(1, self.num_wrapped_lines)
        self.link_density = (
            self.num_words_in_anchor_text / self.num_words if self.num_words else 0.0
        )

    def set_is_content(self, value: bool) -> bool:
        """Set the class; return whether it changed (the filters' change flag)."""
        if value == self.is_content:
            return False
        self.is_content = value
        return True

    def merge_next(self, other: TextBlock) -> None:
        """TextBlock.mergeNext(): append ``other``'s text and sum its counts."""
        self.parts.extend(other.parts)  # a list: fusing n blocks stays linear
        self.num_words += other.num_words
        self.num_words_in_anchor_text += other.num_words_in_anchor_text
        self.num_words_in_wrapped_lines += other.num_words_in_wrapped_lines
        self.num_wrapped_lines += other.num_wrapped_lines
        self.offset_blocks_start = min(self.offset_blocks_start, other.offset_blocks_start)
        self.offset_blocks_end = max(self.offset_blocks_end, other.offset_blocks_end)
        self.init_densities()
        self.is_content = self.is_content or other.is_content
        self.labels |= other.labels
        self.tag_level = min(self.tag_level, other.tag_level)
        self.elements = [*self.elements[:1], *other.elements[-1:]]


def empty_block(offset: int) -> TextBlock:
    """TextBlock.EMPTY_START / EMPTY_END: the neighbours of the first and last block."""
    return TextBlock([], offset_blocks_start=offset, offset_blocks_end=offset)


@dataclass(slots=True)
class TextDocument:
    """The blocks of one page and its ``<title>``."""

    blocks: list[TextBlock]
    title: str | None = None

    @property
    def content(self) -> str:
        """TextDocument.getContent(): the content blocks, one paragraph per line
        (control characters dropped here, once, rather than per block)."""
        lines = [line for b in self.blocks if b.is_content for line in b.parts]
        # clean_text walks every character; most lines need none of it.
        return "\n".join(line if line.isprintable() else clean_text(line) for line in lines)


# -- word counting ----------------------------------------------------------

# A measured token: (columns it adds to a line, columns it fills alone on a new
# line, whether it is a word).
Token = tuple[float, float, bool]
Measure = Callable[[str], list[Token]]


def english_measure(text: str) -> list[Token]:
    """The original's tokenizer: punctuation-glued runs; a word has a letter or digit."""
    # isalnum() first: most tokens are plain words, and it is a C test
    return [
        (len(t) + 1, len(t), t.isalnum() or bool(t.translate(_NOT_WORD_CHARS)))
        for t in _TOKEN.findall(text)
    ]


def chinese_measure(
    cjk_column_width: float, max_chars: int | None = None, chars_per_word: float = 1.91
) -> Measure:
    """jieba words; a CJK word is ``cjk_column_width`` columns per character and
    no separating space (Chinese has none), other words as in English.

    jieba cuts at most ``max_chars`` characters (of one page: make a measure
    per page); the text past them is counted by :func:`cjk_run_measure` with
    jieba's mean word length, so a huge page costs bounded time."""
    left = max_chars
    estimate = cjk_run_measure(cjk_column_width, chars_per_word)

    def measure(text: str) -> list[Token]:
        nonlocal left
        if not CJK_CHAR.search(text):
            return english_measure(text)
        if left is not None:
            if left < len(text):
                return estimate(text)
            left -= len(text)
        out: list[Token] = []
        for word in jieba_words(text):
            if CJK_CHAR.search(word):
                width = len(word) * cjk_column_width
                out.append((width, width, True))
            else:
                out.append((len(word) + 1, len(word), True))
        return out

    return measure


_CJK_RUN_OR_WORD = re.compile(rf"{CJK_CHAR.pattern}+|[^\W_]+")


def cjk_run_measure(cjk_column_width: float, chars_per_word: float) -> Measure:
    """A fast stand-in for jieba: a run of n CJK characters is n / chars_per_word
    words (rounded, at least one); other words as in English."""

    def measure(text: str) -> list[Token]:
        if not CJK_CHAR.search(text):
            return english_measure(text)
        out: list[Token] = []
        for run in _CJK_RUN_OR_WORD.findall(text):
            if CJK_CHAR.match(run):
                n = max(1, round(len(run) / chars_per_word))
                width = len(run) * cjk_column_width / n
                out.extend([(width, width, True)] * n)
            else:
                out.append((len(run) + 1, len(run), True))
        return out

    return measure


@dataclass(slots=True)
class WordCounts:
    """What flushBlock() counts for one block."""

    words: int = 0
    anchor_words: int = 0
    words_in_wrapped_lines: int = 0
    wrapped_lines: int = 0


def count_words(segments: list[tuple[str, bool]], measure: Measure, line_width: int) -> WordCounts:
    """flushBlock()'s counting: words, anchor words, and words on full wrapped lines."""
    # Plain locals in the loop (it runs once per word of the page).
    words = anchor_words = wrapped_lines = 0
    line_length = -1.0  # the original does not count the first space
    words_on_line = 0
    for text, in_anchor in segments:
        for advance, alone, is_word in measure(text):
            if not is_word:
                continue
            words += 1
            words_on_line += 1
            if in_anchor:
                anchor_words += 1
            line_length += advance
            if line_length > line_width:
                wrapped_lines += 1
                line_length = alone
                words_on_line = 1
    if wrapped_lines == 0:
        return WordCounts(words, anchor_words, words, 1)
    return WordCounts(words, anchor_words, words - words_on_line, wrapped_lines)


# -- building blocks ----------------------------------------------------------


class _Builder:
    """The content handler's state: the open block and the tag level."""

    def __init__(self, measure: Measure, line_width: int) -> None:
        self.measure = measure
        self.line_width = line_width
        self.blocks: list[TextBlock] = []
        self.segments: list[tuple[str, bool]] = []
        self.tag_level = 0
        self.block_tag_level = -1
        self.in_anchor = 0
        self.in_heading = 0
        self.in_li = 0
        self.in_pre = 0  # open <pre> and the like: their line breaks are kept
        self.row: etree._Element | None = None  # the data row open: one block
        self.containers: list[etree._Element] = []
        self.first_el: etree._Element | None = None
        self.last_el: etree._Element | None = None

    def characters(self, text: str | None) -> None:
        if not text:
            return
        if self.block_tag_level == -1 and not text.isspace():
            self.block_tag_level = self.tag_level
        anchor = self.in_anchor > 0
        if self.segments and self.segments[-1][1] == anchor:
            self.segments[-1] = (self.segments[-1][0] + text, anchor)
        else:
            self.segments.append((text, anchor))
        if not text.isspace() and self.containers:
            if self.first_el is None:
                self.first_el = self.containers[-1]
            self.last_el = self.containers[-1]

    def flush(self) -> None:
        if not self.segments:
            return
        segments, self.segments = self.segments, []
        block_tag_level, self.block_tag_level = self.block_tag_level, -1
        first, last = self.first_el, self.last_el
        self.first_el = self.last_el = None
        raw = "".join(t for t, _ in segments)
        if first is None or (first is self.row and not row_line([raw])):
            return  # whitespace only, or a data row of empty cells
        c = count_words(segments, self.measure, self.line_width)
        block = TextBlock(
            [preformatted_text(raw) if self.in_pre else collapse_ws(raw)],
            num_words=c.words,
            num_words_in_anchor_text=c.anchor_words,
            num_words_in_wrapped_lines=c.words_in_wrapped_lines,
            num_wrapped_lines=c.wrapped_lines,
            offset_blocks_start=len(self.blocks),
            offset_blocks_end=len(self.blocks),
            tag_level=block_tag_level,
            elements=[e for e in (first, last) if e is not None],
        )
        if self.in_heading:
            block.labels.add(Label.HEADING)
        if self.in_li:
            block.labels.add(Label.LI)
        self.blocks.append(block)

    def start(self, tag: str, el: etree._Element) -> None:
        if self.row is not None and tag != "a":  # in a data row all is inline
            if tag in CELL_TAGS and el.getparent() is self.row and el.getprevious() is not None:
                self.characters(CELL_SEPARATOR)
            return
        if tag == "tr" and is_data_row(el):
            self.flush()
            self.row = el
        if tag == "a":
            # Only a link is anchor text (the original also counted <a name>).
            self.in_anchor += el.get("href") is not None
            self.tag_level += 1
        elif tag in BOILERPIPE_INLINE_TAGS or tag in HTML5_INLINE_TAGS:
            return
        else:
            self.flush()
            self.tag_level += 1
            self.containers.append(el)
            self.in_heading += tag in HEADING_TAGS
            self.in_li += tag == "li"
            self.in_pre += tag in PREFORMATTED_TAGS

    def end(self, tag: str, el: etree._Element) -> None:
        if self.row is not None and tag != "a" and el is not self.row:
            return
        if tag == "a":
            self.in_anchor -= el.get("href") is not None
            self.tag_level -= 1
        elif tag in BOILERPIPE_INLINE_TAGS or tag in HTML5_INLINE_TAGS:
            return
        else:
            self.flush()  # labels of the closing element still apply
            self.tag_level -= 1
            self.containers.pop()
            self.in_heading -= tag in HEADING_TAGS
            self.in_li -= tag == "li"
            self.in_pre -= tag in PREFORMATTED_TAGS
            if el is self.row:
                self.row = None


def build_text_document(doc: Document, measure: Measure, line_width: int = 80) -> TextDocument:
    """Replay the SAX events of ``doc.body`` into TextBlocks (one walk, no recursion)."""
    builder = _Builder(measure, line_width)
    body = doc.body
    stack: list[tuple[etree._Element, bool]] = [(body, False)]
    while stack:
        el, done = stack.pop()
        tag = el.tag if isinstance(el.tag, str) else ""
        if done:
            builder.end(tag, el)
            if el is not body:
                builder.characters(el.tail)
            continue
        if not tag:  # a comment or processing instruction left in the tree
            builder.characters(el.tail)
            continue
        if tag in IGNORABLE_TAGS:
            builder.flush()  # TA_IGNORABLE_ELEMENT ends the block on both sides
            if el is not body:
                builder.characters(el.tail)
            continue
        builder.start(tag, el)
        builder.characters(el.text)
        stack.append((el, True))
        stack.extend((child, False) for child in reversed(el))
    builder.flush()
    return TextDocument(builder.blocks, doc.title)
