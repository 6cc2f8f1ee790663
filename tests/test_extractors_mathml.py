"""MathML formulas are kept as one line of text, in their sentence."""

from __future__ import annotations

from lxml import html

import extractors
from extractors.document import as_document, text_lines
from extractors.mathml import linear_text

QUADRATIC = """<math display="block"><mi>x</mi><mo>=</mo><mfrac><mrow><mo>−</mo><mi>b</mi>
<mo>±</mo><msqrt><msup><mi>b</mi><mn>2</mn></msup><mo>−</mo><mn>4</mn><mi>a</mi><mi>c</mi>
</msqrt></mrow><mrow><mn>2</mn><mi>a</mi></mrow></mfrac></math>"""


def _math(markup: str) -> html.HtmlElement:
    return html.fragment_fromstring(markup)


def test_layout_elements_are_written_as_plain_text() -> None:
    assert linear_text(_math(QUADRATIC)) == "x=(−b±√(b^2−4ac))/(2a)"
    sums = "<math><munderover><mo>∑</mo><mrow><mi>k</mi><mo>=</mo><mn>1</mn></mrow><mi>n</mi>"
    sums += "</munderover><msub><mi>a</mi><mi>k</mi></msub></math>"
    assert linear_text(_math(sums)) == "∑_(k=1)^na_k"
    # An accent over a symbol stays on it; a phantom is no text.
    dot = "<math><mover><mi>x</mi><mo>˙</mo></mover><mphantom><mi>y</mi></mphantom></math>"
    assert linear_text(_math(dot)) == "x˙"
    fenced = '<math><mi>f</mi><mfenced><mi>x</mi><mi>y</mi></mfenced><mfenced open="[" '
    fenced += 'close="]" separators=";"><mn>0</mn><mn>1</mn></mfenced></math>'
    assert linear_text(_math(fenced)) == "f(x,y)[0;1]"


def test_annotation_is_not_written_twice() -> None:
    katex = (
        "<math><semantics><mrow><msup><mi>x</mi><mn>2</mn></msup></mrow>"
        '<annotation encoding="application/x-tex">x^{2}</annotation></semantics></math>'
    )
    assert linear_text(_math(katex)) == "x^2"


def test_formula_stays_in_its_sentence() -> None:
    """MathJax's way: a drawing hidden from readers, the MathML beside it."""
    para = (
        "<p>When <span class='MathJax'><span aria-hidden='true'>a ≠ 0 drawn</span>"
        "<span class='assistive'><math><mi>a</mi><mo>≠</mo><mn>0</mn></math></span></span>,"
        " there are two solutions to the equation below, and they are these ones:</p>"
    )
    page = f"<html><body><article><h1>Roots</h1>{para}{QUADRATIC}<p>{'Text. ' * 40}</p>"
    page += "</article></body></html>"
    doc = as_document(page)
    lines = text_lines(doc.body)
    assert any(line.startswith("When a≠0, there are two solutions") for line in lines)
    assert "x=(−b±√(b^2−4ac))/(2a)" in lines  # a display formula: its own line
    assert "drawn" not in extractors.extract(page).text


def test_deep_nesting_ends() -> None:
    """A formula nested past the recursion limit still comes out as text."""
    deep = "<math>" + "<mrow>" * 1500 + "<mi>x</mi>" + "</mrow>" * 1500 + "</math>"
    page = f"<html><body><p>Before {deep} after.</p></body></html>"
    assert "x" in extractors.extract(page).text


def test_display_formula_inside_a_paragraph_is_kept() -> None:
    """A display formula breaks its paragraph's line, not its block: the
    short-page method (SCEDD) prunes sparse blocks inside the content."""
    para = f"<p>The roots are, for every choice of the coefficients,{QUADRATIC}as the "
    para += "school books teach them to every pupil who learns algebra.</p>"
    more = "The discriminant decides whether the roots are real, and its sign tells "
    page = f"<html><body><article><h1>Roots</h1>{para}<p>{more * 3}</p></article></body></html>"
    result = extractors.extract(page)
    assert result.method == "auto:scedd"
    lines = result.text.split("\n")
    assert "x=(−b±√(b^2−4ac))/(2a)" in lines
    assert any(line.startswith("as the school books") for line in lines)


def test_katex_formula_is_read_once() -> None:
    """KaTeX's way: MathML with the TeX annotation, beside an aria-hidden
    drawing of spans holding the same symbols."""
    katex = (
        '<span class="katex"><span class="katex-mathml"><math><semantics><mrow>'
        "<msup><mi>e</mi><mrow><mi>i</mi><mi>π</mi></mrow></msup><mo>=</mo><mo>−</mo><mn>1</mn>"
        '</mrow><annotation encoding="application/x-tex">e^{i\\pi}=-1</annotation></semantics>'
        '</math></span><span class="katex-html" aria-hidden="true"><span>e</span>'
        "<span>iπ</span><span>=−1</span></span></span>"
    )
    page = f"<html><body><p>Euler's identity {katex} links five constants.</p></body></html>"
    lines = text_lines(as_document(page).body)
    assert lines == ["Euler's identity e^(iπ)=−1 links five constants."]
