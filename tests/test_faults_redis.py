"""Redis or PostgreSQL restarted under a distributed crawl (issue 8, faults).

Each test runs its own redis-server (AOF, ``appendfsync always``: what a user
running Redis with persistence has) on a free port in a temporary folder, so
it can be killed and started again without touching the shared Redis. The
workers are real ``sitesift crawl`` processes storing into the real
PostgreSQL from the local synthetic site over HTTP.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from demo.server import DemoWeb
from tests.dbtools import pg_schema_url, pg_start, pg_stop
from tests.test_distributed import crawl_cmd, expected_paths, page_requests, stored

REDIS_SERVER = shutil.which("redis-server")


class OwnRedis:
    """A redis-server of this test's own, with its data on disk (AOF)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        with socket.socket() as probe:  # a free port (redis refuses port 0)
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        cmd = [REDIS_SERVER, "--bind", "127.0.0.1", "--port", str(self.port),
               "--dir", str(self.folder), "--appendonly", "yes", "--appendfsync", "always",
               "--save", "", "--logfile", str(self.folder / "redis.log")]  # fmt: skip
        self.proc = subprocess.Popen(cmd)
        client = redis.Redis.from_url(self.url, socket_connect_timeout=1)
        deadline = time.monotonic() + 30
        while True:
            try:
                if client.ping():
                    return
            except redis.ConnectionError:  # starting, or still loading the AOF
                assert time.monotonic() < deadline, "redis-server did not start"
                time.sleep(0.05)

    def kill(self) -> None:
        """SIGKILL: no shutdown, only what the AOF already holds survives."""
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait()


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[OwnRedis]:
    if REDIS_SERVER is None:
        pytest.skip("redis-server is not installed")
    folder = tmp_path / "redis"
    folder.mkdir()
    server = OwnRedis(folder)
    server.start()
    yield server
    if server.proc is not None and server.proc.poll() is None:
        server.kill()


@pytest.fixture
def db_url(request: pytest.FixtureRequest) -> str:
    return pg_schema_url(request)


def wait_for_pages(db_url: str, base: str, count: int, *procs: subprocess.Popen[str]) -> int:
    deadline = time.monotonic() + 180
    while (n := len(stored(db_url, base))) < count:
        assert time.monotonic() < deadline, "the crawl made no progress"
        assert all(p.poll() is None for p in procs), "a worker ended before the outage"
        time.sleep(0.2)
    return n


def test_redis_restarted_mid_crawl_loses_nothing(
    tmp_path: Path, db_url: str, own_redis: OwnRedis
) -> None:
    """Two workers; Redis killed mid-crawl and started again 5 s later on its
    AOF: both workers wait it out, and every page is stored once, fetched once."""
    articles = 1000
    with DemoWeb((), synthetic_pages=articles) as web:
        base = web.urls["synthetic"]
        sites = tmp_path / "sites.txt"
        sites.write_text(f"{base} max_pages=5000 depth=100\n")
        cmd = crawl_cmd(sites, db_url, own_redis.url, f"test-{uuid.uuid4().hex[:8]}")
        start = time.monotonic()
        workers = [
            subprocess.Popen(cmd, cwd=tmp_path, stderr=subprocess.PIPE, text=True) for _ in range(2)
        ]
        try:
            before = wait_for_pages(db_url, base, 250, *workers)
            own_redis.kill()
            time.sleep(5)
            down = len(stored(db_url, base))
            own_redis.start()
            errs = [w.communicate(timeout=600)[1] for w in workers]
            seconds = time.monotonic() - start
        finally:
            for w in workers:
                if w.poll() is None:
                    w.kill()
        requests = page_requests(web)
    assert before < len(expected_paths(articles))  # the outage came mid-crawl
    for w, err in zip(workers, errs, strict=True):
        assert w.returncode == 0, err[-3000:]
        assert "Redis unreachable" in err and "Redis is back after" in err, err[-3000:]
        assert "Traceback" not in err, err[-3000:]
    rows = stored(db_url, base)
    assert set(rows) == expected_paths(articles)  # nothing lost
    assert {outcome for outcome, _ in rows.values()} == {"ok"}
    assert {count for _, count in rows.values()} == {1}  # stored once each
    assert set(requests) == expected_paths(articles) and max(requests.values()) == 1
    print(f"Redis down 5 s at {before}-{down} pages stored; {len(rows)} pages in {seconds:.0f} s, "
          "each stored and fetched once, lost 0")  # fmt: skip


