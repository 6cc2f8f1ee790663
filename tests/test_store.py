"""Storage: one schema on a real SQLite file and the real PostgreSQL."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from scrapy import Spider
from scrapy.exceptions import DropItem
from scrapy.utils.test import get_crawler
from sqlalchemy import insert, select

from crawler.items import Outcome, PageItem
from pipelines.schema import (
    DatabaseError,
    connect,
    crawl_runs,
    decompress_html,
    pages,
    screenshots,
    utcnow,
)
from pipelines.spool import REJECTED, Spool
from pipelines.store import StorePipeline
from tests.dbtools import pg_start, pg_stop


def _opened(settings: dict[str, Any]) -> StorePipeline:
    """A store pipeline opened on a crawler with these settings (its stats:
    ``pipe.crawler.stats``)."""
    crawler = get_crawler(Spider, settings)
    crawler.spider = Spider(name="site")
    pipe = StorePipeline.from_crawler(crawler)
    pipe.flush_seconds = 0
    pipe.open_spider(crawler.spider)
    return pipe


def _pipeline(url: str) -> StorePipeline:
    return _opened({"SITESIFT_DB": url, "SITESIFT_STORE_BATCH": 2})


def _item(url: str, outcome: Outcome = Outcome.OK, html: str | None = "<p>hi</p>") -> PageItem:
    return PageItem(url=url, site="h", outcome=outcome, status=200, html=html, title="T",
                    content_hash="abc", url_group="h/{n}")  # fmt: skip


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
    with pytest.raises(DatabaseError, match="SQLite or PostgreSQL, not notadb"):
        connect("notadb://x")
    with pytest.raises(DatabaseError, match="cannot open database"):
        connect(f"sqlite:///{tmp_path}/missing-dir/x.db")


# -- the database going away mid-crawl -------------------------------------------


def test_database_outage_spools_and_replays(pg_restartable: str, tmp_path: Path) -> None:
    pipe = _opened({"SITESIFT_DB": pg_restartable, "SITESIFT_STORE_BATCH": 1,
                    "SITESIFT_STORE_RETRIES": 2, "SITESIFT_STORE_BACKOFF": 0.1,
                    "SITESIFT_SPOOL_DIR": str(tmp_path / "spool")})  # fmt: skip
    crawler = pipe.crawler
    pipe.process_item(_item("http://h/before"))
    pg_stop()
    try:
        pipe.process_item(_item("http://h/during-1"))  # retried, then spooled
        pipe.process_item(_item("http://h/during-2"))  # one quick try, spooled
        assert Spool(tmp_path / "spool", pg_restartable).pending() == 2
    finally:
        pg_start()
    pipe.process_item(_item("http://h/after"))  # replays the spool first
    pipe.close_spider()
    stats = crawler.stats.get_stats()
    assert stats["sitesift/spool/spooled"] == 2 and stats["sitesift/spool/replayed"] == 2
    assert stats["sitesift/store/retries"] >= 2
    assert Spool(tmp_path / "spool", pg_restartable).pending() == 0
    engine = connect(pg_restartable)
    with engine.connect() as conn:
        urls = set(conn.execute(select(pages.c.url)).scalars())
        run = conn.execute(select(crawl_runs)).one()
    engine.dispose()
    assert urls == {"http://h/before", "http://h/during-1", "http://h/during-2", "http://h/after"}
    assert run.counts["sitesift/spool/spooled"] == 2  # the run summary says what happened


def test_a_run_end_the_database_missed_is_recorded_by_the_next_run(
    pg_restartable: str, tmp_path: Path
) -> None:
    """The database away when a crawl ends: the run's end (time, reason,
    counts) waits in the spool folder, and the next run records it, so the
    run is not taken for an interrupted one."""
    settings = {
        "SITESIFT_DB": pg_restartable,
        "SITESIFT_STORE_RETRIES": 0,
        "SITESIFT_STORE_CLOSE_WAIT": 0,
        "SITESIFT_SPOOL_DIR": str(tmp_path / "spool"),
    }
    pipe = _opened(settings)
    crawler = pipe.crawler
    pipe.process_item(_item("http://h/1"))
    pg_stop()
    try:
        pipe.close_spider()
        crawler.stats.set_value("finish_reason", "finished")
        pipe.spider_closed(crawler.spider, "finished")
    finally:
        pg_start()
    assert Spool(tmp_path / "spool", pg_restartable).pending() == 1
    second = _opened(settings)  # replays the item and the run's end
    second.close_spider()
    engine = connect(pg_restartable)
    with engine.connect() as conn:
        runs = conn.execute(select(crawl_runs).order_by(crawl_runs.c.id)).all()
        urls = set(conn.execute(select(pages.c.url)).scalars())
    engine.dispose()
    assert urls == {"http://h/1"}
    assert runs[0].finished_at is not None and runs[0].finish_reason == "finished"
    assert runs[0].counts["sitesift/spool/spooled"] == 1
    left = {p.name for p in (tmp_path / "spool").rglob("*") if p.is_file()}
    assert left == {"database.txt", "replay.lock"}  # nothing waits


def test_spool_left_by_a_dead_run_is_replayed_next_time(tmp_path: Path) -> None:
    from pipelines.store import item_record

    url = f"sqlite:///{tmp_path / 's.db'}"
    spool = Spool(tmp_path / "spool", url)
    spool.write([item_record(_item("http://h/spooled"))])
    (spool.directory / "spool-x.jsonl.part").write_text('{"torn": ')  # a killed write
    pipe = _opened({"SITESIFT_DB": url, "SITESIFT_SPOOL_DIR": str(spool.root)})
    pipe.close_spider()
    engine = connect(url)
    with engine.connect() as conn:
        assert set(conn.execute(select(pages.c.url)).scalars()) == {"http://h/spooled"}
    engine.dispose()
    assert spool.pending() == 0


def test_a_spool_is_replayed_only_into_its_own_database(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Crawls into two databases from one folder share the spool root: what
    was spooled for one waits for it, and a crawl into the other says so
    and leaves it (a run end kept for run 1 of one must not end run 1 of
    the other either)."""
    from pipelines.store import item_record

    def run_ends(url: str) -> list[str | None]:
        engine = connect(url)
        with engine.connect() as conn:
            ends = list(conn.execute(select(crawl_runs.c.finish_reason).order_by(crawl_runs.c.id)))
        engine.dispose()
        return [end for (end,) in ends]

    first, second = (f"sqlite:///{tmp_path / name}" for name in ("first.db", "second.db"))
    spool = Spool(tmp_path / "spool", first)
    _opened({"SITESIFT_DB": first, "SITESIFT_SPOOL_DIR": str(spool.root)}).close_spider()
    spool.write([item_record(_item("http://h/for-first"))])  # run 1 of first ends unrecorded
    spool.keep_run_end(1, {"finish_reason": "finished"})
    with caplog.at_level(logging.WARNING, logger="pipelines.store"):
        _opened({"SITESIFT_DB": second, "SITESIFT_SPOOL_DIR": str(spool.root)}).close_spider()
    assert f"1 spooled item(s) in {spool.directory} wait for {spool.database}" in caplog.text
    assert _stored_pages(second) == {} and run_ends(second) == [None]
    assert spool.pending() == 1 and len(list(spool.run_ends())) == 1
    _opened({"SITESIFT_DB": first, "SITESIFT_SPOOL_DIR": str(spool.root)}).close_spider()
    assert set(_stored_pages(first)) == {"http://h/for-first"}
    assert run_ends(first) == ["finished", None]
    assert spool.pending() == 0 and not list(spool.run_ends())


