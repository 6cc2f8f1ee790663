"""One batch of stored items, written inside one transaction.

Pure SQL over a connection: pages (upsert, last good content kept), list
records (replaced per page), screenshots (by hash), articles (a new version
only when the cleaned text changes; exact duplicates keep no text), MinHash
band keys of original articles, and each URL group's revisit interval.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, and_, case, delete, func, insert, select, update

from crawler.items import Outcome
from extractors.minhash import (
    band_keys,
    jaccard,
    normalize_text,
    pack,
    signature,
    text_hash,
    unpack,
)

from .history import NOT_MODIFIED
from .schema import (
    article_bands,
    article_versions,
    articles,
    compress_html,
    dialect_insert,
    fit_columns,
    list_records,
    pages,
    screenshots,
    url_groups,
    utcnow,
)

# Columns that describe the content: kept from the last good fetch when a
# later fetch of the same URL fails or finds it unchanged.
_CONTENT_COLUMNS = (
    "final_url",
    "content_type",
    "etag",
    "last_modified",
    "encoding",
    "content_hash",
    "title",
    "html_zlib",
    "html_size",
    "changed_at",
    "screenshot",
)
_LIST = "list"


@dataclass(frozen=True)
class RevisitParams:
    """A URL group's revisit interval: halved after a visit that found a
    change, stretched after one that did not (multiplicative decrease /
    increase, the shape of TCP's congestion window; untuned defaults chosen
    for news sites: hubs settle near the minimum, static articles at the max)."""

    start: float = 6 * 3600.0
    minimum: float = 3600.0
    maximum: float = 7 * 24 * 3600.0
    on_change: float = 0.5
    on_same: float = 1.5

    @classmethod
    def from_settings(cls, s: Any) -> RevisitParams:  # noqa: ANN401
        return cls(
            start=s.getfloat("SITESIFT_REVISIT_START", cls.start),
            minimum=s.getfloat("SITESIFT_REVISIT_MIN", cls.minimum),
            maximum=s.getfloat("SITESIFT_REVISIT_MAX", cls.maximum),
        )

    def next(self, seconds: float, changes: int, same: int) -> float:
        value = seconds * self.on_change**changes * self.on_same**same
        return min(self.maximum, max(self.minimum, value))


def _when(value: str | None) -> datetime:
    return datetime.fromisoformat(value) if value else utcnow()


def _published_at(value: str | None) -> datetime | None:
    """The publish time as UTC for date filters: a time with an offset is
    converted (SQLite keeps no offset: it was dropped, not applied); a local
    time without one is kept as it stands."""
    if not value:
        return None
    try:
        when = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return when.astimezone(UTC) if when.tzinfo else when


def not_modified(record: dict[str, Any]) -> bool:
    return record.get("reason") == NOT_MODIFIED


# The run that fetched a record, when another run writes it (the spool of a
# crawl stopped by force is stored by the next run, which must not be taken
# for the one that fetched its pages: resume reads who stored what).
FETCHED_BY = "fetched_by_run"


def page_row(record: dict[str, Any], run_id: int | None) -> dict[str, Any]:
    """The ``pages`` row of an item record."""
    fetched = _when(record.get("fetched_at"))
    ok = record["outcome"] == str(Outcome.OK)
    html = record.get("html") if ok else None
    shot = record.get("screenshot") or {}
    return {
        "url": record["url"],
        "final_url": record.get("final_url"),
        "site": record["site"],
        "run_id": run_id,
        # an unchanged refetch is still a good page
        "outcome": str(Outcome.OK) if not_modified(record) else record["outcome"],
        "reason": record.get("reason"),
        "status": record.get("status"),
        "fetched_at": fetched,
        "fetch_count": 1,
        "content_type": record.get("content_type"),
        "etag": record.get("etag"),
        "last_modified": record.get("last_modified"),
        "encoding": record.get("encoding"),
        "content_hash": record.get("content_hash"),
        "url_group": record.get("url_group"),
        "depth": record.get("depth"),
        "referer": record.get("referer"),
        "title": record.get("title"),
        "html_zlib": compress_html(html),
        "html_size": len(html) if html is not None else None,
        "changed_at": fetched if ok else None,
        "screenshot": shot.get("sha256"),
    }


def write_batch(
    conn: Connection,
    records: list[dict[str, Any]],
    run_id: int | None,
    revisit: RevisitParams,
    released: set[str] | None = None,
) -> Counter[str]:
    """Write one batch; the caller owns the transaction. Returns counts.
    ``released`` receives the screenshots no page refers to any more (their
    rows are gone); delete their files once the transaction is committed."""
    counts: Counter[str] = Counter()
    records = [_without_nul(r) for r in records]
    for chunk in _distinct_urls(records):
        counts.update(_write_chunk(conn, chunk, run_id, revisit, released))
    return counts


def _write_chunk(
    conn: Connection,
    records: list[dict[str, Any]],
    run_id: int | None,
    revisit: RevisitParams,
    released: set[str] | None = None,
) -> Counter[str]:
    counts: Counter[str] = Counter()
    urls = [r["url"] for r in records]
    previous = _stored_hashes(conn, urls)
    old_shots = _stored_screenshots(conn, urls)
    _upsert_pages(conn, [page_row(r, r.get(FETCHED_BY) or run_id) for r in records])
    good = [r for r in records if r["outcome"] == str(Outcome.OK) and not not_modified(r)]
    _write_screenshots(conn, records)  # an error or blocked page's picture too
    gone = _release_screenshots(conn, old_shots)
    if released is not None:
        released |= gone
    _write_records(conn, [r for r in good if r.get("records") is not None])
    for record in good:
        text = record.get("text")
        words = text and (record.get("text_hash") or normalize_text(text))
        if words and record.get("page_type") != _LIST:
            counts[_write_article(conn, record, record.get(FETCHED_BY) or run_id)] += 1
    _adapt_revisit(conn, records, previous, revisit)
    return counts


def _without_nul(value: Any) -> Any:  # noqa: ANN401
    """The value with NUL characters dropped from its strings, nested ones
    included: PostgreSQL refuses them in text and JSON, and a response header
    or a list record of a hostile page can hold one."""
    if isinstance(value, str):
        return value.replace("\x00", "") if "\x00" in value else value
    if isinstance(value, dict):
        return {k: _without_nul(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_without_nul(v) for v in value]
    return value


def _distinct_urls(records: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Consecutive chunks with each URL at most once (an upsert statement
    touches a row once); a URL seen twice starts a new chunk, in order."""
    chunks: list[list[dict[str, Any]]] = [[]]
    seen: set[str] = set()
    for record in records:
        if record["url"] in seen:
            chunks.append([])
            seen = set()
        chunks[-1].append(record)
        seen.add(record["url"])
    return [c for c in chunks if c]


