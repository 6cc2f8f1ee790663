"""Metadata scoreboard: title, publish date and author against the truth,
sitesift beside trafilatura and GNE, on the same pages in one run.

    python -m benchmarks.metadata               # every page of the sets with such truth
    python -m benchmarks.metadata --limit 50    # first 50 pages per set (quick)

Sets and fields: titles of daniel-en, daniel-zh (their truth's first line),
zh-news, readability and wcxb-dev; publish dates of zh-news, readability and
wcxb-dev; authors of zh-news, readability (its ``byline``) and wcxb-dev.

Matching (see :func:`same_title`, :func:`same_day`, :func:`same_author`):
a title matches when it equals the truth once case, width, spaces and
punctuation are ignored; "close" when their characters agree at an F1 of 0.9
(a site name left on, a subtitle). A date matches on the calendar day. An
author matches when one name holds the other (bylines carry "By", a second
author, a role). Recall counts the pages whose truth has the field; precision
the pages where the method gave one and the truth has one (a page may show a
date or an author its truth does not record, which cannot be judged).

Methods: ``sitesift`` is ``extractors.extract`` (auto) with the page's URL;
``trafilatura`` is ``trafilatura.extract_metadata`` and ``gne``
GeneralNewsExtractor (both from the ``bench`` extra; a missing one is left
out with a note). The table goes to stdout and ``benchmarks/results/metadata.md``.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
import unicodedata
import warnings
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing import Pool
from pathlib import Path
from typing import Any

from benchmarks import datasets
from benchmarks.extraction import call_with_timeout, page_input
from benchmarks.peers import installed
from benchmarks.publish import RESULTS, publish

FIELDS = ("title", "date", "author")
# Which fields each set's truth holds.
SETS: dict[str, tuple[str, ...]] = {
    "daniel-en": ("title",),
    "daniel-zh": ("title",),
    "zh-news": FIELDS,
    "readability": FIELDS,
    "wcxb-dev": FIELDS,
}
CLOSE_TITLE_F1 = 0.9
DEFAULT_TIMEOUT = 30.0

Meta = dict[str, str | None]  # field -> value


# -- the methods ----------------------------------------------------------------


def sitesift_meta(html: str, url: str | None) -> Meta:
    from extractors import extract

    r = extract(html, url)
    return {"title": r.title, "date": r.published, "author": r.author}


def trafilatura_meta(html: str, url: str | None) -> Meta:
    from trafilatura import extract_metadata

    m = extract_metadata(html, default_url=url)
    return {"title": m.title, "date": m.date, "author": m.author}


def gne_meta(html: str, url: str | None) -> Meta:
    from gne import GeneralNewsExtractor

    m = GeneralNewsExtractor().extract(html)
    return {"title": m.get("title"), "date": m.get("publish_time"), "author": m.get("author")}


METHODS: dict[str, tuple[Callable[[str, str | None], Meta], str | None]] = {
    "sitesift": (sitesift_meta, None),
    "trafilatura": (trafilatura_meta, "trafilatura"),
    "gne": (gne_meta, "gne"),
}


# -- matching -----------------------------------------------------------------------

_NOT_WORD = re.compile(r"[\W_]+")


def norm(text: str | None) -> str:
    """Letters and digits only, case and width folded."""
    return _NOT_WORD.sub("", unicodedata.normalize("NFKC", text or "").lower())


def _char_f1(a: str, b: str) -> float:
    ca, cb = Counter(a), Counter(b)
    total = ca.total() + cb.total()
    return 2 * (ca & cb).total() / total if total else 0.0


def same_title(got: str | None, truth: str) -> tuple[bool, bool]:
    """(exact, close): equal once normalised; characters agreeing at 0.9 F1."""
    g, t = norm(got), norm(truth)
    return bool(g) and g == t, bool(g) and _char_f1(g, t) >= CLOSE_TITLE_F1


def same_day(got: str | None, truth: str) -> bool:
    """The same calendar day (ISO dates; the truth's own day, no time zones)."""
    day = re.search(r"\d{4}-\d{2}-\d{2}", got or "")
    return day is not None and day.group() == truth[:10]


_AND = re.compile(r"\s+(?:and|&)\s+", re.I)
_BY = re.compile(r"^(by|von|par|por|作者|文|记者|編輯|编辑)[:：\s]*", re.I)


def same_author(got: str | None, truth: str) -> bool:
    """One name holds the other, once a leading "By" and the "and" of a
    list of names are dropped ("A, B, and C" is "A, B, C")."""
    g, t = (norm(_AND.sub(" ", _BY.sub("", s.strip()))) for s in (got or "", truth))
    return bool(g) and bool(t) and (g in t or t in g)


# -- truth ------------------------------------------------------------------------


def truth_of(page: datasets.Page) -> dict[str, str]:
    """The page's truth fields that the set holds and the page fills."""
    t = page.truth
    published = t.get("published")
    if isinstance(published, dict):
        published = published.get("iso")
    values = {
        "title": page.title,
        "date": published if isinstance(published, str) and published[:4].isdigit() else None,
        "author": t.get("author") or t.get("byline"),
    }
    return {
        f: v.strip()
        for f, v in values.items()
        if f in SETS[page.set] and isinstance(v, str) and v.strip() and v.strip() != "None"
    }


# -- running ------------------------------------------------------------------------


@dataclass(slots=True)
class PageResult:
    set: str
    truth: dict[str, str]
    got: dict[str, Meta] = field(default_factory=dict)  # method -> fields
    seconds: dict[str, float] = field(default_factory=dict)


_CONFIG: dict[str, Any] = {}


def _init(methods: list[str], timeout: float) -> None:
    warnings.simplefilter("ignore")  # dateutil's time-zone warnings inside the peers
    _CONFIG.update(methods=methods, timeout=timeout)


def run_page(page: datasets.Page) -> PageResult:
    html = page_input(page)
    result = PageResult(page.set, truth_of(page))
    for name in _CONFIG["methods"]:
        box: dict[str, Meta] = {}

        def call(text: str, url: str | None, fn: Callable = METHODS[name][0], box=box) -> str:
            box["meta"] = fn(text, url)
            return ""

        _, seconds, _, _ = call_with_timeout(call, (html, page.url), _CONFIG["timeout"])
        result.got[name] = box.get("meta", {})
        result.seconds[name] = seconds
    return result


def score(results: Sequence[PageResult], method: str, field_: str) -> tuple[int, int, int, int]:
    """(pages with the field in truth, matched, given where the truth has it,
    close titles)."""
    n = matched = given = close = 0
    for r in results:
        truth = r.truth.get(field_)
        if truth is None:
            continue
        n += 1
        value = r.got.get(method, {}).get(field_)
        if value:
            given += 1
        if field_ == "title":
            exact, near = same_title(value, truth)
            matched += exact
            close += near
        elif field_ == "date":
            matched += same_day(value, truth)
        else:
            matched += same_author(value, truth)
    return n, matched, given, close


def _pct(a: int, b: int) -> str:
    return f"{100 * a / b:.1f}%" if b else "-"


def render(results: list[PageResult], methods: list[str], command: str, notes: list[str]) -> str:
    lines = [
        "# Metadata: title, publish date, author",
        "",
        f"Command: `{command}`. Definitions: `benchmarks/metadata.py`. "
        "R = matched / pages whose truth has the field; P = matched / pages where the "
        "method gave one (and the truth has one). Titles: exact once normalised, and "
        f"close (character F1 >= {CLOSE_TITLE_F1}).",
        *[f"\n{n}" for n in notes],
        "",
        "| set | field | pages | method | P | R | close (titles) | s / page |",
        "|---|---|---:|---|---:|---:|---:|---:|",
    ]
    for set_name, fields_ in SETS.items():
        of_set = [r for r in results if r.set == set_name]
        for field_ in fields_:
            for method in methods:
                n, matched, given, close = score(of_set, method, field_)
                if not n:
                    continue
                secs = [r.seconds.get(method, 0.0) for r in of_set]
                mean = sum(secs) / len(secs) if secs else 0.0
                lines.append(
                    f"| {set_name} | {field_} | {n} | {method} | {_pct(matched, given)} | "
                    f"{_pct(matched, n)} | {_pct(close, n) if field_ == 'title' else ''} | "
                    f"{mean:.3f} |"
                )
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.metadata",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--limit", type=int, default=0, help="first N pages per set; 0 = all")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds per call")
    parser.add_argument("--out", type=Path, default=RESULTS / "metadata.md", help="table file")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    methods, notes = [], []
    for name, (_, package) in METHODS.items():
        if package is None or installed(package):
            methods.append(name)
        else:
            notes.append(f"{name}: not installed (pip install -e '.[bench]'); left out.")
            print(f"note: {notes[-1]}", file=sys.stderr)
    pages = [p for s in SETS for p in datasets.load(s, args.limit or None)]
    results: list[PageResult] = []
    start = time.perf_counter()
    with Pool(max(1, args.jobs), initializer=_init, initargs=(methods, args.timeout)) as pool:
        for i, r in enumerate(pool.imap(run_page, pages, chunksize=4), 1):
            results.append(r)
            if not args.quiet:
                print(f"\r{i}/{len(pages)} pages, {time.perf_counter() - start:.0f} s ",
                      end="", file=sys.stderr)  # fmt: skip
    if not args.quiet:
        print(file=sys.stderr)
    command = "python -m benchmarks.metadata " + " ".join(sys.argv[1:] if argv is None else argv)
    publish(render(results, methods, command.strip(), notes), args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
