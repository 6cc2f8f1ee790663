"""Generate the static demo web under ``demo/web/<site>/``.

Deterministic: no clocks, no randomness, sorted JSON, so that running it twice
gives identical files and a test can compare a fresh build with the committed
one. Besides the pages, each site gets ``_headers.json`` (per-path response
headers and status, read by ``demo.server``) and ``_expected.json`` (the ground
truth that integration tests assert). Usage: ``python -m demo.build_web [--out DIR]``.
"""

from __future__ import annotations

import argparse
import json
import shutil
from dataclasses import replace
from html import escape
from pathlib import Path
from typing import Any

from demo import assets
from demo.content import ENCODINGS, Article, Encoding, Visibility
from demo.sites import SITES, SiteSpec
from demo.templates import (
    OUT_OF_SCOPE,
    ListEntry,
    Locale,
    article_main,
    challenge_page,
    comments_html,
    format_date,
    list_main,
    page,
    page_url,
    snippet,
)

WEB_ROOT = Path(__file__).resolve().parent / "web"
MISSING_PATH = "/archive/2019/"
PDF_PATH = "/files/annual-report-2023.pdf"
PNG_PATH = "/images/rainfall-chart.png"
PRIVATE_PATHS = ("/private/", "/private/drafts.html")
UTM = "?utm_source=x&utm_medium=y"


def file_for(path: str) -> str:
    """The file (relative to the site root) that serves a URL path."""
    rel = path.lstrip("/")
    return rel + "index.html" if rel == "" or rel.endswith("/") else rel


