"""Metadata: title without the site name, ISO publish dates (zh, en,
relative, never future), author, language, main image."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from extractors.dates import date_in_url, find_date, find_datetime, parse_date
from extractors.metadata import extract_metadata

NOW = datetime(2024, 5, 10, 12, 0)


@pytest.mark.parametrize(
    ("text", "iso"),
    [
        ("2024年5月3日", "2024-05-03"),
        ("发布时间：2024-05-03 10:20", "2024-05-03T10:20:00"),
        ("2024年05月03日 10时20分", "2024-05-03T10:20:00"),
        ("Published May 3, 2024", "2024-05-03"),
        ("3 May 2024", "2024-05-03"),
        # A 12-hour clock, after a comma or "at"; 下午 / 晚上 is the afternoon.
        ("Tue Aug 27, 2019 1:47 pm", "2019-08-27T13:47:00"),
        ("May 3, 2024, 8:45am", "2024-05-03T08:45:00"),
        ("Posted on March 5, 2024 at 10:20 PM", "2024-03-05T22:20:00"),
        ("3 May 2024 10:20 p.m. ET", "2024-05-03T22:20:00"),
        ("2024-05-03 12:05 AM", "2024-05-03T00:05:00"),
        ("2024-05-03 12:30 pm", "2024-05-03T12:30:00"),
        ("2024年5月3日 下午1:47", "2024-05-03T13:47:00"),
        ("2024年5月3日 上午9:05", "2024-05-03T09:05:00"),
        ("昨天 晚上8:30", "2024-05-09T20:30:00"),
        ("yesterday at 2:20 pm", "2024-05-09T14:20:00"),
        ("3小时前", "2024-05-10T09:00:00"),
        ("昨天 08:30", "2024-05-09T08:30:00"),
        ("2 days ago", "2024-05-08T12:00:00"),
        ("an hour ago", "2024-05-10T11:00:00"),  # "a"/"an"/"one", and 半 (half)
        ("One week ago", "2024-05-03T12:00:00"),
        ("新华社 半小时前", "2024-05-10T11:30:00"),
        ("Japan hour ago", None),
        ("a few hours ago", None),
        ("2030-01-01", None),  # after the fetch time
        ("no date here", None),
        ("刚刚", "2024-05-10T12:00:00"),  # "just now": the fetch time
        ("发布时间：刚刚", "2024-05-10T12:00:00"),
        ("发布时间：昨天", "2024-05-09"),
        ("3小时前　来源：新华社", "2024-05-10T09:00:00"),
        # Durations, labels and prose that hold a relative word are no date.
        ("阅读本文约需5分钟", None),
        ("视频时长：3分钟", None),
        ("24小时热榜", None),
        ("今天天气晴朗", None),
        ("Today’s Paper", None),
        # This year's dates without their year; a day still to come is last year's.
        ("5月3日 10:20", "2024-05-03T10:20:00"),
        ("05-03 10:20 来源：新华社", "2024-05-03T10:20:00"),
        ("12月30日", "2023-12-30"),
        ("比分3-1 10:20", None),
    ],
)
def test_find_datetime(text: str, iso: str | None) -> None:
    assert find_datetime(text, NOW) == iso


def test_chinese_day_words_read_the_clock_of_the_site() -> None:
    """A fetch at 20:00 UTC is 04:00 the next day in China (UTC+8): "昨天"
    is the UTC day of the fetch there, and 09:15 "today" is still to come."""
    fetched = datetime(2024, 5, 3, 20, 0, tzinfo=UTC)
    assert find_datetime("昨天 14:20", fetched) == "2024-05-03T14:20:00+08:00"
    assert find_datetime("今天 03:50", fetched) == "2024-05-04T03:50:00+08:00"
    assert find_datetime("今天 09:15", fetched) is None
    assert find_datetime("发布时间：今天", fetched) == "2024-05-04"
    # An English day word's zone is unknown: local time, no offset.
    assert find_datetime("yesterday 14:20", fetched) == "2024-05-02T14:20:00"
    # "3 hours ago" is an instant, in the fetch time's own zone.
    assert find_datetime("3小时前", fetched) == "2024-05-03T17:00:00+00:00"


def test_parse_machine_formats_and_url_dates() -> None:
    assert parse_date("2024-05-03T10:20:00+08:00").utcoffset().total_seconds() == 8 * 3600
    assert parse_date("Fri, 03 May 2024 10:00:00 +0000").day == 3
    assert parse_date("2099-01-01", NOW) is None
    assert find_date("posted 12/31/2023 at noon") == "2023-12-31"
    assert date_in_url("https://x.test/news/2024/05/03/a.html") == "2024-05-03"
    assert date_in_url("https://x.test/a/20240503/1.html") == "2024-05-03"
    assert date_in_url("https://x.test/a/2099/01/02/1.html", NOW) is None
    assert date_in_url("https://x.test/about.html") is None


def _page(head: str, body: str) -> str:
    return f"<html><head>{head}</head><body>{body}</body></html>"


def test_a_section_pages_title_is_not_its_longer_site_name() -> None:
    # no og:site_name and no heading: the site's name is the longest part,
    # known by the home page's link or by the host's name
    body = "<p>" + "Today's stories from the council and the courts. " * 4 + "</p>"
    linked = _page("<title>News - Springfield Gazette</title>",
                   '<a href="/">Springfield Gazette</a>' + body)  # fmt: skip
    assert extract_metadata(linked).title == "News"
    zh = _page(
        "<title>体育_江城日报网</title>", '<a href="https://www.jc.cn/">江城日报网</a>' + body
    )
    assert extract_metadata(zh, "https://www.jc.cn/sports/").title == "体育"
    hosted = _page("<title>Sports | Springfield Gazette</title>", body)
    url = "https://www.springfieldgazette.com/sports/"
    assert extract_metadata(hosted, url).title == "Sports"
    # a link home named "Home" is not taken for a part that only holds it
    home = _page("<title>Homes for sale - Riverton</title>", '<a href="/">Home</a>' + body)
    assert extract_metadata(home).title == "Homes for sale"


def test_title_prefers_visible_headline_over_site_name() -> None:
    html = _page(
        "<title>Bridge to close for repairs | Riverton Ledger</title>",
        '<header><a href="/"><h1>Riverton Ledger</h1></a></header>'
        "<h1>Bridge to close for repairs</h1><p>text</p>",
    )
    assert extract_metadata(html).title == "Bridge to close for repairs"
    no_heading = _page(
        '<title>Bridge to close - Riverton Ledger</title><meta property="og:site_name" '
        'content="Riverton Ledger">',
        "<p>text</p>",
    )
    assert extract_metadata(no_heading).title == "Bridge to close"
    # The site's name as a heading of its own: marked a logo by its class, or
    # named by og:site_name.
    title = "<title>Bridge to close :: Riverton Ledger ::</title>"
    body = "<h1{}>Riverton Ledger</h1><h2>Bridge to close</h2><p>text</p>"
    logo = _page(title, body.format(" class='topbar__logo__title'"))
    assert extract_metadata(logo).title == "Bridge to close"
    named = _page(
        title + '<meta property="og:site_name" content="Riverton Ledger">', body.format("")
    )
    assert extract_metadata(named).title == "Bridge to close"
    # The section's name as an h2 above the story's h1, both in the title:
    # the h1 is the headline.
    section = _page(
        "<title>Bridge to close for repairs - Riverton News</title>",
        "<h2>Riverton News</h2><h1>Bridge to close for repairs</h1><p>text</p>",
    )
    assert extract_metadata(section).title == "Bridge to close for repairs"
    # A site name after a hyphen no space sets off, when the page names its site.
    site = '<meta property="og:site_name" content="江城日报网">'
    glued = _page(f"<title>春季植树活动吸引千名市民参与-江城日报网</title>{site}", "<p>正文</p>")
    assert extract_metadata(glued).title == "春季植树活动吸引千名市民参与"
    # Without og:site_name: a hyphen between two CJK characters separates
    # (one between digits is a range), and the longest part is the widest
    # on screen (a CJK character takes two columns).
    bare = _page(
        "<title>[公司]绿景控股料扭亏 净利1900万-2900万-财经频道-千华网</title>", "<p>正文</p>"
    )
    assert extract_metadata(bare).title == "[公司]绿景控股料扭亏 净利1900万-2900万"
    mixed = _page("<title>勾結醫師病患詐保險金 男遭訴 - Taiwan News Online</title>", "<p>正文</p>")
    assert extract_metadata(mixed).title == "勾結醫師病患詐保險金 男遭訴"


def test_an_articles_one_h1_wins_over_a_title_worded_for_search() -> None:
    """The headline readers see, when the declared titles word it otherwise;
    not a label, not a landing page's slogan, not an h1 among several, and
    not an h1 that wraps the declared title in a label."""
    head = (
        "<title>Bridge Repairs 2024: Dates, Detours and Costs | Riverton Ledger</title>"
        '<meta property="og:site_name" content="Riverton Ledger">'
    )
    body = "<p>" + "The river bridge closes on Monday for three weeks of work. " * 4 + "</p>"
    headline = "<h1>Riverton bridge to close three weeks for repairs</h1>"
    assert extract_metadata(_page(head, headline + body)).title == (
        "Riverton bridge to close three weeks for repairs"
    )
    zh = _page(
        "<title>2024年大桥维修：封闭时间与绕行方案_江城日报网</title>",
        "<h1>江城大桥下周一起封闭维修三周</h1>" + body,
    )
    assert extract_metadata(zh).title == "江城大桥下周一起封闭维修三周"
    declared = "Bridge Repairs 2024: Dates, Detours and Costs"
    # A label (under three words), and an h1 sharing no word with the title.
    assert extract_metadata(_page(head, "<h1>Local News</h1>" + body)).title == declared
    unrelated = "<h1>Make anything possible with us</h1>"
    assert extract_metadata(_page(head, unrelated + body)).title == declared
    # A landing page (og:type website) keeps its declared title.
    website = head + '<meta property="og:type" content="website">'
    assert extract_metadata(_page(website, headline + body)).title == declared
    # Two h1s: no single headline.
    assert extract_metadata(_page(head, headline + headline + body)).title == declared
    # An h1 holding the declared title beside a label.
    sponsored = f"<h1><span>Sponsored by Acme</span> {declared}</h1>"
    assert extract_metadata(_page(head, sponsored + body)).title == declared
    # In the page header: the site's banner, not the story's headline.
    banner = f"<header>{headline}</header>"
    assert extract_metadata(_page(head, banner + body)).title == declared


def test_a_page_declaring_no_title_is_titled_by_its_one_h1() -> None:
    """No <title> and no og:title (a saved fragment, a bare template): the
    article's one h1 is the title; a banner's h1 in the page header is not."""
    body = "<p>" + "The river bridge closes on Monday for three weeks of work. " * 4 + "</p>"
    headline = "<h1>Riverton bridge to close three weeks for repairs</h1>"
    assert extract_metadata(_page("", f"<article>{headline}{body}</article>")).title == (
        "Riverton bridge to close three weeks for repairs"
    )
    assert extract_metadata(_page("", f"<header>{headline}</header>{body}")).title is None


def test_jsonld_date_author_image() -> None:
    ld = (
        '<script type="application/ld+json">{"@context":"https://schema.org",'
        '"@graph":[{"@type":"NewsArticle","datePublished":"2024-05-03T10:20:00Z",'
        '"author":[{"@type":"Person","name":"Jane Doe"}],"image":{"url":"/img/a.jpg"}}]}'
        "</script>"
    )
    meta = extract_metadata(_page(ld, "<h1>T</h1>"), url="https://x.test/a/b.html")
    assert meta.published == "2024-05-03T10:20:00+00:00"
    assert meta.author == "Jane Doe"
    assert meta.image == "https://x.test/img/a.jpg"


def _jsonld(author: str, graph: str = "") -> str:
    return (
        '<script type="application/ld+json">{"@context":"https://schema.org","@graph":['
        f'{{"@type":"BlogPosting","author":{author}}}{graph}]}}</script>'
    )


def test_a_jsonld_author_given_by_its_id_is_looked_up_in_the_graph() -> None:
    person = ',{"@type":"Person","@id":"https://x.test/#/person/1","name":"Jane Doe"}'
    ld = _jsonld('{"@id":"https://x.test/#/person/1"}', person)
    assert extract_metadata(_page(ld, "<h1>T</h1><p>Text.</p>")).author == "Jane Doe"


@pytest.mark.parametrize(
    "author",
    ['{"@type":"Organization","name":"Acme Media"}', '{"@type":"Person","name":"ops@acme.test"}'],
)
def test_a_jsonld_publisher_or_address_as_author_yields_to_a_byline(author: str) -> None:
    byline = "<h1>Council passes budget</h1><p class='meta'>By Erin Cunningham</p><p>Text.</p>"
    assert extract_metadata(_page(_jsonld(author), byline)).author == "Erin Cunningham"
    # ...and is the author when nothing else names one.
    name = author.split('"name":"')[1].rstrip('"}')
    assert extract_metadata(_page(_jsonld(author), "<h1>T</h1><p>Text.</p>")).author == name


@pytest.mark.parametrize(
    ("line", "author"),
    [
        ("Lean Startup Week Call for Proposals is Open Until July 31 by Eric Ries", "Eric Ries"),
        ("Posted on May 3, 2024 by Jane Roe in News", "Jane Roe"),
        # "by" inside a sentence that runs on: no byline.
        (
            "According to a 2014 report by Food and Water Watch, approximately 64% of bottled"
            " water sold in the United States is tap water in a misleading package.",
            None,
        ),
        ("Shop the stunning selection of rings in Singapore by I-PRIMO. We will help.", None),
        # "by:", and a "By" glued to the name where markup left no space
        ("Written by:Elise Nass", "Elise Nass"),
        ("ByDaryl Austin", "Daryl Austin"),
        ("Bylaws Committee", None),
        # a sentence's full stop after the "name"; credits for no author
        ("All personal loans made by WebBank.", None),
        ("Ads by Google", None),
        ("Photo by Jane Roe", None),
        ("A panel of experts led by Dr Goyal conducted the surgery.", None),
    ],
)
def test_a_by_deep_in_a_line_is_a_byline_only_when_the_name_closes_it(
    line: str, author: str | None
) -> None:
    html = _page("<title>T</title>", f"<h1>T</h1><p>{line}</p><p>" + "Body text. " * 40 + "</p>")
    assert extract_metadata(html).author == author


def test_chinese_byline_date_and_author() -> None:
    html = _page(
        "<title>老城区旧书市集重新开张_临江新闻网</title>",
        "<h1>老城区旧书市集重新开张</h1><div class='info'>发布时间：2024年06月12日 09:30 "
        "来源：临江日报 记者 王小明</div><p>" + "正文内容。" * 40 + "</p>",
    )
    meta = extract_metadata(html, fetched_at="2024-07-01T00:00:00")
    assert meta.title == "老城区旧书市集重新开张"
    assert meta.published == "2024-06-12T09:30:00"
    assert meta.author == "王小明"
    assert meta.language == "zh"


def test_relative_date_needs_and_respects_fetch_time() -> None:
    html = _page("<title>T</title>", "<h1>T</h1><span>3小时前</span><p>正文</p>")
    assert extract_metadata(html).published is None
    assert extract_metadata(html, fetched_at=NOW).published == "2024-05-10T09:00:00"


def test_fetch_time_as_a_date_seconds_or_text() -> None:
    from datetime import date

    html = _page("<title>T</title>", "<h1>T</h1><span>3小时前</span><p>正文</p>")
    for fetched in (date(2024, 5, 10), 1715342400, "2024-05-10T12:00:00Z"):
        assert extract_metadata(html, fetched_at=fetched).published.startswith("2024-05-"), fetched
    with pytest.raises(TypeError, match="fetched_at takes"):
        extract_metadata(html, fetched_at=[2024])


def test_future_meta_date_is_rejected() -> None:
    html = _page('<meta property="article:published_time" content="2099-01-01">', "<p>x</p>")
    assert extract_metadata(html, fetched_at=NOW).published is None
    # Without a fetch time, the present is the bound.
    assert extract_metadata(html).published is None
    # A time with its offset is compared as it stands: 10 hours after the fetch.
    ahead = '<meta property="article:published_time" content="2024-05-10T18:00:00-04:00">'
    fetched = datetime(2024, 5, 10, 12, 0, tzinfo=UTC)
    assert extract_metadata(_page(ahead, "<p>x</p>"), fetched_at=fetched).published is None


@pytest.mark.parametrize(
    ("byline", "author"),
    [
        ("作者：责任编辑：肖春芳", None),  # a label is no name
        ("新华社巴黎12月9日电（记者唐霁）法国9日再次爆发全国罢工。", "唐霁"),
        ("执笔/叨叨姐、胡一刀", "叨叨姐、胡一刀"),
        ("By Jane Roe", "Jane Roe"),
        # A name straight after the label; the byline's own words end it.
        ("记者王小明／北京报道", "王小明"),
        ("記者王小明／臺北報導", "王小明"),
        ("新华社记者王小明", "王小明"),
        ("本报记者 王小明 报道", "王小明"),
        ("记者 王小明 通讯员 李四", "王小明"),
        ("据记者了解，工程将于年底完工。", None),
        # Labels running into words, 文 inside a word, a lowercase "by".
        ("本文原标题：《邮轮母港即将开通》", None),
        ("作者最新文章", None),
        ("南都记者介绍，8月13日报警。", None),
        # A label run into a name, alone in its part of the line: only a name.
        ("发表于2014-08-24| 来源CSDN| 作者魏星", "魏星"),
        ("来源CSDN| 作者简介", None),
        ("中青网记者 魏其濛 来源：中国青年报", "魏其濛"),
        ("只看该作者 来自 - 贵州遵义", None),  # a forum post's "author from"
        ("王小明/新华社", "王小明"),
        ("打印/导出", None),  # a name and its source's form, but no name
        ("活动丰富群众文化生活。", None),
        ("The bridge was paid for by the state transportation fund.", None),
    ],
)
def test_byline_author_is_a_name_not_a_word(byline: str, author: str | None) -> None:
    html = _page("<title>城市新闻</title>", f"<h1>城市新闻</h1><p>{byline}</p><p>" + "正文。" * 40)
    assert extract_metadata(html).author == author


def test_publish_dates_before_dates_of_the_last_change() -> None:
    modified_ld = (
        '<script type="application/ld+json">{"@type":"NewsArticle",'
        '"dateModified":"2024-05-09T08:00:00Z"}</script>'
    )
    html = _page(modified_ld + '<meta property="article:published_time" content="2024-05-01">', "")
    assert extract_metadata(html, fetched_at=NOW).published == "2024-05-01"
    # The JSON-LD of Baidu's structured data, and its microdata date in <head>.
    baidu = '<script type="application/ld+json">{"pubDate":"2019-09-05T11:10:52"}</script>'
    assert extract_metadata(_page(baidu, "<time>2019-09-06</time>")).published == (
        "2019-09-05T11:10:52"
    )
    microdata = '<meta itemprop="dateUpdate" content="2019-10-08 12:00:57">'
    assert extract_metadata(_page(microdata, "<p>发布时间：10-08 12:00</p>")).published == (
        "2019-10-08T12:00:57"
    )


def test_a_byline_pushed_down_by_a_share_bar_is_found_before_the_body() -> None:
    from extractors import extract

    share = "".join(f"<li><a href='/s{n}'>Share on network {n}</a></li>" for n in range(14))
    body = "".join(
        f"<p>{'The council met on Tuesday to vote on the budget. ' * 4}</p>" for _ in range(6)
    )
    html = _page(
        "<title>Council passes budget</title>",
        f"<h1>Council passes budget</h1><ul>{share}</ul>"
        f"<div class='byline'>By Erin Cunningham, May 3, 2024</div><article>{body}</article>",
    )
    meta = extract(html, fetched_at=NOW)
    assert meta.author == "Erin Cunningham"
    assert meta.published == "2024-05-03"


def test_jsonld_wrapped_in_cdata_is_read() -> None:
    for wrap in ("<![CDATA[{}]]>", "//<![CDATA[\n{}\n//]]>", "/*<![CDATA[*/{}/*]]>*/"):
        ld = '{"@type":"BlogPosting","datePublished":"2024-05-03","author":{"name":"Dave Steer"}}'
        script = f'<script type="application/ld+json">{wrap.format(ld)}</script>'
        meta = extract_metadata(_page(script, "<h1>T</h1>"), fetched_at=NOW)
        assert (meta.published, meta.author) == ("2024-05-03", "Dave Steer")


BODY = "<p>" + "The council met on Tuesday to vote on the plan for the park. " * 8 + "</p>"


@pytest.mark.parametrize(
    ("byline", "author"),
    [
        # the box named for the name; its link holds the name, a role beside it
        ('<span class="author-name"><a href="/authors/jane">Jane Roe</a>, Staff Writer</span>',
         "Jane Roe"),
        # the innermost box when they nest, a date beside it
        ('<div class="styles__AuthorNameContainer-x1"><a href="/a/j">'
         '<p class="styles__AuthorName-x2">Jane Roe</p></a><span>30 Sep 2022</span></div>',
         "Jane Roe"),
        ('<div class="post_author_name">By Jane Roe</div>', "Jane Roe"),
        # a bio is no name; a commenter is not the author
        ('<div class="author-name">' + "Jane writes about parks and the city she grew up in. " * 3
         + "</div>", None),
        ('<span class="comment-author-name">Troll</span>', None),
        # a byline box: its link, else its text without "By"; a label or a
        # date in it names no one
        ('<span class="entry-author"><a href="/about/">Jane Roe</a> on 3 May</span>', "Jane Roe"),
        ('<p class="byline">By Jane Roe</p>', "Jane Roe"),
        ('<p class="author">Jane Roe<br> 4 August 2010</p>', "Jane Roe"),
        ('<div class="post-author">The Author</div>', None),
        ('<div class="author">Sun Dec 17, 2023 11:23 am</div>', None),
        ('<div class="author">Published on Thursday 12 January 2012 12:27</div>', None),
        ('<div class="author">Staff Writer</div>', None),
        # a name box wins over a byline box that comes first
        ('<div class="author">Posts</div><span class="author-name">Jane Roe</span>', "Jane Roe"),
        # microdata: a Person item's name, not its member title and counts
        ('<section itemprop="author" itemscope itemtype="https://schema.org/Person">'
         '<span>J</span><h4><span itemprop="name">janeroe</span></h4>'
         '<h5>Well-known member</h5><dl><dt>Joined</dt><dd>Dec 29, 2021</dd></dl></section>',
         "janeroe"),
        ('<span itemprop="author">Jane Roe</span>', "Jane Roe"),
    ],
)  # fmt: skip
def test_author_from_a_box_named_for_it(byline: str, author: str | None) -> None:
    assert extract_metadata(_page("<title>Park plan</title>", byline + BODY)).author == author


def test_entities_escaped_twice_in_meta_are_read_once() -> None:
    head = '<meta name="author" content="Maria &amp;amp; Katerina"><title>A &amp;amp; B</title>'
    meta = extract_metadata(_page(head, "<p>text</p>"))
    assert (meta.author, meta.title) == ("Maria & Katerina", "A & B")


def test_publish_dates_under_a_sites_own_names() -> None:
    # a meta name of the site's own, then a box named for the date
    meta = '<meta name="w-published-date" content="2025-05-27T06:03:43Z">'
    assert extract_metadata(_page(meta, BODY)).published == "2025-05-27T06:03:43+00:00"
    publisher = '<meta name="publisher" content="2025-05-27">'  # no date, whatever it holds
    assert extract_metadata(_page(publisher, BODY)).published is None
    box = '<div class="dateline"><p>Published</p><p class="post-date">Feb 2, 2023</p></div>'
    assert extract_metadata(_page("", BODY + box)).published == "2023-02-02"
    # far past the byline's lines, where only a box named for it is read
    story = "<h1>Park plan</h1>" + BODY * 14
    assert extract_metadata(_page("", story + box)).published == "2023-02-02"
    comment = '<p class="comment-date">Feb 9, 2023</p>'
    assert extract_metadata(_page("", story + comment)).published is None


def test_a_list_page_has_no_date_read_from_its_entries() -> None:
    """A teaser's "5月3日" is the entry's date, not the list's (and, with no
    year, was taken for this year's); a date marked up as one stays."""
    now = datetime(2026, 11, 28, tzinfo=UTC)
    entries = "".join(
        f'<li><a href="/news/{n}.html">城市新闻第{n}条</a><span class="date">5月{n}日</span></li>'
        for n in range(3, 8)
    )
    page = _page("<title>新闻列表</title>", f"<h1>新闻列表</h1><ul>{entries}</ul>")
    assert extract_metadata(page, fetched_at=now).published == "2026-05-03"  # as an article
    assert extract_metadata(page, fetched_at=now, listing=True).published is None
    declared = page.replace("<title>", '<meta property="article:published_time" '
                            'content="2024-05-08"><title>')  # fmt: skip
    assert extract_metadata(declared, fetched_at=now, listing=True).published == "2024-05-08"


