"""A recipe's ingredient list, which body extractors tend to miss.

Recipe pages set the ingredients apart from the method: a table or a list of
short lines (amount, unit, name) in a box of its own, often beside the text.
Density methods take the method's paragraphs and leave the box out. Pages
that declare a schema.org ``Recipe`` in JSON-LD name every ingredient
(``recipeIngredient``); the smallest element whose words cover most of them
is the ingredient box, and it belongs to the text.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from lxml import etree

from .document import Document, text_pieces
from .metadata import jsonld_objects
from .text import collapse_ws, tokens


@dataclass(frozen=True, slots=True)
class Params:
    # The box must hold this share of the declared ingredients (their words).
    box_share: float = 0.6
    # The chosen text already has the list when it holds this share of them.
    present_share: float = 0.5
    # The box is looked for among elements of at most this many times the
    # ingredients' length, or of this many characters when that is more.
    max_box_ratio: float = 4.0
    min_box_chars: int = 2000
    max_ingredients: int = 100


def _words(text: str) -> set[str]:
    """Words (each CJK character alone)."""
    return set(tokens(text.lower()))


def declared_ingredients(doc: Document, p: Params | None = None) -> list[str]:
    """The ``recipeIngredient`` strings of the page's JSON-LD ``Recipe``."""
    p = p or Params()
    for obj in jsonld_objects(doc):
        kind = obj.get("@type", "")
        kind = " ".join(map(str, kind)) if isinstance(kind, list) else str(kind)
        found = obj.get("recipeIngredient")
        if "Recipe" in kind and isinstance(found, list):
            names = [collapse_ws(str(x)) for x in found[: p.max_ingredients]]
            return [n for n in names if _words(n)]
    return []


def _covered(ingredients: Iterable[list[str]], words: set[str]) -> int:
    return sum(1 for need in ingredients if all(w in words for w in need))


def ingredient_box(
    doc: Document, ingredients: list[str], p: Params | None = None
) -> etree._Element | None:
    """The smallest element whose words cover ``box_share`` of the
    ingredients (elements much longer than the list are not looked into)."""
    p = p or Params()
    needs = [list(_words(i)) for i in ingredients]
    wanted = p.box_share * len(needs)
    chars = sum(len("".join(i.split())) for i in ingredients)
    limit = max(p.min_box_chars, p.max_box_ratio * chars)
    best = None
    best_len = 0
    for el, st in doc.stats.items():
        if not chars // 2 <= st.text_len <= limit or (best is not None and st.text_len >= best_len):
            continue
        if _covered(needs, _words(" ".join(text_pieces(el)))) >= wanted:
            best, best_len = el, st.text_len
    return best


def missing_ingredients(doc: Document, text: str, p: Params | None = None) -> etree._Element | None:
    """The ingredient box, when the page declares a recipe and ``text`` lacks
    most of its ingredients; else None."""
    p = p or Params()
    ingredients = declared_ingredients(doc, p)
    if len(ingredients) < 2:
        return None
    needs = [list(_words(i)) for i in ingredients]
    if _covered(needs, _words(text)) >= p.present_share * len(needs):
        return None
    return ingredient_box(doc, ingredients, p)
