"""Serve the demo web over real HTTP on 127.0.0.1, one port per site.

Each site gets its own ``ThreadingHTTPServer`` (so each is its own host:port,
i.e. its own site for a crawler), bound to port 0 unless fixed ports are asked
for. Static sites are served from ``demo/web/<site>/`` with the per-path
headers and status of ``_headers.json``; ``{{BASE}}`` (this site's base URL)
and ``{{SITE:<name>}}`` (another demo site's) are substituted in text files,
because ports are known only at serve time. Every request is recorded in
``DemoWeb.requests`` so tests can assert what a crawler fetched.

    python -m demo.server [--sites en,zh] [--synthetic N] [--write-sites PATH] [--port-base P]
"""

from __future__ import annotations

import argparse
import json
import logging
import mimetypes
import signal
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from urllib.parse import unquote, urlsplit

from demo.synthetic import SyntheticParams, SyntheticSite

logger = logging.getLogger(__name__)

WEB_ROOT = Path(__file__).resolve().parent / "web"
HOST = "127.0.0.1"
SYNTHETIC = "synthetic"
# Content types by extension; .html deliberately without a charset parameter,
# so that pages are decoded from their <meta> or their bytes unless
# _headers.json says otherwise.
CONTENT_TYPES = {
    ".html": "text/html",
    ".xml": "application/xml",
    ".txt": "text/plain",
    ".css": "text/css",
    ".pdf": "application/pdf",
    ".png": "image/png",
    ".json": "application/json",
}
# How often serve_forever checks for shutdown: stop() waits up to this long per site.
_POLL_SECONDS = 0.05
_SUBSTITUTED = (".html", ".xml", ".txt")
_NOT_FOUND = b"<!DOCTYPE html><title>404 Not Found</title><h1>Not Found</h1>\n"

Response = tuple[int, dict[str, str], bytes]


class StaticSite:
    """Resolves request paths to the files of one generated site."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        headers_file = self.root / "_headers.json"
        self.overrides: dict[str, dict[str, object]] = (
            json.loads(headers_file.read_text("utf-8")) if headers_file.exists() else {}
        )
        self.substitutions: dict[bytes, bytes] = {}

    def respond(self, raw_path: str) -> Response:
        path = unquote(urlsplit(raw_path).path) or "/"
        target = self._resolve(path)
        if target is None:
            return 404, {"Content-Type": "text/html"}, _NOT_FOUND
        if target.is_dir():  # a directory URL without its slash: redirect like real servers
            return 301, {"Location": path + "/"}, b""
        body = target.read_bytes()
        if target.suffix in _SUBSTITUTED and b"{{" in body:
            for placeholder, value in self.substitutions.items():
                body = body.replace(placeholder, value)
        content_type = CONTENT_TYPES.get(target.suffix) or (
            mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        )
        headers = {"Content-Type": content_type}
        status = 200
        for key, value in self.overrides.get(path, {}).items():
            if key == "status":
                status = int(str(value))
            else:
                headers[key] = str(value)
        return status, headers, body

    def _resolve(self, path: str) -> Path | None:
        """The file for a URL path, or None; hidden (``_``-prefixed) files never leak."""
        parts = [p for p in path.split("/") if p]
        if any(p.startswith(("_", ".")) for p in parts):
            return None
        target = self.root.joinpath(*parts)
        if path.endswith("/"):
            target = target / "index.html"
        try:
            target.resolve().relative_to(self.root)
        except ValueError:
            return None
        if target.is_dir():
            return target if (target / "index.html").is_file() else None
        return target if target.is_file() else None


class SyntheticApp:
    """Adapts the synthetic site's generator to the server's response shape."""

    def __init__(self, pages: int) -> None:
        self.site = SyntheticSite(SyntheticParams(pages=pages))

    def respond(self, raw_path: str) -> Response:
        status, content_type, body = self.site.respond(urlsplit(raw_path).path or "/")
        return status, {"Content-Type": content_type}, body


def _handler_for(
    site: str, app: StaticSite | SyntheticApp, record: Callable[[str, str], None], verbose: bool
) -> type[BaseHTTPRequestHandler]:
    """A request handler class bound to one site."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as crawlers expect
        server_version = "sitesift-demo/1.0"
        timeout = 30  # drop idle keep-alive connections
        # Headers and body go out in separate writes; with Nagle's algorithm the
        # body waits for the client's delayed ACK (~40 ms a response, 22 pages/s).
        disable_nagle_algorithm = True

        def do_GET(self) -> None:  # noqa: N802 - http.server naming
            self._serve(send_body=True)

        def do_HEAD(self) -> None:  # noqa: N802
            self._serve(send_body=False)

        def _serve(self, send_body: bool) -> None:
            record(site, self.path)
            try:
                status, headers, body = app.respond(self.path)
            except Exception:  # a bug in the demo must not hang the crawler
                logger.exception("demo site %s failed on %s", site, self.path)
                status, headers, body = 500, {"Content-Type": "text/plain"}, b"error\n"
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if send_body:
                self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            if verbose:
                super().log_message(format, *args)

    return Handler


