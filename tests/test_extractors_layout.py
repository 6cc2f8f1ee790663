"""Layout-similarity template removal: template out, article in."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from extractors import METHODS, extract
from extractors.document import as_document
from extractors.layout import Params
from extractors.layout import extract as layout_extract

TEMPLATE = """<html><head><title>{title}</title></head><body>
<div id="top"><ul class="nav"><li><a href="/">Home</a></li><li><a href="/world">World</a></li>
<li><a href="/sport">Sport</a></li></ul>
<div class="login">Sign in to read the member edition of the Daily Example today</div></div>
<div id="wrap"><div id="content"><h1>{title}</h1><div class="body">{body}</div>
<p class="share">Share this story with friends</p></div>
<div id="side"><h3>Editor's note about the week</h3>
<p>Our newsroom answers reader letters every Friday in the weekend edition.</p></div></div>
<div id="foot"><p>Copyright Example Media, all rights reserved, since nineteen ninety.</p></div>
</body></html>"""

ARTICLE_A = (
    "<p>The river rose two metres overnight and the old bridge was closed to traffic.</p>"
    "<p>Engineers said the repairs would take at least a month, longer if rain returns.</p>"
)
ARTICLE_B = (
    "<p>The council approved a new library for the east side after a long debate.</p>"
    "<p>Construction starts in spring and the doors should open within two years.</p>"
)
PAGE_A = TEMPLATE.format(title="Bridge closed after flood", body=ARTICLE_A)
PAGE_B = TEMPLATE.format(title="Library approved", body=ARTICLE_B)


def test_registered_under_layout() -> None:
    assert METHODS["layout"].__wrapped__ is layout_extract


def test_template_removed_and_article_kept() -> None:
    result = layout_extract(PAGE_A, reference=PAGE_B)
    assert result.method == "layout"
    assert "The river rose two metres" in result.text
    assert "Engineers said the repairs" in result.text
    for noise in ("Sign in", "Editor's note", "newsroom", "Copyright", "Share this story"):
        assert noise not in result.text
    assert result.node is not None
    assert result.title == "Bridge closed after flood"
    assert result.text.count("\n") >= 1  # one paragraph per line


def test_without_reference_the_template_text_stays() -> None:
    # Only the link rules run: the menu goes, plain-text template blocks stay
    # (the chosen block then has to span page and sidebar).
    result = layout_extract(PAGE_A, main_share=1.0)
    assert "The river rose" in result.text
    assert "Home" not in result.text
    assert "Copyright" in result.text
    with_ref = layout_extract(PAGE_A, reference=PAGE_B, main_share=1.0)
    assert "Copyright" not in with_ref.text
    assert result.confidence is not None and with_ref.confidence is not None


def test_entry_point_passes_reference_and_documents_work() -> None:
    doc, ref = as_document(PAGE_A), as_document(PAGE_B)
    result = extract(doc, method="layout", reference=[ref])
    assert "Sign in" not in result.text and "old bridge" in result.text


def test_unknown_parameter_is_an_error() -> None:
    with pytest.raises(TypeError, match="max_link_ration"):
        layout_extract(PAGE_A, max_link_ration=0.2)


def test_node_is_template_if_any_reference_has_it() -> None:
    other = TEMPLATE.replace("Copyright Example Media", "Copyright Other Media").format(
        title="Other", body=ARTICLE_B
    )
    result = layout_extract(PAGE_A, reference=[other, PAGE_B], main_share=1.0)
    assert "Copyright" not in result.text
    only_other = layout_extract(PAGE_A, reference=[other], main_share=1.0)
    assert "Copyright Example Media" in only_other.text


def test_attributes_are_part_of_identity() -> None:
    # A differing wrapper is descended into: its identical child still goes.
    wrapper = PAGE_B.replace('<div id="foot">', '<div id="footer">')
    assert "Copyright" not in layout_extract(PAGE_A, reference=wrapper, main_share=1.0).text
    changed = PAGE_B.replace("<p>Copyright", '<p class="legal">Copyright')
    assert "Copyright" in layout_extract(PAGE_A, reference=changed, main_share=1.0).text


def test_matching_is_one_to_one() -> None:
    # A paragraph that occurs twice in the page but once in the reference is
    # removed once (the seed removes the matched reference node too).
    rep = "<p>Repeated line that closes every story on this site.</p>"
    page = TEMPLATE.format(title="t", body=ARTICLE_A + rep + rep)
    ref = TEMPLATE.format(title="u", body=ARTICLE_B + rep)
    result = layout_extract(page, reference=ref)
    assert result.text.count("Repeated line") == 1


def test_a_copy_of_the_page_is_not_a_reference() -> None:
    result = layout_extract(PAGE_A, reference=PAGE_A)
    assert "The river rose" in result.text
    near_copy = PAGE_A.replace("<title>", "<title>Copy: ")
    assert "The river rose" in layout_extract(PAGE_A, reference=near_copy).text


def test_link_rules() -> None:
    body = (
        "<div id='a'><p>A long paragraph of plain words that carries the story forward "
        "with one <a href='/x'>link</a> inside it.</p>"
        "<p>Another paragraph, also long enough to be the article's own body text.</p></div>"
        "<div id='r'><p><a href='/1'>Related story one</a> | <a href='/2'>Two</a></p>"
        "<p>See: <a href='/3'>a much longer related headline here</a></p></div>"
    )
    html = f"<html><body>{body}</body></html>"
    text = layout_extract(html).text
    assert "link inside it" in text  # a low link ratio keeps the paragraph
    assert "Related story one" not in text  # only links and separators: rule 2
    assert "much longer related" not in text  # link ratio above 0.3: rule 1
    loose = layout_extract(html, params=Params(max_link_ratio=0.95, main_share=1.0)).text
    assert "much longer related" in loose
    assert "Related story one" not in loose


def test_a_wrapped_link_in_a_sentence_keeps_its_words() -> None:
    """The link rules judge a link's parent; an inline wrapper around a
    citation link is part of its sentence, a line of wrapped tags is not."""
    body = (
        "<div id='a'><p>A <span><a href='/s'>large, older study</a></span> from 2017 of "
        "over 200,000 people found that those who ate more vegetables lived longer lives.</p>"
        "<p>Another paragraph, long enough to be the article's own body text, follows it. "
        "Tags: <span><a href='/t/1'>health</a></span>, <span><a href='/t/2'>diet</a></span></p>"
        "</div>"
    )
    text = layout_extract(f"<html><body>{body}</body></html>").text
    assert "A large, older study from 2017" in text
    assert "health" not in text and "diet" not in text


def test_forms_dropped_unless_they_wrap_the_page() -> None:
    small = (
        "<html><body><div><p>The article text is long enough to be the content of the page.</p>"
        "<form><label>Subscribe to our newsletter now</label><input name='e'></form>"
        "</div></body></html>"
    )
    assert "Subscribe" not in layout_extract(small).text
    wrapped = "<html><body><form><div><p>Everything of the page lives in this form.</p>"
    wrapped += "<button>Send it</button></div></form></body></html>"
    text = layout_extract(wrapped).text
    assert "Everything of the page" in text and "Send it" not in text


@settings(max_examples=60, deadline=None)
@given(
    st.one_of(st.text(max_size=300), st.binary(max_size=300)),
    st.one_of(st.none(), st.text(max_size=200), st.binary(max_size=200)),
)
def test_garbage_never_raises(html: str | bytes, ref: str | bytes | None) -> None:
    result = layout_extract(html, reference=ref)
    assert isinstance(result.text, str)


def test_hostile_inputs_are_quick() -> None:
    cases = [
        "",
        b"\x00\xff\xfe" * 100,
        "<p>no body tag, just text</p>",
        "<div>" * 10_000 + "deep" + "</div>" * 10_000,
    ]
    for html in cases:
        start = time.perf_counter()
        layout_extract(html, reference=html)
        assert time.perf_counter() - start < 2.0
    big = "<html><body>" + "<div><p>word " * 2 + "</p></div>" * 2 + "</body></html>"
    big = big.replace("</body>", "<p>filler text here</p>" * 50_000 + "</body>")
    start = time.perf_counter()
    result = layout_extract(big)
    assert time.perf_counter() - start < 10.0
    assert "filler" in result.text
