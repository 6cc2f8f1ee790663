"""CETD (extractors.density): densities, leader choice, garbage input."""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from extractors import METHODS, as_document, density
from extractors.density import Params, composite_density, compute_density, extract

PARA = (
    "The committee met on Tuesday to discuss the new budget for the coming year, "
    "and after a long debate the members agreed on a compromise that raises spending "
    "on schools while holding the line on taxes for small businesses. "
)

NAV = "".join(f'<li><a href="/s/{i}">Section number {i}</a></li>' for i in range(30))


def long_article() -> str:
    paragraphs = "".join(f"<p>{PARA} Paragraph {i}.</p>" for i in range(8))
    related = "".join(
        f'<li><a href="/r/{i}">Related story headline {i}</a></li>' for i in range(15)
    )
    return (
        "<html><head><title>Budget deal - Daily</title></head><body>"
        f'<div id="header"><ul>{NAV}</ul></div>'
        f'<div id="main"><h1>Budget deal</h1><div id="story">{paragraphs}</div>'
        f'<div id="related"><ul>{related}</ul></div></div>'
        '<div id="footer"><p>Copyright 2024 Daily News. All rights reserved.</p></div>'
        "</body></html>"
    )


def test_composite_density_penalises_links() -> None:
    plain = composite_density(200, 4, 0, 0, 0.3)
    linky = composite_density(200, 4, 180, 4, 0.3)
    assert plain > linky > 0 or linky <= 0 < plain
    assert composite_density(0, 3, 0, 0, 0.3) == 0.0


def test_long_article_body_is_extracted_without_boilerplate() -> None:
    result = extract(long_article(), url="https://example.com/a/1.html")
    assert result.method == "cetd"
    assert result.text.count("The committee met") == 8
    assert "Section number" not in result.text
    assert "Related story" not in result.text
    assert "Copyright" not in result.text
    assert result.node is not None and result.node.get("id") == "story"
    assert len(result.lines) == 8  # one paragraph per line


def test_leader_is_the_story_container() -> None:
    doc = as_document(long_article())
    dens = compute_density(doc)
    assert dens.best[doc.body].get("id") == "story"
    assert dens.ds[dens.best[doc.body]] >= max(dens.ds[c] for c in doc.body)


def test_page_scope_marks_more_than_leader_scope() -> None:
    doc = as_document(long_article())
    page = extract(doc, scope="page")
    leader = extract(doc, params=Params(scope="leader"))
    assert leader.text in page.text or len(page.text) >= len(leader.text)
    assert page.text.count("The committee met") == 8


def test_a_page_that_is_all_article_is_extracted_whole() -> None:
    """No navigation to contrast with: the body is its own leader, and its
    density (the sum of its paragraphs') pruned every paragraph."""
    text = "of a clean article with nothing around it, long enough to count as text."
    paras = [f"Paragraph {i} {text} About a hundred and fifty characters." for i in range(5)]
    page = "<html><body><h1>Simple</h1>" + "".join(f"<p>{p}</p>" for p in paras) + "</body></html>"
    assert extract(page).text.splitlines() == ["Simple", *paras]


def test_unknown_parameter_is_rejected() -> None:
    with pytest.raises(TypeError):
        extract(long_article(), no_such_knob=1)


def test_registered_in_methods() -> None:
    assert METHODS["cetd"].__wrapped__ is extract


@pytest.mark.parametrize(
    "html",
    [
        "",
        b"\x00\xff\xfe" * 100,
        "<html></html>",
        "just text, no markup",
        "<div>" * 10_000 + "deep" + "</div>" * 10_000,
    ],
)
def test_garbage_gives_empty_or_text_quickly(html: str | bytes) -> None:
    start = time.perf_counter()
    result = extract(html)
    assert time.perf_counter() - start < 5
    assert isinstance(result.text, str)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=400), st.binary(max_size=400)))
def test_never_raises_on_arbitrary_input(html: str | bytes) -> None:
    result = extract(html)
    assert result.method == "cetd"
    assert isinstance(result.text, str)


