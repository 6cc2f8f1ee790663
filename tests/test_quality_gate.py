"""Quality gate: mean LCS character F1 of each sitesift method on a fixed
sample of real pages must not fall below the floor pinned in
``quality_floors.json`` (trafilatura's ``tests/eval_gate.py`` practice).

A floor is set a little under a measured value; raise it when a method gets
better, never lower it to make a change pass. Re-measure with
``python -m tests.test_quality_gate`` (prints the current scores as JSON).
Skipped when the shared datasets are not beside the checkout.
"""

from __future__ import annotations

import json
import sys
from functools import cache
from pathlib import Path

import pytest

from benchmarks import datasets
from benchmarks.extraction import mean_char_f1

FLOORS_FILE = Path(__file__).with_name("quality_floors.json")
CONFIG = json.loads(FLOORS_FILE.read_text(encoding="utf-8"))
SAMPLE: int = CONFIG["sample"]
PAIRS = [
    (method, set_name, floor)
    for method, floors in sorted(CONFIG["floors"].items())
    for set_name, floor in sorted(floors.items())
]

pytestmark = pytest.mark.skipif(
    datasets.datasets_dir() is None, reason="shared datasets folder not found"
)


@cache
def sample(set_name: str) -> tuple[datasets.Page, ...]:
    """The first pages of a set by id, read once for every method."""
    return tuple(datasets.load(set_name, SAMPLE))


def test_floors_file_is_well_formed() -> None:
    assert SAMPLE > 0
    for method, set_name, floor in PAIRS:
        assert set_name in datasets.TEXT_SETS, (method, set_name)
        assert 0.0 < floor < 1.0, (method, set_name, floor)


@pytest.mark.parametrize(
    ("method", "set_name", "floor"), PAIRS, ids=[f"{m}-{s}" for m, s, _ in PAIRS]
)
def test_char_f1_floor(method: str, set_name: str, floor: float) -> None:
    score = mean_char_f1(method, sample(set_name))
    assert score >= floor, f"{method} on {set_name}: char F1 {score:.3f} < floor {floor:.3f}"


def measure(methods: list[str], sets: list[str]) -> dict[str, dict[str, float]]:
    """Current mean char F1 for each (method, set) pair."""
    return {m: {s: round(mean_char_f1(m, sample(s)), 3) for s in sets} for m in methods}


if __name__ == "__main__":
    from extractors import METHODS

    wanted = sys.argv[1:] or list(METHODS.keys())
    gate_sets = sorted({s for _, s, _ in PAIRS}) or ["daniel-en", "daniel-zh", "zh-news"]
    print(json.dumps(measure(wanted, gate_sets), indent=1))
