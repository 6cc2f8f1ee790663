"""The database schema, one definition for SQLite and PostgreSQL.

The schema carries a version number in ``schema_info``. :func:`connect`
creates missing tables, upgrades an older database step by step through
:data:`MIGRATIONS` (small, additive, each in its own transaction), and
refuses a database written by a newer sitesift.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    Connection,
    DateTime,
    Engine,
    Float,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    create_engine,
    event,
    insert,
    inspect,
    select,
    text,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError, OperationalError

SCHEMA_VERSION = 3

metadata = MetaData()

schema_info = Table(
    "schema_info",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("version", Integer, nullable=False),
)

crawl_runs = Table(
    "crawl_runs",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("spider", String(64), nullable=False),
    Column("sites_file", Text),
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("finished_at", DateTime(timezone=True)),
    Column("finish_reason", String(64)),
    Column("counts", JSON),
    Column("settings", JSON),
    # v2: the scheduled job that launched the run, and what it resumed.
    Column("job", String(255)),
    Column("pid", Integer),
    Column("resumed_runs", JSON),
)

sites = Table(
    "sites",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("host", String(255), nullable=False, unique=True),
    Column("start_url", Text, nullable=False),
    Column("options", JSON),
    Column("first_seen", DateTime(timezone=True), nullable=False),
    Column("last_crawled", DateTime(timezone=True)),
)

# One row per URL: the latest outcome of fetching it (failures included).
pages = Table(
    "pages",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("url", Text, nullable=False, unique=True),
    Column("final_url", Text),
    Column("site", String(255), nullable=False, index=True),
    Column("run_id", Integer, index=True),
    Column("outcome", String(16), nullable=False, index=True),
    Column("reason", Text),
    Column("status", Integer),
    Column("fetched_at", DateTime(timezone=True), nullable=False),
    Column("fetch_count", Integer, nullable=False, default=1),
    Column("content_type", String(255)),
    Column("etag", String(255)),
    Column("last_modified", String(64)),
    Column("encoding", String(32)),
    Column("content_hash", String(64), index=True),
    Column("url_group", Text, index=True),
    Column("depth", Integer),
    Column("referer", Text),
    Column("title", Text),
    Column("html_zlib", LargeBinary),
    Column("html_size", Integer),
    # v2: when the content last changed, and the page's screenshot.
    Column("changed_at", DateTime(timezone=True)),
    Column("screenshot", String(64)),
)

# The current cleaned version of each article, one row per canonical URL.
# An exact duplicate keeps no text of its own: ``duplicate_of`` names the
# original. A near-duplicate keeps its text and links its original too.
articles = Table(
    "articles",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("url", Text, nullable=False, unique=True),
    Column("site", String(255), nullable=False, index=True),
    Column("url_group", Text, index=True),
    Column("page_type", String(16), index=True),
    Column("length_class", String(16)),
    Column("title", Text),
    Column("text", Text),
    Column("text_hash", String(64), nullable=False, index=True),
    Column("minhash", LargeBinary),  # extractors.minhash.pack(signature)
    Column("published", String(64)),
    Column("published_at", DateTime(timezone=True), index=True),
    Column("author", Text),
    Column("language", String(16), index=True),
    Column("method", String(32)),
    Column("confidence", Float),
    Column("image", Text),
    Column("duplicate_of", Text, index=True),
    Column("similarity", Float),
    Column("version", Integer, nullable=False, default=1),
    Column("first_seen", DateTime(timezone=True), nullable=False),
    Column("changed_at", DateTime(timezone=True), nullable=False),
    Column("fetched_at", DateTime(timezone=True), nullable=False, index=True),
    Column("run_id", Integer),
    # v3: an article split over pages. Each page keeps its own text; a
    # continuation names the first page (``part_of``) and its place (``part``,
    # from 1), set by pipelines/parts.py when the crawl has the pages.
    Column("next_page", Text),
    Column("part_of", Text, index=True),
    Column("part", Integer),
)

# MinHash LSH band keys of current, original articles: a near-duplicate
# shares at least one key with its original (extractors/minhash.py).
article_bands = Table(
    "article_bands",
    metadata,
    Column("key", BigInteger, nullable=False, index=True),
    Column("url", Text, nullable=False, index=True),
)

# Earlier versions of an article, written when its cleaned text changes.
article_versions = Table(
    "article_versions",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("url", Text, nullable=False),
    Column("version", Integer, nullable=False),
    Column("title", Text),
    Column("text", Text),
    Column("text_hash", String(64), nullable=False),
    Column("published", String(64)),
    Column("author", Text),
    Column("method", String(32)),
    Column("first_seen", DateTime(timezone=True), nullable=False),
    Column("replaced_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("url", "version", name="uq_article_versions_url_version"),
)

# The records of a list page, replaced as a whole when the page is refetched.
list_records = Table(
    "list_records",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("page_url", Text, nullable=False, index=True),
    Column("site", String(255), nullable=False),
    Column("position", Integer, nullable=False),
    Column("record", JSON, nullable=False),
    Column("fetched_at", DateTime(timezone=True), nullable=False),
)

# Screenshots by content hash; ``pages.screenshot`` points here.
screenshots = Table(
    "screenshots",
    metadata,
    Column("sha256", String(64), primary_key=True),
    Column("path", Text, nullable=False),
    Column("width", Integer),
    Column("height", Integer),
    Column("page_url", Text, index=True),
    Column("taken_at", DateTime(timezone=True), nullable=False),
)

# How often a URL group changes: its revisit interval adapts to that.
url_groups = Table(
    "url_groups",
    metadata,
    Column("url_group", Text, primary_key=True),
    Column("site", String(255), nullable=False),
    Column("revisit_seconds", Float, nullable=False),
    Column("visits", Integer, nullable=False, default=0),
    Column("changes", Integer, nullable=False, default=0),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)

# Recurring crawls; ``lease_until`` / ``running_pid`` keep one run per job.
scheduled_jobs = Table(
    "scheduled_jobs",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(255), nullable=False, unique=True),
    Column("sites_file", Text, nullable=False),
    Column("cron", String(128)),
    Column("every_seconds", Float),
    Column("crawl_args", JSON),
    Column("enabled", Boolean, nullable=False, default=True),
    Column("next_run_at", DateTime(timezone=True), index=True),
    Column("last_run_at", DateTime(timezone=True)),
    Column("last_run_id", Integer),
    Column("last_exit", Integer),
    Column("running_pid", Integer),
    Column("running_host", String(255)),
    Column("lease_until", DateTime(timezone=True)),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

Index("ix_article_versions_url", article_versions.c.url)


class DatabaseError(RuntimeError):
    """The database URL is wrong or the database cannot be reached."""


def utcnow() -> datetime:
    return datetime.now(UTC)


def as_utc(value: datetime | None) -> datetime | None:
    """SQLite hands back naive datetimes: read them as the UTC they were."""
    if value is not None and value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value


def compress_html(html: str | None) -> bytes | None:
    return zlib.compress(html.encode("utf-8"), 6) if html is not None else None


def decompress_html(blob: bytes | None) -> str | None:
    return zlib.decompress(blob).decode("utf-8") if blob is not None else None


def _sqlite_pragmas(dbapi_connection, _record) -> None:  # noqa: ANN001
    cursor = dbapi_connection.cursor()
    # WAL: readers (export, status) never block the crawl's writer, and a
    # killed process cannot leave a half-written transaction behind.
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


# -- migrations ---------------------------------------------------------------


def _add_columns(conn: Connection, table: Table, names: tuple[str, ...]) -> None:
    """ALTER TABLE ... ADD COLUMN for the columns a table lacks (idempotent)."""
    have = {c["name"] for c in inspect(conn).get_columns(table.name)}
    preparer = conn.dialect.identifier_preparer
    for name in names:
        if name in have:
            continue
        column = table.c[name]
        ddl = column.type.compile(dialect=conn.dialect)
        conn.execute(
            text(
                f"ALTER TABLE {preparer.format_table(table)} "
                f"ADD COLUMN {preparer.format_column(column)} {ddl}"
            )
        )


def _v1_to_v2(conn: Connection) -> None:
    """v2: articles, versions, list records, screenshots, URL groups and
    scheduled jobs (created by ``create_all``) and new columns on old tables."""
    _add_columns(conn, pages, ("changed_at", "screenshot"))
    _add_columns(conn, crawl_runs, ("job", "pid", "resumed_runs"))


def _v2_to_v3(conn: Connection) -> None:
    """v3: the pages of an article split over several pages."""
    _add_columns(conn, articles, ("next_page", "part_of", "part"))
    for index in articles.indexes:
        if index.name == "ix_articles_part_of":
            index.create(conn, checkfirst=True)


# MIGRATIONS[n] upgrades a database from version n to n + 1.
MIGRATIONS: dict[int, Callable[[Connection], None]] = {1: _v1_to_v2, 2: _v2_to_v3}


_MIGRATION_LOCK = 0x51735173  # pg_advisory_xact_lock key of schema migrations


def migrate(engine: Engine) -> int:
    """Bring the schema to :data:`SCHEMA_VERSION`; returns the version found."""
    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            # Workers starting together: one creates and migrates, the others wait.
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK})
        metadata.create_all(conn)
        query = select(schema_info.c.version).where(schema_info.c.id == 1)
        found = conn.execute(query).scalar()
        if found is None:
            conn.execute(insert(schema_info).values(id=1, version=SCHEMA_VERSION))
            return SCHEMA_VERSION
        if found > SCHEMA_VERSION:
            raise DatabaseError(
                f"database {engine.url.render_as_string(hide_password=True)} has schema "
                f"version {found}, newer than this sitesift ({SCHEMA_VERSION}): upgrade"
            )
        for version in range(found, SCHEMA_VERSION):
            MIGRATIONS[version](conn)
        conn.execute(
            update(schema_info).where(schema_info.c.id == 1).values(version=SCHEMA_VERSION)
        )
    return found


def database_key(url: str) -> str:
    """One name per database, however its URL was written: a SQLite file by
    its absolute path, others without their password or driver."""
    parsed = make_url(url)
    database = parsed.database
    if parsed.get_backend_name() == "sqlite" and database not in (None, "", ":memory:"):
        return "sqlite:///" + str(Path(database).expanduser().resolve())
    bare = parsed._replace(drivername=parsed.get_backend_name(), password=None)
    return bare.render_as_string()


def check_url(url: str) -> None:
    """Refuse, with what to write instead, a URL that names no database
    sitesift stores into (a bare file name, MySQL)."""
    try:
        backend = make_url(url).get_backend_name()
    except ArgumentError:
        hint = f" (a SQLite file is sqlite:///{url})" if "://" not in url else ""
        raise DatabaseError(f"bad database URL {url!r}{hint}") from None
    if backend == "postgres":  # Heroku's and libpq's spelling; SQLAlchemy's is longer
        fixed = "postgresql+psycopg://" + url.split("://", 1)[1]
        shown = make_url(fixed).render_as_string(hide_password=True)
        raise DatabaseError(f"write a PostgreSQL URL as {shown} (postgres:// is not one)")
    if backend not in ("sqlite", "postgresql"):
        raise DatabaseError(f"{url!r}: sitesift stores into SQLite or PostgreSQL, not {backend}")


def connect(url: str, *, create: bool = True) -> Engine:
    """Open (and if needed create or upgrade) the database at a SQLAlchemy URL.

    Raises :class:`DatabaseError` with a readable message when the URL is
    malformed, its driver is missing, or the server cannot be reached.
    """
    check_url(url)
    try:
        engine = create_engine(url, pool_pre_ping=True)
    except (ArgumentError, NoSuchModuleError, ImportError) as exc:
        raise DatabaseError(f"bad database URL {url!r}: {exc}") from None
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    try:
        if create:
            migrate(engine)
        else:
            with engine.connect():
                pass
    except (OperationalError, DBAPIError) as exc:
        engine.dispose()
        raise DatabaseError(
            f"cannot open database {engine.url.render_as_string(hide_password=True)}: "
            f"{error_line(exc)}{_sqlite_hint(engine)}"
        ) from None
    return engine


def open_existing(url: str) -> Engine:
    """Open a database sitesift already wrote (upgraded if it is older, as a
    crawl would), creating nothing: commands that only read must not turn
    another app's database (or an empty file) into a sitesift one."""
    check_url(url)
    try:
        # a bare engine: the pragmas of connect() would set WAL mode on any file
        probe = create_engine(url)
    except (ArgumentError, NoSuchModuleError, ImportError) as exc:
        raise DatabaseError(f"bad database URL {url!r}: {exc}") from None
    shown = probe.url.render_as_string(hide_password=True)
    try:
        with probe.connect() as conn:
            found = None
            if inspect(conn).has_table(schema_info.name):
                query = select(schema_info.c.version).where(schema_info.c.id == 1)
                found = conn.execute(query).scalar()
    except (OperationalError, DBAPIError) as exc:
        raise DatabaseError(
            f"cannot open database {shown}: {error_line(exc)}{_sqlite_hint(probe)}"
        ) from None
    finally:
        probe.dispose()
    if found is None:
        raise DatabaseError(
            f"{shown} is not a sitesift database (no schema_info table); run a crawl into it first"
        )
    if found > SCHEMA_VERSION:
        raise DatabaseError(f"database {shown} has schema version {found}, newer than this "
                            f"sitesift ({SCHEMA_VERSION}): upgrade")  # fmt: skip
    return connect(url)  # migrates an older sitesift schema, as every open did


