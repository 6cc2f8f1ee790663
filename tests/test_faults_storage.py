"""Issue 8, a broken world: a full disk and read-only folders, through the
real ``sitesift`` command, against the real demo web.

Every failure ends with one clear line (no traceback) and a non-zero exit,
and the SQLite database afterwards passes ``PRAGMA integrity_check`` and
holds what it held. Tests run as root here, for whom ``chmod`` does not
make a folder read-only: such folders are made immutable (``chattr +i``), a
full disk is ``/dev/full`` or a small tmpfs filled to the last byte.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks.soak import FAST, SLOW
from demo.server import DemoWeb

SMALL = [*FAST, "-s", "DOWNLOAD_DELAY=0", "--max-pages", "8"]


def sitesift(*args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "crawler.cli", *args], capture_output=True,
                          text=True, timeout=timeout)  # fmt: skip


def assert_one_line_error(proc: subprocess.CompletedProcess[str], *words: str) -> None:
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    errors = [line for line in proc.stderr.splitlines() if line.startswith("sitesift: error:")]
    assert len(errors) == 1, proc.stderr[-3000:]
    for word in words:
        assert word in errors[0], errors[0]


def content(db: Path) -> tuple[str, dict[str, list[tuple]]]:
    """integrity_check's verdict and every row of the tables that matter."""
    conn = sqlite3.connect(db)
    try:
        verdict = conn.execute("PRAGMA integrity_check").fetchone()[0]
        tables = {
            t: sorted(conn.execute(f"SELECT * FROM {t}").fetchall(), key=repr)
            for t in ("pages", "articles", "list_records", "crawl_runs", "sites")
        }
    finally:
        conn.close()
    return verdict, tables


def stored_urls(db: Path) -> set[str]:
    conn = sqlite3.connect(db)
    try:
        return {url for (url,) in conn.execute("SELECT url FROM pages")}
    finally:
        conn.close()


# -- read-only folders and small disks (real ones) ----------------------------------


@contextlib.contextmanager
def read_only(path: Path) -> Iterator[Path]:
    """Make a folder read-only for this process, even as root; undone after."""
    if os.geteuid() != 0:
        path.chmod(0o555)
        undo = ["chmod", "755", str(path)]
    else:
        if not shutil.which("chattr"):
            pytest.skip("running as root without chattr: no read-only folder")
        made = subprocess.run(["chattr", "+i", str(path)], capture_output=True, text=True)
        if made.returncode:
            pytest.skip(f"chattr +i not permitted here: {made.stderr.strip()}")
        undo = ["chattr", "-i", str(path)]
    try:
        probe = path / ".probe"
        try:
            probe.touch()
        except OSError:
            pass
        else:
            probe.unlink()
            pytest.skip(f"{path} is still writable")
        yield path
    finally:
        subprocess.run(undo, check=True)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 4 MiB tmpfs of its own (a disk the test can fill), unmounted after."""
    mount = tmp_path / "disk"
    mount.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)],
                          capture_output=True, text=True)  # fmt: skip
    if made.returncode:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(disk: Path) -> Path:
    """Write a file until the disk has no byte left (ENOSPC)."""
    filler = disk / "filler"
    chunk = b"\0" * 65536
    with filler.open("wb", buffering=0) as fh:
        while True:
            try:
                fh.write(chunk)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
                chunk = chunk[: len(chunk) // 2]
                if not chunk:
                    return filler


# -- a small crawled database ----------------------------------------------------------


@pytest.fixture(scope="module")
def web() -> Iterator[DemoWeb]:
    with DemoWeb(sites=("en",)) as web:
        yield web


@pytest.fixture(scope="module")
def crawled(web: DemoWeb, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite database written by a real crawl (articles included)."""
    tmp = tmp_path_factory.mktemp("crawled")
    db = tmp / "crawled.db"
    sites = web.write_site_list(tmp / "sites.txt")
    proc = sitesift("crawl", str(sites), "--db", f"sqlite:///{db}", *SMALL)
    assert proc.returncode == 0, proc.stderr[-2000:]
    verdict, tables = content(db)
    assert verdict == "ok" and tables["articles"], "the crawl stored no article"
    return db


