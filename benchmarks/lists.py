"""Record-level scores of the list extractor on the labelled list pages.

    python -m benchmarks.lists               # wcxb-dev listing + collection pages
    python -m benchmarks.lists --limit 20    # first 20 pages of each kind
    python -m benchmarks.lists --per-page    # also one line per page on stderr

Pages: wcxb-dev pages whose ``page_type`` is ``listing`` or ``collection``
(their human-reviewed main text is the list, entries as lines), the real
list pages of ``pagetype`` (portal sections, rolling news, a forum board),
whose records were annotated for this project (:mod:`benchmarks.list_truth`),
and ``pagetype``'s NEXT-EVAL list pages with that benchmark's record truth:
on those two every record's headline is an entry.

Truth entries. A truth line is an *entry* when it is a record's headline: its
tokens (:func:`benchmarks.metrics.shingle_tokens`: lower-cased ``\\w+``, each
CJK ideograph alone) are a run of some link's text on the page starting at
one of its first 4 tokens (the link's text pieces joined, or apart: two
spans may be shown as one word or as two) after a lead that is not itself a truth line (a
card link wrapping badge + title + snippet: "On Sale: Title ..."; the
snippet after a title line is no entry) or start with some link's
text of at least two tokens ("Title: snippet"). Not entries: lines of one
token, of numbers only (prices), or whose text occurs 3 times or more in the
truth (labels such as "Full-Time", "Buy now", a category name). Intro
paragraphs, dates and snippets are not entries, so a perfect record (title,
date and snippet on one line) matches exactly one entry. Pages with fewer
than 3 entries are skipped (their list is not made of links) and counted.

Matching. A record *covers* an entry when at least 80% of the entry's tokens
(as a multiset) occur in the record's text. Records and entries are matched
greedily in page order: first one to one (each record takes the first
uncovered entry it covers), then each matched record also takes the entry
right after its own if still uncovered and covered by it (a byline "Jane
Roe on Mar 7" after an author link is an entry line too). So one record
spanning the whole list matches 2 entries, a list split into title records
and snippet records has half its records unmatched, and two records merged
into one go unnoticed.
Record precision = matched records / records; recall = matched entries /
entries. Per page, then averaged over pages (macro; every page weighs the
same); F1 of the mean P and mean R, plus micro P/R summed over all records.

Hold-out: pages with an even id are the tuning half, odd ids the unseen half;
both are reported. Table to stdout and ``benchmarks/results/lists.md``.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import time
import zlib
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from lxml import etree
from lxml import html as lxml_html

from benchmarks import datasets, list_truth, metrics
from benchmarks.extraction import call_with_timeout, page_input
from benchmarks.publish import RESULTS, publish
from extractors import listing
from extractors.result import Record

SET = "wcxb-dev"
KINDS: tuple[str, ...] = ("listing", "collection")
ANNOTATED = "portal"  # pagetype's real list pages, records annotated (benchmarks.list_truth)
NEXT_EVAL = "next-eval"  # pagetype's NEXT-EVAL list pages, that benchmark's record truth
MIN_ENTRIES = 3  # fewer headline lines: the truth's list is not one of links
LEAD = 3  # tokens a headline may follow in its link's text (a badge, "New")
LABEL_REPEATS = 3  # a line this frequent in the truth is a label, not a headline
COVER = 0.8  # share of an entry's tokens a record must hold to match it
DEFAULT_TIMEOUT = 20.0


@dataclass(slots=True)
class PageScore:
    """Record matches on one page."""

    kind: str
    id: str
    half: str  # "tune" (even id) or "unseen" (odd id)
    records: int
    entries: int
    matched_records: int
    matched_entries: int
    status: str = "ok"

    @property
    def precision(self) -> float:
        return self.matched_records / self.records if self.records else 0.0

    @property
    def recall(self) -> float:
        return self.matched_entries / self.entries if self.entries else 0.0


def half_of(page_id: str) -> str:
    """Even ids tune, odd ids are held out (a crc for non-numeric ids)."""
    n = int(page_id) if page_id.isdigit() else zlib.crc32(page_id.encode())
    return "tune" if n % 2 == 0 else "unseen"


def _link_texts(html: str) -> set[tuple[str, ...]]:
    try:
        tree = lxml_html.fromstring(html)
    except (etree.ParserError, ValueError):
        return set()
    out: set[tuple[str, ...]] = set()
    for a in tree.iter("a"):
        # Its pieces run together and apart: <span>HOKA</span><span>Clifton
        # 10</span> is shown as two words when the spans are blocks.
        for text in (a.text_content(), " ".join(a.itertext())):
            if toks := tuple(metrics.shingle_tokens(text)):
                out.add(toks)
    return out


def truth_entries(truth_text: str, html: str) -> list[list[str]]:
    """Token lists of the truth lines that are record headlines (see module doc)."""
    links = _link_texts(html)
    lines = [tuple(metrics.shingle_tokens(line)) for line in truth_text.split("\n")]
    repeats = Counter(lines)
    # Every run of a link's text starting in its first LEAD tokens, with the
    # tokens before it (its lead).
    leads: dict[tuple[str, ...], set[tuple[str, ...]]] = {}
    for t in links:
        for i in range(min(LEAD, len(t) - 2) + 1):
            for k in range(i + 2, len(t) + 1):
                leads.setdefault(t[i:k], set()).add(t[:i])
    entries: list[list[str]] = []
    for t in lines:
        if len(t) < 2 or repeats[t] >= LABEL_REPEATS or all(w.isdigit() for w in t):
            continue
        # A lead that is itself a truth line is a title: t is its snippet.
        if any(not lead or lead not in repeats for lead in leads.get(t, ())) or any(
            t[:k] in links for k in range(2, len(t))
        ):
            entries.append(list(t))
    return entries


def covers(record: Counter[str], entry: list[str]) -> bool:
    """Whether the record holds at least COVER of the entry's tokens."""
    need = Counter(entry)
    held = sum((need & record).values())
    return held >= COVER * len(entry)


