"""A thread's posts are all taken when the chosen body is one of them."""

from __future__ import annotations

from extractors import extract
from extractors.document import as_document
from extractors.posts import alike, post_lines, template, thread_posts

MESSAGES = [
    "I just set up a fifty gallon tank for fish only and wonder which species get along. "
    "The filter is a large canister and the rock work leaves plenty of caves to hide in. "
    "Would a flame angel be happy with a school of anthias, or is that asking for trouble?",
    "Anthias need frequent feeding, several times a day, so plan for that before buying them. "
    "A flame angel is usually fine in a tank of that size if it goes in last.",
    "Seconding the advice above: add the angel last and quarantine every new fish for a month, "
    "it saves a lot of grief later on.",
]
SIGN_OFF = (
    "Thanks to everyone who takes the time to answer; this board has taught me more about "
    "keeping fish than any book I have read so far."
)
NAV = "".join(f"<li><a href='/forum/{i}'>Board number {i}</a></li>" for i in range(15))


QUESTION_MORE = [
    "Lighting will be basic for now, since there are no corals planned, and the substrate "
    "a thin layer of coarse sand that is easy to stir up and siphon clean every week.",
    "I am planning a high turnover rate with two powerheads besides the canister, because "
    "I tend to feed heavily and want the detritus to stay suspended until the filter takes it.",
    "Stocking ideas so far: a flame angel, a small school of anthias, maybe a pair of clownfish. "
    "Lionfish came to mind as well, but I worry they would eat everything else in the tank.",
]


def _post(i: int, text: str) -> str:
    return (
        f"<article class='message message--post' id='post-{1000 + i}'>"
        f"<div class='message-user'><a href='/members/{i}'>member{i}</a>"
        f"<div>Senior Member</div><div>Joined</div><div>{120 * i + 7} posts</div></div>"
        f"<div class='message-main'><header class='message-attribution'>"
        f"<time>Mar {6 + i}, 2024</time></header>"
        f"<div class='message-body'><div class='bbWrapper'>{text}<br><br>{SIGN_OFF}</div>"
        "</div></div>"
        f"<footer><a href='#post-{1000 + i}'>#{i + 1}</a> <a href='/reply'>Reply with quote</a>"
        "</footer></article>"
    )


def _thread() -> str:
    first = "<br><br>".join([MESSAGES[0], *QUESTION_MORE])
    posts = "".join(_post(i, text) for i, text in enumerate([first, *MESSAGES[1:]]))
    return (
        "<html><head><title>Fish for a new tank | Reef Forum</title></head><body>"
        f"<nav><ul>{NAV}</ul></nav><h1>Fish for a new tank</h1>"
        f"<div class='block-body'>{posts}</div>"
        "<footer>Terms and rules · Privacy policy</footer></body></html>"
    )


def _article_with_comments() -> str:
    body = "".join(f"<p>{m}</p>" for m in MESSAGES)
    comments = "".join(
        f"<div class='comment'><span class='who'>reader{i}</span> <time>Mar {6 + i}, 2024</time>"
        f"<p>A reader's remark number {i}, long enough to be a paragraph of its own here.</p></div>"
        for i in range(4)
    )
    return (
        "<html><head><title>Tank guide</title></head><body>"
        f"<nav><ul>{NAV}</ul></nav><div class='story'><h1>Tank guide</h1>"
        f"<div class='story-body'>{body}</div></div>"
        f"<section class='comments'>{comments}</section></body></html>"
    )


def test_templates_of_one_kind() -> None:
    doc = as_document(
        "<html><body><div class='post first odd'>a</div><div class='post even'>b</div>"
        "<div id='post123'>c</div><div id='post456'>d</div><div>e</div>"
        "<div class='col-md-8 grid'>f</div><div id='col2'>g</div></body></html>"
    )
    first, second, by_id, by_id2, bare, column, column_by_id = doc.body
    assert template(first) == template(second)  # state classes aside
    assert alike(template(by_id), template(by_id2))  # ids without their numbers
    assert template(bare) is None
    assert template(column) is None and template(column_by_id) is None  # a grid's columns


def test_every_post_of_a_thread_is_taken() -> None:
    result = extract(_thread())
    assert result.method.endswith("+posts")
    for message in MESSAGES:
        assert message in result.text
    assert "Board number" not in result.text
    lines = result.text.split("\n")
    assert "member1" in lines  # the author stays, the forum's furniture goes
    for furniture in ("Senior Member", "Joined", "127 posts", "#2", "Reply with quote"):
        assert furniture not in lines, furniture
    assert result.text.index(MESSAGES[0]) < result.text.index(MESSAGES[2])
    plain = extract(_thread(), thread_posts=False)
    assert sum(m in plain.text for m in MESSAGES) < len(MESSAGES)


def test_an_article_is_not_widened_to_its_comments() -> None:
    doc = as_document(_article_with_comments())
    body = doc.root.find(".//div[@class='story-body']")
    text = "\n".join(MESSAGES)
    assert thread_posts(doc, body, text) is None
    assert "A reader's remark" not in extract(doc).text


