"""Score the shipped classifiers on real test pages: DOM only, screenshot only
and the two combined, side by side, with confusion matrices.

No test page is fitted or chosen on by either model. The combination rule
(``extractors.visual.Stack``) is fitted here on the validation pages
(``--fit-stack``), never on test pages.
"""

from __future__ import annotations

import json
import math
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from extractors.classify import classify
from extractors.encoding import decode_html
from extractors.visual import (
    DEFAULT_MODEL,
    Stack,
    VisualModel,
    combined_list_probability,
    load_model,
)

from . import sources
from .render import OUT, manifest

CLASSES = ["article", "list"]
PREDICTED = ["article", "list", "other"]
RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"
# L2 penalty on the stack's two weights (not the bias): a light pull towards
# "ignore a model" for a fit on ~100 pages.
STACK_L2 = 0.01


@dataclass(frozen=True)
class Page:
    key: str
    label: str  # "article" or "list"
    split: str
    dom_type: str  # "article", "list" or "other"
    p_dom: float
    p_visual: float


def _members_line(cfg: dict) -> str:
    """What the weights are: one network, or several averaged."""
    members = cfg.get("members")
    if not members:
        return (
            f"`{cfg['arch']}` (input {cfg['input_width']}x{cfg['input_height']} grey), val "
            f"balanced accuracy {cfg.get('val_balanced_accuracy')}, epoch {cfg.get('epoch')}"
        )
    designs = Counter(m["arch"] for m in members)
    parts = ", ".join(f"{n} x `{d}`" for d, n in designs.items())
    return (
        f"{len(members)} networks averaged ({parts}; grey input), val balanced accuracy "
        f"{cfg.get('val_balanced_accuracy')} (alone: "
        + ", ".join(f"{m['val_balanced_accuracy']}" for m in members)
        + ")"
    )


def _dom(parts: Sequence[str]) -> dict[str, tuple[str, float]]:
    """DOM decision and P(list) of every real page in ``parts``."""
    split = sources.load_split()
    out = {}
    for sample in sources.real_samples():
        if split.get(sample.key) not in parts:
            continue
        html, _ = decode_html(sample.html_bytes())
        result = classify(html, sample.url)
        out[sample.key] = (str(result.page_type), float(result.list_probability))
    return out


def load_pages(model: VisualModel, parts: Sequence[str] = ("test", "val")) -> list[Page]:
    """Both classifiers' outputs on the rendered real pages of ``parts``."""
    rows = [r for r in manifest() if r["split"] in parts and r["real"]]
    probs = model.probabilities([(OUT / r["file"]).read_bytes() for r in rows])
    p_list = probs[:, model.classes.index("list")]
    dom = _dom(parts)
    pages = [
        Page(r["key"], r["label"], r["split"], *dom[r["key"]], float(p))
        for r, p in zip(rows, p_list, strict=True)
    ]
    with (OUT / "probabilities.jsonl").open("w", encoding="utf-8") as fh:
        for page in pages:
            fh.write(json.dumps(asdict(page)) + "\n")
    return pages


# -- the combination rule, fitted on validation pages ----------------------------


def _logit(p: float, clip: float) -> float:
    p = min(max(p, 1e-12), 1.0 - 1e-12)
    return max(-clip, min(clip, math.log(p / (1.0 - p))))


def fit_stack(pages: Sequence[Page], clip: float = Stack().clip) -> Stack:
    """Class-balanced logistic regression of the label on the two log-odds
    (Newton's method), over pages both models score (not "other"); its bias
    then raised as little as makes list recall at least article recall on
    these pages (:func:`_lists_first`), as issue 5 asks of the classifier."""
    used = [p for p in pages if p.dom_type != "other"]
    x = np.array([[1.0, _logit(p.p_dom, clip), _logit(p.p_visual, clip)] for p in used])
    y = np.array([1.0 if p.label == "list" else 0.0 for p in used])
    n, n_list = len(y), y.sum()
    if not 0 < n_list < n:
        raise ValueError("fitting the stack needs pages of both classes")
    weight = np.where(y == 1, n / (2 * n_list), n / (2 * (n - n_list)))
    penalty = np.diag([0.0, 2 * STACK_L2, 2 * STACK_L2])
    w = np.zeros(3)
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -30, 30)))
        grad = x.T @ (weight * (p - y)) / n + penalty @ w
        hess = (x * (weight * p * (1 - p))[:, None]).T @ x / n + penalty
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-10:
            break
    bias = float(w[0] + _lists_first(x @ w, y == 1))
    return Stack(dom_weight=float(w[1]), visual_weight=float(w[2]), bias=bias, clip=clip)


def _lists_first(scores: np.ndarray, is_list: np.ndarray) -> float:
    """The least shift of the decision scores (list when > 0) that makes list
    recall at least article recall: 0, or halfway past an article's or a
    list's score to the next one up."""
    below = np.unique(-scores[scores <= 0])  # ascending: the shifts that flip a page
    steps = [0.0, *((below + np.append(below[1:], below[-1:] + 0.02)) / 2)]
    for shift in steps:
        said_list = scores + shift > 0
        if said_list[is_list].mean() >= (~said_list[~is_list]).mean():
            return shift
    return steps[-1]


# -- figures ---------------------------------------------------------------------


Rule = Callable[[Page], str]