def match(records: Sequence[str], entries: Sequence[list[str]]) -> tuple[int, int]:
    """Greedy matches in page order: ``(records matched, entries matched)``.
    First one to one (each record takes the first uncovered entry it
    covers); then a matched record also takes the entry right after its own
    when still uncovered and covered by it (its byline or source line)."""
    taken = [False] * len(entries)
    bags = [Counter(metrics.shingle_tokens(text)) for text in records]
    first: list[int] = []
    for bag in bags:
        for i, entry in enumerate(entries):
            if bag and not taken[i] and covers(bag, entry):
                taken[i] = True
                first.append(i)
                break
        else:
            first.append(-1)
    extra = 0
    for bag, i in zip(bags, first, strict=True):
        j = i + 1
        if i >= 0 and j < len(entries) and not taken[j] and covers(bag, entries[j]):
            taken[j] = True
            extra += 1
    hit = sum(1 for i in first if i >= 0)
    return hit, hit + extra


def score_page(page: datasets.Page, timeout: float, main_only: bool = False) -> PageScore | None:
    """Extract and match one page; None when its truth has too few entries.
    An annotated page's entries are its records' headlines; a wcxb-dev
    page's are its truth lines that are headlines. ``main_only``: the main
    list's records alone (region 0: the seed's one best group), not the
    page's other regions of records."""
    html = page_input(page)
    if "headlines" in page.truth:
        entries = [toks for h in page.truth["headlines"] if (toks := metrics.shingle_tokens(h))]
    else:
        entries = truth_entries(page.truth_text, html)
    kind = page.kind or "?"
    if len(entries) < MIN_ENTRIES:
        return None
    got: list[list[Record]] = []

    def run(text: str, url: str | None) -> str:
        records = listing.extract(text, url).records
        got.append([r for r in records if r.region == 0] if main_only else records)
        return ""

    _, _, status, _ = call_with_timeout(run, (html, page.url), timeout)
    texts = [r.text for r in got[0]] if got else []
    return PageScore(
        kind, page.id, half_of(page.id), len(texts), len(entries), *match(texts, entries), status
    )


def _row(name: str, half: str, scores: list[PageScore], skipped: int) -> list[str]:
    if not scores:
        return [name, half, "0", str(skipped), "-", "-", "-", "-", "-", "-"]
    p = statistics.fmean(s.precision for s in scores)
    r = statistics.fmean(s.recall for s in scores)
    recs = sum(s.records for s in scores)
    micro_p = sum(s.matched_records for s in scores) / recs if recs else 0.0
    micro_r = sum(s.matched_entries for s in scores) / sum(s.entries for s in scores)
    empty = sum(1 for s in scores if not s.records)
    return [
        name,
        half,
        str(len(scores)),
        str(skipped),
        f"{p:.3f}",
        f"{r:.3f}",
        f"{metrics.f1(p, r):.3f}",
        f"{micro_p:.3f}",
        f"{micro_r:.3f}",
        str(empty),
    ]


