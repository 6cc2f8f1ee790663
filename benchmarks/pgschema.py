"""A throwaway PostgreSQL schema, so a benchmark run never meets old tables."""

from __future__ import annotations

import uuid

from sqlalchemy import text

from pipelines.schema import connect


def fresh_schema(base_url: str, prefix: str = "bench") -> tuple[str, str]:
    """Create a new schema; return its name and a URL whose search_path is it."""
    schema = f"{prefix}_{uuid.uuid4().hex[:8]}"
    engine = connect(base_url, create=False)
    with engine.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    engine.dispose()
    return schema, f"{base_url}?options=-csearch_path%3D{schema}"


def drop_schema(base_url: str, schema: str) -> None:
    engine = connect(base_url, create=False)
    with engine.begin() as conn:
        conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
    engine.dispose()
