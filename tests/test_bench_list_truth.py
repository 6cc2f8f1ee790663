"""The annotated record truth of pagetype's list pages (benchmarks.list_truth)."""

from __future__ import annotations

import pytest
from lxml import html as lxml_html

from benchmarks import datasets, list_truth
from benchmarks.extraction import page_input
from benchmarks.lists import score_page

PAGE = (
    "<html><body><ul id='news'>"
    "<li><a href='/2'><img alt='pic'></a><h3><a href='/2'>第二条新闻标题</a></h3>"
    "<span>08-02</span><script>track()</script>"
    "<div class='share'><a>微信</a><a>微博</a></div></li>"
    "<li><a href='/1'>First story's headline</a> <em>Aug 1</em></li>"
    "<li>   </li>"
    "<li>An entry without a link</li>"
    "</ul></body></html>"
)


def test_records_are_the_selected_elements_text_in_page_order() -> None:
    # a union selecting the last item first still yields page order; an
    # empty item is no record; script text is not shown text
    xpath = "//ul[@id='news']/li[position() > 1] | //ul[@id='news']/li[1]"
    records = list_truth.annotated_records(PAGE, xpath)
    assert [text for text, _ in records] == [
        "第二条新闻标题 08-02 微信 微博",
        "First story's headline Aug 1",
        "An entry without a link",
    ]


def test_a_records_headline_is_its_wordiest_link() -> None:
    # CJK characters count one by one: the title beats the share links;
    # a record without a link is its own headline
    records = list_truth.annotated_records(PAGE, "//ul[@id='news']/li")
    assert [headline for _, headline in records] == [
        "第二条新闻标题",
        "First story's headline",
        "An entry without a link",
    ]


@pytest.mark.skipif(datasets.datasets_dir() is None, reason="shared datasets folder not found")
def test_every_annotation_selects_the_records_its_annotator_counted() -> None:
    notes = list_truth.annotations()
    pages, left_out = list_truth.load()
    assert len(pages) + len(left_out) == len(notes) == 19
    for page in pages:
        assert len(page.truth["records"]) == notes[page.id]["records"], page.id
        first = "".join(page.truth_text.split("\n")[0].split())
        assert first.startswith("".join(notes[page.id]["first"].split())[:20]), page.id


@pytest.mark.skipif(datasets.datasets_dir() is None, reason="shared datasets folder not found")
def test_an_annotated_page_is_scored_by_its_headlines() -> None:
    page = next(p for p in list_truth.load()[0] if p.id.endswith("rolling_news"))
    assert page_input(page)  # decodes
    score = score_page(page, timeout=20)
    assert score is not None and score.entries == len(page.truth["headlines"]) == 40
    assert 0.0 <= score.precision <= 1.0 and 0.0 <= score.recall <= 1.0


def test_records_at_follows_the_xpaths_order_and_skips_blank_records() -> None:
    xpaths = [
        ["/html/body/ul/li[2]"],
        ["/html/body/ul/li[1]"],
        ["/html/body/ul/li[3]"],  # blank: no record
        ["/html/body/ul/li[4]", "/html/body/ul/li[2]/em"],  # a record of two elements
    ]
    assert list_truth.records_at(PAGE, xpaths) == [
        ("First story's headline Aug 1", "First story's headline"),
        ("第二条新闻标题 08-02 微信 微博", "第二条新闻标题"),
        ("An entry without a link Aug 1", "An entry without a link Aug 1"),
    ]
    # an XPath that selects nothing: the truth is not of this document
    assert list_truth.records_at(PAGE, [["/html/body/ul/li[9]"]]) is None


def test_a_record_listed_again_at_another_granularity_counts_once() -> None:
    # NEXT-EVAL lists some pages' records twice: the title, then the whole
    # card. The same headline link is one record; a record with another
    # link, or none, is not a repeat.
    xpaths = [
        ["/html/body/ul/li[1]/h3"],
        ["/html/body/ul/li[2]"],
        ["/html/body/ul/li[1]"],  # li[1]/h3's link again
        ["/html/body/ul/li[4]"],
        ["/html/body/ul/li[4]"],  # no link: kept, nothing tells it is one
    ]
    records = list_truth.records_at(PAGE, xpaths)
    assert [headline for _, headline in records] == [
        "第二条新闻标题",
        "First story's headline",
        "An entry without a link",
        "An entry without a link",
    ]


@pytest.mark.skipif(datasets.datasets_dir() is None, reason="shared datasets folder not found")
def test_next_eval_truth_selects_its_records_on_the_pages() -> None:
    # NEXT-EVAL's XPaths were written on these saved pages: all but a few
    # (XPaths of another DOM) must select every record.
    xpaths = list_truth.next_eval_xpaths()
    pages, left_out = list_truth.load_next_eval()
    assert len(pages) + len(left_out) == len(xpaths) > 150
    assert len(left_out) <= 3
    for page in pages:
        # a record may be blank (an empty cell, a screen-reader label) or
        # listed twice (at two granularities): counted once
        assert len(page.truth["records"]) >= 0.45 * len(xpaths[page.id]), page.id
        assert all(page.truth["headlines"]), page.id


def test_screen_reader_labels_are_not_shown_text() -> None:
    html = (
        "<html><body><div class='card'><a href='/50'><span class='screen-reader-only'>"
        "Link to the story about the election</span></a>"
        "<h3><a href='/50'>Upcoming Election</a></h3><span class='sr-only'>Rated</span> 4 stars"
        "</div></body></html>"
    )
    assert list_truth.annotated_records(html, "//div[@class='card']") == [
        ("Upcoming Election 4 stars", "Upcoming Election")
    ]


def test_record_kind_tells_records_from_menus_hidden_nested_and_options() -> None:
    tree = lxml_html.fromstring(
        "<html><body><nav><ul><li id='menu'><a href='/a'>Menu</a></li></ul></nav>"
        "<div class='results'><div id='item' class='item'><div id='card'>Card</div></div>"
        "<div id='more' style='display: none'>Hidden result</div></div>"
        "<select><option id='opt'>Size</option></select></body></html>"
    )
    by_id = {el.get("id"): el for el in tree.iter() if el.get("id")}
    records = set(by_id.values())
    kinds = {name: list_truth.record_kind(el, records) for name, el in by_id.items()}
    assert kinds == {
        "menu": "navigation or chrome",
        "item": "record",
        "card": "inside another record",
        "more": "hidden",
        "opt": "form options",
    }
