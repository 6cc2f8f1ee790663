"""Export: JSONL, CSV and Markdown round trips, filters, and the command."""

from __future__ import annotations

import contextlib
import csv
import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scrapy import Spider
from scrapy.exceptions import DropItem
from scrapy.utils.test import get_crawler

from crawler.items import Outcome, PageItem
from extractors.markdown import escape_markdown, unescape_markdown
from pipelines.dedup import DedupPipeline
from pipelines.export import (
    FIELDS,
    ExportFilter,
    export,
    iter_articles,
    markdown_document,
    markdown_path,
    read_markdown,
)
from pipelines.schema import connect
from pipelines.store import StorePipeline

A = 'Line one.\n\nLine, "two".'
TEXTS = {
    "http://en.test/news/2024/a.html": ("en.test", "en", "2024-03-01", A),
    "http://en.test/news/2024/b.html": ("en.test", "en", "2024-06-01", "Another story: here."),
    "http://zh.test/world/c.html": (
        "zh.test",
        "zh",
        "2024-04-30T21:10:00-04:00",  # 2024-05-01 in UTC: filters compare in UTC
        "市政府周二宣布新开公交线路。\n第二段。",
    ),
    "http://en.test/copy.html": ("en.test", "en", None, A),
}


def _fill(url: str) -> None:
    crawler = get_crawler(Spider, {"SITESIFT_DB": url, "SITESIFT_STORE_BATCH": 10})
    crawler.spider = Spider(name="site")
    dedup, store = DedupPipeline.from_crawler(crawler), StorePipeline.from_crawler(crawler)
    store.flush_seconds = 0
    store.open_spider(crawler.spider)
    dedup.open_spider(crawler.spider)
    for page, (site, lang, published, text) in TEXTS.items():
        group = site + "/" + page.split("/", 3)[3].split("/")[0] + "/{n}"
        item = PageItem(url=page, site=site, status=200, html="<p>x</p>", text=text,
                        title=f"Title of {page.rsplit('/', 1)[-1]}", language=lang,
                        published=published, page_type="article", url_group=group,
                        method="auto:cetd", confidence=0.875,
                        image=f"http://{site}/img/{len(text)}.jpg",
                        fetched_at=datetime(2024, 7, 1, tzinfo=UTC).isoformat())  # fmt: skip
        store.process_item(dedup.check(item))
    store.close_spider()


@pytest.fixture
def filled(db_url: str) -> str:
    _fill(db_url)
    return db_url


def _urls(url: str, **kw: object) -> set[str]:
    engine = connect(url)
    try:
        return {r["url"] for r in iter_articles(engine, ExportFilter(**kw))}
    finally:
        engine.dispose()


def test_filters(filled: str) -> None:
    originals = set(TEXTS) - {"http://en.test/copy.html"}
    assert _urls(filled) == originals  # duplicates are left out by default
    assert "http://en.test/copy.html" in _urls(filled, include_duplicates=True)
    engine = connect(filled)
    copies = [r for r in iter_articles(engine, ExportFilter(include_duplicates=True))
              if r["duplicate_of"]]  # fmt: skip
    engine.dispose()
    assert [(c["url"], c["text"]) for c in copies] == [("http://en.test/copy.html", A)]
    assert _urls(filled, sites=("zh.test",)) == {"http://zh.test/world/c.html"}
    assert _urls(filled, languages=("en",)) == originals - {"http://zh.test/world/c.html"}
    assert _urls(filled, url_groups=("en.test/news*",)) == {
        "http://en.test/news/2024/a.html",
        "http://en.test/news/2024/b.html",
    }
    may = datetime(2024, 5, 1, tzinfo=UTC)
    assert _urls(filled, since=may, date_field="published") == {
        "http://en.test/news/2024/b.html",
        "http://zh.test/world/c.html",
    }
    assert _urls(filled, until=may, date_field="published") == {"http://en.test/news/2024/a.html"}
    # the same moment in another zone gives the same pages (SQLite compares digits)
    may_in_beijing = datetime(2024, 5, 1, 8, tzinfo=timezone(timedelta(hours=8)))
    assert _urls(filled, since=may_in_beijing, date_field="published") == _urls(
        filled, since=may, date_field="published"
    )
    assert _urls(filled, until=may_in_beijing, date_field="published") == {
        "http://en.test/news/2024/a.html"
    }
    assert _urls(filled, since=datetime(2024, 8, 1, tzinfo=UTC)) == set()  # fetched 2024-07-01


