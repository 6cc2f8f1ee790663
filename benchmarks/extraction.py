"""The extraction scoreboard: every sitesift method and every peer, same pages,
one process (or a few workers), one table per dataset.

    python -m benchmarks.extraction                     # default sets, --limit 100
    python -m benchmarks.extraction --limit 0 --jobs 2  # everything
    python -m benchmarks.extraction --sets daniel-zh --methods cetd,trafilatura

Each page is decoded once (``decode_html``) and the same text goes to every
method; each call is timed and bounded by ``--timeout`` (a method that hangs
scores 0 on that page and the run goes on). Quality: shingle P/R/F1 (the
ScrapingHub benchmark's aggregation), LCS character P/R/F1 (mean per page; the
SCEDD seed's metric) and, where the truth has snippets, trafilatura's snippet
P/R/F1. Speed: pages per second and time as a multiple of lxml's parse alone.
Tables go to stdout and ``benchmarks/results/extraction.{md,json}``.
"""

from __future__ import annotations

import argparse
import json
import logging
import multiprocessing
import platform
import re
import signal
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from benchmarks import datasets, metrics
from benchmarks.peers import PEER_MODULES, PEERS, SPEED_ONLY, installed
from extractors.encoding import decode_html

RESULTS = Path(__file__).resolve().parent / "results"
DEFAULT_SETS = tuple(s for s in datasets.SETS if s != "pagetype")  # pagetype has no text truth
DEFAULT_LIMIT = 100  # pages per set: ~630 pages, a few minutes on 2 cores
DEFAULT_TIMEOUT = 20.0  # seconds per page and method
SNIPPET_ONLY = frozenset({"trafilatura-eval"})  # truth is snippets, not the whole text
SPEED_FLOOR = "lxml-parse"
BENCH_EXTRA = "pip install -e '.[bench]', or make bench-extraction"

MethodFn = Callable[[str, str | None, str | None], str]
_XML_DECL = re.compile(r"^\s*<\?xml[^>]*\?>")


@dataclass(frozen=True, slots=True)
class Method:
    name: str
    by: str  # "sitesift" or "peer"
    fn: MethodFn


@dataclass(slots=True)
class PageScore:
    """One method on one page."""

    set: str
    id: str
    group: str | None
    method: str
    seconds: float
    status: str  # ok | error | timeout
    shingle: tuple[float, float, float] | None = None  # normalised tp, fp, fn
    lcs: tuple[float, float, float] | None = None  # p, r, f1
    snippets: tuple[int, int, int, int] | None = None  # tp, fn, fp, tn
    chars: int = 0
    error: str | None = None


# -- methods --------------------------------------------------------------------


def _sitesift(name: str, fn: Callable[..., Any]) -> MethodFn:
    def run(text: str, url: str | None, lang: str | None) -> str:
        return fn(text, url).text or ""

    run.__name__ = f"sitesift_{name}"
    return run


def resolve_methods(names: Sequence[str] | None = None) -> tuple[list[Method], list[str]]:
    """The methods to run (all sitesift methods and peers by default) and notes
    on those skipped because their module is not there (a peer not installed)."""
    from extractors import METHODS

    wanted = list(names) if names else [*METHODS.keys(), *PEERS]
    methods: list[Method] = []
    notes: list[str] = []
    for name in wanted:
        if name in PEERS:
            if not installed(name):
                module = PEER_MODULES[name]
                notes.append(f"skipped peer {name!r}: {module} is not installed ({BENCH_EXTRA})")
                continue
            methods.append(Method(name, "peer", PEERS[name]))
        elif name in METHODS:
            try:
                methods.append(Method(name, "sitesift", _sitesift(name, METHODS[name])))
            except (ImportError, AttributeError) as exc:
                notes.append(f"skipped sitesift method {name!r}: {type(exc).__name__}: {exc}")
        else:
            raise SystemExit(f"unknown method {name!r}")
    if not any(m.name == SPEED_FLOOR for m in methods):
        methods.insert(0, Method(SPEED_FLOOR, "peer", PEERS[SPEED_FLOOR]))
    return methods, notes