@pytest.mark.parametrize(
    ("label", "next_line", "author"),
    [
        ("Written by", "Jane Roe", "Jane Roe"),
        ("Author:", "Jane Roe", "Jane Roe"),
        ("By", "The Example Team", "The Example Team"),
        ("作者", "王小明", "王小明"),
        # The next line is no name: a date, a sentence.
        ("Written by", "May 3, 2024", None),
        ("Author", "The council met on Tuesday to vote on the park budget for next year.", None),
    ],
)
def test_a_byline_label_on_its_own_line_names_the_next_line(
    label: str, next_line: str, author: str | None
) -> None:
    body = "<p>" + "The council approved the budget after a long debate. " * 8 + "</p>"
    html = _page(
        "<title>Budget approved</title>",
        f"<h1>Budget approved</h1><div>{label}</div><div>{next_line}</div>{body}",
    )
    assert extract_metadata(html).author == author


def test_a_threads_starter_named_in_its_header_is_its_author() -> None:
    """On a later page of a thread the first post is a reply: the header's
    "Thread starter" names the thread's author. A forum index names a
    starter per thread, so its labels name no one."""
    posts = "".join(
        f'<article><span itemprop="author">{who}</span><p>{"Reply text. " * 8}</p></article>'
        for who in ("replier_one", "replier_two")
    )
    header = (
        '<ul><li><span class="u-srOnly">Thread starter</span> <a href="/m/9">jane_roe</a></li></ul>'
    )
    page = _page("<title>Tent advice - Forum</title>", f"<h1>Tent advice</h1>{header}{posts}")
    assert extract_metadata(page).author == "jane_roe"
    rows = "".join(
        f'<li><a href="/t/{i}">T{i}</a><span>Started by</span><a href="/m/{i}">user{i}</a></li>'
        for i in range(5)
    )
    index = _page("<title>Forum</title>", f"<h1>Camping</h1><ul>{rows}</ul>")
    assert extract_metadata(index).author is None


