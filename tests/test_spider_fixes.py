"""Three crawl bugs, each checked by a real `sitesift crawl` of a local site
into SQLite: two start URLs of one host, the page cap on a site with a feed,
and a stray NUL byte in an HTML page."""

from __future__ import annotations

import random
import sqlite3
import struct
import subprocess
import sys
import zlib
from collections import Counter
from pathlib import Path

from crawler.sitelist import SiteOptions, merge_by_host, parse_site_list
from tests.local_site import serving

QUIET = ["-s", "AUTOTHROTTLE_ENABLED=False", "-s", "DOWNLOAD_DELAY=0",
         "-s", "SITESIFT_SCREENSHOTS=none", "-s", "SITESIFT_FOLLOW_SITEMAPS=False"]  # fmt: skip


def _html(title: str, body: str, head: str = "") -> str:
    head = f"<head><title>{title}</title>{head}</head>"
    return f"<html>{head}<body><h1>{title}</h1>{body}</body></html>"


def _links(paths: list[str]) -> str:
    return "".join(f'<a href="{path}">{path}</a> ' for path in paths)


def _crawl(tmp: Path, site_list: str, *args: str) -> tuple[dict[str, sqlite3.Row], str]:
    """Crawl ``site_list`` into a fresh SQLite file: its pages rows by URL and the log."""
    sites, db = tmp / "sites.txt", tmp / "crawl.db"
    sites.write_text(site_list)
    done = subprocess.run(
        [sys.executable, "-m", "crawler.cli", "crawl", str(sites), "--db", f"sqlite:///{db}",
         *QUIET, *args],
        capture_output=True, text=True, timeout=120, cwd=tmp,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        rows = {row["url"]: row for row in conn.execute("SELECT * FROM pages")}
    return rows, done.stderr


# -- 1. several start URLs of one host ------------------------------------------------


def _sections_site(path: str) -> str | None:
    """/news/ and /science/ link to each other's pages and to /sports/ and /about.html."""
    outside = ["/sports/", "/sports/1.html", "/about.html"]
    if path in ("/news/", "/science/"):
        section = path.strip("/")
        return _html(section, _links([f"/{section}/{n}.html" for n in (1, 2)] + outside))
    if path.startswith(("/news/", "/science/", "/sports/")) or path == "/about.html":
        return _html(path, _links(["/news/1.html", "/science/2.html", *outside]))
    return None


def test_two_start_urls_of_one_host_crawl_both_sections(tmp_path: Path) -> None:
    with serving(_sections_site) as base:
        rows, log = _crawl(tmp_path, f"{base}news/\n{base}science/ depth=5\n")
    stored = {url.removeprefix(base.rstrip("/")) for url, row in rows.items()}
    assert stored == {"/news/", "/news/1.html", "/news/2.html",
                      "/science/", "/science/1.html", "/science/2.html"}  # fmt: skip
    assert {row["outcome"] for row in rows.values()} == {"ok"}
    # The second line's own depth is not used, and the log says so.
    assert "sites.txt:2:" in log and "depth=5 ignored" in log


def test_lines_of_one_host_merge_into_one_site() -> None:
    text = ("http://h.example/a/ max_pages=3\nhttp://h.example/b/x.html max_pages=3 delay=2\n"
            "http://h.example/a/deeper/\nhttp://other.example/\n")  # fmt: skip
    specs, errors = parse_site_list(text, "sites.txt")
    sites, warnings = merge_by_host(specs, "sites.txt")
    assert errors == [] and [s.host for s in sites] == ["h.example", "other.example"]
    site = sites[0]
    assert site.start_urls == ("http://h.example/a/", "http://h.example/b/x.html",
                               "http://h.example/a/deeper/")  # fmt: skip
    assert site.path_prefixes == ("/a/", "/b/")
    assert site.options == SiteOptions(max_pages=3)
    assert site.in_scope("http://h.example/b/y.html") and not site.in_scope("http://h.example/c/")
    assert warnings == [
        "sites.txt:2: h.example is also on line 1, whose options the site uses:"
        " delay=2.0 ignored, the crawl's setting used"
    ]
    whole, _ = merge_by_host(parse_site_list("http://h.example/a/\nhttp://h.example/\n")[0])
    assert whole[0].path_prefixes == ("/",)
    # www.h and h are one site (one scope, one page cap), spelt as first given.
    www, _ = merge_by_host(parse_site_list("http://www.h.example/a/\nhttps://h.example/b/\n")[0])
    assert [(s.host, s.path_prefixes) for s in www] == [("www.h.example", ("/a/", "/b/"))]
    assert www[0].on_host("https://h.example/feed.xml") and www[0].in_scope("http://h.example/b/1")


# -- 2. the page cap on a site with a feed ------------------------------------------------


def test_the_page_cap_counts_pages_not_the_feed(tmp_path: Path) -> None:
    requested: list[str] = []
    feed_head = '<link rel="alternate" type="application/rss+xml" href="/feed.xml">'

    def site(path: str) -> str | None:
        requested.append(path)
        if path == "/feed.xml":
            items = "".join(f"<item><link>/p/{n}.html</link></item>" for n in range(20, 30))
            return f'<?xml version="1.0"?><rss><channel>{items}</channel></rss>'
        if path == "/" or path.startswith("/p/"):
            links = _links([f"/p/{n}.html" for n in range(1, 20)])
            return _html(f"Page {path}", links, head=feed_head)
        return None

    with serving(site) as base:
        rows, _ = _crawl(tmp_path, f"{base}\n", "--max-pages", "5")
    assert len(rows) == 5 and {row["outcome"] for row in rows.values()} == {"ok"}
    assert requested.count("/feed.xml") == 1
    assert not [path for path, n in Counter(requested).items() if n > 1 and path != "/robots.txt"]


def test_a_site_lines_own_cap_wins_over_the_flag_and_the_log_says_so(tmp_path: Path) -> None:
    def site(path: str) -> str | tuple[str, bytes] | None:
        if path == "/p/0.html":
            return "text/html", b" \n"  # a page with nothing in it
        if path == "/p/1.html":  # its body is not fetched: the type says enough
            return "application/pdf", b"%PDF-1.4\n" + b"0" * 50_000
        return _html(path, _links([f"/p/{n}.html" for n in range(20)]))

    with serving(site) as base:
        rows, log = _crawl(tmp_path, f"{base} max_pages=5\n", "--max-pages", "3", "--depth", "4")
    host = base.split("//")[1].rstrip("/")
    assert len(rows) == 5
    empty = rows[f"{base}p/0.html"]
    assert (empty["outcome"], empty["reason"]) == ("skipped", "empty response (no content)")
    pdf = rows[f"{base}p/1.html"]
    assert (pdf["outcome"], pdf["reason"]) == ("skipped", "not HTML (application/pdf)")
    assert f"--max-pages 3 does not apply to the sites whose line sets max_pages: {host} (5)" in log
    assert "--depth 4 does not apply" not in log  # no site line sets its own depth
    assert "links not followed: 0 beyond the depth limit, " in log  # (over the cap: links seen)


def test_a_redirected_page_counts_once_against_the_cap(tmp_path: Path) -> None:
    def site(path: str) -> str | tuple[int, str] | None:
        # A chain: each moved page links the next, so the cap is checked
        # after the redirects before it were followed.
        if path == "/":
            return _html("Home", _links(["/old/1.html"]))
        if path.startswith("/old/"):
            return 301, path.replace("/old/", "/new/")
        if path.startswith("/new/"):
            n = int(path.removeprefix("/new/").removesuffix(".html"))
            return _html(f"Page {n}", _links([f"/old/{n + 1}.html"]))
        return None

    with serving(site) as base:
        rows, _ = _crawl(tmp_path, f"{base}\n", "--max-pages", "5")
    # Each moved page is one page (its URL and its target), not two.
    assert len(rows) == 5 and {row["outcome"] for row in rows.values()} == {"ok"}
    assert sum(1 for row in rows.values() if "/new/" in (row["final_url"] or "")) == 4


def test_a_redirect_to_a_page_the_crawl_has_does_not_fetch_it_again(tmp_path: Path) -> None:
    """The home page links /a.html and /redir (302 to /a.html), /c.html and
    /refresh (a meta refresh to /c.html), and /moved (301 to /new.html, linked
    by nothing else until /new.html itself is read): every page is fetched
    once; a redirect to a page the crawl has is recorded as such."""
    requested: list[str] = []

    def site(path: str) -> str | tuple[int, str] | None:
        requested.append(path)
        refresh = '<meta http-equiv="refresh" content="0; url=/c.html">'
        pages = {
            "/": _html("Home", _links(["/a.html", "/redir", "/c.html", "/refresh", "/moved"])),
            "/refresh": _html("Moved", "", head=refresh),
            "/new.html": _html("New", _links(["/a.html", "/new.html"])),
        }
        if path in ("/a.html", "/c.html"):
            return _html(path, "<p>Harbour news.</p>")
        return {"/redir": (302, "/a.html"), "/moved": (301, "/new.html")}.get(path) or pages.get(
            path
        )

    with serving(site) as base:
        rows, _ = _crawl(tmp_path, f"{base} depth=3\n")
    fetched = Counter(requested)
    assert all(fetched[p] == 1 for p in ("/a.html", "/c.html", "/new.html", "/redir")), fetched
    for asked, target in (("/redir", "/a.html"), ("/refresh", "/c.html")):
        row = rows[base.rstrip("/") + asked]
        assert row["outcome"] == "skipped", dict(row)
        assert (
            row["reason"] == f"redirects to {base.rstrip('/')}{target}, a page fetched on its own"
        )
    moved = rows[f"{base}moved"]
    assert moved["outcome"] == "ok" and moved["final_url"] == f"{base}new.html"
    assert f"{base}new.html" not in rows  # one page: its first URL and its target


# -- 3. a stray NUL byte is not binary content --------------------------------------------


def _png() -> bytes:
    """A real 1x1 PNG image."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    chunks = chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    return b"\x89PNG\r\n\x1a\n" + chunks


NUL_TEXT = "The harbour board voted to dredge the channel before the autumn storms."
BINARY_PAGES: dict[str, bytes] = {
    "/random.html": random.Random(7).randbytes(4096),
    "/image.html": _png(),
    "/report.html": b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n" * 20,
}


def test_a_stray_nul_keeps_the_page_and_binary_is_still_skipped(tmp_path: Path) -> None:
    html = "text/html; charset=utf-8"
    page = _html("Harbour", f"<p>{NUL_TEXT}</p>" * 3).replace("</h1>", "</h1>\x00")
    routes = {path: ("text/html", body) for path, body in BINARY_PAGES.items()}
    routes["/"] = (html, _html("Home", _links(["/nul.html", *BINARY_PAGES])).encode())
    routes["/nul.html"] = (html, page.encode())
    with serving(routes.get) as base:
        rows, _ = _crawl(tmp_path, f"{base}\n")
    row = rows[base + "nul.html"]
    assert row["outcome"] == "ok", row["reason"]
    assert NUL_TEXT in zlib.decompress(row["html_zlib"]).decode("utf-8")
    for path in BINARY_PAGES:
        row = rows[base + path.lstrip("/")]
        assert (row["outcome"], row["reason"]) == ("skipped", "binary content served as HTML")
