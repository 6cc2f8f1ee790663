"""The `sitesift` command: clear one-line errors for bad input, no tracebacks."""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest


def sitesift(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "crawler.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env={**os.environ, **env} if env else None,
    )


def assert_clean_error(proc: subprocess.CompletedProcess[str], words: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert words in proc.stderr, proc.stderr


def test_help_explains_the_commands() -> None:
    proc = sitesift("crawl", "--help")
    assert proc.returncode == 0
    for flag in ("--db", "-O", "-s", "--jobdir", "--max-pages", "--depth"):
        assert flag in proc.stdout
    extract = sitesift("extract", "--help")
    assert extract.returncode == 0
    shown = " ".join(extract.stdout.split())  # argparse wraps the help
    for method in ("auto", "justext", "boilerpipe-default", "cetd", "scedd", "list", "layout"):
        assert method in shown, method
    version = sitesift("--version")
    assert version.returncode == 0 and version.stdout.startswith("sitesift 0."), version


def test_appending_to_a_json_feed_is_refused(tmp_path: Path) -> None:
    sites = tmp_path / "sites.txt"
    sites.write_text("http://127.0.0.1:9/\n")
    feed = tmp_path / "out.json"
    feed.write_text('[{"url": "http://127.0.0.1:9/"}]')
    proc = sitesift("crawl", str(sites), "-o", str(feed))
    assert_clean_error(proc, "use -O to overwrite it")
    assert feed.read_text() == '[{"url": "http://127.0.0.1:9/"}]'


def test_missing_site_list(tmp_path: Path) -> None:
    assert_clean_error(sitesift("crawl", str(tmp_path / "nope.txt")), "nope.txt")


def scrapy_crawl_site(*args: str) -> subprocess.CompletedProcess[str]:
    """``scrapy crawl site ARGS`` from the repository's root, as the README shows."""
    return subprocess.run(
        [sys.executable, "-m", "scrapy", "crawl", "site", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).resolve().parents[1],
    )


def test_the_in_repo_scrapy_crawl_checks_its_input_as_sitesift_crawl_does(
    tmp_path: Path,
) -> None:
    """A missing -a sites, a missing or unusable site list, a bad -s value and
    a database that cannot be opened: one line and exit 2, not Scrapy's
    bootstrap traceback."""
    sites = tmp_path / "sites.txt"
    sites.write_text("http://127.0.0.1:9/\n")
    unusable = tmp_path / "unusable.txt"
    unusable.write_text("not a site ???\n")
    cases = [
        ((), "no site list: pass -a sites=FILE"),
        (("-a", f"sites={tmp_path / 'nope.txt'}"), "nope.txt: site list not found"),
        (("-a", f"sites={unusable}"), "no usable site in the list"),
        (("-a", f"sites={sites}", "-s", "ROBOTSTXT_OBEY=maybe"), "ROBOTSTXT_OBEY='maybe'"),
        (
            ("-a", f"sites={sites}", "-s", "SITESIFT_DB=postgresql+psycopg://127.0.0.1:1/x"),
            "cannot open database",
        ),
    ]
    for args, words in cases:
        assert_clean_error(scrapy_crawl_site(*args), words)


def test_the_in_repo_scrapy_crawl_stores_a_site(tmp_path: Path) -> None:
    from tests.local_site import serving

    pages = {"/": '<html><body><h1>Home</h1><a href="/a">A story</a></body></html>',
             "/a": "<html><body><h1>A story</h1><p>" + "Words of a story. " * 40
                   + "</p></body></html>"}  # fmt: skip
    with serving(pages.get) as base:
        sites = tmp_path / "sites.txt"
        sites.write_text(f"{base}\n")
        db = tmp_path / "crawl.db"
        proc = scrapy_crawl_site(
            "-a",
            f"sites={sites}",
            "-s",
            f"SITESIFT_DB=sqlite:///{db}",
            "-s",
            "SITESIFT_SCREENSHOTS=none",
        )
    assert proc.returncode == 0, proc.stderr[-2000:]
    import sqlite3

    with contextlib.closing(sqlite3.connect(db)) as conn:
        urls = {row[0] for row in conn.execute("SELECT url FROM pages")}
    assert urls == {base, base + "a"}


def test_site_list_without_a_usable_line(tmp_path: Path) -> None:
    sites = tmp_path / "sites.txt"
    sites.write_text("# only comments\nftp://example.invalid/\n")
    proc = sitesift("crawl", str(sites))
    assert_clean_error(proc, "no usable site")
    assert "sites.txt:2:" in proc.stderr


def test_unreachable_database(tmp_path: Path) -> None:
    sites = tmp_path / "sites.txt"
    sites.write_text("http://127.0.0.1:9/\n")
    proc = sitesift("crawl", str(sites), "--db", "postgresql+psycopg://nobody@127.0.0.1:1/x")
    assert_clean_error(proc, "cannot open database")


@pytest.mark.parametrize(
    ("db", "words"),
    [
        ("pages.db", "a SQLite file is sqlite:///pages.db"),
        ("mysql://u@127.0.0.1/x", "stores into SQLite or PostgreSQL, not mysql"),
        ("postgres://u:pw@127.0.0.1/x", "write a PostgreSQL URL as postgresql+psycopg://u:***@"),
    ],
)
def test_a_database_url_sitesift_cannot_use_says_what_to_write(
    sites: Path, db: str, words: str
) -> None:
    assert_clean_error(sitesift("crawl", str(sites), "--db", db), words)
    assert_clean_error(sitesift("status", "--db", db), words)


def test_unwritable_output(tmp_path: Path) -> None:
    sites = tmp_path / "sites.txt"
    sites.write_text("http://127.0.0.1:9/\n")
    db = f"sqlite:///{tmp_path / 'x.db'}"
    proc = sitesift("crawl", str(sites), "--db", db, "-O", str(tmp_path / "no" / "out.jsonl"))
    assert_clean_error(proc, "does not exist")
    # a folder that passes the access check and refuses a new file
    proc = sitesift("crawl", str(sites), "--db", db, "-O", "/proc/items.jsonl")
    assert_clean_error(proc, "output /proc/items.jsonl cannot be written")
    assert not (tmp_path / "x.db").exists()  # refused before the crawl


def test_bad_setting_syntax(tmp_path: Path) -> None:
    sites = tmp_path / "sites.txt"
    sites.write_text("http://127.0.0.1:9/\n")
    assert_clean_error(sitesift("crawl", str(sites), "-s", "NOEQUALS"), "NAME=VALUE")
    proc = sitesift("crawl", str(sites), "--crawl-id", "news")  # alone, it meant nothing
    assert_clean_error(proc, "--crawl-id names a shared crawl: give it with --redis")


@pytest.mark.parametrize(
    "args", [["extract", "/nonexistent.html"], ["extract", "-", "--method", "nope"]]
)
def test_extract_errors(args: list[str]) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "crawler.cli", *args], input="", capture_output=True, text=True
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