# -- running one page -----------------------------------------------------------


class _Timeout(BaseException):
    """Raised by the alarm; a BaseException so `except Exception` in a method
    cannot swallow it."""


def _on_alarm(signum: int, frame: Any) -> None:
    raise _Timeout


def call_with_timeout(
    fn: MethodFn, args: tuple, timeout: float
) -> tuple[str, float, str, str | None]:
    """Run one method once: ``(text, seconds, status, error)``. Uses SIGALRM,
    so it bounds Python code; a long call inside C returns late but returns."""
    use_alarm = timeout > 0 and hasattr(signal, "setitimer")
    if use_alarm:
        previous = signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, timeout)
    start = time.perf_counter()
    try:
        out, status, error = fn(*args), "ok", None
    except _Timeout:
        out, status, error = "", "timeout", f"over {timeout:g} s"
    except Exception as exc:  # noqa: BLE001 - a failing method scores 0, the run goes on
        out, status, error = "", "error", f"{type(exc).__name__}: {exc}"[:200]
    finally:
        seconds = time.perf_counter() - start
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    return out if isinstance(out, str) else "", seconds, status, error


def page_input(page: datasets.Page) -> str:
    """The decoded page every method gets (an XML declaration is dropped:
    after decoding it only makes lxml refuse a str)."""
    text, _ = decode_html(page.html)
    return _XML_DECL.sub("", text, count=1)


def group_of(page: datasets.Page) -> str | None:
    """Sub-table of a page: wcxb-dev article / list / other, magic-html kind."""
    if page.set == "wcxb-dev":
        if page.kind == "article":
            return "article"
        return "list" if page.kind in ("collection", "listing") else "other"
    if page.set == "magic-html":
        return page.kind
    return None


def score(page: datasets.Page, method: str, out: str, seconds: float, status: str) -> PageScore:
    result = PageScore(page.set, page.id, group_of(page), method, seconds, status, chars=len(out))
    if method in SPEED_ONLY:
        return result
    if "with" in page.truth:
        result.snippets = metrics.snippet_counts(
            out, page.truth.get("with") or [], page.truth.get("without") or []
        )
    if page.set not in SNIPPET_ONLY:
        result.shingle = metrics.shingle_counts(out, page.truth_text)
        result.lcs = metrics.lcs_prf(out, page.truth_text)
    return result


def run_page(page: datasets.Page, methods: Sequence[Method], timeout: float) -> list[PageScore]:
    """Every method on one page, scored."""
    text = page_input(page)
    scores = []
    for m in methods:
        out, seconds, status, error = call_with_timeout(m.fn, (text, page.url, page.lang), timeout)
        s = score(page, m.name, out, seconds, status)
        s.error = error
        scores.append(s)
    return scores


_WARMUP = (
    "<html><head><title>t</title></head><body><div><p>"
    + "Warm-up paragraph with a few English words in it. " * 8
    + "</p><p>"
    + "这是一个用于预热的中文段落，包含一些常见的词语。" * 8
    + "</p></div></body></html>"
)


def warm_up(methods: Sequence[Method]) -> None:
    """Load lazy resources (jieba, stoplists, models) before any timing."""
    for m in methods:
        for lang in ("en", "zh"):
            call_with_timeout(m.fn, (_WARMUP, None, lang), 60.0)


# -- workers --------------------------------------------------------------------

_worker_methods: list[Method] = []
_worker_timeout = DEFAULT_TIMEOUT


def _init_worker(names: list[str], timeout: float) -> None:
    global _worker_methods, _worker_timeout
    _worker_methods, _ = resolve_methods(names)
    _worker_timeout = timeout
    warm_up(_worker_methods)


def _work(page: datasets.Page) -> list[PageScore]:
    return run_page(page, _worker_methods, _worker_timeout)


