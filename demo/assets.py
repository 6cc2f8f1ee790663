"""Non-HTML files of the demo web: robots.txt, sitemaps, feeds, a PDF, a PNG, CSS.

Absolute URLs are written with the ``{{BASE}}`` placeholder (base URL with a
trailing slash), which the server replaces once it knows its port.
"""

from __future__ import annotations

import struct
import zlib
from datetime import datetime
from email.utils import format_datetime
from xml.sax.saxutils import escape

BASE = "{{BASE}}"


def robots_txt(site_name: str) -> str:
    """Robots rules: a disallowed area, a small crawl delay, the sitemap index."""
    return (
        f"# robots.txt for {site_name}\n"
        "User-agent: *\n"
        "Disallow: /private/\n"
        "Disallow: /search\n"
        "Crawl-delay: 0.2\n"
        "\n"
        f"Sitemap: {BASE}sitemap.xml\n"
    )


def sitemap_index(children: list[tuple[str, str]]) -> str:
    """A sitemap index pointing to nested sitemaps: (path, lastmod) pairs."""
    items = "".join(
        f"<sitemap><loc>{BASE}{path.lstrip('/')}</loc><lastmod>{lastmod}</lastmod></sitemap>\n"
        for path, lastmod in children
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        f"{items}</sitemapindex>\n"
    )


def urlset(urls: list[tuple[str, str]]) -> str:
    """A sitemap listing pages: (path, lastmod) pairs."""
    items = "".join(
        f"<url><loc>{BASE}{escape(path.lstrip('/'))}</loc><lastmod>{lastmod}</lastmod></url>\n"
        for path, lastmod in urls
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        f"{items}</urlset>\n"
    )


def sitemap_files(sections: tuple[str, ...], articles: dict[str, str]) -> dict[str, bytes]:
    """Nested sitemaps: one per section (article path -> lastmod), one of static pages."""
    files, children = {}, []
    for section in sections:
        urls = sorted((p, d) for p, d in articles.items() if p.startswith(f"/{section}/"))
        files[f"sitemaps/{section}.xml"] = urlset(urls).encode()
        children.append((f"/sitemaps/{section}.xml", max(d for _, d in urls)))
    static = [("/", "2024-06-30"), ("/about.html", "2024-01-15")]
    static += [(f"/{s}/", "2024-06-30") for s in sections]
    files["sitemaps/pages.xml"] = urlset(static).encode()
    children.append(("/sitemaps/pages.xml", "2024-06-30"))
    files["sitemap.xml"] = sitemap_index(children).encode()
    return files


def feed(
    feed_type: str,
    title: str,
    description: str,
    lang: str,
    items: list[dict[str, str]],
    offset: str,
) -> str:
    """RSS 2.0 or Atom, by the MIME type the home page announces."""
    if feed_type == "application/rss+xml":
        return rss(title, description, lang, items, offset)
    return atom(title, items, offset)


def _parse(published: str, offset: str) -> datetime:
    return datetime.fromisoformat(published.replace(" ", "T") + ":00" + offset)


def rss(title: str, description: str, lang: str, items: list[dict[str, str]], offset: str) -> str:
    """An RSS 2.0 feed; items carry title, path, published, summary, author."""
    entries = "".join(
        "<item>"
        f"<title>{escape(i['title'])}</title>"
        f"<link>{BASE}{i['path'].lstrip('/')}</link>"
        f'<guid isPermaLink="true">{BASE}{i["path"].lstrip("/")}</guid>'
        f"<pubDate>{format_datetime(_parse(i['published'], offset))}</pubDate>"
        f"<author>{escape(i['author'])}</author>"
        f"<description>{escape(i['summary'])}</description>"
        "</item>\n"
        for i in items
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0">\n<channel>\n'
        f"<title>{escape(title)}</title>\n<link>{BASE}</link>\n"
        f"<description>{escape(description)}</description>\n<language>{lang}</language>\n"
        f"{entries}</channel>\n</rss>\n"
    )


def atom(title: str, items: list[dict[str, str]], offset: str) -> str:
    """An Atom 1.0 feed; items carry title, path, published, summary, author."""

    def stamp(published: str) -> str:
        return _parse(published, offset).isoformat()

    entries = "".join(
        "<entry>"
        f"<title>{escape(i['title'])}</title>"
        f'<link rel="alternate" href="{BASE}{i["path"].lstrip("/")}"/>'
        f"<id>{BASE}{i['path'].lstrip('/')}</id>"
        f"<updated>{stamp(i['published'])}</updated>"
        f"<author><name>{escape(i['author'])}</name></author>"
        f"<summary>{escape(i['summary'])}</summary>"
        "</entry>\n"
        for i in items
    )
    updated = stamp(max(i["published"] for i in items))
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">\n'
        f"<title>{escape(title)}</title>\n<id>{BASE}</id>\n"
        f'<link rel="alternate" href="{BASE}"/>\n<link rel="self" href="{BASE}atom.xml"/>\n'
        f"<updated>{updated}</updated>\n{entries}</feed>\n"
    )


def tiny_pdf(text: str) -> bytes:
    """A one-page PDF with a line of ASCII text and a correct xref table."""
    safe = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    stream = f"BT /F1 18 Tf 72 720 Td ({safe}) Tj ET".encode("ascii")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def tiny_png(width: int = 16, height: int = 12) -> bytes:
    """A small RGB bar chart as a valid PNG (deterministic bytes)."""
    rows = bytearray()
    for y in range(height):
        rows.append(0)  # filter: none
        for x in range(width):
            bar = (x // 4 + 1) * height // 5
            filled = height - y <= bar
            rows += bytes((40, 90, 160) if filled else (245, 245, 240))

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(bytes(rows), 9))
        + chunk(b"IEND", b"")
    )


SITE_CSS = """body { font-family: Georgia, serif; margin: 0; color: #222; }
.site-header { border-bottom: 3px solid #222; padding: 8px 24px; }
.main-nav ul { list-style: none; display: flex; gap: 16px; padding: 0; }
.container { display: flex; gap: 32px; padding: 0 24px; }
main { flex: 3; } .sidebar { flex: 1; font-size: 90%; }
.headline { font-size: 2em; } .byline, .info { color: #666; }
.share-bar a { margin-right: 8px; } .related, .comments { border-top: 1px solid #ccc; }
.site-footer { background: #222; color: #eee; padding: 16px 24px; }
"""
