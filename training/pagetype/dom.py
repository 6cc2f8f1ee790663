"""Fit the DOM page-type classifier (``extractors/classify.py``) and score it.

``python -m training.pagetype dom`` regenerates ``extractors/models/pagetype_dom.json``:
a class-balanced, L2-regularised logistic regression of "list" on
``classify.features`` (Newton's method on standardised features, folded back
into raw-feature weights), fitted on the **train** pages only. The L2 strength
and the weight of the generated pages (``synth.py``) are chosen on the **val**
pages (balanced accuracy: the goal is list recall as high as article recall;
ties by class-balanced log-loss); test pages are scored, never fitted on or
used for a choice.

Pages: the real pages of ``split.json`` (train / val / test) plus the wcxb-dev
pages that split leaves out (the articles it did not sample and the product,
service and documentation pages, which must not look like lists: their target
is "not a list"); those are cut by id into train, val and a held-out part.
Forum threads are scored, never fitted.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from extractors import classify as dom
from extractors.auto import consensus_signals, voter
from extractors.document import as_document
from extractors.encoding import decode_html

from . import sources

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "extractors" / "models" / "pagetype_dom.json"
RESULTS = ROOT / "benchmarks" / "results" / "pagetype-dom.md"
CACHE = Path("/tmp") / "sitesift-pagetype-dom"
L2_GRID = (1e-5, 1e-4, 3e-4, 1e-3, 3e-3, 0.01, 0.03, 0.1, 0.3, 1.0)
# Weight of each generated page in the fit (a real page's is 1), chosen on val.
GENERATED_WEIGHTS = (0.0, 0.25, 0.5, 1.0)
NOT_LIST_KINDS = ("product", "service", "documentation")
SCORED_ONLY_KINDS = ("forum",)


@dataclass(frozen=True)
class Page:
    key: str
    kind: str  # "list", "article", or a wcxb-dev page type
    part: str  # "train", "val", "test" or "holdout"
    path: str | None  # a .html.gz page, or None for a generated one
    html: str | None = None  # a generated page's markup
    url: str | None = None  # its address, as a crawl passes it, where known

    @property
    def is_list(self) -> bool:
        return self.kind == "list"

    @property
    def fitted(self) -> bool:
        """Whether the page may be fitted on (train part, a known target)."""
        return self.part == "train" and self.kind not in SCORED_ONLY_KINDS


def pages() -> list[Page]:
    """Every labelled page with its part, in a fixed order."""
    split = sources.load_split()
    out: list[Page] = []
    seen: set[str] = set()
    for s in sources.real_samples():
        part = split.get(s.key)
        if part is not None and s.path is not None:
            out.append(Page(s.key, s.label, part, s.path, url=s.url))
            seen.add(s.key)
    for row in sources._rows("wcxb-dev"):
        key = f"wcxb-dev/{row['id']}"
        kind = row["page_type"]
        if key in seen or kind in sources.WCXB_LIST_TYPES:
            continue
        # A fixed cut by id: a quarter held out, 15% val, the rest train.
        slot = int(row["id"]) % 20
        part = "holdout" if slot < 5 else "val" if slot < 8 else "train"
        if kind in SCORED_ONLY_KINDS:
            part = "holdout"
        out.append(Page(key, kind, part, sources._page("wcxb-dev", row["id"]), url=row["url"]))
    return out


def generated_pages() -> list[Page]:
    """The generated list and article pages of the train split (``synth.py``,
    the same pages the screenshot model was trained on)."""
    from . import synth
    from .render import SYNTH_ARTICLES, SYNTH_LISTS

    zh_t, zh_s, en_t, en_s = sources.title_pool()
    pool = synth.Pool(titles={"zh": zh_t, "en": en_t}, snippets={"zh": zh_s, "en": en_s})
    made = synth.generate(pool, SYNTH_LISTS, SYNTH_ARTICLES, seed=sources.SEED)
    return [Page(key, label, "train", None, text) for key, label, text in made]


# -- features, cached per version of the feature code -------------------------


def _code_version() -> str:
    # The features read every article method's output (the consensus), and
    # the pages' addresses as this module and ``sources`` give them.
    digest = hashlib.sha1()
    code = [*(ROOT / "extractors").rglob("*.py"), Path(__file__), Path(sources.__file__)]
    for path in sorted(code):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def _measure(page: Page) -> list[float] | None:
    """The page's features, or None when the classifier calls it "other"."""
    import gzip

    html = page.html
    if html is None:
        assert page.path is not None
        with gzip.open(page.path, "rb") as fh:
            html, _ = decode_html(fh.read())
    doc = as_document(html, page.url)
    params = dom.Params()
    if dom._other(doc, params) is not None:
        return None
    cetd = voter(doc, "cetd", page.url)  # as auto and classify() measure it
    main_chars = len("".join(cetd.text.split())) if cetd else 0
    return dom.features(doc, main_chars, consensus_signals(doc, page.url), params)


