"""Page type from a screenshot: small LeNet-like CNNs run with numpy alone.

Seed: screenshot-classification-i-awce (a CNN on full-page screenshots tells
article pages from list pages; LeNet-5 on 224x224 grey). Here each network
is LeNet-shaped (5x5 then 3x3 convolutions, max pooling, two dense layers).
The screenshot is turned grey and, as the seed does, the whole bounded
capture is squeezed to a network's input size (``fit="squash"``, 96x192), or
the top of the page is read at its own aspect ratio (``fit="top"``: scaled to
the input width, cut or padded with white to its height; 64x128). Ink is 1,
paper 0. The shipped model averages ten networks' probabilities, five of
each view, trained from successive seeds.

The weights are trained by ``python -m training.pagetype train`` (torch, a
training-only extra) and shipped as ``models/pagetype.npz``: the layer arrays
and a JSON config saying how to run each network. No deep-learning framework
is imported at run time.
"""

from __future__ import annotations

import io
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from .classify import Classification
from .result import PageType

__all__ = [
    "DEFAULT_MODEL",
    "Member",
    "Stack",
    "VisualModel",
    "classify_screenshot",
    "classify_screenshots",
    "combine",
    "combined_list_probability",
    "list_probability",
    "load_model",
    "prepare",
]

DEFAULT_MODEL = Path(__file__).with_name("models") / "pagetype.npz"


def prepare(image: bytes, width: int, height: int, fit: str = "top") -> np.ndarray:
    """Screenshot bytes -> ``(height, width)`` float32 ink map in [0, 1].

    Grey. ``fit="top"``: scaled to ``width`` keeping the aspect ratio, the top
    ``height`` rows kept, white below a short page. ``fit="squash"``: the whole
    (bounded) capture squeezed to ``width`` x ``height``, as the seed does.
    Training uses this very function.
    """
    from PIL import Image

    with Image.open(io.BytesIO(image)) as img:
        grey = img.convert("L")
    if fit == "squash":
        squashed = np.asarray(grey.resize((width, height), Image.Resampling.BOX), np.float32)
        return (255.0 - squashed) / 255.0
    rows = max(1, round(grey.height * width / max(1, grey.width)))
    grey = grey.resize((width, rows), Image.Resampling.BILINEAR)
    canvas = np.full((height, width), 255, dtype=np.uint8)
    top = np.asarray(grey, dtype=np.uint8)[:height]
    canvas[: top.shape[0]] = top
    return (255.0 - canvas.astype(np.float32)) / 255.0


# -- layers ---------------------------------------------------------------------


