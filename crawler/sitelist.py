"""The site list: one start URL per line, with optional per-site overrides.

::

    # news sites
    example.com                           # bare host: https://example.com/
    http://127.0.0.1:8000/blog/  max_pages=200 depth=4
    https://example.org/  delay=1.5 concurrency=1 screenshots=group

A bad line is reported with its line number and skipped; the others still
run, so one typo never stops a crawl of a hundred sites. Lines of one host
make one site (merge_by_host): all their start URLs, the union of their
scopes, the first line's options.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from typing import Any

from crawler.urls import canonicalize_url, host_of

__all__ = [
    "SCREENSHOT_MODES",
    "SiteListError",
    "SiteListFileError",
    "SiteOptions",
    "SiteSpec",
    "bare_host",
    "merge_by_host",
    "parse_site_list",
    "read_site_list",
]

# SITESIFT_SCREENSHOTS and a site's screenshots= option take one of these.
SCREENSHOT_MODES = ("none", "group", "all")


@dataclass(frozen=True)
class SiteOptions:
    """Per-site overrides; ``None`` means "use the crawl's setting"."""

    max_pages: int | None = None
    depth: int | None = None
    delay: float | None = None
    concurrency: int | None = None
    screenshots: str | None = None  # one of SCREENSHOT_MODES


@dataclass(frozen=True)
class SiteSpec:
    """One site to crawl: one host, its canonical start URLs and the parts of it in scope."""

    url: str  # the first start URL
    line: int  # the line of ``url``; its options are the site's
    options: SiteOptions
    host: str  # host[:port], as host_of() gives it
    path_prefix: str  # "/" or ``url``'s directory, ending in "/"
    start_urls: tuple[str, ...]  # every start URL of the site, ``url`` first
    path_prefixes: tuple[str, ...]  # in scope: paths under any of these

    @classmethod
    def from_url(cls, url: str, line: int = 1, options: SiteOptions | None = None) -> SiteSpec:
        """Build a spec from a canonical (or canonicalisable) http(s) start URL."""
        canonical = canonicalize_url(url)
        if canonical is None:
            raise ValueError(f"not an http(s) URL: {url!r}")
        prefix = _path_prefix(canonical)
        return cls(
            url=canonical,
            line=line,
            options=options or SiteOptions(),
            host=host_of(canonical),
            path_prefix=prefix,
            start_urls=(canonical,),
            path_prefixes=(prefix,),
        )

    def on_host(self, url: str) -> bool:
        """Whether ``url`` is on the site's host (``www.`` or not, either
        scheme), any path: where its robots.txt, sitemaps and feeds live."""
        return bare_host(host_of(url)) == bare_host(self.host)

    def in_scope(self, url: str) -> bool:
        """On the site's host and a path under one of ``path_prefixes``."""
        canonical = canonicalize_url(url)
        if canonical is None or not self.on_host(canonical):
            return False
        path = _path_of(canonical)
        return any(path.startswith(p) or path + "/" == p for p in self.path_prefixes)


@dataclass(frozen=True)
class SiteListError:
    """A line of the site list that was skipped, and why."""

    source: str
    line: int
    text: str
    message: str

    def __str__(self) -> str:
        return f"{self.source}:{self.line}: {self.message}"


class SiteListFileError(Exception):
    """The site list file itself cannot be used (missing, a directory, binary,
    not UTF-8, no usable line: ``errors`` then says why each line was not)."""

    def __init__(self, message: str, errors: list[SiteListError] | None = None) -> None:
        super().__init__(message)
        self.errors = errors or []


def read_usable_site_list(
    path: str | os.PathLike[str],
) -> tuple[list[SiteSpec], list[SiteListError]]:
    """:func:`read_site_list`, refusing a list with no usable site: a crawl
    of it would do nothing."""
    specs, errors = read_site_list(path)
    if not specs:
        raise SiteListFileError(f"{os.fspath(path)}: no usable site in the list", errors)
    return specs, errors


