"""Scheduled crawls: the job store, one run per job, and a schedule firing a
real crawl of the demo web through ``sitesift scheduler``."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select, update

from crawler.scheduler import (
    ScheduleError,
    _alive,
    add_job,
    claim,
    finish,
    get_job,
    launch,
    list_jobs,
    parse_every,
    remove_job,
)
from demo.server import DemoWeb
from pipelines.schema import as_utc, connect, crawl_runs, pages, scheduled_jobs, utcnow


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
    with pytest.raises(ScheduleError, match="never matches"):
        add_job(engine, "a", str(sites), cron="0 0 31 2 *")  # valid syntax, no such date
    with pytest.raises(ScheduleError, match="at most"):
        add_job(engine, "a", str(sites), every="999999999d")  # would overflow the date
    assert parse_every("366d") == 366 * 86400
    with pytest.raises(ScheduleError, match="exactly one"):
        add_job(engine, "a", str(sites), cron="0 * * * *", every="1h")
    with pytest.raises(ScheduleError, match="does not exist"):
        add_job(engine, "a", str(tmp_path / "none.txt"), every="1h")
    with pytest.raises(ScheduleError, match="is a folder"):
        add_job(engine, "a", str(tmp_path), every="1h")
    unusable = tmp_path / "unusable.txt"  # sitesift crawl refuses it: every run would fail
    unusable.write_text("# nothing but a comment\nnot a site ???\n")
    with pytest.raises(ScheduleError, match="no usable site.*unusable.txt:2"):
        add_job(engine, "a", str(unusable), every="1h")
    with pytest.raises(ScheduleError, match="only letters, digits"):
        add_job(engine, "a b/c", str(sites), every="1h")  # its log file is named after it
    for name, every, shown in (("新闻-daily.v2", "90m", "90m"), ("six", "21600", "6h"),
                               ("odd", "1.5h", "90m"), ("quick", "45", "45s")):  # fmt: skip
        assert add_job(engine, name, str(sites), every=every).when == f"every {shown}"
        remove_job(engine, name)
    job = add_job(engine, "a", str(sites), cron="0 */6 * * *")
    assert job.next_run_at.hour % 6 == 0 and job.next_run_at.minute == 0
    with pytest.raises(ScheduleError, match="exists"):
        add_job(engine, "a", str(sites), every="1h")
    remove_job(engine, "a")
    assert list_jobs(engine) == []
    engine.dispose()


def test_one_run_per_job_and_missed_runs_collapse(db_url: str, tmp_path: Path) -> None:
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
    running = launch(engine, db_url, first, None)  # a crawl of nothing: it ends quickly
    assert get_job(engine, "j").next_run_at > utcnow() + timedelta(minutes=59)  # one run, not ten
    finish(engine, running, running.process.wait(timeout=120))
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


# -- the schedule commands, through the CLI ------------------------------------------

CLI = [sys.executable, "-m", "crawler.cli"]
QUICK = "-s SITESIFT_SCREENSHOTS=none -s SITESIFT_CRAWL_DELAY_CAP=0 -s AUTOTHROTTLE_START_DELAY=0"


def sitesift(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize(
    ("when", "words"),
    [
        (["--cron", "bad"], "not a cron expression of five fields"),
        (["--cron", "0 0 9 * * *"], "(minute hour day month weekday): '0 0 9 * * *'"),
        (["--cron", "61 * * * *"], "not a cron expression"),
        (["--every", "6x"], "--every takes a duration"),
    ],
)
def test_a_bad_schedule_is_one_clear_line(tmp_path: Path, when: list[str], words: str) -> None:
    sites = tmp_path / "sites.txt"
    sites.write_text("http://127.0.0.1:9/\n")
    db = f"sqlite:///{tmp_path / 'j.db'}"
    proc = sitesift("schedule", "add", "news", "--sites", str(sites), *when, "--db", db)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    (line,) = proc.stderr.strip().splitlines()  # one line
    assert line.startswith("sitesift: error: ") and words in line
    listed = sitesift("schedule", "list", "--db", db)
    assert listed.returncode == 0 and listed.stdout == ""  # nothing was added


def test_schedule_list_run_now_and_remove(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'j.db'}"
    with DemoWeb(sites=("en",)) as web:
        sites = web.write_site_list(tmp_path / "sites.txt")
        args = f"--max-pages 3 -s DOWNLOAD_DELAY=0 {QUICK}"
        for name, when in (("hourly", ["--every", "1h"]), ("nightly", ["--cron", "0 3 * * *"])):
            add = sitesift("schedule", "add", name, "--sites", str(sites), *when,
                           "--crawl-args", args, "--db", db)  # fmt: skip
            assert add.returncode == 0, add.stderr
            assert add.stdout.startswith(f"added {name}: ")
        listed = sitesift("schedule", "list", "--db", db)
        assert listed.returncode == 0, listed.stderr
        lines = listed.stdout.splitlines()
        assert [line.split("\t")[0] for line in lines] == ["hourly", "nightly"]
        assert "every 1h" in lines[0] and "cron '0 3 * * *'" in lines[1]
        assert all(str(sites) in line and "\ton\t" in line for line in lines)

        run = sitesift("schedule", "run-now", "hourly", "--db", db, timeout=180)
        assert run.returncode == 0, run.stderr[-2000:]
        assert "hourly: crawl exited with status 0" in run.stdout
        assert "/" in web.requested_paths("en")
    missing = sitesift("schedule", "run-now", "nope", "--db", db)
    assert missing.returncode == 2 and "no job named 'nope'" in missing.stderr
    assert "Traceback" not in missing.stderr
    engine = connect(db)
    with engine.connect() as conn:
        runs = conn.execute(select(crawl_runs.c.job, crawl_runs.c.finish_reason)).all()
    engine.dispose()
    assert [tuple(r) for r in runs] == [("hourly", "finished")]
    listed = sitesift("schedule", "list", "--db", db).stdout.splitlines()
    assert "last exit 0" in listed[0] and "never run" in listed[1]
    assert sitesift("schedule", "remove", "hourly", "--db", db).returncode == 0
    assert [line.split("\t")[0] for line in sitesift("schedule", "list", "--db", db)
            .stdout.splitlines()] == ["nightly"]  # fmt: skip


# -- a scheduler killed and started again ---------------------------------------------


def _due_now(db: str, name: str) -> None:
    engine = connect(db)
    with engine.begin() as conn:
        conn.execute(update(scheduled_jobs).where(scheduled_jobs.c.name == name)
                     .values(next_run_at=utcnow() - timedelta(seconds=1)))  # fmt: skip
    engine.dispose()


def _job_runs(db: str, name: str) -> list:
    engine = connect(db)
    with engine.connect() as conn:
        rows = conn.execute(
            select(crawl_runs).where(crawl_runs.c.job == name).order_by(crawl_runs.c.id)
        ).all()
    engine.dispose()
    return rows


def _scheduler(db: str, log: Path, *extra: str) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:
        return subprocess.Popen([*CLI, "scheduler", "--db", db, "--tick", "0.5", *extra],
                                stdout=out, stderr=subprocess.STDOUT)  # fmt: skip


def _add_slow_job(db: str, web: DemoWeb, tmp_path: Path) -> None:
    """Job "demo": a crawl of the demo web slow enough to stop mid-way
    (10 pages, 0.6 s apart)."""
    sites = web.write_site_list(tmp_path / "sites.txt")
    slow = f"--max-pages 10 -s DOWNLOAD_DELAY=0.6 {QUICK}"
    add = sitesift("schedule", "add", "demo", "--sites", str(sites), "--every", "1h",
                   "--crawl-args", slow, "--db", db)  # fmt: skip
    assert add.returncode == 0, add.stderr


def _wait_for_the_crawl(db: str, web: DemoWeb, proc: subprocess.Popen[bytes], log: Path) -> None:
    """Until job "demo" has a run and its crawl fetched the start page."""
    deadline = time.monotonic() + 90
    while not (_job_runs(db, "demo") and "/" in web.requested_paths("en")):
        assert proc.poll() is None and time.monotonic() < deadline, log.read_text()[-2000:]
        time.sleep(0.2)


def _press_ctrl_c(proc: subprocess.Popen[bytes], presses: int) -> int:
    """Send SIGINT ``presses`` times; the exit status (fails if it hangs)."""
    for _ in range(presses):
        proc.send_signal(signal.SIGINT)
        time.sleep(0.3)
    try:
        return proc.wait(timeout=90)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail(f"{proc.args} did not end after {presses} Ctrl-C")


def test_scheduler_killed_while_its_crawl_runs_neither_loses_nor_doubles(tmp_path: Path) -> None:
    """SIGKILL the scheduler while the crawl it started runs, let the job fall
    due again while no scheduler is up, start a new scheduler: it keeps the
    running crawl's lease (no second run beside it), records its end, then
    starts the due run once."""
    db = f"sqlite:///{tmp_path / 'sched.db'}"
    log = tmp_path / "scheduler.log"
    with DemoWeb(sites=("en",)) as web:
        _add_slow_job(db, web, tmp_path)
        _due_now(db, "demo")
        first = _scheduler(db, log)
        deadline = time.monotonic() + 90
        while not _job_runs(db, "demo") and time.monotonic() < deadline:
            assert first.poll() is None, log.read_text()[-2000:]
            time.sleep(0.2)
        first.kill()  # SIGKILL: no cleanup at all
        first.wait(timeout=30)
        (orphan,) = _job_runs(db, "demo")
        assert orphan.finished_at is None, "the crawl ended before its scheduler was killed"
        _due_now(db, "demo")  # due again while no scheduler is up

        second = _scheduler(db, log, "--max-runs", "1")
        try:
            assert second.wait(timeout=240) == 0, log.read_text()[-3000:]
        finally:
            second.kill()
        starts = web.requested_paths("en").count("/")
    runs = _job_runs(db, "demo")
    assert [r.finish_reason for r in runs] == ["finished", "finished"], log.read_text()[-3000:]
    gap = as_utc(runs[1].started_at) - as_utc(runs[0].finished_at)
    assert gap >= timedelta(0)  # never side by side
    # and not left waiting for the dead scheduler's lease (60 s) to run out
    assert gap < timedelta(seconds=30), gap
    assert starts == 2
    engine = connect(db)
    job = get_job(engine, "demo")
    engine.dispose()
    assert job.running_pid is None and job.last_exit == 0 and job.last_run_id == runs[1].id
    assert job.next_run_at > utcnow() + timedelta(minutes=50)
    assert "of a previous scheduler ended" in log.read_text()


def test_a_scheduler_killed_between_claim_and_start_leaves_the_run_due(tmp_path: Path) -> None:
    """The claim takes the lease only; the run is consumed when its crawl
    starts. A scheduler that died in between (its claim held by a dead pid)
    does not skip the period: the next scheduler runs it."""
    db = f"sqlite:///{tmp_path / 'sched.db'}"
    log = tmp_path / "scheduler.log"
    sites = tmp_path / "sites.txt"
    sites.write_text("http://127.0.0.1:9/\n")  # nothing listens: the crawl ends at once
    engine = connect(db)
    add_job(engine, "j", str(sites), every="1h")
    engine.dispose()
    _due_now(db, "j")
    died = subprocess.run([sys.executable, "-c", "from crawler.scheduler import claim; "
                           f"from pipelines.schema import connect; assert claim(connect({db!r}), "
                           "'j', 60)"], capture_output=True, text=True)  # fmt: skip
    assert died.returncode == 0, died.stderr
    engine = connect(db)
    job = get_job(engine, "j")
    assert job.running_pid and job.next_run_at <= utcnow()  # claimed by the dead, still due
    second = _scheduler(db, log, "--max-runs", "1")
    try:
        assert second.wait(timeout=180) == 0, log.read_text()[-3000:]
    finally:
        second.kill()
    assert len(_job_runs(db, "j")) == 1, log.read_text()[-3000:]
    job = get_job(engine, "j")
    engine.dispose()
    assert job.running_pid is None and job.next_run_at > utcnow() + timedelta(minutes=50)


def test_a_run_due_while_the_scheduler_is_down_happens_once(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'sched.db'}"
    log = tmp_path / "scheduler.log"
    with DemoWeb(sites=("en",)) as web:
        sites = web.write_site_list(tmp_path / "sites.txt")
        add = sitesift("schedule", "add", "demo", "--sites", str(sites), "--every", "1h",
                       "--crawl-args", f"--max-pages 2 -s DOWNLOAD_DELAY=0 {QUICK}",
                       "--db", db)  # fmt: skip
        assert add.returncode == 0, add.stderr
        engine = connect(db)
        with engine.begin() as conn:  # due in 3 s
            conn.execute(update(scheduled_jobs)
                         .values(next_run_at=utcnow() + timedelta(seconds=3)))  # fmt: skip
        engine.dispose()
        first = _scheduler(db, log)
        time.sleep(1.0)
        first.kill()
        first.wait(timeout=30)
        assert _job_runs(db, "demo") == []
        time.sleep(3.0)  # the due time passes while no scheduler is up
        second = _scheduler(db, log, "--max-runs", "1")
        try:
            assert second.wait(timeout=180) == 0, log.read_text()[-3000:]
        finally:
            second.kill()
        starts = web.requested_paths("en").count("/")
    assert [r.finish_reason for r in _job_runs(db, "demo")] == ["finished"]
    assert starts == 1


@pytest.mark.parametrize("presses", [1, 2])
def test_ctrl_c_stops_the_scheduler_and_its_crawl_and_records_its_end(
    tmp_path: Path, presses: int
) -> None:
    """The terminal's Ctrl-C reaches the scheduler only (its crawls have their
    own session). It passes each press on (once: Scrapy stops gracefully;
    twice: at once), records the crawl's end, says so and exits 0: the job is
    not left marked running, and a second press does not hang."""
    db = f"sqlite:///{tmp_path / 'sched.db'}"
    log = tmp_path / "scheduler.log"
    with DemoWeb(sites=("en",)) as web:
        _add_slow_job(db, web, tmp_path)
        _due_now(db, "demo")
        loop = _scheduler(db, log)
        _wait_for_the_crawl(db, web, loop, log)
        engine = connect(db)
        crawl_pid = get_job(engine, "demo").running_pid
        code = _press_ctrl_c(loop, presses)
    out = log.read_text()
    assert code == 0, out[-3000:]
    assert "scheduler stopped (Ctrl-C); stopped the crawl(s) of demo" in out, out[-3000:]
    assert "Traceback" not in out
    assert crawl_pid and not _alive(crawl_pid)  # stopped, not left running on
    (run,) = _job_runs(db, "demo")
    assert run.finished_at is not None and run.finish_reason != "finished", run
    job = get_job(engine, "demo")
    engine.dispose()
    assert job.running_pid is None and job.last_run_id == run.id and job.last_exit != 0
    listed = sitesift("schedule", "list", "--db", db)
    assert "\trunning\t" not in listed.stdout and "\ton\t" in listed.stdout, listed.stdout


def test_ctrl_c_stops_an_idle_scheduler(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'sched.db'}"
    log = tmp_path / "scheduler.log"
    sites = tmp_path / "sites.txt"
    sites.write_text("http://127.0.0.1:9/\n")
    assert sitesift("schedule", "add", "j", "--sites", str(sites), "--every", "1h",
                    "--db", db).returncode == 0  # fmt: skip
    loop = _scheduler(db, log)
    deadline = time.monotonic() + 60
    while "scheduler started" not in log.read_text():
        assert loop.poll() is None and time.monotonic() < deadline, log.read_text()[-2000:]
        time.sleep(0.1)
    loop.send_signal(signal.SIGINT)
    try:
        assert loop.wait(timeout=30) == 0, log.read_text()[-2000:]
    finally:
        loop.kill()
    assert "scheduler stopped (Ctrl-C); no crawl was running" in log.read_text()


@pytest.mark.parametrize("presses", [1, 2])
def test_ctrl_c_on_run_now_stops_its_crawl_and_records_its_end(
    tmp_path: Path, presses: int
) -> None:
    """run-now's crawl has its own session, as the scheduler's: the terminal's
    Ctrl-C reaches run-now only, which passes each press on, records the
    crawl's end, says so in one line and exits 1 (the crawl did not finish)."""
    db = f"sqlite:///{tmp_path / 'j.db'}"
    with DemoWeb(sites=("en",)) as web:
        _add_slow_job(db, web, tmp_path)
        out, err = tmp_path / "out.txt", tmp_path / "err.txt"
        with out.open("wb") as stdout, err.open("wb") as stderr:
            run = subprocess.Popen([*CLI, "schedule", "run-now", "demo", "--db", db],
                                   stdout=stdout, stderr=stderr)  # fmt: skip
        engine = connect(db)
        _wait_for_the_crawl(db, web, run, err)
        crawl_pid = get_job(engine, "demo").running_pid
        code = _press_ctrl_c(run, presses)
        assert crawl_pid and not _alive(crawl_pid)  # stopped with run-now, not left running
    # (the crawl's own line, when a forced stop caught items unstored, aside)
    said = [line for line in err.read_text().splitlines()
            if line.startswith("sitesift:") and "spooled to" not in line]  # fmt: skip
    assert said == ["sitesift: run-now stopped (Ctrl-C); the crawl of demo ended with status 1, "
                    "its end recorded"], err.read_text()[-3000:]  # fmt: skip
    assert code == 1 and "Traceback" not in err.read_text()
    (run_row,) = _job_runs(db, "demo")
    assert run_row.finished_at is not None and run_row.finish_reason != "finished", run_row
    job = get_job(engine, "demo")
    engine.dispose()
    assert job.running_pid is None and job.last_run_id == run_row.id and job.last_exit == 1
    listed = sitesift("schedule", "list", "--db", db)
    assert "\trunning\t" not in listed.stdout and "\ton\t" in listed.stdout, listed.stdout