def dom_only(page: Page) -> str:
    return page.dom_type


def screenshot_only(page: Page) -> str:
    return "list" if page.p_visual >= 0.5 else "article"


def averaged(page: Page) -> str:
    """The former rule: the mean of the two P(list)."""
    if page.dom_type == "other":
        return "other"
    return "list" if (page.p_dom + page.p_visual) / 2 >= 0.5 else "article"


def stacked(stack: Stack) -> Rule:
    def rule(page: Page) -> str:
        if page.dom_type == "other":
            return "other"
        p = combined_list_probability(page.p_dom, page.p_visual, stack)
        return "list" if p >= 0.5 else "article"

    return rule


@dataclass(frozen=True)
class Score:
    n: int
    accuracy: float
    recall: dict[str, float]
    matrix: dict[str, dict[str, int]]


def score(pages: Sequence[Page], rule: Rule) -> Score:
    matrix = {t: dict.fromkeys(PREDICTED, 0) for t in CLASSES}
    for page in pages:
        matrix[page.label][rule(page)] += 1
    right = sum(matrix[t][t] for t in CLASSES)
    recall = {t: matrix[t][t] / max(1, sum(matrix[t].values())) for t in CLASSES}
    return Score(len(pages), right / max(1, len(pages)), recall, matrix)


def _side_by_side(rules: dict[str, Score]) -> list[str]:
    lines = ["| classifier | pages | accuracy | article recall | list recall |",
             "|---|---:|---:|---:|---:|"]  # fmt: skip
    for name, s in rules.items():
        lines.append(
            f"| {name} | {s.n} | {s.accuracy:.4f} | {s.recall['article']:.4f} "
            f"| {s.recall['list']:.4f} |"
        )
    return lines + [""]


def _matrix(title: str, s: Score) -> list[str]:
    other = any(s.matrix[t]["other"] for t in CLASSES)
    cols = PREDICTED if other else CLASSES
    lines = [f"#### {title}: {s.n} pages, accuracy {s.accuracy:.4f}", "",
             "| true \\ predicted | " + " | ".join(cols) + " | recall |",
             "|---" * (len(cols) + 2) + "|"]  # fmt: skip
    for t in CLASSES:
        cells = " | ".join(str(s.matrix[t][c]) for c in cols)
        lines.append(f"| {t} | {cells} | {s.recall[t]:.4f} |")
    return lines + [""]


def evaluate(model_path: Path = DEFAULT_MODEL, fit: bool = False) -> Stack:
    """Print and save the side-by-side figures; returns the stack fitted on the
    validation pages (the shipped one is what the figures use unless ``fit``)."""
    model = load_model(model_path)
    started = time.monotonic()
    pages = load_pages(model)
    took = time.monotonic() - started
    test = [p for p in pages if p.split == "test"]
    val = [p for p in pages if p.split == "val"]
    refit = fit_stack(val)
    shipped = Stack()
    stack = refit if fit else shipped
    print(f"stack fitted on {len(val)} validation pages: {refit}")
    print(f"shipped stack: {shipped}")

    rules: dict[str, Rule] = {
        "DOM only": dom_only,
        "screenshot only": screenshot_only,
        "combined, 50/50 average (former rule)": averaged,
        "combined, logistic stack (shipped rule)": stacked(stack),
    }
    split = sources.load_split()
    n_test = sum(part == "test" for part in split.values())
    cfg = model.config
    n_val_lists = sum(p.label == "list" for p in val)
    lines = [
        "# Page-type classifiers on real test pages: DOM, screenshot, combined",
        "",
        f"Screenshot model: {_members_line(cfg)}. "
        f"DOM model: `extractors/classify.py`. Both run on {len(pages)} pages in "
        f"{took:.0f} s (render excluded).",
        "",
        "Command: `python -m training.pagetype evaluate` (pages rendered by "
        "`python -m training.pagetype render --splits test,val`).",
        "",
        "## Side by side, on the test pages neither model was fitted on",
        "",
        f"{len(test)} pages: the real test pages of `split.json` ({len(test)} of {n_test} "
        "rendered), which neither model nor the stack was fitted or chosen on. "
        f"{sum(p.label == 'list' for p in test)} lists, "
        f"{sum(p.label == 'article' for p in test)} articles.",
        "",
        f"Stack ({'refitted now' if fit else 'shipped'}): P(list) = sigmoid({stack.bias:.3f} "
        f"+ {stack.dom_weight:.3f} logit(p_dom) + {stack.visual_weight:.3f} logit(p_screenshot)), "
        f"log-odds clipped to +-{stack.clip:g}; fitted on {len(val)} validation pages "
        f"({n_val_lists} lists).",
        "",
    ]
    scores = {name: score(test, rule) for name, rule in rules.items()}
    lines += _side_by_side(scores)
    lines += ["### Confusion matrices", ""]
    for name, s in scores.items():
        lines += _matrix(name, s)
    for origin in ("pagetype", "wcxb-dev"):
        part = [p for p in test if p.key.startswith(origin + "/")]
        lines += [f"### {origin} only", ""]
        lines += _side_by_side({name: score(part, rule) for name, rule in rules.items()})
    text = "\n".join(lines)
    print(text)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "pagetype-screenshot.md").write_text(text, encoding="utf-8")
    return refit