def read_site_list(path: str | os.PathLike[str]) -> tuple[list[SiteSpec], list[SiteListError]]:
    """Read and parse a UTF-8 site list file; file-level problems raise SiteListFileError."""
    name = os.fspath(path)
    try:
        with open(name, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        raise SiteListFileError(f"{name}: site list not found") from None
    except IsADirectoryError:
        raise SiteListFileError(f"{name}: is a directory, not a site list file") from None
    except OSError as exc:
        raise SiteListFileError(f"{name}: cannot read the site list: {exc.strerror}") from None
    if b"\x00" in data:
        raise SiteListFileError(f"{name}: looks binary (NUL bytes), expected a text file")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SiteListFileError(
            f"{name}: not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start});"
            " save the site list as UTF-8"
        ) from None
    return parse_site_list(text, source=name)


def parse_site_list(
    text: str, source: str = "<sites>"
) -> tuple[list[SiteSpec], list[SiteListError]]:
    """Parse site list text into specs (in file order) and per-line errors."""
    specs: list[SiteSpec] = []
    errors: list[SiteListError] = []
    seen: dict[str, int] = {}
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    for number, raw in enumerate(text.split("\n"), start=1):
        content = _strip_comment(raw)
        if not content:
            continue
        try:
            spec = _parse_line(content, number)
        except _LineError as exc:
            errors.append(SiteListError(source, number, raw.strip(), str(exc)))
            continue
        if spec.url in seen:
            message = f"duplicate of line {seen[spec.url]} ({spec.url})"
            errors.append(SiteListError(source, number, raw.strip(), message))
            continue
        seen[spec.url] = number
        specs.append(spec)
    return specs, errors


def merge_by_host(
    specs: list[SiteSpec], source: str = "<sites>"
) -> tuple[list[SiteSpec], list[str]]:
    """One spec per host (``www.`` or not), in file order: the crawl keys its
    seen set, page cap and download slot on the site, so lines of one host
    make one site with all their start URLs and scopes, and its first line's
    host and options. Also returns a warning for each later line whose
    options are ignored for that reason."""
    merged: dict[str, SiteSpec] = {}
    warnings: list[str] = []
    for spec in specs:
        key = bare_host(spec.host)
        site = merged.get(key)
        if site is None:
            merged[key] = spec
            continue
        merged[key] = replace(
            site,
            start_urls=site.start_urls + spec.start_urls,
            path_prefixes=_prefix_union(site.path_prefixes + spec.path_prefixes),
        )
        ignored = _ignored_options(spec.options, site.options)
        if ignored:
            where = f"{source}:{spec.line}: {site.host} is also on line {site.line}"
            warnings.append(f"{where}, whose options the site uses: {ignored}")
    return list(merged.values()), warnings


def _ignored_options(later: SiteOptions, first: SiteOptions) -> str:
    """What a later line of a host sets differently from its first line, in
    words ("" when nothing): the value ignored and the one used instead."""
    parts = []
    for field in fields(SiteOptions):
        value, used = getattr(later, field.name), getattr(first, field.name)
        if value is not None and value != used:
            instead = f"{field.name}={used}" if used is not None else "the crawl's setting"
            parts.append(f"{field.name}={value} ignored, {instead} used")
    return "; ".join(parts)


def _prefix_union(prefixes: tuple[str, ...]) -> tuple[str, ...]:
    """The prefixes not already covered by another one ("/" covers every path)."""
    unique = tuple(dict.fromkeys(prefixes))
    return tuple(p for p in unique if not any(p != q and p.startswith(q) for q in unique))


class _LineError(ValueError):
    pass


_COMMENT_RE = re.compile(r"(^|\s)#.*$")
_SCHEME_RE = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):(.*)$")
_HOST_PORT_RE = re.compile(r"^\d+(/|$)")


def _strip_comment(line: str) -> str:
    """Drop a whole-line ``#`` comment or a trailing `` # ...`` one (``/#frag`` stays)."""
    return _COMMENT_RE.sub("", line).strip()


def _parse_line(content: str, number: int) -> SiteSpec:
    first, *rest = content.split()
    url = _start_url(first)
    options = _parse_options(rest)
    return SiteSpec.from_url(url, number, options)


