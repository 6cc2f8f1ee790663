"""The one way every method takes its parameters: a ``params=`` dataclass
(the seed's defaults) and keyword overrides of its fields."""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any, TypeVar

P = TypeVar("P")


def resolve_params(params: P | None, overrides: dict[str, Any], cls: type[P]) -> P:
    """A ``cls`` from ``params=`` and keyword overrides of its fields; an
    unknown name is a TypeError (a typo must not pass silently)."""
    base = params if params is not None else cls()
    known = {f.name for f in fields(cls)}  # type: ignore[arg-type]
    unknown = set(overrides) - known
    if unknown:
        names = ", ".join(sorted(unknown))
        raise TypeError(f"unknown parameter(s) for {cls.__qualname__}: {names}")
    return replace(base, **overrides) if overrides else base  # type: ignore[type-var]
