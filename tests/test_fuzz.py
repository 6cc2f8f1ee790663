"""Fuzzing: hostile input never hangs or crashes the pure parts of sitesift.

Property-based tests (hypothesis) over *mutated real pages*: every page of the
bundled demo web (English and Chinese, UTF-8, GBK and Big5 bytes) is truncated,
cut, duplicated, spliced with unclosed, misnested and deeply nested tags,
control characters, NUL, character references to surrogates and C1 controls,
invalid UTF-8, BOMs, wrong and conflicting charset declarations, huge
attribute values and random text; plain random bytes and text too. The same
kind of mutation is applied to URLs and site lists.

Properties, for every method in ``extractors.METHODS`` and for
``extractors.as_document``:

* it never raises (``ExtractionError`` is documented only for input that is
  not ``str``/``bytes``, so for pages nothing at all may escape);
* every call returns within ``CALL_BUDGET_S`` of wall time;
* every output string is clean text: see :func:`bad_chars`.

What "clean text" means here: the string encodes to UTF-8 strictly (no lone
surrogates) and holds no control character (Unicode category ``Cc``) other
than ``\\n`` and ``\\t``. U+FFFD is accepted: it is the honest rendering of
bytes that no codec decodes, and dropping it would hide broken pages.

Runs are deterministic (``derandomize=True``, no example database), so CI
sees the same examples every time. ``SITESIFT_FUZZ_SCALE`` multiplies the
example counts for a soak run; ``SITESIFT_FUZZ_REPORT=path.json`` writes the
figures (examples run, slowest call per target) for docs/reliability.md.
"""

from __future__ import annotations

import codecs
import json
import logging
import math
import os
import time
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crawler.sitelist import SCREENSHOT_MODES, SiteListFileError, parse_site_list, read_site_list
from crawler.urlgroups import URLGrouper
from crawler.urls import canonicalize_url, host_of
from extractors import METHODS, Document, ExtractionError, Result, as_document, extract
from extractors.document import text_lines
from extractors.encoding import decode_html, detect_encoding, meta_charset, normalize_encoding

T = TypeVar("T")

# Time budget for one call (one page through one method, one URL, one site
# list). Real pages take milliseconds; the bound is generous because CI runs
# on a slow 2-core box and a page may be megabytes of mutated markup. What it
# catches is a hang or a super-linear blow-up. It is checked on the CPU time
# of the process (the extractors are pure computation), which other jobs on
# a shared machine do not inflate; the wall clock gets a looser hard limit
# that still catches a call blocked on a lock or I/O.
CALL_BUDGET_S = 5.0
WALL_LIMIT_S = 30.0

_SCALE = float(os.environ.get("SITESIFT_FUZZ_SCALE", "1"))

settings.register_profile(
    "sitesift-fuzz",
    derandomize=True,  # the same examples on every run: no flaky CI
    database=None,
    deadline=None,  # timing is asserted by hand against CALL_BUDGET_S
    print_blob=True,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.large_base_example,
    ],
)
FUZZ = settings.get_profile("sitesift-fuzz")


def fuzz(max_examples: int) -> settings:
    """The shared profile with a (scaled) number of examples."""
    return settings(FUZZ, max_examples=max(1, int(max_examples * _SCALE)))


# -- figures for the reliability report --------------------------------------

_STATS: dict[str, dict[str, float]] = {}


def _record(target: str, cpu: float, wall: float) -> None:
    entry = _STATS.setdefault(target, {"calls": 0, "max_cpu_s": 0.0, "max_wall_s": 0.0})
    entry["calls"] += 1
    entry["max_cpu_s"] = max(entry["max_cpu_s"], cpu)
    entry["max_wall_s"] = max(entry["max_wall_s"], wall)


