"""extract(method="auto"): routing, combination, clean text, garbage in."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from extractors import METHODS, Result, as_document, extract
from extractors.auto import Params, medoid
from extractors.classify import Classification
from extractors.result import LengthClass, PageType

PARAS = [
    "The city council voted on Tuesday to approve a new budget for the riverside park, "
    "after months of debate about how the money should be spent and who should decide.",
    "Residents who attended the meeting said they were pleased that the playground would "
    "be rebuilt first, and that the old boathouse would be turned into a small museum.",
    "Work is expected to start in the spring and to take about eighteen months, the "
    "council said, with parts of the park staying open for the whole of that time.",
    "Critics of the plan argued that the costs were underestimated and that the city "
    "should have asked for more bids before choosing the contractor for the works.",
]
NAV = "".join(f'<li><a href="/s{i}">Section {i}</a></li>' for i in range(12))
ARTICLE = f"""<html lang="en"><head><title>Council approves park budget - The Ledger</title>
<meta property="og:type" content="article">
<meta property="article:published_time" content="2024-05-03T10:20:00+00:00">
<meta name="author" content="Jane Doe"></head><body>
<header><a href="/"><h1 class="logo">The Ledger</h1></a><ul>{NAV}</ul></header>
<article><h1>Council approves park budget</h1><p class="byline">By Jane Doe</p>
{"".join(f"<p>{p}</p>" for p in PARAS)}
<p>Share this article</p><p>Copyright © 2024 The Ledger. All rights reserved.</p></article>
<footer><ul>{NAV}</ul></footer></body></html>"""

ITEMS = [f"Headline number {i} about something that happened in the valley" for i in range(20)]
LISTING = f"""<html><head><title>News - The Ledger</title></head><body>
<ul class="menu">{NAV}</ul><h1>News</h1><ul class="articles">
{
    "".join(
        f'<li class="item"><a href="/news/{i}.html">{t}</a><span>2024-05-{i + 1:02d}</span></li>'
        for i, t in enumerate(ITEMS)
    )
}
</ul></body></html>"""


def test_default_method_is_auto() -> None:
    result = extract(ARTICLE, url="https://example.com/news/2024/05/03/park.html")
    assert result.method.startswith("auto")
    assert "auto" in METHODS


def test_article_text_is_clean_and_complete() -> None:
    result = extract(ARTICLE, url="https://example.com/news/2024/05/03/park.html")
    assert result.page_type is PageType.ARTICLE
    assert result.lines[: len(PARAS)] == PARAS  # no headline on top, paragraphs in order
    assert "Section 3" not in result.text
    assert "Copyright" not in result.text and "Share this" not in result.text
    assert result.title == "Council approves park budget"
    assert result.published == "2024-05-03T10:20:00+00:00"
    assert result.author == "Jane Doe"
    assert result.language == "en"
    assert result.length_class is not None and 0.0 < (result.confidence or 0) <= 1.0


def test_signed_comments_without_a_header_are_cut() -> None:
    from extractors.boilerplate import clean_lines, cut_signed_comments

    replies = [
        "What about the price of gasoline? Nobody reports on that any more.",
        "Hospitals are out of control with their prices, and the insurers too.",
        "It only cost Steve Austin six million and he got super powers out of it.",
    ]
    # Signed after each comment: the first comment goes with the others.
    after = [*PARAS]
    for i, reply in enumerate(replies):
        after += [reply, f"Posted by: reader{i} | January 16, 2012, {i + 7}:28 am"]
    assert cut_signed_comments(after) == PARAS
    # Signed before each comment, with a numeric date (and in Chinese).
    before = [*PARAS]
    for i, reply in enumerate(replies):
        before += [f"11.01.12, {i + 9}:44pm", reply]
    assert cut_signed_comments(before) == PARAS
    zh = [*PARAS, "网友 张三 2012-01-16 11:57", "说得好", "网友 李四 2012-01-16 12:03", "同意"]
    assert cut_signed_comments(zh) == PARAS
    # A forum thread: the first post is no longer than the replies.
    thread = [PARAS[0], "Posted by: ann | May 3, 2024, 10:20 am", PARAS[1],
              "Posted by: bob | May 3, 2024, 11:02 am", PARAS[2]]  # fmt: skip
    assert cut_signed_comments(thread) == thread
    # One dated line repeated is a template's (stories one after another).
    stories = [*PARAS, "Published on May 02, 2024 07:44 PM", PARAS[0],
               "Published on May 02, 2024 07:44 PM", PARAS[1]]  # fmt: skip
    assert cut_signed_comments(stories) == stories
    # A page that declares itself a thread keeps its signed posts.
    assert set(replies) <= set(clean_lines(after, thread=True))
    assert not set(replies) & set(clean_lines(after))


def test_a_page_declaring_a_thread_is_known() -> None:
    from extractors.classify import declares_thread

    qa = '<div itemscope itemtype="https://schema.org/QAPage"><p>How do I back up?</p></div>'
    forum = (
        '<script type="application/ld+json">{"@type": "DiscussionForumPosting"}</script><p>x</p>'
    )
    assert declares_thread(as_document(qa)) and declares_thread(as_document(forum))
    assert not declares_thread(as_document(ARTICLE))
    # An article's FAQ block declares questions, not a thread.
    faq = '<script type="application/ld+json">{"@type": "FAQPage", "mainEntity":'
    faq += ' [{"@type": "Question", "name": "Why?"}]}</script><p>x</p>'
    assert not declares_thread(as_document(faq))


def test_a_declared_thread_is_an_article_of_posts_not_a_list() -> None:
    """Posts repeat one template like a list's records; a page that declares
    itself a thread keeps them as its text, with the thread's date."""
    posts = "".join(
        f'<li class="post"><a href="/u/{i}">user{i}</a> <span>May {i + 1}, 2024</span>'
        f'<div class="message"><a href="/t/{i}">Re: park budget</a> I think plan {i} is fine.'
        "</div></li>"
        for i in range(8)
    )
    page = f"""<html><head><title>Park budget - Forum</title>{{ld}}</head><body>
    <ul class="menu">{NAV}</ul><h1>Park budget</h1><ul class="posts">{posts}</ul>
    <footer><ul>{NAV}</ul></footer></body></html>"""
    ld = '<script type="application/ld+json">{"@type": "DiscussionForumPosting"}</script>'
    assert extract(page.replace("{ld}", "")).page_type is PageType.LIST
    thread = extract(page.replace("{ld}", ld))
    assert thread.page_type is PageType.ARTICLE and thread.published == "2024-05-01"
    assert all(f"I think plan {i} is fine." in thread.text for i in range(8))


_COMMENTS = [
    "I have lived by that rail yard for twenty years and never thought I would see the day "
    "when it would be turned into something that the whole town can enjoy together.",
    "Forty acres is a good start, but the council should also think about the parking: "
    "every weekend the streets near the river are already full of cars and vans.",
    "My children will love the cycle path, and I hope the trees they plant are the kind "
    "that give shade in summer rather than the thin ones they put in last time.",
]


def _story_with_comments(box: str, comments: list[str]) -> str:
    """A story whose readers' comments sit in its own box, below its
    paragraphs (every method keeps them as prose)."""
    story = "".join(f"<p>{p}</p>" for p in PARAS)
    said = "".join(f"<p>{c}</p>" for c in comments)
    return (
        "<html><head><title>Council expands river park</title></head><body>"
        '<nav><a href="/">Home</a> <a href="/news">News</a> <a href="/sport">Sport</a></nav>'
        f'<div><h1>Council expands river park</h1>{story}<div id="{box}">{said}</div></div>'
        "<footer>All rights reserved.</footer></body></html>"
    )


def test_readers_comments_in_a_comments_box_below_the_story_are_cut() -> None:
    with_comments = PARAS + _COMMENTS
    page = _story_with_comments("comments", _COMMENTS)
    assert extract(page).lines == PARAS
    assert extract(page, comments_min_long_lines=0).lines == with_comments  # the rule off
    # A box not named for comments, or comments outweighing what stays (a
    # forum's replies), are left as they are.
    assert extract(_story_with_comments("talk", _COMMENTS)).lines == with_comments
    # Users' reviews are comments; a box named "review" (one critic's) is not.
    assert extract(_story_with_comments("pdp-reviews_list", _COMMENTS)).lines == PARAS
    assert extract(_story_with_comments("review", _COMMENTS)).lines == with_comments
    replies = [f"Reply {i}: {c}" for i, c in enumerate(_COMMENTS * 2)]
    assert extract(_story_with_comments("comments", replies)).lines == PARAS + replies


def test_when_the_readers_outvote_the_story_the_story_is_taken() -> None:
    """Comments outweighing the story pull the candidates' medoid into their
    box; a candidate apart from it holding an article is taken instead,
    unless the comments dwarf that story (a discussion: they are the page)."""

    def page(paragraphs: int, comments: int) -> str:
        story = "".join(
            f"<p>The council met on Tuesday ({i}) to discuss the bridge, and its engineers "
            "said the repair would take three more months of work on the stone arches.</p>"
            for i in range(paragraphs)
        )
        said = "".join(
            f"<div class='comment'><span>Reader {i} wrote at 10:{i:02d}</span><p>I have "
            f"crossed that bridge every morning for twenty years ({i}) and think the council "
            "should have started long ago, before the winter storms made the cracks worse.</p>"
            "</div>"
            for i in range(comments)
        )
        return (
            "<html><head><title>Bridge repair</title></head><body><article><h1>Bridge repair"
            f"</h1>{story}</article><section id='comments'><h2>Comments</h2>{said}</section>"
            "</body></html>"
        )

    # Three voters, two of which (SCEDD, layout) take the comments box.
    voters = {"candidates": ("scedd", "layout", "boilerpipe"), "first_round": 3}
    article = extract(page(8, 20), "https://news.example/bridge", **voters)
    assert article.text.count("council met") == 8 and "crossed that bridge" not in article.text
    off = extract(page(8, 20), "https://news.example/bridge", comments_story_ratio=0, **voters)
    assert "council met" not in off.text  # the rule off: the comments
    discussion = extract(page(3, 40), "https://news.example/bridge", **voters)
    assert discussion.text.count("crossed that bridge") >= 30
    unbounded = extract(
        page(3, 40), "https://news.example/bridge", comments_story_ratio=1000, **voters
    )
    assert "crossed that bridge" not in unbounded.text  # what the bound keeps


def test_a_related_stories_list_closing_the_text_is_cut() -> None:
    from extractors.boilerplate import cut_related_tail

    headlines = ["•『大原則 + 小聰明』省錢家政婦 省力有撇步", "•避免打掃「掛彩」 復健醫師小叮嚀"]
    assert cut_related_tail([*PARAS, "※相關新聞》", *headlines]) == PARAS
    assert cut_related_tail([*PARAS, "Related stories", "Park reopens", "Budget passes"]) == PARAS
    assert cut_related_tail([*PARAS, "Recommended for You"]) == PARAS  # its list taken out
    # Long entries end the text when they are known teasers (other pages'
    # snippets), and then one paragraph before the header is story enough.
    snippets = PARAS[1:]
    told = {"".join(t.split()) for t in snippets}
    story = [PARAS[0][:100], "其他人也在看", *snippets]
    assert cut_related_tail(story, told, lead=60) == [PARAS[0][:100]]
    assert cut_related_tail(story, told) == story  # under the usual lead: a box above
    assert cut_related_tail(story, lead=60) == story  # long lines, not known teasers
    assert cut_related_tail([*PARAS, "You might also like", "Park reopens"]) == PARAS
    # Prose after the header is no list of headlines; a header at the top
    # of the text (a box above the story) ends nothing.
    prose = [*PARAS, "Related stories", PARAS[0]]
    assert cut_related_tail(prose) == prose
    above = ["Related stories", "Park reopens", *PARAS]
    assert cut_related_tail(above) == above


