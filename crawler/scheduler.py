"""Recurring crawls: jobs kept in the database, a scheduler that runs them.

A small equivalent of APScheduler with a SQLAlchemy job store (APScheduler
pickles callables into its store; ours keeps plain rows that ``schedule
list`` can show and PostgreSQL and SQLite share). Each due job is claimed
with one conditional UPDATE — a lease — so two schedulers, or one restarted,
never start two runs of one job. Starting the crawl moves ``next_run_at``
on, so missed runs collapse into one instead of piling up, and a scheduler
killed between its claim and the start leaves the run due, not skipped.
Every crawl is its own ``sitesift crawl`` process; its outcome lands in
``crawl_runs``.
"""

from __future__ import annotations

import logging
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import IO, Any

from croniter import CroniterError, croniter
from sqlalchemy import Connection, Engine, and_, delete, insert, or_, select, update

from pipelines.schema import as_utc, crawl_runs, scheduled_jobs, utcnow

logger = logging.getLogger(__name__)

_EVERY = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*$")
_UNSAFE = re.compile(r"[^\w.-]+")
# A job name names its log files: a word character first (not ".", "..",
# or a "-" read as an option), and short enough for a file name.
_NAME = re.compile(r"\w[\w.-]*")
MAX_NAME = 100
# Shorter intervals are allowed (a test, a tiny site) but said to be odd:
# the crawl starts again as soon as the last one ended.
SHORT_EVERY = 60
_UNIT = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}
# The longest --every: far longer would overflow the next run's date; a
# yearly crawl is better written as cron.
MAX_EVERY = 366 * 86400


class ScheduleError(ValueError):
    """A job definition the user can fix (printed as one line)."""


def parse_every(text: str) -> float:
    """``90s``, ``15m``, ``6h``, ``1d`` (or plain seconds) to seconds."""
    match = _EVERY.match(text)
    if not match or float(match.group(1)) <= 0:
        raise ScheduleError(f"--every takes a duration like 30m, 6h or 1d, got {text!r}")
    seconds = float(match.group(1)) * _UNIT[match.group(2)]
    if seconds > MAX_EVERY:
        raise ScheduleError(f"--every is at most 366d, got {text!r}")
    return seconds


def next_run(cron: str | None, every: float | None, after: datetime) -> datetime:
    if cron:
        return croniter(cron, after).get_next(datetime)
    assert every is not None
    return after + timedelta(seconds=every)


@dataclass(frozen=True)
class Job:
    name: str
    sites_file: str
    cron: str | None
    every_seconds: float | None
    crawl_args: list[str]
    enabled: bool
    next_run_at: datetime | None
    last_run_at: datetime | None
    last_run_id: int | None
    last_exit: int | None
    running_pid: int | None

    @classmethod
    def from_row(cls, row: Any) -> Job:  # noqa: ANN401
        return cls(
            row.name, row.sites_file, row.cron, row.every_seconds, list(row.crawl_args or []),
            bool(row.enabled), as_utc(row.next_run_at), as_utc(row.last_run_at),
            row.last_run_id, row.last_exit, row.running_pid,
        )  # fmt: skip

    @property
    def when(self) -> str:
        return f"cron {self.cron!r}" if self.cron else f"every {_duration(self.every_seconds or 0)}"


def _duration(seconds: float) -> str:
    """Seconds as --every takes them, in the largest whole unit: 21600 -> 6h."""
    for unit in ("d", "h", "m"):
        if seconds >= _UNIT[unit] and seconds % _UNIT[unit] == 0:
            return f"{seconds / _UNIT[unit]:g}{unit}"
    return f"{seconds:g}s"


# -- the job store ------------------------------------------------------------------


