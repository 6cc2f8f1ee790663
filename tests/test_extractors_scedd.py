"""SCEDD (extractors.scedd): short/long classifier and short-page extraction."""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from extractors import METHODS, LengthClass, as_document
from extractors.scedd import Params, classify_length, extract, find_title, text_bytes

# A portal page: many navigation lines above, so the footer falls in the
# last 5% of the page's lines, as on the seed's news pages.
NAV = "".join(f'<li><a href="/c/{i}">频道栏目{i}</a></li>' for i in range(40))
SHORT_BODY = "市气象台今天发布暴雨蓝色预警，预计未来六小时内本市大部分地区将出现强降雨。"
FOOTER = (
    "本网站所刊登的各种新闻、信息和各种专题专栏资料，均为本网版权所有，未经协议授权，"
    "禁止下载使用。凡本网注明来源的作品，版权均属于本网，转载请注明出处。"
    "违者本网将依法追究责任。本网站的所有内容仅供参考，不构成任何投资建议。"
    "联系电话：010-12345678 地址：北京市某区某路一号 邮编：100000 "
)


def short_page(footer: str = FOOTER) -> str:
    related = "".join(f'<li><a href="/n/{i}">相关新闻标题第{i}条</a></li>' for i in range(8))
    return (
        "<html><head><title>本市发布暴雨蓝色预警_新闻中心</title></head><body>"
        f'<div class="top"><ul>{NAV}</ul></div>'
        '<div class="main"><h1>本市发布暴雨蓝色预警</h1>'
        '<div class="info">2024-06-01 10:00 来源：本网</div>'
        f'<div class="content"><p>{SHORT_BODY}</p><p>请市民注意出行安全。</p></div>'
        f'<div class="related"><ul>{related}</ul></div></div>'
        f'<div class="footer"><p>{footer}</p><p>Copyright 2024 版权所有</p></div>'
        "</body></html>"
    )


def long_page() -> str:
    para = (
        "会议指出，要坚持稳中求进工作总基调，完整准确全面贯彻新发展理念，加快构建新发展格局。" * 3
    )
    body = "".join(f"<p>{para}第{i}段。</p>" for i in range(10))
    return (
        "<html><head><title>会议召开_新闻</title></head><body>"
        f'<div class="top"><ul>{NAV}</ul></div>'
        f'<div class="main"><h1>会议召开</h1><div class="article">{body}</div></div>'
        f'<div class="footer"><p>{FOOTER}</p></div></body></html>'
    )


def test_classifier_short_and_long() -> None:
    cls, rough = classify_length(short_page())
    assert cls is LengthClass.SHORT
    assert text_bytes(rough) < 450
    cls, rough = classify_length(long_page())
    assert cls is LengthClass.LONG
    assert "会议指出" in rough


def test_classifier_threshold_is_a_parameter() -> None:
    cls, _ = classify_length(long_page(), Params(short_bytes=10**6))
    assert cls is LengthClass.SHORT


def test_text_bytes_counts_utf8_without_spaces() -> None:
    assert text_bytes("中文 ab") == 3 * 2 + 2


def test_short_body_wins_over_long_copyright_footer() -> None:
    result = extract(short_page())
    assert result.method == "scedd"
    assert result.length_class is LengthClass.SHORT
    assert SHORT_BODY in result.text
    assert "请市民注意出行安全" in result.text
    assert "版权" not in result.text
    assert "频道栏目" not in result.text
    assert "相关新闻" not in result.text
    assert result.title == "本市发布暴雨蓝色预警"
    assert "本市发布暴雨蓝色预警" not in result.text  # the headline goes to .title


def test_bottom_window_is_what_beats_the_footer() -> None:
    # Without the bottom_coef window the denser footer wins, as it does for CETD.
    from extractors.density import extract as cetd

    assert "版权" in extract(short_page(), bottom_coef=1.0).text
    assert "版权" in cetd(short_page()).text


def test_footer_longer_than_450_bytes_still_loses() -> None:
    # The rough extraction lands on the footer, so the page classifies long,
    # but SCEDD itself still finds the body.
    result = extract(short_page(FOOTER * 3))
    assert SHORT_BODY in result.text
    assert "版权" not in result.text


# A small page: few block lines, so a footer close below the body still lies
# inside the legal window (the bottom 5% is under one line). The footer is
# less dense than the body, so the body is the leader.
SMALL_FOOTER = "刊用本网稿件务经书面授权，违者依法追究责任。"


def small_page(body: str) -> str:
    share = "".join(f'<a href="/s/{i}">分享{i}</a>' for i in range(12))
    nav = "".join(f'<li><a href="/c/{i}">栏目{i}</a></li>' for i in range(4))
    related = "".join(f'<li><a href="/n/{i}">相关新闻{i}</a></li>' for i in range(4))
    return (
        "<html><head><title>大熊猫幼仔开始群体生活_新闻</title></head><body>"
        f"<ul>{nav}</ul><div id='page'>"
        "<div class='main'><h1>大熊猫幼仔开始群体生活</h1>"
        f"<div class='content'>{body}</div></div><div class='share'>{share}</div>"
        f"<div class='related'><ul>{related}</ul></div>"
        f"<div class='bottom'><p>{SMALL_FOOTER}</p><p>京ICP证000000号 总机：010-0000000</p></div>"
        "</div><div class='end'><p><a href='/a'>关于我们</a></p>"
        "<p><a href='/m'>网站地图</a></p></div>"
        "</body></html>"
    )