@pytest.fixture
def db(crawled: Path, tmp_path: Path) -> Path:
    """A copy of the crawled database in a folder of its own."""
    folder = tmp_path / "data"
    folder.mkdir()
    shutil.copy(crawled, folder / "sitesift.db")
    return folder / "sitesift.db"


# -- export ---------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["jsonl", "markdown"])
def test_export_into_a_read_only_folder(db: Path, tmp_path: Path, fmt: str) -> None:
    before = content(db)
    out = tmp_path / "out"
    out.mkdir()
    target = out / ("articles.jsonl" if fmt == "jsonl" else "md")
    with read_only(out):
        proc = sitesift("export", "--db", f"sqlite:///{db}", "--format", fmt, "-o", str(target))
    assert_one_line_error(proc, "cannot write", str(target))
    assert proc.stderr.startswith("sitesift: error:")  # no blank line of progress first
    assert list(out.iterdir()) == []
    assert content(db) == before


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_export_to_dev_full_is_a_clear_error(db: Path, fmt: str) -> None:
    """/dev/full: every write is ENOSPC. The device is written in place,
    never replaced by a renamed ``.part`` file."""
    before = content(db)
    proc = sitesift("export", "--db", f"sqlite:///{db}", "--format", fmt, "-o", "/dev/full")
    assert_one_line_error(proc, "cannot write /dev/full", "No space left on device")
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)
    assert not Path("/dev/full.part").exists()
    assert content(db) == before


@pytest.mark.parametrize("fmt", ["csv", "markdown"])
def test_export_onto_a_full_disk_leaves_no_half_file(db: Path, small_disk: Path, fmt: str) -> None:
    before = content(db)
    fill(small_disk)
    target = small_disk / ("articles.csv" if fmt == "csv" else "md")
    proc = sitesift("export", "--db", f"sqlite:///{db}", "--format", fmt, "-o", str(target))
    assert_one_line_error(proc, "No space left on device")
    leftovers = [p for p in small_disk.rglob("*") if p.is_file() and p.name != "filler"]
    assert leftovers == []
    assert content(db) == before


# -- crawl ----------------------------------------------------------------------------


def test_crawl_into_a_database_in_a_read_only_folder(
    db: Path, web: DemoWeb, tmp_path: Path
) -> None:
    before = content(db)
    sites = web.write_site_list(tmp_path / "sites.txt")
    with read_only(db.parent):
        proc = sitesift("crawl", str(sites), "--db", f"sqlite:///{db}", *SMALL)
        fresh = sitesift("crawl", str(sites), "--db", f"sqlite:///{db.parent / 'new.db'}", *SMALL)
    assert_one_line_error(proc, "cannot open database", "read-only")
    assert_one_line_error(fresh, "cannot open database", "read-only")
    assert content(db) == before
    assert not (db.parent / "new.db").exists()


@pytest.mark.parametrize("where", ["read-only folder", "under a file"])
def test_crawl_with_an_unwritable_feed(db: Path, web: DemoWeb, tmp_path: Path, where: str) -> None:
    before = content(db)
    sites = web.write_site_list(tmp_path / "sites.txt")
    out = tmp_path / "feeds"
    out.mkdir()
    if where == "under a file":
        (out / "plain").write_text("a file, not a folder")
        feed = out / "plain" / "pages.jsonl"
        proc = sitesift("crawl", str(sites), "--db", f"sqlite:///{db}", *SMALL, "-O", str(feed))
        assert_one_line_error(proc, "does not exist")
    else:
        with read_only(out):
            feed = out / "pages.jsonl"
            proc = sitesift("crawl", str(sites), "--db", f"sqlite:///{db}", *SMALL, "-O", str(feed))
        assert_one_line_error(proc, "not writable")
    assert content(db) == before


