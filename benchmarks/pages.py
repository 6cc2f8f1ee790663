"""Per-page scores of one method, saved, and what a change moved.

    python -m benchmarks.pages --save /tmp/before.json      # auto on every page
    # ... change the extractor ...
    python -m benchmarks.pages --against /tmp/before.json   # which pages moved

Every page of the text sets (all 3,189 by default; ``--limit`` per set) goes
through one method (``--method``, auto by default) in ``--jobs`` processes.
Each page keeps its main score (LCS character F1; snippet F1 on
trafilatura-eval, whose truth is snippets) and a hash of the output.
``--against`` compares with a saved run: the pages whose output changed,
each with its score before and after (worst first), and per set how many got
better or worse and the mean score's move. It is the check a rule needs
before it lands: what it changed everywhere, not on the page it was written
for. ``--half tune|unseen`` runs the even or the odd page ids alone (the halves
of ``benchmarks.lists``): tune a rule on one, check it on the other.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import statistics
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks import datasets, metrics
from benchmarks.extraction import (
    DEFAULT_SETS,
    DEFAULT_TIMEOUT,
    SNIPPET_ONLY,
    Method,
    _sitesift,
    call_with_timeout,
    page_input,
)
from benchmarks.lists import half_of

PageKey = str  # "<set>/<id>"


def page_score(page: datasets.Page, out: str) -> float:
    """The page's main score: snippet F1 where the truth is snippets, else
    LCS character F1."""
    if page.set in SNIPPET_ONLY:
        return metrics.snippet_prf(
            out, page.truth.get("with") or [], page.truth.get("without") or []
        )[2]
    return metrics.lcs_prf(out, page.truth_text)[2]


_method: Method | None = None
_timeout = DEFAULT_TIMEOUT


def _init(name: str, timeout: float) -> None:
    """A worker's method (checked by :func:`main` before any worker starts)."""
    global _method, _timeout
    from extractors import METHODS

    _method, _timeout = Method(name, "sitesift", _sitesift(name, METHODS[name])), timeout


def _one(page: datasets.Page) -> tuple[PageKey, dict[str, Any]]:
    assert _method is not None
    out, seconds, status, _ = call_with_timeout(
        _method.fn, (page_input(page), page.url, page.lang), _timeout
    )
    digest = hashlib.sha256(out.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    score = round(page_score(page, out), 4)
    return f"{page.set}/{page.id}", {
        "score": score,
        "hash": digest,
        "status": status,
        "seconds": round(seconds, 4),
    }


def run(
    sets: Sequence[str], method: str, limit: int | None, jobs: int, timeout: float, half: str
) -> dict[PageKey, dict[str, Any]]:
    """Every page's score and output hash, keyed ``set/id``, with progress."""
    pages = (
        p for s in sets for p in datasets.load(s, limit) if half == "all" or half_of(p.id) == half
    )
    total = sum(min(datasets.count(s), limit or 10**9) for s in sets)
    if half != "all":
        total //= 2
    rows: dict[PageKey, dict[str, Any]] = {}
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(max(1, jobs), initializer=_init, initargs=(method, timeout)) as pool:
        for key, row in pool.imap(_one, pages, chunksize=4):
            rows[key] = row
            if len(rows) % 25 == 0:
                print(f"\r{len(rows)}/~{total} pages", end="", file=sys.stderr, flush=True)
    print(f"\r{len(rows)} pages", file=sys.stderr)
    return rows


def compare(before: dict[PageKey, dict[str, Any]], after: dict[PageKey, dict[str, Any]]) -> str:
    """The pages whose output changed (worst move first) and a table per set."""
    changed = [
        (after[k]["score"] - before[k]["score"], k)
        for k in sorted(after.keys() & before.keys())
        if after[k]["hash"] != before[k]["hash"]
    ]
    changed.sort()
    lines = [f"{len(changed)} of {len(after.keys() & before.keys())} pages changed output", ""]
    for delta, key in changed:
        lines.append(
            f"{delta:+.4f}  {before[key]['score']:.4f} -> {after[key]['score']:.4f}  {key}"
        )
    per_set: dict[str, list[str]] = defaultdict(list)
    for key in after.keys() & before.keys():
        per_set[key.split("/", 1)[0]].append(key)
    lines += [
        "",
        "| set | pages | changed | better | worse | mean before | mean after |",
        "|---|---|---|---|---|---|---|",
    ]
    moved = {k: d for d, k in changed}
    for name in sorted(per_set):
        keys = per_set[name]
        mine = [moved[k] for k in keys if k in moved]
        mean_before = statistics.fmean(before[k]["score"] for k in keys)
        mean_after = statistics.fmean(after[k]["score"] for k in keys)
        lines.append(
            f"| {name} | {len(keys)} | {len(mine)} | {sum(d > 0 for d in mine)} "
            f"| {sum(d < 0 for d in mine)} | {mean_before:.4f} | {mean_after:.4f} |"
        )
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.pages",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--sets", help=f"comma-separated (default: {','.join(DEFAULT_SETS)})")
    parser.add_argument("--method", default="auto", help="a sitesift method (default: auto)")
    parser.add_argument("--limit", type=int, default=0, help="first N pages per set; 0 = all")
    parser.add_argument("--half", choices=("all", "tune", "unseen"), default="all")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds per page")
    parser.add_argument("--save", type=Path, help="write the per-page scores here (JSON)")
    parser.add_argument("--against", type=Path, help="a saved run to compare with")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.against and not args.against.is_file():
        raise SystemExit(f"--against {args.against}: no such file (make one with --save)")
    sets = [s.strip() for s in args.sets.split(",")] if args.sets else list(DEFAULT_SETS)
    from extractors import METHODS

    if args.method not in METHODS:
        raise SystemExit(
            f"unknown sitesift method {args.method!r}; choose from {', '.join(METHODS)}"
        )
    unknown = [s for s in sets if s not in datasets.SETS]
    if unknown:
        raise SystemExit(
            f"unknown set(s) {', '.join(unknown)}; choose from {', '.join(DEFAULT_SETS)}"
        )
    rows = run(sets, args.method, args.limit or None, args.jobs, args.timeout, args.half)
    if args.save:
        args.save.parent.mkdir(parents=True, exist_ok=True)
        args.save.write_text(json.dumps(rows, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    if args.against:
        print(compare(json.loads(args.against.read_text(encoding="utf-8")), rows))
    elif not args.save:
        print(f"mean score {statistics.fmean(r['score'] for r in rows.values()):.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
