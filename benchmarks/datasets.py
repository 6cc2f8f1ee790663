"""The shared development datasets as one stream of :class:`Page` objects.

Every set stores ``pages/<id>.html.gz`` plus ``truth.jsonl`` (``labels.jsonl``
for ``pagetype``), but the truth fields differ per set; this module hides
that, so a benchmark or test can say ``load("daniel-zh", limit=30)``.

``truth_text`` is the main *body* text to score against: the DAnIEL sets'
first line (the headline) is moved to ``title``, ``zh-news`` is body-only
already, ``magic-html`` keeps its title line (it cannot be told apart),
``trafilatura-eval`` has only snippets (their ``with`` list, one per line),
``pagetype`` has no text at all.
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SETS: tuple[str, ...] = (
    "readability",
    "trafilatura-eval",
    "daniel-en",
    "daniel-zh",
    "zh-news",
    "magic-html",
    "wcxb-dev",
    "pagetype",
)

# Sets whose truth is main text (the others are snippets or labels only).
TEXT_SETS: tuple[str, ...] = tuple(s for s in SETS if s not in ("trafilatura-eval", "pagetype"))

# Language of every page of a set when its truth records none.
_SET_LANG: dict[str, str] = {
    "daniel-en": "en",
    "daniel-zh": "zh",
    "zh-news": "zh",
    "wcxb-dev": "en",
}

_ENV = "SITESIFT_DATASETS"
_REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True, slots=True)
class Page:
    """One page with its ground truth. ``kind`` is the set's page class:
    magic-html ``kind``, wcxb-dev ``page_type``, pagetype ``label``."""

    set: str
    id: str
    html: bytes = field(repr=False)
    truth: dict[str, Any] = field(repr=False)
    truth_text: str = field(repr=False)
    lang: str | None
    kind: str | None
    url: str | None

    @property
    def title(self) -> str | None:
        """The headline from the truth, when the set has one."""
        return self.truth.get("title") or None


def datasets_dir() -> Path | None:
    """Where the datasets are: ``$SITESIFT_DATASETS``, ``../shared/datasets``
    beside the checkout (as in CI), or ``/work/shared/datasets``; None if
    none exists."""
    candidates = [os.environ.get(_ENV), _REPO.parent / "shared" / "datasets"]
    candidates.append("/work/shared/datasets")
    for cand in candidates:
        if cand and any((Path(cand) / name).is_dir() for name in SETS):
            return Path(cand)
    return None


def require_dir() -> Path:
    root = datasets_dir()
    if root is None:
        raise FileNotFoundError(f"datasets not found; set {_ENV} to the datasets folder")
    return root


def _records(set_dir: Path) -> list[dict[str, Any]]:
    name = "labels.jsonl" if (set_dir / "labels.jsonl").exists() else "truth.jsonl"
    with open(set_dir / name, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _truth_text(set_name: str, rec: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The body text to score against, and the truth (with a title added
    where the set hides it in the text)."""
    if set_name == "trafilatura-eval":
        return "\n".join(rec.get("with") or []), rec
    if set_name == "pagetype":
        return "", rec
    text = rec.get("text") or ""
    if set_name.startswith("daniel-"):
        title, _, body = text.partition("\n")
        return body, {**rec, "title": title.strip()}
    return text, rec


def _lang(set_name: str, rec: dict[str, Any], text: str) -> str | None:
    lang = rec.get("lang") or _SET_LANG.get(set_name)
    if lang in (None, "other", "latin"):
        from extractors.text import guess_language

        guessed = guess_language(text) if text else None
        return guessed or (None if lang == "other" else lang)
    return lang.split("-")[0].lower()


def _kind(rec: dict[str, Any]) -> str | None:
    return rec.get("kind") or rec.get("page_type") or rec.get("label")


def load(
    set_name: str,
    limit: int | None = None,
    *,
    kinds: str | list[str] | tuple[str, ...] | set[str] | None = None,
) -> Iterator[Page]:
    """Pages of one set in id order; ``kinds`` keeps only those classes,
    then ``limit`` keeps the first N."""
    if set_name not in SETS:
        raise KeyError(f"unknown dataset {set_name!r}; choose from {', '.join(SETS)}")
    if isinstance(kinds, str):
        kinds = {kinds}
    set_dir = require_dir() / set_name
    records = sorted(_records(set_dir), key=lambda r: str(r["id"]))
    if kinds is not None:
        records = [r for r in records if _kind(r) in kinds]
    for rec in records[:limit]:
        page_id = str(rec["id"])
        html = gzip.decompress((set_dir / "pages" / f"{page_id}.html.gz").read_bytes())
        text, truth = _truth_text(set_name, rec)
        yield Page(
            set=set_name,
            id=page_id,
            html=html,
            truth=truth,
            truth_text=text,
            lang=_lang(set_name, rec, text),
            kind=_kind(rec),
            url=rec.get("url") if str(rec.get("url", "")).startswith("http") else None,
        )


def count(
    set_name: str, *, kinds: str | list[str] | tuple[str, ...] | set[str] | None = None
) -> int:
    """Number of pages ``load`` would yield without a limit (no page is read)."""
    if isinstance(kinds, str):
        kinds = {kinds}
    records = _records(require_dir() / set_name)
    return sum(1 for r in records if kinds is None or _kind(r) in kinds)