def add_job(
    engine: Engine,
    name: str,
    sites_file: str,
    *,
    cron: str | None = None,
    every: str | None = None,
    crawl_args: list[str] | None = None,
) -> Job:
    name = name.strip()
    if not name:
        raise ScheduleError("a job needs a name: letters, digits, '.', '-' and '_'")
    if not _NAME.fullmatch(name):
        raise ScheduleError(f"job name {name!r}: use only letters, digits, '.', '-' and '_',"
                            " starting with a letter, a digit or '_'")  # fmt: skip
    if len(name) > MAX_NAME:
        raise ScheduleError(f"job name {name[:20]}...: at most {MAX_NAME} characters")
    if bool(cron) == bool(every):
        raise ScheduleError("give exactly one of --cron or --every")
    # Five fields: croniter also takes a sixth (seconds) and a seventh, so a
    # Quartz-style "0 0 9 * * *" would run every second of a day's first minute.
    if cron and (len(cron.split()) != 5 or not croniter.is_valid(cron)):
        raise ScheduleError(f"not a cron expression of five fields (minute hour day month "
                            f"weekday): {cron!r} (e.g. '0 */6 * * *')")  # fmt: skip
    seconds = parse_every(every) if every else None
    path = Path(sites_file).expanduser().resolve()
    if path.is_dir():
        raise ScheduleError(f"site list {sites_file} is a folder; give the file of sites")
    if not path.is_file():
        raise ScheduleError(f"site list {sites_file} does not exist")
    _check_site_list(path)
    now = utcnow()
    try:  # croniter.is_valid passes dates that never come, such as 31 February
        first = next_run(cron, seconds, now)
    except CroniterError:
        raise ScheduleError(f"cron expression {cron!r} never matches a date") from None
    with engine.begin() as conn:
        if conn.execute(select(scheduled_jobs.c.id).where(scheduled_jobs.c.name == name)).first():
            raise ScheduleError(f"a job named {name!r} exists; remove it first")
        conn.execute(
            insert(scheduled_jobs).values(
                name=name,
                sites_file=str(path),
                cron=cron,
                every_seconds=seconds,
                crawl_args=list(crawl_args or []),
                enabled=True,
                next_run_at=first,
                created_at=now,
            )  # fmt: skip
        )
    return get_job(engine, name)


def _check_site_list(path: Path) -> None:
    """A list ``sitesift crawl`` would refuse would fail at every run."""
    from crawler.sitelist import SiteListFileError, read_usable_site_list

    try:
        read_usable_site_list(path)
    except SiteListFileError as exc:
        first = f" ({exc.errors[0]})" if exc.errors else ""
        raise ScheduleError(f"{exc}{first}") from None


def get_job(engine: Engine, name: str) -> Job:
    with engine.connect() as conn:
        row = conn.execute(select(scheduled_jobs).where(scheduled_jobs.c.name == name)).first()
    if row is None:
        raise ScheduleError(f"no job named {name!r}")
    return Job.from_row(row)


def list_jobs(engine: Engine) -> list[Job]:
    with engine.connect() as conn:
        rows = conn.execute(select(scheduled_jobs).order_by(scheduled_jobs.c.name)).all()
    return [Job.from_row(r) for r in rows]


def remove_job(engine: Engine, name: str) -> int | None:
    """Delete the job; the pid of its crawl when one is running (it goes on,
    no longer the scheduler's)."""
    job = get_job(engine, name.strip())  # as add_job stored it; refused when there is none
    with engine.begin() as conn:
        conn.execute(delete(scheduled_jobs).where(scheduled_jobs.c.name == job.name))
    return job.running_pid if _alive(job.running_pid) else None


# -- claiming: one run per job ------------------------------------------------------


def _alive(pid: int | None) -> bool:
    """Whether process ``pid`` (on this host) is still running. A crawl
    orphaned by a killed scheduler may never be reaped by its new parent:
    a zombie counts as ended."""
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True  # no /proc: the signal said it exists
    return stat.rpartition(")")[2].split()[0] not in ("Z", "X")


