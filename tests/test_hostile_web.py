"""Crawl the hostile web (tests/hostile_web.py) as users run sitesift: the crawl
finishes in bounded time and memory, every good page is stored with its text,
every bad one is recorded with a clear reason, traps stay small, and nothing
that is not a link is ever requested.

One crawl serves most tests; a second one checks the private-address guard
with loopback marked as forbidden. Traffic goes to 127.0.0.1 only.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.hostile_web import (
    BUSY_FAILURES,
    CASES,
    CRAWL_LIMIT_SECONDS,
    GROUP_CAP,
    HostileCrawl,
    HostileWeb,
    run_crawl,
)

MEMORY_LIMIT_MIB = 1024  # a leak detector, not a target (figures: docs/reliability.md)


@pytest.fixture(scope="module")
def crawl(tmp_path_factory: pytest.TempPathFactory) -> HostileCrawl:
    with HostileWeb() as web:
        yield run_crawl(web, tmp_path_factory.mktemp("hostile"))


def test_the_crawl_finishes_in_bounded_time_and_memory(crawl: HostileCrawl) -> None:
    assert crawl.returncode == 0, crawl.log[-3000:]
    assert crawl.seconds < CRAWL_LIMIT_SECONDS
    assert crawl.max_rss_mib < MEMORY_LIMIT_MIB
    assert "Traceback" not in crawl.log, crawl.log[-3000:]


@pytest.mark.parametrize("path", list(CASES))
def test_each_case_is_stored_or_recorded_with_its_reason(crawl: HostileCrawl, path: str) -> None:
    case, row = CASES[path], crawl.row(path)
    assert row is not None, f"{path} has no record"
    assert row["outcome"] == case.outcome, (row["outcome"], row["reason"])
    if case.text:
        html = zlib.decompress(row["html_zlib"]).decode("utf-8")
        assert case.text in html
    if case.reason:
        assert case.reason.lower() in (row["reason"] or "").lower(), row["reason"]


@pytest.mark.parametrize(
    "path", [p for p, case in CASES.items() if case.text and p.startswith(("/enc/", "/articles/"))]
)
def test_articles_keep_their_text_whatever_the_encoding(crawl: HostileCrawl, path: str) -> None:
    """The cleaned text holds the page's sentence (a duplicate's is its original's)."""
    article = crawl.articles[crawl.web.url("main", path)]
    if article["duplicate_of"]:
        article = crawl.articles[article["duplicate_of"]]
    assert CASES[path].text in article["text"]


def test_garbage_robots_txt_does_not_stop_a_site(crawl: HostileCrawl) -> None:
    for path in ("/", "/a.html", "/b.html"):
        row = crawl.row(path, site="garbage")
        assert row is not None and row["outcome"] == "ok", path


def test_retry_after_is_waited_for_and_absurd_ones_are_not(crawl: HostileCrawl) -> None:
    times = crawl.web.times[("main", "/busy.html")]
    assert len(times) == BUSY_FAILURES + 1
    assert all(b - a >= 0.9 for a, b in zip(times, times[1:], strict=False)), times
    assert crawl.web.count("main", "/down.html") == 1  # Retry-After: 3600 is not retried


def test_redirect_hops_are_bounded_and_each_fetched_once(crawl: HostileCrawl) -> None:
    hops = [path for (site, path) in crawl.web.hits if path.startswith("/redirect/chain/")]
    assert len(hops) == 11  # the first request and REDIRECT_MAX_TIMES (10) hops
    assert crawl.web.count("main", "/redirect/loop-a") == 1


def test_oversized_headers_are_not_retried(crawl: HostileCrawl) -> None:
    """The server would send the same 20,000-character header again."""
    assert crawl.web.count("main", "/huge-header.html") == 1


def test_offsite_redirect_targets_are_never_contacted(crawl: HostileCrawl) -> None:
    """/redirect/offsite points at a dead host: had the crawler tried it, its
    row would say "connection refused" and its robots.txt fetch a traceback."""
    assert "127.0.0.2" not in crawl.log
    assert crawl.web.count("main", "/redirect/offsite") == 1