def _story(extra_page: str = "", title: str = "Budget deal") -> str:
    paragraphs = "".join(f"<p>{PARA} Paragraph {i}.</p>" for i in range(4))
    return (
        f"<html><head><title>{title} - Daily</title></head><body>"
        f'<div id="header"><ul>{NAV}</ul></div>{extra_page}'
        f'<div id="story"><h1>Budget deal</h1>{paragraphs}</div>'
        "</body></html>"
    )


def test_jump_menu_counts_as_links() -> None:
    # A <select> of many option labels has no tags per character and no <a>:
    # counted as plain text it would be the densest node of the page.
    options = "".join(f"<option>Another headline of the day number {i}</option>" for i in range(40))
    html = _story(extra_page=f'<div id="jump"><select name="m">{options}</select></div>')
    result = extract(html)
    assert result.text.count("The committee met") == 4
    assert "Another headline" not in result.text
    off = extract(html, controls_as_links=False)
    assert "Another headline" in off.text


def test_textarea_text_is_not_content() -> None:
    markup = (
        "&lt;div class=&quot;gallery&quot;&gt;&lt;img src=&quot;a.jpg&quot;&gt;&lt;/div&gt;" * 60
    )
    result = extract(_story(extra_page=f"<textarea>{markup}</textarea>"))
    assert result.text.count("The committee met") == 4
    assert "gallery" not in result.text


def test_list_of_links_has_zero_density() -> None:
    # The authors' link-tag count: tags inside anchors, the anchors and the
    # items made only of links, so C/LC * T/LT = 1 and the CTD is 0.
    items = "".join(
        f'<li><a href="/r/{i}"><span>Related story {i}</span></a></li>' for i in range(10)
    )
    doc = as_document(f"<html><body><ul id='r'>{items}</ul><p>{PARA}</p></body></html>")
    dens = compute_density(doc)
    ul = doc.body.find(".//ul")
    assert dens.td[ul] == pytest.approx(0.0, abs=1e-9)
    anchors_only = compute_density(doc, Params(link_tags="anchors"))
    assert anchors_only.td[ul] > 0


def test_headline_repeating_the_title_is_left_out() -> None:
    result = extract(_story())
    assert result.text.count("The committee met") == 4
    assert "Budget deal" not in result.text
    # Kept when asked, or when it is not the page's title.
    assert extract(_story(), drop_headline=False).text.startswith("Budget deal")
    assert extract(_story(title="Something else entirely")).text.startswith("Budget deal")


def test_sparse_meta_blocks_inside_the_leader_are_left_out() -> None:
    meta = (
        '<div class="meta"><span>Published on 2012-01-17 at 19:49 by staff writers</span>'
        ' <span>Source: <a href="/s">Wire</a></span>'
        ' <span class="size"><a href="#">A</a>|<a href="#">A</a></span>'
        ' <span><a href="#c">0 comments</a></span> <span><a href="#p">Print</a></span></div>'
    )
    paragraphs = "".join(f"<p>{PARA} Paragraph {i}.</p>" for i in range(4))
    html = (
        "<html><head><title>Budget deal - Daily</title></head><body>"
        f'<div id="header"><ul>{NAV}</ul></div>'
        f'<div id="story">{meta}{paragraphs}<p>Short line.</p></div>'
        f'<div id="side"><ul>{NAV}</ul><ul>{NAV}</ul></div></body></html>'
    )
    result = extract(html)
    assert result.text.count("The committee met") == 4
    assert "Short line." in result.text  # text-only blocks are not judged by the share
    assert "comments" not in result.text
    # Above the path threshold: only the share of the leader's density drops it.
    assert "comments" in extract(html, leader_share=0.0).text


def _news_page(body: str) -> str:
    """A news page: a menu, then ``body`` in the story box."""
    return (
        "<html><head><title>Budget deal - Daily</title></head><body>"
        f'<div id="header"><ul>{NAV}</ul></div><div id="story">{body}</div></body></html>'
    )


def _player_story() -> str:
    """Two paragraphs under a video player: eight bars of link-free controls."""
    speeds = ("2.0X", "1.5X", "1.0X", "HD", "SD", "Auto", "Mute")
    controls = "".join(f"<li><span>{x}</span></li>" for x in speeds)
    bars = "".join(
        f'<div class="bar"><span>00:0{i}</span><ul class="speed">{controls}</ul></div>'
        for i in range(8)
    )
    paragraphs = "".join(f"<p>{PARA} Paragraph {i}.</p>" for i in range(2))
    return _news_page(f'<div class="player">{bars}</div>{paragraphs}').replace(
        "</body>", f'<div id="side"><ul>{NAV}</ul></div></body>'
    )