@pytest.mark.parametrize("fmt", ["jsonl", "json", "csv", "markdown"])
def test_round_trip(filled: str, tmp_path: Path, fmt: str) -> None:
    engine = connect(filled)
    out = tmp_path / ("md" if fmt == "markdown" else f"out.{fmt}")
    assert export(engine, fmt, str(out), ExportFilter(include_duplicates=True)) == len(TEXTS)
    expected = {r["url"]: r for r in iter_articles(engine, ExportFilter(include_duplicates=True))}
    engine.dispose()
    if fmt == "jsonl":
        got = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    elif fmt == "json":
        got = json.loads(out.read_text("utf-8"))  # one document, an array
    elif fmt == "csv":
        with out.open(encoding="utf-8", newline="") as fh:
            got = list(csv.DictReader(fh))
    else:
        files = sorted(out.rglob("*.md"))
        assert all("http" not in str(f.relative_to(out)) for f in files)  # never raw URLs
        got = [read_markdown(f) for f in files]
        # every line its own Markdown paragraph: a blank line between them
        assert "\n\n第二段。" in "".join(f.read_text("utf-8") for f in files)
        assert {f for f in files} == {markdown_path(out, r) for r in expected.values()}
    assert len(got) == len(TEXTS)
    for record in got:
        want = expected[record["url"]]
        assert (record["text"] or None) == want["text"]
        assert record["title"] == want["title"]
        assert (record["published"] or None) == want["published"]
        assert (record["duplicate_of"] or None) == want["duplicate_of"]
        assert record["image"] == want["image"] and record["image"].endswith(".jpg")
        assert float(record["confidence"]) == want["confidence"] == 0.875
        assert record["method"] == "auto:cetd"


def test_export_command(filled: str, tmp_path: Path) -> None:
    out = tmp_path / "zh.jsonl"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "crawler.cli",
            "export",
            "--db",
            filled,
            "--output",
            str(out),
            "--language",
            "ZH-cn",  # as stored: "zh"
            "--site",
            "http://zh.test/",  # the start URL of a site list: the site zh.test
        ],  # fmt: skip
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.startswith("exported 1/1")  # no "\r" before the first state
    rows = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert [r["url"] for r in rows] == ["http://zh.test/world/c.html"]
    assert rows[0]["text"].startswith("市政府")