def test_a_microdata_authors_name_from_its_meta_or_its_link() -> None:
    """A Person item named only by a ``<meta>`` (which cleaning drops), or by
    its link when its box also shows reputation and badge counts."""
    post = "<p>" + "The first post of the thread, asking a question. " * 4 + "</p>"
    hidden = (
        '<div itemprop="author" itemscope itemtype="https://schema.org/Person">'
        '<meta itemprop="name" content="julian"><meta itemprop="url" content="/user/julian">'
        "</div><div class='byline'>J Offline julian wrote on last edited by #1</div>"
    )
    assert extract_metadata(_page("<title>RC1</title>", hidden + post)).author == "julian"
    flair = (
        '<div class="user-details" itemprop="author" itemscope itemtype="http://schema.org/Person">'
        '<a href="/users/2911408/vader" itemprop="url">Vader</a><div><span>6,796</span>'
        "<span>8 gold badges</span><span>34 silver badges</span></div></div>"
    )
    assert extract_metadata(_page("<title>Q</title>", flair + post)).author == "Vader"


def test_a_template_variable_left_in_meta_author_is_no_name() -> None:
    body = "<h1>Budget approved</h1><span class='blog-meta-author'>Tim Enwall</span><p>text</p>"
    for value in ("page.head.extra.author", "{{ author }}", "%author%"):
        head = f'<title>Budget approved</title><meta name="author" content="{value}">'
        assert extract_metadata(_page(head, body)).author == "Tim Enwall"
    for handle in ("john.smith", "sara.r.peter"):
        named = f'<title>Budget approved</title><meta name="author" content="{handle}">'
        assert extract_metadata(_page(named, body)).author == handle


