"""Storage and export: articles stored per second, export rows per second and
peak memory, at two sizes, to show that export memory does not grow.

    python -m benchmarks.storage [--sizes 20000,100000] [--db sqlite|postgresql]

Fills a fresh database through the real StorePipeline (batches of 500,
MinHash band keys included), then runs ``sitesift export`` to JSONL in a
subprocess per size and reads its peak RSS. Prints a table and saves it to
benchmarks/results/storage.md.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from scrapy import Spider
from scrapy.utils.test import get_crawler
from sqlalchemy import text

from benchmarks.publish import RESULTS, publish
from crawler.items import PageItem
from pipelines.schema import connect
from pipelines.store import StorePipeline

PG = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
WORDS = [
    "city",
    "council",
    "bus",
    "route",
    "plan",
    "quarter",
    "march",
    "fare",
    "year",
    "resident",
    "meeting",
    "evening",
    "service",
    "river",
    "bridge",
    "school",
    "market",
    "water",
    "energy",
    "museum",
    "library",
]


def fill(url: str, n: int) -> float:
    crawler = get_crawler(Spider, {"SITESIFT_DB": url, "SITESIFT_STORE_BATCH": 500})
    crawler.spider = Spider(name="site")
    store = StorePipeline.from_crawler(crawler)
    store.flush_seconds = 0
    store.open_spider(crawler.spider)
    rng = random.Random(n)
    started = time.perf_counter()
    for i in range(n):
        body = " ".join(rng.choice(WORDS) for _ in range(400))
        store.process_item(PageItem(url=f"http://b.test/a/{i}.html", site="b.test", status=200,
                                    html="<p>x</p>", text=body, title=f"Article {i}",
                                    page_type="article", language="en"))  # fmt: skip
    store.close_spider()
    return n / (time.perf_counter() - started)


def export_measured(url: str, out: Path) -> tuple[float, float]:
    """(seconds, peak RSS MiB) of one ``sitesift export`` process."""
    cmd = [sys.executable, "-m", "crawler.cli", "export", "--db", url, "-o", str(out), "-q"]
    started = time.perf_counter()
    child = subprocess.Popen(cmd)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - started
    if status != 0:
        raise SystemExit(f"export failed with status {status}")
    return seconds, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="20000,100000")
    parser.add_argument("--db", choices=["sqlite", "postgresql"], default="sqlite")
    args = parser.parse_args()
    lines = ["| db | articles | store articles/s | export rows/s | export peak RSS MiB |",
             "|---|---:|---:|---:|---:|"]  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(s) for s in args.sizes.split(",")):
            if args.db == "sqlite":
                url = f"sqlite:///{tmp}/bench-{n}.db"
            else:
                schema = f"bench_{uuid.uuid4().hex[:8]}"
                engine = connect(PG, create=False)
                with engine.begin() as conn:
                    conn.execute(text(f'CREATE SCHEMA "{schema}"'))
                engine.dispose()
                url = f"{PG}?options=-csearch_path%3D{schema}"
            rate = fill(url, n)
            seconds, peak = export_measured(url, Path(tmp) / f"out-{n}.jsonl")
            lines.append(f"| {args.db} | {n} | {rate:.0f} | {n / seconds:.0f} | {peak:.0f} |")
            print(lines[-1], flush=True)
            if args.db == "postgresql":
                engine = connect(PG, create=False)
                with engine.begin() as conn:
                    conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
                engine.dispose()
    table = "\n".join(lines)
    command = " ".join(["python -m benchmarks.storage", *sys.argv[1:]])
    publish(f"# Storage and export\n\n`{command}`\n\n{table}", RESULTS / f"storage-{args.db}.md")


if __name__ == "__main__":
    main()
