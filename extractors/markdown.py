"""Extracted text as Markdown, with the page's structure: headings, list
items, quotations, tables and code as the page marks them.

An extractor's text is lines (paragraphs, headings, list items, table rows,
each a line), with no markup, as the benchmarks and the database want it.
:func:`line_kinds` finds what each line was on its page (the kinds
``document.text_lines`` reports while rendering the page's body), and
:func:`to_markdown` writes the lines with that markup. Everything else is
escaped, so a line of text never turns into markup (``"# 1"`` stays a line,
``"<script>"`` stays text), and :func:`from_markdown` gives back exactly the
lines that were written: an export can be read back.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Sequence

from .document import CELL_SEPARATOR, Document, text_lines
from .result import Record
from .text import PRE_BREAK, collapse_ws

__all__ = [
    "escape_markdown",
    "from_markdown",
    "line_kinds",
    "markdown_heading",
    "records_markdown",
    "to_markdown",
    "unescape_markdown",
]

# What Markdown would read as markup in a line of crawled text: a backslash,
# code, emphasis, links, HTML and autolinks, strikethrough (GFM), an entity.
_MD_INLINE = re.compile(r"[\\`*_\[\]<~]|&(?=#?\w+;)")
# ...and at a line's start: a heading, a quote, a list item or a rule, a
# setext underline, a table row (GFM), a numbered item ("2024. A year" ->
# "2024\. A year").
_MD_LEADING = re.compile(r"^( {0,3})(?:[#>+=|-]|\d{1,9}(?=[.)](?:\s|$)))")
_MD_ESCAPED = re.compile(r"\\(.)")
# The markup :func:`to_markdown` writes at a line's start (escaped text never
# starts so): a heading, a list item (nested ones indented by 3 spaces), a
# quotation.
_HEADING = re.compile(r"^#{1,6} ")
_ITEM = re.compile(r"^ {0,3}(?:- |1\. )")
_QUOTE = "> "
# A list item's next lines: paragraphs of the item, indented past a "1. " mark.
_MORE = "   "
_MORE_LINE = re.compile(r"^ {3}(?! )")
_TABLE_RULE = re.compile(r"^\|(?: --- \|)+$")
_FENCE = re.compile(r"^`{3,}$")


def _escape_leading(m: re.Match[str]) -> str:
    """A backslash before a line's leading markup character; after the
    number of a numbered item, before its "." or ")"."""
    indent, mark = m.group(1), m.group(0)[len(m.group(1)) :]
    return f"{indent}{mark}\\" if mark[0].isdigit() else f"{indent}\\{mark}"


def _is_code_line(line: str) -> bool:
    """Indented by 4 spaces or a tab: Markdown shows it as code, as it is
    (backslashes included), so it is written unescaped."""
    return line.startswith(("    ", "\t"))


def escape_markdown(line: str, leading: bool = True) -> str:
    """A line of plain text that Markdown shows as written: each character it
    would read as markup gets a backslash (``leading``: also those that only
    mark up at the start of a line). :func:`unescape_markdown` undoes it."""
    if _is_code_line(line):
        return line
    line = _MD_INLINE.sub(lambda m: "\\" + m.group(0), line)
    if leading:
        line = _MD_LEADING.sub(_escape_leading, line)
    return line


def unescape_markdown(line: str) -> str:
    """The text :func:`escape_markdown` wrote ``line`` from."""
    return line if _is_code_line(line) else _MD_ESCAPED.sub(r"\1", line)


def markdown_heading(text: str, level: int = 1) -> str:
    """A heading line; a "#" ending it is escaped too (Markdown drops a
    heading's closing run of "#": "C #" would show "C")."""
    text = escape_markdown(text, leading=False)
    marks = "#" * level
    return f"{marks} {text[:-1]}\\#" if text.endswith("#") else f"{marks} {text}"


def line_kinds(docs: Sequence[Document], text: str) -> list[str]:
    """The kind of each line of ``text`` (an extractor's output for
    ``docs``: one page, or an article's pages in order), as
    ``document.text_lines`` names them ("h2", "ul1", "quote", "pre", "row";
    "" for a paragraph). Lines are matched to the pages' lines in order, so
    a line said twice (a table of contents' entry and its heading) takes
    the kind of the one after the line before it; a line no page holds (an
    extractor joined or cut it) is a paragraph."""
    where: dict[str, list[int]] = defaultdict(list)
    page_kinds: list[str] = []
    for doc in docs:
        kinds: list[str] = []
        for line, kind in zip(text_lines(doc.body, kinds=kinds), kinds, strict=True):
            # The public text has a preformatted block's lines as lines.
            for piece in line.split(PRE_BREAK):
                where[piece].append(len(page_kinds))
                page_kinds.append(kind)
    found: list[str] = []
    at = -1
    for line in text.split("\n"):
        places = where.get(line)
        if not places:
            found.append("")
            continue
        # the first after the last match (a line said thousands of times: a
        # search, not a scan), else its first
        after = bisect_right(places, at)
        at = places[after] if after < len(places) else places[0]
        found.append(page_kinds[at])
    return found


def _fence(lines: list[str]) -> str:
    """Backticks enough to fence ``lines`` (one more than their longest run)."""
    longest = max((len(run) for line in lines for run in re.findall("`+", line)), default=0)
    return "`" * max(3, longest + 1)


def _table(rows: list[str]) -> str:
    """Data rows (cells joined by ``CELL_SEPARATOR``) as a GFM table; the
    first row heads it, as a table's first row mostly names its columns."""
    width = max(row.count(CELL_SEPARATOR) + 1 for row in rows)
    cells = [f"| {escape_markdown(row, leading=False)} |" for row in rows]
    return "\n".join([cells[0], "|" + " --- |" * width, *cells[1:]])


def _item(line: str, kind: str) -> str:
    mark = "1. " if kind.startswith("ol") else "- "
    indent = "" if kind.endswith("1") else "   "  # nested: within any parent's mark
    return f"{indent}{mark}{escape_markdown(line)}"  # an item holds blocks: "- # x" a heading


def to_markdown(text: str, kinds: list[str] | None = None) -> str:
    """``text``'s lines as Markdown blocks, one blank line apart: headings
    (level 2 at least: the title is the document's level 1), list items (an
    item's next lines indented, as paragraphs of the item), quotations,
    fenced code and GFM tables where ``kinds`` (one per line, see
    :func:`line_kinds`) says so, escaped paragraphs elsewhere."""
    lines = text.split("\n")
    kinds = kinds or [""] * len(lines)
    blocks: list[str] = []
    i = 0
    in_item = False  # the last block is a list item or one of its next lines
    while i < len(lines):
        line, kind = lines[i], kinds[i]
        was_item, in_item = in_item, False
        if kind in ("pre", "row"):
            end = i
            while end < len(lines) and kinds[end] == kind:
                end += 1
            run = lines[i:end]
            if kind == "row":
                blocks.append(_table(run))
            else:
                fence = _fence(run)
                blocks.append("\n".join([fence, *run, fence]))
            i = end
            continue
        if kind[:1] == "h" and kind[1:].isdigit():
            blocks.append(markdown_heading(line, max(2, int(kind[1:]))))
        elif kind[:2] in ("ul", "ol") and not kind.endswith("+"):
            blocks.append(_item(line, kind))
            in_item = True
        elif kind.endswith("+") and was_item and line[:1].strip():  # after its item
            blocks.append(_MORE + escape_markdown(line))
            in_item = True
        elif kind == "quote":
            blocks.append(_QUOTE + escape_markdown(line))
        else:
            blocks.append(escape_markdown(line))
        i += 1
    return "\n\n".join(blocks)


def from_markdown(body: str) -> list[str]:
    """The lines :func:`to_markdown` wrote ``body`` from (lines that are no
    preformatted text start with no space, as text lines do)."""
    lines: list[str] = []
    in_item = False
    for block in body.split("\n\n"):
        was_item, in_item = in_item, False
        rows = block.split("\n")
        if len(rows) > 1 and _FENCE.match(rows[0]):
            lines.extend(rows[1:-1])
        elif len(rows) > 1 and _TABLE_RULE.match(rows[1]):
            cells = [rows[0], *rows[2:]]
            lines.extend(unescape_markdown(row[2:-2]) for row in cells)
        elif _HEADING.match(block):
            lines.append(unescape_markdown(_HEADING.sub("", block, count=1)))
        elif m := _ITEM.match(block):
            lines.append(unescape_markdown(block[m.end() :]))
            in_item = True
        elif was_item and _MORE_LINE.match(block):
            lines.append(unescape_markdown(block[len(_MORE) :]))
            in_item = True
        elif block.startswith(_QUOTE):
            lines.append(unescape_markdown(block[len(_QUOTE) :]))
        else:
            lines.append(unescape_markdown(block))
    return lines


# What a link's destination cannot hold as written (it would end the link or
# split it): percent-encoded, as a browser sends it.
_URL_UNSAFE = {
    " ": "%20", "(": "%28", ")": "%29", "<": "%3C", ">": "%3E",
    "\t": "%09", "\n": "%0A", "\r": "%0D",
}  # fmt: skip


def _record_item(record: Record) -> str:
    """A record as a list item: its title linked to its page, then the rest
    of its text (a date, a summary), escaped."""
    text = collapse_ws(record.text)
    title = collapse_ws(record.title or "")
    rest = text[len(title) :].strip() if title and text.startswith(title) else text
    label = title or rest
    if not record.url or not label:
        return f"- {escape_markdown(text, leading=False)}"
    url = "".join(_URL_UNSAFE.get(c, c) for c in record.url)
    line = f"[{escape_markdown(label, leading=False)}]({url})"
    if title and rest:
        line += f" — {escape_markdown(rest, leading=False)}"
    return f"- {line}"


def records_markdown(records: Sequence[Record]) -> str:
    """A list page's records as a Markdown list, each title linked to its
    page; the page's further lists of records (regions 1, 2...) follow the
    main one, each after a rule."""
    blocks: list[str] = []
    region: int | None = None
    for record in sorted(records, key=lambda r: r.region):  # stable: page order within
        if region is not None and record.region != region:
            blocks.append("\n---\n")
        region = record.region
        blocks.append(_record_item(record))
    return "\n".join(blocks)
