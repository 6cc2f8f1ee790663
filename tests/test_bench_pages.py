"""benchmarks.pages: per-page scores saved, and the pages a change moved."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import datasets
from benchmarks.pages import compare, main


def test_compare_lists_changed_pages_worst_first_and_counts_per_set() -> None:
    before = {
        "a/1": {"score": 0.5, "hash": "x"},
        "a/2": {"score": 0.9, "hash": "y"},
        "b/1": {"score": 0.8, "hash": "z"},
    }
    after = {
        "a/1": {"score": 0.7, "hash": "x2"},  # better
        "a/2": {"score": 0.9, "hash": "y"},  # same output: not listed
        "b/1": {"score": 0.6, "hash": "z2"},  # worse
    }
    text = compare(before, after)
    lines = text.split("\n")
    assert lines[0] == "2 of 3 pages changed output"
    assert lines[2].startswith("-0.2000") and lines[2].endswith("b/1")
    assert lines[3].startswith("+0.2000") and lines[3].endswith("a/1")
    assert "| a | 2 | 1 | 1 | 0 | 0.7000 | 0.8000 |" in text
    assert "| b | 1 | 1 | 0 | 1 | 0.8000 | 0.6000 |" in text


@pytest.mark.skipif(datasets.datasets_dir() is None, reason="shared datasets folder not found")
def test_a_saved_run_compared_with_itself_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = tmp_path / "base.json"
    args = ["--sets", "zh-news", "--limit", "3", "--jobs", "1", "--method", "cetd"]
    assert main([*args, "--save", str(saved)]) == 0
    rows = json.loads(saved.read_text(encoding="utf-8"))
    assert len(rows) == 3 and all(
        0 <= r["score"] <= 1 and r["status"] == "ok" for r in rows.values()
    )
    capsys.readouterr()
    assert main([*args, "--against", str(saved)]) == 0
    assert capsys.readouterr().out.startswith("0 of 3 pages changed output")


def test_an_unknown_method_or_set_or_a_missing_baseline_is_refused() -> None:
    with pytest.raises(SystemExit, match="unknown sitesift method 'nope'"):
        main(["--method", "nope", "--limit", "1"])
    with pytest.raises(SystemExit, match="unknown set"):
        main(["--sets", "nope"])
    with pytest.raises(SystemExit, match="no such file"):
        main(["--against", "/nonexistent/base.json"])
