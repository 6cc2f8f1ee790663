"""A local JSONL spool for items the database could not take.

When the database goes away mid-crawl, the store writes each failed batch
here (one JSON object a line, fsync'ed) instead of dropping it, and replays
the spool once the database answers again — in this run or the next one.
A file is deleted only after its whole content was committed. An item the
database refuses for its data (not for being away) would fail at every
replay: it goes to ``rejected.jsonl`` instead, with the reason, for people
to look at.

Each database has its own folder under the spool root (named by a hash of
the database, which ``database.txt`` names for people): a crawl into one
database never replays what another crawl spooled for another.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any


class Spool:
    """The spool of one database (its URL) under the spool root."""

    def __init__(self, root: str | Path, database_url: str) -> None:
        self.root = Path(root)
        self.database = _database_key(database_url)
        self.directory = self.root / _folder_name(self.database)

    def elsewhere(self) -> list[tuple[Path, str, int]]:
        """Records waiting under the same root for other databases, by folder:
        (folder, its database or "an unknown database", records). Batches
        spooled at the root itself were written before folders were per
        database: whose they are is unknown, so none is replayed."""
        if not self.root.is_dir():
            return []
        found = []
        for folder in [self.root, *sorted(p for p in self.root.iterdir() if p.is_dir())]:
            if folder == self.directory:
                continue
            named = folder / DATABASE_FILE
            database = named.read_text(encoding="utf-8").strip() if named.is_file() else ""
            waiting = _records(sorted(folder.glob("spool-*.jsonl")))
            if waiting:
                found.append((folder, database or "an unknown database", waiting))
        return found

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
        return _records(self.files())

    def rejected(self) -> int:
        """Items kept in the rejected file."""
        path = self.directory / REJECTED
        if not path.is_file():
            return 0
        with path.open("rb") as fh:
            return sum(1 for line in fh if line.strip())

    def write(self, records: list[dict[str, Any]]) -> Path:
        """Append one batch as a new file, durably."""
        self._make()
        path = self.directory / f"spool-{time.time_ns():020d}-{os.getpid()}.jsonl"
        _write_lines(path, [_line(record) for record in records])
        return path

    def rewrite(self, path: Path, records: list[dict[str, Any]]) -> None:
        """Replace a spooled batch with the part of it still to store."""
        _write_lines(path, [_line(record) for record in records])

    def reject(self, record: dict[str, Any], reason: str) -> Path:
        """Keep an item the database refused for its data, with the reason,
        in ``rejected.jsonl``: never replayed (it would fail again), for
        people to look at."""
        self._make()
        path = self.directory / REJECTED
        entry = {"rejected_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "reason": reason,
                 "record": record}  # fmt: skip
        with path.open("a", encoding="utf-8") as fh:
            fh.write(_line(entry))
            fh.flush()
            os.fsync(fh.fileno())
        return path

    def keep_run_end(self, run_id: int, values: dict[str, Any]) -> Path:
        """Keep what the end of a run would have recorded (its end time,
        reason, counts), merged with what was kept before, until the
        database takes it: a run the database missed at its end would
        otherwise look interrupted for ever."""
        self._make()
        path = self.directory / f"{RUN_END_PREFIX}{run_id:012d}.json"
        kept = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
        _write_lines(path, [_line({**kept, **values, "run_id": run_id})])
        return path

    def run_ends(self) -> Iterator[tuple[Path, dict[str, Any]]]:
        """Each kept run end, oldest run first; :meth:`done` once recorded."""
        if not self.directory.is_dir():
            return
        for path in sorted(self.directory.glob(f"{RUN_END_PREFIX}*.json")):
            try:
                yield path, json.loads(path.read_text(encoding="utf-8"))
            except FileNotFoundError:  # recorded meanwhile by another crawl
                continue

    def batches(self) -> Iterator[tuple[Path, list[dict[str, Any]]]]:
        """Each spooled batch, oldest first; call :meth:`done` once it is stored."""
        for path in self.files():
            try:
                with path.open(encoding="utf-8") as fh:
                    records = [json.loads(line) for line in fh if line.strip()]
            except FileNotFoundError:  # replayed meanwhile by another crawl
                continue
            yield path, records

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the spool while replaying it: crawls into one database from
        one folder (``crawl --workers``) replay it one after the other, so
        none stores a batch the other is storing or rewrites one the other
        has finished. The lock goes with the process that dies holding it."""
        try:
            fh = (self.directory / LOCK_FILE).open("a")
        except OSError:  # no folder, so nothing spooled; or one nobody can replay
            fh = None  # (its files cannot be removed either): nothing to hold
        if fh is None:
            yield
            return
        with fh:  # closing it lets go
            fcntl.flock(fh, fcntl.LOCK_EX)
            yield

    @staticmethod
    def done(path: Path) -> None:
        path.unlink(missing_ok=True)

    def _make(self) -> None:
        """Create the folder, naming its database inside."""
        self.directory.mkdir(parents=True, exist_ok=True)
        named = self.directory / DATABASE_FILE
        if not named.is_file():
            _write_lines(named, [self.database + "\n"])


REJECTED = "rejected.jsonl"
RUN_END_PREFIX = "run-end-"
DATABASE_FILE = "database.txt"
LOCK_FILE = "replay.lock"


def _folder_name(database: str) -> str:
    """A file name for a database: a hash, as its URL may hold any character."""
    return "db-" + hashlib.sha256(database.encode("utf-8")).hexdigest()[:16]


def _database_key(url: str) -> str:
    """One name per database however its URL is written (a URL that names
    none is its own name: connecting to it fails with the reason)."""
    from sqlalchemy.exc import ArgumentError

    from .schema import database_key

    try:
        return database_key(url)
    except ArgumentError:
        return url


def _records(paths: list[Path]) -> int:
    total = 0
    for path in paths:
        # (a file gone meanwhile was replayed by another crawl)
        with contextlib.suppress(FileNotFoundError), path.open("rb") as fh:
            total += sum(1 for line in fh if line.strip())
    return total


def _line(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, default=str) + "\n"


def _write_lines(path: Path, lines: list[str]) -> None:
    """Write a file durably and atomically: a killed process leaves a
    ``.part``, never a torn ``.jsonl``; a full disk leaves nothing."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.part")  # crawls may share the folder
    try:
        with tmp.open("w", encoding="utf-8") as fh:
            fh.writelines(lines)
            fh.flush()
            os.fsync(fh.fileno())
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    tmp.replace(path)
