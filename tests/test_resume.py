"""Resume and recrawl against the demo web over real HTTP, in subprocesses.

A crawl killed with SIGKILL mid-way and restarted with ``--resume`` ends with
the same pages as an uninterrupted crawl, without refetching a page it had
stored and without duplicates. A second crawl of an unchanged site sends the
stored validators and reprocesses nothing.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import func, select

from benchmarks.soak import (
    FAST,
    SLOW,
    count_stored,
    crawl_cmd,
    differences,
    killed_and_resumed,
    run_reasons,
    snapshot,
)
from demo.server import DemoWeb
from pipelines.schema import connect, crawl_runs, pages
from tests.dbtools import pg_start, pg_stop


def sqlite_url(db: Path) -> str:
    return f"sqlite:///{db}"


def rows(db: Path | str) -> dict[str, tuple]:
    """url -> (outcome, fetch_count, content_hash) of a SQLite file or a database URL."""
    engine = connect(sqlite_url(db) if isinstance(db, Path) else db, create=False)
    try:
        with engine.connect() as conn:
            query = select(pages.c.url, pages.c.outcome, pages.c.fetch_count, pages.c.content_hash)
            return {url: tuple(rest) for url, *rest in conn.execute(query)}
    finally:
        engine.dispose()


@pytest.fixture(scope="module")
def web() -> DemoWeb:
    with DemoWeb(sites=("en", "zh")) as web:
        yield web


@pytest.fixture(scope="module")
def full(web: DemoWeb, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An uninterrupted crawl of the demo web: the reference."""
    tmp = tmp_path_factory.mktemp("full")
    db = tmp / "full.db"
    sites = web.write_site_list(tmp / "sites.txt")
    cmd = crawl_cmd(sites, sqlite_url(db), "-s", "DOWNLOAD_DELAY=0")
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return db


def _page_paths(web: DemoWeb, since: int) -> list[str]:
    with web._lock:
        recent = web.requests[since:]
    aux = ("/robots.txt", "sitemap", "feed", ".xml", "rss", "atom")
    return [f"{web.urls[s].rstrip('/')}{p}" for s, p in recent if not any(a in p for a in aux)]


def _crawl_a_third(
    sites: Path, db_url: str, total: int, log: Path | None = None
) -> subprocess.Popen:
    """A slow crawl, returned once it has stored a third of the ``total``
    pages (its stderr in ``log``, when given)."""
    err = log.open("w") if log else subprocess.DEVNULL
    child = subprocess.Popen(crawl_cmd(sites, db_url, *SLOW), stdout=subprocess.DEVNULL,
                             stderr=err)  # fmt: skip
    deadline = time.monotonic() + 120
    while count_stored(db_url) < total // 3 and time.monotonic() < deadline:
        assert child.poll() is None, "the crawl ended before it could be interrupted"
        time.sleep(0.1)
    return child


def _resume_fetches_nothing_stored(web: DemoWeb, sites: Path, db_url: str, total: int) -> None:
    """``--resume`` after an interruption: it succeeds and fetches none of the
    pages the interrupted run had stored."""
    stored_before = {u for u, (outcome, *_) in rows(db_url).items() if outcome == "ok"}
    assert 0 < len(stored_before) < total
    mark = len(web.requests)
    proc = subprocess.run(crawl_cmd(sites, db_url, "--resume", "-s", "DOWNLOAD_DELAY=0"),
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    refetched = set(_page_paths(web, mark)) & stored_before
    assert not refetched, f"stored pages fetched again: {sorted(refetched)[:5]}"


def test_killed_crawl_resumes_to_the_same_result(
    web: DemoWeb,
    full: Path,
    db_url: str,
    tmp_path: Path,
) -> None:
    sites = web.write_site_list(tmp_path / "sites.txt")
    expected = rows(full)
    assert len(expected) > 30

    child = _crawl_a_third(sites, db_url, len(expected))
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=30)
    _resume_fetches_nothing_stored(web, sites, db_url, len(expected))
    got = rows(db_url)
    assert set(got) == set(expected), (set(expected) - set(got), set(got) - set(expected))
    for url, (outcome, fetch_count, content_hash) in got.items():
        assert outcome == expected[url][0], url
        assert content_hash == expected[url][2], url
        assert fetch_count == 1, f"{url} stored {fetch_count} times"
    runs = run_reasons(db_url)
    assert runs[0][0].startswith("interrupted; resumed by run 2")
    assert runs[1] == ("finished", [1])