def render(
    scores: list[PageScore],
    skipped: Counter[tuple[str, str]],
    config: str,
    half: str = "all",
) -> str:
    """The table; ``half`` is the half the run was limited to (``--half``),
    whose rows alone are shown then."""
    head = ["pages", "half", "scored", "skipped", "P", "R", "F1", "micro P", "micro R", "empty"]
    lines = [
        "# List records (wcxb-dev list pages; annotated portal lists; NEXT-EVAL pages)",
        "",
        f"- command: `{config}`",
        "- P, R: record precision / recall per page, averaged over pages; F1 of the means;",
        "  micro: summed over all records. skipped: pages with < 3 headline entries.",
        "  empty: scored pages where no records were returned. Definitions: benchmarks/lists.py.",
        "- tune: even ids (what the extractor was tuned on); unseen: odd ids.",
        "- portal: the real list pages of pagetype, their records annotated by reading",
        "  each page (benchmarks/truth/README.md); an entry is a record's headline there.",
        "- next-eval: pagetype's NEXT-EVAL list pages with that benchmark's record truth",
        "  (one XPath per record); entries are the records' headlines as for portal.",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    groups = [(k, (k,)) for k in KINDS] + [("listing+collection", KINDS)]
    groups.append(("portal (pagetype, annotated)", (ANNOTATED,)))
    groups.append(("next-eval (pagetype, its record truth)", (NEXT_EVAL,)))
    for name, kinds in groups:
        if half != "all":
            halves: tuple[str, ...] = (half,)
        else:
            halves = ("tune", "unseen", "all") if kinds != (ANNOTATED,) else ("all",)
        for part in halves:
            sel = [s for s in scores if s.kind in kinds and part in ("all", s.half)]
            skip = sum(v for (k, h), v in skipped.items() if k in kinds and part in ("all", h))
            lines.append("| " + " | ".join(_row(name, part, sel, skip)) + " |")
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.lists",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--limit", type=int, default=0, help="first N pages per kind; 0 = all")
    parser.add_argument("--half", choices=("tune", "unseen", "all"), default="all")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds per page")
    parser.add_argument("--out", type=Path, default=RESULTS / "lists.md", help="table file")
    parser.add_argument("--per-page", action="store_true", help="one line per page on stderr")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    return parser.parse_args(argv)


def _wcxb_pages(limit: int | None) -> Iterator[tuple[str, datasets.Page]]:
    """(kind, page) of wcxb-dev's list pages, read as they are scored."""
    for kind in KINDS:
        for page in datasets.load(SET, limit, kinds=kind):
            yield kind, page


def _labelled(limit: int | None) -> list[tuple[str, datasets.Page]]:
    """The annotated pagetype lists, then the NEXT-EVAL pages with usable
    record truth, each read once."""
    pages = [(ANNOTATED, page) for page in list_truth.load()[0][:limit]]
    return pages + [(NEXT_EVAL, page) for page in list_truth.load_next_eval(limit)[0]]


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    limit = args.limit or None
    labelled = _labelled(limit)
    total = sum(min(datasets.count(SET, kinds=k), limit or 10**9) for k in KINDS)
    total += len(labelled)
    scores: list[PageScore] = []
    skipped: Counter[tuple[str, str]] = Counter()
    start, done = time.perf_counter(), 0
    for kind, page in itertools.chain(_wcxb_pages(limit), labelled):
        done += 1
        if args.half != "all" and half_of(page.id) != args.half:
            continue
        s = score_page(page, args.timeout)
        if s is None:
            skipped[(kind, half_of(page.id))] += 1
        else:
            s.kind = kind
            scores.append(s)
            if args.per_page:
                print(
                    f"{kind} {s.id} {s.half} P={s.precision:.2f} R={s.recall:.2f} "
                    f"rec={s.records} ent={s.entries} "
                    f"match={s.matched_records}/{s.matched_entries} {s.status}",
                    file=sys.stderr,
                )
        if not args.quiet and not args.per_page:
            elapsed = time.perf_counter() - start
            print(f"\r[{kind}] {done}/{total} pages, {elapsed:.0f} s ", end="", file=sys.stderr)
    if not args.quiet and not args.per_page:
        print(file=sys.stderr)
    config = "python -m benchmarks.lists " + " ".join(sys.argv[1:] if argv is None else argv)
    text = render(scores, skipped, config.strip(), args.half)
    publish(text, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
