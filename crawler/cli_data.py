"""The database commands of ``sitesift``: export, status, schedule, scheduler.

Every command takes ``--db URL`` (default: ``SITESIFT_DB``, the local SQLite
file). Bad input ends with one line and exit status 2 (see crawler/cli.py).
"""

from __future__ import annotations

import argparse
import logging
import os
import shlex
import sys
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, delete, func, select
from sqlalchemy.exc import SQLAlchemyError

from pipelines.export import FORMATS

if TYPE_CHECKING:
    from pipelines.spool import Spool

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
EXIT_PIPE_CLOSED = 128 + 13  # as a Unix tool killed by SIGPIPE


class CLIError(Exception):
    """A problem the user can fix; printed as one line."""


def reader_left() -> int:
    """Output piped into a reader that stopped early (``| head``): end
    quietly, as Unix tools do, and keep Python from failing again on the
    final flush of stdout."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return EXIT_PIPE_CLOSED


def _cli_error(message: str) -> Exception:
    return CLIError(message)


def default_db() -> str:
    from crawler.cli import _project_settings

    return _project_settings([], None).get("SITESIFT_DB")


def open_db(
    url: str | None, *, create: bool = False, missing: str = "crawl first, or pass --db URL"
) -> tuple[Engine, str]:
    """The engine for ``--db`` (or the default). Only commands that may
    start a database (``create``) make one; the others need one sitesift
    made: a command that reads must not add sitesift's tables to a foreign
    database."""
    from sqlalchemy.engine import make_url

    from pipelines.schema import DatabaseError, check_url, connect, open_existing

    url = url or default_db()
    try:
        check_url(url)
    except DatabaseError as exc:
        raise _cli_error(str(exc)) from None
    parsed = make_url(url)
    database = parsed.database
    is_file = parsed.get_backend_name() == "sqlite" and database not in (None, "", ":memory:")
    if not create and is_file and not Path(database).exists():
        raise _cli_error(f"no database at {database} ({missing})")
    try:
        return (connect(url) if create else open_existing(url)), url
    except DatabaseError as exc:
        raise _cli_error(str(exc)) from None


def cli_date(text: str | None, flag: str) -> datetime | None:
    """A command line's date or time (ISO 8601), in UTC unless it names a zone."""
    if not text:
        return None
    try:
        value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise _cli_error(
            f"{flag} takes a date like 2024-05-01 or 2024-05-01T12:00, got {text!r}"
        ) from None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


# -- export ----------------------------------------------------------------------


def _site_key(text: str) -> str:
    """A site as stored (``host_of``: host[:port]), also from the start URL a
    site list holds."""
    from urllib.parse import urlsplit

    from crawler.urls import host_of

    if "://" not in text:
        return text.strip().lower().rstrip("/")
    site = host_of(text)
    if urlsplit(text.strip()).path.strip("/"):
        print(f"sitesift: --site {text} means all of {site}: a site is a whole host",
              file=sys.stderr)  # fmt: skip
    return site