def _sqlite_hint(engine: Engine) -> str:
    """Why SQLite could not open its file, when the folder says it."""
    database = engine.url.database
    if engine.dialect.name != "sqlite" or not database or database == ":memory:":
        return ""
    folder = Path(database).absolute().parent
    if not folder.is_dir():
        return f" (folder {folder} does not exist)"
    if not os.access(folder, os.W_OK):
        return f" (folder {folder} is read-only; SQLite writes its -wal and -shm files there)"
    return ""


def error_line(exc: BaseException) -> str:
    """The first line of a database error, for one-line messages."""
    orig = getattr(exc, "orig", None)
    message = str(orig if orig is not None else exc).strip()
    return message.splitlines()[0] if message else type(exc).__name__


def fit_columns(table: Table, row: dict[str, Any]) -> dict[str, Any]:
    """The row with strings cut to their column's length: PostgreSQL refuses
    a longer one (a 300-character ETag header) where SQLite keeps it."""
    for name, value in row.items():
        length = getattr(table.c[name].type, "length", None)
        if length and isinstance(value, str) and len(value) > length:
            row[name] = value[:length]
    return row


def dialect_insert(engine: Engine | Connection, table: Table) -> sqlite.Insert | postgresql.Insert:
    """An INSERT that supports ``on_conflict_do_update`` on the engine's
    dialect (SQLite and PostgreSQL share the syntax)."""
    dialect = postgresql if engine.dialect.name == "postgresql" else sqlite
    return dialect.insert(table)