def test_an_output_named_json_gets_one_array(filled: str, tmp_path: Path) -> None:
    out = tmp_path / "all.json"
    proc = subprocess.run([sys.executable, "-m", "crawler.cli", "export", "--db", filled,
                           "-o", str(out), "--quiet"],
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(out.read_text("utf-8"))
    assert isinstance(rows, list) and len(rows) == len(TEXTS) - 1  # the duplicate left out
    empty = tmp_path / "none.json"
    proc = subprocess.run([sys.executable, "-m", "crawler.cli", "export", "--db", filled,
                           "-o", str(empty), "--quiet", "--site", "nowhere.test"],
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert proc.returncode == 0 and json.loads(empty.read_text("utf-8")) == []
    # told what was left out; a "~" the shell did not expand (--output=~/...) is a home
    home = tmp_path / "home"
    home.mkdir()
    proc = subprocess.run([sys.executable, "-m", "crawler.cli", "export", "--db", filled,
                           "--output=~/all.jsonl"], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "HOME": str(home)})  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert len((home / "all.jsonl").read_text("utf-8").splitlines()) == len(TEXTS) - 1
    assert "1 duplicate(s) of those left out (--include-duplicates" in proc.stderr


def test_export_into_a_closed_pipe_stops_quietly(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'a.db'}"
    _fill(db)
    cmd = [sys.executable, "-m", "crawler.cli", "export", "--db", db, "-o", "-"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader (`| head`) is gone before the first row
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141  # as a Unix tool a closed pipe stopped
    assert "pipe" not in stderr.lower() and "Traceback" not in stderr, stderr


def test_export_command_errors(tmp_path: Path) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "crawler.cli", "export", *args],
                              capture_output=True, text=True, timeout=60)  # fmt: skip

    proc = run("--db", f"sqlite:///{tmp_path / 'none.db'}", "-o", str(tmp_path / "x.jsonl"))
    assert proc.returncode == 2 and "no database" in proc.stderr
    assert "Traceback" not in proc.stderr
    db = f"sqlite:///{tmp_path / 'd.db'}"
    connect(db).dispose()
    proc = run("--db", db, "-o", str(tmp_path / "x.jsonl"), "--since", "yesterday")
    assert proc.returncode == 2 and "--since takes a date" in proc.stderr
    proc = run("--db", db, "-o", str(tmp_path / "missing" / "x.jsonl"))
    assert proc.returncode == 2 and "does not exist" in proc.stderr
    (tmp_path / "a.jsonl").write_text("")
    proc = run("--db", db, "-o", str(tmp_path / "a.jsonl" / "x.jsonl"))
    assert proc.returncode == 2 and "a.jsonl is a file, not a folder to write in" in proc.stderr
    proc = run("--db", db, "-o", str(tmp_path / "a.jsonl"))
    assert proc.returncode == 0 and "replacing the file that was there" in proc.stderr
    # a file replaced keeps its permissions; through a symlink, the link stays
    (tmp_path / "a.jsonl").chmod(0o600)
    (tmp_path / "link.jsonl").symlink_to(tmp_path / "a.jsonl")
    proc = run("--db", db, "-o", str(tmp_path / "link.jsonl"))
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "link.jsonl").is_symlink()
    assert (tmp_path / "a.jsonl").stat().st_mode & 0o777 == 0o600
    proc = run("--db", db, "-o", str(tmp_path / "notes.md"))  # made a folder named notes.md
    assert proc.returncode == 2 and "writes a folder of .md files" in proc.stderr
    assert not (tmp_path / "notes.md").exists()
    proc = run("--db", db, "-o", str(tmp_path / "x.csv"), "--format", "jsonl")
    assert proc.returncode == 0 and "writing jsonl to" in proc.stderr and "says csv" in proc.stderr
    proc = run("--db", db, "-o", "")  # an unset $OUT
    assert proc.returncode == 2 and "--output is empty" in proc.stderr
    proc = run("--db", db, "-o", str(tmp_path / "x.txt"))
    assert proc.returncode == 2 and "cannot tell the format from" in proc.stderr
    proc = run("--db", db, "-o", "-", "--since", "2024-06-01", "--until", "2024-05-01")
    assert proc.returncode == 2 and "--until (2024-05-01) is not after --since" in proc.stderr


def test_url_group_wildcard_is_only_the_star(filled: str) -> None:
    news = {"http://en.test/news/2024/a.html", "http://en.test/news/2024/b.html"}
    assert _urls(filled, url_groups=("en.test/news/{n}",)) == news
    # `_` and `%` are characters of a URL group, not SQL wildcards
    assert _urls(filled, url_groups=("en.test_news*",)) == set()
    assert _urls(filled, url_groups=("en.test/%",)) == set()
    assert _urls(filled, url_groups=("en.test\\news*",)) == set()
    assert _urls(filled, url_groups=("en.test/*",)) == news


def _export(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "crawler.cli", "export", *args],
                          capture_output=True, text=True, timeout=60, cwd=cwd)  # fmt: skip