class SiteBuilder:
    """Renders one site into files, response headers and ground truth."""

    def __init__(self, spec: SiteSpec) -> None:
        self.spec = spec
        self.files: dict[str, bytes] = {}
        self.headers: dict[str, dict[str, Any]] = {}
        self.pages: dict[str, dict[str, Any]] = {}
        self.lastmod: dict[str, str] = {}  # sitemap dates of article URLs
        self.aliases: dict[str, str] = {}
        ordered = sorted(spec.articles, key=lambda a: a.published, reverse=True)
        self.articles = ordered
        self.listed = [a for a in ordered if a.visibility is Visibility.LISTED]

    # -- helpers ---------------------------------------------------------

    def path_of(self, article: Article) -> str:
        return self.spec.article_path(article.section, article.key, article.published)

    def loc_for(self, article: Article) -> Locale:
        loc = self.spec.loc
        if article.traditional and self.spec.loc_traditional:
            loc = self.spec.loc_traditional
        if article.section in self.spec.cn_date_sections:
            loc = replace(loc, date_style="zh-cn")
        return loc

    def sidebar(self, traditional: bool = False) -> list[tuple[str, str]]:
        """'Most read': listed articles in the page's script (legacy codecs lack the other)."""
        same = [a for a in self.listed if a.traditional == traditional]
        ranked = sorted(same, key=lambda a: (len(a.title), a.key))[:5]
        return [(self.path_of(a), a.title) for a in ranked]

    def html(self, path: str, text: str, codec: str = "utf-8") -> None:
        self.files[file_for(path)] = text.encode(codec)

    def expect(self, path: str, **fields: Any) -> None:
        self.pages[path] = fields

    def list_date(self, published: str) -> str:
        if self.spec.loc.date_style == "en":
            return format_date(published, "en")
        return published.split(" ")[0]

    def page(self, title: str, main: str, **kwargs: Any) -> str:
        loc = kwargs.pop("loc", self.spec.loc)
        feed = (self.spec.feed_path, self.spec.feed_type)
        return page(loc, title=title, main=main, feed=feed, **kwargs)

    # -- pages -----------------------------------------------------------

    def build(self) -> None:
        for article in self.articles:
            self.article_page(article)
        self.blocked_page()
        for section in self.spec.loc.sections:
            self.list_pages(section)
        self.home_page()
        self.about_page()
        self.private_pages()
        self.special_files()

    def article_page(self, article: Article) -> None:
        spec, path = self.spec, self.path_of(article)
        loc = self.loc_for(article)
        codec, meta, content_type = ENCODINGS[article.encoding]
        peers = [
            a
            for a in self.listed
            if a.section == article.section and a.traditional == article.traditional
        ]
        related = [(self.path_of(a), a.title) for a in peers if a is not article][:3]
        index = self.articles.index(article)
        comments = comments_html(loc, spec.comments, index) if article.comments else ""
        main = article_main(
            loc, article, path=path, related=related, comments=comments, offset=spec.offset
        )
        title = f"{article.title} - {loc.site_name}"
        text = self.page(
            title,
            main,
            loc=loc,
            sidebar=self.sidebar(article.traditional),
            charset=meta,
            description=snippet(article.lead, 120),
            body_class="article",
        )
        self.html(path, text, codec)
        self.lastmod[path] = article.published[:10]
        if article.encoding is not Encoding.UTF8:
            self.headers[path] = {"Content-Type": content_type, "status": 200}
        self.expect(
            path,
            kind="article",
            group=f"{spec.name}-{article.section}-article",
            title=article.title,
            phrase=phrase_of(article.lead, spec.name),
            found_via=article.visibility.value,
            expect="stored",
            encoding=codec,
            published=article.published.replace(" ", "T") + ":00" + spec.offset,
            author=article.author,
            body="\n".join(article.paragraphs),
        )

    def blocked_page(self) -> None:
        spec, blocked = self.spec, self.spec.blocked
        path = spec.article_path(blocked.section, blocked.key, blocked.published)
        note = f"Ray ID: 8f2c{len(blocked.key):02d}a91d"
        self.lastmod[path] = blocked.published[:10]
        self.html(path, challenge_page(spec.loc.lang, blocked.page_title, blocked.message, note))
        self.expect(
            path,
            kind="blocked",
            group=f"{spec.name}-{blocked.section}-article",
            title=blocked.page_title,
            phrase=blocked.message,
            found_via="link",
            expect="blocked",
            encoding="utf-8",
        )

    def section_entries(self, section: str) -> list[ListEntry]:
        limit = 160 if self.spec.name == "en" else 60
        entries = [
            (a.published, ListEntry(self.path_of(a), a.title, "", snippet(a.lead, limit)))
            for a in self.listed
            if a.section == section
        ]
        blocked = self.spec.blocked
        if blocked.section == section:
            path = self.spec.article_path(section, blocked.key, blocked.published)
            entries.append((blocked.published, ListEntry(path, blocked.title, "", blocked.teaser)))
        entries.sort(key=lambda pair: pair[0], reverse=True)
        return [
            ListEntry(e.url, e.title, self.list_date(published), e.snippet)
            for published, e in entries
        ]

    def list_pages(self, section: str) -> None:
        spec, loc = self.spec, self.spec.loc
        entries = self.section_entries(section)
        size = spec.page_size
        pages = (len(entries) + size - 1) // size
        for number in range(1, pages + 1):
            chunk = entries[(number - 1) * size : number * size]
            path = page_url(section, number)
            label = loc.sections[section]
            title = f"{label} - {loc.site_name}" + (f" ({number})" if number > 1 else "")
            main = list_main(loc, section, chunk, number, pages)
            self.html(path, self.page(title, main, sidebar=self.sidebar(), body_class="list"))
            self.expect(
                path,
                kind="list",
                group=f"{spec.name}-{section}-list",  # one template for every page of the list
                title=label,
                phrase=chunk[0].title,
                found_via="link",
                expect="stored",
                encoding="utf-8",
                items=[e.url for e in chunk],
            )

    def home_page(self) -> None:
        spec, loc, res = self.spec, self.spec.loc, self.spec.resources
        plain = [a for a in self.listed if a.encoding is Encoding.UTF8]
        lead = next(a for a in plain if a.comments)
        pick = next(a for a in plain if a is not lead)
        blocks = [
            f'<section class="lead-story"><h2><a href="{self.path_of(lead)}">{esc(lead.title)}'
            f'</a></h2><p>{esc(snippet(lead.lead, 200))}</p><a class="more" '
            f'href="{self.path_of(lead)}#comments">{esc(res["join"])}</a></section>'
        ]
        for section, label in loc.sections.items():
            items = "".join(
                f'<li><a href="{self.path_of(a)}">{esc(a.title)}</a> '
                f'<span class="date">{self.list_date(a.published)}</span></li>'
                for a in [a for a in self.listed if a.section == section][:3]
            )
            blocks.append(
                f'<section class="section-block"><h2><a href="/{section}/">{esc(label)}</a>'
                f"</h2><ul>{items}</ul></section>"
            )
        pick_url = self.path_of(pick) + UTM.replace("&", "&amp;")
        blocks.append(
            f'<section class="editors-pick"><h3>{esc(res["pick"])}</h3>'
            f'<a href="{pick_url}">{esc(pick.title)}</a></section>'
        )
        links = [
            (PDF_PATH, res["pdf"]),
            (PNG_PATH, res["png"]),
            (MISSING_PATH, res["missing"]),
            (PRIVATE_PATHS[0], res["private"]),
            (PRIVATE_PATHS[1], res["private_doc"]),
            (OUT_OF_SCOPE, res["out"]),
            (f"{{{{SITE:{spec.other_site}}}}}", res["other"]),
            ("mailto:tips@example.invalid", res["mailto"]),
            ("javascript:void(0)", res["js"]),
        ]
        items = "".join(f'<li><a href="{url}">{esc(text)}</a></li>' for url, text in links)
        blocks.append(f'<section class="resources"><ul>{items}</ul></section>')
        main = "\n".join(blocks)
        self.html("/", self.page(loc.site_name, main, sidebar=self.sidebar(), body_class="home"))
        self.expect(
            "/",
            kind="home",
            group=f"{spec.name}-home",
            title=loc.site_name,
            phrase=loc.tagline,
            found_via="start",
            expect="stored",
            encoding="utf-8",
        )
        self.aliases = {
            self.path_of(pick) + UTM: self.path_of(pick),
            self.path_of(lead) + "#comments": self.path_of(lead),
        }

    def about_page(self) -> None:
        spec, loc = self.spec, self.spec.loc
        main = f"<h1>{esc(loc.about)}</h1>" + "".join(f"<p>{esc(p)}</p>" for p in spec.about)
        self.html("/about.html", self.page(loc.about, main, sidebar=self.sidebar()))
        self.expect(
            "/about.html",
            kind="other",
            group=f"{spec.name}-about",
            title=loc.about,
            phrase=phrase_of(spec.about[0], spec.name),
            found_via="link",
            expect="stored",
            encoding="utf-8",
        )

    def private_pages(self) -> None:
        spec, loc = self.spec, self.spec.loc
        for path in PRIVATE_PATHS:
            main = f"<h1>{esc(loc.site_name)}</h1><p>{esc(spec.private_text)}</p>"
            self.html(path, self.page(loc.site_name, main, sidebar=[]))
            self.expect(
                path,
                kind="other",
                group=f"{spec.name}-private",
                title=loc.site_name,
                phrase=spec.private_text,
                found_via="link",
                expect="never_fetched",
            )

    def special_files(self) -> None:
        spec = self.spec
        self.files[file_for(PDF_PATH)] = assets.tiny_pdf(f"{spec.name} demo annual report 2023")
        self.files[file_for(PNG_PATH)] = assets.tiny_png()
        self.files["static/site.css"] = assets.SITE_CSS.encode()
        for path, expect in ((PDF_PATH, "skipped"), (PNG_PATH, "skipped")):
            group = f"{spec.name}-{path.split('/')[1]}"
            self.expect(path, kind="other", group=group, found_via="link", expect=expect)
        self.expect(
            MISSING_PATH,
            kind="other",
            group=f"{spec.name}-archive",
            found_via="link",
            expect="http_error",
        )
        self.files["robots.txt"] = assets.robots_txt(spec.loc.site_name).encode()
        self.sitemaps()
        self.feed()

    def sitemaps(self) -> None:
        dated = {p: d for p, d in self.lastmod.items() if self.pages[p]["found_via"] != "feed"}
        self.files.update(assets.sitemap_files(tuple(self.spec.loc.sections), dated))

    def feed(self) -> None:
        spec, loc = self.spec, self.spec.loc
        items = [
            {
                "title": a.title,
                "path": self.path_of(a),
                "published": a.published,
                "summary": a.lead,
                "author": a.author,
            }
            for a in self.articles
            if a.visibility is not Visibility.SITEMAP_ONLY
        ]
        text = assets.feed(spec.feed_type, loc.site_name, loc.tagline, loc.lang, items, spec.offset)
        self.files[spec.feed_path.lstrip("/")] = text.encode()
        content_type = f"{spec.feed_type}; charset=utf-8"
        self.headers[spec.feed_path] = {"Content-Type": content_type, "status": 200}

    def expected(self) -> dict[str, Any]:
        spec = self.spec
        return {
            "site": spec.name,
            "pages": self.pages,
            "aliases": self.aliases,
            "external": {OUT_OF_SCOPE: "never_fetched", f"{{{{SITE:{spec.other_site}}}}}": "other"},
            "resources": {
                "/robots.txt": "robots",
                "/sitemap.xml": "sitemap_index",
                **{f"/sitemaps/{s}.xml": "sitemap" for s in spec.loc.sections},
                "/sitemaps/pages.xml": "sitemap",
                spec.feed_path: "feed",
                "/static/site.css": "stylesheet",
            },
        }


