"""A small site of articles split over pages, written as static files.

* a Chinese story in three pages: ``story.html`` -> ``story_2.html`` ->
  ``story_3.html``, linked by "下一页" and page numbers;
* an English essay in two pages: ``/essay/`` -> ``/essay/2/``, linked by
  ``<link rel="next">`` only; its second page ends with a heading and a list;
* two blog posts linked by "Next »" (another story: must stay apart);
* a list in two pages (``news.html`` -> ``news_2.html``, "下一页"): a list is
  never joined.

``PARTS[url path]`` is the text of each page that must appear, in order,
in the joined article.
"""

from __future__ import annotations

from pathlib import Path

ZH = [
    [
        "江城的老街在春天迎来了第一批游客，沿河的茶馆重新摆出了竹椅和木桌，老人们说这是十年来最热闹的一个季节。",
        "街道办事处介绍，改造工程保留了原有的青石板路面，只更换了地下的排水管道，让老街在雨季也不再积水。",
        "一家经营了三代的糕点铺把作坊搬到了临街的窗口，游客可以看到师傅如何揉面、包馅、上笼蒸制。",
    ],
    [
        "第二部分讲的是河边的码头。过去这里每天停靠数十条货船，如今只剩下两条游船往返于上下游之间。",
        "船工老周在这条河上撑了四十年船，他记得每一座桥的名字，也记得哪一年的洪水漫过了哪一级台阶。",
        "他说，年轻人愿意回来开店，老街才算真正活了过来，光靠修房子是留不住人的。",
    ],
    [
        "最后一部分写的是夜晚。天黑以后，沿街的灯笼一盏盏亮起，评弹的声音从二楼的窗户里飘出来。",
        "文化馆每周六晚上在广场放露天电影，附近小区的居民会提前搬来板凳占位，孩子们在人群里跑来跑去。",
        "记者离开的时候已经很晚，茶馆的老板还在擦桌子，他说明天一早还有一批从外地来的客人。",
    ],
]
EN = [
    [
        "The river town woke slowly that spring, and the ferry that had not run for a decade "
        "was painted, patched and put back on the water by volunteers from both banks.",
        "Its first crossing carried a brass band, two dogs and the mayor, who admitted he had "
        "never learned to swim and spent the whole trip holding the rail with both hands.",
    ],
    [
        "By summer the ferry ran every hour, and the café on the far bank had doubled its "
        "tables to keep up with walkers who now made a loop of the two towns in an afternoon.",
        "The volunteers are already raising money for a second boat, though nobody has yet "
        "agreed on a name for it, and the meetings about the name have grown very long.",
    ],
]
# The essay's second page ends with a section: a heading and a list, which
# a Markdown export marks up as that page does.
EN_PLAN_HEADING = "What the volunteers plan next"
EN_PLAN = [
    "Repaint the landing stage on the north bank before the autumn storms arrive",
    "Train four more pilots so the ferry can also run on weekday evenings",
]
BLOG = [
    "Notes on sourdough",
    "A starter needs flour, water and patience; mine took eleven days before it smelled of "
    "anything but paste, and another week before it raised a loaf worth slicing.",
    "Notes on pickling",
    "Cucumbers, salt and a weight to keep them under the brine are all a first batch needs, "
    "and the crock can sit in the coolest corner of the kitchen for three weeks or so.",
]


def _page(title: str, body: str, head: str = "", lang: str = "zh") -> str:
    nav = '<div class="nav"><a href="/">首页</a> <a href="/news.html">新闻</a></div>'
    foot = '<div class="foot">版权所有 © 2026 江城日报</div>'
    return (
        f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8"><title>{title}</title>'
        f"{head}</head><body>{nav}<div class='main'><h1>{title}</h1>{body}</div>{foot}"
        "</body></html>"
    )


def _paragraphs(lines: list[str]) -> str:
    return "".join(f"<p>{line}</p>" for line in lines)


def _zh_pager(page: int) -> str:
    names = ["story.html", "story_2.html", "story_3.html"]
    links = " ".join(
        f"<a href='/{name}'>{i}</a>" if i != page else f"<span>{i}</span>"
        for i, name in enumerate(names, 1)
    )
    after = f" <a href='/{names[page]}'>下一页</a>" if page < len(names) else ""
    return f"<div class='pager'>{links}{after}</div>"


def files() -> dict[str, str]:
    """Path -> HTML of every page of the site."""
    title = "老街的春天"
    pages = {
        "index.html": _page(
            "江城日报",
            "<ul>"
            + "".join(
                f"<li><a href='{href}'>{text}</a></li>"
                for href, text in [
                    ("/story.html", title),
                    ("/essay/", "The ferry"),
                    ("/blog/post-1.html", "Sourdough"),
                    ("/news.html", "新闻"),
                ]
            )
            + "</ul>",
        ),
        "story.html": _page(title, _paragraphs(ZH[0]) + _zh_pager(1)),
        "story_2.html": _page(f"{title}（2）", _paragraphs(ZH[1]) + _zh_pager(2)),
        "story_3.html": _page(f"{title}（3）", _paragraphs(ZH[2]) + _zh_pager(3)),
        "essay/index.html": _page(
            "The ferry comes back",
            _paragraphs(EN[0]),
            head='<link rel="next" href="/essay/2/">',
            lang="en",
        ),
        "essay/2/index.html": _page(
            "The ferry comes back - page 2",
            _paragraphs(EN[1])
            + f"<h2>{EN_PLAN_HEADING}</h2><ul>"
            + "".join(f"<li>{item}</li>" for item in EN_PLAN)
            + "</ul>",
            head='<link rel="prev" href="/essay/">',
            lang="en",
        ),
        "blog/post-1.html": _page(
            BLOG[0],
            f"<p>{BLOG[1]}</p><p>{BLOG[1]}</p><a href='/blog/post-2.html'>Next »</a>",
            lang="en",
        ),
        "blog/post-2.html": _page(BLOG[2], f"<p>{BLOG[3]}</p><p>{BLOG[3]}</p>", lang="en"),
    }
    for n, name in ((1, "news.html"), (2, "news_2.html")):
        items = "".join(
            f"<li><a href='/item/{n}-{i}.html'>第{n}页的第{i}条新闻标题，内容各不相同</a>"
            f"<span>2026-03-{i + 1:02d}</span></li>"
            for i in range(1, 16)
        )
        pager = "<a href='/news_2.html'>下一页</a>" if n == 1 else ""
        pages[name] = _page("新闻", f"<ul class='list'>{items}</ul>{pager}")
    return pages


# The text each page contributes to its article, in order.
PARTS = {
    "/story.html": ZH[0] + ZH[1] + ZH[2],
    "/essay/": EN[0] + EN[1] + [EN_PLAN_HEADING, *EN_PLAN],
}


def write(root: Path) -> Path:
    for path, html in files().items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(html, encoding="utf-8")
    return root
