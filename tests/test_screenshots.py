"""Screenshots: bounds, content-addressed storage, the per-group policy, and a
real crawl through Chromium against pages served on 127.0.0.1."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import zlib
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from PIL import Image
from scrapy import Request
from scrapy.exceptions import NotConfigured
from scrapy.settings import Settings
from scrapy.utils.test import get_crawler

from crawler.middlewares.screenshot import (
    ScreenshotConfig,
    ScreenshotMiddleware,
    ScreenshotPolicy,
    SubresourceCache,
    _Cached,
)
from crawler.screenshots import CaptureParams, ScreenshotStore, shrink
from pipelines.schema import database_key

ROOT = Path(__file__).resolve().parents[1]


def _png(width: int, height: int, colour: str = "white") -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(out, "PNG")
    return out.getvalue()


# -- capture params and shrinking ----------------------------------------------


def test_capture_params_reject_bad_values() -> None:
    with pytest.raises(ValueError, match="webp or png"):
        CaptureParams(format="gif")
    with pytest.raises(ValueError, match="positive"):
        CaptureParams(max_height=0)
    with pytest.raises(ValueError, match="quality"):
        CaptureParams(quality=0)


def test_shrink_bounds_width_and_height() -> None:
    params = CaptureParams(width=320, max_height=4000)
    data, width, height = shrink(_png(1280, 20_000), params)
    assert (width, height) == (320, 1000)  # 4000 CSS px at 1/4 scale
    with Image.open(io.BytesIO(data)) as img:
        assert img.format == "WEBP" and img.size == (320, 1000)


def test_shrink_keeps_a_short_page_short_and_can_write_png() -> None:
    data, width, height = shrink(_png(1280, 400), CaptureParams(format="png"))
    assert (width, height) == (320, 100)
    assert data.startswith(b"\x89PNG")


# -- storage -------------------------------------------------------------------------


def test_store_is_content_addressed_and_deletes(tmp_path: Path) -> None:
    store = ScreenshotStore(tmp_path / "shots")
    first = store.save(_png(1280, 900, "red"))
    again = store.save(_png(1280, 900, "red"))
    other = store.save(_png(1280, 900, "blue"))
    assert first == again and first.sha256 != other.sha256
    path = Path(first.path)
    assert path == tmp_path / "shots" / first.sha256[:2] / f"{first.sha256}.webp"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == first.sha256
    assert first.as_dict() == {
        "sha256": first.sha256,
        "path": first.path,
        "width": 320,
        "height": 225,
    }
    assert store.prune(keep={other.sha256}) == 1
    assert not path.exists() and Path(other.path).exists()
    assert store.delete(other.sha256) and not store.delete(other.sha256)
    assert list((tmp_path / "shots").rglob("*")) == []  # empty fan-out folders go too


def test_sweeps_spare_a_picture_a_page_may_still_be_writing(tmp_path: Path) -> None:
    """A re-photographed page lets go of its old picture: the database knows
    which hashes are still referenced (content-addressed files are shared);
    a file saved or reused lately may belong to a page not yet committed."""
    store = ScreenshotStore(tmp_path)
    old, new = store.save(_png(1280, 900, "red")), store.save(_png(1280, 900, "blue"))
    hour_ago = time.time() - 3600
    for shot in (old, new):
        os.utime(shot.path, (hour_ago, hour_ago))
    again = store.save(_png(1280, 900, "blue"))  # another page, same picture
    assert again == new and time.time() - Path(new.path).stat().st_mtime < 60
    assert not store.delete(new.sha256, min_age=600)  # just reused: kept
    assert store.prune(keep=set(), min_age=600) == 1  # only the old one went
    assert not Path(old.path).exists() and Path(new.path).exists()
    assert store.prune(keep={new.sha256}) == 0
    assert store.delete(new.sha256, min_age=0)


def test_store_refuses_names_that_are_not_hashes(tmp_path: Path) -> None:
    store = ScreenshotStore(tmp_path)
    with pytest.raises(ValueError):
        store.path_for("../../etc/passwd", "webp")
    with pytest.raises(ValueError):
        store.delete("a" * 63)


# -- policy and settings ------------------------------------------------------------


def test_group_policy_takes_the_first_pages_of_each_pattern() -> None:
    policy = ScreenshotPolicy("group", per_group=2)
    article = "http://s.test/news/2024/06/{}.html"
    taken = [policy.take(article.format(slug)) for slug in ("a-b-c", "d-e-f", "g-h-i")]
    assert taken == [True, True, False]
    assert policy.take("http://s.test/news/")  # another group
    assert policy.take("http://s.test/news/page/2/")  # pagination folds into the list
    assert not policy.take("http://s.test/news/page/3/")
    policy.release(article.format("a-b-c"))  # a failed capture frees its slot
    assert policy.take(article.format("x-y-z"))
    assert not policy.take("http://s.test/files/report.pdf")


def test_modes_none_all_and_site_override() -> None:
    assert not ScreenshotPolicy("none").take("http://s.test/a.html")
    every = ScreenshotPolicy("all")
    assert all(every.take(f"http://s.test/p/{i}.html") for i in range(10))
    assert ScreenshotPolicy("none").take("http://s.test/a.html", mode="all")


def test_config_from_settings_validates() -> None:
    config = ScreenshotConfig.from_settings(
        Settings({"SITESIFT_SCREENSHOTS": "ALL", "SITESIFT_SCREENSHOT_TIMEOUT": 2.5})
    )
    assert config.mode == "all" and config.capture.timeout_ms == 2500
    with pytest.raises(ValueError, match="one of"):
        ScreenshotConfig.from_settings(Settings({"SITESIFT_SCREENSHOTS": "some"}))
    with pytest.raises(ValueError, match="PER_GROUP"):
        ScreenshotConfig(per_group=0)


def test_middleware_switches_off_without_playwright_or_with_bad_settings() -> None:
    with pytest.raises(NotConfigured, match="scrapy-playwright"):
        ScreenshotMiddleware.from_crawler(get_crawler(settings_dict={"DOWNLOAD_HANDLERS": {}}))
    from crawler import settings as defaults

    bad = {"DOWNLOAD_HANDLERS": defaults.DOWNLOAD_HANDLERS, "SITESIFT_SCREENSHOTS": "x"}
    with pytest.raises(NotConfigured, match="SITESIFT_SCREENSHOTS"):
        ScreenshotMiddleware.from_crawler(get_crawler(settings_dict=bad))


def test_subresource_cache_is_bounded_lru() -> None:
    cache = SubresourceCache(max_bytes=1000)
    for i in range(6):
        cache.put(f"http://s.test/{i}.css", _Cached(200, {}, b"x" * 200))
    assert cache.get("http://s.test/0.css") is None  # evicted, oldest first
    assert cache.get("http://s.test/5.css") is not None
    cache.put("http://s.test/big.js", _Cached(200, {}, b"x" * 600))  # > 1/4 of the budget
    assert cache.get("http://s.test/big.js") is None


# -- a real crawl through Chromium -------------------------------------------------

_PAGES = {
    "index.html": "<html><head><title>Home</title></head><body><h1>Home</h1>"
    + "".join(
        f"<p><a href='{n}.html'>{n}</a></p>"
        for n in ["tall", "js", "hang", "big", "gbk", "refresh", "slow"]
    )
    + "".join(f"<p><a href='p{i}.html'>page {i}</a></p>" for i in range(4))
    + "</body></html>",
    # answered after SLOW_SECONDS, past the crawl's DOWNLOAD_TIMEOUT (2 s) but
    # within the browser's navigation timeout (4 s)
    "slow.html": "<html><body><p>Too late.</p></body></html>",
    "tall.html": "<html><body><div style='height:20000px;background:#369'>tall</div></body></html>",
    "js.html": "<html><body><div id='x'>static</div><script>document.getElementById('x')"
    ".textContent = 'rendered by script';</script></body></html>",
    "hang.html": "<html><body><p>hangs</p><script>while (true) {}</script></body></html>",
    # refreshes itself every 0 s: Chromium may never close such a page
    "refresh.html": '<html><head><meta http-equiv="refresh" content="0; url=/refresh.html">'
    "</head><body><p>Reloading</p></body></html>",
    "gbk.html": '<html><head><meta charset="gbk"></head><body><p>市政府宣布新开公交线路。</p>'
    "</body></html>".encode("gbk"),
    # over the crawl's DOWNLOAD_MAXSIZE (200,000 bytes), which Chromium does not keep
    "big.html": "<html><body>"
    + "<p>A paragraph of a page too big to store.</p>" * 6000
    + "</body></html>",
    **{
        f"p{i}.html": f"<html><body><h1>Page {i}</h1><p>text {i}</p></body></html>"
        for i in range(4)
    },
}


@pytest.fixture(scope="module")
def browser_crawl(tmp_path_factory: pytest.TempPathFactory) -> dict:
    tmp = tmp_path_factory.mktemp("shots")
    site = tmp / "site"
    site.mkdir()
    for name, body in _PAGES.items():
        (site / name).write_bytes(body if isinstance(body, bytes) else body.encode())
    handler = partial(_SlowHandler, directory=str(site))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    (tmp / "sites.txt").write_text(f"{base}index.html screenshots=all\n")
    db, feed, shots = tmp / "c.db", tmp / "items.jsonl", tmp / "screens"
    fields = "url,outcome,reason,screenshot"
    settings = {"SITESIFT_SCREENSHOT_DIR": shots, "SITESIFT_SCREENSHOT_MAX_HEIGHT": 3000,
                "SITESIFT_SCREENSHOT_TIMEOUT": 4, "PLAYWRIGHT_DEFAULT_NAVIGATION_TIMEOUT": 4000,
                "SITESIFT_SCREENSHOT_BROWSER_PAGES": 3, "SITESIFT_SCREENSHOTS": "none",
                "FEED_EXPORT_FIELDS": fields, "DOWNLOAD_DELAY": 0, "AUTOTHROTTLE_START_DELAY": 0,
                "RETRY_TIMES": 0, "SITESIFT_FOLLOW_SITEMAPS": False,
                "SITESIFT_DEDUP_ENABLED": False, "CONCURRENT_REQUESTS": 1,
                "DOWNLOAD_MAXSIZE": 200_000, "DOWNLOAD_WARNSIZE": 100_000,
                "DOWNLOAD_TIMEOUT": 2}  # fmt: skip
    args = [sys.executable, "-m", "crawler.cli", "crawl", str(tmp / "sites.txt"),
            "--db", f"sqlite:///{db}", "-O", str(feed)]  # fmt: skip
    for key, value in settings.items():
        args += ["-s", f"{key}={value}"]
    try:
        proc = subprocess.run(args, capture_output=True, text=True, timeout=180, cwd=ROOT)
    finally:
        server.shutdown()
    assert proc.returncode == 0, proc.stderr[-3000:]
    items = {json.loads(line)["url"].rsplit("/", 1)[1]: json.loads(line)
             for line in feed.read_text().splitlines()}  # fmt: skip
    conn = sqlite3.connect(db)
    query = "select url, html_zlib from pages where html_zlib is not null"
    html = {url.rsplit("/", 1)[1]: zlib.decompress(blob).decode()
            for url, blob in conn.execute(query)}  # fmt: skip
    rows = {url.rsplit("/", 1)[1]: (outcome, reason) for url, outcome, reason in
            conn.execute("select url, outcome, reason from pages")}  # fmt: skip
    encodings = dict(conn.execute("select url, encoding from pages"))
    conn.close()
    encodings = {url.rsplit("/", 1)[1]: enc for url, enc in encodings.items()}
    return {"items": items, "html": html, "rows": rows, "log": proc.stderr, "shots": shots,
            "encodings": encodings}  # fmt: skip


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


SLOW_SECONDS = 3.0


class _SlowHandler(_QuietHandler):
    def do_GET(self) -> None:
        if self.path.endswith("/slow.html"):
            time.sleep(SLOW_SECONDS)
        super().do_GET()


def test_every_page_is_photographed_and_stored_by_hash(browser_crawl: dict) -> None:
    rows, items = browser_crawl["rows"], browser_crawl["items"]
    ok = {name for name, (outcome, _) in rows.items() if outcome == "ok"}
    pages = {f"p{i}.html" for i in range(4)}
    assert ok == {"index.html", "tall.html", "js.html", "hang.html", "gbk.html"} | pages
    for name in ok - {"hang.html"}:
        item = items[name]
        shot = item["screenshot"]
        assert shot, name
        path = Path(shot["path"])
        assert path.parent.parent == browser_crawl["shots"]
        assert path.name == f"{shot['sha256']}.webp"
        assert hashlib.sha256(path.read_bytes()).hexdigest() == shot["sha256"]
        assert shot["width"] == 320
    # the folder says which database stores in it (prune-screenshots reads it)
    db = f"sqlite:///{browser_crawl['shots'].parent / 'c.db'}"
    assert ScreenshotStore(browser_crawl["shots"]).owners() == {database_key(db)}
    # and status counts them (pages that look alike share one)
    status = subprocess.run([sys.executable, "-m", "crawler.cli", "status", "--db", db],
                            capture_output=True, text=True, timeout=60, cwd=ROOT)  # fmt: skip
    distinct = {items[name]["screenshot"]["sha256"] for name in ok - {"hang.html"}}
    assert f"\nscreenshots: {len(distinct)}\n" in status.stdout, status.stdout


def test_tall_page_height_is_bounded(browser_crawl: dict) -> None:
    shot = browser_crawl["items"]["tall.html"]["screenshot"]
    assert shot["height"] == 750  # 3000 CSS px at 1/4 scale, not 20,000
    with Image.open(shot["path"]) as img:
        assert img.size == (320, 750)


def test_rendered_html_is_stored(browser_crawl: dict) -> None:
    assert "rendered by script" in browser_crawl["html"]["js.html"]


def test_a_page_the_browser_read_keeps_the_charset_it_was_served_in(browser_crawl: dict) -> None:
    # its stored HTML is the browser's DOM (UTF-8); the column says what the
    # server sent, as for a page fetched without the browser
    assert "市政府宣布新开公交线路" in browser_crawl["html"]["gbk.html"]
    assert browser_crawl["encodings"]["gbk.html"] == "gb18030"
    assert browser_crawl["encodings"]["p0.html"] == "utf-8"


def test_a_hung_page_is_stored_from_a_plain_fetch_with_why_it_has_no_picture(
    browser_crawl: dict,
) -> None:
    # Its capture timed out: the page itself is fine, so Scrapy's client
    # fetches it and it is stored; the reason says what failed, on one line.
    outcome, reason = browser_crawl["rows"]["hang.html"]
    assert outcome == "ok" and reason.startswith("screenshot failed: TimeoutError"), reason
    assert "\n" not in reason and "Call log" not in reason
    assert browser_crawl["items"]["hang.html"]["screenshot"] is None
    assert "hangs" in browser_crawl["html"]["hang.html"]


def test_a_page_over_the_max_size_fails_as_without_the_browser(browser_crawl: dict) -> None:
    # Chromium loaded it whole; the limits of Scrapy's client still hold.
    outcome, reason = browser_crawl["rows"]["big.html"]
    assert outcome == "failed" and "max size" in reason, reason
    assert "big.html" not in browser_crawl["items"]


def test_a_page_slower_than_the_download_timeout_fails_as_without_the_browser(
    browser_crawl: dict,
) -> None:
    # the browser would wait its navigation timeout (4 s) and store it; the
    # crawl's DOWNLOAD_TIMEOUT (2 s) holds for the browser too
    outcome, reason = browser_crawl["rows"]["slow.html"]
    assert outcome == "failed" and reason.startswith("timeout"), reason


def test_the_browser_waits_no_longer_than_the_request_may() -> None:
    from crawler.middlewares.screenshot import ScreenshotConfig, ScreenshotMiddleware

    mw = ScreenshotMiddleware(ScreenshotConfig(download_timeout=30, navigation_timeout=20))
    assert mw._page_timeout(Request("http://s.test/")) == 20
    assert mw._page_timeout(Request("http://s.test/", meta={"download_timeout": 5})) == 5


def test_a_page_that_refreshes_itself_for_ever_ends_as_a_redirect_loop(browser_crawl: dict) -> None:
    # the browser's download is bounded (crawler/browser.py); Scrapy's client
    # then finds the loop
    outcome, reason = browser_crawl["rows"]["refresh.html"]
    assert outcome == "failed" and reason.startswith("redirect loop"), reason


def test_limits_the_browser_does_not_keep() -> None:
    from scrapy.http import HtmlResponse

    from crawler.failures import HEADER_LINE_LIMIT
    from crawler.middlewares.screenshot import ScreenshotConfig, ScreenshotMiddleware

    mw = ScreenshotMiddleware(ScreenshotConfig())
    plain = HtmlResponse("http://s.test/", body=b"<p>x</p>", headers={"X-A": "b"})
    assert mw._over_limits(plain, b"<p>x</p>") is None
    long = {"X-A": "b" * HEADER_LINE_LIMIT}
    assert "header line" in mw._over_limits(HtmlResponse("http://s.test/", headers=long), None)


def test_browser_is_recycled_and_the_crawl_goes_on(browser_crawl: dict) -> None:
    assert "recycling the browser after 3 pages" in browser_crawl["log"]
    assert browser_crawl["log"].count("Browser chromium launched") >= 3  # 8 pages, 3 a browser


# -- Chromium killed mid-page (issue 8) ----------------------------------------------
#
# The crawl runs in a subprocess; the test server sees what the browser is
# doing (each page shows an image that only a browser fetches) and kills, with
# SIGKILL, only the Chromium processes descended from that subprocess:
# - while crash.html renders, the whole browser: the page is retried in a
#   relaunched browser (scrapy-playwright), the pages found after it are
#   photographed by that new browser;
# - every time renderer.html renders, its renderer: a page that kills the
#   browser whenever it is opened ends as a plain fetch, stored, with the
#   screenshot failure as the page's reason.

_DOT = _png(2, 2)


def _crash_pages() -> dict[str, str]:
    def page(name: str, links: list[str], img: str) -> str:
        hrefs = "".join(f"<p><a href='{link}'>{link}</a></p>" for link in links)
        return f"<html><body><h1>{name}</h1><img src='{img}'>{hrefs}</body></html>"

    pages = {
        "index.html": page("index", ["b0.html", "b1.html", "crash.html"], "dot.png?index.html"),
        "crash.html": page("crash", ["renderer.html", "a0.html", "a1.html"], "hold.png"),
        "renderer.html": page("renderer", ["a2.html"], "kill-renderer.png"),
    }
    for name in ("b0.html", "b1.html", "a0.html", "a1.html", "a2.html"):
        pages[name] = page(name, [], f"dot.png?{name}")
    return pages


def _chromium_under(pid: int, renderers_only: bool = False) -> list[int]:
    """Chromium processes descended from ``pid`` (and only those)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError, ValueError):
            stat = (entry / "stat").read_text()
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found = []
    for child in parents:
        ancestor = parents[child]
        while ancestor not in (0, 1, pid):
            ancestor = parents.get(ancestor, 0)
        if ancestor != pid:
            continue
        with contextlib.suppress(OSError):
            cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
            program = cmdline.split(b"\0", 1)[0]
            if b"chrom" in program and (not renderers_only or b"--type=renderer" in cmdline):
                found.append(child)
    return found