def cmd_export(args: argparse.Namespace) -> int:
    from extractors.metadata import primary_language
    from pipelines.export import ExportFilter, export
    from pipelines.export import count as export_count

    if not args.output.strip():  # an unset $OUT: never the current folder
        raise _cli_error("--output is empty: give a file (.jsonl, .json, .csv), a folder "
                         "(Markdown) or - (stdout)")  # fmt: skip
    to_stdout = args.output == "-"
    fmt = args.format or ("jsonl" if to_stdout else _format_from(args.output))
    if fmt is None:
        raise _cli_error(f"cannot tell the format from {args.output!r}: name it .jsonl, .json,"
                         f" .csv or a folder, or pass --format ({', '.join(FORMATS)})")  # fmt: skip
    if fmt not in FORMATS:
        raise _cli_error(f"--format must be one of {', '.join(FORMATS)}")
    if not to_stdout and Path(args.output).suffix.lower() == ".md":
        raise _cli_error(f"{args.output}: markdown export writes a folder of .md files, one "
                         "per article (or list page); give -o FOLDER")  # fmt: skip
    named = None if to_stdout else _format_from(args.output)
    if args.format and named not in (None, args.format):
        print(f"sitesift: warning: writing {args.format} to {args.output}, whose name says "
              f"{named}", file=sys.stderr)  # fmt: skip
    if args.records:
        _check_records_flags(args)
    if args.excel and fmt != "csv":
        raise _cli_error(f"--excel is for CSV; this export is {fmt}")
    out = Path(args.output).expanduser()
    if to_stdout and fmt == "markdown":
        raise _cli_error("markdown export writes a folder of files, not stdout; give -o FOLDER")
    if not to_stdout:
        if fmt == "markdown" and out.exists() and not out.is_dir():
            raise _cli_error(f"{out} is a file; markdown export writes a folder")
        parent = out.resolve().parent if fmt != "markdown" else out.resolve()
        check = parent if fmt != "markdown" else (parent if parent.exists() else parent.parent)
        if check.is_file():
            raise _cli_error(f"{check} is a file, not a folder to write in")
        if not check.is_dir():
            raise _cli_error(f"output folder {check} does not exist")
    since, until = cli_date(args.since, "--since"), cli_date(args.until, "--until")
    if since and until and until <= since:
        raise _cli_error(f"--until ({args.until}) is not after --since ({args.since})")
    flt = ExportFilter(
        sites=tuple(_site_key(s) for s in args.site),
        languages=tuple(primary_language(s) for s in args.language),
        page_types=tuple(args.page_type), url_groups=tuple(args.url_group), since=since,
        until=until, date_field=args.date_field, include_duplicates=args.include_duplicates,
        skip_gone=args.skip_gone,
    )  # fmt: skip
    engine, _ = open_db(args.db)
    if not to_stdout and _is_database_file(engine, out):
        engine.dispose()
        raise _cli_error(f"{args.output} is the database itself; choose another output")

    shown = False  # the progress line is rewritten in place ("\r" from the second on)
    what = "article(s)"
    if args.records:
        what = "list page(s) with their records" if fmt == "markdown" else "list record(s)"

    def progress(done: int, total: int) -> None:
        nonlocal shown
        if not args.quiet:
            start, shown = "\r" if shown else "", True
            print(f"{start}exported {done}/{total} {what}", end="", file=sys.stderr, flush=True)

    replacing = not to_stdout and fmt != "markdown" and out.is_file()
    left_out = gone = 0
    removed: list[Path] = []
    try:
        count = export(engine, fmt, "-" if to_stdout else str(out), flt, progress,
                       excel=args.excel, records=args.records, removed=removed)  # fmt: skip
        if flt.skip_gone:
            gone = export_count(engine, replace(flt, skip_gone=False)) - count
        if not flt.include_duplicates and not args.records:
            left_out = export_count(engine, replace(flt, include_duplicates=True)) - count
    except BrokenPipeError:
        if not to_stdout:
            raise
        _end_line(shown)
        return reader_left()
    except OSError as exc:
        _end_line(shown)
        raise _cli_error(f"cannot write {args.output}: {exc.strerror or exc}") from None
    finally:
        engine.dispose()
    if not args.quiet:
        _end_line(shown)
        replaced = ", replacing the file that was there" if replacing else ""
        print(f"wrote {count} {what} to {args.output} ({fmt}){replaced}", file=sys.stderr)
        if removed:
            print(f"removed {len(removed)} file(s) an earlier export wrote to {args.output} "
                  "that this one did not (the folder holds this selection only; one export "
                  "with several --site keeps them together)", file=sys.stderr)  # fmt: skip
        if gone > 0:
            print(f"{gone} article(s) whose page is gone (its last fetch: HTTP 404 or 410) "
                  "left out", file=sys.stderr)  # fmt: skip
        if left_out > 0:
            print(f"{left_out} duplicate(s) of those left out (--include-duplicates to write "
                  "them too)", file=sys.stderr)  # fmt: skip
        if not count and flt.sites:
            _say_sites_stored(args.db, flt.sites)
    return EXIT_OK