def claim(engine: Engine, name: str, lease: float, *, force: bool = False) -> Job | None:
    """Take a due job's lease (or any free job's with ``force``); None when
    it is not due or another process holds it."""
    job = get_job(engine, name)
    now = utcnow()
    host = socket.gethostname()
    if job.running_pid and _alive(job.running_pid) and _running_host(engine, name) == host:
        return None  # an orphaned run of a scheduler that died is still going
    free = or_(scheduled_jobs.c.lease_until.is_(None), scheduled_jobs.c.lease_until < now)
    due = and_(scheduled_jobs.c.enabled.is_(True), scheduled_jobs.c.next_run_at <= now)
    with engine.begin() as conn:
        claimed = conn.execute(
            update(scheduled_jobs)
            .where(scheduled_jobs.c.name == name, free, True if force else due)
            .values(
                lease_until=now + timedelta(seconds=lease),
                running_pid=os.getpid(),
                running_host=host,
            )
        ).rowcount
    return get_job(engine, name) if claimed == 1 else None


def _set(engine: Engine, name: str, pid: int | None = None, **values: Any) -> None:  # noqa: ANN401
    """Update the job's row; with ``pid``, only while that crawl is its
    running one (a job removed and added again mid-run is another job)."""
    where = [scheduled_jobs.c.name == name]
    if pid is not None:
        where.append(scheduled_jobs.c.running_pid == pid)
    with engine.begin() as conn:
        conn.execute(update(scheduled_jobs).where(*where).values(**values))


def crawl_command(job: Job, db_url: str) -> list[str]:
    return [sys.executable, "-m", "crawler.cli", "crawl", job.sites_file, "--db", db_url,
            "-s", f"SITESIFT_JOB={job.name}", *job.crawl_args]  # fmt: skip


@dataclass
class Running:
    job: Job
    process: subprocess.Popen[bytes]
    started: datetime
    # The crawl's stderr (its log file, with a log folder), kept open until it
    # ends so that a failure's reason reaches the run's record and the
    # scheduler's log.
    errors: IO[bytes] | None = None
    log_path: Path | None = None


def launch(
    engine: Engine, db_url: str, job: Job, log_dir: Path | None, *, foreground: bool = False
) -> Running:
    """Start the job's crawl as its own process, in its own session: a
    scheduler killed leaves it running (the next one adopts it), and the
    terminal's Ctrl-C reaches only the scheduler, which passes it on
    (``Scheduler.interrupt``). In the ``foreground`` (run-now) its output
    goes to the terminal: the user sees why a crawl failed."""
    log: IO[bytes] | None = None
    errors: IO[bytes] | None = None
    log_path: Path | None = None
    try:
        if log_dir is not None:
            log_dir.mkdir(parents=True, exist_ok=True)
            stamp = utcnow().strftime("%Y%m%dT%H%M%S")
            log_path = log_dir / f"{_UNSAFE.sub('_', job.name)}-{stamp}.log"
            log = errors = log_path.open("a+b")  # noqa: SIM115 - closed by finish()
        elif not foreground:
            errors = tempfile.TemporaryFile()  # noqa: SIM115 - closed by finish()
        process = subprocess.Popen(
            crawl_command(job, db_url),
            stdin=subprocess.DEVNULL,
            stdout=None if foreground else log or subprocess.DEVNULL,
            stderr=None if foreground else log or errors,
            start_new_session=True,
        )
    except OSError:
        for file in {log, errors} - {None}:
            file.close()
        raise
    now = utcnow()  # the period's run is taken: the next one is due after it
    _set(engine, job.name, running_pid=process.pid, last_run_at=now,
         next_run_at=next_run(job.cron, job.every_seconds, now))  # fmt: skip
    logger.info("job %s: started crawl (pid %d)", job.name, process.pid)
    return Running(job, process, utcnow(), errors, log_path)


def not_started(engine: Engine, job: Job, error: OSError) -> int:
    """Record a crawl that could not be started (its log file or the
    process could not be made) as a failed run, and release the job until
    its next period; returns the run id."""
    now = utcnow()
    reason = f"failed: not started: {error.strerror or error}"
    with engine.begin() as conn:
        run_id = _failed_run(conn, job, now, reason)
    _set(engine, job.name, running_pid=None, running_host=None, lease_until=None,
         last_run_at=now, last_exit=None, last_run_id=run_id,
         next_run_at=next_run(job.cron, job.every_seconds, now))  # fmt: skip
    logger.error("job %s: crawl not started: %s", job.name, error)
    return run_id