def test_widget_markup_inside_the_leader_is_left_out() -> None:
    html = _player_story()
    result = extract(html)
    assert result.text.count("The committee met") == 2
    assert "1.5X" not in result.text and "00:0" not in result.text
    # Without links its composite density stays above the leader's share.
    assert "1.5X" in extract(html, markup_chars_per_tag=0.0).text


def test_data_tables_are_not_widget_markup(monkeypatch: pytest.MonkeyPatch) -> None:
    cells = "<td>Region {0}</td><td>Sales {0}</td><td>Q{0}</td>"
    rows = "".join(f"<tr>{cells.format(i)}</tr>" for i in range(16))
    paragraphs = "".join(f"<p>{PARA} Paragraph {i}.</p>" for i in range(3))
    html = _news_page(f'{paragraphs}<div class="wrap"><table><tbody>{rows}</tbody></table></div>')
    assert "Region 15" in extract(html).text
    # It is the table exemption that keeps it: a block as sparse is dropped.
    monkeypatch.setattr(density, "_mostly_table", lambda *args: False)
    assert "Region 15" not in extract(html).text


def test_generic_boilerplate_lines_are_cleaned() -> None:
    paragraphs = "".join(f"<p>{PARA} Paragraph {i}.</p>" for i in range(4))
    footer = "<p>Copyright 2024 Daily News. All rights reserved.</p><p>（责任编辑：王五）</p>"
    html = _news_page(paragraphs + footer)
    text = extract(html).text
    assert text.count("The committee met") == 4
    assert "Copyright" not in text and "责任编辑" not in text
    raw = extract(html, clean=False).text
    assert "Copyright" in raw and "责任编辑" in raw


def test_a_leader_made_of_boilerplate_is_passed_over() -> None:
    """A short story under a footer of licence lines that outweighs it: the
    footer leads by density, every line of it is boilerplate, so the next
    leader outside it is taken."""
    story = "国家统计局今天发布数据，五月份全国居民消费价格同比上涨百分之零点三，环比下降。"
    footer = "".join(
        f"<p>京ICP备{i}0001号 京公网安备1101050{i}号 增值电信业务经营许可证京B2-2022{i}</p>"
        f"<p>违法和不良信息举报电话：010-8565{i}074 举报邮箱：jubao{i}@example.com</p>"
        for i in range(4)
    )
    html = (
        "<html><head><title>五月物价</title></head><body>"
        f'<div id="story"><p>{story}</p></div><div id="footer">{footer}</div></body></html>'
    )
    assert extract(html, retries=0).text == ""
    assert extract(html).text == story


def test_a_leader_inside_a_data_table_keeps_every_row() -> None:
    """The densest node of a page that is mostly one table of films may be
    the table's <tbody> (a Wikipedia list): rows whose title is a link (most
    of the row's text) are rows of the table all the same."""
    rows = "".join(
        f'<tr><th><a href="/film/{i}">Film title number {i}</a></th><td>19{60 + i}</td>'
        f"<td>{'A remake.' if i % 2 else 'A woman relives the same day over and over again.'}"
        "</td></tr>"
        for i in range(30)
    )
    html = _news_page(f"<p>{PARA}</p><table><tbody>{rows}</tbody></table><p>{PARA}</p>")
    doc = as_document(html)
    tbody = next(doc.root.iter("tbody"))
    assert density.data_table_nodes(tbody, doc.stats) == set(tbody.iter())
    # A table of links alone is a menu: no exemption.
    cells = '<td><a href="/a{0}">Go to A{0}</a></td><td><a href="/b{0}">B{0}</a></td>'
    menu = "".join(f"<tr>{cells.format(i)}</tr>" for i in range(10))
    doc = as_document(_news_page(f"<p>{PARA}</p><table><tbody>{menu}</tbody></table>"))
    assert density.data_table_nodes(next(doc.root.iter("tbody")), doc.stats) == set()
