"""Fixtures every test module may use: the storage and Redis fixtures of
tests/dbtools.py (kept there so a probe test outside this folder can import
them too)."""

from tests.dbtools import crawl_id, db_url, pg_restartable, redis_url

__all__ = ["crawl_id", "db_url", "pg_restartable", "redis_url"]
