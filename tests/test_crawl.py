"""End to end: crawl the demo web over real HTTP on 127.0.0.1 into SQLite.

One crawl (a `sitesift crawl` subprocess, as users run it) serves every test
here; each test checks one promise against the demo web's ground truth
(`demo/web/<site>/_expected.json`).
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
import zlib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from demo.server import DemoWeb

WEB = Path(__file__).resolve().parents[1] / "demo" / "web"
SITES = ("en", "zh")


@dataclass
class Crawl:
    web: DemoWeb
    expected: dict[str, dict]
    rows: dict[str, sqlite3.Row]
    feed: list[dict]
    log: str
    seconds: float
    first_bad_line: int

    def url(self, site: str, path: str) -> str:
        return self.web.urls[site].rstrip("/") + path


@pytest.fixture(scope="module")
def crawl(tmp_path_factory: pytest.TempPathFactory) -> Crawl:
    tmp = tmp_path_factory.mktemp("crawl")
    db, feed = tmp / "crawl.db", tmp / "items.jsonl"
    with DemoWeb(sites=SITES) as web:
        sites = web.write_site_list(tmp / "sites.txt")
        first_bad = len(sites.read_text().splitlines()) + 1
        with sites.open("a") as fh:
            fh.write("this is not a url\nhttp://127.0.0.1:9/ max_pages=lots\n")
        started = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-m", "crawler.cli", "crawl", str(sites), "--db", f"sqlite:///{db}"]
            + ["-O", str(feed), "-s", "AUTOTHROTTLE_START_DELAY=0", "-s", "DOWNLOAD_DELAY=0"]
            + ["-s", "SITESIFT_PROGRESS_INTERVAL=2"],
            capture_output=True,
            text=True,
            timeout=300,
        )
        seconds = time.monotonic() - started
        assert proc.returncode == 0, proc.stderr[-3000:]
        conn = sqlite3.connect(db)
        conn.row_factory = sqlite3.Row
        rows = {r["url"]: r for r in conn.execute("select * from pages")}
        conn.close()
        items = [json.loads(line) for line in feed.read_text(encoding="utf-8").splitlines()]
        expected = {
            s: json.loads((WEB / s / "_expected.json").read_text(encoding="utf-8")) for s in SITES
        }
        yield Crawl(web, expected, rows, items, proc.stderr, seconds, first_bad)


def _pages(crawl: Crawl, expect: str):
    for site in SITES:
        for path, page in crawl.expected[site]["pages"].items():
            if page["expect"] == expect:
                yield site, path, page


def test_every_page_is_stored_once_with_its_outcome(crawl: Crawl) -> None:
    outcomes = {
        "stored": "ok",
        "blocked": "blocked",
        "http_error": "http_error",
        "skipped": "skipped",
    }
    for expect, outcome in outcomes.items():
        for site, path, _ in _pages(crawl, expect):
            row = crawl.rows.get(crawl.url(site, path))
            assert row is not None, f"{site}{path} not recorded"
            assert row["outcome"] == outcome, (path, row["outcome"], row["reason"])
    for site in SITES:
        fetched = Counter(crawl.web.requested_paths(site))
        repeated = {p: n for p, n in fetched.items() if n > 1}
        assert not repeated, f"fetched more than once: {repeated}"  # robots.txt too


def test_sitemap_and_feed_only_pages_are_found(crawl: Crawl) -> None:
    via = Counter()
    for site, path, page in _pages(crawl, "stored"):
        via[page["found_via"]] += 1
        assert crawl.rows[crawl.url(site, path)]["outcome"] == "ok"
    assert via["sitemap"] >= 2 and via["feed"] >= 2


def test_robots_disallowed_paths_are_never_fetched_but_recorded(crawl: Crawl) -> None:
    private = list(_pages(crawl, "never_fetched"))
    assert private
    for site, path, _ in private:
        assert path not in crawl.web.requested_paths(site)
        row = crawl.rows.get(crawl.url(site, path))
        assert row is not None and row["outcome"] == "robots"
    assert not any("out-of-scope.invalid" in url for url in crawl.rows)


def test_canonical_urls_collapse_tracking_and_fragments(crawl: Crawl) -> None:
    for site in SITES:
        for alias, target in crawl.expected[site]["aliases"].items():
            assert crawl.url(site, alias) not in crawl.rows
            assert crawl.rows[crawl.url(site, target)]["outcome"] == "ok"
    assert not any("utm_" in url or "#" in url for url in crawl.rows)


def test_url_groups_follow_templates(crawl: Crawl) -> None:
    label_to_groups: dict[str, set[str]] = {}
    group_to_labels: dict[str, set[str]] = {}
    for site, path, page in _pages(crawl, "stored"):
        group = crawl.rows[crawl.url(site, path)]["url_group"]
        assert group and group.startswith(crawl.web.urls[site].split("//")[1].rstrip("/"))
        label_to_groups.setdefault(page["group"], set()).add(group)
        group_to_labels.setdefault(group, set()).add(page["group"])
    split = {k: v for k, v in label_to_groups.items() if len(v) > 1}
    merged = {k: v for k, v in group_to_labels.items() if len(v) > 1}
    assert not split, f"one template, several groups: {split}"
    assert not merged, f"several templates, one group: {merged}"


def test_chinese_encodings_decode_to_the_right_text(crawl: Crawl) -> None:
    checked = 0
    for site, path, page in _pages(crawl, "stored"):
        row = crawl.rows[crawl.url(site, path)]
        html = zlib.decompress(row["html_zlib"]).decode("utf-8")
        assert page["phrase"] in html, (path, row["encoding"])
        assert page["title"] in row["title"], (path, row["title"])
        if page.get("encoding", "utf-8") != "utf-8":
            checked += 1
    assert checked >= 5  # the GBK / GB18030 / Big5 pages with every kind of declaration


def test_feed_items_carry_the_fields_and_no_html(crawl: Crawl) -> None:
    assert crawl.feed
    by_url = {item["url"]: item for item in crawl.feed}
    for site, path, page in _pages(crawl, "stored"):
        item = by_url[crawl.url(site, path)]
        for key in ("url", "final_url", "status", "url_group", "title"):
            assert item.get(key) is not None, (path, key)
        assert page["title"] in item["title"]
        assert "html" not in item
        # how sure the page type is, as stored (a probability)
        assert 0.0 <= item["confidence"] <= 1.0 and item["method"].startswith("auto"), path
    assert all(item["outcome"] == "ok" for item in crawl.feed)


def test_bad_site_list_lines_are_reported_and_the_rest_runs(crawl: Crawl) -> None:
    n = crawl.first_bad_line
    assert f"sites.txt:{n}:" in crawl.log and f"sites.txt:{n + 1}:" in crawl.log
    assert "max_pages" in crawl.log
    assert "finished (finished)" in crawl.log  # the summary line
    assert "progress:" in crawl.log and "fetched" in crawl.log  # the periodic line


def test_crawl_delay_from_robots_is_honoured(crawl: Crawl) -> None:
    # robots.txt asks for a 0.2 s Crawl-delay; the crawl ran with Scrapy's own
    # delay at 0. Each site's requests are spaced by at least half of it
    # (the downloader's jitter is +-50%).
    requests = max(len(crawl.web.requested_paths(site)) for site in SITES)
    assert crawl.seconds >= (requests - 2) * 0.2 * 0.5


@pytest.mark.parametrize(("option", "check"), [("max_pages=25", "pages"), ("depth=1", "depth")])
def test_per_site_page_and_depth_caps_hold(tmp_path: Path, option: str, check: str) -> None:
    """A site line's caps bound the crawl of a 300-page site (sitemap off, so
    links are the only way in and depth means link hops)."""
    db = tmp_path / "caps.db"
    with DemoWeb((), synthetic_pages=300) as web:
        sites = tmp_path / "sites.txt"
        sites.write_text(f"{web.urls['synthetic']} {option}\n")
        proc = subprocess.run(
            [sys.executable, "-m", "crawler.cli", "crawl", str(sites), "--db", f"sqlite:///{db}",
             "-s", "DOWNLOAD_DELAY=0", "-s", "AUTOTHROTTLE_ENABLED=False",
             "-s", "SITESIFT_FOLLOW_SITEMAPS=False", "-s", "SITESIFT_SCREENSHOTS=none"],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        fetched = [p for p in web.requested_paths("synthetic") if p != "/robots.txt"]
    assert proc.returncode == 0, proc.stderr[-3000:]
    with sqlite3.connect(db) as conn:
        rows = conn.execute("select depth from pages").fetchall()
    if check == "pages":
        assert len(rows) == len(fetched) == 25
    else:
        assert rows and max(depth for (depth,) in rows) == 1
        assert len(rows) == len(fetched) < 300