def _failed_run(conn: Connection, job: Job, started: datetime, reason: str) -> int:
    """Record a run of ``job`` that failed before the crawl recorded itself."""
    reason = reason[: crawl_runs.c.finish_reason.type.length]
    return conn.execute(
        insert(crawl_runs).values(spider="site", sites_file=job.sites_file, job=job.name,
                                  started_at=started, finished_at=utcnow(), finish_reason=reason)
    ).inserted_primary_key[0]  # fmt: skip


# A line of a log that says what went wrong: Scrapy's ERROR / CRITICAL
# records and the last line of a traceback ("ValueError: ...").
_ERROR_RECORD = re.compile(r"\] (ERROR|CRITICAL): |^[\w.]*(Error|Exception)\b")


def _error_line(errors: IO[bytes] | None) -> str | None:
    """The crawl's last "sitesift: ..." line (else its last error record),
    read from the end of its stderr, and the file closed. An INFO line (a
    Ctrl-C's "Closing download handler") is no reason."""
    if errors is None:
        return None
    with errors:
        size = errors.seek(0, os.SEEK_END)
        errors.seek(max(0, size - 8192))
        lines = [ln.strip() for ln in errors.read().decode(errors="replace").splitlines()]
    marked = [ln for ln in lines if ln.startswith("sitesift: ")]
    line = (marked or [ln for ln in lines if _ERROR_RECORD.search(ln)] or [None])[-1]
    return line.removeprefix("sitesift: ")[:300] if line else None


def finish(engine: Engine, running: Running, code: int) -> int | None:
    """Release the lease and record the outcome (a failure with the crawl's
    last error line); returns the run id."""
    name = running.job.name
    error = _error_line(running.errors)
    failed = f"failed: exit status {code}"
    if code and error:  # its end, when too long: "...sites.txt: site list not found"
        room = crawl_runs.c.finish_reason.type.length - len(failed) - 2
        failed += ": " + (error if len(error) <= room else "…" + error[-room + 1 :])
    with engine.begin() as conn:
        run_id = conn.execute(
            select(crawl_runs.c.id)
            .where(crawl_runs.c.job == name, crawl_runs.c.started_at >= running.started)
            .order_by(crawl_runs.c.id.desc())
            .limit(1)
        ).scalar()
        if run_id is None:  # the crawl died before it could record itself
            run_id = _failed_run(conn, running.job, running.started, failed)
        elif code != 0:
            conn.execute(
                update(crawl_runs)
                .where(crawl_runs.c.id == run_id, crawl_runs.c.finished_at.is_(None))
                .values(finished_at=utcnow(), finish_reason=failed)
            )
    _set(engine, name, running.process.pid, running_pid=None, running_host=None,
         lease_until=None, last_exit=code, last_run_id=run_id)  # fmt: skip
    where = f" (log {running.log_path})" if running.log_path else ""
    if code and error:
        logger.warning("job %s: crawl ended with status %d (run %s): %s%s", name, code, run_id,
                       error, where)  # fmt: skip
    elif code:
        logger.warning("job %s: crawl ended with status %d (run %s)%s", name, code, run_id, where)
    else:
        logger.info("job %s: crawl ended with status %d (run %s)", name, code, run_id)
    return run_id


def run_now(engine: Engine, db_url: str, name: str, lease: float = 60.0) -> tuple[int, bool]:
    """Run a job in the foreground now: its exit status, and whether Ctrl-C
    stopped it. Refused while it runs."""
    loop = Scheduler(engine, db_url, tick=min(lease / 3, 2.0), lease=lease)
    return loop.run_job(name.strip())  # as add_job stored it


