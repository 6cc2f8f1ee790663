"""Metrics against hand-computed cases and a plain dynamic programme."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.metrics import (
    f1,
    lcs_dp,
    lcs_length,
    lcs_prf,
    shingle_corpus_prf,
    shingle_counts,
    shingle_prf,
    shingle_tokens,
    shingles,
    snippet_corpus_prf,
    snippet_counts,
    snippet_prf,
    strip_ws,
)


def test_tokens_lowercase_and_cjk_single() -> None:
    assert shingle_tokens("Hello, World! 中文abc x_y") == [
        "hello",
        "world",
        "中",
        "文",
        "abc",
        "x_y",
    ]


def test_short_text_is_one_short_shingle() -> None:
    assert shingles("a b", n=4) == {("a", "b"): 1}
    assert shingles("", n=4) == {}


def test_shingle_counts_hand_computed() -> None:
    # truth shingles: (a b c d), (b c d e); extracted: (a b c d), (b c d x)
    tp, fp, fn = shingle_counts("a b c d x", "a b c d e")
    assert (tp, fp, fn) == pytest.approx((1 / 3, 1 / 3, 1 / 3))
    assert shingle_prf("a b c d x", "a b c d e") == pytest.approx((0.5, 0.5, 0.5))


def test_shingle_multiset_counts_repeats() -> None:
    # extracted repeats the truth twice: 5 shingles, 1 true, 4 extra
    p, r, _ = shingle_prf("a b c d a b c d", "a b c d")
    assert (p, r) == pytest.approx((1 / 5, 1.0))


def test_shingle_empty_conventions() -> None:
    assert shingle_prf("", "") == (1.0, 1.0, 1.0)
    assert shingle_prf("", "some words here now") == (0.0, 0.0, 0.0)
    assert shingle_prf("x y z w", "") == (0.0, 0.0, 0.0)


def test_shingle_corpus_skips_undefined_pages() -> None:
    pages = [
        shingle_counts("a b c d", "a b c d"),  # p=1, r=1
        shingle_counts("", "a b c d"),  # no output: counts in recall only
    ]
    p, r, f = shingle_corpus_prf(pages)
    assert (p, r) == pytest.approx((1.0, 0.5))
    assert f == pytest.approx(f1(1.0, 0.5))


def test_lcs_prf_hand_computed() -> None:
    # whitespace ignored; LCS("abcx", "abcde") = 3
    assert lcs_prf("a b\nc x", "abc de") == pytest.approx((3 / 4, 3 / 5, f1(3 / 4, 3 / 5)))
    assert lcs_prf("", "") == (1.0, 1.0, 1.0)
    assert lcs_prf("", "abc") == (0.0, 0.0, 0.0)
    assert strip_ws(" a\u3000b\tc\n") == "abc"


def test_lcs_chinese() -> None:
    # 今天去公园 (or 我们去公园): 5 characters
    assert lcs_length("我们今天去公园", "今天我们去了公园") == 5


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="abcd中文", max_size=40), st.text(alphabet="abcde中", max_size=40))
def test_lcs_matches_dp(a: str, b: str) -> None:
    assert lcs_length(a, b) == lcs_dp(a, b) == lcs_length(b, a)


@settings(max_examples=30, deadline=None)
@given(st.text(max_size=150), st.text(max_size=150))
def test_lcs_matches_dp_any_unicode(a: str, b: str) -> None:
    assert lcs_length(a, b) == lcs_dp(a, b)


def test_lcs_is_fast_on_long_texts() -> None:
    import random

    rng = random.Random(7)
    alphabet = "etaoinshrdlucmfwyp"
    a = "".join(rng.choice(alphabet) for _ in range(20_000))
    b = "".join(rng.choice(alphabet) for _ in range(20_000))
    start = time.perf_counter()
    lcs_length(a, b)
    assert time.perf_counter() - start < 1.0


def test_snippets_trafilatura_method() -> None:
    text = "The quick brown fox. Jumps over the lazy dog."
    counts = snippet_counts(text, ["quick brown", "missing"], ["lazy dog", "absent"])
    assert counts == (1, 1, 1, 1)
    assert snippet_prf(text, ["quick brown", "missing"], ["lazy dog"]) == pytest.approx(
        (0.5, 0.5, 0.5)
    )
    assert snippet_counts(None, ["a", "b"], ["c"]) == (0, 2, 0, 1)
    assert snippet_prf("", ["a"], []) == (0.0, 0.0, 0.0)


def test_snippet_corpus_sums_counts() -> None:
    p, r, _ = snippet_corpus_prf([(2, 0, 0, 1), (0, 2, 1, 0)])
    assert (p, r) == pytest.approx((2 / 3, 0.5))
