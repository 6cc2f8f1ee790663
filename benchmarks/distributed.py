"""Distributed crawl throughput: 1, 2 and 4 workers sharing one Redis frontier.

    python -m benchmarks.distributed                 # 1,051-page site, full pipeline
    python -m benchmarks.distributed --articles 2000 --no-extract

Every run crawls the same local synthetic site (served by a separate process,
so the site's own CPU use is not inside a worker) into a fresh PostgreSQL
schema, politeness off, no screenshots. A plain single-process crawl (no
Redis) is the baseline. Beside throughput it measures where the CPU went:
the crawl processes' own CPU time (user + system, the workers included), the
machine's busy share (/proc/stat: every process, the site server, PostgreSQL
and Redis included) and Redis's CPU time (INFO cpu). The table goes to stdout
and ``benchmarks/results/distributed.md``.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import redis
from sqlalchemy import func, select

from benchmarks.pgschema import drop_schema, fresh_schema
from benchmarks.publish import RESULTS, publish
from pipelines.schema import connect, pages

PG = os.environ.get("SITESIFT_BENCH_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
REDIS = os.environ.get("SITESIFT_BENCH_REDIS", "redis://127.0.0.1:6379/14")
UNTHROTTLED = ["-L", "WARNING", "-s", "AUTOTHROTTLE_ENABLED=False", "-s", "DOWNLOAD_DELAY=0",
               "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=8", "-s", "SITESIFT_SCREENSHOTS=none",
               "-s", "SITESIFT_PROGRESS_INTERVAL=0"]  # fmt: skip
SERVER = """
import sys, time
from demo.server import DemoWeb
web = DemoWeb((), synthetic_pages=int(sys.argv[1])).start()
print(web.urls["synthetic"], flush=True)
time.sleep(86400)
"""


def machine_ticks() -> tuple[int, int]:
    """(busy, total) CPU ticks of the whole machine so far."""
    with open("/proc/stat", encoding="ascii") as handle:
        values = [int(v) for v in handle.readline().split()[1:]]
    idle = values[3] + values[4]  # idle + iowait
    return sum(values) - idle, sum(values)


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def redis_cpu(server: redis.Redis) -> float:
    info = server.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def run(sites: Path, workers: int, extra: list[str]) -> dict[str, float]:
    schema, db = fresh_schema(PG)
    crawl = f"bench-{uuid.uuid4().hex[:8]}"
    cmd = [sys.executable, "-m", "crawler.cli", "crawl", str(sites), "--db", db, *UNTHROTTLED,
           *extra]  # fmt: skip
    if workers:
        cmd += ["--redis", REDIS, "--crawl-id", crawl, "--workers", str(workers)]
    server = redis.Redis.from_url(REDIS)
    cpu0, redis0, (busy0, total0) = children_cpu(), redis_cpu(server), machine_ticks()
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=sites.parent)
    seconds = time.perf_counter() - start
    busy1, total1 = machine_ticks()
    crawl_cpu, redis_seconds = children_cpu() - cpu0, redis_cpu(server) - redis0
    if done.returncode:
        raise SystemExit(f"crawl failed ({done.returncode}):\n{done.stderr[-2000:]}")
    engine = connect(db)
    with engine.connect() as conn:
        stored = conn.execute(
            select(func.count()).select_from(pages).where(pages.c.outcome == "ok")
        ).scalar_one()
        fetches = conn.execute(select(func.sum(pages.c.fetch_count))).scalar_one()
    engine.dispose()
    drop_schema(PG, schema)
    for key in server.scan_iter(f"sitesift:{crawl}:*"):
        server.delete(key)
    return {"pages": stored, "fetches": fetches, "seconds": seconds, "crawl_cpu": crawl_cpu,
            "machine_busy": (busy1 - busy0) / max(1, total1 - total0),
            "redis_cpu": redis_seconds}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--articles", type=int, default=1000, help="article pages of the site")
    parser.add_argument("--no-extract", action="store_true", help="fetch and store only")
    args = parser.parse_args(argv)
    extra = []
    if args.no_extract:
        extra = ["-s", "SITESIFT_EXTRACT_ENABLED=False", "-s", "SITESIFT_CLASSIFY_ENABLED=False"]
    root = Path(__file__).resolve().parent.parent
    server = subprocess.Popen([sys.executable, "-c", SERVER, str(args.articles)],
                              stdout=subprocess.PIPE, text=True, cwd=root)  # fmt: skip
    rows = []
    load = os.getloadavg()[0]
    try:
        base = server.stdout.readline().strip()
        with tempfile.TemporaryDirectory() as tmp:
            sites = Path(tmp) / "sites.txt"
            sites.write_text(f"{base} max_pages={args.articles * 2} depth=100\n")
            for label, workers in (("single process, no Redis", 0), ("1 worker", 1),
                                   ("2 workers", 2), ("4 workers", 4)):  # fmt: skip
                print(f"{label}...", file=sys.stderr)
                rows.append((label, run(sites, workers, extra)))
    finally:
        server.terminate()
    base_rate = rows[1][1]["pages"] / rows[1][1]["seconds"]
    pipeline = "fetch + store" if args.no_extract else "full pipeline (classify, extract, dedup)"
    lines = [
        f"# Distributed crawl ({os.cpu_count()} cores, {time.strftime('%Y-%m-%d')})",
        "",
        f"Site: {rows[0][1]['pages']} pages; {pipeline}; PostgreSQL; politeness off.",
        f"Load average before / after: {load:.1f} / {os.getloadavg()[0]:.1f} "
        "(other work on the machine competes for its cores).",
        f"Command: `{' '.join(['python -m benchmarks.distributed', *(argv or sys.argv[1:])])}`",
        "",
        "| run | pages stored | fetches | seconds | pages/s | vs 1 worker "
        "| crawl CPU s | crawl CPU / wall | machine busy | Redis CPU s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for label, r in rows:
        rate = r["pages"] / r["seconds"]
        lines.append(f"| {label} | {r['pages']} | {r['fetches']} | {r['seconds']:.1f} | "
                     f"{rate:.1f} | {rate / base_rate:.2f}x | {r['crawl_cpu']:.1f} | "
                     f"{r['crawl_cpu'] / r['seconds']:.2f} cores | "
                     f"{100 * r['machine_busy']:.0f}% | {r['redis_cpu']:.1f} |")  # fmt: skip
    lines += [
        "",
        "crawl CPU: user + system time of the crawl processes (all workers); "
        "machine busy: share of all cores busy during the run, whatever the process "
        "(site server, PostgreSQL, Redis, anything else running on the machine).",
    ]
    table = "\n".join(lines) + "\n"
    publish(table, RESULTS / ("distributed-light.md" if args.no_extract else "distributed.md"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