def test_crawl_killed_at_random_moments_ends_as_an_uninterrupted_one(
    web: DemoWeb, full: Path, tmp_path: Path
) -> None:
    """Issue 8: SIGKILL at two seeded random moments in succession, a resume
    after each, then a last resume to the end: the database equals the
    uninterrupted crawl's, table by table — nothing lost, nothing stored
    twice, no stored page fetched again. (Longer: ``python -m benchmarks.soak``.)"""
    sites = web.write_site_list(tmp_path / "sites.txt")
    url = sqlite_url(tmp_path / "killed.db")
    run = killed_and_resumed(web, sites, url, snapshot(sqlite_url(full)), kills=2,
                             rng=random.Random(8), log=tmp_path / "crawls.log")  # fmt: skip
    assert run.kills == 2, (tmp_path / "crawls.log").read_text()[-3000:]
    assert run.differences == []
    assert run.refetched == []
    assert run.pages == len(rows(full))
    assert [reason for reason, _ in run.runs] == [
        "interrupted; resumed by run 3",
        "interrupted; resumed by run 3",
        "finished",
    ]
    assert run.runs[-1][1] == [1, 2]


def test_soak_comparison_sees_a_lost_and_a_doubled_page(full: Path) -> None:
    """The comparison the kill tests rely on does catch what they look for."""
    reference = snapshot(sqlite_url(full))
    assert differences(reference, reference) == []
    broken = {**reference, "pages": dict(reference["pages"])}
    lost = sorted(broken["pages"])[0]
    del broken["pages"][lost]
    broken["fetch_counts"] = {**reference["fetch_counts"], sorted(broken["pages"])[0]: 2}
    found = differences(reference, broken)
    assert any(lost in line for line in found) and any("stored 2 times" in d for d in found)


def test_recrawl_of_an_unchanged_site_reprocesses_nothing(
    web: DemoWeb, full: Path, tmp_path: Path
) -> None:
    db = tmp_path / "re.db"
    shutil.copy(full, db)
    sites = full.parent / "sites.txt"  # the same site list file: the same crawl
    cmd = crawl_cmd(sites, sqlite_url(db), "-s", "DOWNLOAD_DELAY=0", "-s", "SITESIFT_REVISIT=false")
    first = rows(db)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    second = rows(db)
    assert set(second) == set(first)
    ok = [u for u, (outcome, *_) in first.items() if outcome == "ok"]
    assert all(second[u][0] == "ok" and second[u][1] == 2 for u in ok)  # refetched, still good
    conn = sqlite3.connect(db)
    reasons = dict(conn.execute("select url, reason from pages where outcome = 'ok'").fetchall())
    counts = conn.execute("select counts from crawl_runs order by id desc").fetchone()[0]
    conn.close()
    assert all(reasons[u] == "not modified" for u in ok)
    assert '"sitesift/pages/unchanged"' in counts
    summary = next(line for line in proc.stderr.splitlines() if "finished (finished)" in line)
    assert f"{len(ok)} unchanged" in summary, summary  # not counted as skipped
    status = subprocess.run([sys.executable, "-m", "crawler.cli", "status", "--db", sqlite_url(db)],
                            capture_output=True, text=True, timeout=60)  # fmt: skip
    said = f" {len(first)} page(s): 0 ok, {len(ok)} unchanged"
    assert said in status.stdout, status.stdout


def test_revisit_interval_skips_fresh_pages_but_finds_new_ones(
    web: DemoWeb, full: Path, tmp_path: Path
) -> None:
    db = tmp_path / "rv.db"
    shutil.copy(full, db)
    starts = set(web.urls.values())
    fresh = sorted(u for u, (outcome, *_) in rows(full).items() if outcome == "ok")
    unknown = {u for u in fresh[::3] if u not in starts}  # pages the database never saw
    conn = sqlite3.connect(db)
    conn.executemany("delete from pages where url = ?", [(u,) for u in unknown])
    conn.commit()
    conn.close()
    mark = len(web.requests)
    cmd = crawl_cmd(full.parent / "sites.txt", sqlite_url(db), "-s", "DOWNLOAD_DELAY=0")
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    fetched = set(_page_paths(web, mark))
    assert not (fetched & set(fresh)) - starts - unknown  # fresh pages: not due, not fetched
    assert unknown <= fetched  # found again through the stored pages' links
    assert set(rows(db)) == set(rows(full))
    not_due = len(set(fresh) - starts - unknown)  # the end says why they were not fetched
    assert f"stored pages not fetched again: 0 stored by the run resumed, {not_due} not due" in (
        proc.stderr
    )
    status = subprocess.run([sys.executable, "-m", "crawler.cli", "status", "--db", sqlite_url(db)],
                            capture_output=True, text=True, timeout=60)  # fmt: skip
    assert f"; {not_due} not due for a revisit, not fetched" in status.stdout, status.stdout


