"""The schema: created on SQLite and PostgreSQL, upgraded from version 1,
refused when newer than this sitesift."""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine, inspect, select, text, update

from pipelines.schema import (
    SCHEMA_VERSION,
    DatabaseError,
    connect,
    metadata,
    open_existing,
    schema_info,
)

# The version 1 schema as sitesift 0.1 created it (pages, sites, crawl_runs).
V1_DDL = [
    "CREATE TABLE schema_info (id INTEGER PRIMARY KEY, version INTEGER NOT NULL)",
    "INSERT INTO schema_info VALUES (1, 1)",
    """CREATE TABLE crawl_runs (id INTEGER PRIMARY KEY, spider VARCHAR(64) NOT NULL,
       sites_file TEXT, started_at TIMESTAMP NOT NULL, finished_at TIMESTAMP,
       finish_reason VARCHAR(64), counts JSON, settings JSON)""",
    """CREATE TABLE sites (id INTEGER PRIMARY KEY, host VARCHAR(255) NOT NULL UNIQUE,
       start_url TEXT NOT NULL, options JSON, first_seen TIMESTAMP NOT NULL,
       last_crawled TIMESTAMP)""",
    """CREATE TABLE pages (id INTEGER PRIMARY KEY, url TEXT NOT NULL UNIQUE, final_url TEXT,
       site VARCHAR(255) NOT NULL, run_id INTEGER, outcome VARCHAR(16) NOT NULL, reason TEXT,
       status INTEGER, fetched_at TIMESTAMP NOT NULL, fetch_count INTEGER NOT NULL,
       content_type VARCHAR(255), etag VARCHAR(255), last_modified VARCHAR(64),
       encoding VARCHAR(32), content_hash VARCHAR(64), url_group TEXT, depth INTEGER,
       referer TEXT, title TEXT, html_zlib BYTEA, html_size INTEGER)""",
    """INSERT INTO pages (id, url, site, outcome, fetched_at, fetch_count, title)
       VALUES (1, 'http://h/1', 'h', 'ok', '2024-01-01 00:00:00', 3, 'kept')""",
]


def test_fresh_database_has_every_table(db_url: str) -> None:
    engine = connect(db_url)
    names = set(inspect(engine).get_table_names())
    engine.dispose()
    assert set(metadata.tables) <= names
    for table in ("articles", "article_versions", "list_records", "screenshots",
                  "scheduled_jobs", "crawl_runs", "sites", "pages", "url_groups"):  # fmt: skip
        assert table in names


def test_version_1_is_upgraded_in_place(db_url: str) -> None:
    raw = create_engine(db_url)
    blob = "BLOB" if raw.dialect.name == "sqlite" else "BYTEA"
    with raw.begin() as conn:
        for ddl in V1_DDL:
            conn.execute(text(ddl.replace("BYTEA", blob)))
    raw.dispose()
    engine = connect(db_url)
    inspector = inspect(engine)
    assert {"changed_at", "screenshot"} <= {c["name"] for c in inspector.get_columns("pages")}
    assert {"job", "pid"} <= {c["name"] for c in inspector.get_columns("crawl_runs")}
    with engine.connect() as conn:
        assert conn.execute(select(schema_info.c.version)).scalar() == SCHEMA_VERSION
        row = conn.execute(text("select title, fetch_count from pages where id = 1")).one()
    assert tuple(row) == ("kept", 3)  # nothing stored is lost
    engine.dispose()
    connect(db_url).dispose()  # a second open is a no-op


def test_newer_database_is_refused(db_url: str) -> None:
    engine = connect(db_url)
    with engine.begin() as conn:
        conn.execute(update(schema_info).values(version=SCHEMA_VERSION + 1))
    engine.dispose()
    with pytest.raises(DatabaseError, match="newer than this sitesift"):
        connect(db_url)


def test_version_2_gains_the_multipage_columns(db_url: str) -> None:
    engine = connect(db_url)
    with engine.begin() as conn:
        conn.execute(text("DROP INDEX ix_articles_part_of"))
        for column in ("next_page", "part_of", "part"):
            conn.execute(text(f"ALTER TABLE articles DROP COLUMN {column}"))
        conn.execute(
            text(
                "INSERT INTO articles (url, site, text, text_hash, version, first_seen,"
                " changed_at, fetched_at) VALUES ('http://h/a', 'h', 'kept', 'x', 1,"
                " '2024-01-01 00:00:00', '2024-01-01 00:00:00', '2024-01-01 00:00:00')"
            )
        )
        conn.execute(update(schema_info).values(version=2))
    engine.dispose()
    engine = connect(db_url)
    inspector = inspect(engine)
    columns = {c["name"] for c in inspector.get_columns("articles")}
    assert {"next_page", "part_of", "part"} <= columns
    assert "ix_articles_part_of" in {i["name"] for i in inspector.get_indexes("articles")}
    with engine.connect() as conn:
        assert conn.execute(text("SELECT text FROM articles")).scalar() == "kept"
        assert conn.execute(select(schema_info.c.version)).scalar() == SCHEMA_VERSION
    engine.dispose()


def test_open_existing_creates_nothing(db_url: str) -> None:
    raw = create_engine(db_url)
    with raw.begin() as conn:
        conn.execute(text("CREATE TABLE other_app (x INTEGER)"))
    with pytest.raises(DatabaseError, match="not a sitesift database"):
        open_existing(db_url)
    assert inspect(raw).get_table_names() == ["other_app"]
    raw.dispose()


def test_open_existing_upgrades_an_older_sitesift_database(db_url: str) -> None:
    connect(db_url).dispose()
    engine = connect(db_url)
    with engine.begin() as conn:
        conn.execute(update(schema_info).values(version=SCHEMA_VERSION - 1))
    engine.dispose()
    engine = open_existing(db_url)
    with engine.connect() as conn:
        assert conn.execute(select(schema_info.c.version)).scalar() == SCHEMA_VERSION
    engine.dispose()
