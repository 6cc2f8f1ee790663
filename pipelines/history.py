"""What the database already knows about a site list: for resume and recrawl.

The spider asks here which pages an interrupted run already stored (they are
not fetched again; their stored HTML gives their links back), and which
validators (ETag, Last-Modified, content hash) to send with a refetch.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, and_, select

from crawler.items import Outcome

from .schema import as_utc, crawl_runs, decompress_html, pages, url_groups

# ``PageItem.reason`` of a page refetched unchanged (HTTP 304, or the same
# bytes as the stored copy): stored as a new fetch of unchanged content.
NOT_MODIFIED = "not modified"


@dataclass(frozen=True)
class KnownPage:
    url: str
    outcome: str
    depth: int
    run_id: int | None
    fetched_at: datetime | None
    etag: str | None
    last_modified: str | None
    content_hash: str | None
    url_group: str | None


def same_sites_file(a: str | None, b: str | None) -> bool:
    return a is not None and b is not None and os.path.abspath(a) == os.path.abspath(b)


def completed(finish_reason: str | None) -> bool:
    """Whether a run did all it was asked: it ran out of pages ("finished")
    or reached a limit the user set (Scrapy's "closespider_*"). A run stopped
    by Ctrl-C ("shutdown"), killed (no reason) or failed is interrupted."""
    return finish_reason is not None and (
        finish_reason == "finished" or finish_reason.startswith("closespider_")
    )


def interrupted_runs(engine: Engine, sites_file: str, before: int | None = None) -> list[int]:
    """Runs of this site list that were interrupted since its last completed run."""
    with engine.connect() as conn:
        rows = conn.execute(
            select(crawl_runs.c.id, crawl_runs.c.sites_file, crawl_runs.c.finish_reason).order_by(
                crawl_runs.c.id
            )
        ).all()
    runs: list[int] = []
    for run_id, file, reason in rows:
        if before is not None and run_id >= before:
            break
        if not same_sites_file(file, sites_file):
            continue
        if completed(reason):
            runs = []
        else:
            runs.append(run_id)
    return runs


def known_pages(engine: Engine, hosts: list[str]) -> dict[str, KnownPage]:
    """Every stored page of these sites, without its HTML."""
    cols = (
        pages.c.url,
        pages.c.outcome,
        pages.c.depth,
        pages.c.run_id,
        pages.c.fetched_at,
        pages.c.etag,
        pages.c.last_modified,
        pages.c.content_hash,
        pages.c.url_group,
    )
    known: dict[str, KnownPage] = {}
    if not hosts:
        return known
    with engine.connect() as conn:
        result = conn.execution_options(yield_per=1000).execute(
            select(*cols).where(pages.c.site.in_(hosts))
        )
        for row in result:
            known[row.url] = KnownPage(
                url=row.url,
                outcome=row.outcome,
                depth=row.depth or 0,
                run_id=row.run_id,
                fetched_at=as_utc(row.fetched_at),
                etag=row.etag,
                last_modified=row.last_modified,
                content_hash=row.content_hash,
                url_group=row.url_group,
            )
    return known


def stored_html(engine: Engine, urls: list[str]) -> Iterator[tuple[str, str]]:
    """(url, html) of stored good pages, streamed."""
    with engine.connect() as conn:
        for start in range(0, len(urls), 500):
            chunk = urls[start : start + 500]
            query = select(pages.c.url, pages.c.html_zlib).where(
                and_(pages.c.url.in_(chunk), pages.c.outcome == str(Outcome.OK))
            )
            for url, blob in conn.execute(query):
                html = decompress_html(blob)
                if html is not None:
                    yield url, html


def revisit_intervals(engine: Engine, hosts: list[str]) -> dict[str, float]:
    """Seconds between visits, per URL group (see StorePipeline)."""
    if not hosts:
        return {}
    with engine.connect() as conn:
        rows = conn.execute(
            select(url_groups.c.url_group, url_groups.c.revisit_seconds).where(
                url_groups.c.site.in_(hosts)
            )
        )
        return {group: seconds for group, seconds in rows}
