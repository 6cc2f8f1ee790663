"""The seed-bar benchmark: its scoring rules and one quick run on real pages."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import datasets
from benchmarks.peers import PEER_MODULES
from benchmarks.seeds import awce_pr, main, within_bound


def test_within_bound_is_the_seeds_20_percent_rule() -> None:
    # precision 0.8 is an error of exactly 20%: right; 0.79 is wrong; no output is wrong
    assert within_bound([(0.8, 1.0, 0.9)]) == 1.0
    assert within_bound([(0.79, 1.0, 0.9)]) == 0.0
    assert within_bound([(0.0, 0.0, 0.0), (1.0, 0.1, 0.2)]) == 0.5


def test_awce_recall_is_complete_among_correct() -> None:
    # four pages: two correct (F1 >= 0.8), one of them complete (F1 >= 0.95)
    p, r = awce_pr([(1, 1, 0.97), (1, 1, 0.85), (1, 1, 0.5), (0, 0, 0.0)])
    assert (p, r) == (0.5, 0.5)


@pytest.mark.skipif(datasets.datasets_dir() is None, reason="shared datasets folder not found")
def test_runs_on_two_pages_per_set_and_writes_the_table(tmp_path: Path, capsys) -> None:
    out = tmp_path / "seeds.md"
    assert main(["--limit", "2", "--quiet", "--out", str(out)]) == 0
    table = out.read_text(encoding="utf-8")
    assert table == capsys.readouterr().out
    rows = [line for line in table.splitlines() if line.startswith("| ") and "---" not in line]
    methods = [row.split(" | ")[1] for row in rows[1:]]
    assert methods == [
        "justext", "boilerpipe", "cetd", "scedd", "scedd", "awce", "list", "list", "layout"
    ]  # fmt: skip


@pytest.mark.skipif(datasets.datasets_dir() is None, reason="shared datasets folder not found")
def test_a_peer_not_installed_is_said_not_scored_as_zero(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    monkeypatch.setitem(PEER_MODULES, "boilerpy3", "no_such_module_for_sitesift_tests")
    out = tmp_path / "seeds.md"
    assert main(["--limit", "1", "--quiet", "--out", str(out)]) == 0
    assert "boilerpy3 not installed" in capsys.readouterr().err
    row = next(line for line in out.read_text().splitlines() if "| boilerpipe |" in line)
    assert "boilerpy3 here: not installed" in row
    assert row.endswith("| – |")  # no verdict against nothing