def _running_host(engine: Engine, name: str) -> str | None:
    with engine.connect() as conn:
        return conn.execute(
            select(scheduled_jobs.c.running_host).where(scheduled_jobs.c.name == name)
        ).scalar()


def release_orphan(engine: Engine, job: Job) -> int | None:
    """Record the end of a crawl whose scheduler died before it did: the
    job's last run is the crawl's own row in ``crawl_runs``; the lease is
    released. Returns the run id."""
    with engine.begin() as conn:
        run = conn.execute(
            select(crawl_runs.c.id, crawl_runs.c.finish_reason)
            .where(crawl_runs.c.job == job.name)
            .order_by(crawl_runs.c.id.desc())
            .limit(1)
        ).first()
        values: dict[str, Any] = {"running_pid": None, "running_host": None, "lease_until": None}
        if run is not None:
            values |= {
                "last_run_id": run.id,
                "last_exit": 0 if run.finish_reason == "finished" else 1,
            }
        conn.execute(
            update(scheduled_jobs)
            .where(
                scheduled_jobs.c.name == job.name, scheduled_jobs.c.running_pid == job.running_pid
            )
            .values(**values)
        )
    logger.info("job %s: the crawl (pid %d) of a previous scheduler ended (run %s)",
                job.name, job.running_pid, run.id if run else None)  # fmt: skip
    return run.id if run else None


def _check_log_dir(log_dir: Path) -> None:
    """Refuse a log folder that cannot take files, before any job is due."""
    try:
        log_dir.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=log_dir).close()
    except OSError as exc:
        why = "it is a file" if log_dir.is_file() else exc.strerror or str(exc)
        raise ScheduleError(f"cannot write logs in {log_dir}: {why}") from None


