"""jusText: paragraphs, context-free classes, context revision, Chinese presets."""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from extractors import METHODS, as_document, stoplists
from extractors.justext import (
    Paragraph,
    ParagraphClass,
    Params,
    classify_paragraphs,
    context_free_class,
    extract,
    make_paragraphs,
    revise_classes,
)
from extractors.text import Tokenizer, tokens

GOOD, BAD, SHORT, NEAR = (
    ParagraphClass.GOOD,
    ParagraphClass.BAD,
    ParagraphClass.SHORT,
    ParagraphClass.NEAR_GOOD,
)
PROSE = (
    "It was the best of times and it was the worst of times, and all of us were there "
    "when the news came in from the city that the river had risen over the old bridge "
    "in the night, which is why nobody could get to work on that day at all."
)
ZH_PROSE = (
    "记者从有关部门了解到，这项工作已经在全国范围内开始进行，并且取得了一定的成果。"
    "专家认为，这是因为各地都在积极推动相关的改革，我们也可以看到其中的变化。"
)
NAV = "<ul><li><a href='/'>Home</a></li><li><a href='/n'>News</a></li></ul>"
ZH_NAV = "<ul><li><a href='/'>首页</a></li><li><a href='/n'>新闻</a></li></ul>"


def page(body: str, lang: str = "en") -> str:
    return f"<html lang='{lang}'><head><title>T</title></head><body>{body}</body></html>"


def para(text: str, link_chars: int = 0, heading: bool = False) -> Paragraph:
    return Paragraph(text=text, link_chars=link_chars, element=etree.Element("p"), heading=heading)


def classify(p: Paragraph, **overrides) -> ParagraphClass:
    params = Params(**overrides)
    return context_free_class(p, params, params.words(), lambda t: tokens(t, params.tokenizer))


# -- paragraphs -----------------------------------------------------------------


def test_paragraphs_split_at_blocks_and_double_br_only():
    doc = as_document(page("<div>one<p>two <b>bold</b></p>three<br>still<br><br>four</div>"))
    assert [p.text for p in make_paragraphs(doc)] == ["one", "two bold", "three still", "four"]


def test_paragraphs_keep_the_space_between_two_inline_elements():
    body = "<p>the <b>annual</b> <i>budget</i>; <a href='/x'>several</a> <a href='/y'>residents</a>"
    assert [p.text for p in make_paragraphs(as_document(page(body)))] == [
        "the annual budget; several residents"
    ]


def test_paragraphs_flag_headings_links_and_select():
    body = "<h2>Head <a href='/x'>line</a></h2><p>text</p><select><option>opt</option></select>"
    paras = make_paragraphs(as_document(page(body)))
    by_text = {p.text: p for p in paras}
    assert by_text["Head line"].heading and not by_text["text"].heading
    assert by_text["Head line"].link_chars == len("line")
    assert by_text["opt"].in_select and not by_text["text"].in_select
    assert by_text["text"].element.tag == "p"


def test_paragraphs_do_not_mutate_the_shared_tree():
    doc = as_document(page(f"<div><p>{PROSE}</p>{NAV}</div>"))
    before = etree.tostring(doc.root)
    extract(doc)
    assert etree.tostring(doc.root) == before


# -- context-free classes (one threshold at a time) -------------------------------------


def test_long_prose_is_good_and_medium_prose_near_good():
    assert classify(para(PROSE)) is GOOD
    assert classify(para(PROSE), length_high=len(PROSE)) is NEAR
    assert classify(para(PROSE), stopwords_high=0.99) is NEAR
    assert classify(para(PROSE), stopwords_low=0.99, stopwords_high=0.99) is BAD