class DemoWeb:
    """The demo sites (and optionally the synthetic one), each on its own port.

    Use as a context manager, or call ``start()`` and ``stop()``.
    """

    def __init__(
        self,
        sites: tuple[str, ...] | list[str] = ("en", "zh"),
        *,
        synthetic_pages: int = 0,
        root: Path = WEB_ROOT,
        port_base: int | None = None,
        verbose: bool = False,
    ) -> None:
        self.site_names = list(sites) + ([SYNTHETIC] if synthetic_pages else [])
        self.synthetic_pages = synthetic_pages
        self.root = root
        self.port_base = port_base
        self.verbose = verbose
        self.urls: dict[str, str] = {}
        self.requests: list[tuple[str, str]] = []
        self._lock = threading.Lock()
        self._servers: list[ThreadingHTTPServer] = []
        self._threads: list[threading.Thread] = []

    def _record(self, site: str, path: str) -> None:
        with self._lock:
            self.requests.append((site, path))

    def requested_paths(self, site: str) -> list[str]:
        """Request targets (path and query) received by one site, in order."""
        with self._lock:
            return [path for name, path in self.requests if name == site]

    def start(self) -> DemoWeb:
        """Bind every site, then substitute base URLs, then serve in daemon threads."""
        if self._servers:
            return self
        apps: dict[str, StaticSite | SyntheticApp] = {}
        for offset, name in enumerate(self.site_names):
            if name == SYNTHETIC:
                app: StaticSite | SyntheticApp = SyntheticApp(self.synthetic_pages)
            else:
                site_dir = self.root / name
                if not site_dir.is_dir():
                    self.stop()
                    raise FileNotFoundError(f"no demo site {name!r} under {self.root}")
                app = StaticSite(site_dir)
            port = 0 if self.port_base is None else self.port_base + offset
            handler = _handler_for(name, app, self._record, self.verbose)
            server = ThreadingHTTPServer((HOST, port), handler)
            server.daemon_threads = True
            self._servers.append(server)
            self.urls[name] = f"http://{HOST}:{server.server_address[1]}/"
            apps[name] = app
        for name, app in apps.items():
            if isinstance(app, StaticSite):
                app.substitutions = self._substitutions(name)
        for name, server in zip(self.site_names, self._servers, strict=True):
            thread = threading.Thread(
                target=server.serve_forever,
                kwargs={"poll_interval": _POLL_SECONDS},
                name=f"demo-{name}",
                daemon=True,
            )
            thread.start()
            self._threads.append(thread)
        logger.info("demo web serving %s", ", ".join(f"{k}={v}" for k, v in self.urls.items()))
        return self

    def _substitutions(self, name: str) -> dict[bytes, bytes]:
        subs = {b"{{BASE}}": self.urls[name].encode()}
        for other in ("en", "zh", SYNTHETIC):
            # A site not served here becomes an unresolvable host, never a wrong port.
            url = self.urls.get(other, f"http://{other}.demo.invalid/")
            subs[f"{{{{SITE:{other}}}}}".encode()] = url.encode()
        return subs

    def stop(self) -> None:
        """Stop serving and close the listening sockets."""
        for server in self._servers:
            server.shutdown()
            server.server_close()
        for thread in self._threads:
            thread.join(timeout=5)
        self._servers.clear()
        self._threads.clear()

    def __enter__(self) -> DemoWeb:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def write_site_list(self, path: str | Path, options: str = "") -> Path:
        """Write a site list for ``sitesift crawl``: one base URL (and options) a line."""
        target = Path(path)
        lines = ["# demo web, written by demo.server"]
        lines += [f"{url} {options}".rstrip() for url in self.urls.values()]
        target.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return target


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Serve the sitesift demo web on 127.0.0.1.")
    parser.add_argument("--sites", default="en,zh", help="comma-separated static sites")
    parser.add_argument("--synthetic", type=int, default=0, metavar="N", help="add N pages")
    parser.add_argument("--write-sites", type=Path, metavar="PATH", help="write a site list")
    parser.add_argument("--port-base", type=int, metavar="P", help="fixed ports P, P+1, ...")
    parser.add_argument("--verbose", action="store_true", help="log every request")
    args = parser.parse_args(argv)
    sites = tuple(s.strip() for s in args.sites.split(",") if s.strip())
    web = DemoWeb(
        sites, synthetic_pages=args.synthetic, port_base=args.port_base, verbose=args.verbose
    )
    signal.signal(signal.SIGTERM, _interrupt)  # `kill` stops it as cleanly as Ctrl-C
    with web:
        for name, url in web.urls.items():
            print(f"{name}\t{url}", flush=True)
        if args.write_sites:
            web.write_site_list(args.write_sites)
            print(f"site list written to {args.write_sites}", flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            print("stopped", flush=True)


if __name__ == "__main__":
    main()
