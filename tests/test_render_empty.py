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
<ul><li><a href="app.html">Bike lanes approved (app)</a></li>
<li><a href="plain.html">Bike lanes approved (plain)</a></li></ul></body></html>"""


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def _crawl(tmp: Path, base: str, name: str, **settings: object) -> dict[str, dict]:
    (tmp / f"{name}.txt").write_text(f"{base}index.html\n")
    db, feed = tmp / f"{name}.db", tmp / f"{name}.jsonl"
    settings = {"SITESIFT_SCREENSHOTS": "none", "SITESIFT_SCREENSHOT_DIR": tmp / f"{name}-shots",
                "DOWNLOAD_DELAY": 0, "AUTOTHROTTLE_START_DELAY": 0, "RETRY_TIMES": 0,
                "SITESIFT_FOLLOW_SITEMAPS": False, "SITESIFT_DEDUP_ENABLED": False,
                "FEED_EXPORT_FIELDS": "url,outcome,text,screenshot", **settings}  # fmt: skip
    args = [sys.executable, "-m", "crawler.cli", "crawl", str(tmp / f"{name}.txt"),
            "--db", f"sqlite:///{db}", "-O", str(feed)]  # fmt: skip
    for key, value in settings.items():
        args += ["-s", f"{key}={value}"]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=180, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    items = {}
    for line in feed.read_text().splitlines():
        item = json.loads(line)
        items[item["url"].rsplit("/", 1)[1]] = item
    with sqlite3.connect(db) as conn:
        stored = dict(conn.execute("select url, text from articles"))
    for item in items.values():
        item["stored"] = stored.get(item["url"])
    return items


@pytest.fixture(scope="module")
def crawls(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, dict]]:
    tmp = tmp_path_factory.mktemp("render")
    site = tmp / "site"
    site.mkdir()
    for name, body in {"index.html": INDEX, "app.html": APP, "plain.html": PLAIN}.items():
        (site / name).write_text(body, encoding="utf-8")
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        return {
            "on": _crawl(tmp, base, "on"),
            "off": _crawl(tmp, base, "off", SITESIFT_RENDER_EMPTY=False),
            "group": _crawl(tmp, base, "group", SITESIFT_SCREENSHOTS="group"),
        }
    finally:
        server.shutdown()


def test_a_page_its_scripts_fill_is_rendered_and_extracted(crawls: dict) -> None:
    app = crawls["on"]["app.html"]
    assert app["outcome"] == "ok"
    assert STORY[1] in app["text"] and STORY[1] in app["stored"]
    assert not app["screenshot"]  # rendered for its text: screenshots are off
    plain = crawls["on"]["plain.html"]  # a page with text is not fetched twice
    assert STORY[1] in plain["text"] and not plain["screenshot"]


def test_without_render_empty_the_page_stays_empty(crawls: dict) -> None:
    app = crawls["off"]["app.html"]
    assert app["outcome"] == "ok" and STORY[1] not in (app["text"] or "")


def test_a_rendered_page_is_photographed_when_the_policy_wants_it(crawls: dict) -> None:
    items = crawls["group"]
    assert STORY[1] in items["app.html"]["text"]
    for name in ("index.html", "app.html", "plain.html"):
        shot = items[name]["screenshot"]  # first pages of their groups
        assert shot and Path(shot["path"]).is_file(), name