def test_dated_teasers_of_the_pages_beside_this_one_are_no_posts() -> None:
    """A stream of other stories (headline link into the page's own folder,
    source and time, snippet) repeats one template like posts do; a post's
    links go to its author or to itself."""

    def stream(folder: str) -> str:
        items = "".join(
            f"<li class='stream-item'><h3><a href='{folder}story-{i}.html'>Story {i}</a></h3>"
            f"<span>Mar {6 + i}, 2024</span><p>{text}</p></li>"
            for i, text in enumerate(MESSAGES)
        )
        return f"<html><body><h1>Today</h1><ul class='stream'>{items}</ul></body></html>"

    url = "https://news.example/news/today.html"
    for folder, posts in (("/news/", None), ("/members/", 3)):
        doc = as_document(stream(folder), url)
        body = doc.root.find(".//li[@class='stream-item']/p")
        found = thread_posts(doc, body, MESSAGES[0])
        assert (len(found) if found else None) == posts, folder


def _striped_thread() -> str:
    """A FluxBB-like thread: striped post classes (rowodd / roweven), each
    post headed by its permalink into this page, a message box and a
    signature box of one class, the author's counters beside them."""
    posts = "".join(
        f"<div id='p{700 + i}' class='blockpost {('rowodd', 'roweven')[i % 2]}'>"
        f"<h2><a href='viewtopic.php?pid={700 + i}#p{700 + i}'>2024-08-0{i + 1} 10:59</a></h2>"
        "<div class='box'><div class='postbody'><div class='postleft'>"
        f"<dl><dt>member{i}</dt><dd>Posts: {73365 + i:,}</dd><dd>From: Brisbane, AU</dd>"
        "<dd>Website</dd></dl></div><div class='postright'>"
        f"<div class='postmsg'><p>{text}</p></div>"
        f"<div class='postsignature postmsg'><p>{SIGN_OFF}</p></div>"
        "</div></div></div></div>"
        for i, text in enumerate([*MESSAGES, *QUESTION_MORE])
    )
    return (
        "<html><head><title>Fish for a new tank</title></head><body>"
        f"<nav><ul>{NAV}</ul></nav><h1>Fish for a new tank</h1><div id='punwrap'>{posts}</div>"
        "</body></html>"
    )


def test_striped_posts_with_permalinks_into_the_page_are_all_taken() -> None:
    """Alternating stripe classes are one template; a permalink to a post
    on this page is no teaser of another page; a post's message and its
    signature, alike inside one post, are not the thread's posts, and the
    signature is left out."""
    texts = [*MESSAGES, *QUESTION_MORE]
    doc = as_document(_striped_thread(), "https://bbs.example/viewtopic.php?id=5")
    body = doc.root.find(".//div[@class='postmsg']/p")
    found = thread_posts(doc, body, texts[0])
    assert found is not None and [el.get("id") for el in found] == [f"p{700 + i}" for i in range(6)]
    lines = post_lines(found)
    assert all(text in lines for text in texts) and "member4" in lines
    for furniture in ("Posts: 73,369", "From: Brisbane, AU", "Website"):
        assert furniture not in lines, furniture
    assert SIGN_OFF not in lines  # the authors' signature boxes go too


def test_a_quote_chosen_in_one_reply_still_finds_every_post() -> None:
    """A method may choose a quote inside one reply as the body; the other
    posts hold no quote, yet they are the thread's posts, and the posts'
    own addresses, written out to copy, are no content."""
    url = "https://forum.example/topic/15-fish-for-a-new-tank/"

    def post(i: int, text: str, quoted: str = "") -> str:
        quote = (
            f"<blockquote class='ipsQuote'><div class='ipsQuote_contents'><p>{quoted}</p>"
            "</div></blockquote>"
            if quoted
            else ""
        )
        return (
            f"<article class='cPost ipsComment' id='elComment_{500 + i}'>"
            f"<aside><a href='/profile/{i}'>member{i}</a><span>42.4k</span></aside>"
            f"<div class='ipsComment_content'><time>May {20 + i}, 2024</time>"
            f"<div class='ipsType_richText'>{quote}<p>{text}</p></div>"
            f"<p>{url}#findComment-{500 + i}</p><span>Author</span></div></article>"
        )

    long_quote = " ".join(QUESTION_MORE)
    posts = [post(0, MESSAGES[0]), post(1, MESSAGES[1], long_quote), post(2, MESSAGES[2])]
    html = (
        "<html><head><title>Fish for a new tank</title></head><body>"
        f"<nav><ul>{NAV}</ul></nav><h1>Fish for a new tank</h1><form>{''.join(posts)}</form>"
        "</body></html>"
    )
    doc = as_document(html, url)
    quote = doc.root.find(".//div[@class='ipsQuote_contents']")
    found = thread_posts(doc, quote, long_quote)
    assert found is not None and len(found) == 3
    lines = post_lines(found, url)
    assert all(m in lines for m in MESSAGES)
    assert not any(line.startswith(url) for line in lines)
    assert "42.4k" not in lines and "Author" not in lines
    assert any(line.startswith(url) for line in post_lines(found))