def _check_records_flags(args: argparse.Namespace) -> None:
    """--records writes rows of list_records: the article filters do not apply."""
    flags = {"--language": args.language, "--page-type": args.page_type,
             "--include-duplicates": args.include_duplicates, "--skip-gone": args.skip_gone,
             "--date-field published": args.date_field == "published"}  # fmt: skip
    if given := [flag for flag, value in flags.items() if value]:
        raise _cli_error(f"{', '.join(given)}: a filter of articles; --records takes --site, "
                         "--url-group, --since and --until (on the page's fetch date)")  # fmt: skip


def _end_line(progress_shown: bool) -> None:
    """End the progress line, if one was shown, before the next message."""
    if progress_shown:
        print(file=sys.stderr)


def _say_sites_stored(db: str | None, asked: tuple[str, ...]) -> None:
    """After an export of nothing: the stored sites the ones asked for may
    have meant ("127.0.0.1" for "127.0.0.1:8001")."""
    from pipelines.schema import articles

    engine, _ = open_db(db)
    try:
        with engine.connect() as conn:
            stored = set(conn.execute(select(articles.c.site).distinct()).scalars())
    finally:
        engine.dispose()
    if missing := [s for s in asked if s not in stored]:
        near = sorted(s for s in stored if any(s.split(":")[0] == m.split(":")[0] for m in missing))
        hint = f"; did you mean {', '.join(near)}?" if near else ""
        print(f"no stored article of {', '.join(missing)}{hint}", file=sys.stderr)


def _is_database_file(engine: Engine, out: Path) -> bool:
    """Writing the export over the SQLite file it reads would destroy the database."""
    database = engine.url.database
    if engine.url.get_backend_name() != "sqlite" or database in (None, "", ":memory:"):
        return False
    return Path(database).expanduser().resolve() == out.resolve()


def _format_from(output: str) -> str | None:
    formats = {".jsonl": "jsonl", ".json": "json", ".csv": "csv", "": "markdown", ".md": "markdown"}
    return formats.get(Path(output).suffix.lower())


# -- status ------------------------------------------------------------------------


def cmd_status(args: argparse.Namespace) -> int:
    from crawler.scheduler import list_jobs
    from pipelines.schema import articles, crawl_runs, list_records, pages, screenshots
    from pipelines.spool import Spool

    if args.redis:
        return _redis_status(args.redis)
    root = Path(args.spool_dir or _settings().get("SITESIFT_SPOOL_DIR")).absolute()
    spool = Spool(root, args.db or default_db())
    try:
        engine, url = open_db(args.db)
    except CLIError as exc:  # a database down is when people ask whether their items are safe
        print(f"sitesift: error: {exc}", file=sys.stderr)
        _spool_status(spool, quiet_if_empty=True)
        return EXIT_USAGE
    try:
        with engine.connect() as conn:
            outcomes = conn.execute(
                select(pages.c.site, pages.c.outcome, func.count()).group_by(
                    pages.c.site, pages.c.outcome
                )
            ).all()
            n_articles = conn.execute(select(func.count()).select_from(articles)).scalar_one()
            dups = conn.execute(
                select(func.count())
                .select_from(articles)
                .where(articles.c.duplicate_of.is_not(None))
            ).scalar_one()
            n_records, n_shots = (
                conn.execute(select(func.count()).select_from(table)).scalar_one()
                for table in (list_records, screenshots)
            )
            runs = conn.execute(select(crawl_runs).order_by(crawl_runs.c.id.desc()).limit(5)).all()
            n_runs = conn.execute(select(func.count()).select_from(crawl_runs)).scalar_one()
            jobs = list_jobs(engine)
            failures = _recent_failures(conn, args.failures) if args.failures else []
    except SQLAlchemyError:  # it opened, then failed: the spool still tells (main says why)
        _spool_status(spool, quiet_if_empty=True)
        engine.dispose()
        raise
    print(f"database: {engine.url.render_as_string(hide_password=True)}")
    by_site: dict[str, dict[str, int]] = {}
    for site, outcome, n in outcomes:
        by_site.setdefault(site, {})[outcome] = n
    for site, counts in sorted(by_site.items()):
        print(f"  {site}: " + ", ".join(f"{n} {o}" for o, n in sorted(counts.items())))
    print(f"articles: {n_articles} ({dups} linked to an original as duplicates)")
    print(f"list records: {n_records}")
    print(f"screenshots: {n_shots}")
    print(f"recent runs ({len(runs)} of {n_runs}):" if n_runs > len(runs) else "recent runs:")
    for run in runs:
        reason = run.finish_reason or "running or interrupted"
        print(f"  #{run.id} {run.started_at:%Y-%m-%d %H:%M} {run.job or '-'} "
              f"{reason}{_run_pages(run.counts)}")  # fmt: skip
    for job in jobs:
        print(
            f"job {job.name}: {job.when}, next {_utc(job.next_run_at)}, {_last_exit(job.last_exit)}"
        )
    if args.failures is not None:
        failed = sum(n for _, outcome, n in outcomes if outcome != "ok")
        print(f"pages not ok: {failed}" + (f", the latest {len(failures)}:" if failures else ""))
        for row in failures:
            print(f"  {row.outcome:10s} {row.url}  ({row.reason or 'no reason recorded'})")
    _spool_status(spool)
    engine.dispose()
    return EXIT_OK