def test_traps_are_cut_short(crawl: HostileCrawl) -> None:
    urls = list(crawl.rows)
    days = [u for u in urls if "/calendar/" in u and u.count("/") == 7]
    months = [u for u in urls if "/calendar/" in u and u.count("/") == 6]
    fetched = sum(1 for (_, path) in crawl.web.hits if path.startswith("/calendar/"))
    assert fetched <= 2 * GROUP_CAP
    assert len([u for u in days if crawl.rows[u]["outcome"] == "ok"]) <= GROUP_CAP
    assert len([u for u in months if crawl.rows[u]["outcome"] == "ok"]) <= GROUP_CAP
    trapped = [row for row in crawl.rows.values() if "crawler trap" in (row["reason"] or "")]
    assert any("URL pattern" in row["reason"] for row in trapped)
    assert any("repeated" in row["reason"] for row in trapped)  # /loop/loop/loop/
    assert max(path.count("loop") for (_, path) in crawl.web.hits) <= 2
    # A fresh session id per visit does not make new pages.
    sessions = {path.split("?")[0] for (_, path) in crawl.web.hits if path.startswith("/session")}
    assert len(sessions) == 6  # /session/ and its five items
    assert sum(n for (_, path), n in crawl.web.hits.items() if "sid=" in path) <= 6


def test_links_that_are_not_links_are_never_requested(crawl: HostileCrawl) -> None:
    requested = {path for (_, path) in crawl.web.hits}
    for bad in ("javascript", "mailto", "data:", "tel:", "elsewhere", "file.txt", "%5C"):
        assert not [p for p in requested if bad in p], bad
    # The tricks that resolve to real pages fetched them once, under one URL.
    assert crawl.web.count("main", "/articles/1.html") == 1
    assert crawl.web.count("main", "/articles/2.html") == 1
    assert not [url for url in crawl.rows if "#" in url or "/../" in url or "/./" in url]


def test_robots_disallowed_page_is_never_fetched(crawl: HostileCrawl) -> None:
    assert crawl.web.count("main", "/private/secret.html") == 0


def test_private_address_guard_refuses_loopback(tmp_path: Path) -> None:
    """With SITESIFT_DENY_PRIVATE on, the loopback sites are refused before
    any connection: the server sees no request, and each start URL is
    recorded as skipped with the address in its reason."""
    with HostileWeb() as web:
        result = run_crawl(web, tmp_path, "-s", "SITESIFT_DENY_PRIVATE=True")
        hits = sum(web.hits.values())
    assert result.returncode == 0, result.log[-3000:]
    assert hits == 0
    for site in ("main", "garbage"):
        row = result.row("/", site)
        assert row is not None and row["outcome"] == "skipped"
        assert "forbidden destination" in row["reason"] and "loopback" in row["reason"]