def test_one_database_has_one_spool_however_its_url_is_written(tmp_path: Path) -> None:
    written = ["postgresql+psycopg://u:secret@127.0.0.1:5432/test",
               "postgresql://u@127.0.0.1:5432/test"]  # fmt: skip
    first, second = (Spool(tmp_path, url) for url in written)
    assert first.directory == second.directory and "secret" not in first.database
    assert Spool(tmp_path, "postgresql://u@127.0.0.1:5432/other").directory != first.directory
    here = Spool(tmp_path, f"sqlite:///{tmp_path / 'x.db'}")
    assert Spool(tmp_path, "sqlite:///" + os.path.relpath(tmp_path / "x.db")).directory == (
        here.directory
    )


def test_crawls_into_one_database_replay_its_spool_one_after_the_other(tmp_path: Path) -> None:
    """Workers of one crawl share the database's spool folder: a store
    replays it only once no other process holds it (here another process
    holds it for two seconds and leaves a mark before letting go)."""
    from pipelines.store import item_record

    url = f"sqlite:///{tmp_path / 's.db'}"
    spool = Spool(tmp_path / "spool", url)
    spool.write([item_record(_item("http://h/spooled"))])
    mark = tmp_path / "letting-go"
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time\nfrom pathlib import Path\nfrom pipelines.spool import Spool\n"
         "with Spool(sys.argv[1], sys.argv[2]).locked():\n"
         "    print('held', flush=True)\n    time.sleep(2)\n    Path(sys.argv[3]).touch()\n",
         str(spool.root), url, str(mark)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        pipe = _opened({"SITESIFT_DB": url, "SITESIFT_SPOOL_DIR": str(spool.root)})
        assert mark.exists()  # the replay waited for the other process
    finally:
        holder.wait(timeout=30)
    pipe.close_spider()
    assert set(_stored_pages(url)) == {"http://h/spooled"} and spool.pending() == 0