def _run_pages(counts: dict[str, Any] | None) -> str:
    """What a finished run stored: ", 50 page(s): 41 ok, 9 http_error" (a
    run that fetched nothing also finishes), how many a recrawl found
    unchanged (stored as skipped: their content was already there) and how
    many it did not fetch, not due for a revisit."""
    if not counts:
        return ""
    stored = {k.removeprefix("sitesift/stored/"): v for k, v in counts.items()
              if k.startswith("sitesift/stored/") and isinstance(v, int)}  # fmt: skip
    unchanged = counts.get("sitesift/pages/unchanged") or 0
    if unchanged and stored.get("skipped"):  # an unchanged page is stored as skipped
        stored["skipped"] = max(0, stored["skipped"] - unchanged)
    ok = stored.pop("ok", 0)
    parts = [f"{ok} ok"] + ([f"{unchanged} unchanged"] if unchanged else [])
    parts += [f"{n} {outcome}" for outcome, n in sorted(stored.items()) if n]
    said = f", {ok + unchanged + sum(stored.values())} page(s): {', '.join(parts)}"
    if not_due := counts.get("sitesift/recrawl/not_due"):
        said += f"; {not_due} not due for a revisit, not fetched"
    return said


def _utc(when: datetime | None) -> str:
    """A time as every command prints it: 2024-05-03 10:20:00Z."""
    return f"{when:%Y-%m-%d %H:%M:%S}Z" if when else "-"


def _last_exit(code: int | None) -> str:
    return "never run" if code is None else f"last exit {code}"


def _recent_failures(conn: Connection, limit: int) -> list[Any]:
    """The ``limit`` pages most recently recorded as not ok."""
    from pipelines.schema import pages

    query = (
        select(pages.c.outcome, pages.c.url, pages.c.reason)
        .where(pages.c.outcome != "ok")
        .order_by(pages.c.fetched_at.desc(), pages.c.id.desc())
        .limit(limit)
    )
    return list(conn.execute(query).all())


