"""The screenshot and DOM classifiers' recorded split: real test pages only,
none a model was ever fitted on, and the rule that moved the formerly fitted
ones out of test touches nothing else."""

from __future__ import annotations

import pytest

from benchmarks import datasets
from training.pagetype import sources

pytestmark = pytest.mark.skipif(
    datasets.datasets_dir() is None, reason="shared datasets folder not found"
)


def test_test_pages_are_real_and_never_fitted_on() -> None:
    split = sources.load_split()
    real = {s.key: s for s in sources.real_samples()}
    test = {key for key, part in split.items() if part == "test"}
    assert test and test <= set(real)
    assert not test & sources.dom_fitted()
    labels = {real[key].label for key in test}
    assert labels == {"article", "list"}


def test_formerly_fitted_pages_go_to_train_or_val_and_nothing_else_moves() -> None:
    fitted = sorted(sources.dom_fitted())
    before = {key: "test" for key in fitted} | {"synthetic/1": "train", "wcxb-dev/x": "test"}
    after = sources._train_on_fitted(dict(before))
    assert {after[key] for key in fitted} == {"train", "val"}
    assert after["synthetic/1"] == "train" and after["wcxb-dev/x"] == "test"
    assert sources._train_on_fitted(dict(before)) == after  # reproducible
    share = sum(after[key] == "val" for key in fitted) / len(fitted)
    assert abs(share - sources.FITTED_VAL_SHARE) < 0.1
