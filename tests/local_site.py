"""A tiny web server on 127.0.0.1 for crawl tests whose pages are computed
(a page that costs seconds to extract, a site that logs request times)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@contextmanager
def serving(
    page: Callable[[str], str | tuple[str, bytes] | tuple[int, str] | None],
    host: str = "127.0.0.1",
) -> Iterator[str]:
    """Serve ``page(path)``: a str as UTF-8 HTML, a ``(content type, bytes)``
    pair exactly as given, a ``(3xx status, location)`` pair as a redirect,
    None as a 404; yields the site's base URL."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            body = page(self.path)
            if body is None:
                self.send_error(404)
                return
            if isinstance(body, tuple) and isinstance(body[0], int):
                self.send_response(body[0])
                self.send_header("Location", str(body[1]))
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            ctype, data = (
                ("text/html; charset=utf-8", body.encode()) if isinstance(body, str) else body
            )
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer((host, 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://{host}:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
