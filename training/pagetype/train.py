"""Train the screenshot CNN with torch (CPU), export numpy weights, evaluate.

Reproducible: fixed seeds, the recorded split (``split.json``), one thread
per core. The epoch is chosen on the real validation pages (never the test
pages); the test split is scored once, at the end, on real pages only
(``evaluate.py``).
"""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from extractors.visual import DEFAULT_MODEL, prepare

from .render import OUT, manifest
from .sources import SEED

CLASSES = ["article", "list"]

# Candidate designs, compared by validation balanced accuracy (see docs/screenshots.md).
# LeNet-5's 5x5 convolutions and pooling; deeper than LeNet so that the dense
# layer stays small (the weights ship in the package).
ARCHS: dict[str, dict[str, Any]] = {
    # The top 2,560 CSS px at 1/10 scale: a text line is ~2 px.
    "lenet-128x256": {"input_width": 128, "input_height": 256, "channels": [6, 12, 24, 24],
                      "kernels": [5, 5, 3, 3], "hidden": 64},
    # The same page area at 1/13 scale.
    "lenet-96x192": {"input_width": 96, "input_height": 192, "channels": [6, 12, 24, 24],
                     "kernels": [5, 5, 3, 3], "hidden": 64},
    # The seed's way: the whole capture (up to 6,000 CSS px) squeezed.
    "squash-96x192": {"input_width": 96, "input_height": 192, "channels": [6, 12, 24, 24],
                      "kernels": [5, 5, 3, 3], "hidden": 64, "fit": "squash"},
    # The same page area at 1/20 scale: blocks only, lines merge.
    "lenet-64x128": {"input_width": 64, "input_height": 128, "channels": [6, 12, 24, 24],
                     "kernels": [5, 5, 3, 3], "hidden": 64},
}  # fmt: skip
EPOCHS = 30
# The shipped model averages the probabilities of MEMBERS networks of each of
# these designs, trained from seeds SEED, SEED + 1, ...: the whole capture
# squeezed (the seed's way; the best design on val) and the top of the page
# at 1/20 scale (the best of the "top" designs on val). One network's val
# score swings by +-0.05 from seed to seed and epoch to epoch on ~150 real
# val pages; two views of the page err on different pages.
DESIGNS = ("squash-96x192", "lenet-64x128")
MEMBERS = 5