def test_credit_and_editor_lines_beside_a_short_body_are_dropped() -> None:
    body = f"<p>【本報記者王小明／即時報導】</p><p>{SHORT_BODY}</p><p>[责任编辑：李四]</p>"
    page = small_page(body)
    assert extract(page).text == SHORT_BODY
    raw = extract(page, clean=False).text
    assert "記者" in raw and "责任编辑" in raw and SHORT_BODY in raw


def test_short_page_does_not_climb_into_a_container_of_other_text() -> None:
    # The body is under one dense tag (seed §3.1); the container around it
    # also holds a share bar, related links and the footer. Climbing as far
    # as the legal window allows (the old rule) takes the footer too.
    page = small_page(f"<p>{SHORT_BODY}</p>")
    result = extract(page)
    assert result.length_class is LengthClass.SHORT
    assert SHORT_BODY in result.text
    assert "授权" not in result.text
    assert "授权" in extract(page, short_climb_share=0.0, short_sibling_gap=0).text


def test_short_page_bridges_one_low_density_block_inside_the_body() -> None:
    ad = "<div class='ad'>" + "".join(f'<a href="/ad/{i}">广告</a>' for i in range(6)) + "</div>"
    second = "气象专家提醒，强降雨期间请尽量减少外出，远离河道和低洼地带，注意防范。"
    page = small_page(f"<p>{SHORT_BODY}</p>{ad}<p>{second}</p>")
    result = extract(page)
    assert SHORT_BODY in result.text and second in result.text
    assert "广告" not in result.text and "授权" not in result.text
    assert second not in extract(page, short_sibling_gap=0).text


def test_tight_climb_only_on_a_page_with_its_headline_in_the_body() -> None:
    # No headline in the body (a landing or list page): the climb goes on as
    # on long pages, so the result is the one without the short-page climb rule.
    page = small_page(f"<p>{SHORT_BODY}</p>").replace("<h1>大熊猫幼仔开始群体生活</h1>", "")
    assert extract(page).text == extract(page, short_climb_share=0.0).text
    assert extract(page, tight_needs_title=False).text != extract(page).text


def test_title_is_found_in_body() -> None:
    doc = as_document(short_page())
    title = find_title(doc, Params())
    assert title is not None and title.tag == "h1"


def test_form_controls_are_not_content() -> None:
    page = short_page().replace(
        '<div class="content">',
        '<div class="content"><select>' + "<option>选项很长的文字内容</option>" * 20 + "</select>",
    )
    result = extract(page)
    assert "选项" not in result.text
    assert SHORT_BODY in result.text


def test_retry_limit_parameter_changes_search() -> None:
    # With no retries allowed, a refused first candidate is still returned
    # (the seed stops searching), so extraction still yields text.
    assert extract(short_page(), max_retries=1).text


def test_route_long_uses_cetd_on_long_pages() -> None:
    result = extract(long_page(), route_long=True)
    assert result.length_class is LengthClass.LONG
    assert result.method == "scedd"
    assert all(f"第{i}段" in result.text for i in range(10))
    assert "版权" not in result.text


def test_registered_in_methods() -> None:
    assert METHODS["scedd"].__wrapped__ is extract


@pytest.mark.parametrize(
    "html",
    ["", b"\x00\x01\xff" * 50, "<html><body></body></html>", "<p>" * 10_000 + "x"],
)
def test_garbage_is_quick_and_safe(html: str | bytes) -> None:
    start = time.perf_counter()
    result = extract(html)
    assert time.perf_counter() - start < 5
    assert isinstance(result.text, str)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=400), st.binary(max_size=400)))
def test_never_raises_on_arbitrary_input(html: str | bytes) -> None:
    result = extract(html)
    assert result.method == "scedd"
    assert result.length_class in (LengthClass.SHORT, LengthClass.LONG)


def test_a_bare_page_of_paragraphs_keeps_them_all() -> None:
    """A page that is nothing but its headline and paragraphs: the first
    line is no header (it does not lie wholly in the page's top 5%), and
    the body's density, the mean of its paragraphs, does not cut the
    shorter ones (its own tag is counted among its tags)."""
    paragraphs = [
        "This is a paragraph of a page. It has several sentences to be long enough to keep.",
        "Second paragraph of the page, also long enough to be kept by every density method.",
        "A third paragraph closes the story with a sentence about the weather and the town.",
    ]
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    for headline in ("", "<h1>Page title</h1>"):
        html = f"<html><head><title>Page title</title></head><body>{headline}{body}</body></html>"
        assert extract(html).text.split("\n") == paragraphs, headline