def test_database_outage_mid_crawl_loses_nothing(
    web: DemoWeb,
    full: Path,
    pg_restartable: str,
    tmp_path: Path,
) -> None:
    """PostgreSQL stops for a few seconds in the middle of a real crawl: the
    batches it refused are spooled and replayed; the run says so."""
    spool = tmp_path / "spool"
    cmd = [sys.executable, "-m", "crawler.cli", "crawl", str(full.parent / "sites.txt"),
           "--db", pg_restartable, *FAST, "-s", "DOWNLOAD_DELAY=0.25",
           "-s", "SITESIFT_STORE_BATCH=3", "-s", "SITESIFT_STORE_RETRIES=1",
           "-s", "SITESIFT_STORE_BACKOFF=0.2", "-s", f"SITESIFT_SPOOL_DIR={spool}"]  # fmt: skip
    engine = connect(pg_restartable)
    child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        with engine.connect() as conn:
            if conn.execute(select(func.count()).select_from(pages)).scalar_one() >= 10:
                break
        time.sleep(0.1)
    engine.dispose()
    pg_stop()
    try:
        time.sleep(3)
        assert child.poll() is None, "the crawl ended while the database was down"
    finally:
        pg_start()
    _, stderr = child.communicate(timeout=300)
    assert child.returncode == 0, stderr[-2000:]
    engine = connect(pg_restartable)
    with engine.connect() as conn:
        stored = {r.url: r.outcome for r in conn.execute(select(pages.c.url, pages.c.outcome))}
        counts = conn.execute(select(crawl_runs.c.counts)).scalar_one()
    engine.dispose()
    (tmp_path / "crawl.log").write_text(stderr)
    assert stored == {u: outcome for u, (outcome, *_) in rows(full).items()}
    assert counts.get("sitesift/spool/spooled", 0) > 0
    assert counts["sitesift/spool/replayed"] == counts["sitesift/spool/spooled"]
    assert "spooled" in stderr
    assert not list(spool.rglob("*.jsonl"))


def _item_site(items: int, hits: list[tuple[float, str]] | None = None) -> Callable:
    """A site: an index linking ``items`` item pages (each request's time
    and path appended to ``hits``)."""

    def page(path: str) -> str | None:
        if hits is not None:
            hits.append((time.monotonic(), path))
        if path == "/":
            links = "".join(f'<a href="/item/{i}.html">item {i}</a> ' for i in range(1, items + 1))
            return f"<html><body><h1>Items</h1>{links}</body></html>"
        if path.startswith("/item/"):
            return f"<html><body><h1>Item</h1><p>{'An item page. ' * 30}</p></body></html>"
        return None

    return page


def test_a_rerun_with_a_smaller_trap_budget_keeps_the_stored_pages(tmp_path: Path) -> None:
    """Pages of one URL pattern stored by a first run stay ok when a rerun
    (a lower SITESIFT_TRAP_MAX_GROUP_PAGES, or a section grown past it)
    refuses part of the pattern: refused, not marked as traps."""
    from tests.local_site import serving

    db = tmp_path / "crawl.db"
    with serving(_item_site(6)) as base:
        sites = tmp_path / "sites.txt"
        sites.write_text(f"{base}\n")
        for budget in (0, 3):  # 0: no pattern budget; every page due again
            done = subprocess.run(
                [sys.executable, "-m", "crawler.cli", "crawl", str(sites), "--db", sqlite_url(db),
                 "-L", "WARNING", "-s", "AUTOTHROTTLE_ENABLED=False", "-s", "DOWNLOAD_DELAY=0",
                 "-s", "SITESIFT_SCREENSHOTS=none", "-s", "SITESIFT_REVISIT=False",
                 "-s", f"SITESIFT_TRAP_MAX_GROUP_PAGES={budget}"],
                capture_output=True, text=True, timeout=120, cwd=tmp_path,
            )  # fmt: skip
            assert done.returncode == 0, done.stderr[-3000:]
    stored = {url: outcome for url, (outcome, _, _) in rows(db).items() if "/item/" in url}
    assert len(stored) == 6 and set(stored.values()) == {"ok"}, stored


