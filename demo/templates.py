"""HTML templates of the demo web: one shell, with article, list and home bodies.

Every page of a site shares the shell (header with navigation and search,
sidebar, footer), so that extraction has real boilerplate to remove. Links are
root-relative; the only absolute ones point off-site (``{{SITE:<name>}}`` is
replaced by the server with the other demo site's base URL). Symbols outside
GBK and Big5 are written as entities, because the same templates render the
legacy-encoded pages.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from demo.content import Article

OUT_OF_SCOPE = "http://out-of-scope.invalid/"


@dataclass(frozen=True)
class Locale:
    """The words of a site's template, in one script."""

    lang: str
    site_name: str
    tagline: str
    home: str
    sections: dict[str, str]
    related: str
    share: str
    comments: str  # format with n
    write_comment: str
    most_read: str
    newsletter: str
    newer: str
    older: str
    search: str
    about: str
    contact: str
    feed: str
    copyright: str
    by: str
    source: str
    editor: str
    date_style: str  # "en", "zh-label" or "zh-cn"
    label_published: str = ""


_MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip


def format_date(published: str, style: str, label: str = "") -> str:
    """A visible publication date in the style of the site's section."""
    day, clock = published.split(" ")
    year, month, dom = (int(part) for part in day.split("-"))
    if style == "en":
        return f"{_MONTHS[month - 1]} {dom}, {year}"
    if style == "zh-cn":
        return f"{year}年{month}月{dom}日 {clock}"
    return f"{label}{day} {clock}"


def iso_datetime(published: str, offset: str) -> str:
    """The machine-readable timestamp for ``<time datetime>`` and feeds."""
    return published.replace(" ", "T") + ":00" + offset


def _t(text: str) -> str:
    return escape(text, quote=False)


def _a(text: str) -> str:
    return escape(text, quote=True)


def page(
    loc: Locale,
    *,
    title: str,
    main: str,
    sidebar: list[tuple[str, str]],
    charset: str | None = "utf-8",
    description: str = "",
    feed: tuple[str, str] = ("/feed.xml", "application/rss+xml"),
    body_class: str = "page",
) -> str:
    """The shared shell around a page's main content."""
    meta = f'<meta charset="{charset}">\n' if charset else ""
    nav = "".join(
        f'<li><a href="/{slug}/">{_t(label)}</a></li>' for slug, label in loc.sections.items()
    )
    most_read = "".join(f'<li><a href="{_a(url)}">{_t(text)}</a></li>' for url, text in sidebar)
    return f"""<!DOCTYPE html>
<html lang="{loc.lang}">
<head>
{meta}<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{_t(title)}</title>
<meta name="description" content="{_a(description or loc.tagline)}">
<link rel="stylesheet" href="/static/site.css">
<link rel="alternate" type="{feed[1]}" title="{_a(loc.site_name)}" href="{feed[0]}">
<script>window.dataLayer = window.dataLayer || [];
dataLayer.push({{"page": "{body_class}"}});</script>
</head>
<body class="{body_class}">
<header class="site-header">
<div class="topbar"><span class="tagline">{_t(loc.tagline)}</span></div>
<a class="logo" href="/">{_t(loc.site_name)}</a>
<nav class="main-nav"><ul><li><a href="/">{_t(loc.home)}</a></li>{nav}</ul></nav>
<form class="search" action="/search" method="get"><input type="text" name="q">\
<button type="submit">{_t(loc.search)}</button></form>
</header>
<div class="container">
<main id="main">
{main}
</main>
<aside class="sidebar">
<section class="most-read"><h3>{_t(loc.most_read)}</h3><ol>{most_read}</ol></section>
<section class="newsletter"><h3>{_t(loc.newsletter)}</h3>
<form action="/subscribe" method="post"><input type="email" name="email">\
<button type="submit">OK</button></form></section>
</aside>
</div>
<footer class="site-footer">
<ul class="footer-links"><li><a href="/about.html">{_t(loc.about)}</a></li>\
<li><a href="mailto:desk@example.invalid">{_t(loc.contact)}</a></li>\
<li><a href="{feed[0]}">{_t(loc.feed)}</a></li></ul>
<p class="copyright">&copy; 2024 {_t(loc.site_name)}. {_t(loc.copyright)}</p>
</footer>
</body>
</html>
"""


def breadcrumb(loc: Locale, section: str, leaf: str | None = None) -> str:
    """Home > Section (> leaf)."""
    parts = [f'<a href="/">{_t(loc.home)}</a>']
    label = _t(loc.sections[section])
    parts.append(f'<a href="/{section}/">{label}</a>' if leaf else f"<span>{label}</span>")
    if leaf:
        parts.append(f"<span>{_t(leaf)}</span>")
    return '<nav class="breadcrumb">' + " &rsaquo; ".join(parts) + "</nav>"


def body_html(article: Article) -> str:
    """The article body: paragraphs, subheadings and lists."""
    out = []
    for block in article.body:
        if block.startswith("## "):
            out.append(f"<h2>{_t(block[3:])}</h2>")
        elif block.startswith("- "):
            items = "".join(f"<li>{_t(item[2:])}</li>" for item in block.split("\n"))
            out.append(f"<ul>{items}</ul>")
        else:
            out.append(f"<p>{_t(block)}</p>")
    return "\n".join(out)


