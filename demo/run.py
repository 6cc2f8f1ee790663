"""`make demo`: serve the demo web on 127.0.0.1, crawl it into SQLite, export
JSONL, and say what happened.

    python -m demo.run [--out DIR] [--max-pages N]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from sqlalchemy import func, select

from crawler.cli import main as sitesift
from demo.server import DemoWeb
from pipelines.schema import connect, pages


def summarize(db_url: str, feed: Path) -> None:
    engine = connect(db_url)
    with engine.connect() as conn:
        by_outcome = conn.execute(
            select(pages.c.site, pages.c.outcome, func.count()).group_by(
                pages.c.site, pages.c.outcome
            )
        ).all()
        groups = conn.execute(
            select(pages.c.url_group, func.count())
            .where(pages.c.outcome == "ok")
            .group_by(pages.c.url_group)
            .order_by(pages.c.url_group)
        ).all()
        failures = conn.execute(
            select(pages.c.url, pages.c.outcome, pages.c.reason)
            .where(pages.c.outcome != "ok")
            .order_by(pages.c.url)
        ).all()
    engine.dispose()
    print("\n== what the demo crawl stored ==")
    per_site: dict[str, Counter[str]] = {}
    for site, outcome, n in by_outcome:
        per_site.setdefault(site, Counter())[outcome] = n
    for site, counts in sorted(per_site.items()):
        print(f"  {site}: " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())))
    print(f"\n== {len(groups)} URL groups (pages of one template share a group) ==")
    for group, n in groups:
        print(f"  {n:3d}  {group}")
    print("\n== recorded failures ==")
    for url, outcome, reason in failures:
        print(f"  {outcome:10s} {url}  ({reason})")
    lines = feed.read_text(encoding="utf-8").splitlines() if feed.exists() else []
    print(f"\n== {feed}: {len(lines)} items; the first: ==")
    if lines:
        print("  " + json.dumps(json.loads(lines[0]), ensure_ascii=False)[:400])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--out", default="out", help="folder for the database, feed, site list and screenshots"
    )
    parser.add_argument("--max-pages", type=int, default=None, help="pages per site")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    db = out / "demo.db"
    feed = out / "demo.jsonl"
    sites = out / "demo-sites.txt"
    db.unlink(missing_ok=True)
    with DemoWeb() as web:
        web.write_site_list(sites)
        print("demo web serving:", ", ".join(f"{k} {v}" for k, v in web.urls.items()))
        cmd = ["crawl", str(sites), "--db", f"sqlite:///{db}", "-O", str(feed),
               "-s", f"SITESIFT_SCREENSHOT_DIR={out / 'screenshots'}"]  # fmt: skip
        if args.max_pages:
            cmd += ["--max-pages", str(args.max_pages)]
        code = sitesift(cmd)
    if code == 0:
        summarize(f"sqlite:///{db}", feed)
        print(f"\ndatabase: {db}   feed: {feed}   try: sqlite3 {db} 'select url, title from pages'")
    return code


if __name__ == "__main__":
    sys.exit(main())