def test_redis_gone_past_the_limit_stops_the_worker_and_a_rerun_finishes(
    tmp_path: Path, db_url: str, own_redis: OwnRedis
) -> None:
    """Redis down longer than SITESIFT_REDIS_OUTAGE_LIMIT: the worker stops
    with a clear error and exit status 1, its stored pages kept; with Redis
    back, the same command finishes the crawl with nothing missing."""
    articles = 300
    with DemoWeb((), synthetic_pages=articles) as web:
        base = web.urls["synthetic"]
        sites = tmp_path / "sites.txt"
        sites.write_text(f"{base} max_pages=5000 depth=100\n")
        cmd = crawl_cmd(sites, db_url, own_redis.url, f"test-{uuid.uuid4().hex[:8]}",
                        "-s", "SITESIFT_REDIS_OUTAGE_LIMIT=3",
                        "-s", "SITESIFT_WORKER_TIMEOUT=3",
                        "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=2")  # fmt: skip
        worker = subprocess.Popen(cmd, cwd=tmp_path, stderr=subprocess.PIPE, text=True)
        try:
            wait_for_pages(db_url, base, 40, worker)
            own_redis.kill()
            _, err = worker.communicate(timeout=120)
        finally:
            if worker.poll() is None:
                worker.kill()
        assert worker.returncode == 1, err[-3000:]
        assert "Redis unreachable for 3 s" in err, err[-3000:]
        kept = stored(db_url, base)
        assert len(kept) < len(expected_paths(articles))
        assert {outcome for outcome, _ in kept.values()} == {"ok"}

        own_redis.start()  # the frontier is still there (AOF)
        rerun = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    rows = stored(db_url, base)
    assert set(rows) == expected_paths(articles)  # nothing lost
    assert set(kept) <= set(rows)
    assert {outcome for outcome, _ in rows.values()} == {"ok"}


def test_postgresql_restarted_under_two_workers_loses_nothing(
    tmp_path: Path,
    pg_restartable: str,
    redis_url: str,
    crawl_id: str,
) -> None:
    """Two workers; the PostgreSQL server stopped for 3 s mid-crawl: each
    worker spools the batches it refused (its own spool folder) and replays
    them; every page ends up stored once and fetched once."""
    articles = 300
    with DemoWeb((), synthetic_pages=articles) as web:
        base = web.urls["synthetic"]
        sites = tmp_path / "sites.txt"
        sites.write_text(f"{base} max_pages=5000 depth=100\n")
        store = ["-s", "SITESIFT_STORE_BATCH=5", "-s", "SITESIFT_STORE_RETRIES=1",
                 "-s", "SITESIFT_STORE_BACKOFF=0.2", "-s", "DOWNLOAD_DELAY=0.02"]  # fmt: skip
        workers = [
            subprocess.Popen(
                crawl_cmd(
                    sites,
                    pg_restartable,
                    redis_url,
                    crawl_id,
                    *store,
                    "-s",
                    f"SITESIFT_SPOOL_DIR={tmp_path / f'spool-{i}'}",
                ),
                cwd=tmp_path,
                stderr=subprocess.PIPE,
                text=True,
            )  # fmt: skip
            for i in range(2)
        ]
        try:
            before = wait_for_pages(pg_restartable, base, 60, *workers)
            pg_stop()
            try:
                time.sleep(3)
                assert all(w.poll() is None for w in workers), "a worker ended during the outage"
            finally:
                pg_start()
            errs = [w.communicate(timeout=600)[1] for w in workers]
        finally:
            for w in workers:
                if w.poll() is None:
                    w.kill()
        requests = page_requests(web)
    assert before < len(expected_paths(articles))
    for w, err in zip(workers, errs, strict=True):
        assert w.returncode == 0, err[-3000:]
    assert any("spooled" in err for err in errs), "no batch met the outage"
    rows = stored(pg_restartable, base)
    assert set(rows) == expected_paths(articles)  # nothing lost
    assert {count for _, count in rows.values()} == {1}  # stored once each
    assert set(requests) == expected_paths(articles) and max(requests.values()) == 1
    assert not list(tmp_path.glob("spool-*/*/*.jsonl"))  # every spooled batch replayed
