"""Extraction quality metrics: shingle, LCS-character and snippet scores.

Three published ways of comparing extracted text with ground truth, kept
faithful to their sources so that our numbers can be set beside theirs:

- ``shingle_*``: the ScrapingHub article-extraction-benchmark (``evaluate.py``):
  multisets of 4-grams of ``\\w+`` tokens, per-page counts normalised to sum
  to 1, corpus P/R = means over the pages where they are defined, F1 of the
  means. Two deliberate changes, both asked for by sitesift's design: tokens
  are lower-cased, and each CJK ideograph is a token of its own (``\\w+``
  would otherwise glue a whole Chinese sentence into one token).
- ``lcs_*``: the SCEDD seed's metric: whitespace removed, precision =
  LCS / len(extracted), recall = LCS / len(truth). The LCS length is exact,
  computed bit-parallel (Allison-Dix / Hyyrö) on Python integers.
- ``snippet_*``: trafilatura's ``tests/comparison.py``: a ``with`` snippet
  found in the output is a true positive, a ``without`` snippet found a false
  positive; counts are summed over the corpus before P/R are taken.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence

# CJK Unified Ideographs (+ extension A, compatibility): one token each.
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN = re.compile(rf"[^\W{_CJK}]+|[{_CJK}]")

Counts = tuple[float, float, float]
PRF = tuple[float, float, float]


def f1(precision: float, recall: float) -> float:
    """Harmonic mean; 0 when both are 0."""
    total = precision + recall
    return 2 * precision * recall / total if total else 0.0


# -- shingles (article-extraction-benchmark) ---------------------------------


def shingle_tokens(text: str) -> list[str]:
    """Lower-cased ``\\w+`` tokens, each CJK ideograph alone."""
    return _TOKEN.findall((text or "").lower())


def shingles(text: str, n: int = 4) -> Counter[tuple[str, ...]]:
    """The multiset of n-grams; a text of fewer than n tokens is one short
    shingle (as in the benchmark), an empty text has none."""
    toks = shingle_tokens(text)
    grams = (tuple(toks[i : i + n]) for i in range(max(1, len(toks) - n + 1)))
    return Counter(g for g in grams if g)


def shingle_counts(extracted: str, truth: str, n: int = 4) -> Counts:
    """Per-page ``(tp, fp, fn)`` over shingle multisets, normalised to sum to 1
    so that long pages do not weigh more (the benchmark's
    ``string_shingle_matching``). All zero when both texts are empty."""
    pred, true = shingles(extracted, n), shingles(truth, n)
    tp = sum((pred & true).values())
    fp = sum((pred - true).values())
    fn = sum((true - pred).values())
    total = tp + fp + fn
    if not total:
        return 0.0, 0.0, 0.0
    return tp / total, fp / total, fn / total


def _precision(tp: float, fp: float, fn: float) -> float:
    if fp == fn == 0:
        return 1.0
    return tp / (tp + fp) if tp + fp else 0.0


def _recall(tp: float, fp: float, fn: float) -> float:
    if fp == fn == 0:
        return 1.0
    return tp / (tp + fn) if tp + fn else 0.0


def shingle_prf(extracted: str, truth: str, n: int = 4) -> PRF:
    """One page's shingle precision, recall and F1.

    Both texts empty scores 1 (the benchmark's convention); an empty output
    for a non-empty truth scores 0.
    """
    counts = shingle_counts(extracted, truth, n)
    p, r = _precision(*counts), _recall(*counts)
    return p, r, f1(p, r)


def shingle_corpus_prf(pages: Iterable[Counts]) -> PRF:
    """Corpus score from per-page counts, as the benchmark aggregates them:
    mean precision over pages with output, mean recall over pages with
    truth, F1 of the two means."""
    pages = list(pages)
    ps = [_precision(*c) for c in pages if c[0] + c[1] > 0]
    rs = [_recall(*c) for c in pages if c[0] + c[2] > 0]
    p = statistics.fmean(ps) if ps else 0.0
    r = statistics.fmean(rs) if rs else 0.0
    return p, r, f1(p, r)


# -- LCS characters (SCEDD) ---------------------------------------------------


def strip_ws(text: str) -> str:
    """The text without any whitespace (the seed compares characters only)."""
    return "".join((text or "").split())


def lcs_length(a: str, b: str) -> int:
    """Exact length of the longest common subsequence of two strings.

    Bit-parallel (Allison-Dix 1986, Hyyrö 2004): one bit per character of the
    longer string, one pass over the shorter, a few big-integer operations per
    step: O(len(a) * len(b) / wordsize), milliseconds for 10k x 10k.
    """
    if len(a) < len(b):
        a, b = b, a
    if not b:
        return 0
    masks: dict[str, int] = {}
    for i, ch in enumerate(a):
        masks[ch] = masks.get(ch, 0) | (1 << i)
    full = (1 << len(a)) - 1
    v = full
    for ch in b:
        m = masks.get(ch)
        if m is None:
            continue
        u = v & m
        v = ((v + u) | (v - u)) & full
    return len(a) - v.bit_count()


def lcs_dp(a: str, b: str) -> int:
    """Plain O(n*m) dynamic programme; the reference for tests only."""
    prev = [0] * (len(b) + 1)
    for ca in a:
        cur = [0]
        for j, cb in enumerate(b):
            cur.append(prev[j] + 1 if ca == cb else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


def lcs_prf(extracted: str, truth: str) -> PRF:
    """LCS character precision, recall and F1 with whitespace removed.

    Both empty scores 1; one side empty scores 0.
    """
    ext, tru = strip_ws(extracted), strip_ws(truth)
    if not ext and not tru:
        return 1.0, 1.0, 1.0
    if not ext or not tru:
        return 0.0, 0.0, 0.0
    common = lcs_length(ext, tru)
    p, r = common / len(ext), common / len(tru)
    return p, r, f1(p, r)


# -- snippets (trafilatura eval) ----------------------------------------------


def snippet_counts(
    extracted: str | None, with_: Sequence[str], without: Sequence[str]
) -> tuple[int, int, int, int]:
    """``(tp, fn, fp, tn)`` by plain substring search, as trafilatura's
    ``evaluate_result``; no output counts every ``with`` as missed."""
    if extracted is None:
        return 0, len(with_), 0, len(without)
    tp = sum(1 for s in with_ if s in extracted)
    fp = sum(1 for s in without if s in extracted)
    return tp, len(with_) - tp, fp, len(without) - fp


def snippet_prf(extracted: str | None, with_: Sequence[str], without: Sequence[str]) -> PRF:
    """One page's snippet precision, recall and F1 (precision 0 when no
    snippet at all was found, unless there was none to find)."""
    tp, fn, fp, _ = snippet_counts(extracted, with_, without)
    p = tp / (tp + fp) if tp + fp else 0.0 if with_ else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    return p, r, f1(p, r)


def snippet_corpus_prf(pages: Iterable[tuple[int, int, int, int]]) -> PRF:
    """Corpus score from summed counts (trafilatura's ``calculate_scores``)."""
    tp = fn = fp = 0
    for p_tp, p_fn, p_fp, _ in pages:
        tp, fn, fp = tp + p_tp, fn + p_fn, fp + p_fp
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return p, r, f1(p, r)