# -- data the database refuses ----------------------------------------------------


def _refusing_pipeline(db_url: str, spool: Path, batch: int = 50) -> StorePipeline:
    return _opened({"SITESIFT_DB": db_url, "SITESIFT_STORE_BATCH": batch,
                    "SITESIFT_SPOOL_DIR": str(spool)})  # fmt: skip


def _stored_pages(db_url: str) -> dict[str, Any]:
    engine = connect(db_url)
    with engine.connect() as conn:
        rows = {r.url: r for r in conn.execute(select(pages)).all()}
    engine.dispose()
    return rows


def test_an_item_the_database_refuses_costs_only_itself(db_url: str, tmp_path: Path) -> None:
    """NUL characters and over-long header values are made storable; an item
    the database still refuses (a depth no integer column holds stands in for
    any such value) is kept in the rejected file with the reason, the rest of
    its batch is stored, and the database is not taken for down."""
    pipe = _refusing_pipeline(db_url, tmp_path / "spool", batch=3)
    odd = _item("http://h/odd")
    odd.title, odd.etag = "a\x00b", "e" * 300
    bad = _item("http://h/bad")
    bad.depth = 2**70
    for item in (odd, bad, _item("http://h/ok"), _item("http://h/next")):
        with contextlib.suppress(DropItem):
            pipe.process_item(item)
    pipe.close_spider()
    rows = _stored_pages(db_url)
    assert set(rows) == {"http://h/odd", "http://h/ok", "http://h/next"}
    assert rows["http://h/odd"].title == "ab" and len(rows["http://h/odd"].etag) == 255
    spool = Spool(tmp_path / "spool", db_url)
    assert spool.pending() == 0  # nothing spooled: the database was there all along
    (entry,) = [json.loads(line) for line in (spool.directory / REJECTED).read_text().splitlines()]
    assert entry["record"]["url"] == "http://h/bad" and entry["reason"]
    stats = pipe.crawler.stats.get_stats()
    assert stats["sitesift/store/rejected"] == 1 and "sitesift/spool/spooled" not in stats


def test_a_spooled_item_the_database_refuses_does_not_block_the_spool(tmp_path: Path) -> None:
    from pipelines.store import item_record

    bad = _item("http://h/bad")
    bad.depth = 2**70
    url = f"sqlite:///{tmp_path / 's.db'}"
    spool = Spool(tmp_path / "spool", url)
    spool.write([item_record(bad), item_record(_item("http://h/good"))])
    pipe = _refusing_pipeline(url, spool.root)
    pipe.close_spider()
    assert set(_stored_pages(url)) == {"http://h/good"}
    assert spool.pending() == 0
    assert '"http://h/bad"' in (spool.directory / REJECTED).read_text()
    command = ["status", "--db", url, "--spool-dir", str(spool.root)]
    status = subprocess.run([sys.executable, "-m", "crawler.cli", *command],
                            capture_output=True, text=True, timeout=120, check=True)  # fmt: skip
    assert "rejected: 1 item(s) the database refused" in status.stdout


# -- the PostgreSQL tests run under CI -------------------------------------------

_PROBE = """
from tests.dbtools import db_url, pg_restartable  # noqa: F401


def test_store(db_url):
    pass


def test_outage(pg_restartable):
    pass
"""


@pytest.mark.parametrize("ci", [True, False])
def test_postgresql_tests_fail_under_ci_rather_than_skip(tmp_path: Path, ci: bool) -> None:
    """With no reachable server and no cluster to restart, the PostgreSQL
    fixtures skip with a reason on a developer's machine and fail under CI."""
    import os
    import subprocess
    import sys

    probe = tmp_path / "test_probe.py"
    probe.write_text(_PROBE)
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env |= {"SITESIFT_TEST_PG": "postgresql+psycopg://nobody@127.0.0.1:1/none",
            "SITESIFT_TEST_PG_CLUSTER": "99/none", "PYTHONPATH": str(Path.cwd())}  # fmt: skip
    if ci:
        env["CI"] = "true"
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rsf", "-p", "no:cacheprovider",
                           str(probe)], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=120)  # fmt: skip
    out = proc.stdout
    if ci:
        assert proc.returncode == 1, out
        assert "1 passed, 2 errors" in out, out  # sqlite runs; both PG fixtures fail
        assert "this test must run" in out and "PostgreSQL not reachable" in out
        assert "no local PostgreSQL cluster 99/none" in out
    else:
        assert proc.returncode == 0, out
        assert "1 passed" in out and "2 skipped" in out, out