def test_unreachable_site_is_recorded_and_a_crawl_that_got_nothing_fails(tmp_path: Path) -> None:
    sites = tmp_path / "sites.txt"
    sites.write_text("http://127.0.0.1:9/\n")  # port 9: nothing listens
    db = tmp_path / "x.db"
    proc = sitesift("crawl", str(sites), "--db", f"sqlite:///{db}", "-s", "RETRY_TIMES=0")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert "no page could be fetched (1 failed)" in proc.stderr
    import sqlite3

    with sqlite3.connect(db) as conn:
        rows = conn.execute("select url, outcome, reason from pages").fetchall()
    assert rows and rows[0][1] == "failed" and "refused" in rows[0][2].lower()
    # status tells this run from a good one (both "finished")
    status = sitesift("status", "--db", f"sqlite:///{db}")
    assert "finished, 1 page(s): 0 ok, 1 failed" in status.stdout, status.stdout


def test_a_dead_site_beside_a_live_one_does_not_fail_the_crawl(tmp_path: Path) -> None:
    from tests.local_site import serving

    db = tmp_path / "x.db"
    sites = tmp_path / "sites.txt"
    with serving(lambda path: "<html><body><p>Hello.</p></body></html>") as url:
        sites.write_text(f"http://127.0.0.1:9/\n{url}\n")
        proc = sitesift("crawl", str(sites), "--db", f"sqlite:///{db}", "-s", "RETRY_TIMES=0",
                        env={"SITESIFT_CRAWL_DELAY_CAP": "0"})  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "no page could be fetched" not in proc.stderr


def test_a_crawl_that_skipped_every_page_says_so(tmp_path: Path) -> None:
    from tests.local_site import serving

    db = tmp_path / "x.db"
    sites = tmp_path / "sites.txt"
    with serving(lambda path: ("application/pdf", b"%PDF-1.4 not a page")) as url:
        sites.write_text(f"{url}report.pdf\n")
        proc = sitesift("crawl", str(sites), "--db", f"sqlite:///{db}",
                        env={"SITESIFT_CRAWL_DELAY_CAP": "0"})  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "no page stored: all 1 were skipped" in proc.stderr
    listed = sitesift("status", "--db", f"sqlite:///{db}", "--failures", "5").stdout
    assert "skipped" in listed and "report.pdf" in listed, listed


def test_extract_says_a_block_page_is_one(tmp_path: Path) -> None:
    page = tmp_path / "denied.html"
    page.write_text(
        "<html><head><title>Access denied</title></head><body><h1>Access denied</h1>"
        "<p>Please verify you are human (captcha). Ray ID 7a1b2c</p></body></html>"
    )
    proc = sitesift("extract", str(page))
    assert proc.returncode == 1 and proc.stdout == "", proc.stdout
    assert "block page" in proc.stderr and "nothing extracted" in proc.stderr, proc.stderr


@pytest.fixture
def sites(tmp_path: Path) -> Path:
    path = tmp_path / "sites.txt"
    path.write_text("http://127.0.0.1:9/\n")
    return path


