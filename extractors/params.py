"""The one way every method takes its parameters: a ``params=`` dataclass
(the seed's defaults) and keyword overrides of its fields."""

from __future__ import annotations

from dataclasses import MISSING, fields, replace
from enum import Enum
from typing import Any, TypeVar

P = TypeVar("P")


def resolve_params(params: P | None, overrides: dict[str, Any], cls: type[P]) -> P:
    """A ``cls`` from ``params=`` and keyword overrides of its fields; an
    unknown name, or a value of another type than the field's default, is a
    TypeError (a typo must not pass silently)."""
    where = f"{cls.__module__}.{cls.__qualname__}"
    if params is not None and not isinstance(params, cls):
        raise TypeError(f"params= takes a {where}, not {type(params).__name__}")
    base = params if params is not None else cls()
    defaults = {f.name: f.default for f in fields(cls)}  # type: ignore[arg-type]
    unknown = set(overrides) - set(defaults)
    if unknown:
        names = ", ".join(sorted(unknown))
        raise TypeError(
            f"unknown parameter(s) for {where}: {names}; it takes {', '.join(defaults)}"
        )
    for name, value in overrides.items():
        if isinstance(defaults[name], tuple) and isinstance(value, list):
            overrides[name] = value = tuple(value)  # frozen params hold tuples
        _check_type(where, name, value, defaults[name])
    return replace(base, **overrides) if overrides else base  # type: ignore[type-var]


def _check_type(where: str, name: str, value: Any, default: Any) -> None:
    """``value`` must be of the default's type (an int does for a float)."""
    if default is MISSING or default is None or value is None:
        return
    expected = type(default)
    if expected is float and isinstance(value, int) and not isinstance(value, bool):
        return
    choices = {m.value for m in expected} if issubclass(expected, Enum) else set()
    if isinstance(value, str) and value in choices:
        return  # an enum's member by name ("jieba")
    if not isinstance(value, expected) or isinstance(value, bool) != isinstance(default, bool):
        raise TypeError(
            f"{where}: {name} takes {expected.__name__} (default {default!r}), not {value!r}"
        )
