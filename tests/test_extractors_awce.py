"""I-AWCE article extractor: the seed's descent rules on hand-made pages."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from extractors import METHODS, PageType
from extractors.awce import Params, extract, find_content
from extractors.document import as_document

PARA = "Paragraph {i} of the story tells what happened next in plain words and more."


def _page(body: str) -> str:
    return f"<html><head><title>T</title></head><body>{body}</body></html>"


def _article(n: int = 8) -> str:
    paras = "".join(f"<p>{PARA.format(i=i)} <a href='/x'>link</a> end.</p>" for i in range(n))
    return f"<div id='story'><h1>Headline</h1>{paras}</div>"


NAV = (
    "<nav><ul>"
    + "".join(f"<li><a href='/s{i}'>Section {i}</a></li>" for i in range(12))
    + "</ul></nav>"
)
SIDEBAR = (
    "<div id='side'>"
    + "".join(f"<p><a href='/r{i}'>Related {i} headline here</a></p>" for i in range(6))
    + "</div>"
)
FOOTER = "<div id='foot'><p>Copyright 2024 Example Corp. All rights reserved.</p></div>"


def test_registered_under_method_name() -> None:
    assert METHODS["awce"].__wrapped__ is extract


def test_paragraph_run_returns_their_container() -> None:
    html = _page(NAV + "<div id='wrap'>" + _article() + SIDEBAR + "</div>" + FOOTER)
    result = extract(html)
    assert result.method == "awce"
    assert result.page_type is PageType.ARTICLE
    assert result.node.get("id") == "story"
    assert result.lines[0] == "Headline"
    assert "Paragraph 7 of the story" in result.text
    assert "Section 3" not in result.text and "Copyright" not in result.text
    assert len(result.lines) == 9  # headline + one line per paragraph


def test_paragraph_behind_wrappers_returns_the_run_not_its_wrapper() -> None:
    paras = "".join(f"<div class='p'><p>{PARA.format(i=i)}</p></div>" for i in range(6))
    html = _page(NAV + f"<div id='story'>{paras}</div>" + FOOTER)
    assert extract(html).node.get("id") == "story"


def test_dominant_child_is_followed_down() -> None:
    long_text = " ".join(PARA.format(i=i) for i in range(10))
    html = _page(
        f"<div id='main'><div id='body'><p>{long_text}</p><p>short tail</p></div></div>{FOOTER}"
    )
    result = extract(html)
    assert result.node.get("id") == "body"
    assert "short tail" in result.text


def test_seed_stop_on_dominant_returns_the_dominant_child() -> None:
    long_text = " ".join(PARA.format(i=i) for i in range(10))
    html = _page(
        f"<div id='main'><div id='body'><p>{long_text}</p></div><div>x</div></div>{FOOTER}"
    )
    doc = as_document(html)
    node = find_content(doc, Params(stop_on_dominant=True))
    assert node.get("id") == "main"  # body's dominant child, returned as is


def test_small_lead_returns_the_element() -> None:
    # Two children, lead under min_lead: the element itself is the content.
    html = _page("<div id='a'>" + "x" * 80 + "</div><div id='b'>" + "y" * 60 + "</div>")
    node = find_content(as_document(html))
    assert node.tag == "body"


def test_link_dense_blocks_inside_content_are_left_out() -> None:
    menu = (
        "<ul>" + "".join(f"<li><a href='/t{i}'>tag number {i}</a></li>" for i in range(5)) + "</ul>"
    )
    paras = "".join(f"<p>{PARA.format(i=i)}</p>" for i in range(6))
    html = _page(f"<div id='story'>{paras}{menu}</div>")
    result = extract(html)
    assert "tag number" not in result.text
    assert "tag number" in extract(html, max_link_density=1.0).text


def test_select_options_do_not_outweigh_the_article() -> None:
    options = "".join(f"<option>Country name number {i}</option>" for i in range(200))
    html = _page(f"<div id='tools'><form><select>{options}</select></form></div>{_article()}")
    result = extract(html)
    assert "Paragraph 3" in result.text and "Country" not in result.text
    # With the seed's raw measures the option list wins.
    assert "Paragraph 3" not in extract(html, ignore_noise=False, ignore_link_text=False).text


def test_params_object_and_overrides() -> None:
    html = _page(_article())
    assert extract(html, params=Params(min_lead=10**9)).text  # still returns something
    assert extract(html, min_lead=100).text
    with pytest.raises(TypeError, match="unknown_option"):  # a typo is not ignored
        extract(html, unknown_option=1)


def test_shared_document_is_not_mutated() -> None:
    doc = as_document(_page(NAV + _article() + FOOTER))
    before = len(doc.elements())
    extract(doc)
    extract(doc)
    assert len(doc.elements()) == before


def test_empty_and_textless_pages() -> None:
    for html in (
        "",
        b"",
        "<html></html>",
        _page("<div><img src='a.png'></div>"),
    ):
        result = extract(html)
        assert result.text == "" and result.node is None
    assert isinstance(extract(b"\x00\xff\xfe" * 50).text, str)


def test_deep_nesting_is_bounded() -> None:
    html = "<div>" * 10_000 + "deep text" + "</div>" * 10_000
    extract(html)  # must not raise RecursionError


@settings(max_examples=60, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=400), st.binary(max_size=400)))
def test_garbage_never_raises(data: str | bytes) -> None:
    result = extract(data)
    assert isinstance(result.text, str)


@settings(max_examples=40, deadline=2000)
@given(
    st.lists(
        st.sampled_from(
            ["<div>", "</div>", "<p>", "</p>", "<a href='x'>", "</a>", "word ", "<br>", "<ul><li>"]
        ),
        max_size=120,
    )
)
def test_random_markup_never_raises(parts: list[str]) -> None:
    result = extract(_page("".join(parts)))
    assert result.method == "awce"