def measure_all(items: Sequence[Page], workers: int = 2) -> dict[str, list[float] | None]:
    """Features of every page (cached under /tmp by code version)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    file = CACHE / f"features-{_code_version()}.json"
    cached: dict[str, list[float] | None] = {}
    if file.exists():
        cached = json.loads(file.read_text(encoding="utf-8"))
    todo = [p for p in items if p.key not in cached]
    if todo:
        with ProcessPoolExecutor(workers) as pool:
            found = pool.map(_measure, todo, chunksize=8)
            for page, x in zip(todo, found, strict=True):
                cached[page.key] = x
        file.write_text(json.dumps(cached), encoding="utf-8")
    return cached


# -- the fit ---------------------------------------------------------------------


@dataclass(frozen=True)
class Fit:
    weights: np.ndarray  # raw-feature weights, bias first
    l2: float
    generated_weight: float  # each generated page's weight (a real page's is 1)


def fit(x: np.ndarray, y: np.ndarray, l2: float, sample: np.ndarray | None = None) -> np.ndarray:
    """Class-balanced L2 logistic regression (Newton) with optional per-page
    weights. ``x[:, 0]`` is the bias column; the others are standardised on
    ``x`` and the penalty spares the bias. Returns weights on the raw features."""
    sample = np.ones(len(y)) if sample is None else sample
    mean = x[:, 1:].mean(0)
    std = x[:, 1:].std(0)
    std[std < 1e-9] = 1.0
    z = np.hstack([np.ones((len(x), 1)), (x[:, 1:] - mean) / std])
    n, n_list = sample.sum(), sample[y == 1].sum()
    weight = sample * np.where(y == 1, n / (2 * n_list), n / (2 * (n - n_list)))
    penalty = np.full(z.shape[1], 2 * l2)
    penalty[0] = 0.0
    w = np.zeros(z.shape[1])
    for _ in range(200):
        p = 1.0 / (1.0 + np.exp(-np.clip(z @ w, -30, 30)))
        grad = z.T @ (weight * (p - y)) / n + penalty * w
        hess = (z * (weight * p * (1 - p))[:, None]).T @ z / n + np.diag(penalty)
        step = np.linalg.solve(hess + 1e-9 * np.eye(len(w)), grad)
        w -= step
        if np.abs(step).max() < 1e-9:
            break
    raw = np.empty_like(w)
    raw[1:] = w[1:] / std
    raw[0] = w[0] - float((w[1:] * mean / std).sum())
    return raw


def _prob(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(x @ w, -30, 30)))


def balanced_log_loss(p: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    lists = -np.log(p[y == 1]).mean() if (y == 1).any() else 0.0
    others = -np.log(1 - p[y == 0]).mean() if (y == 0).any() else 0.0
    return float((lists + others) / 2)


def _matrix(items: Sequence[Page], feats: dict[str, list[float] | None]) -> np.ndarray:
    return np.array([feats[p.key] for p in items], dtype=float)


def choose_and_fit(
    items: Sequence[Page], feats: dict[str, list[float] | None]
) -> tuple[Fit, list[tuple[float, float, float, float]]]:
    """The (generated-page weight, L2) pair with the best val balanced
    accuracy (the mean of list and not-list recall; ties: the lower
    class-balanced val log-loss), and its fit on the train pages."""
    usable = [p for p in items if feats[p.key] is not None]
    train = [p for p in usable if p.fitted]
    val = [p for p in usable if p.part == "val" and p.kind not in SCORED_ONLY_KINDS]
    x_tr, y_tr = _matrix(train, feats), np.array([p.is_list for p in train], dtype=float)
    x_va, y_va = _matrix(val, feats), np.array([p.is_list for p in val], dtype=float)
    generated = np.array([p.path is None for p in train])
    table = []
    best: Fit | None = None
    best_key = (-math.inf, -math.inf)
    for gen_weight in GENERATED_WEIGHTS:
        sample = np.where(generated, gen_weight, 1.0)
        for l2 in L2_GRID:
            w = fit(x_tr, y_tr, l2, sample)
            p_va = _prob(x_va, w)
            loss = balanced_log_loss(p_va, y_va)
            guess = p_va >= 0.5
            acc = float((guess[y_va == 1].mean() + (~guess[y_va == 0]).mean()) / 2)
            table.append((gen_weight, l2, loss, acc))
            if (acc, -loss) > best_key:
                best, best_key = Fit(w, l2, gen_weight), (acc, -loss)
    assert best is not None
    return best, table


# -- scoring ---------------------------------------------------------------------


def predict(page: Page, feats: dict[str, list[float] | None], w: np.ndarray) -> str:
    x = feats[page.key]
    if x is None:
        return "other"
    return "list" if _prob(np.array(x), w) >= 0.5 else "article"


@dataclass(frozen=True)
class Score:
    n: int
    accuracy: float
    article_recall: float
    list_recall: float
    counts: Counter


def score(items: Sequence[Page], predicted: dict[str, str]) -> Score:
    """Accuracy with "not a list" kinds counted right when called an article."""
    counts: Counter = Counter()
    right = 0
    for p in items:
        truth = "list" if p.is_list else "article"
        guess = predicted[p.key]
        counts[(truth, guess)] += 1
        right += guess == truth
    arts = sum(v for (t, _), v in counts.items() if t == "article")
    lists = sum(v for (t, _), v in counts.items() if t == "list")
    return Score(
        len(items),
        right / max(1, len(items)),
        counts[("article", "article")] / max(1, arts),
        counts[("list", "list")] / max(1, lists),
        counts,
    )


def _row(name: str, s: Score) -> str:
    return f"| {name} | {s.n} | {s.accuracy:.4f} | {s.article_recall:.4f} | {s.list_recall:.4f} |"


def report(
    items: Sequence[Page],
    predicted: dict[str, dict[str, str]],
) -> list[str]:
    """Tables per part for each named prediction set."""
    groups = {
        "test (real, unseen)": [p for p in items if p.part == "test"],
        "  of which pagetype": [
            p for p in items if p.part == "test" and p.key.startswith("pagetype/")
        ],
        "  of which wcxb-dev": [
            p for p in items if p.part == "test" and p.key.startswith("wcxb-dev/")
        ],
        "val (article/list)": [
            p for p in items if p.part == "val" and p.kind in ("article", "list")
        ],
        "val, product/service/doc": [
            p for p in items if p.part == "val" and p.kind in NOT_LIST_KINDS
        ],
    }
    for kind in (*NOT_LIST_KINDS, *SCORED_ONLY_KINDS, "article"):
        groups[f"wcxb-dev held out: {kind}"] = [
            p for p in items if p.part == "holdout" and p.kind == kind
        ]
    lines = ["| pages | model | n | accuracy | article recall | list recall |",
             "|---|---|---:|---:|---:|---:|"]  # fmt: skip
    for gname, group in groups.items():
        for mname, pred in predicted.items():
            s = score(group, pred)
            lines.append(f"| {gname} " + _row(mname, s))
    return lines


def save_model(f: Fit, n_train: Counter) -> None:
    doc = {
        "features": list(dom.FEATURES),
        "weights": [round(float(v), 5) for v in f.weights],
        "l2": f.l2,
        "generated_weight": f.generated_weight,
        "fitted_on": "train part of training/pagetype/split.json (real pages and the "
        "generated ones of synth.py) plus wcxb-dev pages outside it (id % 20 >= 8); "
        "regenerate with: python -m training.pagetype dom",
        "train_pages": dict(sorted(n_train.items())),
    }
    MODEL.parent.mkdir(parents=True, exist_ok=True)
    MODEL.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")


def _header(best: Fit, n_train: Counter, compare: Path | None) -> list[str]:
    other = (
        f" `{compare.stem}` is the classifier it replaces, run on the same pages."
        if compare
        else ""
    )
    return [
        "# DOM page-type classifier: train-only fit",
        "",
        "Command: `python -m training.pagetype dom --report` (features of "
        "`extractors.classify.features`, weights -> `extractors/models/pagetype_dom.json`).",
        "",
        f"Fitted on {sum(n_train.values())} train pages ({dict(sorted(n_train.items()))}); "
        f"chosen on the val pages (best val balanced accuracy, i.e. mean of list and "
        f"not-list recall; ties by class-balanced log-loss): "
        f"L2 {best.l2:g} on standardised features, generated pages weighted "
        f"{best.generated_weight:g}. No test page is fitted on or used for a choice." + other,
        "",
        "Rows: 'test' = the real test pages of `split.json`; product, service and "
        "documentation pages count as right when not called lists; wcxb-dev 'held out' = "
        "pages outside `split.json` with id % 20 < 5, never fitted on.",
        "",
    ]


def run(export: bool = True, write_report: bool = False, compare: Path | None = None) -> Fit:
    """Measure, choose the L2 strength on val, fit on train, score, export."""
    items = pages()
    train = items + generated_pages()
    feats = measure_all(train)
    best, table = choose_and_fit(train, feats)
    print("grid (generated-page weight, L2): val balanced log-loss, val balanced accuracy")
    for gen_weight, l2, loss, acc in table:
        mark = " <" if (l2, gen_weight) == (best.l2, best.generated_weight) else ""
        print(f"  gen {gen_weight:<5g} l2 {l2:<7g} loss {loss:.4f} acc {acc:.4f}{mark}")
    fitted = [
        p
        for p in train
        if p.fitted and feats[p.key] is not None and (best.generated_weight or p.path)
    ]
    n_train = Counter(p.kind if p.path else f"generated {p.kind}" for p in fitted)
    print(f"fitted on {len(fitted)} train pages: {dict(n_train)}")
    shipped = np.array(dom.Params().weights, dtype=float)
    predicted = {"new fit": {p.key: predict(p, feats, best.weights) for p in items}}
    if len(shipped) == len(best.weights) and not export:
        predicted["shipped"] = {p.key: predict(p, feats, shipped) for p in items}
    if compare is not None:
        # Decisions of another classifier version ({key: page type}), e.g. the
        # previous one's, written by its own run over the same pages.
        predicted[compare.stem] = json.loads(compare.read_text(encoding="utf-8"))
    lines = report(items, predicted)
    print("\n".join(lines))
    for name, w in zip(dom.FEATURES, best.weights, strict=True):
        print(f"  {name:28s} {w:+.3f}")
    if export:
        save_model(best, n_train)
        print(f"wrote {MODEL}")
    if write_report:
        RESULTS.write_text("\n".join(_header(best, n_train, compare) + lines) + "\n", "utf-8")
    return best
