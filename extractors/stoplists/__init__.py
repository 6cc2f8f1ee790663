"""Stoplists for jusText's stopword density, one ``<language>.txt`` per language.

The files are written by ``scripts/derive_stoplists.py`` (its docstring says
how they are derived); they hold one lower-cased word per line, ``#`` lines
are comments.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_DIR = Path(__file__).resolve().parent


def available() -> frozenset[str]:
    """Language codes that have a stoplist."""
    return frozenset(p.stem for p in _DIR.glob("*.txt"))


@cache
def load(language: str) -> frozenset[str]:
    """The stoplist of ``language`` (``"en"``, ``"zh"``); empty if there is none.

    Cached per language: the files are immutable package data.
    """
    path = _DIR / f"{language.lower()}.txt"
    if not path.is_file():
        return frozenset()
    words = (line.strip().lower() for line in path.read_text(encoding="utf-8").splitlines())
    return frozenset(w for w in words if w and not w.startswith("#"))