def test_a_replaced_screenshot_is_deleted_unless_shared(tmp_path: Path, db_url: str) -> None:
    """Page 1 is photographed again with a new picture: its old file goes (no
    page refers to it); page 2's picture, shared with page 3, stays when
    page 2 gets a new one; a refetch without a photo keeps the last one."""
    import os

    from crawler.screenshots import ScreenshotStore, StoredScreenshot

    store = ScreenshotStore(tmp_path / "shots")
    old, new, shared, other = (store.put(bytes([n]) * 64, "png", 8, 8) for n in range(4))
    for shot in (old, new, shared, other):  # not just written: outside the grace period
        os.utime(shot.path, (1, 1))
    pipe = _opened({"SITESIFT_DB": db_url, "SITESIFT_STORE_BATCH": 1,
                    "SITESIFT_SCREENSHOT_DIR": str(tmp_path / "shots")})  # fmt: skip

    def item(url: str, shot: StoredScreenshot | None, body: str) -> PageItem:
        page = _item(url, html=f"<p>{body}</p>")
        page.content_hash = body
        page.screenshot = shot.as_dict() if shot is not None else None
        return page

    pipe.process_item(item("http://h/1", old, "a"))
    pipe.process_item(item("http://h/2", shared, "b"))
    pipe.process_item(item("http://h/3", shared, "c"))
    pipe.process_item(item("http://h/1", new, "a2"))
    pipe.process_item(item("http://h/2", other, "b2"))
    pipe.process_item(item("http://h/3", None, "c2"))
    pipe.close_spider()
    assert not Path(old.path).exists()
    assert Path(new.path).exists() and Path(shared.path).exists() and Path(other.path).exists()
    with connect(db_url).connect() as conn:
        by_url = dict(conn.execute(select(pages.c.url, pages.c.screenshot)).tuples().all())
    assert by_url == {"http://h/1": new.sha256, "http://h/2": other.sha256,
                      "http://h/3": shared.sha256}  # fmt: skip


def test_the_screenshot_of_an_error_page_is_recorded(tmp_path: Path, db_url: str) -> None:
    """A 404 or a blocked page photographed refers to its picture: the
    picture has its row (size, page, time) like a good page's."""
    from crawler.screenshots import ScreenshotStore

    shot = ScreenshotStore(tmp_path / "shots").put(b"x" * 64, "png", 8, 8)
    pipe = _pipeline(db_url)
    page = _item("http://h/missing", outcome=Outcome.HTTP_ERROR, html=None)
    page.screenshot = shot.as_dict()
    with pytest.raises(DropItem):
        pipe.process_item(page)
    pipe.close_spider()
    with connect(db_url).connect() as conn:
        row = conn.execute(select(screenshots)).one()
        referred = conn.execute(select(pages.c.screenshot)).scalar_one()
    assert (row.sha256, row.page_url, row.height) == (shot.sha256, "http://h/missing", 8)
    assert referred == shot.sha256


def _store_page_with_screenshot(db: str, url: str, shot: Any) -> None:  # noqa: ANN401
    pipe = _pipeline(db)
    page = _item(url)
    page.screenshot = shot.as_dict()
    pipe.process_item(page)
    pipe.close_spider()


def _prune(db: str, *flags: str, cwd: Path | None = None) -> Any:  # noqa: ANN401
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "crawler.cli", "prune-screenshots", "--db", db, "--min-age", "0",
         *flags], capture_output=True, text=True, timeout=60, cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
    )  # fmt: skip


