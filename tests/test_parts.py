"""Articles split over several pages: the next page found on one page
(extractors.pagination), the chains followed when a crawl ends
(pipelines.parts), one joined article in the export."""

from __future__ import annotations

import functools
import json
import sqlite3
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from extractors import extract
from extractors.document import as_document
from extractors.pagination import next_page, page_step
from pipelines.parts import chains, same_story
from tests import multipage_web


@pytest.mark.parametrize(
    ("url", "candidate", "expected"),
    [
        ("http://h/a.html", "http://h/a_2.html", True),
        ("http://h/a_2.html", "http://h/a_3.html", True),
        ("http://h/a_9.html", "http://h/a_10.html", True),
        ("http://h/a?id=7", "http://h/a?id=7&page=2", True),
        ("http://h/story/", "http://h/story/2/", True),
        ("http://h/a.html", "http://h/a_3.html", False),  # skips a page
        ("http://h/a_3.html", "http://h/a_2.html", False),  # goes back
        ("http://h/news/12345.html", "http://h/news/12346.html", False),  # article ids
        ("http://h/2024/05/a-story/", "http://h/2024/05/b-story/", False),
        ("http://h/a.html", "http://h/a.html", False),
    ],
)
def test_page_step_is_one_page_on(url: str, candidate: str, expected: bool) -> None:
    assert page_step(url, candidate) is expected


def _doc(body: str, url: str, head: str = ""):
    return as_document(f"<html><head>{head}</head><body>{body}</body></html>", url)


def test_next_page_from_pager_words_numbers_and_rel() -> None:
    url = "http://h/news/a.html"
    assert next_page(_doc("<a href='a_2.html'>下一页</a>", url)) == "http://h/news/a_2.html"
    assert next_page(_doc("<a href='a_2.html'>2</a>", url)) == "http://h/news/a_2.html"
    assert next_page(_doc("", url, "<link rel='next' href='/news/a_2.html'>")) == (
        "http://h/news/a_2.html"
    )


def test_next_article_links_are_not_pages() -> None:
    url = "http://h/news/5.html"
    # "下一篇" and "Next post" lead to another article, even one id on.
    assert next_page(_doc("<a href='6.html'>下一篇</a>", url)) is None
    assert next_page(_doc("<a href='6.html'>Next post</a>", url)) is None
    # A pager word to an unrelated address is not this article's next page.
    assert next_page(_doc("<a href='/other.html'>下一页</a>", url)) is None


STORY = [
    "The harbour bridge will close for three weekends in March while crews replace the "
    "expansion joints that have worn out after forty years of heavy traffic.",
    "Buses will run every ten minutes between the two banks, and the ferry will add "
    "evening crossings for people who work late in the old town across the water.",
    "The city expects the work to cost less than planned, because the steel was bought "
    "last year before prices rose, the engineer in charge of the project said.",
]


def _story_in_boxes(tag: str = "div", stem: str = "page") -> str:
    boxes = "".join(
        f"<{tag} id='{stem}{i + 1}'><p>{para}</p><p>{para}</p></{tag}>"
        for i, para in enumerate(STORY)
    )
    nav = "".join(f"<li><a href='/s{i}'>Section {i}</a></li>" for i in range(15))
    return f"<html><body><ul>{nav}</ul><div class='story'>{boxes}</div><ul>{nav}</ul></body></html>"


def test_a_story_sent_in_numbered_boxes_is_joined_in_order() -> None:
    from extractors.pagination import numbered_parts

    doc = as_document(_story_in_boxes())
    story = doc.root.find(".//div[@class='story']")
    parts = numbered_parts(doc, story[1])
    assert [el.get("id") for el in parts] == ["page1", "page2", "page3"]
    # The chosen box's text gets the other boxes' lines around it, in order.
    from extractors.auto import _with_parts

    text = _with_parts(f"{STORY[1]}\n{STORY[1]}", story[1], parts)
    assert text.split("\n") == [para for para in STORY for _ in range(2)]
    # Numbered list items are entries (footnotes), a box alone is no run,
    # another stem is another thing.
    items = as_document(_story_in_boxes("li", "footnote-"))
    assert numbered_parts(items, items.root.find(".//li")) == []
    assert numbered_parts(doc, doc.root.find(".//ul")) == []
    lone = as_document(_story_in_boxes().replace("page2", "box2").replace("page3", "box3"))
    assert numbered_parts(lone, lone.root.find(".//div[@id='page1']")) == []


def test_chains_follow_links_in_order_once_and_stop_at_another_story() -> None:
    site = "h"
    pages = {
        "a3": (None, "Story (3)", site),
        "a1": ("a2", "Story", site),
        "a2": ("a3", "Story (2)", site),
        "p1": ("p2", "Sourdough notes", site),
        "p2": (None, "Pickling at home", site),
        "c1": ("c2", "Circle", site),
        "c2": ("c1", "Circle", site),  # pointed to by each other: no first page
        "x1": ("y1", "Elsewhere", site),  # next page never stored
    }
    assert chains(pages) == {"a1": ["a2", "a3"]}
    assert same_story("老街的春天", "老街的春天（2）")
    assert not same_story("Notes on sourdough", "Notes on pickling")


def test_extract_reports_next_page_of_articles_only() -> None:
    files = multipage_web.files()
    story = extract(files["story.html"], url="http://h/story.html")
    assert str(story.page_type) == "article"
    assert story.next_page == "http://h/story_2.html"
    news = extract(files["news.html"], url="http://h/news.html")
    assert news.next_page is None


