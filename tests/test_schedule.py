"""Scheduled crawls: the job store, one run per job, and a schedule firing a
real crawl of the demo web through ``sitesift scheduler``."""

from __future__ import annotations

import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select, update

from crawler.scheduler import (
    ScheduleError,
    add_job,
    claim,
    get_job,
    list_jobs,
    parse_every,
    remove_job,
)
from demo.server import DemoWeb
from pipelines.schema import connect, crawl_runs, pages, scheduled_jobs, utcnow
from tests.dbtools import db_url  # noqa: F401 - fixture


def test_durations_and_cron_are_checked(tmp_path: Path) -> None:
    assert parse_every("90s") == 90 and parse_every("6h") == 21600 and parse_every("2") == 2
    for bad in ("6x", "", "-1h", "0m"):
        with pytest.raises(ScheduleError):
            parse_every(bad)
    engine = connect(f"sqlite:///{tmp_path / 'j.db'}")
    sites = tmp_path / "sites.txt"
    sites.write_text("http://127.0.0.1:9/\n")
    with pytest.raises(ScheduleError, match="cron"):
        add_job(engine, "a", str(sites), cron="61 * * * *")
    with pytest.raises(ScheduleError, match="exactly one"):
        add_job(engine, "a", str(sites), cron="0 * * * *", every="1h")
    with pytest.raises(ScheduleError, match="does not exist"):
        add_job(engine, "a", str(tmp_path / "none.txt"), every="1h")
    job = add_job(engine, "a", str(sites), cron="0 */6 * * *")
    assert job.next_run_at.hour % 6 == 0 and job.next_run_at.minute == 0
    with pytest.raises(ScheduleError, match="exists"):
        add_job(engine, "a", str(sites), every="1h")
    remove_job(engine, "a")
    assert list_jobs(engine) == []
    engine.dispose()


def test_one_run_per_job_and_missed_runs_collapse(db_url: str, tmp_path: Path) -> None:  # noqa: F811
    engine = connect(db_url)
    sites = tmp_path / "sites.txt"
    sites.write_text("http://127.0.0.1:9/\n")
    add_job(engine, "j", str(sites), every="1h")
    assert claim(engine, "j", lease=60) is None  # not due yet
    with engine.begin() as conn:  # the scheduler was down for ten intervals
        conn.execute(update(scheduled_jobs).values(next_run_at=utcnow() - timedelta(hours=10)))
    first = claim(engine, "j", lease=60)
    assert first is not None
    assert claim(engine, "j", lease=60) is None  # held: no second run
    assert claim(engine, "j", lease=60, force=True) is None  # not even run-now
    job = get_job(engine, "j")
    assert job.next_run_at > utcnow() + timedelta(minutes=59)  # one run, not ten
    with engine.begin() as conn:  # the lease ran out and its holder is gone
        conn.execute(update(scheduled_jobs).values(lease_until=utcnow() - timedelta(seconds=1),
                                                   running_pid=None))  # fmt: skip
    assert claim(engine, "j", lease=60, force=True) is not None
    engine.dispose()


def test_a_schedule_fires_a_real_crawl(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'sched.db'}"
    cli = [sys.executable, "-m", "crawler.cli"]
    with DemoWeb(sites=("en",)) as web:
        sites = web.write_site_list(tmp_path / "sites.txt")
        extra = "--max-pages 6 -s SITESIFT_SCREENSHOTS=none -s SITESIFT_CRAWL_DELAY_CAP=0"
        add = subprocess.run([*cli, "schedule", "add", "demo", "--sites", str(sites), "--every",
                              "1s", "--crawl-args", extra, "--db", db],
                             capture_output=True, text=True, timeout=60)  # fmt: skip
        assert add.returncode == 0, add.stderr
        loop = subprocess.run([*cli, "scheduler", "--db", db, "--tick", "0.5", "--max-runs", "1",
                               "--log-dir", str(tmp_path / "logs")],
                              capture_output=True, text=True, timeout=180)  # fmt: skip
        assert loop.returncode == 0, loop.stderr[-2000:]
        fetched = web.requested_paths("en")
    assert "/" in fetched
    engine = connect(db)
    with engine.connect() as conn:
        runs = conn.execute(select(crawl_runs)).all()
        stored = conn.execute(select(pages.c.url).where(pages.c.outcome == "ok")).all()
    job = get_job(engine, "demo")
    engine.dispose()
    assert [(r.job, r.finish_reason) for r in runs] == [("demo", "finished")]
    assert 1 <= len(stored) <= 6
    assert job.last_exit == 0 and job.last_run_id == runs[0].id and job.running_pid is None
    assert list((tmp_path / "logs").glob("demo-*.log"))