def _start_url(token: str) -> str:
    """The canonical start URL for the first token; a bare host means https."""
    match = _SCHEME_RE.match(token)
    if match and not _HOST_PORT_RE.match(match.group(2)):
        scheme = match.group(1).lower()
        if scheme not in ("http", "https"):
            raise _LineError(f"unsupported scheme {scheme!r} in {token!r} (use http or https)")
        if not match.group(2).startswith("//"):
            raise _LineError(f"not a URL: {token!r} (expected {scheme}://host/...)")
        candidate = token
    else:
        candidate = "https://" + token.removeprefix("//")
        if not _looks_like_host(candidate):
            raise _LineError(f"not a URL or host name: {token!r}")
    canonical = canonicalize_url(candidate)
    if canonical is None:
        raise _LineError(f"not a valid URL: {token!r}")
    return canonical


def _looks_like_host(url: str) -> bool:
    """A bare word is more likely a typo than a site: want a dot, a port, an IP or localhost."""
    hostport = host_of(url)
    if hostport.startswith("["):
        return True
    host, _, port = hostport.partition(":")
    return "." in host or host == "localhost" or bool(port)


def _positive_int(text: str) -> int:
    value = _int(text)
    if value < 1:
        raise ValueError("must be a whole number of at least 1")
    return value


def _non_negative_int(text: str) -> int:
    value = _int(text)
    if value < 0:
        raise ValueError("must be a whole number of at least 0")
    return value


def _int(text: str) -> int:
    if not re.fullmatch(r"[+-]?\d+", text) or not text.isascii():
        raise ValueError("must be a whole number")
    return int(text)


# A site's delay is at most an hour: a stop (Ctrl-C) first fetches the
# requests already queued for the site, one delay apart.
MAX_DELAY = 3600.0


def _delay(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError("must be a number of seconds") from None
    if not math.isfinite(value) or value < 0:
        raise ValueError("must be a finite number of seconds, at least 0")
    if value > MAX_DELAY:
        raise ValueError(f"must be at most {MAX_DELAY:.0f} seconds (an hour)")
    return value


def _screenshot_mode(text: str) -> str:
    mode = text.lower()
    if mode not in SCREENSHOT_MODES:
        raise ValueError(f"must be one of {', '.join(SCREENSHOT_MODES)}")
    return mode


_OPTION_PARSERS: dict[str, Callable[[str], Any]] = {
    "max_pages": _positive_int,
    "depth": _non_negative_int,
    "delay": _delay,
    "concurrency": _positive_int,
    "screenshots": _screenshot_mode,
}


def _parse_options(tokens: list[str]) -> SiteOptions:
    """``key=value`` tokens into SiteOptions; all problems of the line in one message."""
    values: dict[str, Any] = {}
    problems: list[str] = []
    for token in tokens:
        key, eq, raw = token.partition("=")
        key = key.strip().lower().replace("-", "_")
        if not eq or not key:
            problems.append(f"expected key=value after the URL, got {token!r}")
        elif key not in _OPTION_PARSERS:
            problems.append(f"unknown option {key!r} (known: {', '.join(_OPTION_PARSERS)})")
        elif key in values:
            problems.append(f"option {key!r} given twice")
        else:
            try:
                values[key] = _OPTION_PARSERS[key](raw)
            except ValueError as exc:
                problems.append(f"bad value {key}={raw!r}: {exc}")
    if problems:
        raise _LineError("; ".join(problems))
    return SiteOptions(**values)


def _path_prefix(canonical: str) -> str:
    """The start URL's directory: ``/blog/`` for ``/blog/``, ``/blog/index.html``
    and ``/blog`` (a last segment without an extension names a section)."""
    path = _path_of(canonical)
    head, _, last = path.rpartition("/")
    if last and "." not in last:
        return path + "/"
    return head + "/"


def _path_of(canonical: str) -> str:
    after_host = canonical.split("//", 1)[1]
    slash = after_host.find("/")
    return after_host[slash:].split("?", 1)[0] if slash >= 0 else "/"


def bare_host(hostport: str) -> str:
    """The host a site is known by: ``www.h`` and ``h`` are one site."""
    return hostport.removeprefix("www.")
