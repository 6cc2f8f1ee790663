"""Export stored articles from the database to JSONL, JSON, CSV or Markdown,
and the records of list pages (``records=True``) to JSONL, JSON or CSV.

Rows are streamed (``yield_per``: a server-side cursor on PostgreSQL), so
memory stays flat however many articles there are. Markdown writes one file
per article with the metadata as YAML front matter; file names are hashes
of the URL under a sanitised site folder, never the raw URL. The folder
mirrors the selection, as a file export does: a manifest names the files an
export wrote, and the next export into that folder removes those of them it
did not write again (an article now filtered out, or whose page is gone);
files it did not write are never touched.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import json
import re
import stat
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any
from urllib.parse import unquote, urlsplit

from sqlalchemy import Connection, Engine, Select, and_, exists, func, null, or_, select

from extractors.document import Document
from extractors.markdown import (
    from_markdown,
    line_kinds,
    markdown_heading,
    records_markdown,
    to_markdown,
)
from extractors.result import Record

from .schema import articles, as_utc, decompress_html, list_records, pages

FORMATS = ("jsonl", "json", "csv", "markdown")
FIELDS = (
    "url", "site", "url_group", "page_type", "language", "title", "author", "published",
    "image", "fetched_at", "first_seen", "changed_at", "version", "method", "confidence",
    "duplicate_of", "similarity", "page_outcome", "page_status", "text",
)  # fmt: skip
# Of the page the article was extracted from, its latest fetch: an article
# is kept when its page is gone (nothing stored is lost), and says so.
PAGE_FIELDS = {"page_outcome": pages.c.outcome, "page_status": pages.c.status}
# HTTP statuses saying a page was removed (not a passing error).
GONE_STATUSES = (404, 410)
# One row per record of a list page: the page, the record's place on it, and
# what the list extractor read (extractors.result.Record; region 0 is the
# page's main list, 1, 2, ... its other regions of records).
RECORD_FIELDS = (
    "page_url", "site", "url_group", "position", "region", "title", "url", "date", "text",
    "fetched_at",
)  # fmt: skip
RECORD_FORMATS = ("jsonl", "json", "csv", "markdown")  # Markdown: a file per list page
# The front matter of a list page's Markdown file (then its count of records).
PAGE_HEAD = ("url", "site", "url_group", "fetched_at")
_BATCH = 500
_UNSAFE = re.compile(r"[^\w.-]+", re.UNICODE)
_EXTENSION = re.compile(r"\.[A-Za-z0-9]{1,5}$")
MAX_SLUG = 60  # characters of a Markdown file's readable part (CJK: 3 bytes each)
# The files a Markdown export wrote, relative to its folder (one per line).
MANIFEST = ".sitesift-export"


@dataclass(frozen=True)
class ExportFilter:
    """Which articles to export; empty tuples mean all."""

    sites: tuple[str, ...] = ()
    languages: tuple[str, ...] = ()
    page_types: tuple[str, ...] = ()
    # URL groups, exactly or with ``*`` wildcards (``127.0.0.1:8001/news/*``).
    url_groups: tuple[str, ...] = ()
    since: datetime | None = None
    until: datetime | None = None
    date_field: str = "fetched"  # or "published"
    include_duplicates: bool = False
    # Leave out the articles whose page last answered 404 or 410.
    skip_gone: bool = False

    def where(self) -> list[Any]:
        clauses: list[Any] = []
        if self.sites:
            clauses.append(articles.c.site.in_(self.sites))
        if self.languages:
            clauses.append(articles.c.language.in_(self.languages))
        if self.page_types:
            clauses.append(articles.c.page_type.in_(self.page_types))
        if self.url_groups:
            clauses.append(
                or_(*(articles.c.url_group.like(_like(g), escape="\\") for g in self.url_groups))
            )
        column = (
            articles.c.published_at if self.date_field == "published" else articles.c.fetched_at
        )
        # In UTC, as stored: SQLite compares the digits and drops the offset.
        # A multi-page article was fetched when its latest page was: a
        # later page that changed is exported with its first.
        if self.date_field == "published":
            if self.since is not None:
                clauses.append(column >= _in_utc(self.since))
            if self.until is not None:
                clauses.append(column < _in_utc(self.until))
        else:
            if self.since is not None:
                since = _in_utc(self.since)
                clauses.append(or_(column >= since, _a_later_page(_PARTS.c.fetched_at >= since)))
            if self.until is not None:
                until = _in_utc(self.until)
                clauses.append(and_(column < until, ~_a_later_page(_PARTS.c.fetched_at >= until)))
        if not self.include_duplicates:
            clauses.append(articles.c.duplicate_of.is_(None))
        if self.skip_gone:
            clauses.append(or_(pages.c.status.is_(None), pages.c.status.not_in(GONE_STATUSES)))
        # A later page of a multi-page article is exported inside its first page.
        clauses.append(articles.c.part_of.is_(None))
        return clauses


_PARTS = articles.alias("parts")


def _a_later_page(condition: Any) -> Any:  # noqa: ANN401 - a SQLAlchemy clause
    """Whether a later page of the article (``part_of`` it) meets ``condition``."""
    return exists().where(_PARTS.c.part_of == articles.c.url, condition)


def _in_utc(moment: datetime) -> datetime:
    """A bound in UTC (a naive one is taken as UTC already)."""
    return moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)


def _like(group: str) -> str:
    """A LIKE pattern where only ``*`` is a wildcard: ``%`` and ``_`` are
    common in URL groups (``host:8001_/*``) and must match themselves."""
    for char in ("\\", "%", "_"):
        group = group.replace(char, "\\" + char)
    return group.replace("*", "%")


def _with_page() -> Any:  # noqa: ANN401 - a SQLAlchemy join
    return articles.outerjoin(pages, pages.c.url == articles.c.url)


def query(flt: ExportFilter) -> Select:
    columns = [
        PAGE_FIELDS[name].label(name) if name in PAGE_FIELDS else articles.c[name]
        for name in FIELDS
    ]
    return select(*columns).select_from(_with_page()).where(and_(True, *flt.where()))


def count(engine: Engine, flt: ExportFilter) -> int:
    with engine.connect() as conn:
        return conn.execute(
            select(func.count()).select_from(_with_page()).where(and_(True, *flt.where()))
        ).scalar_one()


def iter_articles(
    engine: Engine, flt: ExportFilter, with_html: bool = False
) -> Iterator[dict[str, Any]]:
    """Matching articles as dicts, oldest first, streamed; a multi-page
    article's text holds its pages in order (pipelines/parts.py).
    ``with_html``: each also has the stored HTML of its pages (``html``: the
    page's, then its later parts' in order), which a Markdown export reads
    the text's headings and lists from."""
    stmt = query(flt).add_columns(articles.c.next_page).order_by(articles.c.id)
    if with_html:
        stmt = stmt.add_columns(pages.c.html_zlib)
    with engine.connect() as conn, engine.connect() as parts:
        result = conn.execution_options(yield_per=_BATCH).execute(stmt)
        for row in result:
            record = dict(row._mapping)
            if with_html:
                record["html"] = [decompress_html(record.pop("html_zlib"))]
            if record.pop("next_page"):
                later = _later_parts(parts, record["url"], with_html)
                record["text"] = _joined(record["text"], [text for text, _ in later])
                if with_html:
                    record["html"] += [html for _, html in later]
            elif record["text"] is None and record["duplicate_of"]:  # an exact copy keeps none
                record["text"] = _original_text(parts, record["duplicate_of"])
            for name in ("fetched_at", "first_seen", "changed_at"):
                value = as_utc(record[name])
                record[name] = value.isoformat() if value else None
            yield record


def _records_where(flt: ExportFilter) -> list[Any]:
    """The filters that apply to records: site, URL group, fetched date."""
    clauses: list[Any] = []
    if flt.sites:
        clauses.append(list_records.c.site.in_(flt.sites))
    if flt.url_groups:
        clauses.append(
            or_(*(pages.c.url_group.like(_like(g), escape="\\") for g in flt.url_groups))
        )
    if flt.since is not None:
        clauses.append(list_records.c.fetched_at >= _in_utc(flt.since))
    if flt.until is not None:
        clauses.append(list_records.c.fetched_at < _in_utc(flt.until))
    return clauses


def _records_from() -> Any:  # noqa: ANN401 - a SQLAlchemy join
    return list_records.outerjoin(pages, pages.c.url == list_records.c.page_url)


def count_records(engine: Engine, flt: ExportFilter, by_page: bool = False) -> int:
    """How many records match (``by_page``: how many list pages hold them)."""
    counted = func.count(list_records.c.page_url.distinct()) if by_page else func.count()
    stmt = select(counted).select_from(_records_from()).where(and_(True, *_records_where(flt)))
    with engine.connect() as conn:
        return conn.execute(stmt).scalar_one()


def iter_records(
    engine: Engine, flt: ExportFilter, by_page: bool = False
) -> Iterator[dict[str, Any]]:
    """The records of the matching list pages, page by page in the order
    they were stored, each page's in its order; streamed. ``by_page``:
    ordered by page URL, each also with its page's title (``page_title``):
    a page's records stay together even when crawlers wrote pages at once."""
    stmt = (
        select(list_records.c.page_url, list_records.c.site, pages.c.url_group,
               list_records.c.position, list_records.c.record, list_records.c.fetched_at)
        .select_from(_records_from())
        .where(and_(True, *_records_where(flt)))
    )  # fmt: skip
    if by_page:
        stmt = stmt.add_columns(pages.c.title.label("page_title")).order_by(
            list_records.c.page_url, list_records.c.position
        )
    else:
        stmt = stmt.order_by(list_records.c.id)
    with engine.connect() as conn:
        for row in conn.execution_options(yield_per=_BATCH).execute(stmt):
            record = dict(row._mapping)
            entry = record.pop("record") or {}
            fetched = as_utc(record.pop("fetched_at"))
            record["region"] = entry.get("region", 0)  # stored before regions: the main list
            record.update({name: entry.get(name) for name in ("title", "url", "date", "text")})
            record["fetched_at"] = fetched.isoformat() if fetched else None
            yield record


def iter_record_pages(engine: Engine, flt: ExportFilter) -> Iterator[dict[str, Any]]:
    """The matching list pages, each with its title and its records
    (``records``, as ``extractors.result.Record``): what a Markdown export
    writes one file of."""
    page: dict[str, Any] | None = None
    for row in iter_records(engine, flt, by_page=True):
        if page is None or row["page_url"] != page["url"]:
            if page is not None:
                yield page
            head = {name: row[name] for name in ("site", "url_group", "fetched_at")}
            page = {"url": row["page_url"], "title": row["page_title"], **head, "records": []}
        page["records"].append(
            Record(
                text=row["text"] or "",
                url=row["url"],
                title=row["title"],
                date=row["date"],
                region=row["region"],
            )
        )
    if page is not None:
        yield page


def _original_text(conn: Connection, url: str) -> str | None:
    text = conn.execute(select(articles.c.text).where(articles.c.url == url)).scalar()
    return _joined(text, [later for later, _ in _later_parts(conn, url)])


def _joined(text: str | None, later: list[str | None]) -> str | None:
    """A multi-page article's text: its first page's, then its later parts'."""
    pages = [t for t in (text, *later) if t]
    return "\n".join(pages) if pages else text


def _later_parts(
    conn: Connection, url: str, with_html: bool = False
) -> list[tuple[str | None, str | None]]:
    """The text of a multi-page article's later parts, in order, each with
    its page's stored HTML when ``with_html`` (else None)."""
    html, source = null(), articles  # the pages table only when HTML is asked for
    if with_html:
        html = pages.c.html_zlib
        source = articles.outerjoin(pages, pages.c.url == articles.c.url)
    stmt = (
        select(articles.c.text, html)
        .select_from(source)
        .where(articles.c.part_of == url)
        .order_by(articles.c.part)
    )
    return [(text, decompress_html(blob)) for text, blob in conn.execute(stmt)]


# -- writers --------------------------------------------------------------------


def write_jsonl(records: Iterator[dict[str, Any]], out: IO[str]) -> Iterator[None]:
    for record in records:
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
        yield


def write_json(records: Iterator[dict[str, Any]], out: IO[str]) -> Iterator[None]:
    """One JSON array, for readers that take a whole document (spreadsheet
    imports, ``json.load``); written record by record, like JSON lines."""
    out.write("[")
    for n, record in enumerate(records):
        out.write(("\n" if n == 0 else ",\n") + json.dumps(record, ensure_ascii=False))
        yield
    out.write("\n]\n")


# A cell a spreadsheet would read as a formula (OWASP's CSV injection list).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def write_csv(
    records: Iterator[dict[str, Any]],
    out: IO[str],
    excel: bool = False,
    fields: tuple[str, ...] = FIELDS,
) -> Iterator[None]:
    """``excel``: a text cell that would start a formula gets a leading
    ``'``, which the spreadsheet shows as text: crawled titles and text are
    anyone's words (``=HYPERLINK(...)``)."""
    writer = csv.DictWriter(out, fieldnames=fields, extrasaction="ignore")
    writer.writeheader()
    for record in records:
        row = {k: "" if v is None else v for k, v in record.items()}
        if excel:
            row = {k: f"'{v}" if isinstance(v, str) and v.startswith(_FORMULA_START) else v
                   for k, v in row.items()}  # fmt: skip
        writer.writerow(row)
        yield


def markdown_path(root: Path, record: dict[str, Any]) -> Path:
    """``<site>/<last URL segment>-<hash of the URL>.md``: readable, and
    stable, unique and safe on every OS (the segment is sanitised and cut,
    the hash tells pages of one name apart)."""
    site = _UNSAFE.sub("_", record["site"] or "unknown").strip("._") or "unknown"
    digest = hashlib.sha256(record["url"].encode("utf-8")).hexdigest()[:16]
    segment = unquote(urlsplit(record["url"]).path).rstrip("/").rpartition("/")[2]
    slug = _UNSAFE.sub("-", _EXTENSION.sub("", segment))[:MAX_SLUG].strip("._-")
    return root / site / (f"{slug}-{digest}.md" if slug else f"{digest}.md")


def markdown_document(record: dict[str, Any]) -> str:
    """Front matter (YAML; values JSON-quoted, which YAML reads) and the text,
    a blank line between its lines: each is a paragraph, a heading, a list
    item, a table row or a code line, and Markdown joins lines that only a
    newline parts into one paragraph. With the stored page (``html``), its
    headings, list items, quotations, tables and code are marked up as the
    page marks them (``extractors.markdown``). The text is anyone's words, so
    what Markdown would read as markup in it is escaped: a line "# 1" stays
    a line, "<script>" stays text."""
    lines = ["---"]
    for name in FIELDS:
        if name != "text":
            lines.append(f"{name}: {json.dumps(record.get(name), ensure_ascii=False)}")
    lines.append("---")
    title = record.get("title")
    body = f"{markdown_heading(title)}\n\n" if title else ""
    text = (record.get("text") or "").strip()
    body += to_markdown(text, _kinds(record, text)) + "\n"
    return "\n".join(lines) + "\n\n" + body


def _kinds(record: dict[str, Any], text: str) -> list[str] | None:
    """What each line of the article's text is on its stored pages (a
    heading, a list item...: ``extractors.markdown.line_kinds``); None
    without them."""
    htmls = [html for html in record.get("html") or () if html]
    if not text or not htmls:
        return None
    return line_kinds([Document(html, url=record["url"]) for html in htmls], text)


def record_page_markdown(page: dict[str, Any]) -> str:
    """A list page (:func:`iter_record_pages`) as a Markdown file: front
    matter as for an article, its title, and its records, each title linked
    to its page (``extractors.markdown.records_markdown``)."""
    lines = ["---"]
    lines += [f"{name}: {json.dumps(page.get(name), ensure_ascii=False)}" for name in PAGE_HEAD]
    lines += [f"records: {len(page['records'])}", "---"]
    title = page.get("title")
    body = f"{markdown_heading(title)}\n\n" if title else ""
    body += records_markdown(page["records"]) + "\n"
    return "\n".join(lines) + "\n\n" + body


def write_markdown(
    records: Iterator[dict[str, Any]],
    root: Path,
    written: set[Path],
    document: Callable[[dict[str, Any]], str] = markdown_document,
) -> Iterator[None]:
    """One file per record (an article; a list page with ``document`` =
    :func:`record_page_markdown`); ``written`` collects their paths."""
    for record in records:
        path = markdown_path(root, record)
        written.add(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".md.part")
        try:
            tmp.write_text(document(record), encoding="utf-8")
            tmp.replace(path)
        except OSError:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise
        if path.name != (legacy := path.name.rpartition("-")[2]):
            # an export before names had a readable part: its copy goes
            with contextlib.suppress(FileNotFoundError):
                path.with_name(legacy).unlink()
        yield


def _manifest(root: Path) -> set[Path]:
    """The files the last export into ``root`` wrote: only .md paths that
    stay inside it (the manifest is a file anyone could edit)."""
    try:
        lines = (root / MANIFEST).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return set()
    base = root.resolve()
    found = set()
    for line in lines:
        path = root / line
        if line.endswith(".md") and path.resolve().is_relative_to(base):
            found.add(path)
    return found


def _write_manifest(root: Path, files: set[Path]) -> None:
    """Written whole or not at all (a full disk leaves no half manifest)."""
    tmp = root / (MANIFEST + ".part")
    try:
        tmp.write_text("".join(f"{p.relative_to(root).as_posix()}\n" for p in sorted(files)),
                       encoding="utf-8")  # fmt: skip
        tmp.replace(root / MANIFEST)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def mirror_markdown(
    records: Iterator[dict[str, Any]],
    root: Path,
    removed: list[Path],
    document: Callable[[dict[str, Any]], str] = markdown_document,
) -> Iterator[None]:
    """:func:`write_markdown`, then remove the files the previous export
    into ``root`` wrote and this one did not (into ``removed``), and their
    emptied site folders. An export that fails keeps every file, and its
    manifest names both exports' files, so the next one still prunes them."""
    earlier = _manifest(root)
    written: set[Path] = set()
    try:
        yield from write_markdown(records, root, written, document)
    except BaseException:
        with contextlib.suppress(OSError):
            _write_manifest(root, earlier | written)
        raise
    kept: set[Path] = set()  # could not be removed: named again, for the next export
    for path in sorted(earlier - written):
        try:
            path.unlink()
            removed.append(path)
        except FileNotFoundError:
            continue
        except OSError:
            kept.add(path)
            continue
        if path.parent != root:
            with contextlib.suppress(OSError):
                path.parent.rmdir()  # a site folder, only when empty
    _write_manifest(root, written | kept)


def read_markdown(path: Path) -> dict[str, Any]:
    """The record of an exported Markdown file (for round trips)."""
    raw = path.read_text(encoding="utf-8")
    _, head, body = raw.split("---\n", 2)
    record: dict[str, Any] = {}
    for line in head.splitlines():
        name, _, value = line.partition(": ")
        record[name] = json.loads(value)
    body = body.lstrip("\n")
    if record.get("title"):
        body = body.removeprefix(f"{markdown_heading(record['title'])}\n\n")
    record["text"] = "\n".join(from_markdown(body.rstrip("\n"))) or None
    return record


# -- the command ------------------------------------------------------------------


def export(
    engine: Engine,
    fmt: str,
    output: str,
    flt: ExportFilter = ExportFilter(),
    progress: Callable[[int, int], None] | None = None,
    *,
    excel: bool = False,
    records: bool = False,
    removed: list[Path] | None = None,
) -> int:
    """Write every matching article (``records``: every record of the
    matching list pages; in Markdown, every list page with its records) to
    ``output``; returns how many. A Markdown export adds the files of the
    earlier one it removed to ``removed``.
    ``excel``: a CSV for spreadsheets: it starts with a byte-order mark,
    which Excel needs to read UTF-8 (Chinese text) right (other CSV readers
    would take it for text), and no cell starts a formula (``write_csv``)."""
    allowed = RECORD_FORMATS if records else FORMATS
    if fmt not in allowed:
        raise ValueError(f"unknown format {fmt!r}; choose from {', '.join(allowed)}")
    if excel and fmt != "csv":
        raise ValueError("excel is for CSV only")
    markdown = fmt == "markdown"
    if records:  # a Markdown export of records: one file per list page
        total = count_records(engine, flt, by_page=markdown)
        rows = iter_record_pages(engine, flt) if markdown else iter_records(engine, flt)
    else:
        total = count(engine, flt)
        rows = iter_articles(engine, flt, with_html=markdown)
    fields = RECORD_FIELDS if records else FIELDS
    done = 0

    def write(out: IO[str]) -> int:
        if excel:
            out.write("\ufeff")
        if fmt == "csv":
            return _drive(write_csv(rows, out, excel, fields), total, progress)
        return _drive(_writer(fmt)(rows, out), total, progress)

    if fmt == "markdown":
        Path(output).mkdir(exist_ok=True)  # there, if empty, when nothing matched
        document = record_page_markdown if records else markdown_document
        steps = mirror_markdown(rows, Path(output), [] if removed is None else removed, document)
        done = _drive(steps, total, progress)
    elif output == "-":
        done = write(sys.stdout)
    else:
        target = Path(output).resolve()  # a symlink's file is replaced, not the link
        if target.exists() and not target.is_file():
            # /dev/stdout, a FIFO: written in place; renaming over it would
            # replace the device with a file
            with target.open("w", encoding="utf-8", newline="") as out:
                return write(out)
        tmp = target.with_name(target.name + ".part")
        try:
            with tmp.open("w", encoding="utf-8", newline="") as out:
                done = write(out)
            if target.exists():  # a file replaced keeps its permissions
                tmp.chmod(stat.S_IMODE(target.stat().st_mode))
            tmp.replace(target)  # a reader never sees half an export
        except BaseException:
            with contextlib.suppress(OSError):
                tmp.unlink()  # a full disk keeps no half file
            raise
    return done


def _writer(fmt: str) -> Callable[[Iterator[dict[str, Any]], IO[str]], Iterator[None]]:
    return {"jsonl": write_jsonl, "json": write_json}[fmt]


def _drive(steps: Iterator[None], total: int, progress: Callable[[int, int], None] | None) -> int:
    done, last = 0, time.monotonic()
    for _ in steps:
        done += 1
        if progress and time.monotonic() - last >= 1.0:
            progress(done, total)
            last = time.monotonic()
    if progress:
        progress(done, total)
    return done
