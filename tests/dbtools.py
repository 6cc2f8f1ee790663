"""Database fixtures shared by the tests: a real SQLite file, a fresh schema
in the real PostgreSQL, and the real Redis with a crawl's keys of its own
(skipped with a reason when no server is reachable, unless under CI where
they must run)."""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import pytest
import redis

from benchmarks.pgschema import drop_schema, fresh_schema
from pipelines.schema import DatabaseError

if TYPE_CHECKING:
    from crawler.distributed import Keys

PG_URL = os.environ.get("SITESIFT_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("SITESIFT_TEST_REDIS", "redis://127.0.0.1:6379/15")


def skip_unless_ci(reason: str) -> NoReturn:
    """Skip with ``reason`` on a developer's machine; under CI (env ``CI``
    set) the PostgreSQL and Redis tests must run, so fail loudly instead."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI is set: this test must run)", pytrace=False)
    pytest.skip(reason)


def redis_server() -> redis.Redis:
    """The test Redis (``SITESIFT_TEST_REDIS``, database 15 by default)."""
    server = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=3)
    try:
        server.ping()
    except redis.RedisError as exc:
        skip_unless_ci(f"Redis not reachable at {REDIS_URL}: {exc}")
    return server


def new_crawl_id() -> str:
    return f"test-{uuid.uuid4().hex[:8]}"


def delete_crawl_keys(server: redis.Redis, crawl: str) -> None:
    from crawler.distributed import Keys

    for key in server.scan_iter(Keys(crawl).pattern()):
        server.delete(key)


@pytest.fixture
def redis_url() -> str:
    redis_server()
    return REDIS_URL


@pytest.fixture
def crawl_id(redis_url: str) -> Iterator[str]:
    crawl = new_crawl_id()
    yield crawl
    delete_crawl_keys(redis_server(), crawl)


@contextmanager
def crawl_state(server: redis.Redis) -> Iterator[Keys]:
    """The ``Keys`` of a new crawl id; its keys are deleted afterwards."""
    from crawler.distributed import Keys

    crawl = new_crawl_id()
    try:
        yield Keys(crawl)
    finally:
        delete_crawl_keys(server, crawl)


def pg_schema_url(request: pytest.FixtureRequest) -> str:
    """A PostgreSQL URL whose search_path is a new schema dropped after the test."""
    try:
        schema, url = fresh_schema(PG_URL, "t")
    except DatabaseError as exc:
        skip_unless_ci(f"PostgreSQL not reachable: {exc}")
    request.addfinalizer(lambda: drop_schema(PG_URL, schema))
    return url


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.db'}"
    return pg_schema_url(request)


# -- stopping and starting the real server ----------------------------------------

# "VERSION/NAME" of the local cluster the outage tests stop and start.
PG_CLUSTER = tuple(os.environ.get("SITESIFT_TEST_PG_CLUSTER", "15/main").split("/", 1))


def _pg(action: str) -> None:
    proc = subprocess.run(["pg_ctlcluster", "--skip-systemctl-redirect", *PG_CLUSTER, action],
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    if proc.returncode and "already running" not in proc.stderr + proc.stdout:
        raise RuntimeError(f"pg_ctlcluster {action} failed: {proc.stderr.strip()}")


def pg_stop() -> None:
    _pg("stop")


def pg_start() -> None:
    _pg("start")


@pytest.fixture
def pg_restartable(request: pytest.FixtureRequest) -> str:
    """A fresh PostgreSQL schema on a cluster the test may stop; it is running
    again after the test whatever happens."""
    version, name = PG_CLUSTER
    if not shutil.which("pg_ctlcluster") or not Path(f"/etc/postgresql/{version}/{name}").is_dir():
        skip_unless_ci(f"no local PostgreSQL cluster {version}/{name} to stop and start")
    url = pg_schema_url(request)
    request.addfinalizer(pg_start)
    return url