def test_readers_comments_under_an_article_are_cut() -> None:
    from extractors.boilerplate import cut_comments

    comments = ["Here's what other readers have said.", "I disagree with every word. - Ann, Leeds"]
    assert cut_comments([*PARAS, *comments]) == PARAS
    assert cut_comments([*PARAS, "网友评论（12条）", "说得好"]) == PARAS
    # Comments longer than the article still start at their header.
    many = [f"Comment {i}: " + PARAS[i % 4] for i in range(30)]
    assert cut_comments([*PARAS, "Comments in order (Total 30 comments)", *many]) == PARAS
    # One reader's comment, headed "name 对 headline 的评论:", starts them too;
    # prose saying what someone thought of something does not.
    first = ["瑞雪 对圣元奶粉致死的评论:", "这样的事频频发生。"]
    assert cut_comments([*PARAS, *first, "刘英对圣元奶粉致死的评论:", "说得好"]) == PARAS
    prose = "专家对这一事件的评论很中肯，多数读者也表示赞同。"
    assert cut_comments([*PARAS, prose]) == [*PARAS, prose]
    # A comments link above the article is not the start of the comments.
    assert cut_comments(["3 comments", *PARAS]) == ["3 comments", *PARAS]
    # A French heading asking how ("Comment choisir ... ?") or a section
    # named after comments is no comments header; "Comment(s)" and
    # "Comment now!" are.
    how = [*PARAS, "Comment choisir son barbecue ?", "Le couvercle transforme le barbecue."]
    assert cut_comments(how) == how
    section = [*PARAS, "Comment engagement score (0-50 points)", "Each comment earns 5 points."]
    assert cut_comments(section) == section
    # A blog's count heading its comments, with the post's title in quotes.
    for header in (
        "59 Comments on “The December Comfort Watches 2025, Day Eighteen: Starship Troopers”",
        "One thought on “Park budget”",
        "2 Gedanken zu „Folge 70: Star Trek: Picard“",
    ):
        assert cut_comments([*PARAS, header, "Great post!"]) == PARAS
    heading = [*PARAS, "Thoughts on “the plan”", "The mayor said more."]
    assert cut_comments(heading) == heading
    # A header under every answer of a Q&A page is each answer's comments
    # box: the answers stay, the text ends at the last one.
    answers = [PARAS[0], "Comments", "0", PARAS[1], "Comments", "Ask a question"]
    assert cut_comments(answers) == [PARAS[0], "0", PARAS[1]]
    # What opens a comments section without a header: its rules, its pager.
    for opener in (
        "Please read our terms of use before posting comments",
        "Comments: Displaying 1 - 5 of 5",
        "We are no longer accepting comments on this article.",
        "To view all 'Have Your Say' comments, click this button...",
    ):
        assert cut_comments([*PARAS, opener, "I agree."]) == PARAS
    assert cut_comments([*PARAS, "| 13 Comment(s)", "Great story!"]) == PARAS
    assert cut_comments([*PARAS, "Comment now! Register or sign in below."]) == PARAS
    # "Comments: 12 pages, 3 figures" is a field of a listed paper; "Comments: 12" a count.
    field = [*PARAS, "Comments: 12 pages, 3 figures", "Subjects: Artificial Intelligence"]
    assert cut_comments(field) == field
    assert cut_comments([*PARAS, "Comments: 12", "First!"]) == PARAS


def test_the_reviews_under_a_product_are_cut_only_on_a_declared_product_page() -> None:
    description = [
        "This hand-thrown stoneware mug holds 350 ml and keeps coffee warm for longer, "
        "thanks to its thick double wall and a glaze fired at high temperature.",
        "Each mug is made to order in our workshop, so the colour of the glaze varies a "
        "little from one mug to the next. Dishwasher and microwave safe.",
    ]
    reviews = [
        "I bought two of these for my parents and they use them every single morning now. "
        "The glaze is even nicer than in the photos.",
        "Anna K.",
        "Arrived well packed and a week earlier than promised. Heavier than I expected, "
        "which I like, it feels solid.",
        "Tom R.",
    ]

    def page(declaration: str) -> str:
        paras = "".join(f"<p>{line}</p>" for line in description)
        said = "".join(
            f'<div class="review"><p>{reviews[i]}</p><span>{reviews[i + 1]}</span></div>'
            for i in (0, 2)
        )
        return (
            f"<html><head><title>Stoneware mug</title>{declaration}</head><body>"
            f"<main><h1>Stoneware mug</h1>{paras}<h2>Customer Reviews</h2>{said}</main>"
            "</body></html>"
        )

    product = '<script type="application/ld+json">{"@type": "Product", "name": "Mug"}</script>'
    result = extract(page(product), url="https://shop.example.com/mug")
    assert result.lines == description
    # Undeclared, "Customer Reviews" may be a section of a story: kept.
    kept = extract(page(""), url="https://shop.example.com/mug")
    assert "Customer Reviews" in kept.lines and reviews[0] in kept.lines


def test_a_caption_repeating_the_title_after_the_body_does_not_take_the_body() -> None:
    from extractors.boilerplate import strip_title

    title = "Paris couture week: the designer who grows her dresses"
    # The headline first: it and what sits above it go.
    assert strip_title(["Fashion", title, *PARAS], [title]) == PARAS
    # One long line above the headline (a site's blurb) goes with it.
    assert strip_title([PARAS[0], title, *PARAS[1:]], [title]) == PARAS[1:]
    # After paragraphs, a line equal to the title is a photo's caption: the
    # paragraphs are the body.
    assert strip_title([*PARAS[:3], title, title], [title]) == [*PARAS[:3], title]


def test_a_module_of_teasers_after_the_article_is_cut() -> None:
    from extractors.boilerplate import clean_lines, cut_teaser_tail

    teasers = [
        "最熱門新聞",
        "抽獎抽中遲到券 員工返工免扣薪 明報 - 12小時前",
        "【明報專訊】公司年終晚宴通常有抽獎活動，但一名員工竟抽到一張可以遲到的獎券，"
        "她將消息上載後 ...",
        "大橋上爭執 的士司機急忙停車 星島日報 - 13小時前",
        "(綜合報道)消費者電子產品展周二揭幕，各家電視機大廠力推具備互動功能的"
        "智慧電視機，功能包括聲控…",
        "Smart TVs listen now",
        "Makers showed television sets that switch on when viewers greet them "
        "and answer questions ...",
        "更多熱門新聞 »",
    ]
    assert cut_teaser_tail([*PARAS, *teasers]) == PARAS
    assert clean_lines([*PARAS, *teasers]) == clean_lines(PARAS)
    # Two cut-short lines are not yet a list; one that trails off is prose.
    two = [*PARAS, *teasers[:5]]
    assert cut_teaser_tail(two) == two
    # Teasers before the article's last paragraph are not its tail.
    inside = [*PARAS[:2], *teasers, *PARAS[2:]]
    assert cut_teaser_tail(inside) == inside
    # A page that is nothing but teasers keeps them (a list, not a tail).
    assert cut_teaser_tail(teasers) == teasers


def test_page_controls_and_contact_lines_are_boilerplate() -> None:
    from extractors.boilerplate import is_boilerplate

    for line in (
        "字号:T|T",
        "请您对该文章评分：",
        "电话：021-52921234",
        "電話：02-2652-1234",
        "(陈巍 编辑)",
        "Loading",
        "Copy",
        "Close",
        "Click to expand...",
        "Ads by Google",
        "Enlarge this image",
        "toggle caption",
        "Press enter or click to view image in full size",
        "2016-09-19 17:02:14 +00:00",
        "Commented Mar 5, 2019 at 14:02",
        "未经授权，不得转载。",
        "未經本網許可，請勿轉載",
        "Watch Next",
        "Latest Videos",
        "The biggest stories of the day delivered to your inbox.",
        "Never miss the latest news by signing up to our newsletter",
        "For the latest stories download the Ledger apps for iOS and Android.",
        "Follow The Ledger on Twitter and Instagram @ledger",
        "Kostenlos zum Newsletter anmelden",
        "Verpasse keine News zu Hardware & Gadgets!",
        "To view the full story, please subscribe to The Ledger.",
        "If you are seeing this message but you are already a subscriber, log in.",
    ):
        assert is_boilerplate(line), line
    assert not is_boilerplate("Download the recipe app")  # an app's own page
    assert not is_boilerplate("They follow the river on foot for three days.")
    assert not is_boilerplate("The parcel was delivered to her door before noon.")
    assert not is_boilerplate("船长未经许可，擅自使游轮偏离既定航线，导致触礁搁浅。")
    assert not is_boilerplate("他在电话里说，这件事情要等到明年才能有结果。")
    assert not is_boilerplate("Copy the file to the server and close the session.")
    assert not is_boilerplate("Commented code runs at 2016-09-19 17:02:14 +00:00 every day.")


def test_a_copyright_notice_is_boilerplate_however_long() -> None:
    from extractors.boilerplate import MAX_BOILERPLATE_CHARS, is_boilerplate

    notice = (
        "Copyright © 2012 The Daily Observer. All rights reserved. Distributed by a "
        "syndication service. To contact the copyright holder directly for corrections, "
        "or for permission to republish, follow the link below."
    )
    assert len(notice) > MAX_BOILERPLATE_CHARS
    for line in (
        notice,
        "© 2019 Example Media Group",
        "(c) 2021 Someone",
        "Copyright 2011 Reuters. All rights reserved. Republication is prohibited.",
    ):
        assert is_boilerplate(line), line
    # A paragraph about copyright, even one opening with the word, is text.
    long_paragraph = (
        "Copyright law in 2012 changed how newspapers license their archives, and the "
        "publishers who sued over it said the new rules would cost them readers and money."
    )
    assert not is_boilerplate(long_paragraph)
    assert not is_boilerplate(
        "Copyright 2012 figures show that publishers licensed more of their archives than "
        "in any year before, according to the trade association's annual report."
    )


def test_notes_about_the_story_and_a_stamp_line_are_boilerplate_however_long() -> None:
    from extractors.boilerplate import MAX_BOILERPLATE_CHARS, is_boilerplate

    note = (
        "This article was published on example.com at 15.53 GMT on Wednesday 14 December "
        "2011. A version appeared on p12 of the Main section of the Daily on Thursday."
    )
    stamps = (
        "First posted: Thursday, January 12, 2012 04:18 AM EST | "
        "Updated: Thursday, January 12, 2012 04:22 AM EST"
    )
    assert len(note) > MAX_BOILERPLATE_CHARS and len(stamps) > 100
    for line in (
        note,
        stamps,
        "This story originally appeared in The Atlantic.",
        "This article was originally published on a partner site and is republished here.",
        "Posted: 01/10/2012 6:32 PM | Comments: 0 (including replies) | Last Modified: 01/10/2012",
        "A Wire Service Jan 16, 2012 – 12:00 PM ET | Last Updated: Jan 16, 2012 8:42 PM ET",
        "This page was last modified on Dec 5, 2025 by its contributors.",
        "This entry was posted on Monday, January 9th, 2012 at 4:05 pm.",
        "(Updates with comments from the minister in fourth paragraph.)",
        "(Note: The Daily does not endorse and is not responsible for the content of "
        "external links.)",
    ):
        assert is_boilerplate(line), line
    # Prose about a publication, and a data row of dates, are text.
    for line in (
        "This article's findings were published in Nature on Monday, and the authors say "
        "the trial will now be repeated in three more countries before any approval.",
        "This story was published on the front page and read by millions of people who had "
        "never heard of the town before that week.",
        "2012 | 2013 | 2014",
        "This page was updated by volunteers who spent their weekends fixing the archive.",
        "(add the blue model to your cart)",
        "Comments: 12 | Jane Roe | Rating: 4 of 5",
    ):
        assert not is_boilerplate(line), line