def byline(loc: Locale, article: Article, offset: str) -> str:
    """Author and date, in the convention of the site's language."""
    stamp = iso_datetime(article.published, offset)
    shown = format_date(article.published, loc.date_style, loc.label_published)
    if loc.date_style == "en":
        return (
            f'<div class="byline">{_t(loc.by)} <span class="author">{_t(article.author)}</span>'
            f' &middot; <time datetime="{stamp}">{_t(shown)}</time></div>'
        )
    return (
        f'<div class="info"><span class="time">{_t(shown)}</span>'
        f'<span class="source">{_t(loc.source)}{_t(loc.site_name)}</span>'
        f'<span class="author">{_t(article.author)}</span></div>'
    )


def share_bar(loc: Locale, path: str) -> str:
    """Share links: off-site, mailto and javascript, as on real sites."""
    target = _a(path)
    return (
        f'<div class="share-bar"><span>{_t(loc.share)}</span>'
        f'<a class="share-fb" href="{OUT_OF_SCOPE}share?network=facebook&amp;u={target}">f</a>'
        f'<a class="share-x" href="{OUT_OF_SCOPE}share?network=x&amp;u={target}">X</a>'
        f'<a class="share-mail" href="mailto:?subject=demo&amp;body={target}">@</a>'
        '<a class="share-print" href="javascript:window.print()">&#9113;</a></div>'
    )


def comments_html(loc: Locale, pool: tuple[tuple[str, str], ...], seed: int) -> str:
    """A comment thread taken deterministically from the site's pool."""
    picked = [pool[(seed + i) % len(pool)] for i in range(3)]
    items = "".join(
        f'<li class="comment"><span class="c-author">{_t(who)}</span>'
        f'<p class="c-text">{_t(text)}</p></li>'
        for who, text in picked
    )
    return (
        f'<section id="comments" class="comments"><h3>{_t(loc.comments.format(n=3))}</h3>'
        f'<ol class="comment-list">{items}</ol>'
        f'<form class="comment-form" action="/comment" method="post"><textarea name="c"></textarea>'
        f'<button type="submit">{_t(loc.write_comment)}</button></form></section>'
    )


def article_main(
    loc: Locale,
    article: Article,
    *,
    path: str,
    related: list[tuple[str, str]],
    comments: str,
    offset: str,
) -> str:
    """The main column of an article page."""
    rel = "".join(f'<li><a href="{_a(url)}">{_t(text)}</a></li>' for url, text in related)
    editor = f'<p class="editor">{_t(loc.editor)}</p>' if loc.editor else ""
    tags = "".join(f'<span class="tag">{_t(tag)}</span>' for tag in article.tags)
    return f"""{breadcrumb(loc, article.section, article.title)}
<article class="story">
<h1 class="headline">{_t(article.title)}</h1>
{byline(loc, article, offset)}
{share_bar(loc, path)}
<div class="story-body">
{body_html(article)}
</div>
{editor}<div class="tags">{tags}</div>
</article>
<section class="related"><h3>{_t(loc.related)}</h3><ul>{rel}</ul></section>
{comments}"""


@dataclass(frozen=True)
class ListEntry:
    """One item of a list page."""

    url: str
    title: str
    date: str
    snippet: str


def list_main(loc: Locale, section: str, entries: list[ListEntry], page_no: int, pages: int) -> str:
    """The main column of a section list page, with numbered pagination."""
    items = "\n".join(
        f'<li class="item"><h2><a href="{_a(e.url)}">{_t(e.title)}</a></h2>'
        f'<span class="date">{_t(e.date)}</span><p class="snippet">{_t(e.snippet)}</p></li>'
        for e in entries
    )
    links = []
    if page_no > 1:
        links.append(f'<a rel="prev" href="{page_url(section, page_no - 1)}">{_t(loc.newer)}</a>')
    for n in range(1, pages + 1):
        links.append(
            f'<span class="current">{n}</span>'
            if n == page_no
            else f'<a href="{page_url(section, n)}">{n}</a>'
        )
    if page_no < pages:
        links.append(f'<a rel="next" href="{page_url(section, page_no + 1)}">{_t(loc.older)}</a>')
    return f"""{breadcrumb(loc, section)}
<h1 class="section-title">{_t(loc.sections[section])}</h1>
<ul class="article-list">
{items}
</ul>
<nav class="pagination">{" ".join(links)}</nav>"""


def page_url(section: str, page_no: int) -> str:
    """URL of a section list page: the first one is the section index."""
    return f"/{section}/" if page_no == 1 else f"/{section}/page/{page_no}/"


def snippet(text: str, limit: int) -> str:
    """A list-page teaser cut at a word (en) or character (zh) boundary."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    if " " in cut:
        cut = cut.rsplit(" ", 1)[0]
    return cut + "…"


def challenge_page(lang: str, title: str, message: str, note: str) -> str:
    """What a bot-protection service serves instead of the article."""
    return f"""<!DOCTYPE html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<meta name="robots" content="noindex, nofollow">
<title>{_t(title)}</title>
</head>
<body class="challenge">
<div class="challenge-box">
<h1>{_t(title)}</h1>
<p>{_t(message)}</p>
<div class="captcha" data-sitekey="6Lc-demo-key"></div>
<p class="ray-id">{_t(note)}</p>
</div>
</body>
</html>
"""
