"""Failures that look alike, told apart: a crawl of a small local server whose
responses Twisted's HTTP client refuses or that redirect off the site, and
what the pages table records for each.

A header line over the client's 16 KiB limit is not a dropped connection: it
is recorded as oversized headers and not retried, while a server that hangs up
halfway through its headers still reads as a dropped connection and is
retried. A page redirecting off its site is recorded as offsite, with the
target in its reason, and the target is never contacted.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

RETRY_TIMES = 2  # the crawl's default: a retried failure is requested three times
LONG = 20_000  # characters in one header: over Twisted's 16 KiB line limit
DEAD_HOST = "http://127.0.0.2:9/"

PATHS = ["/etag", "/content-type", "/many-headers", "/drop-in-headers", "/offsite-dead",
         "/offsite-live"]  # fmt: skip


class _Handler(BaseHTTPRequestHandler):
    """The site's pages; ``server.hits`` counts requests, ``server.other`` is
    the off-site server's base URL."""

    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802
        self.server.hits[self.path] += 1
        body = f"<html><head><title>{self.path}</title></head><body><p>A page.</p></body></html>"
        headers: list[tuple[str, str]] = []
        if self.path == "/":
            body = "".join(f'<a href="{path}">{path}</a> ' for path in PATHS)
        elif self.path == "/etag":
            headers.append(("ETag", '"' + "e" * LONG + '"'))
        elif self.path == "/content-type":
            headers.append(("Content-Type", "text/html; charset=utf-8; x=" + "x" * LONG))
        elif self.path == "/many-headers":  # 40 KB of headers, no line over the limit
            headers.extend((f"X-Filler-{i}", "f" * 1000) for i in range(40))
        elif self.path == "/drop-in-headers":
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-Cut: abc")
            self.close_connection = True
            return
        elif self.path == "/offsite-dead":
            return self._redirect(DEAD_HOST)
        elif self.path == "/offsite-live":
            return self._redirect(self.server.other + "target.html")
        elif self.path != "/target.html":
            return self.send_error(404)
        self._send(body.encode(), headers)

    def _send(self, body: bytes, headers: list[tuple[str, str]]) -> None:
        self.send_response(200)
        if not any(name == "Content-Type" for name, _ in headers):
            self.send_header("Content-Type", "text/html; charset=utf-8")
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _redirect(self, location: str) -> None:
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, other: str = "") -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.hits: Counter[str] = Counter()
        self.other = other
        self.connections = 0

    def process_request(self, request: object, client_address: object) -> None:
        self.connections += 1
        super().process_request(request, client_address)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/"


@dataclass
class Crawl:
    rows: dict[str, sqlite3.Row]
    site: _Server
    offsite: _Server
    log: str


@pytest.fixture(scope="module")
def crawl(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Crawl]:
    tmp = tmp_path_factory.mktemp("failures")
    offsite = _Server()
    site = _Server(other=offsite.url)
    for server in (site, offsite):
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        sites, db = tmp / "sites.txt", tmp / "crawl.db"
        sites.write_text(site.url + "\n")
        settings = {"SITESIFT_SCREENSHOTS": "none", "AUTOTHROTTLE_ENABLED": "False",
                    "DOWNLOAD_DELAY": "0", "DOWNLOAD_TIMEOUT": "5",
                    "RETRY_TIMES": str(RETRY_TIMES), "SITESIFT_PROGRESS_INTERVAL": "0"}  # fmt: skip
        args = [arg for pair in settings.items() for arg in ("-s", "=".join(pair))]
        done = subprocess.run(
            [sys.executable, "-m", "crawler.cli", "crawl", str(sites), "--db", f"sqlite:///{db}",
             *args], capture_output=True, text=True, timeout=120, cwd=tmp,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
        conn = sqlite3.connect(db)
        conn.row_factory = sqlite3.Row
        rows = {row["url"].removeprefix(site.url[:-1]): row for row in conn.execute(
            "SELECT * FROM pages")}  # fmt: skip
        conn.close()
        yield Crawl(rows, site, offsite, done.stdout + done.stderr)
    finally:
        for server in (site, offsite):
            server.shutdown()
            server.server_close()


@pytest.mark.parametrize("path", ["/etag", "/content-type"])
def test_an_oversized_header_is_recorded_as_such_and_not_retried(crawl: Crawl, path: str) -> None:
    row = crawl.rows[path]
    assert row["outcome"] == "failed"
    assert row["reason"] == (
        "response headers too long (a header line over 16384 bytes): "
        "the server sent an oversized header"
    )
    assert crawl.site.hits[path] == 1


def test_many_headers_under_the_line_limit_are_a_page(crawl: Crawl) -> None:
    assert crawl.rows["/many-headers"]["outcome"] == "ok"


def test_a_connection_dropped_within_the_headers_is_still_a_dropped_connection(
    crawl: Crawl,
) -> None:
    row = crawl.rows["/drop-in-headers"]
    assert row["outcome"] == "failed"
    assert row["reason"].startswith("connection dropped before the response was complete")
    assert crawl.site.hits["/drop-in-headers"] == RETRY_TIMES + 1


@pytest.mark.parametrize(
    ("path", "target"), [("/offsite-dead", DEAD_HOST), ("/offsite-live", "target.html")]
)
def test_a_redirect_off_the_site_is_offsite_and_not_followed(
    crawl: Crawl, path: str, target: str
) -> None:
    row = crawl.rows[path]
    assert row["outcome"] == "offsite", row["reason"]
    assert row["reason"].startswith("redirected out of scope to ")
    assert row["reason"].endswith(target)
    assert crawl.site.hits[path] == 1


def test_the_offsite_targets_are_never_contacted(crawl: Crawl) -> None:
    assert crawl.offsite.hits == Counter()  # not the page, not its robots.txt
    assert "127.0.0.2" not in crawl.log
    assert "Traceback" not in crawl.log, crawl.log[-3000:]


def test_an_https_url_on_a_plain_http_server_is_a_tls_failure(tmp_path) -> None:
    """The TLS handshake meets plain HTTP ("wrong version number"): recorded
    as such, with a hint, not as a connection dropped mid-response, and not
    retried (the server would answer the same)."""
    server = _Server()
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        https = server.url.replace("http://", "https://")
        (tmp_path / "sites.txt").write_text(https + "\n")
        done = subprocess.run(
            [sys.executable, "-m", "crawler.cli", "crawl", "sites.txt", "--db", "sqlite:///c.db",
             "-s", "SITESIFT_SCREENSHOTS=none", "-s", "SITESIFT_PROGRESS_INTERVAL=0"],
            capture_output=True, text=True, timeout=120, cwd=tmp_path,
        )  # fmt: skip
        assert done.returncode == 1, done.stderr[-3000:]  # its one site failed
        with sqlite3.connect(tmp_path / "c.db") as conn:
            rows = conn.execute("SELECT url, outcome, reason FROM pages").fetchall()
    finally:
        server.shutdown()
        server.server_close()
    assert rows == [(https, "failed", "TLS handshake failed (wrong version number): "
                     "does the site serve https at this address?")]  # fmt: skip
    # robots.txt (read once by the spider and shared with Scrapy's robots
    # middleware, which made it 4 when it fetched it again) and the page, each
    # tried once, not retried: 3 connections; retried, it made 12.
    assert server.connections == 3