def test_a_table_of_contents_header_a_lone_by_and_a_share_count_are_boilerplate() -> None:
    from extractors.boilerplate import is_boilerplate

    for line in (
        "Table of Contents",
        "CONTENTS",
        "In this article",
        "Jump to ↓",
        "目录",
        "By",
        "139 shares",
        "1.2K Shares",
    ):
        assert is_boilerplate(line), line
    assert not is_boilerplate("Contents of the report were leaked to the press on Monday.")


def test_a_breadcrumb_trail_is_boilerplate_however_long() -> None:
    from extractors.boilerplate import is_boilerplate

    trail = "Home » News » Research News » " + "A headline long enough to pass the limit " * 3
    for line in (
        trail,
        "Home / Services / Data Analytics Consulting",
        "Startseite → A → B",
        "You are here: Home / Blog / Oklahoma / The best restaurants in town",
    ):
        assert is_boilerplate(line), line
    for line in (
        "Home is where the heart is, she said / and he agreed / twice.",
        "| HOME | AWAY | DIV |",
    ):
        assert not is_boilerplate(line), line


def test_a_zero_width_joiner_joining_nothing_leaves_no_line() -> None:
    from extractors.document import text_lines
    from extractors.text import clean_text

    assert clean_text("\u200d") == "" and clean_text("x\u200d ") == "x "
    assert clean_text("\U0001f468\u200d\U0001f469") == "\U0001f468\u200d\U0001f469"  # emoji
    doc = as_document("<html><body><div><p>One.</p><p>\u200d</p><p>Two.</p></div></body></html>")
    assert text_lines(doc.body) == ["One.", "Two."]


def test_share_related_and_comment_lines_of_european_languages_are_boilerplate() -> None:
    from extractors.boilerplate import cut_comments, is_boilerplate

    for line in (
        "Bild anzeigen Bild schließen",
        "Quellen ausblenden",
        "Etiquetas:",
        "Zum Weiterlesen",
        "Weitere Beiträge aus der Kolumne:",
        "Teilen mit:",
        "Gefällt mir:",
        "Gefällt mir Wird geladen...",
        "Liken Lade …",
        "Beitrag teilen",
        "zurück zur Listenansicht",
        "War der Artikel nützlich?",
        "Keine Kommentare Kommentare sind geschlossen.",
        "Ähnliche Beiträge",
        "Lesen Sie auch: Warum der Winter kommt",
        "NOTAS RELACIONADAS",
        "À lire aussi",
        "- Anzeige -",
        "Über die Autorin:",
        "VW-Chef Herbert Diess in Wolfsburg. (Foto: Volkswagen)",
        "Quelle: Verbraucherzentrale NRW",
    ):
        assert is_boilerplate(line), line
    # The same words inside a sentence are text.
    assert not is_boilerplate("Die Anzeige wurde gestern in der Zeitung veröffentlicht.")
    assert not is_boilerplate("Partager les données est essentiel pour la recherche.")
    assert cut_comments([*PARAS, "44 Kommentare", "Sehr guter Artikel!"]) == PARAS
    assert cut_comments([*PARAS, "Comentarios", "¡Excelente nota!"]) == PARAS


def test_a_chinese_credit_line_alone_is_boilerplate_but_not_when_it_opens_a_paragraph() -> None:
    from extractors.boilerplate import is_boilerplate

    assert is_boilerplate("【聯合晚報╱記者王小明／即時報導】")
    assert is_boilerplate("【2012/01/11 聯合晚報】@ http://example.com/")
    assert not is_boilerplate("【王小明╱台北報導】近日天冷，不少人會選擇去泡溫泉暖身。")
    assert not is_boilerplate("【图集】")


def test_chinese_reporter_lines_counters_and_buttons_are_boilerplate() -> None:
    from extractors.boilerplate import is_boilerplate

    for line in (
        "記者陳鈞凱／台北報導",
        "记者 张小明/摄",
        "阅读量340 收藏 2",
        "阅读 (177万)",
        "点赞",
        "閱讀整篇文章",
        "点击图片查看详细数据",
        "特别声明：以上内容为自媒体平台用户上传并发布，本平台仅提供信息存储服务。",
    ):
        assert is_boilerplate(line), line
    for line in (
        "记者今天从市政府获悉，新的规划已经出台。",
        "收藏家张先生说，这件瓷器是明代的。",
        "阅读是一种习惯",
    ):
        assert not is_boilerplate(line), line


def test_a_chinese_forums_buttons_floor_labels_and_post_header_are_boilerplate() -> None:
    from extractors.boilerplate import is_boilerplate

    for line in (
        "回复",
        "回复 1",
        "引用",
        "举报",
        "電梯直達",
        "楼主",
        "5楼",
        "3#",
        "发表于 2024-4-5 23:20:45 | 只看该作者 来自 - 贵州遵义 |倒序浏览 |阅读模式",
    ):
        assert is_boilerplate(line), line
    for line in (
        "他回复说，这件事情还需要再研究。",
        "楼主说得很对，我也遇到过同样的问题。",
        "引用本文的观点，我认为他说得对。",
        "沙发",  # a floor's name, but also a sofa
    ):
        assert not is_boilerplate(line), line


def test_chinese_datelines_and_site_footer_lines_are_boilerplate() -> None:
    from extractors.boilerplate import is_boilerplate

    for line in (
        "2011-12-15 20:06 来源：新华社",
        "2024年5月3日 作者：张三",
        "[京ICP证150772号] 增值电信业务经营许可证[京B2-20220663]",
        "京公网安备11010502053733号",
        "违法和不良信息举报电话：010-85651074",
        "新闻爆料热线：021-12345678 一经采用即付稿酬",
        "邮箱：稿件处理 处理时间：9:00—18:00",
        "05-03 10:20 来源：新华社",  # this year's: no year
        "5月3日 10:20 作者：张三",
        "3小时前　来源：新华社",  # relative datelines, alone or before the source
        "昨天 14:20",
        "刚刚",
        "2小时前 · 阅读 1234",
        "分享23",  # a button's count
        "1 点赞 · 0 评论",  # counts before their words, a comment box's sort tabs and header
        "3.2万 阅读 · 12 回复",
        "最热 最新",
        "全部评论（12）",
        "换一换",  # a sidebar's reshuffle button
        "客栈小K | 扫地 | 6天前",  # a post's or a teaser's stamp after its author or source
        "小诺抓 (楼主)10月前",
        "Yahoo財經·19 小時前",
        "本篇新闻热门关键词:",  # a tags line, and "更多关于 <tag> 的新闻" cut at its link
        "关键词：教育 高考",
        "更多关于",
        "的新闻",
        "(本文来自澎湃新闻，更多原创资讯请下载“澎湃新闻”APP)",  # app and mobile promos
        "3g.ifeng.com 用手机随时随地看新闻",
        "看都看完了，点【在看】试试",
        "“年度人物评选”火热进行中！【点击投票】Pick你心目中的商业领袖",  # a bracketed prompt
        "更多精彩内容[点击查看]",
    ):
        assert is_boilerplate(line), line
    for line in (
        "2024年5月3日，国务院总理在人民大会堂会见了来访的客人。",
        "今天天气晴朗，市民纷纷出游。",
        "3小时前，一辆卡车在高速公路上侧翻。",
        "事情发生在3天前。",
        "碳达峰目标：2030年前",  # before a year, not a count of years ago
        "网友爆料称，该店存在虚假宣传。",
        "市民可拨打12388举报电话，进行检举控告。",
        "处理时间较长，直到下午六点才结束。",
        "记者：南方多雨雪天气，北方天气如何？大雾天气是否会继续出现？",  # an interview's question
        "Golang 里面有一个关键词叫做defer，它可以实现延迟调用。",
        "用户可以下载客户端，也可以在网页上使用这项服务。",
        "网友点击率最高的文章【科技】栏目位列第一。",
        "这篇文章有12条评论，3个点赞。",
        "最新的消息是他已经回复了。",
    ):
        assert not is_boilerplate(line), line
    assert is_boilerplate("记者：张三 李四")  # a credit


def test_the_one_timestamp_line_at_the_top_is_a_dateline_but_a_threads_stamps_stay() -> None:
    from extractors.boilerplate import clean_lines

    body = ["Jokowi met Musk in Bali on Monday.", "They shook hands before the meeting."]
    for stamp in ("Senin, 20 Mei 2024 18:04 WIB", "Wednesday, 12 September 2012 10:20"):
        assert clean_lines([stamp, *body]) == body, stamp
    # One stamp per post: a thread's stamps are its content.
    thread = ["Senin, 20 Mei 2024 18:04 WIB", body[0], "Selasa, 21 Mei 2024 09:15 WIB", body[1]]
    assert clean_lines(thread) == thread
    # A stamp deep in the text is not the dateline; nor a sentence with a time.
    late = [*body, *body, *body, "Senin, 20 Mei 2024 18:04 WIB"]
    assert clean_lines(late) == late
    sentence = ["At 10:30 on 3 June 2024 the doors of the new hall opened.", *body]
    assert clean_lines(sentence) == sentence


def test_traditional_character_furniture_is_boilerplate() -> None:
    from extractors.boilerplate import cut_comments, is_boilerplate

    for line in (
        "免責聲明：本文僅代表作者個人觀點",
        "責任編輯：王小明",
        "相關新聞",
        "發佈時間：2012-01-11",
    ):
        assert is_boilerplate(line), line
    assert not is_boilerplate("記者昨天走訪了三家醫院，發現急診室的等候時間都超過兩小時。")
    body = ["醫院表示，今年流感疫苗的接種人數比去年增加了三成，門診量也明顯上升。" * 4]
    assert cut_comments([*body, "網友評論（12條）", "說得好"]) == body


# One line of each kind of English furniture (extractors.boilerplate), as a
# news page prints it around its article.
FURNITURE = {
    "dateline": ["Last updated at 2:07 AM on 14th December 2011", "(PA) – 6 hours ago"],
    "byline": [
        "By Jane Doe Health reporter, The Ledger",
        "By JANE DOE // Ledger News",
        "By Priya Raman · June 1, 2024",
    ],
    "contact": ["jdoe@ledger.example", "To contact the reporter: jdoe@ledger.example"],
    "social": [
        "For updates, follow The Ledger on Twitter",
        "Twitter: @janedoe",
        "Follow me: twitter.com/janedoe",
    ],
    "share": [
        "Share on Facebook",
        "61Click to share on X (Opens in new window)61",
        "Email this article",
        "Like this:",
        "Like Loading...",
        "Share via Email",
    ],
    "credit": [
        "Ann Roe in Leeds contributed to this report.",
        "(Reporting by Jane Doe; Editing by Ann Roe)",
        "--Editors: Ann Roe, Bob Poe",
        "The boathouse will become a museum. Photo: Jane Doe/The Ledger",
    ],
    "prompt": ["Be the first to comment.", "Post your Comment", "Tags: park, budget, council"],
    "control": ["View all", "See more »", "Add to cart", "Tags", "Rate this article:"],
    "form": ["Email address", "Send link", "Email to a friend Printer friendly Opinions"],
}
FURNITURE_PAGE = f"""<html lang="en"><head><title>Council approves park budget</title></head>
<body><ul>{NAV}</ul><article><h1>Council approves park budget</h1>
{"".join(f"<p>{line}</p>" for lines in FURNITURE.values() for line in lines[:1])}
{"".join(f"<p>{p}</p>" for p in PARAS)}
{"".join(f"<p>{line}</p>" for lines in FURNITURE.values() for line in lines[1:])}
</article><ul>{NAV}</ul></body></html>"""