def timed(target: str, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Call ``fn`` and assert that it returned within the budget."""
    cpu, wall = time.process_time(), time.perf_counter()
    value = fn(*args, **kwargs)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    _record(target, cpu, wall)
    assert cpu < CALL_BUDGET_S, f"{target} took {cpu:.2f}s of CPU (budget {CALL_BUDGET_S}s)"
    assert wall < WALL_LIMIT_S, f"{target} took {wall:.2f}s (wall limit {WALL_LIMIT_S}s)"
    return value


@pytest.fixture(scope="module", autouse=True)
def _report() -> Iterator[None]:
    yield
    figures = {
        target: {
            "calls": int(entry["calls"]),
            "max_cpu_s": round(entry["max_cpu_s"], 4),
            "max_wall_s": round(entry["max_wall_s"], 4),
        }
        for target, entry in sorted(_STATS.items())
    }
    report = os.environ.get("SITESIFT_FUZZ_REPORT")
    if report:
        Path(report).write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    print("\nfuzz figures (calls, slowest CPU s, slowest wall s):")
    for target, entry in figures.items():
        print(
            f"  {target:28} {entry['calls']:6} {entry['max_cpu_s']:8.3f} {entry['max_wall_s']:8.3f}"
        )


@pytest.fixture(scope="module", autouse=True)
def _warm_up() -> None:
    """Pay the once-per-process costs (lazy imports, jieba's dictionary) before
    any call is timed: the budget is per page, not per process."""
    for name in ("en/index.html", "zh/index.html"):
        doc = as_document(SEEDS[name][0], None, SEEDS[name][1])
        for method in METHODS:
            METHODS[method](doc)


# -- the clean-text rule -------------------------------------------------------

ALLOWED_CONTROLS = frozenset("\n\t")


def bad_chars(text: str) -> list[str]:
    """Characters that clean output text must not hold: lone surrogates
    (category ``Cs``: they make the string unencodable) and controls
    (category ``Cc``) other than newline and tab. U+FFFD is allowed."""
    return [
        ch for ch in text if ch not in ALLOWED_CONTROLS and unicodedata.category(ch) in ("Cc", "Cs")
    ]


def assert_clean(text: str | None, what: str) -> None:
    if text is None:
        return
    assert isinstance(text, str), f"{what} is {type(text).__name__}, not str"
    text.encode("utf-8", errors="strict")
    bad = bad_chars(text)
    assert not bad, f"{what} holds {sorted({hex(ord(c)) for c in bad})}: {text[:200]!r}"


def assert_clean_result(result: Result, what: str) -> None:
    assert isinstance(result, Result), f"{what} returned {type(result).__name__}"
    for field in ("text", "title", "method", "published", "author", "language", "image"):
        assert_clean(getattr(result, field), f"{what}.{field}")
    for i, record in enumerate(result.records):
        for field in ("text", "url", "title", "date"):
            assert_clean(getattr(record, field), f"{what}.records[{i}].{field}")
    if result.confidence is not None:
        assert math.isfinite(result.confidence) and 0.0 <= result.confidence <= 1.0, what
    # The JSON form (what the feeds and the store write) must serialise.
    json.dumps(result.to_dict(), ensure_ascii=False).encode("utf-8")


@contextmanager
def no_swallowed_errors() -> Iterator[list[logging.LogRecord]]:
    """Fail if an extractor logged an exception it swallowed (``auto`` keeps
    going when one voter fails; a fuzz run must still see that failure)."""
    records: list[logging.LogRecord] = []

    class Catch(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.exc_info:
                records.append(record)

    handler = Catch(logging.WARNING)
    logger = logging.getLogger("extractors")
    logger.addHandler(handler)
    try:
        yield records
    finally:
        logger.removeHandler(handler)
    assert not records, "swallowed: " + "; ".join(
        f"{r.getMessage()} ({r.exc_info[1]!r})" for r in records if r.exc_info
    )


# -- seeds: the real pages of the demo web -------------------------------------

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "demo" / "web"


def _load_seeds() -> dict[str, tuple[bytes, str | None]]:
    """Page bytes by "site/path", with the Content-Type the demo server sends."""
    seeds: dict[str, tuple[bytes, str | None]] = {}
    for site in sorted(p for p in DEMO.iterdir() if p.is_dir()):
        headers_file = site / "_headers.json"
        headers = json.loads(headers_file.read_text("utf-8")) if headers_file.exists() else {}
        for page in sorted(site.rglob("*.html")):
            path = "/" + page.relative_to(site).as_posix()
            ctype = headers.get(path, {}).get("Content-Type", "text/html; charset=utf-8")
            seeds[f"{site.name}{path}"] = (page.read_bytes(), ctype)
    return seeds


SEEDS = _load_seeds()
SEED_NAMES = sorted(SEEDS)


def test_seeds_cover_english_chinese_and_legacy_encodings() -> None:
    assert len(SEEDS) >= 20
    assert any(name.startswith("en/") for name in SEEDS)
    assert any(name.startswith("zh/") for name in SEEDS)
    legacy = [data for data, _ in SEEDS.values() if not _is_utf8(data)]
    assert legacy, "no GBK/Big5 seed page"


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


# -- mutations -----------------------------------------------------------------

TAGS = [
    "html", "head", "body", "title", "meta", "base", "link", "script", "style",
    "noscript", "template", "svg", "math", "iframe", "frameset", "frame", "table",
    "tbody", "tr", "td", "th", "p", "div", "span", "a", "b", "i", "br", "hr", "pre",
    "textarea", "select", "option", "form", "input", "button", "ul", "ol", "li",
    "h1", "h2", "article", "main", "nav", "footer", "header", "plaintext", "xmp",
    "img", "time", "section", "dl", "dd", "font", "center", "marquee", "x-custom",
]  # fmt: skip
NEST_TAGS = ["div", "span", "b", "a href=x", "p", "li", "ul", "table", "td", "section", "font"]
ATTRS = [
    "", ' class="content"', ' id="main"', ' href="/x"', ' href="javascript:void(0)"',
    ' style="display:none"', " hidden", ' aria-hidden="true"', ' type="hidden"',
    ' lang="zh-CN"', ' src="data:image/png;base64,AAAA"', ' itemprop="author"',
    ' property="og:title" content="T\x01itle"', ' datetime="2024-13-45T99:99"',
    " class=unquoted'", ' title="unterminated', " ==>", ' href="\x00\x1f"',
]  # fmt: skip
CHARSETS = [
    "utf-8", "UTF8", "gbk", "gb2312", "GB18030", "big5", "big5-hkscs", "shift_jis",
    "euc-kr", "iso-8859-1", "latin1", "windows-1252", "koi8-r", "utf-16", "utf-16le",
    "utf-32", "utf-7", "x-user-defined", "replacement", "hz-gb-2312", "iso-2022-jp",
    "cp037", "rot13", "hex", "base64", "zlib", "idna", "punycode", "unicode_escape",
    "raw_unicode_escape", "undefined", "mbcs", "bogus", "", "utf-8\x00", "gbk;", "'utf-8'",
]  # fmt: skip
CONTROL_BYTES = [bytes([c]) for c in [*range(0x20), 0x7F]] + [
    b"\xc2\x80", b"\xc2\x85", b"\xc2\x9f",  # C1 controls, UTF-8 encoded
    b"\xe2\x80\xa8", b"\xe2\x80\x8b", b"\xef\xbf\xbe",  # U+2028, ZWSP, U+FFFE
]  # fmt: skip
INVALID_UTF8 = [
    b"\xff", b"\xfe", b"\x80", b"\xc0\xaf", b"\xe0\x80\xaf", b"\xed\xa0\x80",  # encoded surrogate
    b"\xed\xbf\xbf", b"\xf4\x90\x80\x80", b"\xf8\x88\x80\x80\x80", b"\xe4\xb8", b"\x81\x30",
]  # fmt: skip
# Metadata sources whose strings skip the page-text cleaning: <meta>
# contents, JSON-LD (its \\u escapes reach any code point), the lang attribute.
METADATA = [
    '<meta property="og:title" content="Og\u0085 \u0080title">',
    '<meta name="author" content="Jo\u009fhn &#1;Doe">',
    '<meta property="article:published_time" content="2024-05-01T10:00\u0085">',
    '<meta property="og:image" content="/i\u0080mg.png">',
    '<script type="application/ld+json">{"@type": "NewsArticle", "headline": "H\\u0085\\u0001",'
    ' "author": {"name": "A\\u0000\\ud800b"}, "datePublished": "2024-05-01\\u0007",'
    ' "image": "/a\\u0001.png"}</script>',
    '<html lang="zh\u0085-CN">',
    '<time datetime="2024-05-01\u0080">May 1</time>',
]
BOMS = [codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF32_LE]
CHAR_REFS = [
    "&#0;", "&#x0;", "&#1;", "&#x1f;", "&#x7f;", "&#x85;", "&#128;", "&#150;", "&#x9f;",
    "&#xD800;", "&#xDFFF;", "&#55296;", "&#x110000;", "&#99999999999;", "&#xFFFE;",
    "&#xFFFD;", "&nbsp;", "&amp", "&#xZZ;", "&#", "&;", "&#x202E;", "&#8203;",
]  # fmt: skip
TEXT_CHARS = st.characters(codec=None) | st.characters(categories=["Cc", "Cs", "Cf", "Zl", "Zp"])


def _slice(draw: st.DrawFn, data: bytes) -> tuple[int, int]:
    a = draw(st.integers(0, len(data)))
    b = draw(st.integers(a, min(len(data), a + draw(st.sampled_from([16, 256, 4096, 1 << 20])))))
    return a, b


def _insert(draw: st.DrawFn, data: bytes, fragment: bytes) -> bytes:
    where = draw(st.sampled_from(["start", "end", "random", "random"]))
    pos = {"start": 0, "end": len(data)}.get(where)
    if pos is None:
        pos = draw(st.integers(0, len(data)))
    return data[:pos] + fragment + data[pos:]


def _random_tag(draw: st.DrawFn) -> bytes:
    tag = draw(st.sampled_from(TAGS))
    attrs = "".join(draw(st.lists(st.sampled_from(ATTRS), max_size=3)))
    form = draw(st.sampled_from(["open", "close", "self", "unterminated", "misnested", "weird"]))
    if form == "open":
        markup = f"<{tag}{attrs}>"
    elif form == "close":
        markup = f"</{tag}>"
    elif form == "self":
        markup = f"<{tag}{attrs}/>"
    elif form == "unterminated":
        markup = f"<{tag}{attrs}"
    elif form == "misnested":
        other = draw(st.sampled_from(TAGS))
        markup = f"<{tag}><{other}>x</{tag}>y</{other}>"
    else:
        markup = draw(
            st.sampled_from(
                ["<!--", "-->", "<![CDATA[", "]]>", "<?xml version='1.0'?>", "<!DOCTYPE",
                 "</>", "<>", "< p>", "<p <p>", "<a href='", "<!-- -- -->", "<\x00p>"]
            )
        )  # fmt: skip
    return markup.encode("utf-8")


def _nesting(draw: st.DrawFn) -> bytes:
    tag = draw(st.sampled_from(NEST_TAGS))
    depth = draw(st.sampled_from([10, 100, 399, 400, 401, 1000, 3000]))
    close = draw(st.sampled_from(["all", "none", "half"]))
    name = tag.split()[0]
    closes = {"all": depth, "none": 0, "half": depth // 2}[close]
    body = draw(st.sampled_from([b"deep text ", "深层正文".encode(), b""]))
    return f"<{tag}>".encode() * depth + body + f"</{name}>".encode() * closes


def _meta(draw: st.DrawFn) -> bytes:
    charset = draw(st.sampled_from(CHARSETS))
    form = draw(st.booleans())
    if form:
        return f'<meta charset="{charset}">'.encode("utf-8", "surrogatepass")
    return f'<meta http-equiv="Content-Type" content="text/html; charset={charset}">'.encode()


def _huge_attribute(draw: st.DrawFn) -> bytes:
    size = draw(st.sampled_from([1_000, 100_000, 1_000_000]))
    attr = draw(st.sampled_from(["title", "href", "style", "class", "content", "data-x"]))
    quote = draw(st.sampled_from(['"', "'", ""]))
    filler = draw(st.sampled_from([b"x", b"\xe4\xb8\xad", b"a b ", b"&#1;"]))
    return f"<div {attr}={quote}".encode() + filler * (size // len(filler)) + b'">text</div>'


def _random_text(draw: st.DrawFn) -> bytes:
    text = draw(st.text(TEXT_CHARS, max_size=200))
    codec = draw(st.sampled_from(["utf-8", "gb18030", "big5hkscs", "utf-16-le", "latin-1"]))
    errors = "surrogatepass" if codec == "utf-8" else "replace"
    return text.encode(codec, errors)


def _mutate(draw: st.DrawFn, data: bytes) -> bytes:
    op = draw(
        st.sampled_from(
            ["truncate", "delete", "duplicate", "swap", "tag", "nest", "control", "invalid",
             "bom", "meta", "charref", "metadata", "huge", "text", "bytes"]
        )
    )  # fmt: skip
    if op == "truncate":
        return data[: draw(st.integers(0, len(data)))]
    if op == "delete":
        a, b = _slice(draw, data)
        return data[:a] + data[b:]
    if op == "duplicate":
        a, b = _slice(draw, data)
        return data[:b] + data[a:b] * draw(st.integers(1, 3)) + data[b:]
    if op == "swap":
        a, b = _slice(draw, data)
        c, d = _slice(draw, data)
        if c < a:
            a, b, c, d = c, d, a, b
        if b > c:  # overlapping: rotate instead
            return data[b:] + data[:b]
        return data[:a] + data[c:d] + data[b:c] + data[a:b] + data[d:]
    fragment = {
        "tag": _random_tag,
        "nest": _nesting,
        "control": lambda d: d(st.sampled_from(CONTROL_BYTES)) * d(st.integers(1, 4)),
        "invalid": lambda d: d(st.sampled_from(INVALID_UTF8)),
        "bom": lambda d: d(st.sampled_from(BOMS)),
        "meta": _meta,
        "charref": lambda d: d(st.sampled_from(CHAR_REFS)).encode(),
        "metadata": lambda d: d(st.sampled_from(METADATA)).encode("utf-8", "surrogatepass"),
        "huge": _huge_attribute,
        "text": _random_text,
        "bytes": lambda d: d(st.binary(max_size=64)),
    }[op](draw)
    return _insert(draw, data, fragment)


CONTENT_TYPES = st.one_of(
    st.none(),
    st.sampled_from(["text/html", "text/html; charset=", "application/xhtml+xml", "text/plain"]),
    st.sampled_from(CHARSETS).map(lambda c: f"text/html; charset={c}"),
    st.text(TEXT_CHARS, max_size=40),
)


@st.composite
def mutated_pages(draw: st.DrawFn, max_mutations: int = 4) -> tuple[bytes, str | None]:
    """A real demo page (bytes) after a few mutations, and a Content-Type:
    the one it is served with, or a wrong, conflicting or garbage one."""
    name = draw(st.sampled_from(SEED_NAMES))
    data, ctype = SEEDS[name]
    for _ in range(draw(st.integers(0, max_mutations))):
        data = _mutate(draw, data)
    if draw(st.booleans()):
        ctype = draw(CONTENT_TYPES)
    return data, ctype


@st.composite
def mutated_text_pages(draw: st.DrawFn) -> str:
    """A mutated page already decoded to ``str`` (as a caller may hold it),
    with lone surrogates, C0/C1 controls and format characters mixed in."""
    data, _ = draw(mutated_pages(max_mutations=2))
    codec = draw(st.sampled_from(["utf-8", "gb18030", "big5hkscs", "latin-1"]))
    text = data.decode(codec, draw(st.sampled_from(["replace", "surrogateescape", "ignore"])))
    for _ in range(draw(st.integers(0, 4))):
        pos = draw(st.integers(0, len(text)))
        junk = draw(
            st.one_of(
                st.text(TEXT_CHARS, min_size=1, max_size=8),
                st.sampled_from(["\ud800", "\udfff", "\ud83d\ude00", "\x85", "\x00", "\ufeff"]),
            )
        )
        text = text[:pos] + junk + text[pos:]
    return text


ANY_PAGE = st.one_of(
    mutated_pages().map(lambda page: page[0]),
    mutated_text_pages(),
    st.binary(max_size=3000),
    st.text(TEXT_CHARS, max_size=3000),
)


# -- extractors ------------------------------------------------------------------


def _check_document(doc: Document, what: str) -> None:
    assert isinstance(doc, Document)
    # decode_html's contract for the decoded source: valid Unicode, no C0
    # controls except tab and line breaks.
    doc.text.encode("utf-8", errors="strict")
    assert not [c for c in doc.text if (c < " " and c not in "\t\n\r") or c == "\x7f"], what
    assert_clean(doc.title, f"{what}.title")
    for i, line in enumerate(text_lines(doc.body)):
        assert_clean(line, f"{what}.lines[{i}]")
    assert doc.language is None or isinstance(doc.language, str)


def _run_all_methods(doc: Document, url: str, reference: Document | None) -> dict[str, Result]:
    results = {}
    with no_swallowed_errors():
        for name in METHODS:
            kwargs = {"reference": reference} if name == "layout" and reference else {}
            result = timed(f"method:{name}", METHODS[name], doc, url, **kwargs)
            assert_clean_result(result, name)
            results[name] = result
    return results


@fuzz(250)
@given(mutated_pages(), mutated_pages(max_mutations=1), st.sampled_from(SEED_NAMES))
def test_every_method_survives_mutated_real_pages(
    page: tuple[bytes, str | None], ref: tuple[bytes, str | None], name: str
) -> None:
    data, ctype = page
    url = f"http://127.0.0.1:8000/{name}"
    doc = timed("as_document", as_document, data, url, ctype)
    _check_document(doc, "document")
    reference = as_document(ref[0], url, ref[1])
    _run_all_methods(doc, url, reference)


@fuzz(60)
@given(ANY_PAGE)
def test_every_method_survives_random_and_decoded_input(html: str | bytes) -> None:
    doc = timed("as_document", as_document, html)
    _check_document(doc, "document")
    _run_all_methods(doc, "http://127.0.0.1:8000/x.html", reference=doc)
    # The one-call API parses on its own: same properties.
    with no_swallowed_errors():
        assert_clean_result(timed("extract(auto)", extract, html), "extract")


@fuzz(25)
@given(mutated_pages(max_mutations=2))
def test_methods_do_not_mutate_the_shared_document(page: tuple[bytes, str | None]) -> None:
    """The tree is shared by every method: each result on the shared document
    equals the result on a freshly parsed one."""
    data, ctype = page
    shared = as_document(data, None, ctype)
    on_shared = {name: METHODS[name](shared).to_dict() for name in METHODS}
    for name in METHODS:
        assert METHODS[name](as_document(data, None, ctype)).to_dict() == on_shared[name], name


def test_non_pages_raise_only_the_documented_error() -> None:
    for junk in (None, 42, 1.5, ["<p>x</p>"], object()):
        with pytest.raises(ExtractionError):
            as_document(junk)  # type: ignore[arg-type]
        for name in METHODS:
            with pytest.raises(ExtractionError):
                METHODS[name](junk)


def test_extremes_hold_the_budget() -> None:
    """The largest hostile shapes, once each (too slow to draw repeatedly)."""
    seed = SEEDS[SEED_NAMES[0]][0]
    cases: list[str | bytes] = [
        b"<div>" * 10_000 + b"deep" + b"</div>" * 10_000,
        b"<table><tr><td>" * 3_000 + b"cell",
        b"<p>" + b"word " * 400_000,
        b'<div title="' + b"x" * 6_000_000 + b'">after</div>',
        seed * 300,  # ~1 MB of one page repeated
        b"<a href=x>" * 50_000,
        b"\x00" * 1_000_000,
        # 0.5 MB of one paragraph (a log): a copy rule scanned it once per line
        b"<h1>Log</h1>" + b"<p>Lorem ipsum dolor sit amet, consectetur adipiscing.</p>" * 8_000,
        # Long runs of spaces and digits, where a regex tried every split of
        # the run (seconds to minutes each): in a title, a date, a paragraph.
        b'<meta property="og:title" content="'
        + b" " * 16_000
        + b'x"><article><p>'
        + b"An opening paragraph of the story. " * 40
        + b"</p><p>"
        + b"1" * 16_000
        + b"</p><time>"
        + b"2" * 16_000
        + b"</time></article>",
        # An author box of 3,000 words ending in a date: the date was looked
        # for in the rest after every word (8 s).
        b'<article><div class="author">By '
        + b"word " * 3_000
        + b"May 3, 2024</div><p>"
        + b"An opening paragraph of the story. " * 40
        + b"</p></article>",
    ]
    for html in cases:
        doc = timed("extremes:as_document", as_document, html)
        _check_document(doc, "extreme document")
        for name in METHODS:
            assert_clean_result(timed(f"extremes:{name}", METHODS[name], doc), name)


def test_a_long_run_of_spaces_in_a_short_line_holds_the_budget() -> None:
    """A <pre> line keeps its spaces and counts as short (spaces are not
    counted): where no header followed, the header's leading \\W* tried
    every split of them (26 s on this line)."""
    from extractors.boilerplate import cut_comments

    text = ["An opening paragraph of the story. " * 40, " " * 16_000 + "x", "The end."]
    assert timed("cut_comments", cut_comments, text) == text
    header = [text[0], " " * 16_000 + "Comments", "A reply."]
    assert timed("cut_comments", cut_comments, header) == text[:1]


# Inputs on which the fuzzer found bugs (all fixed in extractors/), kept as
# plain examples so the regressions stay caught whatever the fuzzer draws.
REGRESSIONS: list[tuple[str, str | bytes, str]] = [
    # A control-character reference (``&#11;`` from pasted Word text) ahead of
    # a dropped element: lxml refused the joined text and as_document raised.
    ("charref-before-script", b"&#11;<script>x</script><p>Kept text</p>", "Kept text"),
    ("charref-before-hidden", b"<div>a&#x1;<span hidden>h</span>Kept</div>", "Kept"),
    # Python codecs that are no page encoding: decoding raised.
    ("meta-undefined", b'<meta charset="undefined"><p>Kept text</p>', "Kept text"),
    ("meta-rot13", b'<meta charset="rot13"><p>Kept text</p>', "Kept text"),
    ("meta-idna", b'<meta charset="idna"><p>Kept text \xff</p>', "Kept text"),
    # UTF-7 made a lone surrogate: lxml parsed nothing past it.
    ("meta-utf7", b'<meta charset="utf-7"><p>Kept +2AA- text</p>', "text"),
    # A <meta> declaring UTF-16 on ASCII bytes: the page became CJK garbage.
    ("meta-utf16", b'<meta charset="utf-16"><p>Kept text</p>', "Kept text"),
    # A C1 control in a record's link text reached Record.title.
    ("record-title-c1", "<A>0<A>0<A HREF=0>0\x80", "0"),
    # Controls in <meta> contents and JSON-LD strings reached title and author.
    ("metadata-controls", "".join(METADATA) + "<p>Kept text</p>", "Kept text"),
    # A control character in <html lang> reached Result.language of every method.
    ("lang-c1", b'<html lang="zh\xc2\x85-CN"><p>Kept text</p>', "Kept text"),
    # A lone surrogate in str input: the text after it was lost.
    ("str-lone-surrogate", "<p>Kept \ud800 text after</p>", "text after"),
]


@pytest.mark.parametrize(
    ("html", "kept"), [c[1:] for c in REGRESSIONS], ids=[c[0] for c in REGRESSIONS]
)
def test_regressions_found_by_fuzzing(html: str | bytes, kept: str) -> None:
    doc = as_document(html)
    assert kept in "\n".join(text_lines(doc.body))
    for name in METHODS:
        assert_clean_result(METHODS[name](doc), name)
    assert normalize_encoding("utf-8\x00") is None  # raised ValueError


def test_output_urls_hold_no_control_characters() -> None:
    """Record links and the main image were joined raw: a C1 control or a
    space in an ``href`` (``str`` input keeps them) reached the output URL."""
    items = "".join(
        f'<li><a href="/news/{i}{c}x.html">Headline number {i} of the list</a>'
        f"<span>2024-05-0{i}</span></li>"
        for i, c in enumerate(("\x80", "\x9f", " ", "\x85"), start=1)
    )
    html = (
        '<html><head><meta property="og:image" content="/img/a\x80b.png"></head>'
        f"<body><ul>{items}</ul></body></html>"
    )
    for name in ("list", "auto"):
        assert_clean_result(METHODS[name](html, H + "/news/"), name)
    urls = [r.url for r in METHODS["list"](html, H + "/news/").records]
    assert urls[:3] == [
        f"{H}/news/1%C2%80x.html",
        f"{H}/news/2%C2%9Fx.html",
        f"{H}/news/3%20x.html",
    ]
    assert METHODS["auto"](html, H + "/news/").image == f"{H}/img/a%C2%80b.png"


@pytest.mark.parametrize(
    "text",
    [
        # jieba cut every character of a page in boilerpipe: a paragraph of a
        # million characters took ~3.5 s per run, and ``auto`` runs it twice.
        "中文正文" * 250_000,
        # jieba is quadratic in a run it cannot segment: 33,000 of one
        # ideograph (a fuzzed huge attribute turned into text) took ~2.9 s.
        "中" * 33_000,
    ],
    ids=["million-chars", "one-ideograph-run"],
)
def test_huge_chinese_text_holds_the_budget(text: str) -> None:
    doc = as_document(f"<p>{text}</p>")
    for name in ("boilerpipe", "boilerpipe-default", "justext", "auto"):
        timed(f"huge-zh:{name}", METHODS[name], doc)


# -- encoding detection ------------------------------------------------------------


@fuzz(150)
@given(mutated_pages(), CONTENT_TYPES)
def test_decoding_never_raises_and_yields_valid_unicode(
    page: tuple[bytes, str | None], content_type: str | None
) -> None:
    data, served = page
    for ctype in (served, content_type):
        text, encoding = timed("decode_html", decode_html, data, ctype)
        text.encode("utf-8", errors="strict")
        assert not [c for c in text if (c < " " and c not in "\t\n\r") or c == "\x7f"]
        assert codecs.lookup(encoding) if encoding != "unicode" else True
        # Decoding what was decoded changes nothing.
        assert decode_html(text)[0] == text
    detected = timed("detect_encoding", detect_encoding, data)
    assert detected is None or codecs.lookup(detected)
    declared = meta_charset(data)
    assert declared is None or isinstance(declared, str)


@fuzz(150)
@given(st.one_of(st.sampled_from(CHARSETS), st.text(TEXT_CHARS, max_size=30)))
def test_charset_labels_never_raise(label: str) -> None:
    name = normalize_encoding(label)
    if name is not None:
        assert normalize_encoding(name) == name
        # A label it accepts is a text codec that decodes any bytes.
        b"<p>\xff\x00 abc \xe4\xb8\xad</p>".decode(name, errors="replace")


@fuzz(60)
@given(mutated_text_pages())
def test_decoding_text_input_gives_valid_unicode(text: str) -> None:
    decoded, encoding = timed("decode_html(str)", decode_html, text)
    assert encoding == "unicode"
    decoded.encode("utf-8", errors="strict")


# -- URLs: the canonicaliser and the grouper ----------------------------------------

H = "http://127.0.0.1:8000"


def _seed_urls() -> list[str]:
    urls = {H + "/", "https://www.example.com/a/b/../c/./d.html?b=2&a=1&utm_source=x#frag"}
    for name in SEED_NAMES[:12]:
        doc = as_document(SEEDS[name][0])
        urls.update(doc.hrefs[:10])
    return sorted(urls)


SEED_URLS = _seed_urls()
URL_JUNK = [
    " ", "\t", "\n", "\r", "\x00", "\x01", "\x7f", "\x85", "\u3000", "\u200b", "\ufeff",
    "%", "%z", "%zz", "%00", "%0a", "%C0%AF", "%E4%B8%AD", "%25", "%2F", "%2e%2e/",
    "../", "./", "//", "\\", "\\\\", "#", "?", "&", "=", ";", "@", ":", "::", ":0", ":65536",
    ":99999999999999999999", "[", "]", "[::1]", "[v1.x]", "[fe80::1%25eth0]", "xn--",
    "xn--zz", "例子", "ＡＢＣ", "ß", "ﬁ", "\u0301", "\ud800", "javascript:", "data:,",
    "mailto:a@b", "http:", "https://", "http:///", "utm_source=a", "?a=1&a=2&&=&",
    "user:pw@", "..", ".", "0x7f.1", "999.999.999.999", "1.2.3", "localhost.",
]  # fmt: skip
URL_CHARS = st.characters(codec=None) | st.sampled_from(list("/?#&=%.:@[]\\"))
# Longest URL drawn. Browsers and servers give up around 8 KiB, and the
# crawl's trap guard drops URLs over SITESIFT_TRAP_MAX_URL_LENGTH (1024) before
# they are grouped. (URLGrouper.group is quadratic in the number of path
# segments: ~1 s for 8,000 segments.)
MAX_URL_CHARS = 8192


@st.composite
def mutated_urls(draw: st.DrawFn) -> str:
    url = draw(st.sampled_from(SEED_URLS))
    if not url.startswith(("http:", "https:")) and draw(st.booleans()):
        url = H + "/" + url
    for _ in range(draw(st.integers(0, 4))):
        pos = draw(st.integers(0, len(url)))
        op = draw(st.sampled_from(["junk", "junk", "text", "cut", "repeat", "long"]))
        if op == "junk":
            url = url[:pos] + draw(st.sampled_from(URL_JUNK)) + url[pos:]
        elif op == "text":
            url = url[:pos] + draw(st.text(URL_CHARS, max_size=12)) + url[pos:]
        elif op == "cut":
            url = url[:pos]
        elif op == "repeat":
            url = url + url[pos:] * draw(st.integers(1, 4))
        else:
            url = url[:pos] + draw(st.sampled_from(["a/", "%41", "x=1&", "é"])) * 1_000
    return url[:MAX_URL_CHARS]


ANY_URL = st.one_of(mutated_urls(), mutated_urls(), st.text(URL_CHARS, max_size=80))


@fuzz(400)
@given(ANY_URL, st.one_of(st.none(), st.just(H + "/news/a.html"), ANY_URL))
def test_canonical_urls_are_clean_and_idempotent(url: str, base: str | None) -> None:
    once = timed("canonicalize_url", canonicalize_url, url, base)
    if once is None:
        return
    assert once.startswith(("http://", "https://")), once
    assert once.isascii() and once.isprintable(), once
    assert not any(c.isspace() for c in once), once
    assert "#" not in once
    assert canonicalize_url(once) == once
    # An absolute canonical URL ignores any base.
    assert canonicalize_url(once, H + "/other/page.html") == once
    assert host_of(once) and host_of(once).isascii()


@fuzz(60)
@given(st.lists(ANY_URL, min_size=1, max_size=30))
def test_grouper_is_clean_deterministic_and_serialisable(urls: list[str]) -> None:
    grouper = URLGrouper()
    keys = [timed("URLGrouper.group", grouper.group, url) for url in urls]
    for key in keys:
        assert isinstance(key, str) and key
        key.encode("utf-8", errors="strict")
        assert not any(c.isspace() for c in key), key
    # The same URLs in the same order give the same groups.
    again = URLGrouper()
    assert [again.group(url) for url in urls] == keys
    # The shared state survives JSON (workers exchange it through Redis).
    state = json.loads(json.dumps(grouper.to_dict()))
    restored = URLGrouper.from_dict(state)
    assert restored.groups() == grouper.groups()
    assert sum(grouper.groups().values()) == len(urls)


@pytest.mark.parametrize("control", ["%00", "%07", "%1B[2J", "%7F", "\x01"])
def test_group_keys_hold_no_control_characters(control: str) -> None:
    key = URLGrouper().group(f"{H}/news/{control}x/1.html")
    assert_clean(key, "group key")


# -- the site list -----------------------------------------------------------------------

SITE_LINES = [
    "# sites.txt",
    "https://news.example.com/                 max_pages=200 depth=4",
    "https://example.org/blog/                 # only pages under /blog/",
    "example.net                               delay=2 concurrency=1",
    "http://127.0.0.1:8000/blog/  max_pages=200 depth=4",
    "https://example.org/  delay=1.5 concurrency=1 screenshots=group",
    "例子.中国/新闻/ screenshots=all",
    "[::1]:8080/x",
    "",
]
OPTION_JUNK = [
    " max_pages=0", " max_pages=-1", " max_pages=" + "9" * 5000, " depth=1e3", " delay=nan",
    " delay=inf", " delay=-0", " delay=1e400", " delay=0x10", " concurrency=٣", " x=1", " =",
    " depth", " screenshots=ALL", " screenshots=", " depth=2 depth=3", " DELAY=1", " max-pages=3",
]  # fmt: skip
LINE_JUNK = ["\ufeff", "\r\n", "\r", "\x00", "\x0b", "\x0c", "\x1c", "\x85", "\u2028", "#", "\t"]


@st.composite
def mutated_site_lists(draw: st.DrawFn) -> str:
    lines = draw(st.lists(st.sampled_from(SITE_LINES), min_size=1, max_size=10))
    lines += draw(st.lists(mutated_urls(), max_size=4))
    lines = draw(st.permutations(lines))
    text = "\n".join(lines)
    for _ in range(draw(st.integers(0, 5))):
        pos = draw(st.integers(0, len(text)))
        junk = draw(
            st.one_of(
                st.sampled_from(OPTION_JUNK + LINE_JUNK),
                st.text(TEXT_CHARS, max_size=10),
            )
        )
        text = text[:pos] + junk + text[pos:]
    return text


@fuzz(200)
@given(mutated_site_lists())
def test_site_list_parser_never_raises_and_reports_clean_lines(text: str) -> None:
    specs, errors = timed("parse_site_list", parse_site_list, text)
    assert len({spec.url for spec in specs}) == len(specs)
    for spec in specs:
        assert canonicalize_url(spec.url) == spec.url
        assert spec.in_scope(spec.url)
        assert spec.path_prefix.startswith("/") and spec.path_prefix.endswith("/")
        assert_clean(spec.host, "spec.host")
        options = spec.options
        assert options.max_pages is None or options.max_pages >= 1
        assert options.concurrency is None or options.concurrency >= 1
        assert options.depth is None or options.depth >= 0
        assert options.delay is None or (math.isfinite(options.delay) and options.delay >= 0)
        assert options.screenshots is None or options.screenshots in SCREENSHOT_MODES
    for error in errors:
        message = str(error)
        # One readable line per bad line: what the CLI prints.
        assert_clean(message, "site list error")
        assert "\n" not in message and len(message.splitlines()) == 1, message


@fuzz(60)
@given(st.one_of(mutated_site_lists().map(lambda t: t.encode("utf-8", "surrogatepass")),
                 st.binary(max_size=300)))  # fmt: skip
def test_site_list_file_errors_are_the_documented_type(data: bytes) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "sites.txt"
        path.write_bytes(data)
        try:
            timed("read_site_list", read_site_list, path)
        except SiteListFileError as exc:
            assert "\n" not in str(exc)