def test_private_address_guard_checks_the_address_the_connection_uses(tmp_path: Path) -> None:
    """DNS rebinding: a host that resolves to a public address for the guard
    and to a private one for the connection. Here the guard middleware is
    switched off, so only the crawl's resolver stands between the request and
    a loopback server reached by name: it refuses, nothing is fetched, and
    the page is recorded as skipped, with the address in its reason."""
    import sqlite3
    import subprocess
    import sys

    from tests.local_site import serving

    hits: list[str] = []

    def page(path: str) -> str:
        hits.append(path)
        return "<html><body><p>private</p></body></html>"

    with serving(page) as base:
        sites = tmp_path / "sites.txt"
        sites.write_text(base.replace("127.0.0.1", "localhost") + "\n")
        db = tmp_path / "crawl.db"
        no_guard = '{"crawler.middlewares.destinations.DestinationGuard": null}'
        done = subprocess.run(
            [sys.executable, "-m", "crawler.cli", "crawl", str(sites), "--db", f"sqlite:///{db}",
             "-s", "SITESIFT_DENY_PRIVATE=True", "-s", f"DOWNLOADER_MIDDLEWARES={no_guard}",
             "-s", "SITESIFT_SCREENSHOTS=none", "-s", "RETRY_ENABLED=False"],
            capture_output=True, text=True, timeout=120, cwd=tmp_path,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert hits == []
    conn = sqlite3.connect(db)
    rows = conn.execute("SELECT outcome, reason FROM pages").fetchall()
    conn.close()
    assert rows and {outcome for outcome, _ in rows} == {"skipped"}, rows
    for _, reason in rows:
        assert "resolved to 127.0.0.1 (loopback) when connecting" in reason, reason


def _photographed_crawl(tmp_path: Path, base: str, *settings: str) -> tuple[str, Callable]:
    """Crawl the site at ``base`` with every page photographed: the log and a
    lookup of a stored page's columns by its path."""
    import sqlite3
    import subprocess
    import sys

    sites, db = tmp_path / "sites.txt", tmp_path / "crawl.db"
    sites.write_text(f"{base} screenshots=all\n")
    done = subprocess.run(
        [sys.executable, "-m", "crawler.cli", "crawl", str(sites), "--db", f"sqlite:///{db}",
         "-s", f"SITESIFT_SCREENSHOT_DIR={tmp_path / 'shots'}", "-s", "RETRY_ENABLED=False",
         "-s", "SITESIFT_FOLLOW_SITEMAPS=False", "-s", "SITESIFT_CRAWL_DELAY_CAP=0",
         *(arg for setting in settings for arg in ("-s", setting))],
        capture_output=True, text=True, timeout=180, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]

    def row(path: str, columns: str = "outcome, reason, screenshot") -> tuple | None:
        with sqlite3.connect(db) as conn:
            query = f"SELECT {columns} FROM pages WHERE url = ?"
            return conn.execute(query, (base + path,)).fetchone()

    return done.stderr, row


@pytest.mark.parametrize("guarded", [True, False])
def test_the_browser_does_not_reach_a_forbidden_address(tmp_path: Path, guarded: bool) -> None:
    """With SITESIFT_DENY_PRIVATE on, the browser that takes screenshots goes
    only where a crawl request may: a page's image on a forbidden address, an
    image redirected there and a page redirected there are never fetched (an
    image redirected on the site is). The page's own host is allowed
    (SITESIFT_ALLOW_NETWORKS), a second loopback address is not. Unguarded,
    the browser fetches both (the control run)."""
    from tests.local_site import serving

    forbidden: list[str] = []
    asked: list[str] = []  # the site's paths requested, by Scrapy or the browser

    def inner(path: str) -> str:
        forbidden.append(path)
        return "<html><body><p>an internal page</p></body></html>"

    with serving(inner, host="127.0.0.2") as inner_base:

        def site(path: str) -> str | tuple[int, str] | None:
            asked.append(path)
            if path == "/":
                images = f'<img src="{inner_base}x.png"><img src="/pic"><img src="/logo">'
                links = '<a href="/moved">1</a><a href="/in">2</a>'
                return f"<html><body><h1>Home</h1><p>Text.</p>{images}{links}</body></html>"
            if path == "/moved":
                return 302, f"{inner_base}moved-here"
            if path == "/pic":  # an image redirected to the forbidden address
                return 302, f"{inner_base}via-redirect.png"
            if path == "/logo":  # an image redirected on the site: followed
                return 302, "/logo.png"
            if path == "/in":  # a redirect the guard lets through: the browser follows it
                return 301, "/landing"
            if path == "/landing":
                return "<html><body><h1>Landing</h1><p>Arrived.</p></body></html>"
            return None

        with serving(site) as base:
            log, row = _photographed_crawl(tmp_path, base, f"SITESIFT_DENY_PRIVATE={guarded}",
                                           "SITESIFT_ALLOW_NETWORKS=127.0.0.1")  # fmt: skip
    # Photographed all the same, the allowed redirect followed.
    for path in ("", "in"):
        outcome, _, shot = row(path)
        assert outcome == "ok" and shot, (path, log[-3000:])
    assert "/logo.png" in asked, log[-3000:]  # only the browser asks for images
    if guarded:
        assert forbidden == [], log[-3000:]
        assert "browser request for http://127.0.0.2" in log
    else:
        assert {"/x.png", "/moved-here", "/via-redirect.png"} <= set(forbidden)


def test_the_guarded_browser_does_not_follow_a_redirect_off_the_site(tmp_path: Path) -> None:
    """With SITESIFT_DENY_PRIVATE on, a photographed page that redirects to
    another site (an allowed address): the browser does not follow it (the
    live target gets no request) and the page is recorded as offsite, as a
    plain fetch records it."""
    from tests.local_site import serving

    reached: list[str] = []

    def other(path: str) -> str:
        reached.append(path)
        return "<html><body><p>another site</p></body></html>"

    with serving(other, host="127.0.0.2") as other_base:

        def site(path: str) -> str | tuple[int, str] | None:
            if path == "/":
                return "<html><body><h1>Home</h1><p>Text.</p><a href='/away'>away</a></body></html>"
            return (302, f"{other_base}landing") if path == "/away" else None

        with serving(site) as base:
            log, row = _photographed_crawl(tmp_path, base, "SITESIFT_DENY_PRIVATE=True",
                                           "SITESIFT_ALLOW_NETWORKS=127.0.0.0/8")  # fmt: skip
    home, away = row(""), row("away")
    assert home[0] == "ok" and home[2], home
    assert away[0] == "offsite" and away[1] == f"redirected out of scope to {other_base}landing"
    assert reached == [], log[-3000:]