def test_english_furniture_lines_are_boilerplate() -> None:
    from extractors.boilerplate import is_boilerplate

    for kind, lines in FURNITURE.items():
        for line in lines:
            assert is_boilerplate(line), (kind, line)
    # Sentences that only share a word with the furniture stay.
    for line in (
        "By the end of the year, the council said, the playground will be open again.",
        "Unsure how to apply? Residents can write to the council and ask for a form.",
        "Shops like Facebook and Instagram pages are now part of the campaign, she said.",
        "The photo of the old boathouse was taken in 1920 by a local teacher.",
        "Share your thoughts with the council before the meeting, she said.",
        "Email this article to a colleague and ask what they think of the plan, she said.",
        "Follow me into the garden, she said.",
        "print(12345)",  # a line of code in a tutorial
    ):
        assert not is_boilerplate(line), line
    result = extract(FURNITURE_PAGE, url="https://example.com/news/2024/05/03/park.html")
    assert result.lines == PARAS


def test_a_long_comments_header_still_cuts_the_comments() -> None:
    from extractors.boilerplate import cut_comments

    header = (
        "Here's what other readers have said. Why not add your thoughts, "
        "or debate this issue live on our message boards."
    )
    assert cut_comments([*PARAS, header, "Nonsense, all of it. - Ann, Leeds"]) == PARAS


def test_code_blocks_keep_their_lines_and_no_line_rule_reads_inside_them() -> None:
    # A quoted mail in <pre> holds lines that alone would be furniture: a
    # comments header ends the article, "Share this" is boilerplate. Inside
    # a code block they are the article's, as is everything after it.
    mail = "From: Jane Roe\nSubject: the new parser\n\nComments?\nShare this\n  -- Jane"
    page = ARTICLE.replace(
        f"<p>{PARAS[2]}</p>", f"<pre>{mail}</pre><pre>def f():\n    return 1</pre><p>{PARAS[2]}</p>"
    )
    for method in ("auto", "cetd", "awce", "boilerpipe", "layout"):
        text = METHODS[method](page).text
        assert "Subject: the new parser\nComments?\nShare this\n  -- Jane\n" in text, method
        assert "def f():\n    return 1" in text, method
        assert PARAS[3] in text, method
        assert "\u2028" not in text


def test_a_menu_in_a_table_is_still_left_out_by_density() -> None:
    links = "".join(f"<tr><td><a href='/s{i}'>Section {i}</a></td><td><a href='/t{i}'>Topic {i}"
                    "</a></td></tr>" for i in range(6))  # fmt: skip
    page = ARTICLE.replace("<p>Work is", f"<table>{links}</table><p>Work is")
    for method in ("cetd", "scedd"):
        assert "Section 1" not in METHODS[method](page).text, method


def test_every_method_writes_a_data_table_a_row_per_line() -> None:
    # jusText judges a row by its neighbours (a row of prices has no
    # stopwords), boilerpipe reads an icon in a cell as inline: the methods
    # write the same lines, so their agreement is measured on the same units.
    rows = [("Plan", "Monthly price", "Storage"), ("Basic", "$5", "10 GB")]
    rows += [(f"Team {i}", f"${10 * i}", f"{100 * i} GB") for i in range(1, 6)]
    table = "".join(
        "<tr>" + "".join(f"<td><img src=i.png>{c}</td>" for c in row) + "</tr>" for row in rows
    )
    page = ARTICLE
    for p in PARAS:  # long enough for jusText to find good paragraphs
        page = page.replace(f"<p>{p}</p>", f"<p>{p} {p}</p>")
    page = page.replace("<p>Work is", f"<table>{table}</table><p>Work is")
    lines = [" | ".join(row) for row in rows]
    # CETD and SCEDD keep a data table whole although its short cells under
    # many tags are under their density threshold (document.data_table_nodes)
    for method in ("auto", "justext", "awce", "layout", "cetd", "scedd"):
        assert "\n".join(lines) in METHODS[method](page).text, method
    kept = [line for line in METHODS["boilerpipe"](page).text.split("\n") if "|" in line]
    assert len(kept) >= 5 and set(kept) <= set(lines)  # its word rules drop "Basic | $5"


def test_a_named_method_gets_the_pages_metadata_as_auto_does() -> None:
    for method in ("boilerpipe", "justext", "cetd", "awce", "layout", "scedd"):
        result = extract(ARTICLE, method=method, fetched_at="2024-06-01T00:00:00Z")
        assert result.title == "Council approves park budget", method  # no site name
        assert result.published == "2024-05-03T10:20:00+00:00", method
        assert (result.author, result.language) == ("Jane Doe", "en"), method
        assert result.method == method
    assert METHODS["cetd"](ARTICLE).published is None  # the bare algorithm


def test_lead_paragraph_above_the_chosen_body_is_put_back() -> None:
    from extractors.auto import _with_lead

    body = "\n".join(PARAS[1:])
    results = {
        "cetd": Result(text=body),
        "layout": Result(text=body),
        # Block-level: the lead paragraph sits in its own box above the body.
        "boilerpipe": Result(text="\n".join(["Park budget", "By Jane Doe", *PARAS])),
    }
    assert _with_lead(body, results, "cetd", Params()).split("\n") == PARAS
    # A short line right above the body (a byline) ends the lead: nothing added.
    results["boilerpipe"] = Result(text="\n".join([PARAS[0], "By Jane Doe", *PARAS[1:]]))
    assert _with_lead(body, results, "cetd", Params()) == body


def test_a_paragraph_two_others_hold_inside_the_body_is_put_back() -> None:
    from extractors.auto import _with_gaps

    linked = (
        "Read the full budget proposal, the council minutes of the meeting and the "
        "residents' petition about the park for more on the plan."
    )  # mostly link text: CETD's density drops it
    body = "\n".join(PARAS)
    whole = [*PARAS[:2], linked, *PARAS[2:]]
    results = {
        "cetd": Result(text=body),
        "layout": Result(text=body),
        "scedd": Result(text="\n".join(["Photo: AP", *whole])),
        "awce": Result(text="\n".join([*whole, "More stories from the valley and the city"])),
    }
    assert _with_gaps(body, results, "cetd", Params()).split("\n") == whole
    assert _with_gaps(body, results, "cetd", Params(gap_candidates=0)) == body
    # One other is not enough.
    assert _with_gaps(body, {**results, "awce": Result(text=body)}, "cetd", Params()) == body
    # A short line between the two (a caption) is no paragraph.
    short = "\n".join([*PARAS[:2], "Photo: AP", *PARAS[2:]])
    both = {**results, "scedd": Result(text=short), "awce": Result(text=short)}
    assert _with_gaps(body, both, "cetd", Params()) == body
    # Nor is a line the others hold where the chosen body has a line between.
    skips = "\n".join([PARAS[0], linked, PARAS[2]])
    both = {**results, "scedd": Result(text=skips), "awce": Result(text=skips)}
    assert _with_gaps(body, both, "cetd", Params()) == body
    # A block of code (preformatted lines) one other holds is put back: the
    # prose methods all drop it.
    from extractors.text import PRE_BREAK

    code = PRE_BREAK.join(
        ["def park_budget(year):", "    plan = council.plan(year)", "    return plan.total_cost"]
    )
    with_code = [*PARAS[:2], code, *PARAS[2:]]
    one = {"cetd": Result(text=body), "layout": Result(text="\n".join(with_code))}
    assert _with_gaps(body, one, "cetd", Params()).split("\n") == with_code
    # ...however short (two commands: a paragraph's length is no test of code),
    # but not a listing's gutter of line numbers.
    for block, kept in ((f"pip install x{PRE_BREAK}x serve", True), (f" 1{PRE_BREAK} 2", False)):
        lines = [*PARAS[:2], block, *PARAS[2:]]
        one = {"cetd": Result(text=body), "layout": Result(text="\n".join(lines))}
        assert _with_gaps(body, one, "cetd", Params()).split("\n") == (lines if kept else PARAS)


def test_list_items_two_others_hold_inside_the_body_are_put_back() -> None:
    """Short lines are no paragraphs, but the page's list items (not its
    lists of links) are the text's: "The plan includes:" and its items."""
    from extractors.auto import _item_lines, _with_gaps

    items = ["a playground", "two tennis courts", "a dog run"]
    doc = as_document(
        "<html><body><p>x</p><ul>" + "".join(f"<li>{i}</li>" for i in items) + "</ul>"
        "<ul><li><a href='/a'>More parks news</a></li></ul></body></html>"
    )
    listed = _item_lines(doc)
    assert listed == frozenset(items)  # the link is a menu's, not the text's
    body = "\n".join(PARAS)
    whole = [*PARAS[:2], *items, *PARAS[2:]]
    two = {n: Result(text="\n".join(whole)) for n in ("scedd", "awce")}
    results = {"cetd": Result(text=body), **two}
    assert _with_gaps(body, results, "cetd", Params(), items=listed).split("\n") == whole
    assert _with_gaps(body, results, "cetd", Params()) == body  # short lines otherwise
    links = [*PARAS[:2], "More parks news", *PARAS[2:]]
    results = {"cetd": Result(text=body)} | {n: Result(text="\n".join(links)) for n in two}
    assert _with_gaps(body, results, "cetd", Params(), items=listed) == body


def test_a_section_heading_two_others_hold_alone_inside_the_body_is_put_back() -> None:
    """A heading is a short line, but a section's heading that sits alone
    between two lines of the body is the text's; not a heading the page says
    twice (a card's label), one dated to the minute (a comment's header), nor
    one among other dropped lines."""
    from extractors.auto import _heading_lines, _with_gaps

    heading = "What the council decided"
    doc = as_document(
        f"<html><body><h2>{heading}</h2><h3>Read more</h3><p>x</p><h3>Read more</h3>"
        "<h2><a href='/parks'>Parks</a></h2><h3>12 有用 看过 2024-04-07 01:09:42</h3>"
        "<h3>Changes since 2024-04-07</h3></body></html>"
    )
    headings = _heading_lines(doc)
    # said twice, a link or a post's stamp: no section's
    assert headings == frozenset({heading, "Changes since 2024-04-07"})
    body = "\n".join(PARAS)
    whole = [*PARAS[:2], heading, *PARAS[2:]]
    two = {n: Result(text="\n".join(whole)) for n in ("scedd", "awce")}
    results = {"cetd": Result(text=body), **two}
    assert _with_gaps(body, results, "cetd", Params(), headings=headings).split("\n") == whole
    assert _with_gaps(body, results, "cetd", Params()) == body  # a short line otherwise
    crowded = [*PARAS[:2], heading, "Share this story", *PARAS[2:]]
    results = {"cetd": Result(text=body)} | {n: Result(text="\n".join(crowded)) for n in two}
    assert _with_gaps(body, results, "cetd", Params(), headings=headings) == body


def test_a_short_article_keeps_its_section_heading() -> None:
    """SCEDD, taken on a short page, drops a section's heading between the
    paragraphs; the candidates holding it put it back."""
    intro = "The harbour bridge will close for three weekends in March while crews work on it."
    after = "Buses will run every ten minutes between the two banks while the bridge is shut."
    heading = "How to get across"
    page = (f"<html><head><title>Bridge closes</title></head><body><nav><a href=/>Home</a>"
            f"</nav><article><h1>Bridge closes</h1><p>{intro}</p><h2>{heading}</h2>"
            f"<p>{after}</p></article></body></html>")  # fmt: skip
    assert extract(page).text == f"{intro}\n{heading}\n{after}"