def test_links_copyright_and_shortness():
    assert classify(para(PROSE, link_chars=len(PROSE) // 4)) is BAD
    assert classify(para(PROSE, link_chars=len(PROSE) // 4), max_link_density=0.3) is GOOD
    assert classify(para(PROSE + " © 2024")) is BAD
    assert classify(para("A short line.")) is SHORT
    assert classify(para("A short line.", link_chars=1)) is BAD
    assert classify(para("Widget 3000 XL"), length_low=5) is BAD  # no stopwords


# -- context revision ---------------------------------------------------------------


def revised(*classes: ParagraphClass, heading_at: int = -1) -> list[ParagraphClass]:
    paras = [para("x" * 50, heading=i == heading_at) for i in range(len(classes))]
    for p, c in zip(paras, classes, strict=True):
        p.cf_class = c
    revise_classes(paras, Params())
    return [p.cls for p in paras]


def test_short_takes_the_class_of_its_neighbours():
    assert revised(GOOD, SHORT, SHORT, GOOD) == [GOOD, GOOD, GOOD, GOOD]
    assert revised(BAD, SHORT, BAD) == [BAD, BAD, BAD]
    assert revised(GOOD, SHORT, BAD) == [GOOD, BAD, BAD]
    assert revised(GOOD, SHORT, NEAR, BAD) == [GOOD, GOOD, GOOD, BAD]
    assert revised(SHORT) == [BAD]  # the page's edges count as bad


def test_near_good_is_bad_only_between_bad():
    assert revised(BAD, NEAR, BAD) == [BAD, BAD, BAD]
    assert revised(BAD, NEAR, GOOD) == [BAD, GOOD, GOOD]


def test_short_heading_before_good_text_is_kept():
    assert revised(BAD, SHORT, GOOD, heading_at=1) == [BAD, GOOD, GOOD]
    assert revised(BAD, SHORT, GOOD) == [BAD, BAD, GOOD]


# -- the whole method -----------------------------------------------------------------


def test_extract_keeps_article_and_drops_navigation():
    html = page(f"{NAV}<h1>Flood news</h1><p>{PROSE}</p><p>{PROSE}</p><p>© 2024 Example</p>")
    result = METHODS["justext"](html, "https://example.com/a")
    assert result.method == "justext" and result.title == "T" and result.language == "en"
    assert result.lines == ["Flood news", PROSE, PROSE]
    assert result.node is not None and result.node.tag == "body"


def test_chinese_page_uses_jieba_and_chinese_thresholds():
    html = page(f"{ZH_NAV}<div><p>{ZH_PROSE}</p><p>短句。</p><p>{ZH_PROSE}</p></div>", "en")
    result = extract(html)
    assert result.language == "zh"  # the script wins over a wrong lang attribute
    assert result.lines == [ZH_PROSE, "短句。", ZH_PROSE]
    assert result.node.tag == "div"
    # The seed's diagnosis: English settings find nothing in Chinese.
    assert extract(html, params=Params()).text == ""


def test_params_presets_and_overrides():
    zh = Params.for_language("zh-CN")
    assert (zh.language, zh.tokenizer, zh.length_low) == ("zh", Tokenizer.JIEBA, 21)
    assert Params.for_language("en") == Params()
    assert Params.for_language("zh", length_low=5).length_low == 5
    paras = classify_paragraphs(page(f"<p>{PROSE}</p><p>{PROSE} Yes.</p>"), length_high=235)
    assert [p.cf_class for p in paras] == [NEAR, GOOD]
    assert [p.cls for p in paras] == [GOOD, GOOD]
    alone = classify_paragraphs(page(f"<p>{PROSE}</p>"), length_high=10_000)
    assert [p.cls for p in alone] == [BAD]  # the page's edges count as bad
    with pytest.raises(TypeError):
        extract(page("<p>x</p>"), lenght_low=3)


def test_stoplists_are_shipped():
    assert {"the", "and", "of"} <= stoplists.load("en")
    assert {"的", "了", "是"} <= stoplists.load("zh")
    assert "中国" not in stoplists.load("zh")  # nouns are topic words
    assert stoplists.load("xx") == frozenset()


# -- garbage in ---------------------------------------------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.binary(max_size=2000), st.text(max_size=2000)))
def test_garbage_never_raises(data):
    result = extract(data)
    assert isinstance(result.text, str) and result.method == "justext"


@pytest.mark.parametrize(
    "html",
    [
        "",
        b"\x00\xff\xfe" * 100,
        "<p>no body tag " + "word " * 30 + "</p>",
        "<div>" * 10_000 + "deep" + "</div>" * 10_000,
    ],
)
def test_hostile_input_returns_quickly(html):
    start = time.perf_counter()
    result = extract(html)
    assert time.perf_counter() - start < 5
    assert isinstance(result.text, str)


def test_large_page_is_linear():
    html = page(f"<p>{PROSE}</p>" * 20_000 + "<br>x" * 20_000)
    start = time.perf_counter()
    result = extract(html)
    assert time.perf_counter() - start < 10
    assert len(result.lines) == 20_000  # the <br>-joined run of "x" is one bad paragraph


GERMAN = (
    "Das ist der Grund, warum wir uns nicht mehr an die alte Brücke erinnern können, "
    "die in der Nacht von dem Wasser des Flusses weggerissen wurde und nicht mehr da ist. "
    "Aber die Stadt hat schon gesagt, dass sie eine neue bauen wird."
)


def test_language_is_the_best_matching_stoplist():
    html = page(f"<p>{GERMAN}</p><p>{GERMAN}</p><p>{GERMAN}</p>", lang="en")
    result = extract(html)
    assert result.language == "de" and result.lines == [GERMAN] * 3
    # The English list would reject German prose: no English function words.
    assert extract(html, language="en").text == ""


def test_language_without_stoplist_runs_language_independent():
    korean = " ".join(
        ["이것은 테스트 문장입니다 그리고 우리는 이 문장을 길게 만들어서"] * 5
        + ["분류기가 충분히 긴 단락으로 보도록 합니다"] * 5
    )
    result = extract(page(f"{NAV}<p>{korean.strip()}</p>"))
    assert result.language == "und"
    assert result.lines == [korean.strip()]
    assert Params.for_language("und").stopwords_high == 0.0


def test_a_data_tables_rows_with_linked_titles_are_judged_by_their_neighbours() -> None:
    """A list of films as a table: each row's title is a link, most of a
    short row's text; in a data table that is a cell's link, not a menu's."""
    rows = "".join(
        f"<tr><th><a href='/film/{i}'>The Film Number {i}</a></th><td>19{60 + i}</td>"
        f"<td>{'Remake of the first one.' if i % 2 else 'A man relives one day again.'}</td></tr>"
        for i in range(12)
    )
    html = page(f"{NAV}<p>{PROSE}</p><table>{rows}</table><p>{PROSE}</p>{NAV}")
    paragraphs = make_paragraphs(as_document(html))
    assert [p.in_data_table for p in paragraphs if p.row] == [True] * 12
    text = extract(html).text
    assert all(f"The Film Number {i} | 19{60 + i}" in text for i in range(12))
    # A table of links alone is a menu: its rows stay bad.
    cells = "<td><a href='/a{0}'>Section {0}</a></td><td><a href='/b{0}'>More</a></td>"
    menu = "".join(f"<tr>{cells.format(i)}</tr>" for i in range(6))
    text = extract(page(f"<p>{PROSE}</p><table>{menu}</table><p>{PROSE}</p>")).text
    assert "Section" not in text