def _refetch_as_gone(url: str, page: str, status: int) -> None:
    """The page is fetched again and answers ``status`` (the store keeps its
    article and records the failed fetch on its page row)."""
    crawler = get_crawler(Spider, {"SITESIFT_DB": url, "SITESIFT_STORE_BATCH": 10})
    crawler.spider = Spider(name="site")
    store = StorePipeline.from_crawler(crawler)
    store.flush_seconds = 0
    store.open_spider(crawler.spider)
    item = PageItem(url=page, site=page.split("/")[2], outcome=Outcome.HTTP_ERROR,
                    status=status, reason=f"HTTP {status}",
                    fetched_at=datetime(2024, 8, 1, tzinfo=UTC).isoformat())  # fmt: skip
    with contextlib.suppress(DropItem):
        store.process_item(item)
    store.close_spider()


def test_an_article_whose_page_is_gone_says_so_and_can_be_left_out(
    filled: str, tmp_path: Path
) -> None:
    gone, alive = "http://en.test/news/2024/a.html", "http://en.test/news/2024/b.html"
    _refetch_as_gone(filled, gone, 404)
    engine = connect(filled)
    try:
        rows = {r["url"]: r for r in iter_articles(engine, ExportFilter())}
        assert len(rows) == len(TEXTS) - 1  # kept: nothing stored is lost
        assert (rows[gone]["page_outcome"], rows[gone]["page_status"]) == ("http_error", 404)
        assert (rows[alive]["page_outcome"], rows[alive]["page_status"]) == ("ok", 200)
        assert rows[gone]["text"] == A  # the text extracted before the page went
        assert gone not in {r["url"] for r in iter_articles(engine, ExportFilter(skip_gone=True))}
    finally:
        engine.dispose()
    out = tmp_path / "live.csv"
    proc = _export("--db", filled, "-o", str(out), "--skip-gone")
    assert proc.returncode == 0, proc.stderr
    assert "1 article(s) whose page is gone" in proc.stderr
    assert "1 duplicate(s) of those left out" in proc.stderr
    with out.open(encoding="utf-8", newline="") as fh:
        written = list(csv.DictReader(fh))
    assert gone not in {r["url"] for r in written} and len(written) == len(TEXTS) - 2
    assert {r["page_status"] for r in written} == {"200"}
    refused = _export("--db", filled, "-o", str(tmp_path / "r.jsonl"), "--records", "--skip-gone")
    assert refused.returncode == 2 and "--skip-gone" in refused.stderr


