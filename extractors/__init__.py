"""sitesift extractors: main text and list records from HTML, pure Python.

>>> from extractors import extract
>>> result = extract("<html><body><p>Hello</p></body></html>", method="cetd")

Every method takes ``(html, url=None, **params)`` where ``html`` is ``str``,
``bytes`` (decoded with the declared or detected encoding) or an already
parsed :class:`Document`, and returns a :class:`Result`. Parse once with
:func:`as_document` and pass the document to several methods to share the
tree. Nothing here imports Scrapy or a database.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from functools import wraps
from importlib import import_module
from typing import Any

from .document import Document, ExtractionError, as_document
from .result import LengthClass, PageType, Record, Result
from .text import PRE_BREAK

__all__ = [
    "METHODS",
    "Document",
    "ExtractionError",
    "LengthClass",
    "PageType",
    "Record",
    "Result",
    "as_document",
    "extract",
]

# Method name -> "module:function". Loaded on first use so that importing the
# package stays cheap and a tool can list the methods without running them.
_METHOD_PATHS: dict[str, str] = {
    "justext": "extractors.justext:extract",
    "boilerpipe": "extractors.boilerpipe:extract_article",
    "boilerpipe-default": "extractors.boilerpipe:extract_default",
    "cetd": "extractors.density:extract",
    "scedd": "extractors.scedd:extract",
    "awce": "extractors.awce:extract",
    "list": "extractors.listing:extract",
    "layout": "extractors.layout:extract",
    "auto": "extractors.auto:extract",
}
# The methods that compare a page with others of its URL group.
TAKES_REFERENCE = frozenset({"layout", "auto"})


_FUNCTIONS: dict[str, Callable[..., Result]] = {}


def method_function(name: str) -> Callable[..., Result]:
    """The named method's own function, whose text keeps each block of
    preformatted text on one line (joined by ``text.PRE_BREAK``): what
    ``auto`` combines. Users want :data:`METHODS`."""
    fn = _FUNCTIONS.get(name)
    if fn is None:
        try:
            path = _METHOD_PATHS[name]
        except KeyError:
            raise KeyError(
                f"unknown extraction method {name!r}; choose from {', '.join(_METHOD_PATHS)}"
            ) from None
        module, func = path.split(":")
        fn = _FUNCTIONS[name] = getattr(import_module(module), func)
    return fn


def _with_line_breaks(fn: Callable[..., Result]) -> Callable[..., Result]:
    """The method as the API gives it: a code block's lines on lines of their own."""

    @wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Result:
        result = fn(*args, **kwargs)
        if PRE_BREAK in result.text:  # a copy: auto keeps its voters' results
            result = replace(result, text=result.text.replace(PRE_BREAK, "\n"))
        return result

    return run


class _Methods(Mapping[str, Callable[..., Result]]):
    """Method name -> callable, each module imported on first use."""

    def __init__(self) -> None:
        self._loaded: dict[str, Callable[..., Result]] = {}

    def __getitem__(self, name: str) -> Callable[..., Result]:
        fn = self._loaded.get(name)
        if fn is None:
            fn = self._loaded[name] = _with_line_breaks(method_function(name))
        return fn

    def __iter__(self) -> Iterator[str]:
        return iter(_METHOD_PATHS)

    def __len__(self) -> int:
        return len(_METHOD_PATHS)

    def __contains__(self, name: object) -> bool:
        return name in _METHOD_PATHS  # without importing the method


METHODS: Mapping[str, Callable[..., Result]] = _Methods()


def extract(
    html: str | bytes | Document,
    url: str | None = None,
    method: str = "auto",
    reference: str | bytes | Document | list[Any] | None = None,
    *,
    content_type: str | None = None,
    **params: Any,
) -> Result:
    """Extract the main content of a page with the named method (by default
    ``auto``: classify the page, route it and combine methods).

    ``content_type`` is the HTTP header's value ("text/html; charset=gbk"):
    its charset decodes ``bytes`` ahead of the page's own ``<meta>`` and
    detection (which can misread a few bytes of GBK).

    ``reference`` (one page or a list) is for the methods that compare a page
    with others of its URL group (:data:`TAKES_REFERENCE`: ``layout``,
    ``auto``); the others ignore it, so a caller may pass it whatever the
    method.

    Raises :class:`ExtractionError` (a ``ValueError``) when ``html`` is no
    page (``None``, a number), ``KeyError`` for an unknown method,
    ``TypeError`` for an unknown parameter, one of the wrong type, a ``url``
    that is no ``str`` or a ``reference`` that is no page, ``ValueError``
    for a ``fetched_at`` that is no date. Garbage that is a page (empty,
    binary, broken) gives an empty result.

    A named method's result also gets the page's metadata, as ``auto``'s
    does: the title without the site's name, the publish date (relative
    dates resolved against ``fetched_at``, a parameter of every method here),
    author, language and main image. ``METHODS[name]`` gives the bare
    algorithm.
    """
    fn = METHODS[method]
    if reference is not None and method in TAKES_REFERENCE:
        params["reference"] = reference
    doc = as_document(html, url, content_type)
    if method == "auto":
        return fn(doc, url, **params)
    from .metadata import date_records, extract_metadata

    fetched_at = params.pop("fetched_at", None)
    result = fn(doc, url, **params)
    meta = extract_metadata(doc, url, fetched_at, main=result.node)
    date_records(result.records, fetched_at)
    result.title = meta.title or result.title
    result.published = result.published or meta.published
    result.author = result.author or meta.author
    result.language = result.language or meta.language
    result.image = result.image or meta.image
    return result