def test_a_short_tutorial_keeps_its_commands() -> None:
    """SCEDD, taken on a short page, drops a short code block between the
    paragraphs; the candidates holding it put it back, one line or several."""
    intro = "Install the package from the index first; it needs Python 3.11 or later."
    after = "The server then listens on port 8080 until you stop it, and logs every request."
    for code in ("pip install x", "pip install x\nx serve --port 8080"):
        page = (f"<html><head><title>Serving files</title></head><body><nav><a href=/>Home</a>"
                f"</nav><article><h1>Serving files</h1><p>{intro}</p><pre>{code}</pre>"
                f"<p>{after}</p></article></body></html>")  # fmt: skip
        assert extract(page).text == f"{intro}\n{code}\n{after}"
        off = extract(page, gap_candidates=0).text
        assert code not in off and intro in off


def test_a_body_that_three_candidates_or_two_on_one_node_go_on_past_is_extended() -> None:
    from extractors.auto import _extended

    first, rest = PARAS[:2], PARAS[2:]
    short = "\n".join(first)
    # Three candidates hold the chosen text and go on with its prose (past a
    # code block where the others stopped); the shortest of them is taken.
    results = {
        "boilerpipe": Result(text=short),
        "justext": Result(text=short),
        "cetd": Result(text="\n".join([*first, "$ make install", *rest])),
        "awce": Result(text="\n".join([*first, "$ make install", *rest, PARAS[0] + " Again."])),
        "layout": Result(text="\n".join(["Blog", *first, "$ make install", *rest])),
    }
    doc = as_document("<html><body><p>Text.</p></body></html>")
    assert _extended(doc, results, "boilerpipe", Params()) == "cetd"
    # Two are not enough: the candidates split two against four...
    del results["layout"]
    assert _extended(doc, results, "boilerpipe", Params()) is None
    # ...unless the two found one and the same node: two methods agree on it.
    body = doc.body[0]
    same = {n: Result(text=results[n].text, node=body) for n in ("cetd", "awce")}
    assert _extended(doc, {**results, **same}, "boilerpipe", Params()) == "cetd"
    # On a forum thread's page one is enough: the methods that take the
    # densest box took one post, and the other's longer text is the thread.
    del results["awce"]
    assert _extended(doc, results, "boilerpipe", Params()) is None
    assert _extended(doc, results, "boilerpipe", Params(), thread_page=True) == "cetd"
    assert (
        _extended(doc, results, "boilerpipe", Params(extend_thread_candidates=2), thread_page=True)
        is None
    )
    # Replies are often one short line: a quarter of the rest in long lines
    # does there (an article's extension needs half).
    replies = [PARAS[2], *(f"Same here, reply number {i}." for i in range(9))]
    results["cetd"] = Result(text="\n".join([*first, *replies]))
    assert _extended(doc, results, "boilerpipe", Params(), thread_page=True) == "cetd"
    assert (
        _extended(
            doc, results, "boilerpipe", Params(extend_thread_long_share=0.5), thread_page=True
        )
        is None
    )
    # Going on with short linked lines (a list of other stories) is no extension.
    links = [f"Other story number {i}" for i in range(40)]
    results = {
        "boilerpipe": Result(text=short),
        **{n: Result(text="\n".join([*first, *links])) for n in ("cetd", "awce", "layout")},
    }
    assert _extended(doc, results, "boilerpipe", Params()) is None
    assert _extended(doc, results, "boilerpipe", Params(extend_candidates=0)) is None


def test_paragraphs_beside_the_records_mark_an_article() -> None:
    from extractors.auto import _paragraphs_beside

    many = 99
    assert _paragraphs_beside("\n".join(ITEMS), ITEMS, many) == 0  # a list page: all in records
    assert _paragraphs_beside("\n".join([*PARAS, *ITEMS]), ITEMS, many) == len(PARAS)
    assert _paragraphs_beside("\n".join([*PARAS, *ITEMS]), ITEMS, 2) == 2  # counted up to 2
    # A "record" that is the article's whole box is no entry.
    assert _paragraphs_beside("\n".join(PARAS), [" ".join(PARAS), *ITEMS], many) == len(PARAS)


def test_paragraphs_beside_are_found_in_any_order() -> None:
    """Lines are looked for from the entry that held the line before (page
    order: one pass over a list of thousands), then from the top: a line
    whose entry came earlier is still held."""
    from extractors.auto import _paragraphs_beside

    entries = [
        f"Entry {i}: a headline of a post and the teaser that follows it." for i in range(3000)
    ]
    shuffled = [entries[2999], *entries[:2999], entries[0]]
    assert _paragraphs_beside("\n".join(shuffled), entries, 3) == 0
    assert _paragraphs_beside("\n".join([*entries, *PARAS]), entries, 99) == len(PARAS)


def test_list_page_gives_records() -> None:
    result = extract(LISTING, url="https://example.com/news/")
    assert result.page_type is PageType.LIST
    assert result.method == "auto:list"
    urls = [r.url for r in result.records]
    assert len(urls) == len(ITEMS)
    assert urls[0] == "https://example.com/news/0.html"
    assert result.lines[0].startswith(ITEMS[0])


def test_a_list_page_gives_the_records_of_each_of_its_lists() -> None:
    featured = "".join(
        f'<div class="card"><a href="/guides/{i}.html">Guide {i} to what happened in the valley'
        f"</a><p>Why guide {i} matters.</p><span>2024-04-{i + 1:02d}</span></div>"
        for i in range(9)
    )
    page = LISTING.replace("<h1>News</h1>", f'<h1>News</h1><div class="featured">{featured}</div>')
    result = extract(page, url="https://example.com/news/")
    assert result.page_type is PageType.LIST
    regions = [(r.region, r.url.rsplit("/", 2)[1]) for r in result.records if r.url]
    assert regions == [(1, "guides")] * 9 + [(0, "news")] * len(ITEMS)


def _front_page(lead_headline: str) -> str:
    sections = "".join(
        f'<section><h2><a href="/s{s}/">Section {s}</a></h2><ul>'
        + "".join(
            f'<li><a href="/s{s}/{i}.html">{ITEMS[s * 3 + i]}</a> <span>2024-05-0{i + 1}</span>'
            "</li>"
            for i in range(3)
        )
        + "</ul></section>"
        for s in range(3)
    )
    return f"""<html><head><title>The Ledger</title></head><body><ul class="menu">{NAV}</ul>
<main><section class="lead"><h2>{lead_headline}</h2><p>{PARAS[0]}</p></section>{sections}</main>
</body></html>"""


def _shop_category(cards: int) -> str:
    """A category page: a short intro paragraph above a grid of product cards."""
    grid = "".join(
        f'<div class="card"><a href="/shop/item-{i}.html">Blue ceramic mug number {i}</a>'
        f"<span>${10 + i}.00</span></div>"
        for i in range(cards)
    )
    return f"""<html><head><title>Mugs - The Shop</title></head><body><ul class="menu">{NAV}</ul>
<main><h1>Mugs</h1><div class="intro"><p>{PARAS[0][:100]}</p></div>
<div class="grid">{grid}</div></main></body></html>"""


def test_a_list_the_dom_model_is_sure_of_needs_no_disagreement() -> None:
    """The article methods agree on the intro paragraph; the DOM model is
    99% sure of a list, and the page has no long paragraphs: a list."""
    url = "https://example.com/mugs/"
    page = _shop_category(24)
    sure = extract(page, url=url, list_tiny_body_chars=0)
    assert sure.page_type is PageType.LIST and len(sure.records) == 24
    off = extract(page, url=url, list_tiny_body_chars=0, list_sure_probability=2)
    assert off.page_type is PageType.ARTICLE
    # Fewer cards, no prices: the model is not sure and the agreed intro
    # wins. With their prices, the same eight cards are a shop's grid, and
    # so they are under an address naming the shop's index.
    unpriced = _shop_category(8).replace("$", "")
    assert extract(unpriced, url=url).page_type is PageType.ARTICLE
    assert extract(_shop_category(8), url=url).page_type is PageType.LIST
    assert extract(unpriced, url="https://example.com/shop/mugs/").page_type is PageType.LIST


def _section_page() -> str:
    """A section's page: a one-line description above six linked headlines."""
    stories = "".join(
        f'<li class="story"><h3><a href="/story/{i}-headline-of-the-day/">{ITEMS[i]}</a></h3></li>'
        for i in range(6)
    )
    return f"""<html><head><title>Vehicle rental - The Ledger</title></head><body>
<ul class="menu">{NAV}</ul><div class="head"><h1>Vehicle rental</h1><div class="desc">
<p>Stay up to date with our vehicle rental coverage.</p></div></div>
<ul class="stories">{stories}</ul></body></html>"""


def test_a_section_whose_methods_agree_on_its_one_line_description_is_a_list() -> None:
    """Every article method takes the section's one-line description; six
    linked headlines hold many times its text: the page lists them."""
    page = _section_page()
    url = "https://example.com/vehicle-rental/"
    result = extract(page, url=url)
    assert result.page_type is PageType.LIST and len(result.records) == 6
    off = extract(page, url=url, list_tiny_body_chars=0)
    assert off.page_type is PageType.ARTICLE and off.text.startswith("Stay up to date")


def test_a_dated_post_is_an_article_whatever_lists_stand_beside_it() -> None:
    """The section page above and a paginated list's last page are lists at
    their own URLs; at a dated post's permalink the same markup is one
    entry of a blog or a news site, and stays an article."""
    from extractors.classify import names_a_post

    for url in (
        "https://example.com/2024/05/03/vehicle-rental-news-roundup/",
        "https://example.com/2013/06/some_title.html",
        "https://blog.example.com/?p=3289",
    ):
        assert names_a_post(url), url
    for url in (
        "https://example.com/2024/05/",  # a month's archive: a list
        "https://example.com/topics/vehicle-rental/",
        "https://news.example.cn/2012/0112/123456.shtml",  # no slug: unsure
        None,
    ):
        assert not names_a_post(url), url
    page = _section_page()
    assert extract(page, url="https://example.com/topics/vehicle-rental/").page_type is (
        PageType.LIST
    )
    post = extract(page, url="https://example.com/2024/05/03/vehicle-rental-news-roundup/")
    assert post.page_type is PageType.ARTICLE and post.text.startswith("Stay up to date")
    assert extract(_last_page(1), url="https://example.com/news/page/3/").page_type is (
        PageType.LIST
    )
    teaser = extract(_last_page(1), url="https://example.com/2024/05/01/council-votes-today/")
    assert teaser.page_type is PageType.ARTICLE


def test_a_forum_threads_address_is_an_article_whatever_lists_stand_beside_it() -> None:
    """Forum software names a thread's page so (viewtopic, viewthread,
    showthread, /threads/, a topic's number): the same markup as a section page stays one
    thread there; a board's index does not name a thread."""
    from extractors.classify import names_a_thread

    for url in (
        "https://bbs.example.org/viewtopic.php?id=298271",
        "https://bbs.example.cn/forum.php?mod=viewthread&tid=38672",
        "https://forum.example.com/showthread.php?t=186269",
        "https://forums.example.com/threads/new-tank-thoughts.32375893/",
        "https://community.example.io/t/start-making-my-home-smart/724779",
        "https://bbs.example.top/topic/detail/1102",
    ):
        assert names_a_thread(url), url
    for url in (
        "https://bbs.example.org/viewforum.php?id=23",
        "https://forums.example.com/forums/reef-tanks.12/",
        "https://example.com/topics/vehicle-rental/",
        "https://news.example.edu/topic/software",  # a news site's topic: a list
        "https://www.example.com/t/pegasus-41-road-running-shoes-LMhfRGdO",  # a product
        None,
    ):
        assert not names_a_thread(url), url
    page = _section_page()
    thread = extract(page, url="https://forums.example.com/threads/vehicle-rental.123/")
    assert thread.page_type is PageType.ARTICLE and thread.text.startswith("Stay up to date")