class Scheduler:
    """The long-running loop of ``sitesift scheduler``."""

    def __init__(
        self,
        engine: Engine,
        db_url: str,
        *,
        tick: float = 5.0,
        lease: float = 60.0,
        log_dir: Path | None = None,
        max_runs: int | None = None,
    ) -> None:
        if tick <= 0 or lease <= tick:
            raise ScheduleError("the tick must be > 0 and shorter than the lease")
        if log_dir is not None:
            _check_log_dir(log_dir)
        self.engine, self.db_url = engine, db_url
        self.tick, self.lease, self.log_dir = tick, lease, log_dir
        self.max_runs = max_runs
        self.running: dict[str, Running] = {}
        self.finished = 0
        self.stopping = False
        self.interrupts = 0  # Ctrl-C presses
        self.interrupted: list[str] = []  # jobs whose crawls Ctrl-C stopped
        self.next_due: datetime | None = None  # of the jobs not started at the last step

    def stop(self, *_: object) -> None:
        """SIGTERM: start no more crawls; the running ones run on, and the
        next scheduler adopts them (a restart does not cut a crawl short)."""
        self.stopping = True

    def interrupt(self, *_: object) -> None:
        """SIGINT (Ctrl-C): stop, and stop this scheduler's crawls too. Only
        a flag here, acted on between steps: a KeyboardInterrupt raised
        mid-step could leave a crawl started but untracked."""
        self.interrupts += 1
        self.stop()

    def run(self) -> int:
        handlers = {signal.SIGTERM: self.stop, signal.SIGINT: self.interrupt}
        previous = {sig: signal.signal(sig, handler) for sig, handler in handlers.items()}
        try:
            logger.info("scheduler started: %d job(s)", len(list_jobs(self.engine)))
            while not self.stopping:
                self.step()
                done = self.max_runs is not None and self.finished >= self.max_runs
                if done and not self.running:
                    break
                self._pause(self._until_next_check())
            if self.interrupts:
                self._stop_crawls()
            elif self.running:
                logger.warning("scheduler stopping; %d crawl(s) run on", len(self.running))
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        return self.finished

    def run_job(self, name: str) -> tuple[int, bool]:
        """One job's crawl in the foreground (``schedule run-now``). Ctrl-C
        takes the loop's stop path (the crawl has its own session and would
        run on unseen): passed on to the crawl, its end recorded. Returns the
        crawl's exit status and whether Ctrl-C stopped it."""
        # set before the claim: a press during it must not leave a lease held by no crawl
        previous = signal.signal(signal.SIGINT, self.interrupt)
        try:
            job = claim(self.engine, name, self.lease, force=True)
            if job is None:
                raise ScheduleError(f"job {name!r} is running already")
            running = launch(self.engine, self.db_url, job, None, foreground=True)
            self.running[name] = running
            while self.running and not self.interrupts:
                self._pause(self.tick)
                self._reap()
            if self.interrupts:
                self._stop_crawls()
        finally:
            signal.signal(signal.SIGINT, previous)
        return running.process.returncode, bool(self.interrupted)

    def _until_next_check(self) -> float:
        """Seconds to the next step: a tick, or less when a job falls due
        before it (its crawl starts then, not up to a tick late)."""
        if self.next_due is None:
            return self.tick
        return min(self.tick, max(0.0, (self.next_due - utcnow()).total_seconds()))

    def _pause(self, seconds: float) -> None:
        """Sleep up to ``seconds``, less once a signal came or a crawl ended
        (its end is recorded then, not a tick later). Polled: a signal
        handler that set an Event could deadlock on the lock the waiting
        main thread holds at that instant."""
        seen = (self.stopping, self.interrupts)
        deadline = time.monotonic() + seconds
        while (self.stopping, self.interrupts) == seen:
            left = deadline - time.monotonic()
            if left <= 0 or any(r.process.poll() is not None for r in self.running.values()):
                return
            time.sleep(min(0.1, left))

    def _stop_crawls(self) -> None:
        """Pass each Ctrl-C on to the running crawls (their own session does
        not get the terminal's): Scrapy stops gracefully on the first, at
        once on the second; a third kills. Their ends are recorded as they
        come, so no job is left marked running."""
        self.interrupted = sorted(self.running)
        sent = 0
        while self.running:
            if sent < self.interrupts:
                sent += 1
                for running in self.running.values():
                    running.process.send_signal(signal.SIGINT if sent <= 2 else signal.SIGKILL)
            self._reap()
            self._pause(0.5)

    def _orphan(self, job: Job) -> None:
        """A job marked running that this scheduler did not start: the crawl
        of a scheduler that was killed or restarted. While the crawl runs its
        lease is kept (no second run of the job); once it ended, its outcome
        is recorded and the job is free."""
        if _running_host(self.engine, job.name) != socket.gethostname():
            return  # another machine's scheduler: its lease says whether it lives
        if job.running_pid != os.getpid() and _alive(job.running_pid):
            _set(self.engine, job.name, lease_until=utcnow() + timedelta(seconds=self.lease))
            return
        release_orphan(self.engine, job)

    def _reap(self) -> None:
        """Record the crawls that ended; renew the leases of the others."""
        for name, running in list(self.running.items()):
            code = running.process.poll()
            if code is None:
                _set(self.engine, name, lease_until=utcnow() + timedelta(seconds=self.lease))
                continue
            finish(self.engine, running, code)
            del self.running[name]
            self.finished += 1

    def step(self) -> None:
        """Reap finished crawls, renew leases, start due jobs."""
        self._reap()
        jobs = list_jobs(self.engine)
        for job in jobs:
            if job.name not in self.running and job.running_pid:
                self._orphan(job)
        self.next_due = None
        if self.max_runs is not None and self.finished + len(self.running) >= self.max_runs:
            return
        for job in jobs:
            if job.name in self.running or not job.enabled:
                continue
            if job.next_run_at and job.next_run_at > utcnow():
                if self.next_due is None or job.next_run_at < self.next_due:
                    self.next_due = job.next_run_at
                continue
            claimed = claim(self.engine, job.name, self.lease)
            if claimed is None:
                continue
            try:
                self.running[job.name] = launch(self.engine, self.db_url, claimed, self.log_dir)
            except OSError as exc:  # one job's failure stops no other
                not_started(self.engine, claimed, exc)
                self.finished += 1