def test_feed_onto_a_folder(tmp_path: Path, sites: Path) -> None:
    (tmp_path / "dir.jsonl").mkdir()
    db = f"sqlite:///{tmp_path / 'x.db'}"
    proc = sitesift("crawl", str(sites), "--db", db, "-O", str(tmp_path / "dir.jsonl"))
    assert_clean_error(proc, "is a folder")


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--max-pages", "0"], "--max-pages"),
        (["--max-pages", "-3"], "--max-pages"),
        (["--depth", "-1"], "--depth"),
        (["--depth", "x"], "--depth"),
        (["-L", "bogus"], "--loglevel"),
        # workers' feeds are joined into one file: only JSON lines join
        (["--workers", "2", "-O", "out.csv"], "out.csv is csv (name it .jsonl"),
        (["--workers", "2", "--output=-:jsonl"], "--workers writes feeds to local files"),
        (["-O", "out.weird"], "out.weird: unknown feed format; name a file ending in .csv,"),
        (["--redis", "redis://127.0.0.1:1/7"], "cannot reach Redis at redis://127.0.0.1:1/7"),
    ],
)
def test_bad_crawl_options(tmp_path: Path, sites: Path, args: list[str], words: str) -> None:
    db = tmp_path / "refused.db"
    assert_clean_error(sitesift("crawl", str(sites), "--db", f"sqlite:///{db}", *args), words)
    assert not db.exists()  # a crawl refused makes no database


def test_depth_zero_is_accepted(tmp_path: Path) -> None:
    # the option parses; the missing site list is the error
    proc = sitesift("crawl", str(tmp_path / "nope.txt"), "--depth", "0", "-L", "debug")
    assert_clean_error(proc, "nope.txt")


@pytest.mark.parametrize(
    ("flag", "path", "words"),
    [
        ("--logfile", "/nonexistent/x.log", "cannot write log file"),
        ("--jobdir", "/proc/nope", "cannot use job folder"),
    ],
)
def test_unusable_log_file_or_job_folder(
    tmp_path: Path, sites: Path, flag: str, path: str, words: str
) -> None:
    db = f"sqlite:///{tmp_path / 'x.db'}"
    assert_clean_error(sitesift("crawl", str(sites), "--db", db, flag, path), words)


def test_a_skipped_site_list_line_is_shown_when_the_log_goes_to_a_file(tmp_path: Path) -> None:
    sites = tmp_path / "sites.txt"
    sites.write_text("http://127.0.0.1:9/\nnot a site ???\n")
    log = tmp_path / "crawl.log"
    proc = sitesift("crawl", str(sites), "--db", f"sqlite:///{tmp_path / 'x.db'}",
                    "--logfile", str(log), "-s", "SITESIFT_SCREENSHOTS=none")  # fmt: skip
    assert proc.returncode == 1, proc.stderr  # the one site cannot be reached
    assert f"sitesift: warning: {sites}:2:" in proc.stderr and "(line skipped)" in proc.stderr
    assert f"{sites}:2:" in log.read_text()