def test_prune_screenshots_keeps_what_pages_refer_to(tmp_path: Path) -> None:
    from crawler.screenshots import ScreenshotStore

    db = f"sqlite:///{tmp_path / 'x.db'}"
    store = ScreenshotStore(tmp_path / "shots")
    used, orphan = store.put(b"u" * 64, "png", 8, 8), store.put(b"o" * 64, "png", 8, 8)
    _store_page_with_screenshot(db, "http://h/1", used)
    engine = connect(db)
    with engine.begin() as conn:  # the orphan's row, as a recrawl's blocked page leaves one
        row = {"sha256": orphan.sha256, "path": orphan.path, "page_url": "http://h/2"}
        conn.execute(insert(screenshots).values(**row, taken_at=utcnow()))
    proc = _prune(db, "--dir", str(tmp_path / "shots"))
    assert proc.returncode == 0, proc.stderr
    assert "1 unreferenced screenshot(s) removed" in proc.stdout
    assert Path(used.path).exists() and not Path(orphan.path).exists()
    with engine.connect() as conn:  # no row names a file that is gone
        assert set(conn.execute(select(screenshots.c.sha256)).scalars()) == {used.sha256}
    engine.dispose()
    # without --dir, from another folder: the folder the rows name, not ./sitesift-screenshots
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc = _prune(db, cwd=elsewhere)
    assert proc.returncode == 0, proc.stderr
    said = f"0 unreferenced screenshot(s) removed from {tmp_path / 'shots'}\n1 screenshot(s) in use"
    assert said in proc.stdout
    assert "missing" not in proc.stdout and Path(used.path).exists()
    # a later crawl wrote to another folder (SITESIFT_SCREENSHOT_DIR changed):
    # both are swept, and neither's pictures are called missing
    later = ScreenshotStore(tmp_path / "later")
    used2, orphan2 = later.put(b"v" * 64, "png", 8, 8), later.put(b"p" * 64, "png", 8, 8)
    _store_page_with_screenshot(db, "http://h/3", used2)
    proc = _prune(db, cwd=elsewhere)
    assert proc.returncode == 0, proc.stderr
    assert f"1 unreferenced screenshot(s) removed from {tmp_path / 'later'}\n" in proc.stdout
    assert "2 screenshot(s) in use" in proc.stdout and "missing" not in proc.stdout
    assert Path(used.path).exists() and Path(used2.path).exists()
    assert not Path(orphan2.path).exists()


def test_prune_screenshots_spares_a_folder_another_database_stores_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # two databases crawled from one folder share its default screenshot
    # folder: a sweep for the one that stored none emptied the other's
    from crawler.screenshots import ScreenshotStore
    from pipelines.schema import database_key

    mine, theirs = (f"sqlite:///{tmp_path / name}" for name in ("mine.db", "theirs.db"))
    _pipeline(mine).close_spider()
    store = ScreenshotStore(tmp_path / "shots")
    store.add_owner(database_key(theirs))
    shot = store.put(b"t" * 64, "png", 8, 8)

    refused = _prune(mine, "--dir", str(tmp_path / "shots"))
    assert refused.returncode == 2 and "also holds the screenshots of" in refused.stderr
    assert "theirs.db" in refused.stderr and Path(shot.path).exists()
    forced = _prune(mine, "--dir", str(tmp_path / "shots"), "--force")
    assert forced.returncode == 0 and not Path(shot.path).exists(), forced.stderr
    # one database, however its URL is written
    monkeypatch.chdir(tmp_path)
    assert database_key("sqlite:///theirs.db") == database_key(theirs) != database_key(mine)


FORCED_STOP = """
import sys
from twisted.internet import reactor
from tests.test_store import _item, _opened

def crawl():
    pipe = _opened({"SITESIFT_DB": sys.argv[1], "SITESIFT_SPOOL_DIR": sys.argv[2]})
    for n in range(3):
        pipe.process_item(_item(f"http://h/{n}"))
    reactor.stop()  # a second Ctrl-C: the reactor stops, close_spider never runs

reactor.callWhenRunning(crawl)
reactor.run()
"""


def test_a_forced_stop_spools_the_items_not_yet_stored(tmp_path: Path) -> None:
    import subprocess
    import sys

    db, spool = f"sqlite:///{tmp_path / 'x.db'}", tmp_path / "spool"
    proc = subprocess.run([sys.executable, "-c", FORCED_STOP, db, str(spool)],
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "stopped before storing 3 item(s): spooled to" in proc.stderr
    assert Spool(spool, db).pending() == 3
    pipe = _opened({"SITESIFT_DB": db, "SITESIFT_SPOOL_DIR": str(spool)})  # the next crawl
    pipe.close_spider()
    engine = connect(db)
    with engine.connect() as conn:
        stored = dict(conn.execute(select(pages.c.url, pages.c.run_id)).all())
    engine.dispose()
    # stored by the next run, as fetched by the stopped one (resume reads it)
    assert stored == {f"http://h/{n}": 1 for n in range(3)}