def run_pages(
    pages: Iterable[datasets.Page],
    methods: Sequence[Method],
    timeout: float = DEFAULT_TIMEOUT,
    jobs: int = 1,
    progress: Callable[[str], None] | None = None,
) -> Iterator[PageScore]:
    """Score every method on every page, in page order."""
    if jobs <= 1:
        warm_up(methods)
        for page in pages:
            yield from run_page(page, methods, timeout)
            if progress:
                progress(page.set)
        return
    ctx = multiprocessing.get_context("fork")
    names = [m.name for m in methods]
    with ctx.Pool(jobs, initializer=_init_worker, initargs=(names, timeout)) as pool:
        for page_scores in pool.imap(_work, pages, chunksize=2):
            yield from page_scores
            if progress and page_scores:
                progress(page_scores[0].set)


def mean_char_f1(
    method: str, pages: Sequence[datasets.Page], timeout: float = DEFAULT_TIMEOUT
) -> float:
    """Mean LCS character F1 of one method over pages (the quality gate's
    number); a page whose method fails or hangs counts 0."""
    methods, notes = resolve_methods([method])
    if notes:
        raise RuntimeError("; ".join(notes))
    chosen = [m for m in methods if m.name == method]
    scores = [s for s in run_pages(pages, chosen, timeout) if s.lcs is not None]
    return statistics.fmean(s.lcs[2] for s in scores) if scores else 0.0


# -- aggregation ----------------------------------------------------------------


@dataclass(slots=True)
class Row:
    """One method on one (set, group)."""

    set: str
    group: str
    method: str
    by: str
    pages: int
    shingle_p: float | None
    shingle_r: float | None
    shingle_f1: float | None
    char_p: float | None
    char_r: float | None
    char_f1: float | None
    snippet_p: float | None
    snippet_r: float | None
    snippet_f1: float | None
    pages_per_s: float
    x_lxml: float | None
    seconds: float
    errors: int
    timeouts: int


def _mean(values: list[float]) -> float | None:
    return statistics.fmean(values) if values else None


def make_row(
    set_name: str, group: str, method: Method, scores: list[PageScore], floor_s: float
) -> Row:
    seconds = sum(s.seconds for s in scores)
    shingles = [s.shingle for s in scores if s.shingle is not None]
    lcs = [s.lcs for s in scores if s.lcs is not None]
    snippets = [s.snippets for s in scores if s.snippets is not None]
    sp, sr, sf = metrics.shingle_corpus_prf(shingles) if shingles else (None, None, None)
    np_, nr, nf = metrics.snippet_corpus_prf(snippets) if snippets else (None, None, None)
    return Row(
        set=set_name,
        group=group,
        method=method.name,
        by=method.by,
        pages=len(scores),
        shingle_p=sp,
        shingle_r=sr,
        shingle_f1=sf,
        char_p=_mean([x[0] for x in lcs]),
        char_r=_mean([x[1] for x in lcs]),
        char_f1=_mean([x[2] for x in lcs]),
        snippet_p=np_,
        snippet_r=nr,
        snippet_f1=nf,
        pages_per_s=len(scores) / seconds if seconds else float("inf"),
        x_lxml=seconds / floor_s if floor_s else None,
        seconds=seconds,
        errors=sum(s.status == "error" for s in scores),
        timeouts=sum(s.status == "timeout" for s in scores),
    )


def aggregate(scores: list[PageScore], methods: Sequence[Method]) -> list[Row]:
    """Rows per set, per group ("all" first), per method."""
    by_key: dict[tuple[str, str, str], list[PageScore]] = defaultdict(list)
    for s in scores:
        by_key[(s.set, "all", s.method)].append(s)
        if s.group:
            by_key[(s.set, s.group, s.method)].append(s)
    rows = []
    groups = sorted({(k[0], k[1]) for k in by_key}, key=lambda g: (g[0], g[1] != "all", g[1]))
    for set_name, group in groups:
        floor = sum(s.seconds for s in by_key.get((set_name, group, SPEED_FLOOR), []))
        for m in methods:
            page_scores = by_key.get((set_name, group, m.name))
            if page_scores:
                rows.append(make_row(set_name, group, m, page_scores, floor))
    return rows