def _stored_hashes(conn: Connection, urls: list[str]) -> dict[str, str | None]:
    rows = conn.execute(select(pages.c.url, pages.c.content_hash).where(pages.c.url.in_(urls)))
    return dict(rows.tuples().all())


def _stored_screenshots(conn: Connection, urls: list[str]) -> set[str]:
    query = select(pages.c.screenshot).where(pages.c.url.in_(urls), pages.c.screenshot.is_not(None))
    return set(conn.execute(query).scalars())


def _release_screenshots(conn: Connection, hashes: set[str]) -> set[str]:
    """Of the screenshots pages just let go of (re-photographed), those no
    page refers to any more: shared pictures stay. Their rows are deleted."""
    if not hashes:
        return set()
    query = select(pages.c.screenshot).where(pages.c.screenshot.in_(hashes)).distinct()
    gone = hashes - set(conn.execute(query).scalars())
    if gone:
        conn.execute(delete(screenshots).where(screenshots.c.sha256.in_(gone)))
    return gone


def _upsert_pages(conn: Connection, rows: list[dict[str, Any]]) -> None:
    if not rows:
        return
    stmt = dialect_insert(conn, pages)
    ex = stmt.excluded
    fresh = and_(ex.outcome == str(Outcome.OK), func.coalesce(ex.reason, "") != NOT_MODIFIED)
    changed = and_(fresh, pages.c.content_hash.is_distinct_from(ex.content_hash))
    set_: dict[str, Any] = {
        col.name: ex[col.name]
        for col in pages.columns
        if col.name not in ("id", "url", "fetch_count", *_CONTENT_COLUMNS)
    }
    for name in _CONTENT_COLUMNS:
        set_[name] = case((fresh, ex[name]), else_=pages.c[name])
    # A refetch that was not photographed keeps the page's last picture.
    set_["screenshot"] = func.coalesce(set_["screenshot"], pages.c.screenshot)
    set_["changed_at"] = case((changed, ex.fetched_at), else_=pages.c.changed_at)
    set_["fetch_count"] = pages.c.fetch_count + 1
    rows = [fit_columns(pages, row) for row in rows]
    conn.execute(stmt.on_conflict_do_update(index_elements=[pages.c.url], set_=set_), rows)


