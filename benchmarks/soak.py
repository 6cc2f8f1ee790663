"""Soak: kill -9 a real crawl at random moments, resume, compare.

    python -m benchmarks.soak [--runs 5] [--kills 3] [--seed 8] [--db sqlite|postgresql]

Each run crawls the demo web (English and Chinese sites) as ``sitesift crawl``
subprocesses: the crawl is killed with SIGKILL at ``--kills`` seeded random
moments in succession (after a random number of newly stored pages, plus a
random fraction of a second, so kills land during fetches, batch writes and
the start-up of a resumed run alike), restarted with ``--resume`` after each,
and finally left to finish. The database is then compared table by table with
an uninterrupted crawl's: every page with the same outcome and content, each
stored once (``fetch_count`` 1: nothing refetched, nothing duplicated), the
same articles, list records, duplicate links and no extra article versions.
Pages stored before a kill must not be fetched again by the resumed crawl.

Prints a table and saves it to benchmarks/results/soak.md. tests/test_resume.py
runs one short round of the same code.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import socketserver
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.exc import SQLAlchemyError

from benchmarks.pgschema import drop_schema, fresh_schema
from benchmarks.publish import RESULTS, publish
from demo.server import DemoWeb
from pipelines.schema import (
    article_bands,
    article_versions,
    articles,
    connect,
    crawl_runs,
    list_records,
    pages,
)

PG = os.environ.get("SITESIFT_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")

# The demo's robots.txt asks for 0.2 s between requests: capped to 0 here.
FAST = ["-s", "AUTOTHROTTLE_START_DELAY=0", "-s", "SITESIFT_SCREENSHOTS=none",
        "-s", "SITESIFT_PROGRESS_INTERVAL=0", "-s", "SITESIFT_CRAWL_DELAY_CAP=0"]  # fmt: skip
# Slow enough to be killed mid-way: small batches, a delay per request.
SLOW = ["-s", "DOWNLOAD_DELAY=0.15", "-s", "SITESIFT_STORE_BATCH=3",
        "-s", "SITESIFT_STORE_FLUSH_SECONDS=0.5"]  # fmt: skip
AUX = ("/robots.txt", "sitemap", "feed", ".xml", "rss", "atom")


def crawl_cmd(sites: Path, db_url: str, *extra: str) -> list[str]:
    return [sys.executable, "-m", "crawler.cli", "crawl", str(sites), "--db", db_url,
            *FAST, *extra]  # fmt: skip


# -- what a database holds -------------------------------------------------------


Snapshot = dict[str, Any]


def snapshot(db_url: str) -> Snapshot:
    """The stored result of a crawl, free of timestamps, ids and run numbers."""
    engine = connect(db_url, create=False)
    try:
        with engine.connect() as conn:
            page_rows = conn.execute(
                select(pages.c.url, pages.c.outcome, pages.c.content_hash, pages.c.fetch_count)
            ).all()
            article_rows = conn.execute(
                select(
                    articles.c.url,
                    articles.c.text_hash,
                    articles.c.title,
                    articles.c.page_type,
                    articles.c.language,
                    articles.c.version,
                    articles.c.duplicate_of,
                )  # fmt: skip
            ).all()
            records = conn.execute(
                select(list_records.c.page_url, func.count()).group_by(list_records.c.page_url)
            ).all()
            versions = conn.execute(select(article_versions.c.url, article_versions.c.version))
            bands = conn.execute(select(func.count()).select_from(article_bands)).scalar_one()
            return {
                "pages": {r.url: (r.outcome, r.content_hash) for r in page_rows},
                "fetch_counts": {r.url: r.fetch_count for r in page_rows},
                "articles": {r.url: tuple(r[1:6]) for r in article_rows},
                # which pages are linked as copies of one another (not which is the original)
                "duplicate_groups": _duplicate_groups(
                    [(r.url, r.duplicate_of) for r in article_rows]
                ),
                "list_records": dict(records),  # type: ignore[arg-type]
                "article_versions": sorted(tuple(v) for v in versions),
                "article_bands": bands,
            }
    finally:
        engine.dispose()


def _duplicate_groups(links: list[tuple[str, str | None]]) -> set[frozenset[str]]:
    groups: dict[str, set[str]] = {}
    for url, original in links:
        if original:
            groups.setdefault(original, {original}).add(url)
    return {frozenset(g) for g in groups.values()}


def differences(expected: Snapshot, got: Snapshot) -> list[str]:
    """One line per difference between an uninterrupted run and ``got``;
    every page must have been stored once."""
    found: list[str] = []
    for table in ("pages", "articles", "list_records"):
        want, have = expected[table], got[table]
        for key in sorted(set(want) | set(have)):
            if want.get(key) != have.get(key):
                found.append(f"{table} {key}: expected {want.get(key)}, got {have.get(key)}")
    stored_twice = sorted(u for u, n in got["fetch_counts"].items() if n != 1)
    found += [f"page {u} stored {got['fetch_counts'][u]} times" for u in stored_twice]
    for table in ("duplicate_groups", "article_versions", "article_bands"):
        if expected[table] != got[table]:
            found.append(f"{table}: expected {expected[table]}, got {got[table]}")
    return found


def count_stored(db_url: str) -> int:
    """Pages stored so far (0 before the crawl created its tables)."""
    try:
        engine = connect(db_url, create=False)
    except Exception:  # noqa: BLE001 - a database that does not exist yet
        return 0
    try:
        with engine.connect() as conn:
            return conn.execute(select(func.count()).select_from(pages)).scalar_one()
    except SQLAlchemyError:
        return 0
    finally:
        engine.dispose()


def stored_urls(db_url: str) -> set[str]:
    engine = connect(db_url, create=False)
    try:
        with engine.connect() as conn:
            return set(conn.execute(select(pages.c.url)).scalars())
    finally:
        engine.dispose()


def run_reasons(db_url: str) -> list[tuple[str | None, list[int] | None]]:
    engine = connect(db_url, create=False)
    try:
        with engine.connect() as conn:
            query = select(crawl_runs.c.finish_reason, crawl_runs.c.resumed_runs)
            return [tuple(r) for r in conn.execute(query.order_by(crawl_runs.c.id))]  # type: ignore[misc]
    finally:
        engine.dispose()


# -- crawling and killing --------------------------------------------------------


@dataclass
class Process:
    """A crawl subprocess reaped with wait4, for its peak memory."""

    pid: int
    started: float = field(default_factory=time.monotonic)
    status: int | None = None
    peak_mib: float = 0.0

    @classmethod
    def start(cls, cmd: list[str], log: Path) -> Process:
        with log.open("ab") as out:
            child = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
        return cls(child.pid)

    def poll(self) -> int | None:
        if self.status is None:
            pid, status, usage = os.wait4(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
                self.peak_mib = usage.ru_maxrss / 1024
        return self.status

    def wait(self, timeout: float) -> int:
        deadline = time.monotonic() + timeout
        while self.poll() is None:
            if time.monotonic() > deadline:
                self.kill()
                raise TimeoutError(f"crawl {self.pid} still running after {timeout:.0f}s")
            time.sleep(0.1)
        assert self.status is not None
        return self.status

    def kill(self) -> None:
        if self.poll() is None:
            os.kill(self.pid, signal.SIGKILL)
            self.wait(60)


def _fetched_pages(web: DemoWeb, since: int) -> list[str]:
    """Page URLs the demo web served since request number ``since``."""
    with web._lock:
        recent = web.requests[since:]
    return [f"{web.urls[s].rstrip('/')}{p}" for s, p in recent if not any(a in p for a in AUX)]


@dataclass
class SoakRun:
    kills: int = 0
    pages: int = 0
    seconds: float = 0.0
    peak_mib: float = 0.0
    refetched: list[str] = field(default_factory=list)
    differences: list[str] = field(default_factory=list)
    runs: list[tuple[str | None, list[int] | None]] = field(default_factory=list)
    phases: list[float] = field(default_factory=list)  # seconds of each crawl process


def killed_and_resumed(
    web: DemoWeb,
    sites: Path,
    db_url: str,
    reference: Snapshot,
    *,
    kills: int,
    rng: random.Random,
    log: Path,
    timeout: float = 300.0,
) -> SoakRun:
    """Crawl ``sites`` into ``db_url``, killing the crawl ``kills`` times at
    random moments and resuming after each; compare with ``reference``."""
    result = SoakRun()
    total = len(reference["pages"])
    started = time.monotonic()
    for k in range(kills + 1):
        resume = ["--resume"] if k else []
        last = k == kills
        before = count_stored(db_url)
        mark = len(web.requests)
        done_before = stored_urls(db_url) if k else set()
        pace = ["-s", "DOWNLOAD_DELAY=0"] if last else SLOW
        proc = Process.start(crawl_cmd(sites, db_url, *resume, *pace), log)
        if not last:
            # a random number of newly stored pages, leaving some for later kills
            left = total - before
            target = before + rng.randint(1, max(1, left // (kills - k + 1)))
            jitter = rng.uniform(0.0, 0.4)
            deadline = time.monotonic() + timeout
            while count_stored(db_url) < target and proc.poll() is None:
                if time.monotonic() > deadline:
                    proc.kill()
                    raise TimeoutError(f"crawl stored no more than {count_stored(db_url)} pages")
                time.sleep(0.05)
            time.sleep(jitter)
            if proc.poll() is None:
                proc.kill()
                result.kills += 1
        code = proc.wait(timeout)
        result.phases.append(round(time.monotonic() - proc.started, 1))
        if last and code != 0:
            raise RuntimeError(f"the last crawl exited with {code}; log: {log}")
        result.peak_mib = max(result.peak_mib, proc.peak_mib)
        result.refetched += sorted(set(_fetched_pages(web, mark)) & done_before)
    result.seconds = time.monotonic() - started
    got = snapshot(db_url)
    result.pages = len(got["pages"])
    result.differences = differences(reference, got)
    result.runs = run_reasons(db_url)
    return result


def uninterrupted(sites: Path, db_url: str, log: Path, timeout: float = 300.0) -> SoakRun:
    """Crawl to the end: the reference run."""
    started = time.monotonic()
    proc = Process.start(crawl_cmd(sites, db_url, "-s", "DOWNLOAD_DELAY=0"), log)
    if proc.wait(timeout) != 0:
        raise RuntimeError(f"the uninterrupted crawl exited with {proc.status}; log: {log}")
    return SoakRun(seconds=time.monotonic() - started, peak_mib=proc.peak_mib)


def _row(*cells: object) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


# -- the command -----------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="kill-and-resume rounds (5)")
    parser.add_argument("--kills", type=int, default=3, help="SIGKILLs per round (3)")
    parser.add_argument("--seed", type=int, default=8)
    parser.add_argument("--db", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--output", type=Path, default=RESULTS / "soak.md")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    lines = [
        f"`python -m benchmarks.soak --runs {args.runs} --kills {args.kills} --seed {args.seed}"
        f" --db {args.db}`",
        "",
        "| run | kills | pages | seconds | peak RSS MiB | refetched | differences |",
        "|---|---|---|---|---|---|---|",
    ]
    failed = 0
    # Killed crawls drop their connections: not worth a traceback from the server.
    socketserver.BaseServer.handle_error = lambda *_: None  # type: ignore[method-assign]
    with DemoWeb(sites=("en", "zh")) as web, tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        sites = web.write_site_list(work / "sites.txt")
        ref_url = f"sqlite:///{work / 'reference.db'}"
        ref = uninterrupted(sites, ref_url, work / "reference.log")
        reference = snapshot(ref_url)
        pages_ = len(reference["pages"])
        lines.append(_row("uninterrupted", 0, pages_, f"{ref.seconds:.1f}", f"{ref.peak_mib:.0f}",
                          "-", "-"))  # fmt: skip
        print(lines[-1], flush=True)
        totals = SoakRun()
        for n in range(1, args.runs + 1):
            schema = None
            if args.db == "postgresql":
                schema, url = fresh_schema(PG, "soak")
            else:
                url = f"sqlite:///{work / f'soak-{n}.db'}"
            try:
                run = killed_and_resumed(web, sites, url, reference, kills=args.kills, rng=rng,
                                         log=work / f"soak-{n}.log")  # fmt: skip
            finally:
                if schema:
                    drop_schema(PG, schema)
            bad = len(run.differences) + len(run.refetched)
            failed += bad
            lines.append(_row(n, run.kills, run.pages, f"{run.seconds:.1f}", f"{run.peak_mib:.0f}",
                              len(run.refetched), len(run.differences)))  # fmt: skip
            print(lines[-1], f"(crawl processes: {run.phases} s)", flush=True)
            for line in (run.differences + [f"refetched {u}" for u in run.refetched])[:20]:
                print(f"    {line}", file=sys.stderr)
            totals.kills += run.kills
            totals.pages += run.pages
            totals.seconds += run.seconds
            totals.peak_mib = max(totals.peak_mib, run.peak_mib)
        lines.append(_row("total", totals.kills, totals.pages, f"{totals.seconds:.1f}",
                          f"{totals.peak_mib:.0f}", "-", failed))  # fmt: skip
    lines += ["", f"Differences found: {failed} (refetched stored pages included)."]
    table = "\n".join(lines) + "\n"
    publish(table, args.output)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