def main_score(row: Row) -> float | None:
    """The one number per set: char F1, or snippet F1 where only snippets exist."""
    return row.snippet_f1 if row.set in SNIPPET_ONLY else row.char_f1


def summarize(rows: list[Row], methods: Sequence[Method]) -> list[dict[str, Any]]:
    """Per method: main score per set, their mean, overall speed."""
    overall = [r for r in rows if r.group == "all"]
    sets = sorted({r.set for r in overall})
    floor = sum(r.seconds for r in overall if r.method == SPEED_FLOOR)
    out = []
    for m in methods:
        mine = {r.set: r for r in overall if r.method == m.name}
        if not mine:
            continue
        per_set = {s: main_score(mine[s]) if s in mine else None for s in sets}
        scored = [v for v in per_set.values() if v is not None]
        pages = sum(r.pages for r in mine.values())
        seconds = sum(r.seconds for r in mine.values())
        out.append(
            {
                "method": m.name,
                "by": m.by,
                "per_set": per_set,
                "mean": statistics.fmean(scored) if scored else None,
                "pages": pages,
                "pages_per_s": pages / seconds if seconds else None,
                "x_lxml": seconds / floor if floor else None,
                "errors": sum(r.errors for r in mine.values()),
                "timeouts": sum(r.timeouts for r in mine.values()),
            }
        )
    return out


# -- rendering ------------------------------------------------------------------