def test_missing_reference_page(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text("<html><body><p>Hello there.</p></body></html>")
    for ref in (tmp_path / "nosuch.html", tmp_path):
        proc = sitesift("extract", str(page), "--method", "layout", "--reference", str(ref))
        assert_clean_error(proc, "cannot read reference")
    empty, binary = tmp_path / "empty.html", tmp_path / "bin.dat"
    empty.write_text(" \n")
    binary.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    for ref, words in ((empty, "it is empty"), (binary, "not an HTML page: a PNG image")):
        proc = sitesift("extract", str(page), "--reference", str(ref))
        assert_clean_error(proc, f"reference {ref}: {words}")
    proc = sitesift("extract", str(page), "--method", "justext", "--reference", str(page))
    assert_clean_error(proc, "--reference is for --method layout or auto")
    assert_clean_error(sitesift("extract", ""), "no page given: name an HTML file")
    proc = sitesift("extract", str(page), "--url", "notaurl")
    assert_clean_error(proc, "--url takes the page's http(s) URL, got 'notaurl'")


def test_extract_reads_a_saved_pages_relative_dates_against_its_fetch_time(
    tmp_path: Path,
) -> None:
    stamps = ["3小时前", "昨天 14:20", "09:15"]
    items = "".join(
        f"<li class='item'><h3><a href='/p/{i}.html'>城市漫步指南第{i}篇：感受老街的季节</a></h3>"
        f"<span>作者{i} {stamp}</span></li>"
        for i, stamp in enumerate(stamps)
    )
    page = tmp_path / "list.html"
    page.write_text(f"<html><body><ul class='posts'>{items}</ul></body></html>", "utf-8")
    args = ["extract", str(page), "--url", "https://example.com/", "--json"]
    proc = sitesift(*args, "--fetched-at", "2024-05-10T04:00Z")  # noon in China
    assert proc.returncode == 0, proc.stderr
    days = [r["date"] for r in json.loads(proc.stdout)["records"]]
    assert days == ["2024-05-10", "2024-05-09", "2024-05-10"]
    assert_clean_error(sitesift(*args, "--fetched-at", "yesterday"), "--fetched-at takes a date")


def test_extract_method_names_ignore_case_and_layout_alone_says_what_it_lacks(
    tmp_path: Path,
) -> None:
    page = tmp_path / "page.html"
    page.write_text("<html><body><article><p>" + "The council met on Tuesday. " * 12
                    + "</p></article></body></html>")  # fmt: skip
    proc = sitesift("extract", str(page), "--method", "CETD", "--json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["method"] == "cetd", proc.stderr
    proc = sitesift("extract", str(page), "--method", "layout")
    assert proc.returncode == 0 and "The council met" in proc.stdout
    assert "without --reference has no template to remove" in proc.stderr


def test_extract_prints_markdown_with_the_pages_structure(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    para = "The council met on Tuesday and voted on the new budget for the parks. "
    page.write_text(f"<html><head><title>Budget | Ledger</title></head><body><article>"
                    f"<h1>Budget</h1><p>{para * 3}</p><ul>"
                    f"<li>{para}</li><li># {para}</li></ul></article></body></html>")  # fmt: skip
    proc = sitesift("extract", str(page), "--markdown")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("# Budget\n\n" + para * 2)
    assert proc.stdout.endswith(f"\n\n- {para.strip()}\n\n- \\# {para.strip()}\n")
    proc = sitesift("extract", str(page), "--markdown", "--json")
    assert_clean_error(proc, "not allowed with argument")
    # A list page: its records, each title linked to its page.
    index = Path(__file__).resolve().parents[1] / "demo" / "web" / "en" / "index.html"
    proc = sitesift("extract", str(index), "--markdown", "--url", "http://127.0.0.1/")
    assert proc.returncode == 0, proc.stderr
    items = [line for line in proc.stdout.splitlines() if line.startswith("- [")]
    assert len(items) >= 5 and all("](http://127.0.0.1/" in line for line in items)


@pytest.mark.parametrize(
    ("when", "words"),
    [
        (["--every", "999999999d"], "at most"),
        (["--every", "-5m"], "--every takes a duration like 30m"),  # not "expected one argument"
        (["--cron", "0 0 31 2 *"], "never matches"),
        (["--every", "1h", "--crawl-args", '--bogus "unterminated'], "--crawl-args"),
    ],
)
def test_bad_schedule(tmp_path: Path, sites: Path, when: list[str], words: str) -> None:
    db = f"sqlite:///{tmp_path / 'j.db'}"
    assert_clean_error(sitesift("schedule", "add", "x", "--sites", str(sites), "--db", db, *when),
                       words)  # fmt: skip


def test_a_job_needs_a_name_and_prune_checks_its_arguments(tmp_path: Path, sites: Path) -> None:
    db = f"sqlite:///{tmp_path / 'j.db'}"
    add = ("schedule", "add", " ", "--sites", str(sites), "--every", "1h", "--db", db)
    assert_clean_error(sitesift(*add), "a job needs a name")
    prune = ("prune-screenshots", "--db", db)
    assert_clean_error(sitesift(*prune, "--min-age", "-5"), "expected seconds (0 or more)")
    assert_clean_error(sitesift("scheduler", "--db", db, "--max-runs", "0"), "at least 1")
    assert_clean_error(sitesift(*prune, "--dir", str(tmp_path / "nope")), "no screenshot folder")


def test_schedule_help_lists_every_action() -> None:
    proc = sitesift("schedule", "--help")
    assert proc.returncode == 0
    for action in ("add", "list", "remove", "run-now"):
        assert f"    {action} " in proc.stdout, proc.stdout


def test_extract_into_a_closed_pipe(tmp_path: Path) -> None:
    page = tmp_path / "big.html"
    para = "The council met on Tuesday and agreed on a new plan for the buses of the city."
    paragraphs = "".join(f"<p>{i}. {para}</p>\n" for i in range(200))
    page.write_text(f"<html><body><article><h1>Buses</h1>{paragraphs}</article></body></html>")
    # the reader (`| head`) is gone before the page is written
    cmd = [sys.executable, "-m", "crawler.cli", "extract", str(page)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    stderr = proc.stderr.read().decode()
    # quiet, with the status of a Unix tool a closed pipe stopped (SIGPIPE)
    assert proc.wait(timeout=120) == 141
    assert "pipe" not in stderr.lower() and "Traceback" not in stderr, stderr


Handler = Callable[[BaseHTTPRequestHandler], None]


@pytest.fixture
def serve() -> Iterator[Callable[[Handler], str]]:
    """A real HTTP server on 127.0.0.1 answering GET with ``handler``."""
    servers: list[ThreadingHTTPServer] = []

    def start(handler: Handler) -> str:
        class Handle(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    handler(self)

            def log_message(self, *args: object) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handle)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/page"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def test_extract_url_uses_the_charset_header(serve: Callable[[Handler], str]) -> None:
    # no <meta charset>: only the header says Latin-1 (a guess reads cp1250: "ouvre ŕ")
    body = "<html><head><title>Café</title></head><body><article><p>Le café du coin "
    body += (
        "ouvre à sept heures. On y sert du café noir et des croissants.</p></article></body></html>"
    )

    def latin1(h: BaseHTTPRequestHandler) -> None:
        data = body.encode("iso-8859-1")
        h.send_response(200)
        h.send_header("Content-Type", "text/html; charset=iso-8859-1")
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)

    proc = sitesift("extract", serve(latin1))
    assert proc.returncode == 0, proc.stderr
    assert "ouvre à sept heures" in proc.stdout, proc.stdout


def test_extract_url_has_a_deadline(serve: Callable[[Handler], str]) -> None:
    def trickle(h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "text/html")
        h.send_header("Content-Length", "100000")
        h.end_headers()
        for _ in range(60):
            h.wfile.write(b"<p>x</p>")
            h.wfile.flush()
            time.sleep(0.2)

    started = time.monotonic()
    proc = sitesift("extract", serve(trickle), env={"SITESIFT_FETCH_DEADLINE": "1.5"})
    assert time.monotonic() - started < 8
    assert_clean_error(proc, "no complete page within 1.5 s")


# A page whose scripts write its article after it loaded (a forum or shop
# front end): its HTML body holds only the empty mount point.
SCRIPTED = """<html lang="en"><head><title>Where to start? - Help - Forum</title></head>
<body><div id="app"></div><script>
const paras = [
  "I have nothing smart in my apartment yet and want to start with a few door sensors.",
  "Start with lights and a door sensor: both are cheap, and they show you quickly what works.",
  "A hub that speaks the common radio standards keeps your choices open when you add more."];
setTimeout(() => {
  const article = document.createElement("article");
  for (const text of paras) {
    const p = document.createElement("p"); p.textContent = text; article.appendChild(p);
  }
  document.getElementById("app").appendChild(article);
}, 100);
</script></body></html>"""


def _page(body: str, status: int = 200) -> Handler:
    def answer(h: BaseHTTPRequestHandler) -> None:
        data = body.encode()
        h.send_response(status)
        h.send_header("Content-Type", "text/html; charset=utf-8")
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)

    return answer


def test_extract_render_runs_the_page_scripts(serve: Callable[[Handler], str]) -> None:
    url = serve(_page(SCRIPTED))
    plain = sitesift("extract", url)
    assert plain.returncode == 1 and "door sensor" not in plain.stdout
    assert "no main text found" in plain.stderr and "try --render" in plain.stderr
    rendered = sitesift("extract", url, "--render", "--json")
    assert rendered.returncode == 0, rendered.stderr
    result = json.loads(rendered.stdout)
    assert result["text"].splitlines()[1].startswith("Start with lights and a door sensor")
    assert result["page_type"] == "article" and result["language"] == "en"


def test_extract_render_keeps_the_bytes_a_wrong_header_misreads(
    serve: Callable[[Handler], str],
) -> None:
    story = "市政府周二宣布，新开通的公交线路将连接老城区和高铁站，全程约四十分钟。" * 3
    body = f"<html><head><title>公交新线</title></head><body><p>{story}</p></body></html>"

    def gbk_said_utf8(h: BaseHTTPRequestHandler) -> None:
        data = body.encode("gbk")
        h.send_response(200)
        h.send_header("Content-Type", "text/html; charset=utf-8")  # wrong
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)

    proc = sitesift("extract", serve(gbk_said_utf8), "--render")
    assert proc.returncode == 0, proc.stderr
    assert "新开通的公交线路" in proc.stdout and "\ufffd" not in proc.stdout


def test_extract_fetch_errors_are_one_clean_line(serve: Callable[[Handler], str]) -> None:
    proc = sitesift("extract", serve(_page("gone", 404)))
    assert_clean_error(proc, "HTTP 404")  # the status, as --render says it

    def loop(h: BaseHTTPRequestHandler) -> None:
        h.send_response(302)
        h.send_header("Location", h.path)
        h.end_headers()

    proc = sitesift("extract", serve(loop))
    assert_clean_error(proc, "a redirect loop")
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert_clean_error(sitesift("extract", "ftp://example.invalid/a"), "only http and https")


def test_extract_render_errors_are_clean(serve: Callable[[Handler], str], tmp_path: Path) -> None:
    assert_clean_error(sitesift("extract", serve(_page("gone", 404)), "--render"), "HTTP 404")
    with socket.socket() as probe:  # a port bound but not listening: refused
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}/page"
    assert_clean_error(sitesift("extract", closed, "--render"), "cannot render")
    busy = "<p>x</p><script>addEventListener('load', () => { while (true) {} })</script>"
    started = time.monotonic()
    proc = sitesift("extract", serve(_page(busy)), "--render", env={"SITESIFT_FETCH_DEADLINE": "4"})
    assert time.monotonic() - started < 12
    assert_clean_error(proc, "within 4 s")
    saved = tmp_path / "page.html"
    saved.write_text(SCRIPTED)
    assert_clean_error(sitesift("extract", str(saved), "--render"), "--render takes an http(s) URL")