def _kill(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


# Guarded: with SITESIFT_DENY_PRIVATE the guard answers every browser request
# (a page's navigation is fetched by it); a dead browser must not stall it.
@pytest.fixture(scope="module", params=["unguarded", "guarded"])
def crash_crawl(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> dict:
    tmp = tmp_path_factory.mktemp("crash")
    pages = _crash_pages()
    held, release = threading.Event(), threading.Event()
    crawl_pid: list[int] = []
    seen: list[tuple[float, str]] = []  # (time, what) of every image the browser asked for
    renderer_kills: list[int] = []

    class Handler(_QuietHandler):
        def do_GET(self) -> None:  # noqa: N802
            name, _, query = self.path.lstrip("/").partition("?")
            seen.append((time.monotonic(), query or name))
            if name == "hold.png" and not held.is_set():
                held.set()
                release.wait(60)  # the test kills Chromium meanwhile
            elif name == "kill-renderer.png":
                victims = _chromium_under(crawl_pid[0], renderers_only=True)
                renderer_kills.extend(victims)
                _kill(victims)
            if name.endswith(".png"):
                body, ctype = _DOT, "image/png"
            elif name in pages:
                body, ctype = pages[name].encode(), "text/html; charset=utf-8"
            else:
                self.send_error(404)
                return
            with contextlib.suppress(OSError):  # the browser may be gone
                self.send_response(200)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

    class Server(ThreadingHTTPServer):
        def handle_error(self, request: object, client_address: object) -> None:
            pass  # a connection the killed browser dropped

    server = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    (tmp / "sites.txt").write_text(f"{base}index.html screenshots=all\n")
    db, shots = tmp / "c.db", tmp / "screens"
    settings = {"SITESIFT_SCREENSHOT_DIR": shots, "SITESIFT_SCREENSHOT_TIMEOUT": 20,
                "PLAYWRIGHT_DEFAULT_NAVIGATION_TIMEOUT": 60_000, "SITESIFT_SCREENSHOTS": "none",
                "DOWNLOAD_DELAY": 0, "AUTOTHROTTLE_START_DELAY": 0, "RETRY_TIMES": 0,
                "SITESIFT_FOLLOW_SITEMAPS": False, "SITESIFT_DEDUP_ENABLED": False,
                "CONCURRENT_REQUESTS": 1}  # fmt: skip
    if request.param == "guarded":
        settings |= {"SITESIFT_DENY_PRIVATE": True, "SITESIFT_ALLOW_NETWORKS": "127.0.0.1"}
    args = [sys.executable, "-m", "crawler.cli", "crawl", str(tmp / "sites.txt"),
            "--db", f"sqlite:///{db}"]  # fmt: skip
    for key, value in settings.items():
        args += ["-s", f"{key}={value}"]
    started = time.monotonic()
    with (tmp / "crawl.log").open("w") as log_file:
        proc = subprocess.Popen(args, cwd=ROOT, stderr=log_file, stdout=subprocess.DEVNULL)
    crawl_pid.append(proc.pid)
    try:
        assert held.wait(120), "the browser never reached crash.html"
        killed = _chromium_under(proc.pid)
        _kill(killed)
        killed_at = time.monotonic()
        release.set()
        try:
            proc.wait(timeout=300)
        except subprocess.TimeoutExpired:
            tail = (tmp / "crawl.log").read_text()[-4000:]
            pytest.fail(f"the crawl did not finish after Chromium was killed:\n{tail}")
    finally:
        release.set()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        server.shutdown()
    log = (tmp / "crawl.log").read_text()
    assert proc.returncode == 0, log[-3000:]
    conn = sqlite3.connect(db)
    rows = {url.rsplit("/", 1)[1]: tuple(row) for url, *row in conn.execute(
        "select url, outcome, reason, screenshot from pages")}  # fmt: skip
    conn.close()
    after = [(at - killed_at, what) for at, what in seen if at > killed_at]
    return {"rows": rows, "log": log, "killed": killed, "after": after,
            "renderer_kills": renderer_kills, "seconds": time.monotonic() - started}  # fmt: skip


def test_killed_browser_is_relaunched_and_the_page_retried(crash_crawl: dict) -> None:
    rows, after = crash_crawl["rows"], crash_crawl["after"]
    assert len(crash_crawl["killed"]) >= 2  # the browser and its helpers
    # The page under way is refetched: by the relaunched browser (with a
    # screenshot), or after three failed retries by a plain fetch that says so.
    outcome, reason, shot = rows["crash.html"]
    assert outcome == "ok"
    assert shot or reason.startswith("screenshot failed (browser crashed)")
    # The browser came back: pages found after the kill were photographed.
    for name in ("a0.html", "a1.html"):
        assert rows[name][0] == "ok" and rows[name][2], (name, rows[name])
        assert name in {what for _, what in after}
    assert "Chromium went away (crashed or killed)" in crash_crawl["log"]
    assert crash_crawl["log"].count("Browser chromium launched") >= 2
    back, seconds = after[0][0], crash_crawl["seconds"]
    print(f"browser back {back:.1f} s after the kill; crawl {seconds:.0f} s")


def test_page_whose_renderer_always_dies_is_stored_without_a_screenshot(
    crash_crawl: dict,
) -> None:
    rows = crash_crawl["rows"]
    assert len(crash_crawl["renderer_kills"]) >= 2  # killed again on every retry
    outcome, reason, shot = rows["renderer.html"]
    assert outcome == "ok" and shot is None
    # Chromium reports the killed renderer as a crash, through whichever
    # Playwright call was waiting ("TargetClosedError", "Error: Page.route:
    # Target crashed"); once in CI runs it did not tell Playwright, and the
    # page ended at its deadline instead: either way the page is stored from
    # a plain fetch, the reason said.
    assert reason.startswith(("screenshot failed (browser crashed): ",
                              "screenshot failed: BrowserDeadline")), reason  # fmt: skip
    assert rows["a2.html"][0] == "ok" and rows["a2.html"][2]  # its link was followed
    # Each attempt ends at once: the crashed page's pending image fetch does
    # not hold the next attempt back (it used to wait 10 s for it, each time).
    tries = [at for at, what in crash_crawl["after"] if what == "kill-renderer.png"]
    assert tries[-1] - tries[0] < 30, tries


def test_every_page_of_the_crashing_crawl_is_stored(crash_crawl: dict) -> None:
    rows = crash_crawl["rows"]
    assert set(rows) == set(_crash_pages())
    assert {outcome for outcome, _, _ in rows.values()} == {"ok"}
    failed = {name for name, (_, reason, _) in rows.items() if reason}
    assert failed <= {"crash.html", "renderer.html"}
