"""Crawl throughput: sitesift against a local synthetic site vs `scrapy bench`.

    python -m benchmarks.crawl [--pages 2000] [--bench-seconds 20]

Runs, in one go and on the same machine: (1) `scrapy bench` (Scrapy's own
local benchmark: a follow-all spider, no parsing, no storage); (2) sitesift's
crawl without its page stages (parse once, URL groups, trap guards, block
detection, SQLite storage: the like-for-like comparison) and (3) with every
stage on (classification, `auto` extraction, dedup, screenshots of a few
pages per URL group), with extraction in the crawl's one worker thread and
in its worker processes (the default: one per CPU), all of a generated
site of N pages on 127.0.0.1 with politeness off so that the machine, not
the delay, is what is measured;
(4) optionally the same crawl with the default politeness settings, for
scale. Prints a table (pages/s, peak RSS) and saves it to
benchmarks/results/crawl.md.
"""

from __future__ import annotations

import argparse
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.publish import RESULTS, publish
from demo.server import DemoWeb

UNTHROTTLED = [
    "-s", "AUTOTHROTTLE_ENABLED=False",
    "-s", "DOWNLOAD_DELAY=0",
    "-s", "CONCURRENT_REQUESTS=32",
    "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=32",
]  # fmt: skip
NO_PAGE_STAGES = [
    "-s", "SITESIFT_CLASSIFY_ENABLED=False", "-s", "SITESIFT_EXTRACT_ENABLED=False",
    "-s", "SITESIFT_DEDUP_ENABLED=False", "-s", "SITESIFT_SCREENSHOTS=none",
]  # fmt: skip


def run_measured(cmd: list[str], cwd: str | None = None) -> tuple[float, int, str]:
    """Run a command; return (wall seconds, peak RSS in MiB, combined output)."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=log, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        elapsed = time.perf_counter() - start
        log.seek(0)
        output = log.read().decode("utf-8", "replace")
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{output[-3000:]}")
    return elapsed, usage.ru_maxrss // 1024, output


def scrapy_bench(seconds: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as empty:  # outside the project: plain Scrapy
        _, rss, out = run_measured(
            [
                sys.executable,
                "-m",
                "scrapy",
                "bench",
                "-s",
                f"CLOSESPIDER_TIMEOUT={seconds}",
                "-s",
                "LOGSTATS_INTERVAL=1",
            ],  # fmt: skip
            cwd=empty,
        )
    pages = int(re.search(r"'response_received_count': (\d+)", out).group(1))
    secs = float(re.search(r"'elapsed_time_seconds': ([\d.]+)", out).group(1))
    return {"pages": pages, "seconds": secs, "rss": rss}


def sitesift_crawl(base_url: str, pages: int, extra: list[str], workdir: Path) -> dict[str, float]:
    sites = workdir / "sites.txt"
    sites.write_text(f"{base_url} max_pages={pages + 100} depth=50\n")
    db = workdir / f"bench-{time.monotonic_ns()}.db"
    elapsed, rss, out = run_measured(
        [
            sys.executable,
            "-m",
            "crawler.cli",
            "crawl",
            str(sites),
            "--db",
            f"sqlite:///{db}",
            "-L",
            "WARNING",
            *extra,
        ]  # fmt: skip
    )
    with sqlite3.connect(db) as conn:
        stored = conn.execute("select count(*) from pages where outcome='ok'").fetchone()[0]
    return {"pages": stored, "seconds": elapsed, "rss": rss}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=2000, help="size of the synthetic site")
    parser.add_argument("--bench-seconds", type=int, default=20, help="length of `scrapy bench`")
    parser.add_argument("--polite", action="store_true", help="also run with default politeness")
    args = parser.parse_args(argv)

    rows = []
    print(f"scrapy bench ({args.bench_seconds}s)...", file=sys.stderr)
    bench = scrapy_bench(args.bench_seconds)
    rows.append(("scrapy bench (follow links, no parsing/storage)", bench))
    with DemoWeb(sites=(), synthetic_pages=args.pages) as web, tempfile.TemporaryDirectory() as tmp:
        base = web.urls["synthetic"]
        for name, extra in (
            ("sitesift crawl, fetch + store, politeness off", UNTHROTTLED + NO_PAGE_STAGES),
            (
                "sitesift crawl, every stage, extraction in one thread",
                UNTHROTTLED + ["-s", "SITESIFT_EXTRACT_PROCESSES=0"],
            ),
            ("sitesift crawl, every stage, politeness off", UNTHROTTLED),  # worker processes
        ):
            print(f"{name} ({args.pages} pages)...", file=sys.stderr)
            rows.append((name, sitesift_crawl(base, args.pages, extra, Path(tmp))))
        if args.polite:
            print("sitesift crawl, default politeness...", file=sys.stderr)
            rows.append(
                (
                    "sitesift crawl, default politeness",
                    sitesift_crawl(base, args.pages, [], Path(tmp)),
                )
            )

    bench_rate = bench["pages"] / bench["seconds"]
    lines = [
        f"# Crawl throughput ({os.cpu_count()} cores, {time.strftime('%Y-%m-%d')})",
        "",
        "| run | pages | seconds | pages/s | peak RSS MiB (largest process) |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, r in rows:
        rate = r["pages"] / r["seconds"]
        lines.append(f"| {name} | {r['pages']} | {r['seconds']:.1f} | {rate:.1f} | {r['rss']} |")
    lines.append("")
    for name, r in rows[1:4]:
        lines.append(f"{name} / scrapy bench: {r['pages'] / r['seconds'] / bench_rate:.2f}  ")
    lines.append("")
    table = "\n".join(lines)
    publish(table, RESULTS / "crawl.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