def test_extract_url_cut_short(serve: Callable[[Handler], str]) -> None:
    def short(h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "text/html")
        h.send_header("Content-Length", "1000")
        h.end_headers()
        h.wfile.write(b"<html><body><p>only this</p>")
        h.close_connection = True

    assert_clean_error(sitesift("extract", serve(short)), "ended after 28 of 1000 bytes")


def test_extract_url_over_the_size_cap_is_an_error_as_in_a_crawl(
    serve: Callable[[Handler], str],
) -> None:
    from crawler.settings import DOWNLOAD_MAXSIZE

    def endless(h: BaseHTTPRequestHandler) -> None:  # no Content-Length: read to the cap
        h.send_response(200)
        h.send_header("Content-Type", "text/html")
        h.end_headers()
        h.wfile.write(b"<html><body>")
        block = b"<p>words</p>" * 8192
        for _ in range(DOWNLOAD_MAXSIZE // len(block) + 2):
            h.wfile.write(block)
        h.close_connection = True

    assert_clean_error(sitesift("extract", serve(endless)), "the page is over DOWNLOAD_MAXSIZE")


def test_extract_url_deadline_holds_while_headers_trickle(serve: Callable[[Handler], str]) -> None:
    """A server sending one header line every second never ends a read:
    the deadline counts from the connection on."""

    def slow_headers(h: BaseHTTPRequestHandler) -> None:
        h.wfile.write(b"HTTP/1.1 200 OK\r\n")
        for i in range(30):
            h.wfile.write(f"X-Slow-{i}: v\r\n".encode())
            h.wfile.flush()
            time.sleep(1)

    started = time.monotonic()
    proc = sitesift("extract", serve(slow_headers), env={"SITESIFT_FETCH_DEADLINE": "2"})
    assert time.monotonic() - started < 10
    assert_clean_error(proc, "no complete page within 2 s")


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        (b"THIS IS NOT HTTP\r\n\r\n", "a broken HTTP answer (BadStatusLine"),
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n<html><body><p>",
            "ended early",
        ),
        (
            b"HTTP/1.1 200 OK\r\n" + b"".join(b"X-%d: v\r\n" % i for i in range(120)) + b"\r\n",
            "broken HTTP answer",
        ),
    ],
)
def test_extract_url_broken_answers_are_clean_errors(
    serve: Callable[[Handler], str], answer: bytes, words: str
) -> None:
    def broken(h: BaseHTTPRequestHandler) -> None:
        h.wfile.write(answer)
        h.close_connection = True

    assert_clean_error(sitesift("extract", serve(broken)), words)