def test_crawl_with_a_feed_on_a_full_disk(web: DemoWeb, tmp_path: Path) -> None:
    db = tmp_path / "fresh.db"  # a fresh crawl: every page is an item for the feed
    sites = web.write_site_list(tmp_path / "sites.txt")
    proc = sitesift("crawl", str(sites), "--db", f"sqlite:///{db}", *SMALL, "-O", "/dev/full:jsonl")
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert "No space left on device" in proc.stderr
    assert content(db)[0] == "ok"


def _crawl_onto_a_disk_that_fills(
    web: DemoWeb, tmp_path: Path, disk: Path, spool: Path
) -> tuple[subprocess.CompletedProcess[str], Path, Path]:
    """A slow crawl whose database is on ``disk``; the disk is filled once a
    few pages are stored. Returns the finished process, the database, the filler."""
    db = disk / "sitesift.db"
    sites = web.write_site_list(tmp_path / "sites.txt")
    cmd = [sys.executable, "-m", "crawler.cli", "crawl", str(sites), "--db", f"sqlite:///{db}",
           *FAST, *SLOW, "--max-pages", "40", "-s", "SITESIFT_STORE_RETRIES=1",
           "-s", "SITESIFT_STORE_BACKOFF=0.1", "-s", "SITESIFT_STORE_CLOSE_WAIT=1",
           "-s", f"SITESIFT_SPOOL_DIR={spool}"]  # fmt: skip
    child = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and child.poll() is None:
        with contextlib.suppress(sqlite3.Error):
            if db.exists() and len(stored_urls(db)) >= 6:
                break
        time.sleep(0.1)
    assert child.poll() is None, "the crawl ended before the disk could be filled"
    filler = fill(disk)
    stdout, stderr = child.communicate(timeout=180)
    return subprocess.CompletedProcess(cmd, child.returncode, stdout, stderr), db, filler


def test_database_disk_full_mid_crawl_loses_nothing(
    web: DemoWeb, small_disk: Path, tmp_path: Path
) -> None:
    """The disk under the database fills mid-crawl: refused batches go to
    the spool (on another disk), the log says so in one line, the database
    stays sound; once space is freed the next run stores every page."""
    spool = tmp_path / "spool"
    proc, db, filler = _crawl_onto_a_disk_that_fills(web, tmp_path, small_disk, spool)
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert "database or disk is full" in proc.stderr
    assert "could not be stored and wait in" in proc.stderr, proc.stderr[-3000:]
    assert list(spool.rglob("spool-*.jsonl"))
    verdict, _ = content(db)
    assert verdict == "ok"

    reference = tmp_path / "reference.db"
    ref = sitesift("crawl", str(tmp_path / "sites.txt"), "--db", f"sqlite:///{reference}", *FAST,
                   "-s", "DOWNLOAD_DELAY=0", "--max-pages", "40")  # fmt: skip
    assert ref.returncode == 0, ref.stderr[-2000:]
    filler.unlink()  # space again: the next run replays the spool first
    again = sitesift("crawl", str(tmp_path / "sites.txt"), "--db", f"sqlite:///{db}", *FAST,
                     "-s", "DOWNLOAD_DELAY=0", "--max-pages", "40", "--resume",
                     "-s", f"SITESIFT_SPOOL_DIR={spool}")  # fmt: skip
    assert again.returncode == 0, again.stderr[-2000:]
    assert "replayed" in again.stderr
    assert not list(spool.rglob("spool-*.jsonl"))
    assert content(db)[0] == "ok"
    assert stored_urls(db) == stored_urls(reference)


def test_database_disk_full_and_spool_unwritable_stops_the_crawl(
    web: DemoWeb, small_disk: Path, tmp_path: Path
) -> None:
    """Neither the database nor the spool can take a batch: the crawl says
    so at the start and when it happens, stops (exit 1, no traceback) and
    leaves a sound database."""
    folder = tmp_path / "ro"
    folder.mkdir()
    with read_only(folder):
        proc, db, _ = _crawl_onto_a_disk_that_fills(web, tmp_path, small_disk, folder / "spool")
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert "is not writable" in proc.stderr  # warned at the start
    assert "cannot spool to" in proc.stderr and "stopping the crawl" in proc.stderr
    verdict, tables = content(db)
    assert verdict == "ok"
    assert tables["pages"]
