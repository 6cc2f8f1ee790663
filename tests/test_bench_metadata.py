"""The matching rules of benchmarks.metadata, and one small run on the datasets."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import datasets
from benchmarks.metadata import main, same_author, same_day, same_title


def test_titles_match_once_case_width_and_punctuation_are_ignored() -> None:
    assert same_title("Bridge to close — for repairs!", "bridge to close for repairs")[0]
    assert same_title("Ｂｒｉｄｇｅ　ｔｏ　ｃｌｏｓｅ", "Bridge to close") == (True, True)
    # A site name left on is close, not exact; nothing or another title is neither.
    assert same_title("Bridge to close for good repairs", "Bridge to close for repairs") == (
        False,
        True,
    )
    assert same_title(None, "Bridge") == (False, False)
    assert same_title("Council votes on budget", "Bridge to close") == (False, False)


def test_dates_match_on_the_day_and_authors_on_the_name() -> None:
    assert same_day("2024-05-03T10:20:00+08:00", "2024-05-03T10:20")
    assert not same_day("2024-05-04", "2024-05-03")
    assert not same_day(None, "2024-05-03")
    assert same_author("By Jane Roe", "Jane Roe")
    assert same_author("Jane Roe", "Jane Roe, Max Muster")
    assert same_author("记者 王小明", "王小明")
    assert not same_author("Congress", "BBC News")
    assert not same_author("", "Jane Roe")


@pytest.mark.skipif(datasets.datasets_dir() is None, reason="the shared datasets are not here")
def test_a_small_run_writes_every_field_of_every_set(tmp_path: Path) -> None:
    out = tmp_path / "metadata.md"
    assert main(["--limit", "3", "--jobs", "1", "--quiet", "--out", str(out)]) == 0
    rows = [line.split(" | ") for line in out.read_text().splitlines() if "| sitesift |" in line]
    fields = {(r[0].strip("| "), r[1]) for r in rows}
    assert ("zh-news", "date") in fields and ("wcxb-dev", "author") in fields
    assert ("daniel-en", "title") in fields and ("daniel-en", "date") not in fields