@pytest.mark.parametrize(
    ("crawl_args", "words"),
    [
        ("--max-pages abc", "--crawl-args: argument --max-pages: expected a whole number"),
        ("--bogus", "--crawl-args: unrecognized arguments: --bogus"),
        ("-s SITESIFT_MAX_PAGES=abc", "SITESIFT_MAX_PAGES='abc' takes a whole number"),
        ("-s NOEQUALS", "-s takes NAME=VALUE"),
        ("--help", "--help is not a crawl argument"),
        ("--db sqlite:///other.db", "give --db to 'sitesift schedule', not in --crawl-args"),
        ("-s SITESIFT_DB=sqlite:///other.db", "give --db to 'sitesift schedule'"),
    ],
)
def test_crawl_args_are_checked_when_the_job_is_added(
    tmp_path: Path, crawl_args: str, words: str
) -> None:
    sites = tmp_path / "sites.txt"
    sites.write_text("http://127.0.0.1:9/\n")
    db = f"sqlite:///{tmp_path / 'j.db'}"
    proc = sitesift("schedule", "add", "bad", "--sites", str(sites), "--every", "1h",
                    f"--crawl-args={crawl_args}", "--db", db)  # fmt: skip
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    (line,) = proc.stderr.strip().splitlines()  # one line, no usage text
    assert words in line
    assert sitesift("schedule", "list", "--db", db).stdout == ""  # nothing was added


