"""A synthetic news site generated on request, for the crawl benchmark.

Pages are a pure function of their path and the page count, so two runs serve
identical bytes and nothing is written to disk. The layout mirrors the static
demo sites: a home page, section list pages with pagination, and article pages
of realistic size (about 10-20 KB of HTML) that share one template. Every page
is reachable by links; robots.txt allows everything and sets no crawl delay.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from html import escape

_VOCABULARY = (
    "city council plan budget river bridge school students teachers transit bus rail "
    "station market farmers water energy power grid solar wind battery research "
    "university scientists study data results survey residents neighbourhood park "
    "library museum festival music health hospital doctors patients clinic housing "
    "rent prices inflation jobs workers union contract wages factory port trade "
    "weather storm rain drought harvest crops forest wildlife birds coast ocean "
    "police court judge ruling law election vote mayor province minister report "
    "project construction road traffic safety cyclists drivers parking airport "
    "flight tourism hotel restaurant food schoolchildren families community volunteers "
    "program funding grant million percent year month week morning evening season "
    "said announced expected approved rejected delayed opened closed reported found "
    "new local regional national public private early late higher lower major small "
    "first second third several many most about after before during since under over"
)
_WORDS = tuple(_VOCABULARY.split())
_SECTIONS = ("news", "business", "science", "sport", "culture", "health", "travel", "opinion")
_ARTICLE = re.compile(r"^/(\w+)/(\d+)\.html$")
_LIST = re.compile(r"^/(\w+)/(?:page/(\d+)/)?$")


@dataclass(frozen=True)
class SyntheticParams:
    """Shape of the synthetic site."""

    pages: int  # number of article pages
    sections: int = 5  # list sections the articles are spread over
    per_page: int = 20  # list entries per list page
    related: int = 6  # related-article links per article


class SyntheticSite:
    """Serves ``/``, ``/robots.txt``, ``/<section>/[page/<n>/]`` and ``/<section>/<id>.html``."""

    def __init__(self, params: SyntheticParams) -> None:
        self.params = params
        self.sections = _SECTIONS[: max(1, min(params.sections, len(_SECTIONS)))]
        self._titles: dict[int, str] = {}

    # -- structure -------------------------------------------------------

    def section_of(self, article_id: int) -> str:
        return self.sections[article_id % len(self.sections)]

    def section_ids(self, section: str) -> list[int]:
        """Article ids of a section, newest (highest id) first."""
        index = self.sections.index(section)
        last = self.params.pages - 1
        first = last - ((last - index) % len(self.sections))
        return list(range(first, -1, -len(self.sections))) if first >= index else []

    def list_pages(self, section: str) -> int:
        count = len(self.section_ids(section))
        return max(1, -(-count // self.params.per_page))

    @staticmethod
    def article_path(section: str, article_id: int) -> str:
        return f"/{section}/{article_id}.html"

    @staticmethod
    def list_path(section: str, number: int) -> str:
        return f"/{section}/" if number == 1 else f"/{section}/page/{number}/"

    # -- text ------------------------------------------------------------

    @staticmethod
    def _sentence(rng: random.Random) -> str:
        words = [rng.choice(_WORDS) for _ in range(rng.randint(9, 22))]
        return " ".join(words).capitalize() + "."

    def title(self, article_id: int) -> str:
        # Titles appear on many pages (rail, related, lists): memoised, they are small.
        cached = self._titles.get(article_id)
        if cached is None:
            rng = random.Random(f"title-{article_id}")
            words = [rng.choice(_WORDS) for _ in range(rng.randint(5, 9))]
            cached = self._titles[article_id] = " ".join(words).capitalize()
        return cached

    def body(self, article_id: int) -> list[str]:
        rng = random.Random(f"body-{article_id}")
        count = rng.randint(12, 22)
        return [
            " ".join(self._sentence(rng) for _ in range(rng.randint(3, 7))) for _ in range(count)
        ]

    # -- responses -------------------------------------------------------

    def respond(self, path: str) -> tuple[int, str, bytes]:
        """(status, content type, body) for a request path (query ignored)."""
        path = path.split("?", 1)[0].split("#", 1)[0]
        if path == "/robots.txt":
            return 200, "text/plain", b"User-agent: *\nAllow: /\n"
        html = self._page(path)
        if html is None:
            return 404, "text/html", b"<!DOCTYPE html><title>404</title><h1>Not Found</h1>\n"
        return 200, "text/html; charset=utf-8", html.encode()

    def _page(self, path: str) -> str | None:
        if path == "/":
            return self.home()
        match = _ARTICLE.match(path)
        if match and match.group(1) in self.sections:
            article_id = int(match.group(2))
            valid = 0 <= article_id < self.params.pages and str(article_id) == match.group(2)
            if valid and self.section_of(article_id) == match.group(1):
                return self.article(article_id)
            return None
        match = _LIST.match(path)
        if match and match.group(1) in self.sections:
            number = int(match.group(2) or 1)
            if 1 <= number <= self.list_pages(match.group(1)) and match.group(2) != "1":
                return self.list_page(match.group(1), number)
        return None

    def _shell(self, title: str, main: str, kind: str) -> str:
        nav = "".join(f'<li><a href="/{s}/">{s.title()}</a></li>' for s in self.sections)
        latest = range(self.params.pages - 1, max(-1, self.params.pages - 11), -1)
        trending = "".join(self._link_item(self.section_of(i), i) for i in latest)
        footer = " ".join(f'<a href="/{s}/">{s.title()}</a>' for s in self.sections)
        return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{escape(title)} | Synthetic Gazette</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/static/main.css">
<script>window.analytics = {{"kind": "{kind}", "consent": false}};</script>
</head>
<body class="{kind}">
<header class="masthead"><a class="brand" href="/">Synthetic Gazette</a>
<nav class="primary"><ul><li><a href="/">Home</a></li>{nav}</ul></nav>
<form class="search" action="/search"><input name="q" placeholder="Search"></form>
</header>
<div class="layout">
<main>
{main}
</main>
<aside class="rail"><section class="trending"><h3>Trending now</h3><ol>{trending}</ol></section>
<section class="promo"><h3>Subscribe</h3><p>Unlimited access to every story, the daily
newsletter and the archive. Cancel any time.</p></section></aside>
</div>
<footer class="site-footer"><nav><a href="/">Home</a> {footer}</nav>
<p>&copy; 2024 Synthetic Gazette. All rights reserved. Generated for benchmarks.</p></footer>
</body>
</html>
"""

    def _link_item(self, section: str, article_id: int) -> str:
        title = escape(self.title(article_id))
        return f'<li><a href="{self.article_path(section, article_id)}">{title}</a></li>'

    def home(self) -> str:
        blocks = []
        for section in self.sections:
            ids = self.section_ids(section)[:5]
            items = "".join(self._link_item(section, i) for i in ids)
            blocks.append(
                f'<section class="block"><h2><a href="/{section}/">{section.title()}</a></h2>'
                f"<ul>{items}</ul></section>"
            )
        return self._shell("Home", "\n".join(blocks), "home")

    def list_page(self, section: str, number: int) -> str:
        size, pages = self.params.per_page, self.list_pages(section)
        ids = self.section_ids(section)[(number - 1) * size : number * size]
        items = "\n".join(
            f'<li class="teaser"><h2><a href="{self.article_path(section, i)}">'
            f"{escape(self.title(i))}</a></h2><p>{escape(self.body(i)[0][:180])}…</p></li>"
            for i in ids
        )
        window = range(max(1, number - 3), min(pages, number + 3) + 1)
        links = [f'<a href="{self.list_path(section, 1)}">First</a>']
        if number > 1:
            links.append(f'<a rel="prev" href="{self.list_path(section, number - 1)}">Prev</a>')
        links += [f'<a href="{self.list_path(section, n)}">{n}</a>' for n in window]
        if number < pages:
            links.append(f'<a rel="next" href="{self.list_path(section, number + 1)}">Next</a>')
        links.append(f'<a href="{self.list_path(section, pages)}">Last</a>')
        main = (
            f'<h1>{section.title()}</h1><ul class="teasers">\n{items}\n</ul>'
            f'<nav class="pager">{" ".join(links)}</nav>'
        )
        return self._shell(f"{section.title()} page {number}", main, "list")

    def article(self, article_id: int) -> str:
        section = self.section_of(article_id)
        step = len(self.sections)
        related = [
            i
            for i in (article_id + k * step for k in range(-3, self.params.related - 2))
            if i != article_id and 0 <= i < self.params.pages
        ][: self.params.related]
        rel = "".join(self._link_item(section, i) for i in related)
        paragraphs = "\n".join(f"<p>{escape(p)}</p>" for p in self.body(article_id))
        day = 1 + article_id % 28
        crumbs = f'<a href="/">Home</a> / <a href="/{section}/">{section.title()}</a>'
        main = f"""<nav class="crumbs">{crumbs}</nav>
<article><h1>{escape(self.title(article_id))}</h1>
<p class="byline">By Staff Reporter · <time datetime="2024-05-{day:02d}">May {day}, 2024</time></p>
<div class="article-body">
{paragraphs}
</div></article>
<section class="related"><h3>Related</h3><ul>{rel}</ul></section>"""
        return self._shell(self.title(article_id), main, "article")