def _spool_status(spool: Spool, *, quiet_if_empty: bool = False) -> None:
    """Print what the spool holds for the database, and where it looked
    (``quiet_if_empty``: beside an error, only what waits)."""
    from pipelines.spool import REJECTED

    pending, rejected = spool.pending(), spool.rejected()
    run_ends = sum(1 for _ in spool.run_ends())
    if pending:
        print(f"spool: {pending} item(s) waiting in {spool.directory}")
    if rejected:
        print(f"rejected: {rejected} item(s) the database refused, "
              f"kept in {spool.directory / REJECTED}")  # fmt: skip
    if run_ends:
        print(f"spool: {run_ends} run end(s) waiting in {spool.directory}")
    if not (pending or rejected or run_ends or quiet_if_empty):
        print(f"spool: nothing waiting in {spool.directory}")
    for folder, database, waiting in spool.elsewhere():
        print(f"spool: {waiting} item(s) waiting in {folder} for {database}")


def _redis_status(redis_url: str) -> int:
    """The distributed crawls in a Redis: frontier, workers, errors."""
    import redis

    from crawler.distributed import crawl_status

    try:
        report = crawl_status(redis_url)
    except (redis.RedisError, ValueError) as exc:
        raise CLIError(f"cannot reach Redis at {redis_url}: {exc}") from None
    if not report:
        print(f"no sitesift crawl in {redis_url}")
    for crawl in report:
        state = "finished" if crawl["finished"] else "running"
        print(f"crawl {crawl['crawl']} ({state}): {crawl['queued']} request(s) queued, "
              f"{crawl['seen']} URL(s) seen")  # fmt: skip
        for w in crawl["workers"]:
            print(f"  {w['worker']:<32} {'alive' if w['alive'] else 'gone ':<5} "
                  f"fetched {w.get('fetched', 0):>6}  stored {w.get('stored', 0):>6}  "
                  f"failed {w.get('failed', 0):>5}  in flight {w['inflight']:>3}")  # fmt: skip
    return EXIT_OK


# -- schedule ----------------------------------------------------------------------


def cmd_schedule(args: argparse.Namespace) -> int:
    from crawler import scheduler as sched

    engine, url = open_db(args.db, create=args.action == "add")  # add may start a database
    try:
        if args.action == "add":
            try:
                extra = shlex.split(args.crawl_args)
            except ValueError as exc:
                raise _cli_error(f"--crawl-args: {exc}") from None
            from crawler.cli import absolute_crawl_paths, check_crawl_args

            try:
                check_crawl_args(args.sites, extra)
            except CLIError as exc:
                raise _cli_error(f"--crawl-args: {exc}") from None
            extra = absolute_crawl_paths(extra)  # the scheduler may run from elsewhere
            job = sched.add_job(engine, args.name, args.sites, cron=args.cron, every=args.every,
                                crawl_args=extra)  # fmt: skip
            print(f"added {job.name}: {job.when}, first run {_utc(job.next_run_at)}")
            if job.every_seconds and job.every_seconds < sched.SHORT_EVERY:
                given = args.every.strip()
                unit = (f" (a number alone is seconds: {given}m is minutes, {given}h hours)"
                        if given[-1:].isdigit() else "")  # fmt: skip
                print(f"sitesift: warning: {job.when}{unit}: its crawl starts again as soon "
                      "as the last one ended", file=sys.stderr)  # fmt: skip
        elif args.action == "list":
            jobs = sched.list_jobs(engine)
            if not jobs:
                print("no jobs; add one: sitesift schedule add NAME --sites FILE --every 6h",
                      file=sys.stderr)  # fmt: skip
            for job in jobs:
                state = "running" if job.running_pid else ("on" if job.enabled else "off")
                print(f"{job.name}\t{job.when}\tnext {_utc(job.next_run_at)}\t{state}\t"
                      f"{_last_exit(job.last_exit)}\t{job.sites_file}\t"
                      f"{shlex.join(job.crawl_args)}".rstrip("\t"))  # fmt: skip
        elif args.action == "remove":
            running = sched.remove_job(engine, args.name)
            print(f"removed {args.name.strip()}")
            if running:
                print(f"sitesift: warning: its crawl (pid {running}) goes on, no longer the "
                      f"scheduler's; stop it with: kill {running}", file=sys.stderr)  # fmt: skip
        elif args.action == "run-now":
            code, stopped = sched.run_now(engine, url, args.name)
            name = args.name.strip()  # as the job was stored
            if stopped:
                print(f"sitesift: run-now stopped (Ctrl-C); the crawl of {name} ended with "
                      f"status {code}, its end recorded", file=sys.stderr)  # fmt: skip
            else:
                print(f"{name}: crawl exited with status {code}")
            return EXIT_OK if code == 0 else EXIT_FAILED
    except sched.ScheduleError as exc:
        raise _cli_error(str(exc)) from None
    finally:
        engine.dispose()
    return EXIT_OK