def test_export_dash_is_stdout(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'a.db'}"
    _fill(db)
    proc = _export("--db", db, "-o", "-", "-q", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(rows) == len(TEXTS) - 1  # the duplicate is left out
    assert not (tmp_path / "-").exists()
    proc = _export("--db", db, "--format", "markdown", "-o", "-", cwd=tmp_path)
    assert proc.returncode == 2 and "markdown export writes a folder" in proc.stderr
    assert "Traceback" not in proc.stderr and not (tmp_path / "-").exists()


def test_export_refuses_to_overwrite_its_database(tmp_path: Path) -> None:
    path = tmp_path / "copy.db"
    _fill(f"sqlite:///{path}")
    proc = _export("--db", f"sqlite:///{path}", "--format", "jsonl", "-o", str(path))
    assert proc.returncode == 2 and "is the database itself" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    assert len(_urls(f"sqlite:///{path}", include_duplicates=True)) == len(TEXTS)  # intact


def test_markdown_export_onto_a_file(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'd.db'}"
    connect(db).dispose()
    (tmp_path / "e.csv").write_text("x")
    proc = _export("--db", db, "--format", "markdown", "-o", str(tmp_path / "e.csv"))
    assert proc.returncode == 2 and "is a file; markdown export writes a folder" in proc.stderr


def test_an_export_of_nothing_names_the_sites_meant(filled: str, tmp_path: Path) -> None:
    # a site named with another port (or without its own) exported nothing,
    # silently; and the Markdown folder it "wrote" to was not there
    out = tmp_path / "md"
    proc = _export("--db", filled, "-o", str(out), "--site", "zh.test:8001")
    assert proc.returncode == 0, proc.stderr
    assert "wrote 0 article(s)" in proc.stderr and out.is_dir()
    assert "no stored article of zh.test:8001; did you mean zh.test?" in proc.stderr


def test_a_site_given_with_a_path_is_the_whole_host(filled: str, tmp_path: Path) -> None:
    out = tmp_path / "zh.jsonl"
    proc = _export("--db", filled, "-o", str(out), "--site", "http://zh.test/world/")
    assert proc.returncode == 0, proc.stderr
    note = "--site http://zh.test/world/ means all of zh.test: a site is a whole host"
    assert note in proc.stderr
    assert [json.loads(line)["site"] for line in out.read_text("utf-8").splitlines()] == ["zh.test"]


def test_a_markdown_export_replaces_the_hash_named_files_of_an_older_one(
    filled: str, tmp_path: Path
) -> None:
    engine = connect(filled)
    records = list(iter_articles(engine, ExportFilter()))
    out = tmp_path / "md"
    old = {markdown_path(out, r) for r in records}
    old = {p.with_name(p.name.rpartition("-")[2]) for p in old}  # <hash>.md, as before
    for path in old:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("an older export", encoding="utf-8")
    assert export(engine, "markdown", str(out)) == len(records)
    engine.dispose()
    assert sorted(out.rglob("*.md")) == sorted(markdown_path(out, r) for r in records)


def test_a_markdown_folder_holds_the_latest_export_only(filled: str, tmp_path: Path) -> None:
    out = tmp_path / "md"
    proc = _export("--db", filled, "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    everything = set(out.rglob("*.md"))
    assert {p.parent.name for p in everything} == {"en.test", "zh.test"}
    mine = [out / "notes.md", out / "zh.test" / "mine.md"]  # the user's own files
    for path in mine:
        path.write_text("mine", encoding="utf-8")
    outside = tmp_path / "outside.md"
    outside.write_text("not the export's", encoding="utf-8")
    with (out / ".sitesift-export").open("a", encoding="utf-8") as fh:
        fh.write("../outside.md\n")  # an edited manifest never reaches outside

    proc = _export("--db", filled, "-o", str(out), "--site", "en.test")
    assert proc.returncode == 0, proc.stderr
    en = {p for p in everything if p.parent.name == "en.test"}
    assert set(out.rglob("*.md")) == en | set(mine)
    assert f"removed {len(everything - en)} file(s) an earlier export wrote" in proc.stderr
    assert outside.exists() and (out / "zh.test").is_dir()  # it still holds mine.md

    (out / "zh.test" / "mine.md").unlink()
    proc = _export("--db", filled, "-o", str(out), "--site", "zh.test")
    assert proc.returncode == 0, proc.stderr
    assert set(out.rglob("*.md")) == (everything - en) | {out / "notes.md"}
    assert not (out / "en.test").exists()  # emptied by the export: removed with its files
    proc = _export("--db", filled, "-o", str(out), "--site", "zh.test")
    assert "removed" not in proc.stderr


def test_markdown_file_names_are_readable_and_safe(tmp_path: Path) -> None:
    def name(url: str) -> str:
        path = markdown_path(tmp_path, {"site": "a.test", "url": url})
        assert path.parent == tmp_path / "a.test"  # never outside the site's folder
        return path.name.rsplit("-", 1)[0] if "-" in path.name else ""

    assert name("http://a.test/2024/05/bike-lanes.html") == "bike-lanes"
    assert name("http://a.test/news/%E5%9C%B0%E9%93%81.html") == "地铁"
    assert name("http://a.test/") == "" and name("http://a.test/../..") == ""
    assert name("http://a.test/x/..%2F..%2Fetc%2Fpasswd") == "passwd"
    assert name("http://a.test/v1.2/read%20me.html") == "read-me"
    assert len(name("http://a.test/" + "long-" * 100)) <= 60
    urls = ("http://a.test/a/page.html", "http://a.test/b/page.html")
    assert len({markdown_path(tmp_path, {"site": "a.test", "url": u}) for u in urls}) == 2


# Crawled lines that Markdown would read as markup.
HOSTILE_LINES = [
    "# Not a heading",
    "- not a list item",
    "2024. The year it began",
    "> not a quote",
    "| not | a table row |",
    "---",
    "Prices *fell* by 5_000 [see](http://evil.test) <script>alert(1)</script> ~~cut~~",
    r"C:\Users\me\*.txt and AT&T &amp; co",
    "    indented() { code *stays* as it is }",
    "中文段落：第一行。",
]


def test_markdown_shows_crawled_text_as_written(tmp_path: Path) -> None:
    """A real CommonMark renderer reads the exported file: the title is the
    one heading, each text line one paragraph holding its words as they
    were crawled (no list, quote, rule, emphasis, link or HTML of theirs),
    an indented line a code block; reading the file back gives the text."""
    from markdown_it import MarkdownIt

    record = {name: None for name in FIELDS} | {
        "url": "http://a.test/x.html",
        "site": "a.test",
        "title": "Why *this* <b>matters</b> in C #",
        "text": "\n".join(HOSTILE_LINES),
    }
    path = tmp_path / "x.md"
    path.write_text(markdown_document(record), encoding="utf-8")
    body = path.read_text(encoding="utf-8").split("---\n", 2)[2]
    md = MarkdownIt("commonmark").enable(["strikethrough", "table"])
    tokens = md.parse(body)
    kinds = {t.type for t in tokens}
    assert kinds <= {"heading_open", "heading_close", "paragraph_open", "paragraph_close",
                     "inline", "code_block"}  # fmt: skip
    headings = [tokens[i + 1] for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert [h.content for h in headings] and len(headings) == 1

    def shown(inline: Any) -> str:
        assert all(c.type in ("text", "softbreak") for c in inline.children), inline.children
        return "".join(c.content for c in inline.children)

    assert shown(headings[0]) == record["title"]
    paragraphs = [tokens[i + 1] for i, t in enumerate(tokens) if t.type == "paragraph_open"]
    assert [shown(p) for p in paragraphs] == [line for line in HOSTILE_LINES if line[0] != " "]
    code = [t.content for t in tokens if t.type == "code_block"]
    assert code == ["indented() { code *stays* as it is }\n"]
    back = read_markdown(path)
    assert back["text"] == record["text"] and back["title"] == record["title"]


@given(st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=60))
def test_markdown_escaping_is_undone_exactly(line: str) -> None:
    assert unescape_markdown(escape_markdown(line)) == line


def test_excel_csv_starts_with_a_byte_order_mark(filled: str, tmp_path: Path) -> None:
    plain, excel = tmp_path / "plain.csv", tmp_path / "excel.csv"
    assert _export("--db", filled, "-o", str(plain)).returncode == 0
    proc = _export("--db", filled, "-o", str(excel), "--excel")
    assert proc.returncode == 0, proc.stderr
    assert excel.read_bytes() == b"\xef\xbb\xbf" + plain.read_bytes()
    rows = list(csv.DictReader(excel.open(encoding="utf-8-sig", newline="")))
    assert "url" in rows[0] and any(r["text"].startswith("市政府") for r in rows)
    refused = _export("--db", filled, "-o", str(tmp_path / "x.jsonl"), "--excel")
    assert refused.returncode == 2 and "--excel is for CSV; this export is jsonl" in refused.stderr


def test_an_excel_csv_starts_no_cell_with_a_formula() -> None:
    """Crawled titles and text are anyone's words: in a CSV for Excel, a cell
    that would start a formula is shown as text; a plain CSV keeps them."""
    import io

    from pipelines.export import write_csv

    record = {"url": "http://a.test/", "title": '=HYPERLINK("http://evil.test/?"&A1,"click")',
              "text": "@SUM(1+1)", "author": "-2+3", "confidence": 0.5,
              "language": "en"}  # fmt: skip
    for excel, prefix in ((True, "'"), (False, "")):
        out = io.StringIO()
        list(write_csv(iter([record]), out, excel=excel))
        (row,) = csv.DictReader(io.StringIO(out.getvalue()))
        for field in ("title", "text", "author"):
            assert row[field] == prefix + record[field]
        assert (row["url"], row["confidence"], row["language"]) == ("http://a.test/", "0.5", "en")


def _fill_lists(url: str) -> None:
    crawler = get_crawler(Spider, {"SITESIFT_DB": url, "SITESIFT_STORE_BATCH": 10})
    crawler.spider = Spider(name="site")
    store = StorePipeline.from_crawler(crawler)
    store.flush_seconds = 0
    store.open_spider(crawler.spider)
    lists = {
        "http://en.test/news/": ("en.test", "en.test/news/", [
            {"text": "=First story", "url": "http://en.test/news/1", "title": "=First story",
             "date": "2024-05-01"},
            {"text": "Second story", "url": "http://en.test/news/2", "title": "Second story",
             "region": 1},
        ]),
        "http://zh.test/world/": ("zh.test", "zh.test/world/", [
            {"text": "市政府宣布新开公交线路", "url": "http://zh.test/world/c.html"},
        ]),
    }  # fmt: skip
    for page, (site, group, records) in lists.items():
        store.process_item(PageItem(
            url=page, site=site, status=200, html="<ul></ul>", text="\n".join(
                r["text"] for r in records), page_type="list", records=records,
            url_group=group, fetched_at=datetime(2024, 7, 1, tzinfo=UTC).isoformat(),
            title=f"News of {site}",
        ))  # fmt: skip
    store.close_spider()


def test_the_records_of_list_pages_are_exported(db_url: str, tmp_path: Path) -> None:
    _fill_lists(db_url)
    out = tmp_path / "records.jsonl"
    proc = _export("--db", db_url, "--records", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "wrote 3 list record(s)" in proc.stderr
    rows = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert [(r["page_url"], r["position"], r["url"]) for r in rows] == [
        ("http://en.test/news/", 0, "http://en.test/news/1"),
        ("http://en.test/news/", 1, "http://en.test/news/2"),
        ("http://zh.test/world/", 0, "http://zh.test/world/c.html"),
    ]
    assert rows[0]["date"] == "2024-05-01" and rows[1]["date"] is None
    # the list each record belongs to; one stored without it is of the main list
    assert [r["region"] for r in rows] == [0, 1, 0]
    assert rows[2]["text"] == "市政府宣布新开公交线路" and rows[2]["url_group"] == "zh.test/world/"
    assert rows[0]["fetched_at"].startswith("2024-07-01T00:00:00")
    # filters of pages apply, as CSV for Excel too
    csv_out = tmp_path / "zh.csv"
    proc = _export("--db", db_url, "--records", "--site", "en.test", "-o", str(csv_out), "--excel")
    assert proc.returncode == 0, proc.stderr
    table = list(csv.DictReader(csv_out.open(encoding="utf-8-sig", newline="")))
    assert [r["title"] for r in table] == ["'=First story", "Second story"]
    assert list(table[0]) == ["page_url", "site", "url_group", "position", "region", "title",
                              "url", "date", "text", "fetched_at"]  # fmt: skip
    assert [r["region"] for r in table] == ["0", "1"]
    later = _export("--db", db_url, "--records", "-o", "-", "-q", "--since", "2024-08-01")
    assert later.returncode == 0 and later.stdout == ""
    # an article filter is refused, not ignored
    refused = _export("--db", db_url, "--records", "-o", "-", "--language", "zh")
    assert refused.returncode == 2 and "--language: a filter of articles" in refused.stderr


def test_the_records_of_list_pages_are_exported_as_markdown_a_file_per_page(
    db_url: str, tmp_path: Path
) -> None:
    from markdown_it import MarkdownIt

    _fill_lists(db_url)
    out = tmp_path / "md"
    proc = _export("--db", db_url, "--records", "-o", str(out), "--format", "markdown")
    assert proc.returncode == 0, proc.stderr
    assert "wrote 2 list page(s) with their records" in proc.stderr
    files = {p.parent.name: p for p in out.rglob("*.md")}
    assert sorted(files) == ["en.test", "zh.test"]
    en = files["en.test"].read_text("utf-8")
    _, head, body = en.split("---\n", 2)
    assert 'url: "http://en.test/news/"' in head and "records: 2" in head
    assert body.startswith("\n# News of en.test\n")
    html = MarkdownIt("commonmark").render(body)
    # each title links to its page (a leading "=" is text, not a setext rule);
    # the page's second region after a rule
    assert '<a href="http://en.test/news/1">=First story</a>' in html
    assert html.index("First story") < html.index("<hr />") < html.index("Second story")
    zh = files["zh.test"].read_text("utf-8")
    assert "- [市政府宣布新开公交线路](http://zh.test/world/c.html)" in zh
    # filters apply; the folder holds this export only, as for articles
    proc = _export("--db", db_url, "--records", "-o", str(out), "--format", "markdown",
                   "--site", "zh.test", "-q")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert [p.parent.name for p in out.rglob("*.md")] == ["zh.test"]


STRUCTURED = """<html><head><title>Bridge repairs</title></head><body>
<nav><a href="/">Home</a> <a href="/news/">News</a></nav>
<article><h1>Bridge repairs</h1>
<p>The Mill Street bridge will close two of its four lanes for repairs from Monday,
the city said.</p>
<h2>What changes for commuters</h2>
<ul><li>Buses take the north road around the river, adding about ten minutes to each trip.
<ul><li>Route 5 moves to Elm Street for the duration of the works.</li></ul></li>
<li>Cyclists can still cross on the footpath, which stays open at all hours.</li></ul>
<ol><li>Check the detour map before leaving home in the morning.</li></ol>
<blockquote><p>We know this is a pain for everyone who drives to work, said the mayor.
</p></blockquote>
<pre>closed:  07:00-19:00
  detour: north road</pre>
<table><tr><th>Day</th><th>Lanes open</th></tr><tr><td>Mon</td><td>2</td></tr></table>
<p>- This line only looks like a list item, and # this like a heading.</p>
</article></body></html>"""


def test_markdown_marks_up_headings_lists_quotes_code_and_tables_of_the_stored_page(
    db_url: str, tmp_path: Path
) -> None:
    """The exported file shows the page's structure to a real Markdown
    renderer (CommonMark with GFM tables), and reads back as the text."""
    from markdown_it import MarkdownIt

    from extractors import extract

    page = "http://en.test/news/2024/bridge.html"
    text = extract(STRUCTURED, url=page).text
    crawler = get_crawler(Spider, {"SITESIFT_DB": db_url})
    crawler.spider = Spider(name="site")
    store = StorePipeline.from_crawler(crawler)
    store.flush_seconds = 0
    store.open_spider(crawler.spider)
    fetched = datetime(2024, 7, 1, tzinfo=UTC).isoformat()
    item = PageItem(url=page, site="en.test", status=200, html=STRUCTURED, text=text,
                    title="Bridge repairs", page_type="article", fetched_at=fetched)  # fmt: skip
    store.process_item(item)
    store.close_spider()
    engine = connect(db_url)
    assert export(engine, "markdown", str(tmp_path / "md")) == 1
    engine.dispose()
    [path] = (tmp_path / "md").rglob("*.md")
    body = path.read_text(encoding="utf-8").split("---\n", 2)[2]
    tokens = MarkdownIt("commonmark").enable("table").parse(body)
    kinds = [t.type for t in tokens]
    headings = [(t.tag, tokens[i + 1].content) for i, t in enumerate(tokens)
                if t.type == "heading_open"]  # fmt: skip
    assert headings == [("h1", "Bridge repairs"), ("h2", "What changes for commuters")]
    assert kinds.count("bullet_list_open") == 2  # the list and the one nested in it
    assert "ordered_list_open" in kinds and "blockquote_open" in kinds
    assert [t.content for t in tokens if t.type == "fence"] == [
        "closed:  07:00-19:00\n  detour: north road\n"
    ]
    cells = [
        tokens[i + 1].content for i, t in enumerate(tokens) if t.type in ("th_open", "td_open")
    ]
    assert cells == ["Day", "Lanes open", "Mon", "2"]
    last = [tokens[i + 1] for i, t in enumerate(tokens) if t.type == "paragraph_open"][-1]
    shown = "".join(c.content for c in last.children)
    assert shown == "- This line only looks like a list item, and # this like a heading."
    assert read_markdown(path)["text"] == text