def esc(text: str) -> str:
    return escape(text, quote=False)


def phrase_of(text: str, site: str) -> str:
    """A distinctive piece of a paragraph that must appear in the decoded page."""
    if site == "en":
        return " ".join(text.split()[:8])
    return text[:14]


def render_site(spec: SiteSpec) -> dict[str, bytes]:
    """All files of one site, keyed by path relative to the site root."""
    builder = SiteBuilder(spec)
    builder.build()
    files = dict(builder.files)
    files["_headers.json"] = dump_json(builder.headers)
    files["_expected.json"] = dump_json(builder.expected())
    return files


def dump_json(data: Any) -> bytes:
    return (json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n").encode()


def build(out_root: Path = WEB_ROOT, sites: tuple[str, ...] = ("en", "zh")) -> list[Path]:
    """Write the sites under ``out_root``, replacing what was there; return the files."""
    written = []
    for name in sites:
        site_dir = out_root / name
        if site_dir.exists():
            shutil.rmtree(site_dir)
        for rel, data in sorted(render_site(SITES[name]).items()):
            target = site_dir / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            written.append(target)
    return written


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=WEB_ROOT, help="output directory")
    args = parser.parse_args(argv)
    files = build(args.out)
    print(f"wrote {len(files)} files under {args.out}")


if __name__ == "__main__":
    main()
