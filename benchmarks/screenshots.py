"""Screenshot cost: seconds per screenshot, browser memory, crawl cost per policy.

    python -m benchmarks.screenshots [--pages 1000] [--crawl-pages 300]

(1) Seconds per screenshot at 1, 4 and 8 concurrent pages: the demo web's
pages (served on 127.0.0.1) opened, photographed with the crawl's own
``capture_page``, shrunk and stored, and closed, in one browser. (2) Peak
memory (PSS, summed over every Chromium process) over ``--pages`` pages at 4
concurrent pages, with the browser recycled every
``SITESIFT_SCREENSHOT_BROWSER_PAGES`` pages as in a crawl. (3) The crawl
cost of each policy: the same local synthetic site crawled by
``sitesift crawl`` with screenshots none, group and all. Prints a table and
saves it to benchmarks/results/screenshots.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.crawl import UNTHROTTLED, run_measured
from benchmarks.publish import RESULTS, publish
from crawler import settings as defaults
from crawler.screenshots import CaptureParams, ScreenshotStore, capture_page
from demo.server import DemoWeb


def _page_urls(web: DemoWeb) -> list[str]:
    import json

    from demo.server import WEB_ROOT

    urls = []
    for site, base in web.urls.items():
        expected = json.loads((WEB_ROOT / site / "_expected.json").read_text("utf-8"))
        urls += [base + path.lstrip("/") for path, page in expected["pages"].items()
                 if page.get("expect") == "stored"]  # fmt: skip
    return urls


def _chromium_pss_mib() -> float:
    """PSS of every Chromium process under this one, in MiB."""
    me = os.getpid()
    parents: dict[int, int] = {}
    names: dict[int, str] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        pid = int(entry)
        parents[pid] = int(stat.rsplit(")", 1)[1].split()[1])
        names[pid] = stat[stat.index("(") + 1 : stat.rindex(")")]
    total_kb = 0
    for pid, name in names.items():
        if "chrom" not in name:
            continue
        ancestor = parents.get(pid, 0)
        while ancestor not in (0, 1, me):
            ancestor = parents.get(ancestor, 0)
        if ancestor != me:
            continue
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total_kb += int(line.split()[1])
        except OSError:
            pass
    return total_kb / 1024


async def _shoot(urls: list[str], concurrency: int, recycle_every: int, store: ScreenshotStore,
                 sample_memory: bool = False) -> dict[str, Any]:  # fmt: skip
    from playwright.async_api import async_playwright

    params = CaptureParams()
    launch: dict[str, Any] = dict(defaults.PLAYWRIGHT_LAUNCH_OPTIONS)
    peak = 0.0
    generations: list[float] = []  # peak PSS of each browser, launch to close
    done = 0
    async with async_playwright() as pw:

        async def one(context: Any, url: str) -> None:
            page = await context.new_page()
            try:
                await page.goto(url, wait_until="load")
                capture = await capture_page(page, params)
            finally:
                await page.close()
            await asyncio.to_thread(store.save, capture, params)

        async def sampler() -> None:
            nonlocal peak
            while True:
                pss = await asyncio.to_thread(_chromium_pss_mib)
                peak = max(peak, pss)
                if generations:
                    generations[-1] = max(generations[-1], pss)
                await asyncio.sleep(0.5)

        task = asyncio.create_task(sampler()) if sample_memory else None
        started = time.perf_counter()
        for start in range(0, len(urls), recycle_every):
            browser = await pw.chromium.launch(**launch)
            generations.append(0.0)
            context = await browser.new_context(viewport={"width": 1280, "height": 800})
            gate = asyncio.Semaphore(concurrency)

            async def guarded(url: str, context: Any = context, gate: Any = gate) -> None:
                async with gate:
                    await one(context, url)

            await asyncio.gather(*(guarded(u) for u in urls[start : start + recycle_every]))
            done += len(urls[start : start + recycle_every])
            await context.close()
            await browser.close()
        elapsed = time.perf_counter() - started
        if task:
            task.cancel()
    return {
        "pages": done,
        "seconds": elapsed,
        "per_page": elapsed / done,
        "peak_pss": peak,
        "generations": generations,
    }


def _crawl(base: str, pages: int, mode: str, workdir: Path) -> dict[str, float]:
    sites = workdir / "sites.txt"
    sites.write_text(f"{base} max_pages={pages} depth=50\n")
    db = workdir / f"shots-{mode}.db"
    shots = workdir / f"shots-{mode}"
    cmd = [sys.executable, "-m", "crawler.cli", "crawl", str(sites), "--db", f"sqlite:///{db}",
           "-L", "WARNING", *UNTHROTTLED, "-s", f"SITESIFT_SCREENSHOTS={mode}",
           "-s", f"SITESIFT_SCREENSHOT_DIR={shots}"]  # fmt: skip
    elapsed, rss, _ = run_measured(cmd)
    with sqlite3.connect(db) as conn:
        stored = conn.execute("select count(*) from pages where outcome='ok'").fetchone()[0]
    files = sum(1 for _ in shots.rglob("*.webp")) if shots.exists() else 0
    return {"pages": stored, "seconds": elapsed, "rss": rss, "screenshots": files}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=1000, help="pages for the memory run")
    parser.add_argument("--crawl-pages", type=int, default=300, help="synthetic site size")
    parser.add_argument("--concurrency", default="1,4,8")
    args = parser.parse_args(argv)
    recycle = defaults.SITESIFT_SCREENSHOT_BROWSER_PAGES
    lines = [f"# Screenshots ({os.cpu_count()} cores, {time.strftime('%Y-%m-%d')})", "",
             "## Seconds per screenshot (demo web pages, capture + shrink + store)", "",
             "| concurrent pages | pages | seconds | s/screenshot |",
             "|---:|---:|---:|---:|"]  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp, DemoWeb() as web:
        store = ScreenshotStore(Path(tmp) / "store")
        urls = _page_urls(web)
        for conc in (int(c) for c in args.concurrency.split(",")):
            batch = (urls * 3)[: max(len(urls), 8 * conc)]
            r = asyncio.run(_shoot(batch, conc, 10_000, store))
            lines.append(f"| {conc} | {r['pages']} | {r['seconds']:.1f} | {r['per_page']:.3f} |")
            print(lines[-1], file=sys.stderr)
        many = (urls * (args.pages // len(urls) + 1))[: args.pages]
        r = asyncio.run(_shoot(many, 4, recycle, store, sample_memory=True))
        lines += ["", f"## Browser memory over {r['pages']} pages (4 concurrent, recycled "
                  f"every {recycle})", "",
                  f"Peak PSS of all Chromium processes: {r['peak_pss']:.0f} MiB; "
                  f"{r['per_page']:.3f} s/screenshot over the run.", "",
                  "Peak PSS of each browser, launch to close, in MiB: "
                  + ", ".join(f"{g:.0f}" for g in r["generations"]) + ".", ""]  # fmt: skip
        print(lines[-4], lines[-2], sep="\n", file=sys.stderr)
    lines += [f"## Crawl cost per policy (synthetic site, {args.crawl_pages} pages, "
              "politeness off)",
              "", "| policy | pages | screenshots | seconds | pages/s | crawler peak RSS MiB |",
              "|---|---:|---:|---:|---:|---:|"]  # fmt: skip
    with (
        DemoWeb(sites=(), synthetic_pages=args.crawl_pages) as web,
        tempfile.TemporaryDirectory() as tmp,
    ):
        base = web.urls["synthetic"]
        for mode in ("none", "group", "all"):
            r = _crawl(base, args.crawl_pages, mode, Path(tmp))
            lines.append(f"| {mode} | {r['pages']} | {r['screenshots']} | {r['seconds']:.1f} | "
                         f"{r['pages'] / r['seconds']:.1f} | {r['rss']} |")  # fmt: skip
            print(lines[-1], file=sys.stderr)
    table = "\n".join(lines) + "\n"
    publish(table, RESULTS / "screenshots.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
