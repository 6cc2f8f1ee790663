"""MathML formulas as one line of plain text.

A formula is part of its sentence ("When a ≠ 0, there are two solutions"),
and MathML is how pages carry it as text: MathJax and KaTeX draw it with
hidden spans or CSS and keep the MathML beside the drawing for screen
readers. Its token elements hold the symbols; the layout elements around
them (a superscript, a fraction, a root) are written the way one types a
formula in plain text: ``x^2``, ``(−b±√(b^2−4ac))/(2a)``. Annotations (the
formula's TeX source again) and phantoms (invisible spacing) are left out.
"""

from __future__ import annotations

from lxml import etree

from .text import collapse_ws

# Elements whose text is a symbol: identifier, number, operator, text, string.
_TOKENS = frozenset({"mi", "mn", "mo", "mtext", "ms"})
# Levels of layout written out; deeper, a part's symbols are run together.
MAX_NESTING = 60
# Layout elements written with their operands: x^2, a_k, (a)/(b), 3√x.
_SCRIPTED = frozenset(
    {"msup", "mover", "msub", "munder", "msubsup", "munderover", "mfrac", "mroot"}
)
_SILENT = frozenset({"annotation", "annotation-xml", "mphantom", "mprescripts", "none"})


def _name(el: etree._Element) -> str:
    tag = el.tag if isinstance(el.tag, str) else ""
    return tag.rsplit("}", 1)[-1].rsplit(":", 1)[-1].lower()


def _bracketed(text: str) -> bool:
    """Whether ``text`` is one bracketed group: "(1−q)", not "(a)(b)"."""
    if not (text.startswith("(") and text.endswith(")")):
        return False
    depth = 0
    for i, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if depth == 0 and i < len(text) - 1:
            return False
    return True


def _operand(el: etree._Element, depth: int) -> str:
    """``el``'s formula as one operand: bare when it is one symbol, one token
    or already in brackets; in brackets otherwise ("x^2", "e^(−2π)")."""
    text = linear_text(el, depth)
    if len(text) <= 1 or _name(el) in _TOKENS or _bracketed(text):
        return text
    return f"({text})"


def linear_text(el: etree._Element, depth: int = 0) -> str:
    """The formula under ``el`` (a ``<math>`` or any of its parts) as text;
    below ``MAX_NESTING`` levels, its symbols only (no recursion without end)."""
    name = _name(el)
    if name in _TOKENS or depth >= MAX_NESTING:
        return collapse_ws("".join(el.itertext())).strip()
    if name in _SILENT:
        return ""
    kids = [child for child in el if _name(child) not in _SILENT]
    if name == "semantics":  # the presentation first, then annotations
        return linear_text(kids[0], depth + 1) if kids else ""
    ops = [_operand(k, depth + 1) for k in kids] if name in _SCRIPTED else []
    accent = len(ops) == 2 and len(ops[1]) == 1 and not ops[1].isalnum()
    if name in ("mover", "munder") and accent:  # ẋ, a vector's arrow
        return ops[0] + ops[1]
    if name in ("msup", "mover") and len(ops) == 2:
        return f"{ops[0]}^{ops[1]}"
    if name in ("msub", "munder") and len(ops) == 2:
        return f"{ops[0]}_{ops[1]}"
    if name in ("msubsup", "munderover") and len(ops) == 3:
        return f"{ops[0]}_{ops[1]}^{ops[2]}"
    if name == "mfrac" and len(ops) == 2:
        return f"{ops[0]}/{ops[1]}"
    if name == "mroot" and len(ops) == 2:
        return f"{ops[1]}√{ops[0]}"
    if name == "msqrt":  # an inferred row: its children are one operand
        inner = "".join(linear_text(k, depth + 1) for k in kids)
        return "√" + (inner if len(inner) <= 1 or _bracketed(inner) else f"({inner})")
    parts = [linear_text(k, depth + 1) for k in kids]
    if name == "mfenced":  # MathML 2 brackets: open, parts between separators, close
        separators = el.get("separators")
        between = "," if separators is None else separators.strip()[:1]
        return f"{el.get('open', '(')}{between.join(parts)}{el.get('close', ')')}"
    if name == "mtable":
        return "; ".join(p for p in parts if p)
    if name == "mtr":
        return " ".join(p for p in parts if p)
    return "".join(parts)
