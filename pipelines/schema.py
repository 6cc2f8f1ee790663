"""The database schema, one definition for SQLite and PostgreSQL.

The schema carries a version number in ``schema_info``; :func:`connect`
creates missing tables and refuses a database written by a newer sitesift.
"""

from __future__ import annotations

import zlib
from datetime import UTC, datetime

from sqlalchemy import (
    JSON,
    Column,
    DateTime,
    Engine,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    event,
    insert,
    select,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, OperationalError

SCHEMA_VERSION = 1

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
)


class DatabaseError(RuntimeError):
    """The database URL is wrong or the database cannot be reached."""


def utcnow() -> datetime:
    return datetime.now(UTC)


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


def connect(url: str) -> Engine:
    """Open (and if needed create) the database at a SQLAlchemy URL.

    Raises :class:`DatabaseError` with a readable message when the URL is
    malformed, its driver is missing, or the server cannot be reached.
    """
    try:
        engine = create_engine(url, pool_pre_ping=True)
    except (ArgumentError, NoSuchModuleError, ImportError) as exc:
        raise DatabaseError(f"bad database URL {url!r}: {exc}") from None
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    try:
        metadata.create_all(engine)
        with engine.begin() as conn:
            version = conn.execute(select(schema_info.c.version)).scalar()
            if version is None:
                conn.execute(insert(schema_info).values(id=1, version=SCHEMA_VERSION))
            elif version > SCHEMA_VERSION:
                raise DatabaseError(
                    f"database {engine.url.render_as_string(hide_password=True)} has schema "
                    f"version {version}, newer than this sitesift ({SCHEMA_VERSION}): upgrade"
                )
    except OperationalError as exc:
        engine.dispose()
        reason = str(exc.orig).strip().splitlines()[0] if exc.orig else str(exc)
        raise DatabaseError(
            f"cannot open database {engine.url.render_as_string(hide_password=True)}: {reason}"
        ) from None
    return engine


def dialect_insert(engine: Engine, table: Table) -> sqlite.Insert | postgresql.Insert:
    """An INSERT that supports ``on_conflict_do_update`` on the engine's
    dialect (SQLite and PostgreSQL share the syntax)."""
    dialect = postgresql if engine.dialect.name == "postgresql" else sqlite
    return dialect.insert(table)
