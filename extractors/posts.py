"""A thread's posts, when the chosen body is one of them.

Forum threads, Q&A pages, review lists and step-by-step guides repeat one
template per post: a box with its author and date around a message box. The
density methods take the densest post (usually the first) and stop there,
though every post is the page's content. When the chosen body lies in one of
several sibling elements of one template, and each sibling holds the body's
own chain of templates (its message box, found along the same class names),
the siblings are the content. They must carry text of their own, few links,
and a date each (posts are dated; page columns and sections are not), or be
at least ``min_undated`` such siblings whose chain is named by a class (a
guide's steps). Of such runs on the way up from the body, the largest is
taken (a post's message and signature boxes look alike as well). Siblings
leading to the pages beside this one (its URL folder) are a stream of other
stories' teasers, not posts. Not in a seed; a page's comments are left
alone, as the body is not one of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lxml import etree

from .classify import page_url, sibling_url
from .document import Document, marks, text_lines
from .listing import class_key, has_date, record_url
from .text import share_on_lines

Template = tuple[str, frozenset[str]]  # tag, class tokens (without numbers)


@dataclass(frozen=True, slots=True)
class Params:
    # The body is looked for this many levels below the post at most (a
    # forum's message box sits 8-9 levels inside its post).
    max_lift: int = 10
    # At least two posts hold this many characters outside links.
    min_post_chars: int = 50
    # The posts hold at least this multiple of the body's text.
    min_gain: float = 1.5
    # ...and at most this share of it in links (a list of linked entries is
    # the list extractor's work).
    max_link_density: float = 0.3
    # The chosen text lies in its post for at least this share (the node a
    # method reports is where most of its text is; SCEDD's reaches beyond
    # it). 0.8, then 0.6 tried on all pages: 5 more pages, 4 better.
    min_inside: float = 0.6
    # Undated siblings count as posts from this many on, when the chain from
    # them to the body is named by a class somewhere.
    min_undated: int = 3


# Grid and layout class names (Bootstrap's ``col-md-8``, ``column1``,
# ``gridPanel``): page columns, not posts, whatever they hold.
_LAYOUT = re.compile(
    r"#?(?:col|column|grid|gridpanel|row|span|cell|container|wrap|wrapper|layout|left|right|"
    r"side|sidebar|main|inner|outer)(?:[-_].*)?",
    re.I,
)


def template(el: etree._Element) -> Template | None:
    """An element's template: its tag and class tokens (state and numbering
    aside), else its id without numbers (``post12345``); None with neither,
    or when every token names a layout part (a grid's columns)."""
    key = class_key(el.get("class") or "")
    if key:
        tokens = frozenset(key.split())
    else:  # a numbered id, by the same key as classes: "post12345" -> "post"
        raw = (el.get("id") or "").lower()
        bare = class_key(raw)
        tokens = frozenset([f"#{bare}"]) if bare and bare != raw else frozenset()
    if not tokens or all(_LAYOUT.fullmatch(t) for t in tokens):
        return None
    return el.tag, tokens


def alike(a: Template, b: Template | None) -> bool:
    """Templates of one kind: one tag, and most class tokens shared (a first
    post's or a moderator's extra class aside)."""
    if b is None or a[0] != b[0]:
        return False
    return a[1] == b[1] or 2 * len(a[1] & b[1]) >= len(a[1] | b[1])


def _holds(el: etree._Element, chain: list[Template]) -> bool:
    """Whether ``el`` holds the chain of templates, child by child (a step
    without classes matches its tag). The chain's class-less end (the
    message's own markup: a quote's ``<div>``, an ``<i>``) is not asked for
    below a classed step (the message box); with no classed step it is all
    there is (page columns hold no such chain). Nor is what lies inside a
    quote (a ``<blockquote>``, a box named for one): the body a method chose
    may be a quote in one reply, which other posts need not hold."""
    quote = next(
        (
            i
            for i, (tag, tokens) in enumerate(chain)
            if tag == "blockquote" or any("quote" in t for t in tokens)
        ),
        None,
    )
    if quote is not None:
        chain = chain[:quote]
    end = len(chain)
    while end and not chain[end - 1][1]:
        end -= 1
    for tag, tokens in chain[:end] if end else chain:
        el = next(
            (c for c in el if c.tag == tag and (not tokens or alike((tag, tokens), template(c)))),
            None,
        )
        if el is None:
            return False
    return True


# The furniture forum software draws in every post (XenForo, vBulletin,
# phpBB, FluxBB, Invision, NodeBB, Discourse; English and German labels), as
# whole lines: the author's rank and counters ("Posts: 73,365"), where they
# are from, post numbers, reply and quote buttons, "Click to expand..."
# under a quote, share and website links.
_POST_FURNITURE = re.compile(
    r"^(?:#\d+|[\d.,]+k?|author|[\d.,]+k?\s+(?:posts?|messages?|likes?|replies|reputation|points)|"
    r"(?:new|junior|senior|established|active|registered|well-known|banned)?\s*members?|"
    r"joined|location|posts|messages|reaction score|points|reputation|likes received|"
    r"reply|reply with quote|quote|multi-?quote|report|top|permalink|offline|online|"
    r"link to (?:comment|post)|share on other sites|more sharing options\W*|"
    r"click to (?:expand|shrink)\W*|\d+\s+repl(?:y|ies)\s+last reply|"
    r"wrote on last edited by|last edited(?: by .{1,40})?|"
    r"mitglied seit|beiträge|beiträge anzeigen|private nachricht|zitieren|antworten|"
    r"profil|registriert seit|wohnort|ort|website|"
    r"(?:posts|messages|replies|reputation|points|likes|beiträge)\s*:\s*[\d.,]+k?|"
    r"(?:from|location|wohnort|ort)\s*:\s*[^.!?:]{1,40})\s*:?$",
    re.I,
)


# A post's signature box: the same lines under every post of its author
# (phpBB and vBulletin "signature", FluxBB "postsignature", XenForo
# "message-signature", Invision "ipsSignature").
_SIGNATURE_NAME = re.compile(r"signature|(?<![a-z])sig(?![a-z])", re.I)


def post_lines(posts: list[etree._Element], own: str | None = None) -> list[str]:
    """The posts' lines in page order, without the forum's furniture, the
    authors' signatures and the posts' own addresses (a permalink written
    out to copy: this page's ``own`` URL, with or without an anchor)."""
    here = own.partition("#")[0].rstrip("/") if own else None
    return [
        line
        for post in posts
        for line in text_lines(post, skip=_signatures(post))
        if not _POST_FURNITURE.match(line.strip())
        and not (here and line.strip().partition("#")[0].rstrip("/") == here)
    ]


def _signatures(post: etree._Element) -> set[etree._Element]:
    """The boxes inside a post named for its author's signature."""
    return {el for el in post.iterdescendants(etree.Element) if _SIGNATURE_NAME.search(marks(el))}


def thread_posts(
    doc: Document, node: etree._Element | None, text: str, p: Params | None = None
) -> list[etree._Element] | None:
    """The posts around the chosen body ``node`` (whose output is ``text``),
    in page order, or None when it is not one of several posts."""
    p = p or Params()
    stats = doc.stats
    if node is None or node not in stats:
        return None
    body_chars = stats[node].text_len
    el, chain = node, []
    found: list[etree._Element] | None = None
    for _ in range(p.max_lift + 1):
        parent = el.getparent()
        if parent is None or el is doc.body:
            break
        kind = template(el)
        if kind is not None:
            posts = [
                s for s in parent if s in stats and alike(kind, template(s)) and _holds(s, chain)
            ]
            # The most posts along the way up: a post's message and its
            # signature look alike too, inside one post of many.
            if (
                len(posts) > (len(found) if found else 1)
                and _are_posts(doc, posts, chain, body_chars, p)
                and share_on_lines(text, text_lines(el)) >= p.min_inside
            ):
                found = posts
        chain.insert(0, kind or (el.tag, frozenset()))
        el = parent
    return found


def _teasers(doc: Document, posts: list[etree._Element]) -> bool:
    """Whether half the siblings or more lead to the pages beside this one
    (its URL folder): a stream of other stories' teasers, not a thread's
    posts (a post's links, if any, go to its author or to itself)."""
    own = page_url(doc)
    if not own:
        return False
    leads = (record_url(doc, s, own) for s in posts)
    return 2 * sum(1 for link in leads if link and _beside(doc, link, own)) >= len(posts)


def _beside(doc: Document, link: str, own: str) -> bool:
    """Whether a link leads to a page beside this one, not to a place on
    this page (a forum post's permalink, ``viewtopic.php?pid=7#p7``, whose
    anchor is one of the page's own ids)."""
    _, _, anchor = link.partition("#")
    if anchor and anchor in doc.derived("posts.ids", lambda: set(doc.root.xpath("//@id"))):
        return False
    return sibling_url(link, own)


def _are_posts(
    doc: Document, posts: list[etree._Element], chain: list[Template], body_chars: int, p: Params
) -> bool:
    """Whether siblings of one template are posts: text of their own, more
    than the body alone, few links, and dated (or several, along a chain
    named by classes)."""
    stats = doc.stats
    total = sum(stats[s].text_len for s in posts)
    links = sum(stats[s].link_text_len for s in posts)
    own = sum(1 for s in posts if stats[s].text_len - stats[s].link_text_len >= p.min_post_chars)
    if own < 2 or total < p.min_gain * body_chars or links > p.max_link_density * total:
        return False
    if _teasers(doc, posts):
        return False
    if 2 * sum(1 for s in posts if has_date(doc, s)) >= len(posts):
        return True
    return len(posts) >= p.min_undated and any(tokens for _, tokens in chain)