def _write_screenshots(conn: Connection, records: list[dict[str, Any]]) -> None:
    rows = []
    for record in records:
        shot = record.get("screenshot") or {}
        if shot.get("sha256") and shot.get("path"):
            rows.append(
                {
                    "sha256": shot["sha256"],
                    "path": str(shot["path"]),
                    "width": shot.get("width"),
                    "height": shot.get("height"),
                    "page_url": record["url"],
                    "taken_at": _when(record.get("fetched_at")),
                }
            )
    if rows:
        stmt = dialect_insert(conn, screenshots).on_conflict_do_nothing(
            index_elements=[screenshots.c.sha256]
        )
        conn.execute(stmt, rows)


def _write_records(conn: Connection, records: list[dict[str, Any]]) -> None:
    if not records:
        return
    conn.execute(
        delete(list_records).where(list_records.c.page_url.in_([r["url"] for r in records]))
    )
    rows = [
        {
            "page_url": r["url"],
            "site": r["site"],
            "position": i,
            "record": rec,
            "fetched_at": _when(r.get("fetched_at")),
        }
        for r in records
        for i, rec in enumerate(r["records"] or [])
    ]
    if rows:
        conn.execute(insert(list_records), rows)


def _article_values(record: dict[str, Any], run_id: int | None) -> dict[str, Any]:
    text = record["text"]
    # Hashed by the dedup pipeline already, with the crawl's MinHash settings
    # (in its worker thread); here only when it did not run.
    sig = record.get("minhash")
    sig = tuple(sig) if sig else (None if record.get("text_hash") else signature(text))
    return {
        "url": record["url"],
        "site": record["site"],
        "url_group": record.get("url_group"),
        "page_type": record.get("page_type"),
        "length_class": record.get("length_class"),
        "title": record.get("title"),
        "text": text,
        "text_hash": record.get("text_hash") or text_hash(text),
        "minhash": pack(sig) if sig else None,
        "published": record.get("published"),
        "published_at": _published_at(record.get("published")),
        "author": record.get("author"),
        "language": record.get("language"),
        "method": record.get("method"),
        "confidence": record.get("confidence"),
        "image": record.get("image"),
        "next_page": record.get("next_page"),
        "duplicate_of": record.get("duplicate_of"),
        "similarity": None,
        "fetched_at": _when(record.get("fetched_at")),
        "run_id": run_id,
    }