def test_a_threads_first_username_is_its_author_a_lone_one_is_not() -> None:
    posts = "".join(
        f'<div class="post"><a class="username" href="/u/{who}">{who}</a> :'
        f"<p>{'A post in the thread. ' * 6}</p></div>"
        for who in ("b.scherer", "galitsyn", "b.scherer")
    )
    thread = _page("<title>Boot fails after update</title>", "<h1>Boot fails</h1>" + posts)
    assert extract_metadata(thread).author == "b.scherer"
    widget = '<div class="account"><span class="username">Hi</span></div>'
    article = _page("<title>Budget</title>", widget + "<h1>Budget</h1><p>" + "Text. " * 30)
    assert extract_metadata(article).author is None


def test_a_labelled_date_around_the_body_not_in_the_footer() -> None:
    """A "Posted on" line out of the lines read near the headline (after the
    lead paragraphs) dates the page; a site footer's "Last Updated" does not."""
    from extractors import extract

    links = "".join(f'<li><a href="/s{i}">Section {i}</a></li>' for i in range(20))
    menu = f"<ul>{links}</ul>"
    paras = "".join(
        f"<p>Paragraph {i} of the story tells how the council met and what it decided. "
        "The vote was close and the debate ran late into the evening.</p>"
        for i in range(6)
    )
    footer = "<footer><p>Site Last Updated: December 20, 2025</p></footer>"
    story = f"<div class='story'>{paras[:400]}<p>Posted on April 13, 2023</p>{paras[400:]}</div>"
    page = _page("<title>Council vote</title>", menu + "<main>" + story + "</main>" + footer)
    assert extract(page, "https://x.test/council-vote").published == "2023-04-13"
    body = f"{menu}<main><div>{paras}</div></main>{footer}"
    undated = _page("<title>Council vote</title>", body)
    assert extract(undated, "https://x.test/council-vote").published is None