def _f(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _speed(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value:.0f}" if value >= 10 else f"{value:.1f}"


def render_summary(summary: list[dict[str, Any]]) -> str:
    if not summary:
        return ""
    sets = list(summary[0]["per_set"])
    head = ["method", "by", *sets, "mean", "pages/s", "× lxml", "err/t.o."]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    ranked = sorted(summary, key=lambda s: -(s["mean"] if s["mean"] is not None else -1))
    for s in ranked:
        cells = [s["method"], s["by"], *(_f(s["per_set"][k]) for k in sets), _f(s["mean"])]
        cells += [_speed(s["pages_per_s"]), _speed(s["x_lxml"]), f"{s['errors']}/{s['timeouts']}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def render_rows(rows: list[Row]) -> str:
    parts = []
    tables: dict[tuple[str, str], list[Row]] = defaultdict(list)
    for r in rows:
        tables[(r.set, r.group)].append(r)
    for (set_name, group), table in tables.items():
        snippets = any(r.snippet_f1 is not None for r in table)
        text = any(r.char_f1 is not None for r in table)
        head = ["method", "by"]
        head += ["shingle P", "R", "F1", "char P", "R", "F1"] if text else []
        head += ["snippet P", "R", "F1"] if snippets else []
        head += ["pages/s", "× lxml", "err/t.o."]
        title = set_name if group == "all" else f"{set_name} — {group}"
        parts.append(f"### {title} ({table[0].pages} pages)\n")
        parts.append("| " + " | ".join(head) + " |")
        parts.append("|" + "---|" * len(head))
        ranked = sorted(table, key=lambda r: -(main_score(r) or -1))
        for r in ranked:
            cells = [r.method, r.by]
            if text:
                cells += [_f(r.shingle_p), _f(r.shingle_r), _f(r.shingle_f1)]
                cells += [_f(r.char_p), _f(r.char_r), _f(r.char_f1)]
            if snippets:
                cells += [_f(r.snippet_p), _f(r.snippet_r), _f(r.snippet_f1)]
            cells += [_speed(r.pages_per_s), _speed(r.x_lxml), f"{r.errors}/{r.timeouts}"]
            parts.append("| " + " | ".join(cells) + " |")
        parts.append("")
    return "\n".join(parts)


def render(report: dict[str, Any]) -> str:
    cfg = report["config"]
    lines = [
        "# Extraction scoreboard",
        "",
        f"Command: `{cfg['command']}`  ",
        f"Pages: {report['pages']} · wall time {report['wall_seconds']:.0f} s · "
        f"jobs {cfg['jobs']} · timeout {cfg['timeout']:g} s/page · {cfg['machine']}",
        "",
        "Main score: LCS character F1 (mean per page); trafilatura-eval: snippet F1. "
        "Shingle F1: F1 of mean shingle P and R (article-extraction-benchmark). "
        "× lxml: time over lxml's parse alone on the same pages.",
        "",
    ]
    lines += [f"- note: {n}" for n in report["notes"]]
    lines += ["", "## Summary", "", render_summary(report["summary"]), "", "## Per dataset", ""]
    lines.append(render_rows([Row(**r) for r in report["rows"]]))
    return "\n".join(lines)


# -- command line ---------------------------------------------------------------


def _split(value: str | None) -> list[str] | None:
    return [v.strip() for v in value.split(",") if v.strip()] if value else None


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.extraction", description=__doc__)
    parser.add_argument("--sets", help=f"comma-separated (default: {','.join(DEFAULT_SETS)})")
    parser.add_argument(
        "--methods", help="comma-separated sitesift methods and peers (default: all)"
    )
    parser.add_argument(
        "--limit", type=int, default=DEFAULT_LIMIT, help="first N pages per set; 0 = all"
    )
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds per page")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (pages split)")
    parser.add_argument("--out", type=Path, default=RESULTS / "extraction", help="output prefix")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    return parser.parse_args(argv)


class _Progress:
    def __init__(self, total: int, quiet: bool) -> None:
        self.total, self.quiet, self.done = total, quiet, 0
        self.start = time.perf_counter()

    def __call__(self, set_name: str) -> None:
        self.done += 1
        if self.quiet or (self.done % 10 and self.done != self.total):
            return
        elapsed = time.perf_counter() - self.start
        eta = elapsed / self.done * (self.total - self.done)
        print(
            f"\r[{set_name}] {self.done}/{self.total} pages, {elapsed:.0f} s, eta {eta:.0f} s ",
            end="",
            file=sys.stderr,
            flush=True,
        )


def run(args: argparse.Namespace) -> dict[str, Any]:
    sets = _split(args.sets) or list(DEFAULT_SETS)
    methods, notes = resolve_methods(_split(args.methods))
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    limit = args.limit or None
    total = sum(min(datasets.count(s), limit or 10**9) for s in sets)
    pages = (p for s in sets for p in datasets.load(s, limit))
    start = time.perf_counter()
    scores = list(run_pages(pages, methods, args.timeout, args.jobs, _Progress(total, args.quiet)))
    wall = time.perf_counter() - start
    if not args.quiet:
        print(file=sys.stderr)
    rows = aggregate(scores, methods)
    return {
        "config": {
            "command": "python -m benchmarks.extraction " + " ".join(sys.argv[1:]),
            "sets": sets,
            "methods": [m.name for m in methods],
            "limit": limit,
            "timeout": args.timeout,
            "jobs": args.jobs,
            "machine": f"{platform.python_implementation()} {platform.python_version()}, "
            f"{multiprocessing.cpu_count()} cores",
        },
        "notes": notes,
        "pages": total,
        "wall_seconds": wall,
        "summary": summarize(rows, methods),
        "rows": [asdict(r) for r in rows],
        "_scores": scores,
    }


def save(report: dict[str, Any], prefix: Path) -> str:
    """Write ``<prefix>.md``, ``<prefix>.json`` and per-page ``<prefix>-pages.jsonl``."""
    prefix.parent.mkdir(parents=True, exist_ok=True)
    scores: list[PageScore] = report.pop("_scores")
    text = render(report)
    prefix.with_suffix(".md").write_text(text + "\n", encoding="utf-8")
    prefix.with_suffix(".json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    with open(f"{prefix}-pages.jsonl", "w", encoding="utf-8") as fh:
        for s in scores:
            fh.write(json.dumps(asdict(s), ensure_ascii=False) + "\n")
    return text


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    # Peers' own warnings (boilerpy3's SAX notes, trafilatura's) would drown the progress line.
    for name in ("boilerpy3", "trafilatura", "readability", "gne"):
        logging.getLogger(name).setLevel(logging.ERROR)
    report = run(args)
    print(save(report, args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