def _write_article(conn: Connection, record: dict[str, Any], run_id: int | None) -> str:
    """Insert, version or touch one article; returns what happened."""
    values = fit_columns(articles, _article_values(record, run_id))
    original = values["duplicate_of"]
    if original == values["url"]:
        values["duplicate_of"] = original = None
    if original:
        theirs = conn.execute(
            select(articles.c.text_hash, articles.c.minhash).where(articles.c.url == original)
        ).first()
        if theirs is not None and theirs.text_hash == values["text_hash"]:
            values["text"] = None  # an exact copy: the original holds the text
            values["similarity"] = 1.0
        elif theirs is not None and theirs.minhash and values["minhash"]:
            values["similarity"] = jaccard(unpack(theirs.minhash), unpack(values["minhash"]))
    current = conn.execute(
        select(
            articles.c.id,
            articles.c.text_hash,
            articles.c.version,
            articles.c.title,
            articles.c.text,
            articles.c.published,
            articles.c.author,
            articles.c.method,
            articles.c.changed_at,
        ).where(articles.c.url == values["url"])
    ).first()
    sig_blob = values["minhash"]
    if current is None:
        conn.execute(
            insert(articles).values(
                **values,
                version=1,
                first_seen=values["fetched_at"],
                changed_at=values["fetched_at"],
            )
        )
        outcome = "new"
    elif current.text_hash == values["text_hash"]:
        conn.execute(
            update(articles)
            .where(articles.c.id == current.id)
            .values(
                fetched_at=values["fetched_at"],
                run_id=run_id,
                duplicate_of=original,
                similarity=values["similarity"],
            )
        )
        return "unchanged"
    else:
        _release_copies(conn, values["url"], current.text, current.text_hash)
        conn.execute(
            insert(article_versions).values(
                url=values["url"],
                version=current.version,
                title=current.title,
                text=current.text,
                text_hash=current.text_hash,
                published=current.published,
                author=current.author,
                method=current.method,
                first_seen=current.changed_at,
                replaced_at=values["fetched_at"],
            )
        )
        conn.execute(
            update(articles)
            .where(articles.c.id == current.id)
            .values(**values, version=current.version + 1, changed_at=values["fetched_at"])
        )
        outcome = "changed"
    conn.execute(delete(article_bands).where(article_bands.c.url == values["url"]))
    if sig_blob and not original:
        keys = band_keys(unpack(sig_blob))
        conn.execute(insert(article_bands), [{"key": k, "url": values["url"]} for k in keys])
    return outcome if not original else f"{outcome}_duplicate"


def _release_copies(conn: Connection, url: str, old_text: str | None, old_hash: str) -> None:
    """The exact copies of an article whose text is changing keep the text
    they copy: the first becomes the original (text and MinHash bands), the
    others its copies. They held no text of their own, so it would be lost."""
    copies = conn.execute(
        select(articles.c.url, articles.c.minhash)
        .where(articles.c.duplicate_of == url, articles.c.text.is_(None))
        .where(articles.c.text_hash == old_hash)
        .order_by(articles.c.id)
    ).all()
    if not copies or old_text is None:
        return
    heir, blob = copies[0]
    conn.execute(
        update(articles)
        .where(articles.c.url == heir)
        .values(text=old_text, duplicate_of=None, similarity=None)
    )
    if blob:
        conn.execute(
            insert(article_bands), [{"key": k, "url": heir} for k in band_keys(unpack(blob))]
        )
    others = [copy_url for copy_url, _ in copies[1:]]
    if others:
        conn.execute(update(articles).where(articles.c.url.in_(others)).values(duplicate_of=heir))


def _adapt_revisit(
    conn: Connection,
    records: list[dict[str, Any]],
    previous: dict[str, str | None],
    params: RevisitParams,
) -> None:
    """Refetches of known pages move their group's interval."""
    changes: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for record in records:
        group, url = record.get("url_group"), record["url"]
        if not group or url not in previous or record["outcome"] != str(Outcome.OK):
            continue
        same = not_modified(record) or previous[url] == record.get("content_hash")
        changes[(group, record["site"])][1 if same else 0] += 1
    if not changes:
        return
    stored = dict(
        conn.execute(
            select(url_groups.c.url_group, url_groups.c.revisit_seconds).where(
                url_groups.c.url_group.in_([g for g, _ in changes])
            )
        ).all()
    )
    now = utcnow()
    for (group, site), (changed, same) in changes.items():
        seconds = params.next(stored.get(group, params.start), changed, same)
        stmt = dialect_insert(conn, url_groups).values(
            url_group=group,
            site=site,
            revisit_seconds=seconds,
            visits=changed + same,
            changes=changed,
            updated_at=now,
        )
        conn.execute(
            stmt.on_conflict_do_update(
                index_elements=[url_groups.c.url_group],
                set_={
                    "revisit_seconds": seconds,
                    "visits": url_groups.c.visits + changed + same,
                    "changes": url_groups.c.changes + changed,
                    "updated_at": now,
                },
            )
        )
