"""Where a benchmark's table goes: printed, and saved as a file (by default
under ``benchmarks/results/``, which the README and the closing notes cite)."""

from __future__ import annotations

from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def publish(text: str, path: Path) -> None:
    """Print ``text`` and write it to ``path`` (its folder made if need be)."""
    text = text.rstrip("\n")
    print(text)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + "\n", encoding="utf-8")
