"""Storage: one schema on a real SQLite file and the real PostgreSQL."""

from __future__ import annotations

import uuid

import pytest
from scrapy import Spider
from scrapy.utils.test import get_crawler
from sqlalchemy import select, text

from crawler.items import Outcome, PageItem
from pipelines.schema import DatabaseError, connect, decompress_html, pages
from pipelines.store import StorePipeline

PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def _pipeline(url: str) -> StorePipeline:
    crawler = get_crawler(Spider, {"SITESIFT_DB": url, "SITESIFT_STORE_BATCH": 2})
    crawler.spider = Spider(name="site")
    pipe = StorePipeline.from_crawler(crawler)
    pipe.flush_seconds = 0
    pipe.open_spider(crawler.spider)
    return pipe


def _item(url: str, outcome: Outcome = Outcome.OK, html: str | None = "<p>hi</p>") -> PageItem:
    return PageItem(url=url, site="h", outcome=outcome, status=200, html=html, title="T",
                    content_hash="abc", url_group="h/{n}")  # fmt: skip


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.db'}"
    try:
        engine = connect(PG_URL)
    except DatabaseError as exc:
        pytest.skip(f"PostgreSQL not reachable: {exc}")
    schema = f"t_{uuid.uuid4().hex[:8]}"
    with engine.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    engine.dispose()
    request.addfinalizer(lambda: _drop_schema(schema))
    return f"{PG_URL}?options=-csearch_path%3D{schema}"


def _drop_schema(schema: str) -> None:
    engine = connect(PG_URL)
    with engine.begin() as conn:
        conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
    engine.dispose()


def test_pages_are_upserted_and_failures_keep_good_content(db_url: str) -> None:
    pipe = _pipeline(db_url)
    pipe.process_item(_item("http://h/1"))
    pipe.process_item(_item("http://h/2"))
    pipe.process_item(_item("http://h/2", html="<p>new</p>"))
    with pytest.raises(Exception, match="failed"):
        pipe.process_item(_item("http://h/1", outcome=Outcome.FAILED, html=None))
    pipe.close_spider()
    engine = connect(db_url)
    with engine.connect() as conn:
        rows = {r.url: r for r in conn.execute(select(pages)).all()}
    assert set(rows) == {"http://h/1", "http://h/2"}
    assert rows["http://h/1"].outcome == "failed"
    assert decompress_html(rows["http://h/1"].html_zlib) == "<p>hi</p>"  # nothing lost
    assert decompress_html(rows["http://h/2"].html_zlib) == "<p>new</p>"
    assert rows["http://h/2"].fetch_count == 2


def test_unreachable_database_is_a_clear_error(tmp_path) -> None:
    with pytest.raises(DatabaseError, match="cannot open database"):
        connect("postgresql+psycopg://nobody@127.0.0.1:1/none")
    with pytest.raises(DatabaseError, match="bad database URL"):
        connect("notadb://x")
    with pytest.raises(DatabaseError, match="cannot open database"):
        connect(f"sqlite:///{tmp_path}/missing-dir/x.db")