def test_extract_reads_gzip_pages_and_refuses_what_is_no_page(
    serve: Callable[[Handler], str], tmp_path: Path
) -> None:
    """A gzipped file (the datasets' page.html.gz) or a gzip-encoded answer is
    unpacked; a PDF is refused with what it is rather than an empty result."""
    import gzip

    page = b"<html><head><title>Packed</title></head><body><article><p>"
    page += b"A story that was stored compressed, and is read all the same. " * 4
    page += b"</p></article></body></html>"
    packed = tmp_path / "page.html.gz"
    packed.write_bytes(gzip.compress(page))
    proc = sitesift("extract", str(packed))
    assert proc.returncode == 0 and "stored compressed" in proc.stdout, proc.stderr

    def gzipped(h: BaseHTTPRequestHandler) -> None:
        data = gzip.compress(page)
        h.send_response(200)
        h.send_header("Content-Type", "text/html")
        h.send_header("Content-Encoding", "gzip")
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)

    proc = sitesift("extract", serve(gzipped).replace("http://", "HTTP://"))
    assert proc.returncode == 0 and "stored compressed" in proc.stdout, proc.stderr

    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 20)
    assert_clean_error(sitesift("extract", str(pdf)), "not an HTML page: a PDF document")

    # JSON or plain text is no page either: served so, or a file with no tag
    def json_answer(h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "application/json")
        h.end_headers()
        h.wfile.write(b'{"a": 1}')

    proc = sitesift("extract", serve(json_answer))
    assert_clean_error(proc, "not an HTML page: served as application/json")
    notes = tmp_path / "notes.txt"
    notes.write_text("line one\nline two\n")
    assert_clean_error(sitesift("extract", str(notes)), "not an HTML page: no markup in it")
    fragment = tmp_path / "fragment.html"  # a tag is enough for a file
    fragment.write_text("<p>A fragment of a page, one paragraph long, kept as it is.</p>")
    assert sitesift("extract", str(fragment)).stdout.startswith("A fragment of a page")


# -- settings are checked before the crawl starts ---------------------------------------


@pytest.mark.parametrize(
    ("setting", "words"),
    [
        ("SITESIFT_MAX_PAGES=abc", "SITESIFT_MAX_PAGES='abc' takes a whole number"),
        ("DOWNLOAD_TIMEOUT=abc", "DOWNLOAD_TIMEOUT='abc' takes a number"),
        ("SITESIFT_DENY_PRIVATE=maybe", "SITESIFT_DENY_PRIVATE='maybe' takes true or false"),
        ("SITESIFT_SCREENSHOTS=bogus", "SITESIFT_SCREENSHOTS='bogus' takes one of none, group"),
        ("SITESIFT_EXTRACT_METHOD=nope", "SITESIFT_EXTRACT_METHOD='nope' takes one of"),
        ("SITESIFT_MAX_PAGES=-5", "SITESIFT_MAX_PAGES='-5' must be at least 1"),
        ("DOWNLOAD_DELAY=-1", "DOWNLOAD_DELAY='-1' must be at least 0"),
        ("DOWNLOAD_TIMEOUT=inf", "DOWNLOAD_TIMEOUT='inf' takes a finite number"),
        ("SITESIFT_DEDUP_NEAR_THRESHOLD=2", "SITESIFT_DEDUP_NEAR_THRESHOLD='2' is a share"),
        ("SITESIFT_ALLOW_NETWORKS=10.0.0.0/33", "'10.0.0.0/33' is not an address or network"),
        ("SITESIFT_SCREENSHOT_QUALITY=150", "screenshot quality must be between 1 and 100"),
        ("SITESIFT_SCREENSHOT=none", "no such setting (did you mean SITESIFT_SCREENSHOTS?)"),
        # Scrapy's own flags and numbers, read by Scrapy as the crawl starts
        ("ROBOTSTXT_OBEY=maybe", "ROBOTSTXT_OBEY='maybe' takes true or false"),
        ("RETRY_TIMES=x", "RETRY_TIMES='x' takes a number"),
        ("LOG_LEVEL=loud", "LOG_LEVEL='LOUD' takes one of CRITICAL, ERROR"),
    ],
)
def test_a_bad_setting_stops_the_crawl(
    tmp_path: Path, sites: Path, setting: str, words: str
) -> None:
    db = tmp_path / "x.db"
    proc = sitesift("crawl", str(sites), "--db", f"sqlite:///{db}", "-s", setting)
    assert_clean_error(proc, words)
    assert "Spider error" not in proc.stderr and not db.exists()  # refused before it started


