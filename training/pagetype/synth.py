"""Generated pages for training: varied list layouts and, in the same page
chrome, articles.

Real list pages are scarce, so list pages are generated from real headlines
and snippets: headline lists, lists with snippets, card grids, tables,
thumbnail lists, portal blocks, search results and forum thread tables,
with or without sidebars, styled or plain (the real test pages are rendered
offline, so their stylesheets are missing; plain variants look like that).
Articles are generated in the very same chrome, so that the chrome itself
(header, menus, sidebars, footer) carries no label and the network must look
at the main content.
"""

from __future__ import annotations

import html
import random
from dataclasses import dataclass

LIST_LAYOUTS = ("headlines", "snippets", "cards", "table", "thumbs", "portal", "search", "forum")

_FONTS = ("Arial, sans-serif", "Georgia, serif", "'WenQuanYi Zen Hei', sans-serif", "Verdana")
_ACCENTS = ("#c00", "#036", "#0a5", "#333", "#1a73e8", "#8b0000", "#444", "#d35400")


@dataclass
class Pool:
    """Real text to fill pages with, per language."""

    titles: dict[str, list[str]]
    snippets: dict[str, list[str]]


class PageMaker:
    def __init__(self, pool: Pool, seed: int) -> None:
        self.pool = pool
        self.rng = random.Random(seed)

    # -- text ----------------------------------------------------------------

    def title(self, lang: str) -> str:
        return html.escape(self.rng.choice(self.pool.titles[lang]))

    def snippet(self, lang: str) -> str:
        return html.escape(self.rng.choice(self.pool.snippets[lang]))

    def date(self) -> str:
        r = self.rng
        return f"20{r.randint(10, 26)}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}"

    def words(self, lang: str, n: int) -> list[str]:
        return [self.title(lang)[: self.rng.randint(2, 6)] for _ in range(n)]

    # -- chrome ------------------------------------------------------------------

    def header(self, lang: str) -> str:
        r = self.rng
        nav = "".join(f"<a href='#'>{w}</a> " for w in self.words(lang, r.randint(4, 14)))
        logo = self.title(lang)[: r.randint(4, 12)]
        top = ""
        if r.random() < 0.5:
            top = "<div class='top'>" + " | ".join(self.words(lang, r.randint(3, 8))) + "</div>"
        return (
            f"{top}<div class='hd'><h2 class='logo'>{logo}</h2><div class='nav'>{nav}</div></div>"
        )

    def sidebar(self, lang: str) -> str:
        r = self.rng
        boxes = []
        for _ in range(r.randint(1, 4)):
            kind = r.random()
            if kind < 0.6:
                items = "".join(
                    f"<li><a href='#'>{self.title(lang)}</a></li>" for _ in range(r.randint(4, 10))
                )
                boxes.append(
                    f"<div class='box'><h4>{self.title(lang)[:8]}</h4><ul>{items}</ul></div>"
                )
            elif kind < 0.8:
                boxes.append("<div class='ad'></div>")
            else:
                boxes.append(f"<div class='box'><p>{self.snippet(lang)}</p></div>")
        return "<div class='side'>" + "".join(boxes) + "</div>"

    def footer(self, lang: str) -> str:
        links = " | ".join(f"<a href='#'>{w}</a>" for w in self.words(lang, self.rng.randint(3, 9)))
        return f"<div class='ft'><p>{links}</p><p>&copy; 20{self.rng.randint(10, 26)}</p></div>"

    def pager(self) -> str:
        n = self.rng.randint(3, 12)
        return (
            "<div class='pager'>" + " ".join(f"<a href='#'>{i}</a>" for i in range(1, n)) + "</div>"
        )

    def style(self) -> str:
        r = self.rng
        accent = r.choice(_ACCENTS)
        width = r.choice((960, 1000, 1100, 1200, "96%"))
        width_css = width if isinstance(width, str) else f"{width}px"
        size = r.choice((12, 13, 14, 15, 16))
        cols = r.choice((2, 3, 4, 5))
        line = r.choice((1.3, 1.5, 1.7, 1.9))
        return f"""<style>
body{{font-family:{r.choice(_FONTS)};font-size:{size}px;margin:0;color:#222;
  background:{r.choice(("#fff", "#f4f4f4", "#fafafa", "#eef"))};line-height:{line}}}
.wrap{{width:{width_css};margin:0 auto;background:#fff;overflow:hidden}}
.top{{background:#eee;font-size:12px;padding:4px}}
.hd{{background:{accent};color:#fff;padding:{r.randint(6, 30)}px 12px}}
.hd a{{color:#fff;margin-right:{r.randint(8, 24)}px}} .logo{{margin:0}}
.main{{float:{r.choice(("left", "right"))};width:{r.choice((64, 68, 72))}%;padding:10px}}
.main.full{{float:none;width:auto}}
.side{{float:right;width:{r.choice((24, 26, 28))}%;padding:8px;font-size:13px}}
.box{{border:1px solid #ddd;margin-bottom:10px;padding:6px}} .box ul{{padding-left:16px}}
.ad{{height:{r.randint(90, 300)}px;background:#ccd;margin-bottom:10px}}
.ft{{clear:both;background:#333;color:#ccc;padding:20px;text-align:center}}
.grid{{display:grid;grid-template-columns:repeat({cols},1fr);gap:{r.randint(8, 24)}px}}
.card{{border:1px solid #e3e3e3;padding:6px}}
.img{{background:#bbb;height:{r.randint(70, 170)}px;margin-bottom:6px}}
.thumb{{display:flex;gap:12px;margin:12px 0}} .thumb .img{{width:{r.randint(100, 220)}px;flex:none}}
.meta{{color:#888;font-size:12px}} a{{color:{accent};text-decoration:none}}
table{{width:100%;border-collapse:collapse}} td{{border-bottom:1px solid #ddd;padding:4px}}
.blocks{{display:grid;grid-template-columns:repeat({r.choice((2, 3))},1fr);gap:14px}}
.pager a{{border:1px solid #ccc;padding:2px 8px;margin:2px}}
.art p{{margin:0 0 {r.randint(8, 20)}px;text-indent:{r.choice(("0", "2em"))}}}
.art h1{{font-size:{r.randint(22, 34)}px}}
</style>"""

    # -- list bodies ------------------------------------------------------------------

    def list_body(self, lang: str, layout: str) -> str:
        r = self.rng
        n = r.randint(10, 40)
        t, s, d = self.title, self.snippet, self.date
        if layout == "headlines":
            sep = r.choice(("li", "div", "p"))
            rows = "".join(
                f"<{sep}><a href='#'>{t(lang)}</a> <span class='meta'>{d()}</span></{sep}>"
                for _ in range(n)
            )
            return f"<ul>{rows}</ul>" if sep == "li" else rows
        if layout == "snippets":
            return "".join(
                f"<div class='item'><h3><a href='#'>{t(lang)}</a></h3><p>{s(lang)}</p>"
                f"<div class='meta'>{d()}</div></div>"
                for _ in range(r.randint(8, 20))
            )
        if layout == "cards":
            return (
                "<div class='grid'>"
                + "".join(
                    f"<div class='card'><div class='img'></div><a href='#'>{t(lang)}</a>"
                    + (f"<p>{s(lang)[:80]}</p>" if r.random() < 0.5 else "")
                    + "</div>"
                    for _ in range(r.randint(8, 30))
                )
                + "</div>"
            )
        if layout == "table":
            rows = "".join(
                f"<tr><td><a href='#'>{t(lang)}</a></td><td>{t(lang)[:4]}</td><td>{d()}</td></tr>"
                for _ in range(n)
            )
            return f"<table>{rows}</table>"
        if layout == "thumbs":
            return "".join(
                f"<div class='thumb'><div class='img'></div><div><h3><a href='#'>{t(lang)}</a>"
                f"</h3><p>{s(lang)}</p><span class='meta'>{d()}</span></div></div>"
                for _ in range(r.randint(6, 18))
            )
        if layout == "portal":
            blocks = "".join(
                f"<div class='box'><h3>{t(lang)[:6]}</h3><ul>"
                + "".join(f"<li><a href='#'>{t(lang)}</a></li>" for _ in range(r.randint(5, 12)))
                + "</ul></div>"
                for _ in range(r.randint(4, 12))
            )
            return f"<div class='blocks'>{blocks}</div>"
        if layout == "search":
            return "".join(
                f"<div class='item'><a href='#'>{t(lang)}</a><div class='meta'>"
                f"www.example.com/{r.randint(100, 999)}</div><p>{s(lang)}</p></div>"
                for _ in range(r.randint(8, 15))
            )
        rows = "".join(
            f"<tr><td><a href='#'>{t(lang)}</a></td><td>{r.randint(0, 999)}</td>"
            f"<td>{r.randint(10, 99999)}</td><td>{d()}</td></tr>"
            for _ in range(n)
        )
        return f"<table>{rows}</table>"

    def article_body(self, lang: str) -> str:
        r = self.rng
        paras = []
        for _ in range(r.randint(4, 18)):
            joined = ("" if lang == "zh" else " ").join(
                self.snippet(lang) for _ in range(r.randint(1, 4))
            )
            paras.append(f"<p>{joined}</p>")
        if r.random() < 0.4:
            paras.insert(r.randint(0, len(paras)), "<div class='img' style='height:300px'></div>")
        related = ""
        if r.random() < 0.5:
            related = (
                "<h4>"
                + self.title(lang)[:6]
                + "</h4><ul>"
                + "".join(
                    f"<li><a href='#'>{self.title(lang)}</a></li>" for _ in range(r.randint(3, 8))
                )
                + "</ul>"
            )
        meta = f"<div class='meta'>{self.date()} {self.title(lang)[:6]}</div>"
        return f"<div class='art'><h1>{self.title(lang)}</h1>{meta}{''.join(paras)}{related}</div>"

    # -- pages ------------------------------------------------------------------

    def page(self, label: str) -> str:
        r = self.rng
        lang = r.choice(("zh", "en"))
        styled = r.random() < 0.6
        body = (
            self.list_body(lang, r.choice(LIST_LAYOUTS))
            + (self.pager() if r.random() < 0.6 else "")
            if label == "list"
            else self.article_body(lang)
        )
        side = self.sidebar(lang) if r.random() < 0.6 else ""
        main_cls = "main" if side else "main full"
        parts = [self.header(lang)]
        if side and r.random() < 0.5:
            parts += [side, f"<div class='{main_cls}'>{body}</div>"]
        else:
            parts += [f"<div class='{main_cls}'>{body}</div>", side]
        parts.append(self.footer(lang))
        head = f"<meta charset='utf-8'><title>{self.title(lang)}</title>"
        head += self.style() if styled else ""
        body = f"<div class='wrap'>{''.join(parts)}</div>"
        return f"<!DOCTYPE html><html><head>{head}</head><body>{body}</body></html>"


def generate(pool: Pool, lists: int, articles: int, seed: int) -> list[tuple[str, str, str]]:
    """``(key, label, html)`` for ``lists`` list pages and ``articles`` articles."""
    maker = PageMaker(pool, seed)
    pages = [(f"synthetic/list-{i:04d}", "list", maker.page("list")) for i in range(lists)]
    pages += [
        (f"synthetic/article-{i:04d}", "article", maker.page("article")) for i in range(articles)
    ]
    return pages
