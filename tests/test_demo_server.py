"""The demo web and its local server: what they promise the integration tests."""

from __future__ import annotations

import http.client
import json
import re
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from demo.build_web import WEB_ROOT, build
from demo.server import DemoWeb

HREF = re.compile(r'href="([^"]+)"')


@pytest.fixture(scope="module")
def web() -> Iterator[DemoWeb]:
    with DemoWeb(synthetic_pages=40) as demo:
        yield demo


def expected(site: str) -> dict:
    return json.loads((WEB_ROOT / site / "_expected.json").read_text("utf-8"))


def fetch(url: str, method: str = "GET") -> tuple[int, http.client.HTTPMessage, bytes]:
    """Status, headers and body, without following redirects."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=5)
    try:
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        conn.request(method, target)
        response = conn.getresponse()
        return response.status, response.headers, response.read()
    finally:
        conn.close()


# -- headers and encodings -------------------------------------------------


def test_gbk_page_gets_its_charset_header(web: DemoWeb) -> None:
    headers_file = json.loads((WEB_ROOT / "zh" / "_headers.json").read_text("utf-8"))
    gbk = [p for p, h in headers_file.items() if h["Content-Type"] == "text/html; charset=gbk"]
    assert len(gbk) == 1
    status, headers, body = fetch(web.urls["zh"] + gbk[0].lstrip("/"))
    assert status == 200
    assert headers["Content-Type"] == "text/html; charset=gbk"
    page = expected("zh")["pages"][gbk[0]]
    assert page["phrase"] in body.decode("gbk")
    with pytest.raises(UnicodeDecodeError):
        body.decode("utf-8")


def test_big5_page_with_wrong_header_is_served_as_declared(web: DemoWeb) -> None:
    headers_file = json.loads((WEB_ROOT / "zh" / "_headers.json").read_text("utf-8"))
    wrong = [p for p, h in headers_file.items() if h["Content-Type"].endswith("iso-8859-1")]
    assert len(wrong) == 1
    status, headers, body = fetch(web.urls["zh"] + wrong[0].lstrip("/"))
    assert headers["Content-Type"] == "text/html; charset=iso-8859-1"
    assert expected("zh")["pages"][wrong[0]]["encoding"] == "big5"
    assert expected("zh")["pages"][wrong[0]]["phrase"] in body.decode("big5")
    assert b"charset" not in body[:600].lower()  # no <meta> to rescue the decoder


def test_plain_html_has_no_charset_parameter(web: DemoWeb) -> None:
    status, headers, body = fetch(web.urls["en"])
    assert status == 200
    assert headers["Content-Type"] == "text/html"
    assert b'<meta charset="utf-8">' in body


def test_every_encoding_case_decodes_to_its_phrase(web: DemoWeb) -> None:
    cases = {
        path: page
        for path, page in expected("zh")["pages"].items()
        if page.get("encoding") not in (None, "utf-8")
    }
    assert {page["encoding"] for page in cases.values()} == {"gbk", "gb18030", "big5"}
    assert len(cases) == 6
    for path, page in cases.items():
        _, _, body = fetch(web.urls["zh"] + path.lstrip("/"))
        assert page["phrase"] in body.decode(page["encoding"]), path


# -- substitution, errors, methods -----------------------------------------


def test_base_is_substituted_in_robots_sitemaps_and_feeds(web: DemoWeb) -> None:
    base = web.urls["en"]
    _, _, robots = fetch(base + "robots.txt")
    text = robots.decode()
    assert f"Sitemap: {base}sitemap.xml" in text
    assert "Disallow: /private/" in text and "Crawl-delay: 0.2" in text
    for path in ("sitemap.xml", "sitemaps/news.xml", "feed.xml"):
        _, _, body = fetch(base + path)
        assert b"{{" not in body
        assert base.encode() in body
    _, headers, _ = fetch(web.urls["zh"] + "atom.xml")
    assert headers["Content-Type"].startswith("application/atom+xml")


def test_cross_link_points_to_the_other_served_site(web: DemoWeb) -> None:
    _, _, body = fetch(web.urls["zh"])
    assert f'href="{web.urls["en"]}"'.encode() in body
    assert b"{{" not in body


def test_missing_hidden_and_escaping_paths_are_404(web: DemoWeb) -> None:
    base = web.urls["en"]
    for path in ("archive/2019/", "nope.html", "_expected.json", "_headers.json", "%2e%2e/x"):
        status, _, _ = fetch(base + path)
        assert status == 404, path


def test_directory_without_slash_redirects(web: DemoWeb) -> None:
    status, headers, _ = fetch(web.urls["en"] + "news")
    assert status == 301
    assert headers["Location"] == "/news/"


def test_head_sends_headers_without_body(web: DemoWeb) -> None:
    _, _, full = fetch(web.urls["en"] + "files/annual-report-2023.pdf")
    status, headers, body = fetch(web.urls["en"] + "files/annual-report-2023.pdf", "HEAD")
    assert status == 200 and body == b""
    assert headers["Content-Type"] == "application/pdf"
    assert int(headers["Content-Length"]) == len(full)
    assert full.startswith(b"%PDF-1.4") and full.rstrip().endswith(b"%%EOF")


def test_query_is_ignored_for_files(web: DemoWeb) -> None:
    aliases = expected("en")["aliases"]
    with_utm = next(a for a in aliases if "utm_source" in a)
    _, _, a = fetch(web.urls["en"] + with_utm.lstrip("/"))
    _, _, b = fetch(web.urls["en"] + aliases[with_utm].lstrip("/"))
    assert a == b and len(a) > 1000


def test_request_log_records_site_and_target(web: DemoWeb) -> None:
    urllib.request.urlopen(web.urls["zh"] + "about.html?probe=1").read()
    fetch(web.urls["en"] + "about.html", "HEAD")
    assert ("zh", "/about.html?probe=1") in web.requests
    assert "/about.html" in web.requested_paths("en")
    assert all(not p.startswith("/private/") for _, p in web.requests)


def test_stop_closes_the_ports() -> None:
    demo = DemoWeb(("en",)).start()
    url = demo.urls["en"]
    assert urllib.request.urlopen(url).status == 200
    demo.stop()
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(url, timeout=2)


def test_write_site_list(web: DemoWeb, tmp_path: Path) -> None:
    listing = web.write_site_list(tmp_path / "sites.txt", options="max_pages=50")
    lines = [x for x in listing.read_text().splitlines() if not x.startswith("#")]
    assert lines == [f"{url} max_pages=50" for url in web.urls.values()]
    assert len(lines) == 3


# -- the synthetic site ------------------------------------------------------


def test_synthetic_pages_link_to_each_other(web: DemoWeb) -> None:
    base = web.urls["synthetic"]
    seen, queue, articles, sizes = set(), ["/"], set(), []
    while queue:
        path = queue.pop()
        if path in seen:
            continue
        seen.add(path)
        status, headers, body = fetch(base + path.lstrip("/"))
        assert status == 200, path
        if path.endswith(".html"):
            articles.add(path)
            sizes.append(len(body))
        for href in HREF.findall(body.decode()):
            if href.startswith("/") and not href.startswith("/static/"):
                queue.append(href)
    assert len(articles) == 40
    assert min(sizes) > 7_000 and max(sizes) < 20_000
    _, _, robots = fetch(base + "robots.txt")
    assert b"Disallow" not in robots and b"Crawl-delay" not in robots


def test_synthetic_is_deterministic_and_404s_outside_its_range(web: DemoWeb) -> None:
    base = web.urls["synthetic"]
    first = fetch(base + "news/0.html")[2]
    assert fetch(base + "news/0.html")[2] == first
    other = DemoWeb((), synthetic_pages=40).start()
    try:
        assert fetch(other.urls["synthetic"] + "news/0.html")[2] == first
    finally:
        other.stop()
    for path in ("news/40.html", "news/1.html", "news/page/1/", "news/page/99/"):
        assert fetch(base + path)[0] == 404, path


# -- the generated files -------------------------------------------------------


def test_build_matches_committed_files(tmp_path: Path) -> None:
    build(tmp_path)
    fresh = {p.relative_to(tmp_path): p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    committed = {
        p.relative_to(WEB_ROOT): p.read_bytes()
        for site in ("en", "zh")
        for p in (WEB_ROOT / site).rglob("*")
        if p.is_file()
    }
    assert sorted(fresh) == sorted(committed), "run: python -m demo.build_web"
    stale = [str(p) for p in fresh if fresh[p] != committed[p]]
    assert not stale, f"stale generated files: {stale}; run: python -m demo.build_web"


@pytest.mark.parametrize("site", ["en", "zh"])
def test_hidden_articles_are_linked_from_nowhere(site: str) -> None:
    truth = expected(site)
    pages, root = truth["pages"], WEB_ROOT / site
    hrefs = [h for p in root.rglob("*.html") for h in HREF.findall(p.read_text("utf-8", "replace"))]
    links = {href.split("?")[0].split("#")[0] for href in hrefs}
    feed_path = next(p for p, kind in truth["resources"].items() if kind == "feed")
    feeds = (root / feed_path.lstrip("/")).read_text("utf-8")
    sitemaps = "".join(p.read_text("utf-8") for p in (root / "sitemaps").glob("*.xml"))
    via = {p: page["found_via"] for p, page in pages.items()}
    assert "feed" in via.values() and "sitemap" in via.values()
    for path, how in via.items():
        if how == "feed":
            assert path not in links and path.lstrip("/") in feeds
            assert path.lstrip("/") not in sitemaps
        elif how == "sitemap":
            assert path not in links and path.lstrip("/") in sitemaps
            assert path.lstrip("/") not in feeds
        elif how == "link":
            assert path in links, path


@pytest.mark.parametrize("site", ["en", "zh"])
def test_ground_truth_is_complete(site: str) -> None:
    truth = expected(site)
    pages = truth["pages"]
    kinds = {page["kind"] for page in pages.values()}
    assert kinds == {"home", "list", "article", "blocked", "other"}
    outcomes = {page["expect"] for page in pages.values()}
    assert outcomes == {"stored", "never_fetched", "skipped", "http_error", "blocked"}
    blocked = [p for p, page in pages.items() if page["kind"] == "blocked"]
    assert len(blocked) == 1
    section = blocked[0].split("/")[1]
    assert pages[blocked[0]]["group"] == f"{site}-{section}-article"
    for page in pages.values():
        if page["kind"] == "article":
            assert page["phrase"] in page["body"]
            assert 1 <= len(page["body"].splitlines()) <= 12
    home = (WEB_ROOT / site / "index.html").read_text("utf-8")
    for alias in truth["aliases"]:
        assert alias.replace("&", "&amp;") in home
    assert "http://out-of-scope.invalid/" in home and "mailto:" in home and "javascript:" in home