def test_a_headline_list_under_its_heading_is_a_list() -> None:
    """SCEDD's consensus starts at the heading above the list, so its node
    is the heading, outside the list: the list is still the main content,
    as most of the consensus text is its entries (long headlines are not
    an article's paragraphs)."""
    entries = "".join(
        f'<li><a href="/news/2024/05/{i + 1:02d}/story-{i}.html">Headline {i}: council votes '
        f"on plan number {i} for the town centre</a><span>2024-05-{i + 1:02d}</span></li>"
        for i in range(20)
    )
    side = "".join(f'<li><a href="/popular/{i}.html">Popular story {i}</a></li>' for i in range(6))
    page = f"""<html><head><title>News</title></head><body><ul class="menu">{NAV}</ul>
<h1>Latest news</h1><ul class="list">{entries}</ul><div class="side"><h3>Most read</h3>
<ul>{side}</ul></div><div class="footer">© 2024 Example Media <a href="/terms">Terms</a></div>
</body></html>"""
    result = extract(page)
    assert result.page_type is PageType.LIST and len(result.records) == 20
    assert all(r.date for r in result.records)


def test_a_front_page_with_a_lead_story_teaser_is_a_list() -> None:
    """Every article method agrees on the lead story's one paragraph; its
    headline links to the story, so it is a teaser and the page a list."""
    from extractors.auto import _is_teaser

    url = "https://example.com/"
    result = extract(_front_page('<a href="/lead.html">Council approves park budget</a>'), url=url)
    assert result.page_type is PageType.LIST
    assert [r.url for r in result.records][:3] == [f"{url}s0/{i}.html" for i in range(3)]
    # An article's own headline is plain, or links to the page itself.
    doc = as_document(_front_page("Council approves park budget"), url)
    lead = doc.body.find(".//p")
    assert not _is_teaser(lead, url, Params())
    doc = as_document(_front_page('<a href="/#top">Council approves park budget</a>'), url)
    assert not _is_teaser(doc.body.find(".//p"), url, Params())
    doc = as_document(_front_page('<a href="/lead.html">Council approves park budget</a>'), url)
    assert _is_teaser(doc.body.find(".//p"), url, Params())


def _last_page(entries: int, link: bool = True) -> str:
    """The last page of a paginated list: one or two entries and a sidebar."""
    items = "".join(
        f'<li class="item"><h2>{f"<a href=/news/{i}.html>" if link else ""}{ITEMS[i]}'
        f'{"</a>" if link else ""}</h2><span class="date">2024-05-0{i + 1}</span>'
        f"<p>{PARAS[i][:150]}</p></li>"
        for i in range(entries)
    )
    popular = "".join(f"<li><a href=/news/{i}.html>{ITEMS[i][:24]}</a></li>" for i in range(5, 10))
    return f"""<html><head><title>News, page 3 - The Ledger</title></head><body>
<ul class="menu">{NAV}</ul><main><h1>News</h1><ul class="article-list">{items}</ul>
<nav class="pagination"><a rel="prev" href="/news/page/2/">Previous</a> <a href="/news/">1</a>
<a href="/news/page/2/">2</a> <span>3</span></nav></main>
<aside><h3>Most read</h3><ol>{popular}</ol></aside></body></html>"""


def test_the_last_page_of_a_list_gives_its_few_entries() -> None:
    """Too few entries for a record group: the body's linked headline and its
    like siblings are the records, not the sidebar's links."""
    url = "https://example.com/news/page/3/"
    for n in (1, 2):
        result = extract(_last_page(n), url=url)
        assert result.page_type is PageType.LIST, n
        assert [r.url for r in result.records] == [
            f"https://example.com/news/{i}.html" for i in range(n)
        ]
        assert result.records[0].title == ITEMS[0]
        assert result.records[0].date == "2024-05-01"
    # A plain headline is no teaser: the page stays an article.
    assert extract(_last_page(1, link=False), url=url).page_type is PageType.ARTICLE


def test_one_teaser_on_a_page_of_a_series_is_a_list() -> None:
    """The demo's last Chinese news page holds one entry under a linked
    headline and a rel=prev pager; the DOM model calls it an article (one
    record is no group), the pager makes it the last page of a list."""
    page = (Path(__file__).parents[1] / "demo/web/zh/news/page/2/index.html").read_text("utf-8")
    url = "http://127.0.0.1:8000/news/page/2/"
    result = extract(page, url=url)
    assert result.page_type is PageType.LIST
    assert [r.url for r in result.records] == ["http://127.0.0.1:8000/news/20240503/231045.html"]
    assert extract(page, url=url, teaser_alone_when_paged=False).page_type is PageType.ARTICLE


def _story_beside_its_siblings() -> str:
    """A short story with a long "most read" list of other stories beside it."""
    popular = "".join(
        f'<li class="item"><a href="/news/2024/05/{1000 + i}.html">{ITEMS[i]}</a>'
        f"<span>2024-05-{i + 1:02d}</span></li>"
        for i in range(20)
    )
    return f"""<html><head><title>Park budget - The Ledger</title></head><body>
<ul class="menu">{NAV}</ul><div class="story"><h1>Park budget</h1><p>{PARAS[0][:60]}</p></div>
<div class="side"><h3>Most read</h3><ul class="articles">{popular}</ul></div></body></html>"""


def test_a_page_whose_records_are_its_siblings_is_an_article() -> None:
    """The DOM model calls the page a list (its records outweigh its story),
    but its URL has the shape of the records' links: it is one of them."""
    page = _story_beside_its_siblings()
    item = extract(page, url="https://example.com/news/2024/05/999.html")
    assert item.page_type is PageType.ARTICLE
    assert item.text.startswith(PARAS[0][:40])
    # Without the rule, or at a section's URL, the same page is a list.
    off = extract(page, url="https://example.com/news/2024/05/999.html", list_sibling_share=2)
    assert off.page_type is PageType.LIST
    assert extract(page, url="https://example.com/news/").page_type is PageType.LIST


def test_records_linking_back_into_the_page_are_its_own_parts() -> None:
    """Comments (or a table of contents) link to anchors of the page itself."""
    from extractors.auto import _lists_itself
    from extractors.result import Record

    url = "https://example.com/blog/"
    doc = as_document(LISTING, url)
    comments = [Record(text=ITEMS[i], url=f"{url}#comment-{i}") for i in range(5)]
    assert _lists_itself(doc, url, comments, Params())
    others = [Record(text=ITEMS[i], url=f"{url}post-{i}-of-the-week/") for i in range(5)]
    assert not _lists_itself(doc, url, others, Params())
    assert not _lists_itself(doc, url, comments[:1] + others, Params())


def test_url_shape_names_items_and_indexes() -> None:
    from extractors.classify import url_shape

    item = url_shape("https://www.example.com/news/2024/05/999.html")
    assert item == ("example.com", ("news", "*", "*", "*"), ())
    assert url_shape("https://example.com/news/2024/05/1000.html") == item
    assert url_shape("https://example.com/news/how-the-park-budget-passed/") != item
    assert url_shape("https://example.com/news/") is None  # one level: section or item
    assert url_shape("https://example.com/news/world/") == ("example.com", ("news", "world"), ())
    assert url_shape("https://example.com/news/list_2.html") is None  # an index page
    # The query names the item only when the path does not.
    assert url_shape("https://example.com/a/1.html?utm_source=x") == ("example.com", ("a", "*"), ())
    assert url_shape("https://example.com/show.php?id=3")[2] == ("id",)
    assert url_shape("not a url") is None
    # A site's portals are one site; a public second level is no site.
    portal = url_shape("http://economy.ledger.com.cn/20240520/5012641.shtml")
    assert portal == url_shape("http://stock.ledger.com.cn/20191129/4630256.shtml")
    assert portal != url_shape("http://economy.other.com.cn/20240520/5012641.shtml")
    assert url_shape("https://news.bbc.co.uk/a/1")[0] == "bbc.co.uk"
    assert url_shape("http://127.0.0.1:8000/a/1")[0] == "127.0.0.1"


def test_a_table_row_holding_the_story_is_no_record() -> None:
    """A table-laid-out page: its rows make a record group, one row holds the
    whole story and links nowhere, or outweighs the other rows; the page is
    the story, not a list."""
    from extractors.auto import _body_in_record
    from extractors.result import Record

    story = "\n".join(PARAS[:2])
    rows = [Record(text=ITEMS[i], url=f"https://example.com/{i}.html") for i in range(8)]
    assert not _body_in_record(story, rows, Params())
    with_story = [Record(text="Posted 2024-05-03"), Record(text=" ".join(PARAS[:2])), *rows]
    assert _body_in_record(story, with_story, Params())
    # A linked record holding it among like entries is an entry (a teaser)...
    linked = [Record(text=" ".join(PARAS[:2]), url="https://example.com/s.html"), *rows]
    assert not _body_in_record(story, linked, Params())
    # ...but not when it outweighs the other rows together (menu, story,
    # footer rows of a table layout, the story's headline linked).
    menu = [Record(text="Home | News | Sport", url="https://example.com/")]
    laid_out = [*menu, Record(text=" ".join(PARAS[:2]), url="https://example.com/s.html"), *menu]
    assert _body_in_record(story, laid_out, Params())


def test_medoid_picks_the_output_others_agree_with() -> None:
    good = "\n".join(PARAS)
    results = {
        "a": Result(text=good),
        "b": Result(text=good + "\nRelated: other story"),
        "c": Result(text="Menu\nHome\nContact"),
        "d": Result(text=""),
    }
    best, agreement = medoid(results)
    assert best == "a" and agreement > 0.3
    assert medoid({"x": Result(text="")}) == (None, 0.0)


def test_params_override_and_fixed_candidates() -> None:
    result = extract(ARTICLE, candidates=("cetd",))
    assert result.method == "auto:cetd"
    result = extract(ARTICLE, params=Params(candidates=("awce", "cetd"), clean=False))
    assert "Copyright" in result.text


def test_the_second_round_runs_only_when_the_first_disagrees(monkeypatch) -> None:
    import extractors.auto as auto

    ran: list[str] = []
    call = auto._call
    monkeypatch.setattr(auto, "_call", lambda name, *a: ran.append(name) or call(name, *a))
    first = extract(ARTICLE)
    assert ran == ["cetd", "scedd", "awce", "layout", "justext"]  # they agree on the body
    ran.clear()
    assert extract(ARTICLE, first_round_agreement=1.1).text == first.text
    assert ran == list(Params().candidates)
    ran.clear()
    # One method alone is no consensus. (The page-type model then reads the
    # default voters' consensus: the three not run yet follow.)
    extract(ARTICLE, candidates=("cetd", "awce"), first_round=1)
    assert ran == ["cetd", "awce", "scedd", "layout", "justext"]


def test_shared_document_is_not_mutated() -> None:
    doc = as_document(ARTICLE)
    before = len(doc.stats)
    extract(doc)
    extract(doc)
    assert len(list(doc.root.iter())) == before


def test_empty_and_garbage_give_empty_results_quickly() -> None:
    for junk in ("", b"", b"\x00\xff\xfe" * 1000, "<html></html>", "<div>" * 10_000, "just text"):
        started = time.monotonic()
        result = extract(junk)
        assert isinstance(result, Result)
        assert time.monotonic() - started < 5
    assert extract("").text == "" and extract("").page_type is PageType.OTHER