def cmd_scheduler(args: argparse.Namespace) -> int:
    from crawler.scheduler import ScheduleError, Scheduler

    logging.basicConfig(level=logging.INFO, format="%(asctime)s [%(name)s] %(message)s")
    from crawler.cli import check_crawl_settings

    settings = _settings()
    check_crawl_settings(settings)
    # A mistyped path would make a new, empty database and wait on it forever.
    engine, url = open_db(
        args.db, missing="add a job first with sitesift schedule add, or pass the --db it used"
    )
    tick = args.tick if args.tick is not None else settings.getfloat("SITESIFT_SCHEDULER_TICK")
    lease = settings.getfloat("SITESIFT_SCHEDULER_LEASE")
    try:
        loop = Scheduler(engine, url, tick=tick, lease=max(lease, tick * 3),
                         log_dir=Path(args.log_dir) if args.log_dir else None,
                         max_runs=args.max_runs)  # fmt: skip
    except ScheduleError as exc:
        raise _cli_error(str(exc)) from None
    try:
        loop.run()
    finally:
        engine.dispose()
    if loop.interrupts:
        done = (f"stopped the crawl(s) of {', '.join(loop.interrupted)}, their ends recorded"
                if loop.interrupted else "no crawl was running")  # fmt: skip
        print(f"sitesift: scheduler stopped (Ctrl-C); {done}", file=sys.stderr)
    return EXIT_OK


def _settings() -> Any:  # noqa: ANN401
    from crawler.cli import _project_settings

    return _project_settings([], None)


def cmd_prune_screenshots(args: argparse.Namespace) -> int:
    from crawler.screenshots import ScreenshotStore
    from pipelines.schema import database_key, pages, screenshots

    engine, url = open_db(args.db)
    if args.dir and not Path(args.dir).is_dir():  # a typo; the default may not exist yet
        engine.dispose()
        raise CLIError(f"no screenshot folder at {args.dir}")
    folders = [args.dir] if args.dir else _stored_folders(engine)
    stores = [ScreenshotStore(folder) for folder in folders or
              [_settings().get("SITESIFT_SCREENSHOT_DIR")]]  # fmt: skip
    for store in stores:
        if (others := store.owners() - {database_key(url)}) and not args.force:
            engine.dispose()
            raise CLIError(f"{store.root} also holds the screenshots of "
                           f"{', '.join(sorted(others))}; a sweep for this database alone "
                           "would delete theirs. Give each database its own folder "
                           "(SITESIFT_SCREENSHOT_DIR), or pass --force if those databases "
                           "are gone")  # fmt: skip
    used = select(pages.c.screenshot).where(pages.c.screenshot.is_not(None)).distinct()
    try:
        with engine.connect() as conn:
            keep = set(conn.execute(used).scalars())
        removed = [store.prune(keep, min_age=args.min_age) for store in stores]
        cutoff = datetime.now(UTC) - timedelta(seconds=args.min_age)
        with engine.begin() as conn:  # their rows too: no row names a file that is gone
            conn.execute(delete(screenshots).where(screenshots.c.sha256.not_in(used),
                                                   screenshots.c.taken_at <= cutoff))  # fmt: skip
    finally:
        engine.dispose()
    for store, count in zip(stores, removed, strict=True):
        print(f"{count} unreferenced screenshot(s) removed from {store.root}")
    print(f"{len(keep)} screenshot(s) in use")
    missing = sum(1 for sha in keep if all(store.find(sha) is None for store in stores))
    if missing:
        where = " or ".join(str(store.root) for store in stores)
        print(f"{missing} screenshot(s) the database refers to are missing from {where}")
    return EXIT_OK