# -- a real crawl -------------------------------------------------------------------


@pytest.fixture(scope="module")
def crawled(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict]]:
    tmp = tmp_path_factory.mktemp("parts")
    root = multipage_web.write(tmp / "web")
    handler = functools.partial(_QuietHandler, directory=str(root))
    with ThreadingHTTPServer(("127.0.0.1", 0), handler) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        sites = tmp / "sites.txt"
        sites.write_text(f"http://127.0.0.1:{server.server_port}/\n")
        db = tmp / "parts.db"
        crawl = subprocess.run(
            [sys.executable, "-m", "crawler.cli", "crawl", str(sites), "--db", f"sqlite:///{db}"]
            + ["-s", "AUTOTHROTTLE_START_DELAY=0", "-s", "DOWNLOAD_DELAY=0", "-L", "WARNING"],
            capture_output=True,
            text=True,
            timeout=300,
        )
        server.shutdown()
    assert crawl.returncode == 0, crawl.stderr[-3000:]
    out = tmp / "articles.jsonl"
    export = subprocess.run(
        [sys.executable, "-m", "crawler.cli", "export", "--db", f"sqlite:///{db}", "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert export.returncode == 0, export.stderr[-3000:]
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return db, records


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def _by_path(records: list[dict]) -> dict[str, dict]:
    return {"/" + r["url"].split("/", 3)[3]: r for r in records}


@pytest.mark.parametrize("first", sorted(multipage_web.PARTS))
def test_a_split_article_is_exported_once_with_every_page_in_order(
    crawled: tuple[Path, list[dict]], first: str
) -> None:
    _, records = crawled
    article = _by_path(records)[first]
    lines = [line for line in article["text"].split("\n") if line]
    expected = multipage_web.PARTS[first]
    positions = [lines.index(p) for p in expected]  # ValueError: a page is missing
    assert positions == sorted(positions)
    assert all(lines.count(p) == 1 for p in expected)


def test_later_pages_are_stored_but_not_exported_alone(crawled: tuple[Path, list[dict]]) -> None:
    db, records = crawled
    exported = _by_path(records)
    for later in ("/story_2.html", "/story_3.html", "/essay/2/"):
        assert later not in exported
    conn = sqlite3.connect(db)
    parts = dict(
        (url.split("/", 3)[3], (part_of.split("/", 3)[3], part))
        for url, part_of, part in conn.execute(
            "select url, part_of, part from articles where part_of is not null"
        )
    )
    conn.close()
    assert parts == {
        "story_2.html": ("story.html", 1),
        "story_3.html": ("story.html", 2),
        "essay/2/": ("essay/", 1),
    }


def test_next_story_and_list_pages_stay_apart(crawled: tuple[Path, list[dict]]) -> None:
    _, records = crawled
    exported = _by_path(records)
    assert {"/blog/post-1.html", "/blog/post-2.html"} <= exported.keys()
    assert multipage_web.BLOG[3] not in exported["/blog/post-1.html"]["text"]


def test_an_article_whose_later_page_changed_is_exported_since_then(
    crawled: tuple[Path, list[dict]], tmp_path: Path
) -> None:
    """An incremental export (--since) takes a multi-page article when any
    of its pages was fetched since: its first page's row alone said when
    the first page was."""
    import shutil

    db = tmp_path / "parts.db"
    shutil.copy(crawled[0], db)
    with sqlite3.connect(db) as conn:
        conn.execute("update articles set fetched_at = '2024-07-01 00:00:00.000000'")
        conn.execute("update articles set fetched_at = '2024-08-01 00:00:00.000000' "
                     "where url like '%/story_2.html'")  # fmt: skip
    conn.close()

    def exported(*flags: str) -> set[str]:
        proc = subprocess.run(
            [sys.executable, "-m", "crawler.cli", "export", "--db", f"sqlite:///{db}", "-o", "-",
             "-q", *flags], capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        return {"/" + json.loads(line)["url"].split("/", 3)[3] for line in proc.stdout.split("\n")
                if line}  # fmt: skip

    assert exported("--since", "2024-07-15") == {"/story.html"}
    before = exported("--until", "2024-07-15")
    assert "/story.html" not in before and {"/essay/", "/blog/post-1.html"} <= before


def test_a_split_articles_markdown_marks_up_the_headings_and_lists_of_every_page(
    crawled: tuple[Path, list[dict]], tmp_path: Path
) -> None:
    """The later part's heading and list items are marked up from that
    part's own stored page, not only the first page's."""
    db, _ = crawled
    out = tmp_path / "md"
    proc = subprocess.run(
        [sys.executable, "-m", "crawler.cli", "export", "--db", f"sqlite:///{db}", "-o", str(out),
         "--format", "markdown", "-q"], capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (essay,) = [p for p in out.rglob("*.md") if "ferry comes back" in p.read_text("utf-8")]
    body = essay.read_text(encoding="utf-8").split("\n")
    assert f"## {multipage_web.EN_PLAN_HEADING}" in body
    for item in multipage_web.EN_PLAN:
        assert f"- {item}" in body
    for line in multipage_web.EN[0] + multipage_web.EN[1]:
        assert line in body  # paragraphs of both pages, as paragraphs