def test_a_page_its_scripts_would_fill_keeps_what_its_head_declares() -> None:
    html = (
        "<html lang='en'><head><title>Where should I start? - Help - Example Forum</title>"
        "<meta property='og:title' content='Where should I start?'>"
        "<meta property='article:published_time' content='2018-09-16T20:53:14+00:00'>"
        "<meta name='author' content='Jane Roe'>"
        "<meta property='og:image' content='/uploads/cover.png'></head>"
        "<body><div id='app'></div><script>render()</script></body></html>"
    )
    result = extract(html, url="https://forum.example.org/t/start/68911")
    assert result.text == "" and result.page_type is PageType.OTHER
    assert result.title == "Where should I start?"
    assert result.published == "2018-09-16T20:53:14+00:00"
    assert result.author == "Jane Roe" and result.language == "en"
    assert result.image == "https://forum.example.org/uploads/cover.png"


@settings(max_examples=15, deadline=None)
@given(st.one_of(st.binary(max_size=2000), st.text(max_size=2000)))
def test_never_raises_on_arbitrary_input(data: bytes | str) -> None:
    result = extract(data)
    assert isinstance(result.text, str)


def test_the_declared_article_body_overrules_a_disagreeing_choice() -> None:
    import json

    from extractors.auto import _declared_choice

    data = {"@type": "NewsArticle", "articleBody": " ".join(PARAS)}
    html = (
        f"<html><head><script type='application/ld+json'>{json.dumps(data)}</script></head>"
        f"<body>{''.join(f'<p>{p}</p>' for p in PARAS)}</body></html>"
    )
    doc = as_document(html)
    teaser = "Other stories: the market closes higher as traders weigh the news of the week."
    results = {"cetd": Result(text=teaser), "layout": Result(text="\n".join(PARAS))}
    assert _declared_choice(doc, teaser, results, Params()) == "layout"
    # Agreeing already, or off, or no declaration: nothing changes.
    assert _declared_choice(doc, "\n".join(PARAS), results, Params()) is None
    assert _declared_choice(doc, teaser, results, Params(declared_min_f1=2.0)) is None
    plain = as_document(html.replace("articleBody", "description"))
    assert _declared_choice(plain, teaser, results, Params()) is None


def test_a_declared_product_description_overrules_a_choice_without_it() -> None:
    import json

    from extractors.auto import _described_choice

    about = " ".join(PARAS[:2])
    data = {"@type": ["Product"], "name": "Park bench", "description": f"<p>{about}</p>"}
    reviews = "Great bench, five stars!\nArrived late but sturdy.\nWould buy again, love it."
    html = (
        f"<html><head><script type='application/ld+json'>{json.dumps(data)}</script></head>"
        f"<body><div>{''.join(f'<p>{p}</p>' for p in PARAS)}</div>"
        f"<ul>{''.join(f'<li>{r}</li>' for r in reviews.split(chr(10)))}</ul></body></html>"
    )
    doc = as_document(html)
    full = "\n".join(PARAS)
    results = {
        "cetd": Result(text=reviews),
        "awce": Result(text=reviews),
        "justext": Result(text="\n".join(PARAS[:2])),  # the description alone
        "layout": Result(text=full),
        "scedd": Result(text=full),
    }
    p = Params(candidates=tuple(results))
    # Of the candidates holding the description, the one the others agree with.
    assert _described_choice(doc, None, reviews, results, p)[0] in {"layout", "scedd"}
    # Holding it already, or off, or a page that declares no product: no change.
    assert _described_choice(doc, None, full, results, p) is None
    off = Params(candidates=tuple(results), described_held=2.0)
    assert _described_choice(doc, None, reviews, results, off) is None
    article = as_document(html.replace('["Product"]', '"NewsArticle"'))
    assert _described_choice(article, None, reviews, results, p) is None
    # A candidate the cascade skipped is run for it.
    asked = Params(candidates=("cetd", "boilerpipe"))
    name, found = _described_choice(doc, None, reviews, {"cetd": results["cetd"]}, asked)
    assert name == "boilerpipe" and PARAS[0] in found.text


FEATURES = [
    ("Fast builds", "Every commit is built in seconds on machines close to your team."),
    ("Clear reports", "Failures point at the line that broke, with the log around it."),
    ("Safe deploys", "Each release goes out to a few users first and rolls back by itself."),
    ("Fair pricing", "Pay for the minutes you use, with a free tier for open source work."),
    ("Your cloud", "Run the workers in your own account when the code must not leave it."),
    ("Real support", "Engineers who wrote the service answer your questions within the hour."),
]
LANDING = (
    "<html lang='en'><head><title>Buildly - CI for teams</title></head><body>"
    f"<header><ul>{NAV}</ul></header><main><section id='hero'><h1>Ship with confidence</h1>"
    f"<div>{''.join(f'<p>{p}</p>' for p in PARAS[:2])}</div></section>"
    f"{''.join(f'<section><h2>{h}</h2><p>{t}</p></section>' for h, t in FEATURES)}</main>"
    f"<footer><ul>{NAV}</ul></footer></body></html>"
)


def _whole_box_lines(rule: Any, html: str, chosen: str, text: str, **overrides: float) -> Any:
    """The lines a whole-box rule of auto takes when the element of id
    ``chosen`` gave ``text``, or None."""
    doc = as_document(html)
    got = rule(doc, doc.root.get_element_by_id(chosen), text, Params(**overrides))
    return got[1] if got else None


def test_one_section_of_a_landing_page_brings_the_whole_main() -> None:
    from extractors.auto import _landing_main

    def found(html: str, **overrides: float) -> list[str] | None:
        return _whole_box_lines(_landing_main, html, "hero", "\n".join(PARAS[:2]), **overrides)

    lines = found(LANDING)
    assert lines is not None and PARAS[0] in lines
    assert all(h in lines and t in lines for h, t in FEATURES)
    # Off; most of the main chosen already; no main, or two; declared an
    # article; link-heavy (a grid of teasers); comments in it: no change.
    assert found(LANDING, landing_max_share=0) is None
    assert found(LANDING, landing_max_share=0.1) is None
    assert found(LANDING.replace("<main>", "<div>").replace("</main>", "</div>")) is None
    assert found(LANDING.replace("<footer>", "<footer role='main'>")) is None
    article = "<head><meta property='og:type' content='article'>"
    assert found(LANDING.replace("<head>", article)) is None
    linked = LANDING.replace("<p>Every", "<p><a href='/a'>Every").replace("team.", "team.</a>")
    assert found(linked, landing_max_link_density=0.05) is None
    comments = LANDING.replace("<section><h2>Real", "<section class='comments'><h2>Real")
    assert found(comments) is None
    # The chosen body inside an <article> of the main: the article is the page's.
    story = LANDING.replace("<section id='hero'>", "<article><section id='hero'>")
    story = story.replace("</section><section><h2>Fast", "</section></article><section><h2>Fast")
    assert found(story) is None


def test_a_block_drawn_twice_in_a_row_is_kept_once() -> None:
    from extractors.boilerplate import clean_lines, drop_repeated_runs

    block = ["Alignment", "Get business units working in harmony", PARAS[0]]
    assert drop_repeated_runs([PARAS[1], *block, *block, PARAS[2]]) == [PARAS[1], *block, PARAS[2]]
    assert clean_lines([*block, *block, *block]) == block
    # Two lines repeated (a refrain), or a block repeated further on, stay.
    pair = [PARAS[0], PARAS[1]]
    assert drop_repeated_runs([*pair, *pair]) == [*pair, *pair]
    assert drop_repeated_runs([*block, PARAS[3], *block]) == [*block, PARAS[3], *block]


def test_each_card_of_a_grid_drawn_twice_is_kept_once() -> None:
    from extractors.boilerplate import clean_lines, drop_doubled_lines

    cards = [[f"Case study {n}", f"How a client of ours grew {n}0% in a year."] for n in range(3)]
    doubled = [line for card in cards for line in (*card, *card)]
    assert drop_doubled_lines(doubled) == [line for card in cards for line in card]
    assert clean_lines([PARAS[0], *[t for t, _ in cards for _ in (0, 1)]]) == [
        PARAS[0],
        *[t for t, _ in cards],
    ]
    # One or two doubled blocks in a row stay (a refrain, a quote repeated).
    two = doubled[:8]
    assert drop_doubled_lines(two) == two
    assert drop_doubled_lines([PARAS[0], PARAS[0], PARAS[1]]) == [PARAS[0], PARAS[0], PARAS[1]]


def test_one_paragraph_said_again_and_again_is_kept_every_time() -> None:
    """A refrain six times over is no block drawn twice: before, each of the
    two rules halved it."""
    from extractors.boilerplate import drop_doubled_lines, drop_repeated_runs

    refrain = [PARAS[0]] * 6
    assert drop_repeated_runs(refrain) == refrain
    assert drop_doubled_lines(refrain) == refrain
    html = "<html><head><title>Refrain</title></head><body><article><h1>Refrain</h1>"
    html += "".join(f"<p>{line}</p>" for line in refrain) + "</article></body></html>"
    assert extract(html).text.splitlines() == refrain


def test_a_sure_list_with_long_descriptions_and_an_intro_is_a_list() -> None:
    """A directory page: an intro of long paragraphs above records with long
    descriptions. The methods' body has many long lines, which alone would
    mark an article with link lists around it; a model sure of a list has
    weighed them (it reads the long lines and the agreement itself)."""
    records = "".join(
        f'<div class="entry"><h3><a href="/dir/{i}.html">Riverside clinic number {i}</a></h3>'
        f"<p>Open weekdays from eight to six, this practice offers family medicine, "
        f"vaccinations and physiotherapy (entry {i}).</p></div>"
        for i in range(20)
    )
    intro = "".join(f"<p>{p}</p>" for p in PARAS[:3])
    page = f"""<html><head><title>Clinics</title></head><body><ul class="menu">{NAV}</ul>
<main><h1>Clinics in Riverton</h1><div class="intro">{intro}</div>
<div class="entries">{records}</div></main></body></html>"""
    url = "https://example.com/dir/"
    sure = Classification(PageType.LIST, 0.995, LengthClass.LONG, 0.995)
    result = extract(page, url=url, classification=sure)
    assert result.page_type is PageType.LIST and len(result.records) == 20
    off = extract(page, url=url, classification=sure, list_sure_probability=2)
    assert off.page_type is PageType.ARTICLE


def test_a_refinement_that_raises_is_skipped_and_the_page_keeps_its_text(
    monkeypatch, caplog
) -> None:
    """auto's steps after the candidates (a landing page's main, the
    declared body, a thread's posts...) are refinements: one raising on an
    odd page is logged and skipped, as a failing voter is, and the page is
    not lost."""
    import extractors.auto as auto

    def broken(name: str):
        def step(*args: object) -> None:
            raise RuntimeError(f"{name} broke")

        step.__name__ = name
        return step

    plain = extract(ARTICLE, markup_max_agreement=1.01)  # every step asked
    steps = ["_landing_main", "_declared_choice", "_described_choice", "thread_posts"]
    steps += ["_extended", "numbered_parts", "_with_ingredients", "_markup_body"]
    for step in steps:
        with monkeypatch.context() as patch:
            patch.setattr(auto, step, broken(step))
            caplog.clear()
            got = extract(ARTICLE, markup_max_agreement=1.01)
        assert got.text == plain.text and got.page_type is PageType.ARTICLE, step
        assert any(step in r.getMessage() for r in caplog.records), step
    with monkeypatch.context() as patch:
        patch.setattr(auto, "_list_route", broken("_list_route"))
        patch.setattr(auto, "_teaser_list", broken("_teaser_list"))
        caplog.clear()
        listed = extract(LISTING)
    # No list route: the page falls back to the article methods' choice.
    assert listed.page_type is not PageType.LIST and "_list_route" in caplog.text