def _chinese_article(last: str, after: str = "") -> tuple[str, object]:
    """A Chinese article whose last paragraph is ``last``, and its main node
    (related links ``after`` inside it)."""
    from extractors.document import as_document

    paragraph = "推介会上，各方分别作了推介，双方将用好各类平台。" * 3
    body = f"<p>{paragraph}</p>" * 5
    html = _page(
        "<title>山西品牌丝路行首次登陆巴西_山西新闻网</title>",
        f"<h1>山西品牌丝路行首次登陆巴西</h1><div id='main'>{body}<p>{last}</p>{after}</div>"
        "<div class='footer'><p>版权所有（山西新闻网）</p></div>",
    )
    doc = as_document(html)
    return doc, doc.root.get_element_by_id("main")


@pytest.mark.parametrize(
    ("last", "author"),
    [
        ("南美站活动将先后在巴西、乌拉圭、阿根廷举行。（张巨峰）", "张巨峰"),
        ("南美站活动将先后在巴西举行。(李楠)", "李楠"),
        ("南美站活动将先后在巴西举行。（王小明 欧阳娜娜）", "王小明 欧阳娜娜"),
        ("采写：南都记者 余毅菁 向雪妮", "余毅菁 向雪妮"),
        # Brackets that close an article but hold no name.
        ("南美站活动将先后在巴西举行。（全文完）", None),
        ("数据来源于行业报告。（金融界）", None),
        ("图为推介会现场。（刘通摄）", None),
        ("南美站活动将先后在巴西举行。（完）", None),
    ],
)
def test_a_chinese_articles_closing_credit_names_its_reporter(
    last: str, author: str | None
) -> None:
    related = "<ul><li><a href='/r'>相关新闻：港铁启动疏散</a></li></ul>"
    doc, main = _chinese_article(last, after=related)
    assert extract_metadata(doc, main=main).author == author


