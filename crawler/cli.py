"""The ``sitesift`` command.

    sitesift crawl sites.txt [--db URL] [-O out.jsonl] [-s NAME=VALUE] ...
    sitesift extract FILE_OR_URL [--method NAME] [--url URL] [--json | --markdown]
    sitesift export --format jsonl|json|csv|markdown --output PATH [filters] [--db URL]
    sitesift status [--db URL] [--failures [N]]
    sitesift schedule add NAME --sites FILE (--cron EXPR | --every 6h) [--db URL]
    sitesift schedule list | remove NAME | run-now NAME
    sitesift scheduler [--db URL]

Bad input (a missing site list, an unreachable database, an unwritable
output) ends with a one-line message and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import signal
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

from crawler.cli_data import CLIError, cli_date, reader_left

if TYPE_CHECKING:
    from extractors import Document

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
_ANY_TAG = re.compile(rb"<[a-zA-Z!/?]")


def _project_settings(overrides: list[str], log_level: str | None):  # noqa: ANN202
    os.environ.setdefault("SCRAPY_SETTINGS_MODULE", "crawler.settings")
    from scrapy.utils.project import get_project_settings

    settings = get_project_settings()
    for pair in overrides:
        name, sep, value = pair.partition("=")
        name = name.strip()
        if not sep or not name:
            raise CLIError(f"-s takes NAME=VALUE, got {pair!r}")
        if name.upper().startswith("SITESIFT_") and name not in settings:
            raise CLIError(f"-s {name}: no such setting{_did_you_mean(name, settings)}")
        if name not in settings:  # an extension's own setting, or a typo
            print(f"sitesift: warning: -s {name}: not a setting of Scrapy or sitesift, "
                  f"passed on for extensions{_did_you_mean(name, settings, everything=True)}",
                  file=sys.stderr)  # fmt: skip
        if name == "LOG_LEVEL":
            value = value.strip().upper()  # as --loglevel: logging knows upper case only
        settings.set(name, value, priority="cmdline")
    if log_level:
        settings.set("LOG_LEVEL", log_level.upper(), priority="cmdline")
    return settings


def _did_you_mean(name: str, settings, everything: bool = False) -> str:  # noqa: ANN001
    """A hint naming the setting a misspelt -s name is closest to: among
    sitesift's, or ``everything`` Scrapy knows too."""
    import difflib

    known = [k for k in settings if everything or k.startswith("SITESIFT_")]
    close = difflib.get_close_matches(name.upper(), known, n=1, cutoff=0.8 if everything else 0.6)
    if close:
        return f" (did you mean {close[0]}?)"
    return "" if everything else " (see crawler/settings.py)"


def check_crawl_settings(settings, only: set[str] | None = None) -> None:  # noqa: ANN001
    """Refuse bad -s / SITESIFT_* values up front: read mid-crawl they fail
    every request or are silently ignored, and the crawl still exits 0."""
    from crawler.settings import check_settings

    problems = check_settings(settings, only)
    if problems:
        raise CLIError("bad setting: " + "; ".join(problems))


def _check_appendable(path: str) -> None:
    """-o appends: a second JSON array or XML document after the first makes
    a file no reader takes (JSON lines and CSV rows append fine)."""
    file = Path(path).expanduser()
    if file.suffix.lower() in (".json", ".xml") and file.is_file() and file.stat().st_size:
        raise CLIError(f"-o {path} would append a second {file.suffix[1:].upper()} document "
                       "to it, which no reader takes; use -O to overwrite it, or a .jsonl "
                       "file to append to")  # fmt: skip