def test_a_grid_above_a_folded_buying_guide_is_a_list() -> None:
    """A category page's buying guide folded into an accordion is text (the
    Document keeps collapsed panels), but the page as first shown is its
    grid: the type decision reads it without the folded lines. Unfolded,
    the same guide makes the page an article (the cards show no prices:
    24 priced cards are a shop's grid whatever text follows them)."""
    url = "https://example.com/mugs/"
    topics = ("size", "glaze", "handle")
    parts = zip(topics, PARAS[1:4], strict=True)
    guide = "".join(f"<h3>Choosing by {t}</h3><p>{p}</p>" for t, p in parts)

    def page(hidden: str) -> str:
        box = f'<button aria-controls="g1">Buying guide</button><div id="g1"{hidden}>{guide}</div>'
        return _shop_category(24).replace("$", "").replace("</main>", f"{box}</main>")

    folded = extract(page(" hidden"), url=url)
    assert folded.page_type is PageType.LIST and len(folded.records) == 24
    assert extract(page(""), url=url).page_type is PageType.ARTICLE


def _forum_page_with_a_long_footer(footer_open: str, footer_close: str) -> str:
    post = (
        "我的电脑分辨率是2560*1440，登录游戏全屏显示有的地方我看不到了，"
        "就是把游戏界面放大了那种，我调了分辨率都没用。这是什么问题啊？"
        "另一个游戏全屏显示都没有任何问题，驱动也更新过了。"
    )
    legal = [
        "Copyright © 2024 Example Games Corporation & Example Studio Corporation, Licensed to "
        "Example Posts & Telecommunications Technology Co., Ltd., in China. All Rights Reserved.",
        "Example Game and Example Game Online are trademarks and/or registered trademarks of "
        "Example Studio Corporation in the United States and other countries.",
        "上海示例科技有限公司 版权所有 不良信息举报电话：021-00000000 "
        "全国文化市场统一举报电话：12318",
    ]
    return (
        "<html><head><title>游戏全屏问题，希望大家能出个主意 - 论坛</title></head><body>"
        '<div class="hd"><a href="/">首页</a> <a href="/forum">论坛</a></div>'
        '<table class="plhin"><tr><td class="pls">新手上路 积分 5</td>'
        '<td class="plc"><h1>游戏全屏问题，希望大家能出个主意！！</h1>'
        f'<div class="t_fsz"><table><tr><td class="t_f">{post}</td></tr></table></div>'
        "</td></tr></table>"
        f'{footer_open}<div class="cr_con"><div class="cr_address">'
        + "".join(f"<p>{line}</p>" for line in legal)
        + f"</div></div>{footer_close}</body></html>"
    )


def test_the_legal_lines_of_a_page_footer_are_no_body_for_a_short_post() -> None:
    """Every first-round method takes the long copyright footer of a page
    whose post is short. A candidate inside a box named footer or copyright
    (with the rest of the page above it) does not vote, and the methods left
    out of the first round are asked; a box merely beside the footer is no
    footer."""
    for box, end in (('<div class="copyRight">', "</div>"), ("<footer>", "</footer>")):
        result = extract(_forum_page_with_a_long_footer(box, end))
        assert "我的电脑分辨率是2560*1440" in result.text, (box, result.method)
    beside = extract(_forum_page_with_a_long_footer('<div class="above-footer">', "</div>"))
    assert "分辨率" not in beside.text and "trademarks" in beside.text


def _story_holding_its_footer(footer_class: str) -> str:
    """A page with no article or main element: the story's paragraphs and a
    box of address and disclaimer lines share one wrapper."""
    disclaimer = (
        "This material is not intended to replace the advice of a qualified advisor. "
        "Information has been obtained from sources believed to be reliable and is for "
        "informational purposes only."
    )
    return (
        "<html><head><title>Council approves park budget</title></head><body><div id='page'>"
        f"<ul class='menu'>{NAV}</ul><h1>Council approves park budget</h1>"
        + "".join(f"<p>{p}</p>" for p in PARAS)
        + f"<div class='{footer_class}'><p>11 Example Road, Suite 500</p>"
        f"<p>Hunt Valley, MD 21031</p><p>{disclaimer}</p></div></div></body></html>"
    )


def test_the_page_footer_ending_the_chosen_text_is_cut() -> None:
    """The methods take the wrapper holding the story and the page footer;
    the footer's lines ending the text are cut. A box named for an entry's
    own footer is the story's, and stays."""
    result = extract(_story_holding_its_footer("site-footer"))
    assert result.text.endswith(PARAS[-1]), result.text[-200:]
    assert PARAS[0] in result.text and "Hunt Valley" not in result.text
    kept = extract(_story_holding_its_footer("entry-footer"))
    assert "Hunt Valley" in kept.text and "qualified advisor" in kept.text


_SNIPPETS = [
    f"Story {i}: the county board met again this week to weigh the plan for the new "
    f"library branch, and residents lined up to speak for and against it at length."
    for i in range(5)
]


def _story_above_a_stream(host: str, inside: bool = False) -> str:
    """A story, then a stream of teasers (headline link and snippet) linking
    to ``host``'s /stories/ pages; ``inside``: the stream in the story's box."""
    stream = "".join(
        f'<li class="item"><h3><a href="https://{host}/stories/library-plan-{i}">'
        f"Library plan {i} draws a crowd</a></h3><p>{s}</p></li>"
        for i, s in enumerate(_SNIPPETS)
    )
    story = "".join(f"<p>{p}</p>" for p in PARAS)
    more = f'<ul class="stream">{stream}</ul>'
    body = f'<div id="story">{story}{more}</div>' if inside else f'<div id="story">{story}</div>'
    return f"<html><body><h1>Park budget</h1>{body}{'' if inside else more}</body></html>"


def test_a_stream_of_teasers_of_the_pages_beside_this_one_leaves_the_text() -> None:
    """A paragraph-keeping method takes the snippets of the other stories
    below the article for more of it: records linking into the page's own
    folder, in a box apart from the densest block (CETD's node), after it."""
    from extractors.auto import _without_teasers

    url = "https://news.example/stories/council-approves-park-budget"
    taken = "\n".join([*PARAS, *(f"Library plan {i} draws a crowd" for i in range(2)), *_SNIPPETS])

    def trimmed(page: str, **overrides: int) -> str | None:
        doc = as_document(page, url)
        story = doc.root.get_element_by_id("story")
        results = {"cetd": Result(text="\n".join(PARAS), node=story)}
        return _without_teasers(doc, taken, results, Params(**overrides))

    assert trimmed(_story_above_a_stream("news.example")) == "\n".join(PARAS)
    # Another site's pages (a list of resources), records in the story's own
    # box (its sections) and the rule off leave the text as it is.
    assert trimmed(_story_above_a_stream("elsewhere.example")) is None
    assert trimmed(_story_above_a_stream("news.example", inside=True)) is None
    assert trimmed(_story_above_a_stream("news.example"), teaser_stream_records=0) is None


CHAPTERS = [
    ("Installing", PARAS[0]),
    ("Configuring", PARAS[1]),
    ("Running", PARAS[2]),
    ("Upgrading", PARAS[3]),
]
MANUAL = (
    "<html lang='en'><head><title>Manual</title></head><body>"
    f"<header><ul>{NAV}</ul></header><main><article><section><h1>The manual</h1>"
    + "".join(
        f"<section id='c{i}'><h2>{h}</h2><p>{t}</p></section>" for i, (h, t) in enumerate(CHAPTERS)
    )
    + f"</section></article></main><footer><ul>{NAV}</ul></footer></body></html>"
)


def test_one_chapter_of_a_sectioned_article_brings_the_whole_article() -> None:
    from extractors.auto import _sectioned_article

    def found(html: str, **overrides: float) -> list[str] | None:
        return _whole_box_lines(_sectioned_article, html, "c1", PARAS[1], **overrides)

    lines = found(MANUAL)
    assert lines is not None and all(h in lines and t in lines for h, t in CHAPTERS)
    # Off; most of the article chosen already; chapters without headings (a
    # story's header and paywall boxes); a second article; a declared
    # product; comments in it: no change.
    assert found(MANUAL, sections_max_share=0) is None
    assert found(MANUAL, sections_max_share=0.2) is None
    assert found(MANUAL.replace("<h2>", "<p>").replace("</h2>", "</p>")) is None
    assert found(MANUAL.replace("</main>", "<article><p>Other</p></article></main>")) is None
    product = "<head><meta property='og:type' content='product'>"
    assert found(MANUAL.replace("<head>", product)) is None
    comments = MANUAL.replace("id='c3'", "id='c3' class='comments'")
    assert found(comments) is None
    # Under the page's one <main> without an article: the main is the box.
    bare = MANUAL.replace("<article>", "").replace("</article>", "")
    assert found(bare) is not None
    # Another box between the chapters and the article: not its parts.
    boxed = MANUAL.replace("<article><section>", "<article><div><section>")
    assert found(boxed.replace("</section></article>", "</section></div></article>")) is None


def test_a_second_copy_of_the_body_is_cut() -> None:
    from extractors.text import without_copies

    # A site builder's variant per screen width: the body twice in one box
    # (the stylesheet that hides one is not in a saved page).
    body = "".join(f"<p>{para}</p>" for para in PARAS)
    html = ARTICLE.replace("</article>", f"<div class='variant'>{body}</div></article>")
    assert html != ARTICLE
    text = extract(html).text
    assert all(text.count(para) == 1 for para in PARAS), text
    assert extract(html, copy_min_paragraphs=0).text.count(PARAS[1]) == 2
    # One paragraph said again (a pull quote), or a few lines each card
    # repeats (under a quarter of the text), are no copy.
    quoted = "\n".join([*PARAS, PARAS[1]])
    assert without_copies(quoted, 60, 3, 0.25) == quoted
    cards = [f"Plan {n}: " + PARAS[3] for n in "ABCDEFGHIJ"]
    shared = [
        "Support by mail, by phone and by chat, on every single day of the week, at any hour.",
        "Every report exported as a spreadsheet, as a document or as a web page, as you like.",
        "A dedicated account manager for your whole team, who answers within one working day.",
    ]
    priced = "\n".join([*cards[:5], *shared, *cards[5:], *shared])
    assert without_copies(priced, 60, 3, 0.25) == priced
    assert without_copies(priced, 60, 3, 0.0) == "\n".join([*cards[:5], *shared, *cards[5:]])
    # Thousands of like rows (one line said over and over) are no copy.
    rows = "\n".join([shared[0]] * 3000)
    assert without_copies(rows, 60, 3, 0.0) == rows


STANDFIRST = "A new playground and a museum for the riverside park."


def _story_with_standfirst(description: str) -> str:
    body = "".join(f"<p>{para}</p>" for para in PARAS)
    return ARTICLE.replace(
        '<meta name="author"',
        f'<meta name="description" content="{description}">\n<meta name="author"',
    ).replace(
        '<article><h1>Council approves park budget</h1><p class="byline">By Jane Doe</p>\n' + body,
        "<article><header><h1>Council approves park budget</h1>"
        f'<div class="standfirst">{STANDFIRST}</div><p class="byline">By Jane Doe</p></header>'
        f'<div class="story">{body}</div>',
    )


def test_the_standfirst_the_page_describes_itself_with_heads_the_text() -> None:
    html = _story_with_standfirst(STANDFIRST)
    assert 'class="standfirst"' in html and 'class="story"' in html
    assert STANDFIRST not in extract(html, standfirst_min_chars=0).text
    lines = extract(html).text.split("\n")
    assert lines[0] == STANDFIRST and lines[1] == PARAS[0], lines
    assert lines.count(STANDFIRST) == 1
    # A line that is not the page's description stays out.
    other = _story_with_standfirst("What the city council decided about the park on Tuesday.")
    assert STANDFIRST not in extract(other).text
