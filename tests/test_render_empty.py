"""Pages whose scripts fill them are fetched again through Chromium
(SITESIFT_RENDER_EMPTY): real crawls of a site served on 127.0.0.1."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

STORY = (
    "The council approved the new bike lanes on Tuesday after a long debate about parking.",
    "Work on the first section starts in May and should be finished before the school year.",
    "Shop owners on the street asked for loading zones, which the plan now includes.",
)
# The article is written by the page's script after it loaded; its HTML body
# holds only the empty mount point (a forum's or a shop's front end).
APP = """<html lang="en"><head><title>Bike lanes approved - City News</title></head>
<body><div id="app"></div><script>
const paras = PARAS;
setTimeout(() => {
  const article = document.createElement("article");
  const h = document.createElement("h1"); h.textContent = "Bike lanes approved";
  article.appendChild(h);
  for (const text of paras) {
    const p = document.createElement("p"); p.textContent = text; article.appendChild(p);
  }
  document.getElementById("app").appendChild(article);
}, 50);
</script></body></html>""".replace("PARAS", json.dumps(STORY))
PARAGRAPHS = "".join(f"<p>{line}</p>" for line in STORY)
PLAIN = f"<html><head><title>Plain</title></head><body><article>{PARAGRAPHS}</article></body>"
INDEX = """<html><head><title>City News</title></head><body><h1>City News</h1>
<ul><li><a href="plain.html">Bike lanes approved (plain)</a></li>
<li><a href="t/1.html">Bike lanes approved</a></li>
<li><a href="t/2.html">Bike lanes: the map</a></li>
<li><a href="t/3.html">Bike lanes: the budget</a></li>
<li><a href="spin.html">Loading</a></li>
<li><a href="story">Bike lanes: moved</a></li></ul></body></html>"""
APPS = ("t/1.html", "t/2.html", "t/3.html")  # one URL pattern, built by their scripts
# Empty but for a script that never yields once the page loaded.
SPIN = "<html><body><script>addEventListener('load', () => { while (true) {} })</script></body>"


class _Counting(SimpleHTTPRequestHandler):
    """Serves the site and counts the GETs of each path."""

    fetched: dict[str, int]

    def do_GET(self) -> None:  # noqa: N802
        path = self.path.lstrip("/")
        self.fetched[path] = self.fetched.get(path, 0) + 1
        super().do_GET()

    def log_message(self, *args: object) -> None:
        pass


def _crawl(tmp: Path, base: str, name: str, **settings: object) -> dict[str, dict]:
    (tmp / f"{name}.txt").write_text(f"{base}index.html\n")
    db, feed = tmp / f"{name}.db", tmp / f"{name}.jsonl"
    settings = {"SITESIFT_SCREENSHOTS": "none", "SITESIFT_SCREENSHOT_DIR": tmp / f"{name}-shots",
                "DOWNLOAD_DELAY": 0, "AUTOTHROTTLE_START_DELAY": 0, "RETRY_TIMES": 0,
                "SITESIFT_SCREENSHOT_TIMEOUT": 4, "PLAYWRIGHT_DEFAULT_NAVIGATION_TIMEOUT": 8000,
                "SITESIFT_FOLLOW_SITEMAPS": False, "SITESIFT_DEDUP_ENABLED": False,
                "FEED_EXPORT_FIELDS": "url,outcome,reason,text,screenshot", **settings}  # fmt: skip
    args = [sys.executable, "-m", "crawler.cli", "crawl", str(tmp / f"{name}.txt"),
            "--db", f"sqlite:///{db}", "-O", str(feed)]  # fmt: skip
    for key, value in settings.items():
        args += ["-s", f"{key}={value}"]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=180, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    items = {}
    for line in feed.read_text().splitlines():
        item = json.loads(line)
        items[item["url"].split("/", 3)[3]] = item
    with sqlite3.connect(db) as conn:
        stored = dict(conn.execute("select url, text from articles"))
    for item in items.values():
        item["stored"] = stored.get(item["url"])
    items["log"] = proc.stderr
    return items


@pytest.fixture(scope="module")
def crawls(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    tmp = tmp_path_factory.mktemp("render")
    site = tmp / "site"
    (site / "t").mkdir(parents=True)
    for name, body in {"index.html": INDEX, "plain.html": PLAIN, "spin.html": SPIN}.items():
        (site / name).write_text(body, encoding="utf-8")
    (site / "story").mkdir()  # "story" is redirected to "story/"
    for name in (*APPS, "story/index.html"):
        (site / name).write_text(APP, encoding="utf-8")
    fetched: dict[str, int] = {}
    handler = type("Handler", (_Counting,), {"fetched": fetched})
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(handler, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    runs = {}
    try:
        for name, settings in {
            "on": {"CONCURRENT_REQUESTS": 1},
            "off": {"SITESIFT_RENDER_EMPTY": False},
            # A capture's deadline as a loaded machine needs it: a 4 s one
            # once timed out in a full run, and the page was stored as
            # fetched, empty (the spin page waits it out once).
            "group": {"SITESIFT_SCREENSHOTS": "group", "SITESIFT_SCREENSHOT_TIMEOUT": 12},
        }.items():
            fetched.clear()
            items = _crawl(tmp, base, name, **settings)
            runs[name] = {"items": items, "fetched": dict(fetched)}
    finally:
        server.shutdown()
    return runs


def test_pages_their_scripts_fill_are_rendered_and_extracted(crawls: dict) -> None:
    items, fetched = crawls["on"]["items"], crawls["on"]["fetched"]
    for name in APPS:
        app = items[name]
        assert app["outcome"] == "ok"
        assert STORY[1] in app["text"] and STORY[1] in app["stored"], name
        assert not app["screenshot"]  # rendered for its text: screenshots are off
    # The first page of the pattern was fetched plainly, found empty and
    # rendered; pages asked for after that went straight to the browser (the
    # next one may have been on its way already).
    counts = [fetched[name] for name in APPS]
    assert max(counts) == 2 and min(counts) == 1, counts
    # A redirected page keeps the URL it was asked for; the request made
    # again carries none of Scrapy's per-fetch meta.
    moved = items["story"]
    assert STORY[1] in moved["text"] and moved["outcome"] == "ok"
    assert "internal meta keys" not in items["log"]
    plain = items["plain.html"]  # a page with text is fetched once
    assert STORY[1] in plain["text"] and not plain["screenshot"]
    assert fetched["plain.html"] == 1


def test_without_render_empty_the_pages_stay_empty(crawls: dict) -> None:
    items, fetched = crawls["off"]["items"], crawls["off"]["fetched"]
    for name in APPS:
        assert items[name]["outcome"] == "ok" and STORY[1] not in (items[name]["text"] or "")
        assert fetched[name] == 1


def test_a_rendered_page_is_photographed_when_the_policy_wants_it(crawls: dict) -> None:
    items = crawls["group"]["items"]
    for name in ("index.html", "plain.html", *APPS):
        # The outcome and reason say why, should a render fail under load.
        why = (name, items[name]["outcome"], items[name]["reason"])
        assert name == "index.html" or STORY[1] in items[name]["text"], why
        shot = items[name]["screenshot"]  # first pages of their patterns
        assert shot and Path(shot["path"]).is_file(), name


def test_a_page_the_browser_cannot_render_is_stored_as_fetched(crawls: dict) -> None:
    items, fetched = crawls["on"]["items"], crawls["on"]["fetched"]
    spin = items["spin.html"]
    assert spin["outcome"] == "ok", spin  # nothing lost: the plain fetch is stored
    assert spin["reason"].startswith("not rendered (its scripts failed in the browser)")
    assert fetched["spin.html"] == 3  # plainly, in the browser, plainly again
