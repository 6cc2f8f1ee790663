"""List-record extractor: grouping, ranking against menus, records, dates."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from extractors import METHODS, PageType
from extractors.awce import extract as extract_article
from extractors.document import as_document
from extractors.listing import (
    Params,
    _lists_of,
    _nav_words,
    extract,
    find_date,
    find_records,
    lift,
    record_text,
)

MENU = (
    "<nav><ul class='menu'>"
    + "".join(f"<li class='menu-item'><a href='/c{i}'>Topic {i}</a></li>" for i in range(14))
    + "</ul></nav>"
)
FOOTER = (
    "<div class='footer'><ul>"
    + "".join(f"<li><a href='/f{i}'>Footer link {i}</a></li>" for i in range(10))
    + "</ul></div>"
)


def _entry(i: int, dated: bool = True, tag: str = "li") -> str:
    date = f"<span class='date'>2024-03-{i + 1:02d}</span>" if dated else ""
    return (
        f"<{tag} class='item'><h3><a href='/news/{i}.html'>Headline number {i} about the"
        f" city council budget</a></h3><p class='summary'>A snippet of story {i}.</p>"
        f"{date}</{tag}>"
    )


def _entries(n: int = 8, dated: bool = True) -> str:
    return "<ul class='news-list'>" + "".join(_entry(i, dated) for i in range(n)) + "</ul>"


def _page(body: str) -> str:
    return f"<html><head><title>News</title></head><body>{body}</body></html>"


def test_registered_under_method_name() -> None:
    assert METHODS["list"].__wrapped__ is extract


def test_records_beat_menu_and_footer() -> None:
    result = extract(_page(MENU + _entries() + FOOTER), url="https://example.com/news/")
    assert result.method == "list"
    assert result.page_type is PageType.LIST
    assert len(result.records) == 8
    first = result.records[0]
    assert first.title == "Headline number 0 about the city council budget"
    assert first.url == "https://example.com/news/0.html"
    assert first.date == "2024-03-01"
    assert "snippet of story 0" in first.text
    assert result.lines == [r.text for r in result.records]
    assert "Topic" not in result.text and "Footer" not in result.text


def test_copies_of_a_record_are_dropped() -> None:
    # A carousel clones its first and last slides for looping; a record drawn
    # twice (same text, same link) is one entry.
    slides = [
        f"<div class='slide'><h3><a href='/story/{i}'>Story {i} of the week in review</a>"
        f"</h3><p>Summary of story {i}.</p></div>"
        for i in range(6)
    ]
    body = "<div class='carousel'>" + "".join([slides[-1], *slides, slides[0]]) + "</div>"
    result = extract(_page(MENU + body), url="https://example.com/")
    assert [r.url for r in result.records] == [
        f"https://example.com/story/{i}" for i in (5, 0, 1, 2, 3, 4)
    ]
    kept = extract(_page(MENU + body), url="https://example.com/", drop_copies=False)
    assert len(kept.records) == 8


def test_a_shorter_rendering_of_the_previous_record_is_dropped() -> None:
    # Each event drawn twice with one link: the wide layout shows the
    # organiser, the narrow one does not. One record each, the fuller one.
    cards = "".join(
        f"<div class='card'><a href='/e/{i}'>Workshop {i} on data pipelines</a>"
        f"<span>Friday 10:00 Free</span>{'<span>Organiser Guild 120 followers</span>' * wide}</div>"
        for i in range(4)
        for wide in (1, 0)
    )
    result = extract(_page(MENU + f"<div class='events'>{cards}</div>"), url="https://example.com/")
    assert [r.url for r in result.records] == [f"https://example.com/e/{i}" for i in range(4)]
    assert all("followers" in r.text for r in result.records)


def test_leaf_group_is_lifted_to_whole_entries() -> None:
    # Title links are the repeated leaves; records must carry their dates too.
    rows = "".join(
        f"<tr><td><a class='t' href='/a/{i}'>Announcement of fund {i} quarterly report</a>"
        f"</td><td>2023年12月{i + 1}日</td></tr>"
        for i in range(6)
    )
    result = extract(_page(MENU + f"<table>{rows}</table>"), url="http://x.cn/list/")
    assert len(result.records) == 6
    assert result.records[2].date == "2023-12-03"
    assert result.records[2].url == "http://x.cn/a/2"


def test_lift_stops_where_parents_are_shared() -> None:
    doc = as_document(_page(_entries(4)))
    anchors = [a for a in doc.body.iter("a")]
    lifted = lift(anchors, 5, doc.body)
    assert {el.tag for el in lifted} == {"li"}


def _split_cards(n: int = 5) -> str:
    """Cards laid out as an image box and a text box, the author's name at
    one depth in both (one copy per screen size): the name's group lifts
    into halves."""
    cards = "".join(
        "<div class='card'>"
        f"<div class='img-box'><div><div><a href='/u/{i}'><span class='name'>Author {i}</span>"
        "</a></div></div></div>"
        f"<div class='text-box'><div><h3><a href='/p/{i}'>The story number {i} of the feed</a>"
        f"</h3><div><a href='/u/{i}'><span class='name'>Author {i}</span></a></div></div></div>"
        "</div>"
        for i in range(n)
    )
    return f"<div class='feed'>{cards}</div>"


def test_lift_joins_the_parts_of_one_record() -> None:
    doc = as_document(_page(_split_cards()))
    names = list(doc.body.iter("span"))
    lifted = lift(names, 5, doc.body)
    assert [el.get("class") for el in lifted] == ["card"] * 5
    halves = lift(names, 5, doc.body, join_parts=False)
    assert {el.get("class") for el in halves} == {"img-box", "text-box"}


def test_lift_keeps_a_parents_items_apart() -> None:
    # One parent's items of distinct kinds are a list, not the parts of one
    # record: at least min_records parents must each hold the same run.
    items = (
        "<li class='a'><a href='/1'>First item here</a></li><li class='b'><a href='/2'>x</a></li>"
    )
    doc = as_document(_page(f"<ul>{items}</ul>"))
    lifted = lift(list(doc.body.iter("a")), 5, doc.body)
    assert [el.tag for el in lifted] == ["li", "li"]


def test_records_of_split_cards_are_whole_cards() -> None:
    result = extract(_page(MENU + _split_cards(6)), url="http://x.com/")
    assert len(result.records) == 6
    assert result.records[0].title == "The story number 0 of the feed"
    assert result.records[0].text.startswith("Author 0")


def _river_and_sidebar() -> str:
    """A river of stories and a sidebar of bare headlines: one class, one
    depth, one parent tag, two lists."""
    river = "".join(
        f"<div class='item'><h3><a href='/s/{i}'>Story {i} of the river, a headline</a></h3>"
        f"<p class='summary'>What happened in story {i}, told in a sentence or two.</p>"
        f"<span class='author'>Reporter {i}</span></div>"
        for i in range(6)
    )
    side = "".join(
        f"<div class='item'><a href='/hot/{i}'>Most read headline number {i} today</a></div>"
        for i in range(8)
    )
    return f"<div class='main'><div class='river'>{river}</div><div class='side'>{side}</div></div>"


def test_a_sidebar_sharing_the_rivers_class_is_another_list() -> None:
    html = _page(MENU + _river_and_sidebar())
    result = extract(html, url="http://x.com/")
    assert [r.url for r in result.records] == [f"http://x.com/s/{i}" for i in range(6)]
    joined = extract(html, url="http://x.com/", split_lists=False)
    assert len(joined.records) == 14


def test_cells_of_one_grid_stay_one_list() -> None:
    # Cards one per grid cell, with and without a badge: no parent holds a
    # list of its own, so nothing is split.
    cells = "".join(
        f"<div class='cell'><div class='card'><a href='/p/{i}'>Product number {i} name</a>"
        + ("<span class='badge'>Sale</span>" if i % 2 else "")
        + "</div></div>"
        for i in range(8)
    )
    doc = as_document(_page(f"<div class='grid'>{cells}</div>"))
    cards = [el for el in doc.body.iter("div") if el.get("class") == "card"]
    assert _lists_of(cards, Params()) == [cards]


def test_a_navigation_named_wrapper_of_the_page_is_not_chrome() -> None:
    # A forum board: the thread table sits in a box whose id reads as
    # navigation but which holds nearly all of the page; as chrome, the
    # site's footer lines would win.
    rows = "".join(
        f"<tbody><tr><th><a href='/t/{i}'>Thread number {i}: a question about the game</a></th>"
        f"<td>player{i}</td><td>{i + 3} 天前</td><td>{i * 7} replies</td></tr></tbody>"
        for i in range(12)
    )
    menu = "<ul>" + "".join(f"<li><a href='/f/{i}'>Board {i} name</a></li>" for i in range(6))
    footer = "".join(
        f"<div><a href='/about/{i}'>About us</a> Company line {i}: address, licence and phone</div>"
        for i in range(3)
    )
    html = _page(f"<div id='boardnav'>{menu}</ul><table>{rows}</table></div>{footer}")
    result = extract(html, url="http://bbs.x.cn/")
    assert len(result.records) == 12
    assert result.records[0].url == "http://bbs.x.cn/t/0"
    chrome = extract(html, url="http://bbs.x.cn/", wrapper_share=1.0)
    assert len(chrome.records) != 12


def test_a_main_element_named_as_navigation_is_not_chrome() -> None:
    # <main class="js_navContinua">: the page's declared main content, so
    # its stories are not scaled down as navigation (else the footer's
    # lines would win).
    footer = "".join(
        f"<div><a href='/about/{i}'>About us</a> Company line {i}: address, licence and phone</div>"
        for i in range(3)
    )
    html = _page(
        MENU + f"<main class='main js_navContinua'>{_entries(8, dated=False)}</main>{footer}"
    )
    result = extract(html, url="http://x.com/")
    assert len(result.records) == 8 and "Headline" in result.records[0].text


def test_filter_chips_made_of_buttons_are_not_records() -> None:
    chips = "".join(
        f"<div class='chip'><button type='button'>Seats {i}-{i + 1} adults, any size of car"
        "</button></div>"
        for i in range(30)
    )
    html = _page(f"<div class='filters'>{chips}</div>" + _entries(3, dated=False))
    records = extract(html, url="http://x.com/").records
    assert [r.url for r in records] == [f"http://x.com/news/{i}.html" for i in range(3)]


def test_shared_style_names_are_not_share_bars() -> None:
    html = (
        "<div><h2 class='ContentSystem-shared-styles__Header'>Ankle socks</h2>"
        "<p class='ContentSystem-shared-styles__Body'>Comfy cover.</p>"
        "<div class='share-bar'>Share on X</div><div class='socialIcons'>Like</div></div>"
    )
    doc = as_document(_page(html))
    assert record_text(doc.body.find(".//div")) == "Ankle socks Comfy cover."


def test_short_link_only_menu_is_not_a_list_of_records() -> None:
    # The same menu without a <nav> container: short link-only entries lose
    # against three real records.
    menu = "<ul>" + "".join(f"<li><a href='/c{i}'>Tab{i}</a></li>" for i in range(20)) + "</ul>"
    records = find_records(as_document(_page(menu + _entries(3, dated=False))))
    assert [el.tag for el in records] == ["li"] * 3
    assert "Headline" in records[0].text_content()


def test_penalties_can_be_switched_off() -> None:
    html = _page(MENU * 3 + _entries(3, dated=False))
    plain = Params(
        nav_penalty=1.0,
        short_link_penalty=1.0,
        date_bonus=0,
        snippet_bonus=0,
        min_distinct=0,
        more_regions=0.0,
    )
    assert "Headline" in extract(html).text
    assert "Headline" not in extract(html, params=plain).text


def test_no_repeated_group_gives_empty_result() -> None:
    result = extract(_page("<div><p>Just one paragraph of text.</p></div>"))
    assert result.records == [] and result.text == ""
    assert result.page_type is PageType.LIST


def test_form_options_are_never_records() -> None:
    options = "".join(f"<option>Country {i}</option>" for i in range(50))
    result = extract(_page(f"<form><select>{options}</select></form>" + _entries(4)))
    assert "Country" not in result.text and len(result.records) == 4


def test_class_words_are_matched_as_whole_parts() -> None:
    # "tab-reorder-container" is no tab bar, "entry-header" and
    # "content-sidebar-wrap" name the content; "main-nav" is navigation.
    assert not _nav_words("grid tab-reorder-container search-results")
    assert not _nav_words("entry-header")
    assert not _nav_words("content-sidebar-wrap")
    assert not _nav_words("unavailable")
    assert _nav_words("main-nav")
    assert _nav_words("siteFooter")
    assert _nav_words("breadcrumbs")
    # A modifier says what an element holds, not that it is chrome.
    assert not _nav_words("row has-side-banner")
    assert not _nav_words("layout no-sidebar")


def test_list_in_a_wrapper_with_chrome_words_still_wins() -> None:
    html = _page(
        MENU + "<div class='content-sidebar-wrap'><main class='skip-link-target'>"
        "<div class='tab-reorder-container'>" + _entries(5, dated=False) + "</div></main></div>"
    )
    result = extract(html)
    assert len(result.records) == 5 and "Headline" in result.text


def test_main_element_stops_navigation_marks_above_it() -> None:
    html = _page(MENU + "<div class='page-header'><main>" + _entries(4) + "</main></div>")
    assert len(extract(html).records) == 4


def test_inline_tags_between_lower_and_upper_case_are_spaced() -> None:
    items = "".join(
        f"<li><a href='/p{i}'><span>Coleman</span><span>Cascade Stove {i}</span></a>"
        f"<span>$1{i}0.00</span></li>"
        for i in range(4)
    )
    result = extract(_page(f"<ul>{items}</ul>"))
    assert result.records[0].text.startswith("Coleman Cascade Stove 0")


@pytest.mark.parametrize(
    ("markup", "text"),
    [
        # Words split by inline tags mid-word stay joined.
        ("un<b>believ</b>able", "unbelievable"),
        # A brand in capitals before a capitalised model name is spaced; a
        # drop cap and a split acronym are not.
        ("<span>HOKA</span><span>Clifton 9</span>", "HOKA Clifton 9"),
        ("<span class='drop'>T</span>he <b>N</b>ASA crew", "The NASA crew"),
        # So is a number before a capitalised word (a postcode, then the
        # next line's town); a number split from its unit or digits is not.
        ("<span>Tempe, AZ 85281</span><span>Phoenix</span>", "Tempe, AZ 85281 Phoenix"),
        ("<span>$12</span>.99 and <b>3</b>kg, <b>2</b>TB", "$12.99 and 3kg, 2TB"),
        # A word before a number is spaced (a label, then a figure); a sub-
        # or superscript stays joined.
        ("<span>New vehicle</span><span>22 kg</span>", "New vehicle 22 kg"),
        ("H<sub>2</sub>O in 5 m<sup>2</sup>", "H2O in 5 m2"),
    ],
)
def test_record_text_spaces_inline_edges_between_words(markup: str, text: str) -> None:
    assert record_text(as_document(_page(f"<p>{markup}</p>")).body) == text


def test_group_of_repeated_texts_is_not_the_list() -> None:
    # Font-metric probes: identical spans, more of them than real entries.
    probes = "<span>mmMwWLliI0fiflO&amp;1</span>" * 30
    result = extract(_page(probes + _entries(3, dated=False)))
    assert len(result.records) == 3 and "Headline" in result.text


def test_filter_facets_are_not_records() -> None:
    facets = "".join(
        f"<div class='facet'><label><input type='checkbox' name='f{i}'> Price band number {i}"
        f" with a long explanation of what it covers</label></div>"
        for i in range(12)
    )
    result = extract(_page(f"<form>{facets}</form>" + _entries(4, dated=False)))
    assert len(result.records) == 4 and "Price band" not in result.text


def test_product_cards_with_a_compare_box_are_records() -> None:
    # Each card has a "Compare" checkbox: a small part of its text, so the
    # cards are records, not filter facets (whose label is all their text).
    cards = "".join(
        f"<div class='card'><a href='/p/{i}'>Graphics card model {i} with 16GB of memory</a>"
        f"<span>${100 + i}.99</span><label><input type='checkbox'> Compare</label></div>"
        for i in range(12)
    )
    faq = "".join(
        f"<div class='faq'><p>Question {i} about cards? A long answer of many words that"
        f" explains which card suits which games and budgets, and why.</p></div>"
        for i in range(5)
    )
    result = extract(_page(f"<div class='grid'>{cards}</div>{faq}"))
    assert len(result.records) == 12 and "Graphics card model 0" in result.text


def test_one_card_template_in_sections_of_different_depth_is_one_list() -> None:
    def cards(first: int, n: int) -> str:
        return "".join(
            f"<div class='card'><h3><a href='/s/{i}'>Story number {i} about the harbour</a>"
            f"</h3><p>Snippet {i}.</p></div>"
            for i in range(first, first + n)
        )

    html = _page(
        MENU
        + f"<section><div class='lead'>{cards(0, 4)}</div></section>"
        + f"<section><div><div class='more'>{cards(4, 5)}</div></div></section>"
    )
    result = extract(html)
    assert [r.url for r in result.records] == [f"/s/{i}" for i in range(9)]
    alone = extract(html, merge_templates=False, more_regions=0.0)
    assert len(alone.records) in (4, 5)


@pytest.mark.parametrize(
    ("text", "iso"),
    [
        ("Posted 2024-03-05 by x", "2024-03-05"),
        ("发布时间：2023年12月1日 10:00", "2023-12-01"),
        ("March 5th, 2024", "2024-03-05"),
        ("Sept. 10, 2021 · 3 min", "2021-09-10"),
        ("updated 5 Mar 2024", "2024-03-05"),
        ("12/31/2023", "2023-12-31"),
        ("31/12/2023", "2023-12-31"),
        ("2024.1.9", "2024-01-09"),
        ("2024-02-30 is not a day", None),
        ("version 1.2.3 of 2024", None),
        ("3小时前", None),
    ],
)
def test_find_date(text: str, iso: str | None) -> None:
    assert find_date(text) == iso


def test_relative_links_without_page_url_stay_relative() -> None:
    result = extract(_page(_entries(3)))
    assert result.records[0].url == "/news/0.html"


def test_huge_page_is_bounded() -> None:
    row = "<li class='r'><a href='/x'>entry title text</a> 2024-01-01</li>"
    html = "<html><body><ul>" + row * (20_000_000 // len(row)) + "</ul></body></html>"
    start = time.perf_counter()
    doc = as_document(html)
    result = extract(doc)
    extract_article(doc)
    assert result.records
    assert time.perf_counter() - start < 60


@settings(max_examples=60, deadline=2000)
@given(st.one_of(st.text(max_size=400), st.binary(max_size=400)))
def test_garbage_never_raises(data: str | bytes) -> None:
    result = extract(data)
    assert len(result.lines) == len(result.records)


@settings(max_examples=40, deadline=2000)
@given(
    st.lists(
        st.sampled_from(
            [
                "<ul>",
                "</ul>",
                "<li class='a'>",
                "</li>",
                "<a href='?q'>",
                "</a>",
                "x 2020-1-1 ",
                "<nav>",
            ]
        ),
        max_size=120,
    )
)
def test_random_markup_never_raises(parts: list[str]) -> None:
    result = extract(_page("".join(parts)), url="http://h/")
    assert all(r.text for r in result.records)


def _cards(n: int, card: str) -> str:
    return "<ul class='grid'>" + "".join(card.format(i=i) for i in range(n)) + "</ul>"


def test_record_text_leaves_out_screen_reader_labels() -> None:
    card = (
        "<li class='card'><h3><a href='/p/{i}'>Dark roast coffee number {i}</a></h3>"
        "<span class='visually-hidden'>Regular price</span><span>$1{i}.99</span>"
        "<span class='sr-only'>Vendor:</span></li>"
    )
    result = extract(_page(MENU + _cards(6, card)), url="https://example.com/shop/")
    assert len(result.records) == 6
    assert result.records[0].text == "Dark roast coffee number 0 $10.99"
    assert "Regular price" not in result.text and "Vendor" not in result.text


def test_record_text_writes_a_repeated_part_once() -> None:
    # An image link and the heading both carry the title; a second copy of
    # the card body for another screen size repeats it again.
    card = (
        "<li class='card'><a class='media' href='/p/{i}'>Walnut desk model {i}</a>"
        "<div class='body'><h3><a href='/p/{i}'>Walnut desk model {i}</a></h3>"
        "<span class='price'>$3{i}9</span></div>"
        "<div class='small-screen'><h3><a href='/p/{i}'>Walnut desk model {i}</a></h3></div></li>"
    )
    li = as_document(_page(_cards(1, card))).body.find(".//li")
    assert record_text(li) == "Walnut desk model 0 $309"
    # A link inside a heading is the heading's own words, not a repeat.
    assert record_text(as_document(_page("<h2><a href='/x'>Same words here</a></h2>")).body) == (
        "Same words here"
    )
    assert record_text(li, Params(repeat_min_chars=0)).count("Walnut") == 3


def test_record_as_a_run_of_siblings_takes_its_summary() -> None:
    items = "".join(
        f"<p class='title'><a href='/blog/{i}'>Release notes of version {i}</a>,"
        f" <span class='date'>{i + 1} March 2024</span></p>"
        f"<p class='summary'>What changed in version {i} and why it matters.</p>"
        for i in range(6)
    )
    result = extract(_page(MENU + f"<div id='index'>{items}</div>"), url="https://e.com/blog/")
    assert len(result.records) == 6
    assert result.records[2].text == (
        "Release notes of version 2, 3 March 2024 What changed in version 2 and why it matters."
    )
    assert result.records[2].url == "https://e.com/blog/2"
    off = extract(_page(MENU + f"<div id='index'>{items}</div>"), max_followers=0)
    assert "What changed" not in off.records[2].text
    # Gaps that differ (one record has no summary) are not a pattern.
    summary3 = "<p class='summary'>What changed in version 3 and why it matters.</p>"
    uneven = items.replace(summary3, "<hr>", 1)
    odd = extract(_page(MENU + f"<div id='index'>{uneven}</div>"))
    titles = [r.text for r in odd.records if r.text.startswith("Release")]
    assert titles and all("What changed" not in t for t in titles)


def test_a_heading_before_each_record_is_its_title() -> None:
    """Headline, then the story's box (whose one link is "Full Story"), in
    two columns, one broken by an item of another shape: each record is its
    headline and its box, titled by the headline."""

    def story(i: int) -> str:
        return (f"<h2 class='Headline'>Kernel story number {i}</h2><div class='Blurb'>"
                f"[Kernel] Posted Mar {i + 1}, 2026 by editor. What happened to the "
                f"memory manager this week, in some detail. "
                f"<a href='/Articles/{i}/'>Full Story (comments: {i})</a></div>")  # fmt: skip

    odd = "<h2 class='Headline'>Weekly edition</h2><p>The weekly edition is out.</p>"
    left = "".join(story(i) for i in range(3)) + odd + "".join(story(i) for i in range(3, 6))
    right = "".join(story(i) for i in range(6, 10))
    body = f"<div class='left'>{left}</div><div class='right'>{right}</div>"
    result = extract(_page(MENU + body), url="https://e.com/")
    assert len(result.records) == 10
    for i, record in enumerate(result.records):
        assert record.title == f"Kernel story number {i}"
        assert record.text.startswith(f"Kernel story number {i} [Kernel] Posted"), record.text
        assert record.url == f"https://e.com/Articles/{i}/"
    # A label before each record, none after the last: the labels lead (not
    # each record ending with the next one's label).
    items = "".join(
        f"<span class='section'>Section {i}</span><div class='story'><a href='/s/{i}'>Story "
        f"number {i} about the river</a> What the council decided this week.</div>"
        for i in range(6)
    )
    labelled = extract(_page(MENU + f"<div id='index'>{items}</div>"), url="https://e.com/")
    assert [r.text for r in labelled.records] == [
        f"Section {i} Story number {i} about the river What the council decided this week."
        for i in range(6)
    ]


def test_linked_entries_beat_paragraphs_without_links() -> None:
    card = "<li class='card'><a href='/p/{i}'>Oak dining chair model {i}</a> <b>$12{i}</b></li>"
    faq = (
        "<div class='faq'>"
        + "".join(
            f"<p>Question {i}: how long does delivery take, and can the chair be returned? "
            "Delivery takes three to five working days in most regions, and every chair "
            "may be returned within thirty days of delivery for a full refund of its price.</p>"
            for i in range(5)
        )
        + "</div>"
    )
    page = _page(MENU + _cards(6, card) + faq)
    result = extract(page, url="https://example.com/chairs/")
    assert [r.url for r in result.records] == [f"https://example.com/p/{i}" for i in range(6)]
    unpenalised = extract(page, no_link_penalty=1.0).records
    assert [r for r in unpenalised if r.region == 0][0].text.startswith("Question 0")


def test_sections_of_linked_entries_are_split_into_entries() -> None:
    names = {"A": ["Anchors", "Adapters", "Axles"], "B": ["Bolts", "Brackets", "Bushings"]}
    names |= {
        "C": ["Clamps", "Clips", "Collars", "Couplings"],
        "D": ["Dowels", "Drives", "Dampers"],
    }
    sections = "".join(
        f"<div class='letter-group'><h3>{letter}</h3><ul>"
        + "".join(f"<li><a href='/c/{n.lower()}'>{n}</a></li>" for n in entries)
        + "</ul></div>"
        for letter, entries in names.items()
    )
    page = _page(MENU + f"<div id='index'>{sections}</div>")
    result = extract(page, url="https://example.com/catalog/")
    assert [r.text for r in result.records][:4] == ["Anchors", "Adapters", "Axles", "Bolts"]
    assert len(result.records) == 13
    assert {r.region for r in result.records} == {0}  # one index, one list
    assert result.records[0].url == "https://example.com/c/anchors"
    assert len(extract(page, split_sections=0).records) == 4


def test_sections_of_different_lists_are_regions_of_their_own() -> None:
    # A portal's front: modules under headings, each a list of its own kind
    # (the news feed with times, a ranking, columns, videos, topics).
    kinds = {
        "News": "<a class='feed' href='/n/{i}'><span>Story {i} of the day about the"
        " markets</span><span class='time'>04-2{i} 07:3{i}</span></a>",
        "Ranking": "<a class='rank' href='/r/{i}'><em>{i}</em>Most read story number {i}</a>",
        "Columns": "<p class='col'><a href='/c/{i}'>Column {i} by a writer</a></p>",
        "Videos": "<li class='video'><a href='/v/{i}'>Video {i} of the week</a></li>",
        "Topics": "<span class='topic'><a href='/t/{i}'>Topic {i} in focus today</a></span>",
    }
    sizes = {"News": 8, "Ranking": 6, "Columns": 5, "Videos": 5, "Topics": 4}
    modules = "".join(
        f"<div class='module'><h3>{name}</h3><div>"
        + "".join(entry.format(i=i) for i in range(sizes[name]))
        + "</div></div>"
        for name, entry in kinds.items()
    )
    page = _page(MENU + f"<div id='front'>{modules}</div>")
    result = extract(page, url="https://example.com/")
    by_region: dict[int, list[str]] = {}
    for r in result.records:
        by_region.setdefault(r.region, []).append(r.text)
    assert len(by_region[0]) == 8 and all(t.startswith("Story") for t in by_region[0])
    assert sorted(len(texts) for region, texts in by_region.items() if region) == [4, 5, 5, 6]
    # Off: the entries of all modules in one region, in page order; without
    # the split the modules themselves are the records.
    whole = extract(page, section_regions=False).records
    assert len(whole) == 28 and {r.region for r in whole} == {0}
    assert [r.text for r in whole] == [r.text for r in result.records]
    assert len(extract(page, split_sections=0).records) == 5


def test_options_repeated_in_every_card_are_no_sections() -> None:
    swatches = "".join(
        f"<span class='swatch'><a href='/p/{{i}}?c={c}'>{c}</a></span>"
        for c in ("Red", "Blue", "Green", "Black")
    )
    card = f"<li class='card'><h3>Cup {{i}}</h3>{swatches}</li>"
    page = _page(MENU + _cards(6, card))
    result = extract(page)
    assert len(result.records) == 6
    assert result.records[1].text.startswith("Cup 1")
    assert len(extract(page, split_distinct=0).records) == 24


def test_a_record_drawn_as_a_run_of_rows_is_one_record() -> None:
    """A table drawing each story as a title row and a byline row (then a
    spacer): each story is one record, titled and linked by its title row.
    Cards that merely alternate their class (left, right) stay records each."""
    rows = "".join(
        f"<tr class='athing'><td class='rank'>{i}.</td><td class='title'>"
        f"<a href='/item/{i}'>Story {i} about a new compiler for small boards</a>"
        f" <span class='site'>(example{i}.org)</span></td></tr>"
        f"<tr><td></td><td class='subtext'><span class='score'>{10 + i} points</span> by "
        f"<a class='user' href='/u/{i}'>user{i}</a> {i} hours ago | "
        f"<a href='/item/{i}#c'>{i} comments</a></td></tr><tr class='spacer'></tr>"
        for i in range(1, 9)
    )
    page = _page(MENU + f"<table id='stories'><tbody>{rows}</tbody></table>")
    result = extract(page, url="https://e.com/")
    assert len(result.records) == 8
    first = result.records[0]
    assert first.text.startswith("1. Story 1 about a new compiler") and "11 points" in first.text
    assert first.url == "https://e.com/item/1"
    cards = "".join(
        f"<div class='post {'left' if i % 2 else 'right'}'><h3><a href='/p/{i}'>Post {i} on "
        f"the harbour walk</a></h3><p>What we saw on day {i} of the walk along the harbour.</p>"
        "</div>"
        for i in range(8)
    )
    zigzag = extract(_page(MENU + f"<div id='posts'>{cards}</div>"), url="https://e.com/")
    assert [r.url for r in zigzag.records] == [f"https://e.com/p/{i}" for i in range(8)]


def _results_beside_featured() -> str:
    """A search page: featured cards above the results, a menu, and an FAQ
    without links."""
    featured = "".join(
        f"<div class='card'><a href='/f/{i}'>Featured guide {i} to city budgets</a>"
        f"<p>Why the featured guide {i} explains where the money goes.</p>"
        f"<span class='date'>2024-02-{i + 1:02d}</span></div>"
        for i in range(5)
    )
    faq = "".join(
        f"<p class='answer'>Answer {i}: results are ranked by relevance and date, and every"
        " result links to the full story on the publisher's own site.</p>"
        for i in range(4)
    )
    return (
        MENU
        + f"<section class='featured'>{featured}</section>"
        + _entries(8)
        + f"<div class='help'>{faq}</div>"
    )


def test_a_second_region_of_linked_records_is_kept_apart() -> None:
    page = _page(_results_beside_featured())
    result = extract(page, url="https://example.com/search")
    featured = [f"https://example.com/f/{i}" for i in range(5)]
    results = [f"https://example.com/news/{i}.html" for i in range(8)]
    # in page order, each record with its list: the main list is region 0
    assert [r.url for r in result.records] == featured + results
    assert [r.region for r in result.records] == [1] * 5 + [0] * 8
    assert "Topic" not in result.text and "Answer" not in result.text  # menu, unlinked FAQ
    main = find_records(as_document(page), Params(more_regions=0.0))
    assert [e.tag for e in find_records(as_document(page))] == [e.tag for e in main] == ["li"] * 8
    main_only = extract(page, url="https://example.com/search", more_regions=0.0)
    assert [r.url for r in main_only.records] == results
    # a region scoring under that share of the main list's score stays out
    narrower = extract(page, url="https://example.com/search", more_regions=0.99)
    assert [r.url for r in narrower.records] == results


def test_a_copy_of_the_main_list_is_no_other_region() -> None:
    # The same stories drawn again above the river (featured, then listed):
    # one list, whatever the order; the main list keeps all its records.
    featured = "".join(_entry(i, tag="article") for i in range(5))
    page = _page(
        MENU + f"<section class='top'>{featured}</section><div class='river'>{_entries(8)}</div>"
    )
    result = extract(page, url="https://example.com/")
    assert len(result.records) == 8 and {r.region for r in result.records} == {0}
    assert len({r.url for r in result.records}) == 8


def test_a_records_sibling_rows_are_no_other_region() -> None:
    # A title row, then a byline row, per item: the rows of one kind are
    # the other kind's parts, not a second list of the same items.
    rows = "".join(
        f"<tr class='athing'><td class='title'><a href='/i/{i}'>Item {i} is a story title here"
        f"</a></td></tr><tr><td class='sub'><a href='/u/{i}'>user{i}</a> 3 hours ago "
        f"<a href='/c/{i}'>{i} comments</a>"
        "</td></tr>"
        for i in range(8)
    )
    result = extract(_page(MENU + f"<table><tbody>{rows}</tbody></table>"))
    assert len(result.records) == 8 and {r.region for r in result.records} == {0}
    assert all(f"Item {i} " in r.text for i, r in enumerate(result.records))


def _feed_with_promos(card_class: str = "card") -> str:
    story = (
        "<div class='slot'><div class='{cls} story'><div class='meta'><span class='author'>"
        "Writer {i}</span><span class='time'>2024-04-{d:02d}</span></div><h3><a href='/p/{i}'>"
        "A long story headline number {i} about the city</a></h3><div class='counts'>"
        "<span class='likes'>{i}</span></div></div></div>"
    )
    promo = (
        "<div class='slot'><div class='{cls} adOrigin'><div class='pic'><a href='/promo/{i}'>"
        "<img src='/x.png'><span class='name'>Sponsor {i}</span></a></div>"
        "<p class='blurb'>Click to learn more about the promoted offer {i}</p></div></div>"
    )
    cards = []
    for i in range(10):
        cards.append(story.format(cls=card_class, i=i, d=i + 1))
        if i in (3, 7):
            cards.append(promo.format(cls=card_class, i=i))
    return "<div class='feed'>" + "".join(cards) + "</div>"


@pytest.mark.parametrize("card_class", ["card", "advertisementCardBox"])
def test_promoted_cards_inserted_in_a_feed_are_no_records(card_class: str) -> None:
    # Every card, stories included, may carry the site's "advertisement..."
    # class: only the mark the stories lack ("adOrigin") tells the inserts.
    result = extract(_page(MENU + _feed_with_promos(card_class)), url="https://example.com/")
    assert len(result.records) == 10
    assert "Sponsor" not in result.text
    kept = extract(_page(MENU + _feed_with_promos(card_class)), drop_adverts=False)
    assert len(kept.records) == 12


def test_a_sponsored_product_drawn_as_the_grid_is_a_record() -> None:
    card = (
        "<li class='tile {mark}'><h3><a href='/p/{i}'>Leather wallet model {i}</a></h3>"
        "<span class='price'>$2{i}.00</span><span class='shop'>Shop {i}</span></li>"
    )
    grid = (
        "<ul class='grid'>"
        + "".join(card.format(i=i, mark="ad-listing" if i in (0, 1) else "") for i in range(8))
        + "</ul>"
    )
    result = extract(_page(MENU + grid), url="https://example.com/shop/")
    assert len(result.records) == 8
    assert result.records[0].text.startswith("Leather wallet model 0")


def test_records_dated_against_the_fetch_get_their_day() -> None:
    """A Chinese portal dates its entries "3小时前", "昨天 14:20" or "05-03
    10:20": with the fetch time (as the crawl passes it), each record gets
    its day, auto's and the list method's alike (a year-less day still to
    come is last year's); a date with its year needs no fetch time."""
    from datetime import UTC, datetime

    from extractors import extract as extract_any

    stamps = ["3小时前", "昨天 14:20", "05-03 10:20", "2 days ago", "2024-04-01", "", "12-30 09:00"]
    items = "".join(
        f"<li class='item'><h3><a href='/news/{i}.html'>新闻标题第{i}条关于城市预算的报道</a></h3>"
        f"<p class='summary'>这是第{i}条新闻的摘要内容。</p><span class='date'>{stamp}</span></li>"
        for i, stamp in enumerate(stamps)
    )
    html = _page(f"<ul class='news-list'>{items}</ul>")
    fetched = datetime(2024, 5, 10, 4, 0, tzinfo=UTC)  # 12:00 in China
    days = ["2024-05-10", "2024-05-09", "2024-05-03", "2024-05-08", "2024-04-01", None]
    for method in ("auto", "list"):
        found = extract_any(
            html, url="https://example.com/news/", method=method, fetched_at=fetched
        )
        assert [r.date for r in found.records] == [*days, "2023-12-30"], method
        undated = extract_any(html, url="https://example.com/news/", method=method)
        assert [r.date for r in undated.records] == [None] * 4 + ["2024-04-01", None, None]


def test_a_time_alone_dates_todays_entries_on_a_list_that_dates_yesterdays() -> None:
    """少数派-style lists stamp today's entries "15:02" and older ones "昨天
    14:20": with the fetch time, a lone clock time is the fetch's day (on the
    site's clock), unless it is still to come then; on a list of old dates a
    lone "12:34" may be a video's length, and stays undated."""
    from datetime import UTC, datetime

    from extractors import extract as extract_any

    def page(stamps: list[str]) -> str:
        items = "".join(
            f"<li class='item'><h3><a href='/p/{i}.html'>城市漫步指南第{i}篇：感受老街的季节</a>"
            f"</h3><span class='meta'>作者{i} {stamp}</span></li>"
            for i, stamp in enumerate(stamps)
        )
        return _page(f"<ul class='posts'>{items}</ul>")

    fetched = datetime(2024, 5, 9, 20, 0, tzinfo=UTC)  # 04:00 on 10 May in China
    stamps = ["03:10", "01:45", "23:50", "昨天 14:20", "10:00-12:00", "5月3日", "04/19 01:15"]
    fresh = page([*stamps, "19/04 01:15"])
    found = extract_any(fresh, url="https://example.com/", method="list", fetched_at=fetched)
    days = [r.date for r in found.records]
    # 04/19 is month first, as Chinese sites write it; 19/04 is no date.
    assert days == [
        "2024-05-10", "2024-05-10", None, "2024-05-09", None, "2024-05-03", "2024-04-19", None
    ]  # fmt: skip
    stale = page(["12:34", "2024-04-01", "2024-03-28", "03:10"])
    found = extract_any(stale, url="https://example.com/", method="list", fetched_at=fetched)
    assert [r.date for r in found.records] == [None, "2024-04-01", "2024-03-28", None]