def _arrays(rows: list[dict[str, Any]], arch: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    w, h = arch["input_width"], arch["input_height"]
    fit = arch.get("fit", "top")
    x = np.stack([prepare((OUT / r["file"]).read_bytes(), w, h, fit) for r in rows])
    y = np.array([CLASSES.index(r["label"]) for r in rows], dtype=np.int64)
    return x, y


def _net(arch: dict[str, Any], seed: int = SEED) -> Any:
    import torch
    from torch import nn

    layers: list[nn.Module] = []
    c_in, h, w = 1, arch["input_height"], arch["input_width"]
    for c_out, k in zip(arch["channels"], arch["kernels"], strict=True):
        layers += [nn.Conv2d(c_in, c_out, k, padding=k // 2), nn.BatchNorm2d(c_out), nn.ReLU()]
        layers += [nn.MaxPool2d(2)]
        c_in, h, w = c_out, h // 2, w // 2
    layers += [nn.Flatten(), nn.Dropout(0.3), nn.Linear(c_in * h * w, arch["hidden"]), nn.ReLU()]
    layers += [nn.Linear(arch["hidden"], len(CLASSES))]
    torch.manual_seed(seed)
    return nn.Sequential(*layers)


def _augment(batch: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Mirror images and shift them a little (a page's margins vary)."""
    out = batch.copy()
    flip = rng.random(len(out)) < 0.5
    out[flip] = out[flip, :, ::-1]
    for i in range(len(out)):
        dx, dy = int(rng.integers(-6, 7)), int(rng.integers(0, 9))
        img = np.roll(out[i], dx, axis=1)
        if dx > 0:
            img[:, :dx] = 0.0
        elif dx < 0:
            img[:, dx:] = 0.0
        if dy:
            img = np.concatenate([np.zeros((dy, img.shape[1]), np.float32), img[:-dy]])
        out[i] = img
    return out


def _predict(net: Any, x: np.ndarray) -> np.ndarray:
    import torch

    net.eval()
    with torch.no_grad():
        probs = [
            torch.softmax(net(torch.from_numpy(x[i : i + 64, None])), 1).numpy()
            for i in range(0, len(x), 64)
        ]
    return np.concatenate(probs)


def balanced_accuracy(predicted: np.ndarray, truth: np.ndarray) -> float:
    """Mean of the per-class recalls: lists are a third of the val pages, and
    plain accuracy chose models that gained on articles and lost on lists."""
    return float(np.mean([(predicted[truth == c] == c).mean() for c in np.unique(truth)]))


def _fit(
    arch_name: str, epochs: int, data: dict[str, Any], seed: int = SEED
) -> tuple[Any, float, int]:
    import torch

    arch = ARCHS[arch_name]
    x_tr, y_tr, x_va, y_va = data["train_x"], data["train_y"], data["val_x"], data["val_y"]
    net = _net(arch, seed)
    opt = torch.optim.AdamW(net.parameters(), lr=2e-3, weight_decay=1e-3)
    steps = epochs * ((len(y_tr) + 31) // 32)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=2e-3, total_steps=steps)
    weights = torch.tensor(len(y_tr) / (2.0 * np.bincount(y_tr, minlength=2)), dtype=torch.float32)
    loss_fn = torch.nn.CrossEntropyLoss(weight=weights)
    rng = np.random.default_rng(seed)
    best = (-1.0, 0, None)
    for epoch in range(1, epochs + 1):
        net.train()
        order = rng.permutation(len(y_tr))
        for start in range(0, len(order), 32):
            idx = order[start : start + 32]
            xb = torch.from_numpy(_augment(x_tr[idx], rng)[:, None])
            opt.zero_grad()
            loss = loss_fn(net(xb), torch.from_numpy(y_tr[idx]))
            loss.backward()
            opt.step()
            sched.step()
        val_bal = balanced_accuracy(_predict(net, x_va).argmax(1), y_va)
        if val_bal > best[0]:
            best = (val_bal, epoch, {k: v.clone() for k, v in net.state_dict().items()})
        print(f"  {arch_name} epoch {epoch:2d} loss {loss.item():.3f} val bal acc {val_bal:.3f}")
    net.load_state_dict(best[2])
    return net, best[0], best[1]


def _layer_arrays(net: Any, prefix: str = "") -> dict[str, np.ndarray]:
    """One network's layers as numpy arrays, batch norm folded into each
    convolution (numpy runs one layer)."""
    import torch

    arrays: dict[str, np.ndarray] = {}
    modules = list(net)
    convs = [(m, modules[i + 1]) for i, m in enumerate(modules) if m.__class__.__name__ == "Conv2d"]
    dense = [m for m in net if m.__class__.__name__ == "Linear"]
    for i, (layer, norm) in enumerate(convs):
        scale = (norm.weight / torch.sqrt(norm.running_var + norm.eps)).detach().numpy()
        shift = (norm.bias - norm.running_mean * norm.weight /
                 torch.sqrt(norm.running_var + norm.eps)).detach().numpy()  # fmt: skip
        weight = layer.weight.detach().numpy() * scale[:, None, None, None]
        arrays[f"{prefix}conv{i}.weight"] = weight.astype(np.float32)
        arrays[f"{prefix}conv{i}.bias"] = (layer.bias.detach().numpy() * scale + shift).astype(
            np.float32
        )
    for i, layer in enumerate(dense):
        arrays[f"{prefix}fc{i}.weight"] = layer.weight.detach().numpy().astype(np.float32)
        arrays[f"{prefix}fc{i}.bias"] = layer.bias.detach().numpy().astype(np.float32)
    return arrays


@dataclass
class Trained:
    """One network of the model, with what it was trained from."""

    design: str
    seed: int
    net: Any
    val_balanced_accuracy: float
    epoch: int


def _export(nets: list[Trained], path: Path, note: dict[str, Any]) -> None:
    """The networks' weights (``m0.``, ``m1.``, ...) and the config that runs
    each (its view and depth): :class:`extractors.visual.VisualModel`
    averages their probabilities."""
    arrays: dict[str, np.ndarray] = {}
    members = []
    for j, t in enumerate(nets):
        arrays |= _layer_arrays(t.net, f"m{j}.")
        arch, modules = ARCHS[t.design], list(t.net)
        members.append({"arch": t.design, "fit": arch.get("fit", "top"),
                        "input_width": arch["input_width"], "input_height": arch["input_height"],
                        "conv_layers": sum(m.__class__.__name__ == "Conv2d" for m in modules),
                        "dense_layers": sum(m.__class__.__name__ == "Linear" for m in modules),
                        "seed": t.seed, "epoch": t.epoch,
                        "val_balanced_accuracy": round(t.val_balanced_accuracy, 4)})  # fmt: skip
    config = {"classes": CLASSES, "members": members} | note
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, config=np.array(json.dumps(config)), **arrays)


def _load_data(arch_name: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    rows = manifest()
    data: dict[str, Any] = {}
    for part in ("train", "val"):
        chosen = [r for r in rows if r["split"] == part]
        data[f"{part}_x"], data[f"{part}_y"] = _arrays(chosen, ARCHS[arch_name])
    return data, rows


def train(
    epochs: int | None = None,
    designs: Sequence[str] | None = None,
    export: bool = True,
    members: int = MEMBERS,
) -> None:
    """Without ``designs``: compare every candidate design on validation (one
    network each, for the record), then train ``members`` networks of each
    of :data:`DESIGNS` from successive seeds; with ``designs``, those alone.
    Export them all: the model is their mean."""
    import torch

    torch.set_num_threads(2)
    random.seed(SEED)
    np.random.seed(SEED)
    epochs = epochs or EPOCHS
    loaded: dict[str, dict[str, Any]] = {}  # each design's input arrays, decoded once

    def data_of(name: str) -> dict[str, Any]:
        if name not in loaded:
            loaded[name], rows = _load_data(name)
            counts = Counter((r["split"], r["label"]) for r in rows)
            print(f"{name}: {dict(sorted(counts.items()))}")
        return loaded[name]

    trained: dict[tuple[str, int], Trained] = {}
    scores = {}
    if designs is None:
        for name in sorted(ARCHS, key=lambda n: ARCHS[n]["input_width"]):
            trained[(name, SEED)] = _train_one(name, SEED, epochs, data_of(name))
            scores[name] = round(trained[(name, SEED)].val_balanced_accuracy, 4)
        for name, acc in scores.items():
            print(f"  {name:16s} val balanced accuracy {acc:.3f}")
        designs = DESIGNS
    nets = []
    for name in designs:
        for seed in range(SEED, SEED + members):
            if (name, seed) not in trained:
                trained[(name, seed)] = _train_one(name, seed, epochs, data_of(name))
            nets.append(trained[(name, seed)])
    val_probs, val_y = [], None
    for name in designs:
        data = data_of(name)
        val_probs += [_predict(t.net, data["val_x"]) for t in nets if t.design == name]
        val_y = data["val_y"]
    mean = balanced_accuracy(np.mean(val_probs, axis=0).argmax(1), val_y)
    print(f"{len(nets)} networks averaged: val balanced accuracy {mean:.3f}")
    if export:
        note = {"val_balanced_accuracy": round(mean, 4), "candidates": scores}
        _export(nets, DEFAULT_MODEL, note)
        print(f"exported {len(nets)} networks to {DEFAULT_MODEL} "
              f"({DEFAULT_MODEL.stat().st_size} bytes)")  # fmt: skip
        evaluate()


def _train_one(name: str, seed: int, epochs: int, data: dict[str, Any]) -> Trained:
    started = time.monotonic()
    net, val_bal, epoch = _fit(name, epochs, data, seed)
    took = time.monotonic() - started
    print(f"{name}, seed {seed}: best val balanced accuracy {val_bal:.3f} at epoch {epoch} "
          f"({took:.0f} s)")  # fmt: skip
    return Trained(name, seed, net, val_bal, epoch)


def evaluate(model_path: Path = DEFAULT_MODEL) -> None:
    """DOM, screenshot and combined figures on the real test pages
    (``evaluate.py``)."""
    from .evaluate import evaluate as run

    run(model_path)