def test_a_bad_setting_from_the_environment(tmp_path: Path, sites: Path) -> None:
    db = f"sqlite:///{tmp_path / 'x.db'}"
    proc = sitesift("crawl", str(sites), "--db", db, env={"SITESIFT_CRAWL_DELAY_CAP": "soon"})
    assert_clean_error(proc, "SITESIFT_CRAWL_DELAY_CAP='soon' (from the environment) takes a")


def test_good_settings_are_not_refused(tmp_path: Path) -> None:
    from tests.local_site import serving

    db = tmp_path / "x.db"
    sites = tmp_path / "sites.txt"
    good = ["DOWNLOAD_TIMEOUT=2.5", "SITESIFT_DENY_PRIVATE=False", "SITESIFT_SCREENSHOTS=NONE",
            "SITESIFT_MAX_PAGES=2", "CONCURRENT_REQUESTS=4", "ROBOTSTXT_OBEY=false",
            "RETRY_TIMES=1", "LOG_LEVEL=info", "DEPTH_PRIORITY=-1",
            "CLOSESPIDER_TIMEOUT=600.5"]  # fmt: skip
    with serving(lambda path: "<html><body><p>Hello.</p></body></html>") as url:
        sites.write_text(url + "\n")
        settings = [arg for pair in good for arg in ("-s", pair)]
        env = {"SITESIFT_FOLLOW_FEEDS": "off", "SITESIFT_CRAWL_DELAY_CAP": "0"}
        typo = ["-s", "DOWNLOAD_DELAYY=9"]  # unknown: passed on, with a warning
        proc = sitesift("crawl", str(sites), "--db", f"sqlite:///{db}", *settings, *typo, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    warnings = [line for line in proc.stderr.splitlines() if "not a setting of" in line]
    assert warnings == [
        "sitesift: warning: -s DOWNLOAD_DELAYY: not a setting of Scrapy or sitesift, "
        "passed on for extensions (did you mean DOWNLOAD_DELAY?)"
    ]
    import sqlite3

    with sqlite3.connect(db) as conn:
        assert conn.execute("select count(*) from pages where outcome = 'ok'").fetchone()[0] >= 1


# -- commands that read never create a database --------------------------------------


def _tables(db: Path) -> list[str]:
    import sqlite3

    with contextlib.closing(sqlite3.connect(db)) as conn:
        return [r[0] for r in conn.execute("select name from sqlite_master where type='table'")]


@pytest.mark.parametrize(
    "command",
    [
        ["status"],
        ["export", "-o", "OUT"],
        ["schedule", "list"],
        ["prune-screenshots"],
        ["scheduler", "--max-runs", "1"],
    ],  # fmt: skip
)
def test_reading_commands_leave_a_foreign_database_alone(
    tmp_path: Path, command: list[str]
) -> None:
    import sqlite3

    foreign, empty = tmp_path / "other.db", tmp_path / "empty.db"
    with contextlib.closing(sqlite3.connect(foreign)) as conn:
        conn.execute("create table notes (x text)")
        conn.commit()
    empty.touch()
    args = [str(tmp_path / "out.jsonl") if arg == "OUT" else arg for arg in command]
    for db in (foreign, empty):
        proc = sitesift(*args, "--db", f"sqlite:///{db}", cwd=tmp_path)
        assert_clean_error(proc, "is not a sitesift database (no schema_info table)")
    assert _tables(foreign) == ["notes"] and empty.stat().st_size == 0
    proc = sitesift(*args, "--db", f"sqlite:///{tmp_path / 'none.db'}", cwd=tmp_path)
    assert_clean_error(proc, "no database at")
    assert not (tmp_path / "none.db").exists()


def test_resume_with_nothing_to_resume_says_so(tmp_path: Path, sites: Path) -> None:
    db = f"sqlite:///{tmp_path / 'x.db'}"
    proc = sitesift("crawl", str(sites), "--db", db, "--resume", "-s", "RETRY_TIMES=0")
    assert "Traceback" not in proc.stderr and "resuming runs" not in proc.stderr, proc.stderr
    assert f"no page of an interrupted crawl of {sites} stored; crawling anew" in proc.stderr


def test_status_reads_a_crawled_database(tmp_path: Path, sites: Path) -> None:
    db = f"sqlite:///{tmp_path / 'x.db'}"
    crawl = sitesift("crawl", str(sites), "--db", db, "-s", "RETRY_TIMES=0")
    assert crawl.returncode == 1, crawl.stderr[-2000:]  # its one site is dead
    proc = sitesift("status", "--db", db, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "127.0.0.1:9: 1 failed" in proc.stdout
    assert "pages not ok" not in proc.stdout
    # where it looked for items waiting, in full
    spool = Path(os.environ["XDG_STATE_HOME"], "sitesift", "spool")  # tests' own (conftest)
    assert re.search(rf"^spool: nothing waiting in {spool}/db-\w{{16}}$", proc.stdout, re.M)
    listed = sitesift("status", "--db", db, "--failures", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    line = next(x for x in listed.stdout.splitlines() if "http://127.0.0.1:9/" in x)
    assert line.split()[0] == "failed" and "refused" in line.lower(), listed.stdout
    assert "pages not ok: 1, the latest 1:" in listed.stdout
    counted = sitesift("status", "--db", db, "--failures", "0", cwd=tmp_path).stdout
    assert "pages not ok: 1\n" in counted and "http://127.0.0.1:9/" not in counted
    assert_clean_error(sitesift("status", "--db", db, "--failures", "-1"), "at least 0")


def test_export_page_type_offers_only_what_articles_hold(tmp_path: Path) -> None:
    # List pages keep records, not articles: asking for them exported nothing.
    proc = sitesift("export", "--db", f"sqlite:///{tmp_path / 'x.db'}", "--page-type", "list")
    assert_clean_error(proc, "invalid choice: 'list'")


def test_status_reports_the_spool_when_the_database_is_down(tmp_path: Path) -> None:
    """A database down is when people ask whether their items are safe:
    status says why it cannot open it, then what the spool holds."""
    from pipelines.spool import Spool

    down = "postgresql+psycopg://nobody@127.0.0.1:1/none"  # nothing listens on port 1
    spool = Spool(tmp_path / "spool", down)
    spool.write([{"url": "http://a.example/1"}, {"url": "http://a.example/2"}])
    spool.keep_run_end(7, {"finished_at": "2026-01-01T00:00:00", "finish_reason": "finished"})
    spool.reject({"url": "http://a.example/3"}, "value too long")
    other = Spool(spool.root, f"sqlite:///{tmp_path / 'other.db'}")  # another crawl's, told apart
    other.write([{"url": "http://b.example/1"}])
    proc = sitesift("status", "--db", down, "--spool-dir", str(spool.root))
    assert_clean_error(proc, "cannot open database")
    assert proc.stdout.splitlines() == [
        f"spool: 2 item(s) waiting in {spool.directory}",
        f"rejected: 1 item(s) the database refused, kept in {spool.directory / 'rejected.jsonl'}",
        f"spool: 1 run end(s) waiting in {spool.directory}",
        f"spool: 1 item(s) waiting in {other.directory} for sqlite:///{tmp_path / 'other.db'}",
    ]
    empty = sitesift("status", "--db", down, "--spool-dir", str(tmp_path / "none"))
    assert_clean_error(empty, "cannot open database")
    assert empty.stdout == ""  # one line, the error: nothing waits


def test_a_database_that_opens_then_fails_gets_one_line(tmp_path: Path) -> None:
    """A database that opens and then fails in its queries (here a damaged
    schema: columns renamed by hand) ends status and export with one line
    and exit 1, not a traceback; status still reports the spool."""
    import sqlite3

    from pipelines.schema import connect
    from pipelines.spool import Spool

    path = tmp_path / "damaged.db"
    connect(f"sqlite:///{path}").dispose()
    with sqlite3.connect(path) as conn:
        conn.execute("ALTER TABLE pages RENAME COLUMN outcome TO outcome_old")
        conn.execute("ALTER TABLE articles RENAME COLUMN text TO text_old")
    db = f"sqlite:///{path}"
    spool = Spool(tmp_path / "spool", db)
    spool.write([{"url": "http://a.example/1"}])
    status = sitesift("status", "--db", db, "--spool-dir", str(spool.root))
    export = sitesift("export", "--db", db, "-o", str(tmp_path / "out.jsonl"))
    # an export reads both tables (an article says its page's last outcome)
    for proc, columns in (
        (status, ("pages.outcome",)),
        (export, ("pages.outcome", "articles.text")),
    ):
        assert proc.returncode == 1, proc.stderr
        assert "Traceback" not in proc.stderr
        lines = [f"sitesift: error: the database failed: no such column: {c}\n" for c in columns]
        assert proc.stderr in lines, proc.stderr
    assert status.stdout == f"spool: 1 item(s) waiting in {spool.directory}\n"


def test_extract_says_when_a_page_has_no_main_text(tmp_path: Path) -> None:
    empty = tmp_path / "empty.html"
    empty.write_text("<html><head><title>Nothing here</title></head><body></body></html>")
    proc = sitesift("extract", str(empty))
    # exit 1 as grep's: ran well, found nothing
    assert proc.returncode == 1 and proc.stdout.startswith("Nothing here"), proc.stderr
    assert "no main text found (auto, page type other)" in proc.stderr
    assert "render" not in proc.stderr  # a file, and no script


def test_workers_share_the_cpus_out_unless_told(monkeypatch: pytest.MonkeyPatch) -> None:
    """`--workers N` gives each of its crawls a part of the extraction
    processes one crawl would have; none below two (its own thread); what
    the environment says is kept."""
    from crawler import settings
    from crawler.cli import _worker_env

    monkeypatch.setattr(settings, "SITESIFT_EXTRACT_PROCESSES", 8)  # an 8-CPU machine
    shares = {n: _worker_env({}, n)["SITESIFT_EXTRACT_PROCESSES"] for n in (1, 2, 4, 8)}
    assert shares == {1: "8", 2: "4", 4: "2", 8: "0"}
    told = {"SITESIFT_EXTRACT_PROCESSES": "3", "PATH": "/bin"}
    assert _worker_env(dict(told), 4) == told
