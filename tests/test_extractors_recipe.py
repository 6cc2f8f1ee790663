"""A declared recipe's ingredient box joins auto's text when it is missing."""

from __future__ import annotations

import json

from extractors import extract
from extractors.document import as_document
from extractors.recipe import declared_ingredients, ingredient_box, missing_ingredients

INGREDIENTS = ["250 g Mehl", "125 g Butter", "100 g Zucker", "2 Eier", "1 Prise Salz"]
METHOD = [
    "Den Backofen auf 180 Grad vorheizen und eine Springform mit Backpapier auslegen.",
    "Butter und Zucker schaumig schlagen, dann die Eier nacheinander unterrühren.",
    "Mehl und Salz mischen, unter den Teig heben und alles gleichmäßig in die Form streichen.",
    "Den Kuchen etwa 40 Minuten backen, bis ein Holzstäbchen sauber herauskommt.",
    "Auf einem Gitter auskühlen lassen und vor dem Servieren mit Puderzucker bestäuben.",
]
NAV = "".join(f"<li><a href='/r/{i}'>Rezeptkategorie {i}</a></li>" for i in range(12))


def _page(declare: bool = True, box_in_body: bool = False) -> str:
    data = {"@context": "https://schema.org", "@type": "Recipe", "name": "Rührkuchen",
            "recipeIngredient": INGREDIENTS}  # fmt: skip
    script = f"<script type='application/ld+json'>{json.dumps(data)}</script>" if declare else ""
    rows = "".join(
        f"<tr><td>{' '.join(i.split()[:-1])}</td><td>{i.split()[-1]}</td></tr>" for i in INGREDIENTS
    )
    box = f"<aside class='zutaten'><h3>Zutaten</h3><table>{rows}</table></aside>"
    body = "".join(f"<p>{line}</p>" for line in METHOD)
    article = f"<article><h1>Rührkuchen</h1>{box if box_in_body else ''}{body}</article>"
    return (
        f"<html><head><title>Rührkuchen</title>{script}</head><body><nav><ul>{NAV}</ul></nav>"
        f"<div class='recipe'>{'' if box_in_body else box}{article}</div>"
        "<footer>Impressum · Datenschutz</footer></body></html>"
    )


def test_declared_ingredients_and_their_box() -> None:
    doc = as_document(_page())
    assert declared_ingredients(doc) == INGREDIENTS
    box = ingredient_box(doc, INGREDIENTS)
    assert box is not None and box.tag in ("aside", "table", "tbody")
    assert declared_ingredients(as_document(_page(declare=False))) == []


def test_auto_adds_the_missing_ingredients_before_the_method() -> None:
    plain = extract(_page(), recipe_ingredients=False).text
    assert "250 g" not in plain and METHOD[0] in plain
    text = extract(_page()).text
    assert "250 g" in text and "1 Prise" in text
    assert text.index("250 g") < text.index(METHOD[0])
    assert text.count("Prise") == 1  # the list once, not twice


def test_nothing_is_added_without_a_declaration_or_when_the_text_has_them() -> None:
    assert (
        extract(_page(declare=False)).text
        == extract(_page(declare=False), recipe_ingredients=False).text
    )
    doc = as_document(_page(box_in_body=True))
    text = "\n".join([*INGREDIENTS, *METHOD])
    assert missing_ingredients(doc, text) is None
