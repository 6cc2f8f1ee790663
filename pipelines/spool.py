"""A local JSONL spool for items the database could not take.

When the database goes away mid-crawl, the store writes each failed batch
here (one JSON object a line, fsync'ed) instead of dropping it, and replays
the spool once the database answers again — in this run or the next one.
A file is deleted only after its whole content was committed.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any


class Spool:
    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)

    def check(self) -> str | None:
        """Why batches could not be spooled here, or None when they can."""
        existing = self.directory.absolute()
        while not existing.exists() and existing != existing.parent:
            existing = existing.parent  # the folder is created when first needed
        if not existing.is_dir():
            return f"spool folder {self.directory} cannot be created: {existing} is not a folder"
        if not os.access(existing, os.W_OK):
            return f"spool folder {self.directory} is not writable ({existing})"
        return None

    def files(self) -> list[Path]:
        if not self.directory.is_dir():
            return []
        return sorted(self.directory.glob("spool-*.jsonl"))

    def pending(self) -> int:
        """Records waiting in the spool."""
        total = 0
        for path in self.files():
            with path.open("rb") as fh:
                total += sum(1 for line in fh if line.strip())
        return total

    def write(self, records: list[dict[str, Any]]) -> Path:
        """Append one batch as a new file, durably."""
        self.directory.mkdir(parents=True, exist_ok=True)
        name = f"spool-{time.time_ns():020d}-{os.getpid()}.jsonl"
        tmp = self.directory / (name + ".part")
        try:
            with tmp.open("w", encoding="utf-8") as fh:
                for record in records:
                    fh.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
                fh.flush()
                os.fsync(fh.fileno())
        except OSError:
            with contextlib.suppress(OSError):
                tmp.unlink()  # a full disk leaves no torn file behind
            raise
        path = self.directory / name
        tmp.replace(path)  # a killed process leaves a .part, never a torn .jsonl
        return path

    def batches(self) -> Iterator[tuple[Path, list[dict[str, Any]]]]:
        """Each spooled batch, oldest first; call :meth:`done` once it is stored."""
        for path in self.files():
            with path.open(encoding="utf-8") as fh:
                records = [json.loads(line) for line in fh if line.strip()]
            yield path, records

    @staticmethod
    def done(path: Path) -> None:
        path.unlink(missing_ok=True)