def _stored_folders(engine: Engine) -> list[str]:
    """The folders the database's screenshots were written to (rows name
    their files by absolute path; SITESIFT_SCREENSHOT_DIR may have changed
    between crawls): the default is relative to where a command runs, and a
    sweep run from another folder would find every file missing."""
    from crawler.screenshots import ScreenshotStore
    from pipelines.schema import screenshots

    with engine.connect() as conn:
        paths = conn.execute(select(screenshots.c.path)).scalars()
        return sorted({str(ScreenshotStore.root_of(path)) for path in paths})


# -- the parsers --------------------------------------------------------------------


def _seconds(text: str) -> float:
    """An argparse type: a finite number of seconds, 0 or more."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected seconds (0 or more), got {text!r}")
    return value


def _db_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", help="SQLAlchemy database URL (default: sqlite:///sitesift.db)")


def add_data_commands(sub: Any) -> None:  # noqa: ANN401 - argparse's private subparsers type
    exp = sub.add_parser(
        "export",
        help="write stored articles (or list records) to JSONL, JSON, CSV or Markdown",
        description="Export articles from the database, streamed (constant memory). "
        "Duplicates linked to an original are left out unless --include-duplicates. "
        "With --records, the records of list pages instead.",
    )
    _db_flag(exp)
    exp.add_argument("--format", choices=FORMATS,
                     help="output format (default: from the output's extension)")  # fmt: skip
    exp.add_argument("--output", "-o", required=True,
                     help="file (.jsonl, .json: one array, .csv; - for stdout; an existing "
                     "file is replaced) or folder (markdown: it then holds this export's "
                     "articles; the files an earlier export wrote there and this one did "
                     "not are removed, other files are left alone)")  # fmt: skip
    exp.add_argument("--site", action="append", default=[],
                     help="only this site: host[:port], or its start URL")  # fmt: skip
    exp.add_argument("--language", action="append", default=[],
                     help="only this language (zh, en...; zh-CN counts as zh)")  # fmt: skip
    exp.add_argument("--records", action="store_true",
                     help="write the records of list pages instead (one row per record: "
                     "page_url, site, url_group, position, title, url, date, text, "
                     "fetched_at), as jsonl, json or csv; as markdown, one file per list "
                     "page, its records as links")  # fmt: skip
    exp.add_argument("--page-type", action="append", default=[], choices=("article", "other"),
                     help="only this page type (repeatable); the records of list pages are "
                     "written with --records")  # fmt: skip
    exp.add_argument("--url-group", action="append", default=[],
                     help="only this URL group; * is a wildcard")  # fmt: skip
    exp.add_argument("--since", help="from this date (ISO 8601, UTC unless a zone is given)")
    exp.add_argument("--until", help="before this date")
    exp.add_argument("--date-field", choices=["fetched", "published"], default="fetched",
                     help="which date --since/--until filter on (default: fetched)")  # fmt: skip
    exp.add_argument("--include-duplicates", action="store_true",
                     help="also the articles linked to an original as its duplicates")  # fmt: skip
    exp.add_argument("--skip-gone", action="store_true",
                     help="leave out the articles whose page was removed: its last fetch "
                     "answered HTTP 404 or 410 (each article says its page's last fetch in "
                     "page_outcome and page_status)")  # fmt: skip
    exp.add_argument("--excel", action="store_true",
                     help="CSV for spreadsheets: start with a byte-order mark, which Excel "
                     "needs to show UTF-8 (Chinese) text right, and quote any cell that would "
                     "start a formula (= + - @)")  # fmt: skip
    exp.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    exp.set_defaults(func=cmd_export)

    status = sub.add_parser(
        "status",
        help="what the database holds",
        description="What the database holds: pages per site by outcome, articles, list "
        "records, screenshots, the recent crawl runs and the items still waiting in the "
        "spool for the database.",
    )
    _db_flag(status)
    status.add_argument("--spool-dir", help="the crawls' spool folder, of the items waiting "
                        "for the database (default: the setting SITESIFT_SPOOL_DIR: "
                        "~/.local/state/sitesift/spool, or under $XDG_STATE_HOME)")  # fmt: skip
    status.add_argument(
        "--redis", metavar="URL", help="show the distributed crawls in this Redis instead"
    )
    from crawler.cli import _whole_number

    status.add_argument(
        "--failures", metavar="N", type=_whole_number(0), nargs="?", const=20,
        help="also count the pages recorded as not ok and list the latest N"
        " (default 20; 0: only the count) with their reasons",
    )  # fmt: skip
    status.set_defaults(func=cmd_status)

    prune = sub.add_parser(
        "prune-screenshots",
        help="delete screenshot files no stored page refers to",
        description="Delete the screenshot files no stored page refers to any more (a "
        "recrawl that took a new picture, a page whose row was removed), with their rows. "
        "Files are named by their content's hash and shared by pages, so only files no page "
        "names go, and none used in the last --min-age seconds (a running crawl's).",
    )
    _db_flag(prune)
    prune.add_argument("--dir", help="screenshot folder (default: the one the database's "
                       "screenshots were written to, else SITESIFT_SCREENSHOT_DIR)")  # fmt: skip
    prune.add_argument("--force", action="store_true",
                       help="sweep even if other databases' crawls stored there")  # fmt: skip
    prune.add_argument("--min-age", type=_seconds, default=3600.0,
                       help="spare files used in the last N seconds (default 3600)")  # fmt: skip
    prune.set_defaults(func=cmd_prune_screenshots)

    schedule = sub.add_parser("schedule", help="recurring crawls kept in the database")
    actions = schedule.add_subparsers(dest="action", metavar="ACTION", required=True)
    add = actions.add_parser("add", help="add a recurring crawl")
    add.add_argument("name", help="the job's name: up to 100 letters, digits, '.', '-' and "
                     "'_' (its log files are named after it)")  # fmt: skip
    add.add_argument("--sites", required=True, help="the site list file")
    when = add.add_mutually_exclusive_group(required=True)
    when.add_argument("--cron", help="a cron expression of five fields, e.g. '0 */6 * * *' (UTC)")
    when.add_argument("--every", help="an interval: 30m, 6h, 1d (counted from each start)")
    add.add_argument(
        "--crawl-args",
        default="",
        metavar="ARGS",
        help="extra 'sitesift crawl' arguments, quoted as one: \"--max-pages 50 -s X=1\"",
    )
    for action, text in (
        ("list", "show the jobs, their next run and last exit status"),
        ("remove", "delete a job"),
        ("run-now", "run a job's crawl now, in the foreground"),
    ):
        p = actions.add_parser(action, help=text)
        if action != "list":
            p.add_argument("name")
    for p in actions.choices.values():
        _db_flag(p)
    schedule.set_defaults(func=cmd_schedule)

    loop = sub.add_parser(
        "scheduler",
        help="run scheduled crawls (long-running)",
        description="Start each due job's crawl as its own process; one run per job at a time.",
    )
    _db_flag(loop)
    loop.add_argument("--tick", type=float, help="seconds between checks of the job table "
                      "(default 5); a job falling due or a crawl ending between two checks is "
                      "acted on at once")  # fmt: skip
    loop.add_argument("--log-dir", help="write each crawl's log here (without it, a failed "
                      "crawl's last error line is kept in its run: sitesift status)")  # fmt: skip
    loop.add_argument("--max-runs", type=_whole_number(1),
                      help="exit after this many finished runs")  # fmt: skip
    loop.set_defaults(func=cmd_scheduler)
