"""Join the pages of an article split over several pages.

Each page is stored as its own article row with its own text and the URL
of its next page (``extractors.pagination``). When a crawl ends, the chains
are followed from their first page: every continuation gets ``part_of`` (the
first page's URL) and ``part`` (1, 2, ...), and the export writes the first
page with the text of all parts in order, each part once. Nothing is
rewritten in the text columns, so a recrawl of one page never doubles it.

A link is followed only to a stored article of the same site whose title is
that of the first page (a "next" link to another story breaks the chain),
at most :data:`extractors.pagination.MAX_PAGES` pages, never in a circle.
"""

from __future__ import annotations

from collections.abc import Iterable
from difflib import SequenceMatcher

from sqlalchemy import Engine, and_, or_, select, update

from extractors.pagination import MAX_PAGES

from .schema import articles

# Titles of the pages of one article: "Story" and "Story (2)" / "Story - page 2".
SAME_TITLE = 0.7


def same_story(a: str | None, b: str | None) -> bool:
    """Whether two page titles name one article (either missing: no evidence against)."""
    if not a or not b:
        return True
    a, b = _title_key(a), _title_key(b)
    return a.startswith(b) or b.startswith(a) or SequenceMatcher(None, a, b).ratio() >= SAME_TITLE


def _title_key(title: str) -> str:
    return "".join(c for c in title.lower() if c.isalpha())


def chains(pages: dict[str, tuple[str | None, str | None, str]]) -> dict[str, list[str]]:
    """First page -> its continuations in order, from ``url -> (next_page,
    title, site)`` of the stored articles."""
    links = {
        url: nxt
        for url, (nxt, _, site) in pages.items()
        if nxt and nxt != url and nxt in pages and pages[nxt][2] == site
    }
    pointed = set(links.values())
    joined: dict[str, list[str]] = {}
    for head in links:
        if head in pointed:
            continue
        title = pages[head][1]
        seen, parts, url = {head}, [], links.get(head)
        while url and url not in seen and len(parts) < MAX_PAGES - 1:
            if not same_story(title, pages[url][1]):
                break
            parts.append(url)
            seen.add(url)
            url = links.get(url)
        if parts:
            joined[head] = parts
    return joined


def join_parts(engine: Engine, sites: Iterable[str] | None = None) -> int:
    """Recompute ``part_of`` / ``part`` of the given sites' articles (all
    sites when None); returns how many pages are joined to a first page.

    Reads only the pages that link a next page or were parts, and the pages
    they link to: a crawl of many single-page articles costs one query."""
    columns = (
        articles.c.url, articles.c.next_page, articles.c.title, articles.c.site,
        articles.c.page_type, articles.c.duplicate_of, articles.c.part_of, articles.c.part,
    )  # fmt: skip
    where = [or_(articles.c.next_page.is_not(None), articles.c.part_of.is_not(None))]
    if sites is not None:
        where.append(articles.c.site.in_(list(sites)))
    with engine.begin() as conn:
        rows = {r.url: r for r in conn.execute(select(*columns).where(and_(*where)))}
        targets = sorted({r.next_page for r in rows.values() if r.next_page} - rows.keys())
        for i in range(0, len(targets), _CHUNK):
            chunk = targets[i : i + _CHUNK]
            rows.update(
                (r.url, r) for r in conn.execute(select(*columns).where(articles.c.url.in_(chunk)))
            )
        pages = {
            url: (r.next_page, r.title, r.site)
            for url, r in rows.items()
            if r.page_type == "article" and r.duplicate_of is None
        }
        wanted = {
            part: (head, i)
            for head, parts in chains(pages).items()
            for i, part in enumerate(parts, 1)
        }
        for url, r in rows.items():
            if (r.part_of, r.part) != wanted.get(url, (None, None)):
                head, i = wanted.get(url, (None, None))
                conn.execute(
                    update(articles).where(articles.c.url == url).values(part_of=head, part=i)
                )
    return len(wanted)


_CHUNK = 500