@pytest.mark.parametrize("presses", [1, 2])
def test_ctrl_c_ends_the_crawl_and_resume_finishes_it(
    web: DemoWeb, full: Path, tmp_path: Path, presses: int
) -> None:
    """Ctrl-C once stops the crawl gracefully, twice forces it down: either
    way the process ends (a forced one hung on the extraction thread), and
    --resume fetches none of the pages it stored (a run that Ctrl-C stopped
    was not taken for an interrupted one)."""
    sites = web.write_site_list(tmp_path / "sites.txt")
    db_url = sqlite_url(tmp_path / "crawl.db")
    expected = rows(full)
    log = tmp_path / "crawl.log"
    child = _crawl_a_third(sites, db_url, len(expected), log)
    for _ in range(presses):
        child.send_signal(signal.SIGINT)
        time.sleep(1)
    try:
        child.wait(timeout=60)
    except subprocess.TimeoutExpired:
        child.kill()
        pytest.fail(f"the crawl did not end after {presses} Ctrl-C")
    if presses == 1:  # a graceful stop ends with its summary, and says how to go on
        said = "stopped early (Ctrl-C or a stop signal): crawl again with --resume"
        assert said in log.read_text()
    _resume_fetches_nothing_stored(web, sites, db_url, len(expected))
    assert set(rows(db_url)) == set(expected)
    runs = run_reasons(db_url)
    assert runs[0][0].endswith("resumed by run 2"), runs
    assert runs[1] == ("finished", [1])


def test_a_graceful_stop_drops_the_requests_queued_behind_the_delay(tmp_path: Path) -> None:
    """Ctrl-C on a polite crawl: the requests waiting in the site's download
    queue (one delay apart: 16 of them held the stop for 24 s here) are
    dropped, not fetched and not recorded; --resume fetches them."""
    from tests.local_site import serving

    hits: list[tuple[float, str]] = []
    db = tmp_path / "crawl.db"
    log = tmp_path / "crawl.log"
    polite = ["-s", "AUTOTHROTTLE_ENABLED=False", "-s", "DOWNLOAD_DELAY=1.5", "-s",
              "SITESIFT_SCREENSHOTS=none", "-s", "SITESIFT_FOLLOW_SITEMAPS=False"]  # fmt: skip
    with serving(_item_site(30, hits)) as base:
        sites = tmp_path / "sites.txt"
        sites.write_text(f"{base}\n")
        cmd = [sys.executable, "-m", "crawler.cli", "crawl", str(sites), "--db", sqlite_url(db)]
        with log.open("w") as err:
            child = subprocess.Popen([*cmd, *polite], stdout=subprocess.DEVNULL, stderr=err)
        deadline = time.monotonic() + 60
        while sum(1 for _, p in hits if p.startswith("/item/")) < 3:
            assert child.poll() is None and time.monotonic() < deadline, log.read_text()[-2000:]
            time.sleep(0.05)
        signalled = time.monotonic()
        child.send_signal(signal.SIGINT)
        try:
            child.wait(timeout=60)
        finally:
            child.kill()
        after = [p for t, p in hits if t > signalled]
        assert len(after) <= 2, after  # the ones under way at most, not the queue
        assert "queued request(s) dropped" in log.read_text()
        stopped = rows(db)
        assert {outcome for outcome, *_ in stopped.values()} == {"ok"}, stopped  # none recorded
        resumed = subprocess.run([*cmd, "--resume", "-s", "SITESIFT_SCREENSHOTS=none"],
                                 capture_output=True, text=True, timeout=120)  # fmt: skip
        assert resumed.returncode == 0, resumed.stderr[-2000:]
    done = rows(db)
    assert len(done) == 31 and {outcome for outcome, *_ in done.values()} == {"ok"}