def test_a_closing_credit_is_read_only_at_the_main_contents_end() -> None:
    # A name in brackets mid-article, or in the page's footer, credits no one.
    doc, _ = _chinese_article("南美站活动将先后在巴西举行。")
    assert extract_metadata(doc, main=doc.body).author is None
    last = "南美站活动将先后在巴西举行。（张巨峰）"
    doc, main = _chinese_article(last, after="<p>正文。</p>" * 9)
    assert extract_metadata(doc, main=main).author is None


@pytest.mark.parametrize(
    ("closing", "author"),
    [
        ("<p>Written by Cassidy Horton</p><p>Cassidy is a finance writer.</p>", "Cassidy Horton"),
        ("<p>Written by</p><p>Nathan Myhrvold</p>", "Nathan Myhrvold"),
        ("<p>Powered by Bear</p>", None),
    ],
)
def test_an_articles_closing_byline_names_its_author_when_nothing_else_does(
    closing: str, author: str | None
) -> None:
    from extractors.document import as_document

    # Longer than the window read for a byline under the headline.
    body = f"<p>{'The council met on Tuesday to vote on the budget. ' * 4}</p>" * 16
    html = _page("<title>Budget</title>", f"<h1>Budget</h1><article>{body}</article>{closing}")
    doc = as_document(html)
    main = next(doc.body.iter("article"))
    assert extract_metadata(doc, main=main).author == author


