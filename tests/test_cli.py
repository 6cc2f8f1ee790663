"""The `sitesift` command: clear one-line errors for bad input, no tracebacks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def sitesift(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "crawler.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
    )


def assert_clean_error(proc: subprocess.CompletedProcess[str], words: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert words in proc.stderr, proc.stderr


def test_help_explains_the_commands() -> None:
    proc = sitesift("crawl", "--help")
    assert proc.returncode == 0
    for flag in ("--db", "-O", "-s", "--jobdir", "--max-pages", "--depth"):
        assert flag in proc.stdout


def test_missing_site_list(tmp_path: Path) -> None:
    assert_clean_error(sitesift("crawl", str(tmp_path / "nope.txt")), "nope.txt")


def test_site_list_without_a_usable_line(tmp_path: Path) -> None:
    sites = tmp_path / "sites.txt"
    sites.write_text("# only comments\nftp://example.invalid/\n")
    proc = sitesift("crawl", str(sites))
    assert_clean_error(proc, "no usable site")
    assert "sites.txt:2:" in proc.stderr


def test_unreachable_database(tmp_path: Path) -> None:
    sites = tmp_path / "sites.txt"
    sites.write_text("http://127.0.0.1:9/\n")
    proc = sitesift("crawl", str(sites), "--db", "postgresql+psycopg://nobody@127.0.0.1:1/x")
    assert_clean_error(proc, "cannot open database")


def test_unwritable_output(tmp_path: Path) -> None:
    sites = tmp_path / "sites.txt"
    sites.write_text("http://127.0.0.1:9/\n")
    db = f"sqlite:///{tmp_path / 'x.db'}"
    proc = sitesift("crawl", str(sites), "--db", db, "-O", str(tmp_path / "no" / "out.jsonl"))
    assert_clean_error(proc, "does not exist")


def test_bad_setting_syntax(tmp_path: Path) -> None:
    sites = tmp_path / "sites.txt"
    sites.write_text("http://127.0.0.1:9/\n")
    assert_clean_error(sitesift("crawl", str(sites), "-s", "NOEQUALS"), "NAME=VALUE")


@pytest.mark.parametrize(
    "args", [["extract", "/nonexistent.html"], ["extract", "-", "--method", "nope"]]
)
def test_extract_errors(args: list[str]) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "crawler.cli", *args], input="", capture_output=True, text=True
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


def test_unreachable_site_is_recorded_not_fatal(tmp_path: Path) -> None:
    sites = tmp_path / "sites.txt"
    sites.write_text("http://127.0.0.1:9/\n")  # port 9: nothing listens
    db = tmp_path / "x.db"
    proc = sitesift("crawl", str(sites), "--db", f"sqlite:///{db}", "-s", "RETRY_TIMES=0")
    assert proc.returncode == 0, proc.stderr[-2000:]
    import sqlite3

    with sqlite3.connect(db) as conn:
        rows = conn.execute("select url, outcome, reason from pages").fetchall()
    assert rows and rows[0][1] == "failed" and "refused" in rows[0][2].lower()