def _check_output(path: str) -> None:
    """Refuse a feed Scrapy could not write: it would log the error and the
    crawl would still exit 0."""
    if path in ("-", "stdout:") or "://" in path:
        return
    if Path(path).expanduser().is_dir():
        raise CLIError(f"output {path} is a folder; -o/-O take a file")
    parent = Path(path).expanduser().resolve().parent
    if not parent.is_dir():
        raise CLIError(f"output folder {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise CLIError(f"output folder {parent} is not writable")
    # Some folders pass the access check and refuse a new file (/proc, a
    # read-only mount): open it as the feed will, and leave no trace.
    file = Path(path).expanduser()
    existed = file.exists()
    try:
        with file.open("ab"):
            pass
    except OSError as exc:
        raise CLIError(f"output {path} cannot be written: {exc.strerror or exc}") from None
    if not existed:
        file.unlink(missing_ok=True)


def check_site_list(path: str) -> list[Any]:
    """Refuse a site list that is missing or has no usable line, with its
    line errors on stderr (the spider would stop on it with a traceback);
    else the lines it will skip (``SiteListError``)."""
    from crawler.sitelist import SiteListFileError, read_usable_site_list

    try:
        return read_usable_site_list(path)[1]
    except SiteListFileError as exc:
        for error in exc.errors:
            print(f"sitesift: {error}", file=sys.stderr)
        raise CLIError(str(exc)) from None


def check_database(settings, open_it: bool = False) -> None:  # noqa: ANN001
    """Refuse a SITESIFT_DB that is no database URL or path; ``open_it``:
    also one we cannot open (a new SQLite file is made)."""
    from pipelines.schema import DatabaseError, check_url, connect

    try:
        check_url(settings.get("SITESIFT_DB"))
        if open_it:
            connect(settings.get("SITESIFT_DB")).dispose()
    except DatabaseError as exc:
        raise CLIError(str(exc)) from None


def cmd_crawl(args: argparse.Namespace) -> int:
    from scrapy.crawler import CrawlerProcess
    from scrapy.utils.conf import feed_process_params_from_cli

    skipped_lines = check_site_list(args.sites)
    if args.logfile:  # the spider logs them there; the terminal would show nothing
        for error in skipped_lines:
            print(f"sitesift: warning: {error} (line skipped)", file=sys.stderr)
    if args.crawl_id and not (args.workers or args.redis):
        raise CLIError("--crawl-id names a shared crawl: give it with --redis URL or --workers N")
    settings = _project_settings(args.set, args.loglevel)
    if args.db:
        settings.set("SITESIFT_DB", args.db, priority="cmdline")
    if args.max_pages is not None:
        settings.set("SITESIFT_MAX_PAGES", args.max_pages, priority="cmdline")
    if args.depth is not None:
        settings.set("SITESIFT_MAX_DEPTH", args.depth, priority="cmdline")
    if args.jobdir:
        settings.set("JOBDIR", args.jobdir, priority="cmdline")
    if args.resume:
        settings.set("SITESIFT_RESUME", True, priority="cmdline")
    if args.logfile:
        settings.set("LOG_FILE", args.logfile, priority="cmdline")
    check_crawl_settings(settings)
    check_database(settings)  # opened (made) once all else passed
    feeds: dict[str, dict[str, Any]] = {}
    if outputs := args.output or args.overwrite_output:
        for path in outputs:
            _check_output(path)
        for path in args.output or []:
            _check_appendable(path)
        try:
            feeds = feed_process_params_from_cli(
                settings,
                args.output or [],
                overwrite_output=args.overwrite_output or [],
            )
        except Exception as exc:  # scrapy raises UsageError for unknown formats
            if "Unrecognized output format" not in str(exc):
                raise CLIError(str(exc)) from None
            endings = ", .".join(sorted(settings.getwithbase("FEED_EXPORTERS")))
            raise CLIError(f"{' '.join(outputs)}: unknown feed format; name a file ending in "
                           f".{endings} (or FILE:FORMAT)") from None  # fmt: skip
    crawl_id = None
    if args.workers or args.redis:
        redis_url = args.redis or settings.get("SITESIFT_WORKERS_REDIS")
        if args.workers:
            _check_worker_feeds(feeds)
        crawl_id = _join_redis_crawl(settings, redis_url, args)
    if not args.workers:
        _check_log_and_job_paths(args)
    check_database(settings, open_it=True)  # made here, once, not by each worker
    if args.workers:
        return _run_workers(args, redis_url, crawl_id, feeds)
    if feeds:
        settings.set("FEEDS", feeds, priority="cmdline")

    process = CrawlerProcess(settings)
    crawler = process.create_crawler("site")
    for name in ("scrapy.extensions.feedexport", "scrapy.utils.signal"):
        logging.getLogger(name).addFilter(_OneLineErrors(OSError))
    # A robots.txt that cannot be downloaded and a page the browser cannot
    # load (Playwright's own errors) are a dead site's, recorded with their
    # reason: no traceback.
    from playwright.async_api import Error as BrowserError

    logging.getLogger("scrapy.downloadermiddlewares.robotstxt").addFilter(_OneLineErrors(Exception))
    logging.getLogger("scrapy-playwright").addFilter(_OneLineErrors(BrowserError))
    process.crawl(crawler, sites=args.sites)
    process.start()
    stats = crawler.stats.get_stats() if crawler.stats else {}
    if any(key.startswith("feedexport/failed_count/") for key in stats):
        print("sitesift: the feed (-o/-O) could not be written; see the error above",
              file=sys.stderr)  # fmt: skip
        return EXIT_FAILED
    if stats.get("finish_reason") != "finished":
        return EXIT_FAILED
    if failed := _nothing_fetched(stats):
        print(f"sitesift: no page could be fetched ({failed} failed); the failures"
              " are recorded (sitesift status --failures)", file=sys.stderr)  # fmt: skip
        return EXIT_FAILED
    if skipped := _all_skipped(stats):
        print(f"sitesift: no page stored: all {skipped} were skipped (not HTML, not due,"
              " a refused address or a trap); the reasons are recorded"
              " (sitesift status --failures)", file=sys.stderr)  # fmt: skip
    return EXIT_OK


def _nothing_fetched(stats: dict[str, Any]) -> int:
    """The failed fetches of a crawl where every fetch failed, else 0. A
    skipped page (not HTML, not due, a trap) is no failure: a run whose
    every page was not due is empty, not failed."""
    from crawler.items import Outcome

    if _stored(stats):
        return 0
    failures = set(Outcome) - {Outcome.OK, Outcome.SKIPPED}
    return sum(stats.get(f"sitesift/pages/{outcome}", 0) for outcome in failures)


def _all_skipped(stats: dict[str, Any]) -> int:
    """The skipped pages of a crawl that stored no page, else 0: no failure
    (the exit status stays 0), but a user should hear why the database got
    no page."""
    return 0 if _stored(stats) else stats.get("sitesift/pages/skipped", 0)


def _stored(stats: dict[str, Any]) -> bool:
    return bool(stats.get("sitesift/pages/ok") or stats.get("sitesift/pages/unchanged"))


def _check_log_and_job_paths(args: argparse.Namespace) -> None:
    """Scrapy opens --logfile and creates --jobdir itself, with a traceback
    when it cannot: try both first so the user gets one line."""
    if args.logfile:
        try:
            with open(args.logfile, "a", encoding="utf-8"):
                pass
        except OSError as exc:
            raise CLIError(f"cannot write log file {args.logfile}: {exc.strerror}") from None
    if args.jobdir:
        try:
            Path(args.jobdir).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CLIError(f"cannot use job folder {args.jobdir}: {exc.strerror}") from None


class _OneLineErrors(logging.Filter):
    """Scrapy logs some errors with a traceback where a user needs one line
    (a feed it cannot write on a full disk). Only errors of the given kind
    lose their stack: for a feed, OS errors, which are the machine's; a bug
    keeps its traceback."""

    def __init__(self, kind: type[BaseException]) -> None:
        super().__init__()
        self.kind = kind

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and isinstance(error := record.exc_info[1], self.kind):
            message = record.getMessage()
            first = str(error).split("\n", 1)[0]
            record.msg = message if first in message else f"{message}: {first}"
            record.args, record.exc_info, record.exc_text = (), None, None
        return True


T = TypeVar("T")

# Seconds `sitesift extract URL` may spend on one page in all: a per-read
# timeout alone lets a server that trickles bytes hold the command forever.
# SITESIFT_FETCH_DEADLINE overrides it.
FETCH_DEADLINE = 30.0


def _fetch_deadline() -> float:
    text = os.environ.get("SITESIFT_FETCH_DEADLINE", "")
    try:
        value = float(text) if text else FETCH_DEADLINE
    except ValueError:
        raise CLIError(f"SITESIFT_FETCH_DEADLINE takes seconds, got {text!r}") from None
    if not 0 < value < float("inf"):
        raise CLIError(f"SITESIFT_FETCH_DEADLINE takes seconds, got {text!r}")
    return value


def _fetch(url: str) -> tuple[bytes, str | None]:
    """One page over HTTP(S) for `sitesift extract URL` and its Content-Type
    (its charset decodes the page), bounded in time and size; a body cut
    short is an error, not a truncated text."""
    deadline = _fetch_deadline()
    return _by_deadline(
        lambda: _fetch_within(url, deadline),
        deadline,
        f"cannot fetch {url}: no complete page within {deadline:g} s",
    )


def _by_deadline(work: Callable[[], T], deadline: float, late: str) -> T:
    """``work()``'s answer, or a CLIError saying ``late`` once ``deadline``
    seconds (and one more) have passed. The deadline holds from the
    connection on: the work runs in a thread the command stops waiting for
    (a server sending one header line every few seconds never ends a read;
    a page whose script never yields never answers the browser)."""
    import threading

    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["answer"] = work()
        except Exception as exc:  # handed to the waiting thread
            outcome["error"] = exc

    worker = threading.Thread(target=run, name="sitesift-fetch", daemon=True)
    worker.start()
    worker.join(deadline + 1.0)
    if worker.is_alive():
        raise CLIError(late)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["answer"]


def _fetch_within(url: str, deadline: float) -> tuple[bytes, str | None]:
    import http.client
    import time
    import urllib.error
    import urllib.request

    from crawler.settings import DOWNLOAD_MAXSIZE, USER_AGENT

    end = time.monotonic() + deadline
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    chunks: list[bytes] = []
    size = 0
    try:
        with urllib.request.urlopen(request, timeout=min(30.0, deadline)) as response:
            expected = response.length
            while size < DOWNLOAD_MAXSIZE:
                if time.monotonic() > end:
                    raise CLIError(f"cannot fetch {url}: no complete page within {deadline:g} s "
                                   f"({size} of {expected or 'unknown'} bytes)")  # fmt: skip
                chunk = response.read1(min(65536, DOWNLOAD_MAXSIZE - size))
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
            if size >= DOWNLOAD_MAXSIZE and response.read1(1):  # as a crawl records it
                raise CLIError(f"cannot fetch {url}: the page is over DOWNLOAD_MAXSIZE "
                               f"({DOWNLOAD_MAXSIZE} bytes)")  # fmt: skip
            if response.length and size < DOWNLOAD_MAXSIZE:
                raise CLIError(f"cannot fetch {url}: the page ended after {size} of "
                               f"{expected} bytes")  # fmt: skip
            content_type = response.headers.get("Content-Type")
            coding = (response.headers.get("Content-Encoding") or "").strip().lower()
    except http.client.IncompleteRead:
        raise CLIError(f"cannot fetch {url}: the page ended early ({size} bytes read)") from None
    except http.client.HTTPException as exc:  # not HTTP, too many or too long headers
        why = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        raise CLIError(f"cannot fetch {url}: a broken HTTP answer ({why})") from None
    except urllib.error.HTTPError as exc:  # after urllib's redirects (10 at most)
        redirect = 300 <= exc.code < 400
        why = "a redirect loop (or over 10 redirects)" if redirect else f"HTTP {exc.code}"
        raise CLIError(f"cannot fetch {url}: {why}") from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise CLIError(f"cannot fetch {url}: {getattr(exc, 'reason', exc)}") from None
    data = b"".join(chunks)
    if coding in ("gzip", "x-gzip", "deflate"):
        data = _decompressed(data, url)
    elif coding not in ("", "identity"):
        raise CLIError(f"cannot fetch {url}: the page came in an encoding it cannot undo "
                       f"(Content-Encoding: {coding})")  # fmt: skip
    return data, content_type


def _decompressed(data: bytes, source: str) -> bytes:
    """A gzip (or zlib) body or file unpacked, at most DOWNLOAD_MAXSIZE bytes
    of it (a small bomb must not fill the memory)."""
    import zlib

    from crawler.settings import DOWNLOAD_MAXSIZE

    try:
        unpacker = zlib.decompressobj(wbits=47)  # gzip or zlib, by the header
        out = unpacker.decompress(data, DOWNLOAD_MAXSIZE)
    except zlib.error as exc:
        raise CLIError(f"cannot read {source}: a broken compressed page ({exc})") from None
    if unpacker.unconsumed_tail:
        raise CLIError(f"cannot read {source}: over {DOWNLOAD_MAXSIZE} bytes once unpacked")
    return out


def _rendered(url: str) -> tuple[str | bytes, str | None]:
    """The page's HTML after Chromium ran its scripts (``crawler.render``),
    within the fetch deadline."""
    from crawler.render import Rendered, RenderError, render

    deadline = _fetch_deadline()

    def work() -> Rendered:
        try:
            return render(url, deadline)
        except RenderError as exc:
            raise CLIError(f"cannot render {url}: {exc}") from None

    page = _by_deadline(work, deadline, f"cannot render {url}: no page within {deadline:g} s")
    if page.status is not None and page.status >= 400:
        raise CLIError(f"cannot fetch {url}: HTTP {page.status}")
    return page.html, page.content_type


def _not_a_page(data: bytes, content_type: str | None) -> str | None:
    """Why bytes given to `sitesift extract` are no page, or None: binary
    data; a body served as another type (JSON, plain text), as a crawl
    records it; a file or stdin with no tag at all."""
    from extractors.encoding import BINARY_KINDS, looks_binary, served_as_other

    if looks_binary(data, content_type):
        kind = next((n for magic, n in BINARY_KINDS.items() if data.startswith(magic)), None)
        return f"not an HTML page: {kind or 'binary data'}"
    if other := served_as_other(content_type, data):
        return f"not an HTML page: served as {other}"
    if not content_type and data.strip() and not _ANY_TAG.search(data[:65536]):
        return "not an HTML page: no markup in it (plain text?)"
    return None


def cmd_extract(args: argparse.Namespace) -> int:
    from extractors import METHODS, as_document, extract

    args.method = args.method.lower()
    if args.method not in METHODS:
        raise CLIError(f"unknown method {args.method!r}; choose from {', '.join(METHODS)}")
    if args.reference and args.method not in ("layout", "auto"):
        raise CLIError("--reference is for --method layout or auto")
    if args.method == "layout" and not args.reference:
        print("sitesift: --method layout without --reference has no template to remove:"
              " only its link rules apply", file=sys.stderr)  # fmt: skip
    if not args.file.strip():
        raise CLIError("no page given: name an HTML file, an http(s) URL, or - for stdin")
    if args.url and not re.match(r"https?://[^/\s]", args.url, re.I):
        raise CLIError(f"--url takes the page's http(s) URL, got {args.url!r}")
    fetched_at = cli_date(args.fetched_at, "--fetched-at") or datetime.now(UTC)
    url, content_type = args.url, None
    scheme = re.match(r"([a-z][a-z0-9+.-]*)://", args.file, re.I)
    is_url = bool(scheme) and scheme.group(1).lower() in ("http", "https")
    if scheme and not is_url:
        raise CLIError(f"cannot fetch {args.file}: only http and https URLs are fetched")
    data: bytes | str
    if args.render:
        if not is_url:
            raise CLIError("--render takes an http(s) URL (a saved page is already rendered)")
        (data, content_type), url = _rendered(args.file), url or args.file
    elif is_url:
        (data, content_type), url = _fetch(args.file), url or args.file
    else:
        try:
            data = sys.stdin.buffer.read() if args.file == "-" else Path(args.file).read_bytes()
        except OSError as exc:
            raise CLIError(f"cannot read {args.file}: {exc.strerror}") from None
        if data.startswith(b"\x1f\x8b"):  # page.html.gz
            data = _decompressed(data, args.file)
    if isinstance(data, bytes) and (why := _not_a_page(data, content_type)):
        raise CLIError(f"{args.file}: {why}")
    try:
        reference = [Path(p).read_bytes() for p in args.reference] or None
    except OSError as exc:
        raise CLIError(f"cannot read reference {exc.filename}: {exc.strerror}") from None
    for path, page in zip(args.reference, reference or [], strict=True):
        if why := ("it is empty" if not page.strip() else _not_a_page(page, None)):
            raise CLIError(f"reference {path}: {why}")  # it would remove nothing, unsaid
    doc = as_document(data, url, content_type)
    if doc.cut_short:
        from extractors.document import MAX_CHARS

        print(f"sitesift: warning: {args.file}: over {MAX_CHARS:,} characters of markup "
              "once scripts and styles are left out; only the first ones were read",
              file=sys.stderr)  # fmt: skip
    if blocked := _block_page(doc):
        print(f"sitesift: {args.file}: {blocked} (a captcha or access-denied page; "
              "a crawl records it as blocked): nothing extracted", file=sys.stderr)  # fmt: skip
        return EXIT_FAILED
    result = extract(doc, url=url, method=args.method, reference=reference,
                     fetched_at=fetched_at)  # fmt: skip
    if args.json:
        output = json.dumps(result.to_dict(), ensure_ascii=False, indent=2) + "\n"
    elif args.markdown:
        from extractors.markdown import line_kinds, markdown_heading, records_markdown, to_markdown

        output = f"{markdown_heading(result.title)}\n\n" if result.title else ""
        if result.records:  # a list page: its entries, linked
            output += records_markdown(result.records) + "\n"
        else:
            output += to_markdown(result.text, line_kinds([doc], result.text)) + "\n"
    else:
        output = f"{result.title}\n\n" if result.title else ""
        output += f"{result.text}\n"
    found = bool(result.text.strip())
    if not found and not args.json:  # say so, rather than leave a blank screen
        scripted = re.search("<script" if isinstance(data, str) else b"<script", data, re.I)
        hint = "; its scripts may fill it: try --render" if is_url and scripted else ""
        print(f"sitesift: no main text found ({result.method}, page type "
              f"{result.page_type or 'unknown'}){hint}", file=sys.stderr)  # fmt: skip
    try:
        sys.stdout.write(output)
        sys.stdout.flush()
    except BrokenPipeError:
        return reader_left()
    return EXIT_OK if found else EXIT_FAILED  # as grep: 1 = nothing found


def _block_page(doc: Document) -> str | None:
    """The crawl's block-page rule (``crawler.blocking``) on one page, with
    no URL group to compare it with: block phrases on a short page."""
    from crawler.blocking import BlockDetector
    from extractors.document import text_content

    return BlockDetector().check("", text_content(doc.body), doc.title or "")


def _whole_number(minimum: int) -> Callable[[str], int]:
    """An argparse type: a whole number of at least ``minimum``, the rule the
    site list's own options follow."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = minimum - 1
        if value < minimum:
            raise argparse.ArgumentTypeError(
                f"expected a whole number of at least {minimum}, got {text!r}"
            )
        return value

    return parse


_positive_int, _non_negative_int = _whole_number(1), _whole_number(0)


LOG_LEVELS = ("CRITICAL", "ERROR", "WARNING", "INFO", "DEBUG")


class _RaisingParser(argparse.ArgumentParser):
    """A parser whose errors are CLIErrors, for arguments checked ahead of time."""

    def error(self, message: str) -> NoReturn:
        raise CLIError(message)


def check_crawl_args(sites: str, extra: list[str]) -> None:
    """Refuse crawl arguments `sitesift crawl` would reject, and bad -s values:
    a scheduled job should fail when it is added, not at every run."""
    if {"-h", "--help"} & set(extra):
        raise CLIError("--help is not a crawl argument")
    try:
        args = build_parser(_RaisingParser).parse_args(["crawl", sites, *extra])
    except SystemExit:  # an abbreviation of --help
        raise CLIError("--help is not a crawl argument") from None
    names = {pair.partition("=")[0].strip() for pair in args.set}
    if args.db is not None or "SITESIFT_DB" in names:
        raise CLIError("a job crawls into the schedule's database: give --db to "
                       "'sitesift schedule', not in --crawl-args")  # fmt: skip
    settings = _project_settings(args.set, args.loglevel)
    check_crawl_settings(settings, only=names)


# Crawl flags whose value is a path: a job's relative path is made absolute
# when the job is added, as its site list is (the scheduler runs elsewhere).
_PATH_FLAGS = ("--output", "--overwrite-output", "--logfile", "--jobdir")
_SHORT_PATH_FLAGS = ("-o", "-O")


def absolute_crawl_paths(extra: list[str]) -> list[str]:
    """``extra`` (crawl arguments that passed :func:`check_crawl_args`) with
    the paths of -o/-O/--logfile/--jobdir made absolute, in any of argparse's
    spellings (``-O x``, ``-Ox``, ``--output=x``, ``--out x``); stdout and
    URIs are kept."""

    def absolute(value: str) -> str:
        if value in ("-", "stdout:") or "://" in value:
            return value
        return os.path.abspath(os.path.expanduser(value))

    def path_flag(token: str) -> bool:
        return token in _SHORT_PATH_FLAGS or (
            len(token) > 2 and any(flag.startswith(token) for flag in _PATH_FLAGS)
        )  # an abbreviation argparse took is of one flag alone

    out: list[str] = []
    tokens = iter(extra)
    for token in tokens:
        flag, eq, value = token.partition("=")
        if token.startswith("--") and eq and path_flag(flag):
            out.append(f"{flag}={absolute(value)}")
        elif path_flag(token):
            out += [token, *(absolute(v) for v in [next(tokens, None)] if v is not None)]
        elif token[:2] in _SHORT_PATH_FLAGS and len(token) > 2:
            out.append(token[:2] + absolute(token[2:]))
        else:
            out.append(token)
    return out


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("sitesift")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "(not installed)"


def build_parser(parser_class: type[argparse.ArgumentParser] = argparse.ArgumentParser
                 ) -> argparse.ArgumentParser:  # fmt: skip
    parser = parser_class(
        prog="sitesift",
        description="Crawl a list of sites, classify every page and extract clean "
        "articles and list records (English and Chinese).",
    )
    parser.add_argument("--version", action="version", version=f"sitesift {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    crawl = sub.add_parser(
        "crawl",
        help="crawl every site of a site list into the database",
        description="Crawl every site in SITES (one start URL per line, '#' comments, "
        "optional per-site options such as 'max_pages=200 depth=4') and store every "
        "page and every failure in the database.",
        epilog="A site's own max_pages and depth in SITES win over --max-pages and "
        "--depth. Exit status: 0 finished; 1 stopped early (Ctrl-C, a database that "
        "failed) or no page could be fetched; 2 bad input (site list, options, database URL).",
    )
    crawl.add_argument("sites", help="the site list file")
    crawl.add_argument("--db", help="SQLAlchemy database URL (default: sqlite:///sitesift.db)")
    crawl.add_argument(
        "-o",
        "--output",
        action="append",
        metavar="FILE",
        help="append items to FILE (format by extension: jsonl, json, csv, xml)",
    )
    crawl.add_argument(
        "-O",
        "--overwrite-output",
        action="append",
        metavar="FILE",
        help="write items to FILE, overwriting it",
    )
    crawl.add_argument(
        "-s",
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set a Scrapy or SITESIFT_* setting (repeatable)",
    )
    crawl.add_argument("-L", "--loglevel", type=str.upper, choices=LOG_LEVELS,
                       help="log level (default INFO)")  # fmt: skip
    crawl.add_argument("--logfile", help="write the log to this file")
    crawl.add_argument("--jobdir", help="keep crawl state here to pause and resume (Scrapy JOBDIR)")
    crawl.add_argument(
        "--resume",
        action="store_true",
        help="continue an interrupted crawl of the same site list: pages it stored "
        "are not fetched again",
    )
    crawl.add_argument("--max-pages", type=_positive_int, help="pages per site (default 1000)")
    crawl.add_argument(
        "--redis",
        metavar="URL",
        help="join a crawl shared through this Redis (scrapy-redis): run the same "
        "command on any number of machines; each URL is fetched once",
    )
    crawl.add_argument(
        "--workers",
        type=_positive_int,
        metavar="N",
        help="start N local worker processes of one shared crawl "
        "(Redis: --redis, default redis://127.0.0.1:6379/0); -o/-O FILE.jsonl gets "
        "every worker's items (joined when they end)",
    )
    crawl.add_argument(
        "--crawl-id",
        help="name of the shared crawl, with --redis or --workers (default: a hash of the "
        "site list)",
    )
    crawl.add_argument(
        "--depth", type=_non_negative_int, help="link hops from the start URL (default 10)"
    )
    crawl.set_defaults(func=cmd_crawl)

    ext = sub.add_parser(
        "extract",
        help="extract the main text of one page (file or URL)",
        description="Extract the main content of an HTML file, a URL, or - for stdin.",
        epilog="Exit status: 0 main text found, 1 none found, 2 an error (a page that "
        "cannot be read or fetched), 141 the reader of its output left (| head).",
    )
    ext.add_argument("file", metavar="FILE_OR_URL", help="HTML file, http(s) URL, or - for stdin")
    from extractors import METHODS

    ext.add_argument(
        "--method",
        default="auto",
        help="extraction method: auto (the default) picks for the page; "
        f"{', '.join(m for m in METHODS if m != 'auto')} run alone",
    )
    ext.add_argument("--url", help="the page's URL (resolves links, helps metadata)")
    ext.add_argument(
        "--fetched-at",
        metavar="TIME",
        help="when a saved page was fetched (ISO 8601, UTC unless a zone is given): its "
        "relative dates (3小时前, 2 days ago, a list entry's 昨天 14:20) are read against it "
        "(default: now)",
    )
    ext.add_argument(
        "--reference",
        action="append",
        default=[],
        metavar="FILE",
        help="a page of the same template, for --method layout",
    )
    shown = ext.add_mutually_exclusive_group()
    shown.add_argument("--json", action="store_true", help="print the whole result as JSON")
    shown.add_argument(
        "--markdown",
        action="store_true",
        help="print the title and text as Markdown, with the page's headings, lists, "
        "quotations, tables and code marked up (a list page: its records, each title "
        "linked to its page)",
    )
    ext.add_argument(
        "--render",
        action="store_true",
        help="load the URL in Chromium and extract what its scripts show (pages a plain "
        "fetch finds empty); within SITESIFT_FETCH_DEADLINE seconds",
    )
    ext.set_defaults(func=cmd_extract)
    from crawler.cli_data import add_data_commands

    add_data_commands(sub)
    return parser


def _join_redis_crawl(settings, redis_url: str, args: argparse.Namespace) -> str:  # noqa: ANN001
    """Make this process a worker of the crawl shared through ``redis_url``."""
    import redis

    from crawler.distributed import crawl_id_for, quick_client, redis_settings

    if args.jobdir:
        raise CLIError("--jobdir and --redis do not mix: a distributed crawl's state is in Redis")
    try:
        quick_client(redis_url).ping()
    except (redis.RedisError, ValueError) as exc:
        raise CLIError(f"cannot reach Redis at {redis_url}: {exc}") from None
    crawl_id = args.crawl_id or crawl_id_for(args.sites)
    for name, value in redis_settings(redis_url, crawl_id).items():
        settings.set(name, value, priority="cmdline")
    return crawl_id


_JSON_LINES = ("jsonlines", "jsonl", "jl")
# Options a worker does not inherit: it is given its own feed file instead.
_FEED_OPTIONS = ("-o", "--output", "-O", "--overwrite-output")


def _check_worker_feeds(feeds: dict[str, dict[str, Any]]) -> None:
    """Workers write a feed file each, joined into the one asked for when
    they end: only JSON lines join into a valid file (a second JSON array,
    XML document or CSV header would not), and stdout would interleave."""
    for uri, options in feeds.items():
        if uri in ("-", "stdout:") or "://" in uri:
            raise CLIError(f"--workers writes feeds to local files, not {uri}")
        if options.get("format") not in _JSON_LINES:
            raise CLIError(f"--workers joins its workers' feeds into one JSON lines file; "
                           f"{uri} is {options.get('format')} (name it .jsonl, or export "
                           "from the database afterwards: sitesift export)")  # fmt: skip


def _worker_argv(argv: list[str]) -> list[str]:
    """The command line without --workers and the feed options."""
    out: list[str] = []
    args = iter(argv)
    for arg in args:
        if arg == "--workers" or arg in _FEED_OPTIONS:
            next(args, None)  # and its value
        elif arg.startswith(("--workers=", "--output=", "--overwrite-output=")) or (
            arg[:2] in ("-o", "-O") and len(arg) > 2
        ):
            continue
        else:
            out.append(arg)
    return out


def _feed_part(uri: str, worker: int) -> Path:
    path = Path(uri).expanduser()
    return path.with_name(f"{path.name}.worker{worker}.part")


def _join_feeds(feeds: dict[str, dict[str, Any]], workers: int) -> None:
    """Append (-o) or write (-O) each feed from its workers' parts, whole
    lines only (a worker killed mid-line leaves half a line), and remove
    the parts."""
    for uri, options in feeds.items():
        target = Path(uri).expanduser()
        overwrite = bool(options.get("overwrite"))
        dest = target.with_name(target.name + ".part") if overwrite else target
        with dest.open("wb" if overwrite else "ab") as out:
            for worker in range(workers):
                part = _feed_part(uri, worker)
                if part.is_file():
                    with part.open("rb") as lines:
                        out.writelines(line for line in lines if line.endswith(b"\n"))
        if overwrite:
            dest.replace(target)
        for worker in range(workers):
            _feed_part(uri, worker).unlink(missing_ok=True)


def _run_workers(
    args: argparse.Namespace, redis_url: str, crawl_id: str, feeds: dict[str, dict[str, Any]]
) -> int:
    """``--workers N``: N worker processes of one crawl on this machine, each
    with a feed file of its own, joined into the one asked for at the end."""
    import subprocess

    argv = _worker_argv(args.argv) + ["--redis", redis_url, "--crawl-id", crawl_id]
    command = [sys.executable, "-m", "crawler.cli", *argv]
    print(f"sitesift: {args.workers} workers on crawl {crawl_id} ({redis_url})", file=sys.stderr)
    env = _worker_env(dict(os.environ), args.workers)
    children = []
    for worker in range(args.workers):
        own = [f"{_feed_part(uri, worker)}:jsonlines" for uri in feeds]
        # Their own session: the terminal's Ctrl-C reaches this process alone,
        # which passes each press on once (a worker, and its browser, that got
        # the terminal's and ours would take one press for two: a forced stop).
        argv_own = command + [a for f in own for a in ("-O", f)]
        children.append(subprocess.Popen(argv_own, start_new_session=True, env=env))
    presses = 0
    try:
        while True:
            try:
                codes = [child.wait() for child in children]
                break
            except KeyboardInterrupt:
                presses += 1
                for child in children:
                    if child.poll() is None:
                        child.send_signal(signal.SIGINT)
    finally:
        if feeds:
            _join_feeds(feeds, args.workers)
    print(f"sitesift: workers exited with {codes}", file=sys.stderr)
    _print_totals(redis_url, crawl_id, [child.pid for child in children])
    if presses:
        print(f"sitesift: stopped early (Ctrl-C): run the same command again to go on; crawl "
              f"{crawl_id} keeps its frontier in Redis", file=sys.stderr)  # fmt: skip
    return max(codes)


def _worker_env(env: dict[str, str], workers: int) -> dict[str, str]:
    """The workers' environment: the CPUs shared out, each worker getting its
    part of the extraction processes one crawl would have (none below two:
    its own thread), unless the environment already says how many."""
    if "SITESIFT_EXTRACT_PROCESSES" not in env:
        from crawler import settings

        share = settings.SITESIFT_EXTRACT_PROCESSES // workers
        env["SITESIFT_EXTRACT_PROCESSES"] = str(share if share > 1 else 0)
    return env


def _print_totals(redis_url: str, crawl_id: str, pids: list[int]) -> None:
    """One line of the workers' counts together (each printed its own)."""
    import redis

    from crawler.distributed import workers_totals

    try:
        totals = workers_totals(redis_url, crawl_id, pids)
    except redis.RedisError as exc:
        print(f"sitesift: the workers' counts are in Redis, not reachable: {exc}",
              file=sys.stderr)  # fmt: skip
        return
    print(f"sitesift: {len(pids)} workers together: fetched {totals['fetched']}, stored "
          f"{totals['stored']}, failed {totals['failed']}", file=sys.stderr)  # fmt: skip


# Options whose value may start with "-": a command line of its own, and a
# duration (--every -5m is then refused by its own check, not argparse's).
_COMMAND_LINE_OPTIONS = ("--crawl-args", "--every")


def _glued(argv: list[str]) -> list[str]:
    """``--crawl-args "--resume"`` as ``--crawl-args=--resume``: argparse
    takes a value that starts with "-" for an option and reports it missing."""
    out: list[str] = []
    args = iter(argv)
    for arg in args:
        value = next(args, None) if arg in _COMMAND_LINE_OPTIONS else None
        out.append(arg if value is None else f"{arg}={value}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    raw = _glued(list(sys.argv[1:] if argv is None else argv))
    args = parser.parse_args(raw)
    args.argv = raw
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        return args.func(args)
    except CLIError as exc:
        print(f"sitesift: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:  # commands that run on (crawl, scheduler) handle it themselves
        print("sitesift: interrupted (Ctrl-C)", file=sys.stderr)
        return EXIT_FAILED
    except BrokenPipeError:  # status, schedule list... | head
        return reader_left()
    except Exception as exc:
        # A database that opened and then failed (went away, a damaged or
        # foreign schema): one line, not a traceback.
        from sqlalchemy.exc import SQLAlchemyError

        if not isinstance(exc, SQLAlchemyError):
            raise
        from pipelines.schema import error_line

        print(f"sitesift: error: the database failed: {error_line(exc)}", file=sys.stderr)
        return EXIT_FAILED


def run() -> NoReturn:
    """The ``sitesift`` command. Once ``main`` has returned, a Ctrl-C has
    nothing left to stop: ignored, it can no longer kill the teardown (the
    spool of a forced stop is written then), nor turn a stopped crawl's
    status 1 into death by SIGINT (a second press right after a quick
    graceful stop did)."""
    code = main()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.exit(code)


if __name__ == "__main__":
    run()