def test_a_meta_author_keeps_its_name_not_the_addresses_beside_it() -> None:
    meta = '<meta name="author" content="{}">'
    page = "<h1>T</h1><p>Text.</p>"
    listed = meta.format("James A. Mathias, admin@lotus.test, http://www.lotus.test")
    assert extract_metadata(_page(listed, page)).author == "James A. Mathias"
    assert extract_metadata(_page(meta.format("name, email@gmail.com"), page)).author is None


def test_a_relative_day_is_a_day_of_the_sites_clock() -> None:
    """At 20:00 UTC it is 04:00 the next day in China: a Chinese entry of
    "3小时前" is of that next day; an English one keeps the fetch's zone."""
    from extractors.dates import find_relative_date

    fetched = datetime(2024, 5, 9, 20, 0, tzinfo=UTC)
    assert find_relative_date("新华社 3小时前", fetched) == "2024-05-10"
    assert find_relative_date("Reuters 3 hours ago", fetched) == "2024-05-09"
    assert find_relative_date("昨天 14:20", fetched) == "2024-05-09"
    assert find_relative_date("2024-05-01 published", fetched) is None  # a year: find_date's


def test_a_time_alone_is_todays_only_on_the_24_hour_clock_of_a_chinese_text() -> None:
    from extractors.dates import find_time_today

    fetched = datetime(2024, 5, 9, 20, 0, tzinfo=UTC)  # 04:00 on 10 May in China
    assert find_time_today("少数派编辑部 03:10 派早报", fetched) == "2024-05-10"
    for text in (
        "少数派编辑部 05:10 派早报",  # still to come at 04:00: yesterday's, or a schedule
        "Reuters 03:10 Markets",  # English: an event's or a show's time as often
        "直播 下午 3:10",  # a 12-hour clock
        "直播 3:10 pm",
        "会议 01:00-03:00",  # a range
        "沫子兮兮 04/19 01:15",  # a day this module does not read
        "比分 1:0 结束 02:10 03:00",  # two times
    ):
        assert find_time_today(text, fetched) is None, text
