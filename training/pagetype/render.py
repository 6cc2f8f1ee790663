"""Render every labelled page once, with the crawl's own capture code.

Pages from disk are loaded with ``page.set_content`` and every network
request is aborted (no internet; their stylesheets are missing, as they would
be for any saved page). Scripts are off for them: a saved page's scripts
mostly try to reach the network or navigate away. The demo web is served on
127.0.0.1 and rendered with scripts and stylesheets, as in a crawl. Images go
to a content-addressed store under ``out/`` (gitignored) and a manifest
line per page records key, label and file (its part is read from
``split.json``). Re-running resumes.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from crawler.screenshots import CaptureParams, ScreenshotStore, capture_page
from extractors.encoding import decode_html

from . import sources, synth

logger = logging.getLogger(__name__)

OUT = Path(__file__).resolve().parents[2] / "out" / "training" / "pagetype"
SYNTH_LISTS = 360
SYNTH_ARTICLES = 120


@dataclass(frozen=True)
class Job:
    key: str
    label: str
    real: bool
    html: str | None = None  # set_content
    url: str | None = None  # goto (demo web)


def _real_jobs() -> list[Job]:
    jobs = []
    for sample in sources.real_samples():
        text, _ = decode_html(sample.html_bytes())
        jobs.append(Job(sample.key, sample.label, True, html=text))
    return jobs


def _synthetic_jobs() -> list[Job]:
    zh_t, zh_s, en_t, en_s = sources.title_pool()
    pool = synth.Pool(titles={"zh": zh_t, "en": en_t}, snippets={"zh": zh_s, "en": en_s})
    pages = synth.generate(pool, SYNTH_LISTS, SYNTH_ARTICLES, seed=sources.SEED)
    return [Job(key, label, False, html=text) for key, label, text in pages]


def _demo_jobs(urls: dict[str, str]) -> list[Job]:
    from demo.server import WEB_ROOT

    jobs = []
    for site, base in urls.items():
        expected = json.loads((WEB_ROOT / site / "_expected.json").read_text("utf-8"))
        for path, page in expected["pages"].items():
            if page.get("expect") != "stored":
                continue
            label = {"list": "list", "home": "list", "article": "article"}.get(page.get("kind"))
            if label:
                jobs.append(Job(f"demo/{site}{path}", label, False, url=base + path.lstrip("/")))
    return jobs


async def _block_external(route: Any) -> None:
    if route.request.url.startswith(("http://127.0.0.1", "data:")):
        await route.continue_()
    else:
        await route.abort()


async def _render_one(browser: Any, job: Job, params: CaptureParams) -> bytes:
    context = await browser.new_context(
        viewport={"width": params.viewport_width, "height": params.viewport_height},
        java_script_enabled=job.url is not None,
    )
    try:
        await context.route("**/*", _block_external)
        page = await context.new_page()
        if job.url:
            await page.goto(job.url, wait_until="load", timeout=15_000)
        else:
            await page.set_content(job.html or "", wait_until="load", timeout=15_000)
        return (await capture_page(page, params)).image
    finally:
        await context.close()


async def render_all(jobs: list[Job], concurrency: int = 2) -> None:
    from playwright.async_api import async_playwright

    OUT.mkdir(parents=True, exist_ok=True)
    manifest = OUT / "manifest.jsonl"
    done = set()
    if manifest.exists():
        done = {json.loads(line)["key"] for line in manifest.read_text().splitlines() if line}
    todo = [job for job in jobs if job.key not in done]
    store = ScreenshotStore(OUT / "shots")
    params = CaptureParams()
    queue: asyncio.Queue[Job] = asyncio.Queue()
    for job in todo:
        queue.put_nowait(job)
    started = time.monotonic()
    counter = {"ok": 0, "failed": 0}
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path="/usr/bin/chromium", headless=True, args=["--disable-gpu"]
        )

        async def worker() -> None:
            while not queue.empty():
                job = queue.get_nowait()
                try:
                    image = await asyncio.wait_for(_render_one(browser, job, params), 40)
                    shot = await asyncio.to_thread(store.save, image, params)
                except Exception as exc:
                    counter["failed"] += 1
                    logger.warning("render failed %s: %s", job.key, str(exc)[:200])
                    continue
                counter["ok"] += 1
                row = {"key": job.key, "label": job.label, "real": job.real,
                       "sha256": shot.sha256,
                       "file": str(Path(shot.path).relative_to(OUT)),
                       "width": shot.width, "height": shot.height}  # fmt: skip
                with manifest.open("a", encoding="utf-8") as fh:
                    fh.write(json.dumps(row, ensure_ascii=False) + "\n")
                if (counter["ok"] + counter["failed"]) % 50 == 0:
                    rate = (time.monotonic() - started) / (counter["ok"] + counter["failed"])
                    print(f"{counter['ok']} rendered, {counter['failed']} failed, "
                          f"{rate:.2f} s/page, {queue.qsize()} left", flush=True)  # fmt: skip

        await asyncio.gather(*(worker() for _ in range(concurrency)))
        await browser.close()
    print(f"done: {counter['ok']} rendered, {counter['failed']} failed, "
          f"{time.monotonic() - started:.0f} s; manifest {manifest}")  # fmt: skip


def render(concurrency: int = 2, splits: tuple[str, ...] | None = None) -> None:
    """Render every page, or only those of ``splits`` (e.g. ``("test", "val")``:
    the real pages the evaluation needs; generated and demo pages are all
    training pages)."""
    from demo.server import DemoWeb

    if splits is not None and "train" not in splits:
        split = sources.load_split()
        jobs = [job for job in _real_jobs() if split.get(job.key) in splits]
        asyncio.run(render_all(jobs, concurrency))
        return
    jobs = _real_jobs() + _synthetic_jobs()
    with DemoWeb() as web:
        jobs += _demo_jobs(web.urls)
        if sources.SPLIT_FILE.exists():
            split = sources.load_split()
            missing = [job.key for job in jobs if job.key not in split]
            if missing:
                raise SystemExit(
                    f"{len(missing)} pages not in {sources.SPLIT_FILE}, e.g. {missing[0]}"
                )
        else:
            samples = [sources.Sample(job.key, job.label, job.key.split("/")[0], job.real)
                       for job in jobs]  # fmt: skip
            split = sources.make_split(samples)
            sources.save_split(split)
        if splits is not None:
            jobs = [job for job in jobs if split.get(job.key) in splits]
        asyncio.run(render_all(jobs, concurrency))


def manifest() -> list[dict[str, Any]]:
    """The rendered pages, by key (written by ``render``), each with its part
    in ``split.json`` (the one record of parts: a render made under an older
    split keeps its images)."""
    path = OUT / "manifest.jsonl"
    if not path.exists():
        raise SystemExit(f"no rendered pages at {path}: run `python -m training.pagetype render`")
    split = sources.load_split()
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]
    for row in rows:
        row["split"] = split.get(row["key"])
    return sorted(rows, key=lambda r: r["key"])
