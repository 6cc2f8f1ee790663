"""URL canonicalisation: one spelling per page, so the dupefilter, the store and
the URL groups all see the same key.

Pure and Scrapy-free. The rules follow RFC 3986 section 6 (syntax-based
normalisation) plus what browsers do with sloppy links (WHATWG URL: strip
surrounding whitespace, drop tabs and newlines, read ``\\`` as ``/``), and drop
only the query parameters that never change a page's content.
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urljoin

import idna

__all__ = ["SESSION_PARAMS", "TRACKING_PARAMS", "canonicalize_url", "host_of"]

# Click and campaign identifiers added by ad networks, mail tools and share
# buttons. Only names that never select content: ``ref``, ``source``, ``from``
# or ``id`` do on some sites, so they stay. ``utm_*`` is dropped as a prefix.
TRACKING_PARAMS: frozenset[str] = frozenset(
    {
        # Google Ads / Analytics / Merchant
        "gclid", "gclsrc", "dclid", "gbraid", "wbraid", "_ga", "_gl", "srsltid",
        # Meta, Microsoft, Yandex, TikTok, Twitter/X, LinkedIn, Instagram, Reddit
        "fbclid", "msclkid", "yclid", "ysclid", "ttclid", "twclid", "li_fat_id",
        "igshid", "rdt_cid",
        # Mailchimp, HubSpot, Marketo, Omeda, Vero
        "mc_cid", "mc_eid", "_hsenc", "_hsmi", "__hstc", "__hssc", "__hsfp",
        "hsctatracking", "mkt_tok", "oly_anon_id", "oly_enc_id", "vero_id", "vero_conv",
        # Alibaba / Taobao / Youku "super position model" click trail
        "spm",
    }
)  # fmt: skip

# Session identifiers: a fresh one per visit turns one page into endless URLs
# (a crawler trap) and never changes the content. These names carry nothing
# else; ``sid`` and ``session`` name stories or filters on some sites, so they
# are dropped only when their value is an opaque token (see _SESSION_TOKEN_RE).
SESSION_PARAMS: frozenset[str] = frozenset(
    {"jsessionid", "phpsessid", "aspsessionid", "sessionid", "session_id", "sessid",
     "cfid", "cftoken", "oscsid", "zenid"}
)  # fmt: skip
_TOKEN_SESSION_PARAMS = frozenset({"sid", "session"})
# 16+ hex digits, or 20+ letters and digits mixed: a generated token, not a word or an id.
_SESSION_TOKEN_RE = re.compile(
    r"[0-9A-Fa-f]{16,}|(?=[A-Za-z0-9]*[0-9])(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{20,}"
)
# Java servlets put the session in the path: /page;jsessionid=ABC?x=1
_PATH_SESSION_RE = re.compile(r";(?:jsessionid|phpsessid|sessionid)=[^/?#]*", re.IGNORECASE)

_DEFAULT_PORTS = {"http": "80", "https": "443"}
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_SUB_DELIMS = "!$&'()*+,;="
# Characters left literal in each component; everything else is %XX-encoded.
_PATH_SAFE = _UNRESERVED | frozenset(_SUB_DELIMS + ":@/")
_QUERY_KEY_SAFE = _UNRESERVED | frozenset("!$'()*+,;:@/?")
_QUERY_VALUE_SAFE = _QUERY_KEY_SAFE | frozenset("=")
_USERINFO_SAFE = _UNRESERVED | frozenset(_SUB_DELIMS + ":")
_HEX = frozenset("0123456789abcdefABCDEF")

_SCHEME_RE = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")
_HOST_LABEL_RE = re.compile(r"^[a-z0-9_](?:[a-z0-9_\-]*[a-z0-9_])?$")
_STRIP_CHARS = "".join(chr(c) for c in range(0x21)) + "\x7f"
_TAB_NEWLINE_RE = re.compile(r"[\t\n\r]")


def canonicalize_url(url: str, base: str | None = None) -> str | None:
    """The canonical form of ``url`` (resolved against ``base``), or ``None``
    when it is not a usable http(s) URL.

    Idempotent: canonicalising a canonical URL returns it unchanged.
    """
    try:
        return _canonicalize(url, base)
    except (ValueError, UnicodeError):
        return None


def host_of(url: str) -> str:
    """``host[:port]`` of ``url``, lower-case, default port dropped ("" if unusable)."""
    canonical = canonicalize_url(url)
    if canonical is None:
        return ""
    return canonical.split("//", 1)[1].split("/", 1)[0].rpartition("@")[2]


def _canonicalize(url: str, base: str | None) -> str | None:
    url = _clean(url)
    if not url:
        return None
    if base is not None:
        base = _clean(base)
        if base and _scheme_of(base) in _DEFAULT_PORTS:
            url = urljoin(_backslashes_to_slashes(base), _backslashes_to_slashes(url))
    scheme = _scheme_of(url)
    if scheme not in _DEFAULT_PORTS:
        return None
    url = _backslashes_to_slashes(url)
    rest = url[len(scheme) + 1 :].lstrip("/")
    rest = rest.split("#", 1)[0]
    authority, path, query = _split_rest(rest)
    authority = _canonical_authority(authority, scheme)
    if authority is None:
        return None
    path = _PATH_SESSION_RE.sub("", path)
    path = _remove_dot_segments(_normalize_escapes(path, _PATH_SAFE)) or "/"
    query = _canonical_query(query)
    return f"{scheme}://{authority}{path}" + (f"?{query}" if query else "")


def _clean(url: str) -> str:
    """Browsers strip surrounding C0/space and ignore tabs and newlines inside."""
    return _TAB_NEWLINE_RE.sub("", url.strip(_STRIP_CHARS))


def _scheme_of(url: str) -> str:
    match = _SCHEME_RE.match(url)
    return match.group(1).lower() if match else ""


def _backslashes_to_slashes(url: str) -> str:
    """For http(s), browsers read ``\\`` before the query as ``/``."""
    cut = min((i for i in (url.find("?"), url.find("#")) if i >= 0), default=len(url))
    return url[:cut].replace("\\", "/") + url[cut:]


def _split_rest(rest: str) -> tuple[str, str, str]:
    """Split ``authority/path?query`` (scheme and fragment already removed)."""
    before_query, _, query = rest.partition("?")
    slash = before_query.find("/")
    if slash < 0:
        return before_query, "", query
    return before_query[:slash], before_query[slash:], query


def _canonical_authority(authority: str, scheme: str) -> str | None:
    userinfo, at, hostport = authority.rpartition("@")
    host, port = _split_host_port(hostport)
    if host is None or port is None:
        return None
    host = _canonical_host(host)
    if host is None:
        return None
    if port and port != _DEFAULT_PORTS[scheme]:
        host = f"{host}:{port}"
    if at and userinfo:
        return f"{_normalize_escapes(userinfo, _USERINFO_SAFE)}@{host}"
    return host


def _split_host_port(hostport: str) -> tuple[str | None, str | None]:
    """(host, port) with port "" when absent or empty; None for a bad port."""
    if hostport.startswith("["):
        end = hostport.find("]")
        if end < 0:
            return None, None
        host, tail = hostport[: end + 1], hostport[end + 1 :]
        if tail and not tail.startswith(":"):
            return None, None
        port = tail[1:]
    else:
        host, _, port = hostport.partition(":")
    if port and not (port.isascii() and port.isdigit() and int(port) <= 65535):
        return None, None
    return host, str(int(port)) if port else ""


def _canonical_host(host: str) -> str | None:
    if host.startswith("["):
        if "%" in host:
            return None  # zone ids mean nothing outside one machine
        address = ipaddress.IPv6Address(host[1:-1])  # ValueError -> not a URL
        return f"[{address.compressed}]"
    host = host.rstrip(".").lower()
    if not host or "%" in host:
        return None
    if not host.isascii():
        host = idna.encode(host, uts46=True).decode("ascii")
    labels = host.split(".")
    if len(host) > 253 or not all(_HOST_LABEL_RE.match(label) for label in labels):
        return None
    return host


def _normalize_escapes(text: str, safe: frozenset[str]) -> str:
    """Decode escapes of unreserved characters, upper-case the others, escape
    anything outside ``safe`` as UTF-8 (a lone ``%`` becomes ``%25``)."""
    out: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "%" and _is_escape(text, i):
            decoded = chr(int(text[i + 1 : i + 3], 16))
            out.append(decoded if decoded in _UNRESERVED else text[i : i + 3].upper())
            i += 3
            continue
        if char in safe:
            out.append(char)
        else:
            out.extend(f"%{byte:02X}" for byte in char.encode("utf-8", "surrogatepass"))
        i += 1
    return "".join(out)


def _is_escape(text: str, i: int) -> bool:
    return i + 2 < len(text) and text[i + 1] in _HEX and text[i + 2] in _HEX


def _remove_dot_segments(path: str) -> str:
    """RFC 3986 section 5.2.4, keeping a trailing slash where it was."""
    if "." not in path:
        return path
    output: list[str] = []
    segments = path.split("/")
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "..":
            if len(output) > 1:
                output.pop()
            if last:
                output.append("")
        elif segment == ".":
            if last:
                output.append("")
        else:
            output.append(segment)
    result = "/".join(output)
    return result if result.startswith("/") else "/" + result


def _canonical_query(query: str) -> str:
    pairs: list[tuple[str, str | None]] = []
    for part in query.split("&"):
        if not part:
            continue
        key, eq, value = part.partition("=")
        key = _normalize_escapes(key, _QUERY_KEY_SAFE)
        if _is_tracking(key) or _is_session(key, value):
            continue
        pairs.append((key, _normalize_escapes(value, _QUERY_VALUE_SAFE) if eq else None))
    pairs.sort(key=lambda pair: (pair[0], pair[1] is not None, pair[1] or ""))
    return "&".join(key if value is None else f"{key}={value}" for key, value in pairs)


def _is_session(key: str, value: str) -> bool:
    lowered = key.lower()
    if lowered in SESSION_PARAMS:
        return True
    return lowered in _TOKEN_SESSION_PARAMS and _SESSION_TOKEN_RE.fullmatch(value) is not None


def _is_tracking(key: str) -> bool:
    lowered = key.lower()
    return lowered.startswith("utm_") or lowered in TRACKING_PARAMS