def _conv2d(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """Same-padded stride-1 convolution, ``x`` (N, C, H, W), ``weight`` (O, C, k, k),
    as one matrix product over the unfolded windows (im2col)."""
    n, c, h, w = x.shape
    out_c, _, k, _ = weight.shape
    pad = k // 2
    padded = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    windows = np.lib.stride_tricks.sliding_window_view(padded, (k, k), axis=(2, 3))
    cols = windows.transpose(0, 2, 3, 1, 4, 5).reshape(n * h * w, c * k * k)
    out = cols @ weight.reshape(out_c, -1).T
    return out.reshape(n, h, w, out_c).transpose(0, 3, 1, 2) + bias[None, :, None, None]


def _maxpool2(x: np.ndarray) -> np.ndarray:
    n, c, h, w = x.shape
    x = x[:, :, : h - h % 2, : w - w % 2]
    return x.reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


@dataclass(frozen=True, slots=True)
class Member:
    """One network of a model: the view of the page it reads (input size and
    fit, see :func:`prepare`), its depth, and the prefix of its arrays."""

    prefix: str
    width: int
    height: int
    fit: str
    conv_layers: int
    dense_layers: int

    @property
    def view(self) -> tuple[int, int, str]:
        return self.width, self.height, self.fit


def _member(prefix: str, cfg: dict[str, Any]) -> Member:
    return Member(
        prefix,
        int(cfg["input_width"]),
        int(cfg["input_height"]),
        str(cfg.get("fit", "top")),
        int(cfg["conv_layers"]),
        int(cfg["dense_layers"]),
    )


@dataclass(frozen=True)
class VisualModel:
    """Weights and config of a trained screenshot classifier: one network
    (arrays unprefixed), or several whose probabilities are averaged (the
    config's ``members``, one entry each, arrays ``m0.``, ``m1.``, ...:
    networks trained from different seeds, on one view of the page or on
    several)."""

    config: dict[str, Any]
    arrays: dict[str, np.ndarray]

    @property
    def members(self) -> list[Member]:
        specs = self.config.get("members")
        if not specs:
            return [_member("", self.config)]
        return [_member(f"m{j}.", spec) for j, spec in enumerate(specs)]

    @property
    def input_size(self) -> tuple[int, int]:
        """(width, height) of the first network's input."""
        first = self.members[0]
        return first.width, first.height

    @property
    def classes(self) -> list[str]:
        return list(self.config["classes"])

    def forward(self, batch: np.ndarray, member: Member | None = None) -> np.ndarray:
        """``(N, H, W)`` ink maps -> ``(N, classes)`` probabilities of one
        network, or with no ``member`` the mean of all (which must then read
        one view)."""
        if member is not None:
            return self._forward(batch, member)
        members = self.members
        if len({m.view for m in members}) > 1:
            raise ValueError("the networks read different views: use probabilities()")
        return np.mean([self._forward(batch, m) for m in members], axis=0)

    def _forward(self, batch: np.ndarray, m: Member) -> np.ndarray:
        a, prefix = self.arrays, m.prefix
        x = batch[:, None, :, :].astype(np.float32)
        for i in range(m.conv_layers):
            x = _conv2d(x, a[f"{prefix}conv{i}.weight"], a[f"{prefix}conv{i}.bias"])
            x = _maxpool2(np.maximum(x, 0.0))
        x = x.reshape(x.shape[0], -1)
        for i in range(m.dense_layers):
            x = x @ a[f"{prefix}fc{i}.weight"].T + a[f"{prefix}fc{i}.bias"]
            if i < m.dense_layers - 1:
                x = np.maximum(x, 0.0)
        return _softmax(x)

    def probabilities(self, images: Sequence[bytes], batch_size: int = 16) -> np.ndarray:
        """Class probabilities for screenshots (encoded bytes), in order: the
        mean over the networks, each picture prepared once per view."""
        members = self.members
        out = []
        for start in range(0, len(images), batch_size):
            chunk = images[start : start + batch_size]
            total = np.zeros((len(chunk), len(self.classes)), np.float64)
            for view in dict.fromkeys(m.view for m in members):
                batch = np.stack([prepare(img, *view) for img in chunk])
                for m in members:
                    if m.view == view:
                        total += self._forward(batch, m)
            out.append((total / len(members)).astype(np.float32))
        return np.concatenate(out) if out else np.zeros((0, len(self.classes)), np.float32)


def load_model(path: str | Path = DEFAULT_MODEL) -> VisualModel:
    """Read an ``.npz`` written by the trainer."""
    with np.load(path, allow_pickle=False) as data:
        config = json.loads(str(data["config"]))
        arrays = {name: data[name].astype(np.float32) for name in data.files if name != "config"}
    return VisualModel(config=config, arrays=arrays)


@lru_cache(maxsize=4)
def _model(path: str) -> VisualModel:
    return load_model(path)


def list_probability(images: Sequence[bytes], model: str | Path = DEFAULT_MODEL) -> list[float]:
    """P(list page) for each screenshot: the number to combine with DOM evidence."""
    net = _model(str(model))
    probs = net.probabilities(images)
    return [float(p) for p in probs[:, net.classes.index(PageType.LIST.value)]]


def classify_screenshots(
    images: Sequence[bytes], model: str | Path = DEFAULT_MODEL
) -> list[tuple[PageType, float]]:
    """``(page type, confidence)`` for each screenshot; confidence is the
    probability of the chosen type (0.5-1.0)."""
    results = []
    for p_list in list_probability(images, model):
        if p_list >= 0.5:
            results.append((PageType.LIST, p_list))
        else:
            results.append((PageType.ARTICLE, 1.0 - p_list))
    return results


def classify_screenshot(image: bytes, model: str | Path = DEFAULT_MODEL) -> tuple[PageType, float]:
    """Article or list from one screenshot (PNG, WebP or JPEG bytes)."""
    return classify_screenshots([image], model)[0]


# -- combining with the DOM classifier ------------------------------------------


@dataclass(frozen=True, slots=True)
class Stack:
    """How the DOM's and the screenshot's P(list) make one: a logistic model
    over their log-odds, ``P = sigmoid(bias + dom_weight * logit(p_dom) +
    visual_weight * logit(p_visual))``. A plain average of the probabilities
    lets the weaker screenshot model (0.81 on real test pages) drag a confident
    DOM decision across 0.5; the stack weighs each by what it is worth.

    The weights belong to the shipped models: refit them whenever either is
    retrained (``python -m training.pagetype evaluate --fit-stack``).
    """

    # Fitted by `python -m training.pagetype evaluate --fit-stack`: logistic
    # regression (class-balanced, L2 0.01 on the two weights) on the 144
    # validation pages of training/pagetype/split.json (50 lists), its bias
    # then raised until list recall is at least article recall there; never
    # on test pages. Refitted when the DOM model learnt the index words of a
    # page's address and was fitted with the pages' addresses (2026-12-07,
    # 143 of the 144 rendered); rounded to 2 decimals (fit: 0.723, 0.895,
    # 0.984). Before: 0.68, 0.93, 0.82 (prices and product / collection
    # declarations, 2026-12-06); 0.80, 0.91, 1.16 (ten screenshot networks,
    # 2026-12-05); 0.73, 0.48, 0.49 (one network).
    dom_weight: float = 0.72
    visual_weight: float = 0.9
    bias: float = 0.98
    # Each input's log-odds is bounded to +-clip (a probability of 0.9997):
    # one model's certainty alone does not overrule everything.
    clip: float = 8.0


def _logit(p: float, clip: float) -> float:
    p = min(max(p, 1e-12), 1.0 - 1e-12)
    return max(-clip, min(clip, math.log(p / (1.0 - p))))


def combined_list_probability(p_dom: float, p_visual: float, stack: Stack | None = None) -> float:
    """P(list) from the DOM classifier's and the screenshot model's P(list)."""
    s = stack or Stack()
    z = s.bias + s.dom_weight * _logit(p_dom, s.clip) + s.visual_weight * _logit(p_visual, s.clip)
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def combine(
    dom: Classification, p_visual: float | None, stack: Stack | None = None
) -> Classification:
    """The DOM decision revised by the screenshot's P(list) (``None``: no
    screenshot). A page the DOM calls "other" (empty, error, login) stays so."""
    if p_visual is None or dom.page_type is PageType.OTHER:
        return dom
    p_list = combined_list_probability(dom.list_probability, p_visual, stack)
    page_type = PageType.LIST if p_list >= 0.5 else PageType.ARTICLE
    confidence = p_list if page_type is PageType.LIST else 1.0 - p_list
    return replace(
        dom, page_type=page_type, confidence=round(confidence, 3), list_probability=p_list
    )