def test_crawl_args_of_one_flag_need_no_equals_sign(tmp_path: Path) -> None:
    # argparse takes a value that starts with "-" for an option of its own
    sites = tmp_path / "sites.txt"
    sites.write_text("http://127.0.0.1:9/\n")
    db = f"sqlite:///{tmp_path / 'j.db'}"
    proc = sitesift("schedule", "add", "r", "--sites", str(sites), "--every", "1h",
                    "--crawl-args", "--resume", "--db", db)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "--resume" in sitesift("schedule", "list", "--db", db).stdout


def test_the_paths_in_crawl_args_are_made_absolute_when_the_job_is_added(tmp_path: Path) -> None:
    """As the site list is: the scheduler runs from another folder, and a
    relative feed or log would land there."""
    (tmp_path / "sites.txt").write_text("http://127.0.0.1:9/\n")
    db = f"sqlite:///{tmp_path / 'j.db'}"
    args = "-O feed.jsonl --logfile=logs/crawl.log --jobdir state -s LOG_LEVEL=INFO -o -"
    proc = subprocess.run([*CLI, "schedule", "add", "p", "--sites", "sites.txt", "--every", "1h",
                           f"--crawl-args={args}", "--db", db], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    engine = connect(db)
    job = get_job(engine, "p")
    engine.dispose()
    assert job.crawl_args == ["-O", str(tmp_path / "feed.jsonl"),
                              f"--logfile={tmp_path / 'logs' / 'crawl.log'}",
                              "--jobdir", str(tmp_path / "state"), "-s", "LOG_LEVEL=INFO",
                              "-o", "-"]  # fmt: skip


def _job_whose_site_list_is_gone(tmp_path: Path, every: str) -> str:
    """The database of a job "bad" whose crawl will refuse to start."""
    sites = tmp_path / "gone-sites.txt"
    sites.write_text("http://127.0.0.1:9/\n")
    db = f"sqlite:///{tmp_path / 'j.db'}"
    add = sitesift("schedule", "add", "bad", "--sites", str(sites), "--every", every, "--db", db)
    assert add.returncode == 0, add.stderr
    sites.unlink()
    return db


def test_run_now_shows_why_the_crawl_failed(tmp_path: Path) -> None:
    db = _job_whose_site_list_is_gone(tmp_path, "1h")
    run = sitesift("schedule", "run-now", "bad", "--db", db)
    assert run.returncode == 1 and "bad: crawl exited with status 2" in run.stdout
    assert "sitesift: error:" in run.stderr and "gone-sites.txt" in run.stderr, run.stderr


def test_the_scheduler_records_why_a_crawl_failed_without_a_log_folder(tmp_path: Path) -> None:
    # without --log-dir the crawl's output went nowhere: "exit status 2" and
    # no reason anywhere
    db = _job_whose_site_list_is_gone(tmp_path, "1s")
    loop = sitesift("scheduler", "--db", db, "--tick", "0.2", "--max-runs", "1")
    assert loop.returncode == 0, loop.stderr
    assert "crawl ended with status 2" in loop.stderr and "gone-sites.txt" in loop.stderr
    engine = connect(db)
    with engine.connect() as conn:
        reason = conn.execute(select(crawl_runs.c.finish_reason)).scalar_one()
    engine.dispose()
    assert reason.startswith("failed: exit status 2: ") and reason.endswith("site list not found")
    status = sitesift("status", "--db", db)
    assert "site list not found" in status.stdout, status.stdout


def test_the_scheduler_records_why_a_crawl_failed_from_its_log_file(tmp_path: Path) -> None:
    db = _job_whose_site_list_is_gone(tmp_path, "1s")
    logs = tmp_path / "logs"
    loop = sitesift("scheduler", "--db", db, "--tick", "0.2", "--max-runs", "1", "--log-dir",
                    str(logs))  # fmt: skip
    assert loop.returncode == 0, loop.stderr
    (log,) = logs.iterdir()
    assert "site list not found" in log.read_text()
    assert "crawl ended with status 2" in loop.stderr and f"(log {log})" in loop.stderr
    engine = connect(db)
    with engine.connect() as conn:
        reason = conn.execute(select(crawl_runs.c.finish_reason)).scalar_one()
    engine.dispose()
    assert reason.startswith("failed: exit status 2: ") and reason.endswith("site list not found")


def test_a_job_due_and_a_crawl_ending_mid_tick_are_acted_on_then(tmp_path: Path) -> None:
    """The loop reads the job table every --tick seconds, but a job falling
    due (a second after it was added) starts then, and a crawl's end is
    recorded when it comes: with --max-runs 1 the scheduler exits once the
    crawl did, not one or two ticks later."""
    db = _job_whose_site_list_is_gone(tmp_path, "1s")
    started = time.monotonic()
    loop = sitesift("scheduler", "--db", db, "--tick", "40", "--max-runs", "1")
    assert loop.returncode == 0, loop.stderr
    assert "crawl ended with status 2" in loop.stderr
    assert time.monotonic() - started < 30  # the tick is 40 s


def test_a_log_line_that_is_no_error_is_no_reason() -> None:
    import tempfile

    from crawler.scheduler import _error_line

    def reason(text: str) -> str | None:
        file = tempfile.TemporaryFile()  # noqa: SIM115 - _error_line closes it
        file.write(text.encode())
        return _error_line(file)

    closing = "2026-11-29 11:00:00 [scrapy-playwright] INFO: Closing download handler\n"
    assert reason(closing) is None
    failed = "2026-11-29 11:00:00 [scrapy.core.engine] ERROR: Error while obtaining start\n"
    assert reason(failed + closing) == failed.strip()
    assert reason("sitesift: error: x.txt: site list not found\n" + failed) == (
        "error: x.txt: site list not found"
    )
    assert reason("Traceback (most recent call last):\n  File ...\nValueError: bad\n") == (
        "ValueError: bad"
    )


def test_a_job_whose_crawl_cannot_start_stops_no_other(tmp_path: Path) -> None:
    """A job named, by an older version, beyond a file name's length: its
    log file cannot be made. Its run is recorded as failed, the next
    period awaited, and the other due job runs."""
    db = f"sqlite:///{tmp_path / 'sched.db'}"
    sites = tmp_path / "sites.txt"
    sites.write_text("http://127.0.0.1:9/\n")  # nothing listens: the crawl ends at once
    engine = connect(db)
    add_job(engine, "long", str(sites), every="1h")
    add_job(engine, "fine", str(sites), every="1h")
    long_name = "b" * 300
    with engine.begin() as conn:
        conn.execute(update(scheduled_jobs).where(scheduled_jobs.c.name == "long")
                     .values(name=long_name))  # fmt: skip
    engine.dispose()
    for name in (long_name, "fine"):
        _due_now(db, name)
    log = tmp_path / "scheduler.log"
    loop = _scheduler(db, log, "--log-dir", str(tmp_path / "logs"), "--max-runs", "2")
    try:
        assert loop.wait(timeout=180) == 0, log.read_text()[-3000:]
    finally:
        loop.kill()
    assert "Traceback" not in log.read_text()
    (failed,) = _job_runs(db, long_name)
    assert failed.finish_reason == "failed: not started: File name too long"
    assert len(_job_runs(db, "fine")) == 1
    engine = connect(db)
    job = get_job(engine, long_name)
    engine.dispose()
    assert job.running_pid is None and job.next_run_at > utcnow() + timedelta(minutes=50)


def test_job_names_and_the_log_folder_are_checked_up_front(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'j.db'}"
    sites = tmp_path / "sites.txt"
    sites.write_text("http://127.0.0.1:9/\n")
    for name, words in (("..", "starting with a letter"), ("b" * 101, "at most 100 characters")):
        add = sitesift("schedule", "add", name, "--sites", str(sites), "--every", "1h", "--db", db)
        assert add.returncode == 2 and words in add.stderr and "Traceback" not in add.stderr
    add = sitesift("schedule", "add", " news ", "--sites", str(sites), "--every", "5s", "--db", db)
    assert add.returncode == 0 and "starts again as soon as the last one ended" in add.stderr
    assert "a number alone is seconds" not in add.stderr  # "5s" says its unit
    add = sitesift("schedule", "add", "bare", "--sites", str(sites), "--every", "5", "--db", db)
    assert add.returncode == 0 and "(a number alone is seconds: 5m is minutes" in add.stderr
    assert sitesift("schedule", "remove", "bare", "--db", db).returncode == 0
    assert sitesift("schedule", "remove", " news ", "--db", db).returncode == 0
    listed = sitesift("schedule", "list", "--db", db)
    assert listed.stdout == "" and "no jobs" in listed.stderr
    afile = tmp_path / "afile"
    afile.write_text("")
    loop = sitesift("scheduler", "--db", db, "--log-dir", str(afile), "--max-runs", "1")
    assert loop.returncode == 2 and f"cannot write logs in {afile}: it is a file" in loop.stderr


def test_a_job_removed_and_added_again_mid_run_keeps_nothing_of_the_old_run(
    tmp_path: Path,
) -> None:
    from crawler.scheduler import Running, _set

    engine = connect(f"sqlite:///{tmp_path / 'j.db'}")
    sites = tmp_path / "sites.txt"
    sites.write_text("http://127.0.0.1:9/\n")
    old = add_job(engine, "j", str(sites), every="1h")
    crawl = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        _set(engine, "j", running_pid=crawl.pid)
        assert remove_job(engine, "j") == crawl.pid  # its crawl goes on: the caller is told
        add_job(engine, "j", str(sites), every="1h")
    finally:
        crawl.kill()
        crawl.wait()
    finish(engine, Running(old, crawl, utcnow()), 0)  # the old run ends
    again = get_job(engine, "j")
    engine.dispose()
    assert again.last_exit is None and again.last_run_id is None  # "never run"
