"""Soak the crawler on the hostile web: several crawls of tests/hostile_web.py
in a row, each a real `sitesift crawl` process into a fresh SQLite file.

    python -m benchmarks.hostile [--rounds 3] [--max-pages 2000] [--group-cap 500]
    python -m benchmarks.hostile --rounds 1 --screenshots group   # through Chromium

Per round: time, the crawl's peak RSS, pages by outcome, failures by reason,
and how many of the hostile cases ended as tests/hostile_web.py:CASES says.
The test suite runs one small crawl (tests/test_hostile_web.py); this is the
long variant, with the default trap caps unless told otherwise. Prints a table
and saves it to benchmarks/results/hostile.md.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
import zlib
from collections import Counter
from pathlib import Path

from benchmarks.publish import RESULTS, publish
from crawler.sitelist import SCREENSHOT_MODES
from tests.hostile_web import CASES, HostileCrawl, HostileWeb, run_crawl


def cases_met(crawl: HostileCrawl) -> int:
    met = 0
    for path, case in CASES.items():
        row = crawl.row(path)
        if row is None or row["outcome"] != case.outcome:
            continue
        if case.reason and case.reason.lower() not in (row["reason"] or "").lower():
            continue
        if case.text and case.text not in zlib.decompress(row["html_zlib"]).decode("utf-8"):
            continue
        met += 1
    return met


def reason_kind(reason: str) -> str:
    """The reason without URLs, numbers and details: 'timeout', 'crawler trap'..."""
    head = re.split(r"[:(,]", reason, maxsplit=1)[0]
    return re.sub(r"\d+", "N", head).strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--max-pages", type=int, default=2000, help="SITESIFT_MAX_PAGES")
    parser.add_argument("--group-cap", type=int, default=500,
                        help="SITESIFT_TRAP_MAX_GROUP_PAGES")  # fmt: skip
    parser.add_argument("--screenshots", default="none", choices=SCREENSHOT_MODES,
                        help="SITESIFT_SCREENSHOTS: group or all sends pages through "
                        "Chromium (default none)")  # fmt: skip
    args = parser.parse_args(argv)
    extra = ["-s", f"SITESIFT_MAX_PAGES={args.max_pages}",
             "-s", f"SITESIFT_TRAP_MAX_GROUP_PAGES={args.group_cap}",
             "-s", f"SITESIFT_SCREENSHOTS={args.screenshots}"]  # fmt: skip
    rows, reasons = [], Counter[str]()
    for round_no in range(1, args.rounds + 1):
        with tempfile.TemporaryDirectory() as tmp, HostileWeb() as web:
            shots = ["-s", f"SITESIFT_SCREENSHOT_DIR={tmp}/shots"]
            crawl = run_crawl(web, Path(tmp), *extra, *shots, limit=1800)
            requests = sum(web.hits.values())
        outcomes = Counter(row["outcome"] for row in crawl.rows.values())
        for row in crawl.rows.values():
            if row["outcome"] != "ok":
                reasons[reason_kind(row["reason"] or "?")] += 1
        rows.append((round_no, crawl, outcomes, requests, cases_met(crawl)))
        print(f"round {round_no}: {crawl.seconds:.1f} s, {len(crawl.rows)} pages, "
              f"exit {crawl.returncode}", file=sys.stderr)  # fmt: skip
    lines = [
        f"# Hostile web soak ({time.strftime('%Y-%m-%d')})",
        "",
        f"Command: `python -m benchmarks.hostile {' '.join(argv or sys.argv[1:])}`".rstrip("` ")
        + "`",
        "",
        "| round | exit | seconds | peak RSS MiB | requests | pages | ok | failed | http_error "
        "| skipped | robots | cases met |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for round_no, crawl, outcomes, requests, met in rows:
        lines.append(
            f"| {round_no} | {crawl.returncode} | {crawl.seconds:.1f} | {crawl.max_rss_mib:.0f} "
            f"| {requests} | {len(crawl.rows)} | {outcomes['ok']} | {outcomes['failed']} "
            f"| {outcomes['http_error']} | {outcomes['skipped']} | {outcomes['robots']} "
            f"| {met}/{len(CASES)} |"
        )
    lines += ["", "Records that are not `ok`, by reason (all rounds):", "",
              "| reason | records |", "|---|---:|"]  # fmt: skip
    lines += [f"| {kind} | {count} |" for kind, count in reasons.most_common()]
    table = "\n".join(lines) + "\n"
    name = "hostile.md" if args.screenshots == "none" else f"hostile-{args.screenshots}.md"
    publish(table, RESULTS / name)
    return 0 if all(crawl.returncode == 0 for _, crawl, *_ in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
