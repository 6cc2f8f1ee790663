from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crawler.sitelist import (
    SiteListError,
    SiteListFileError,
    SiteOptions,
    SiteSpec,
    parse_site_list,
    read_site_list,
)

SAMPLE = """\ufeff# news sites
example.com
http://127.0.0.1:8000/blog/ max_pages=200 depth=4   # the local demo

https://Example.org:443/docs/index.html  delay=1.5 concurrency=1 screenshots=GROUP
localhost:8000/x
"""


def test_parses_urls_options_comments_and_bom() -> None:
    specs, errors = parse_site_list(SAMPLE, "sites.txt")
    assert errors == []
    assert [(s.url, s.line) for s in specs] == [
        ("https://example.com/", 2),
        ("http://127.0.0.1:8000/blog/", 3),
        ("https://example.org/docs/index.html", 5),
        ("https://localhost:8000/x", 6),
    ]
    assert specs[0].options == SiteOptions()
    assert specs[1].options == SiteOptions(max_pages=200, depth=4)
    assert specs[2].options == SiteOptions(delay=1.5, concurrency=1, screenshots="group")
    assert [s.host for s in specs] == [
        "example.com",
        "127.0.0.1:8000",
        "example.org",
        "localhost:8000",
    ]
    assert [s.path_prefix for s in specs] == ["/", "/blog/", "/docs/", "/x/"]


def test_fragment_is_not_a_comment() -> None:
    specs, errors = parse_site_list("http://example.com/#top\n")
    assert errors == [] and specs[0].url == "http://example.com/"


@pytest.mark.parametrize(
    ("line", "fragment"),
    [
        ("ftp://example.com/", "unsupported scheme 'ftp'"),
        ("mailto:me@example.com", "unsupported scheme 'mailto'"),
        ("hello", "not a URL"),
        ("http:example.com", "not a URL"),
        ("http://exa mple.com/", "expected key=value"),
        ("http://example..com/", "not a valid URL"),
        ("example.com foo=1", "unknown option 'foo' (known: max_pages, depth, delay,"),
        ("example.com depth=-1", "bad value depth='-1'"),
        ("example.com max_pages=abc", "bad value max_pages='abc'"),
        ("example.com max_pages=0", "at least 1"),
        ("example.com delay=nan", "finite"),
        ("example.com delay=-2", "at least 0"),
        ("example.com delay=1e9", "at most 3600 seconds"),
        ("example.com screenshots=some", "none, group, all"),
        ("example.com depth=2 depth=3", "given twice"),
        ("example.com depth", "expected key=value"),
    ],
)
def test_bad_lines_are_reported_and_others_still_parse(line: str, fragment: str) -> None:
    specs, errors = parse_site_list(f"good.example\n{line}\nhttp://other.example/\n", "sites.txt")
    assert [s.url for s in specs] == ["https://good.example/", "http://other.example/"]
    assert len(errors) == 1
    error = errors[0]
    assert (error.line, error.text) == (2, line)
    assert fragment in error.message
    assert str(error).startswith("sites.txt:2: ")


def test_duplicate_reported_once_and_ignored() -> None:
    text = "http://example.com/\n\nHTTP://EXAMPLE.com:80/#x depth=3\nhttp://example.com/\n"
    specs, errors = parse_site_list(text, "s")
    assert [s.line for s in specs] == [1]
    assert [(e.line, e.message.split(" (")[0]) for e in errors] == [
        (3, "duplicate of line 1"),
        (4, "duplicate of line 1"),
    ]


def test_error_string_format() -> None:
    error = SiteListError("sites.txt", 3, "x foo=1", "unknown option 'foo'")
    assert str(error) == "sites.txt:3: unknown option 'foo'"


def test_crlf_and_lone_cr_line_numbers() -> None:
    _, errors = parse_site_list("a.example\r\nbad\rb.example\r\nworse")
    assert [e.line for e in errors] == [2, 4]


@pytest.mark.parametrize(
    ("start", "inside", "outside"),
    [
        (
            "http://h.example/blog/",
            [
                "http://h.example/blog/",
                "https://www.h.example/blog/a/b.html",
                "http://h.example/blog",
            ],
            ["http://h.example/", "http://h.example/blogger/", "http://other.example/blog/"],
        ),
        (
            "http://h.example/blog/index.html",
            ["http://h.example/blog/post.html"],
            ["http://h.example/about.html"],
        ),
        (
            "https://www.h.example/",
            ["http://h.example/anything?x=1", "https://WWW.H.example/a#b"],
            ["http://sub.h.example/", "http://h.example:8080/", "mailto:x@h.example"],
        ),
        (
            "http://127.0.0.1:8000/",
            ["http://127.0.0.1:8000/a"],
            ["http://127.0.0.1:8001/a", "http://127.0.0.1/a"],
        ),
    ],
)
def test_in_scope(start: str, inside: list[str], outside: list[str]) -> None:
    spec = SiteSpec.from_url(start)
    assert all(spec.in_scope(url) for url in inside), [u for u in inside if not spec.in_scope(u)]
    assert not any(spec.in_scope(url) for url in outside), [u for u in outside if spec.in_scope(u)]


def test_read_site_list(tmp_path: Path) -> None:
    path = tmp_path / "sites.txt"
    path.write_bytes("\ufeffexample.com\nbad line here\n".encode())
    specs, errors = read_site_list(path)
    assert [s.url for s in specs] == ["https://example.com/"]
    assert str(errors[0]).startswith(f"{path}:2: ")


@pytest.mark.parametrize(
    ("make", "fragment"),
    [
        (lambda p: p, "not found"),
        (lambda p: (p.mkdir(), p)[1], "directory"),
        (lambda p: (p.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00"), p)[1], "binary"),
        (lambda p: (p.write_bytes("例子.com\n".encode("gb18030")), p)[1], "not UTF-8"),
    ],
)
def test_unusable_files_raise_one_clear_line(tmp_path: Path, make, fragment: str) -> None:
    path = make(tmp_path / "sites.txt")
    with pytest.raises(SiteListFileError) as info:
        read_site_list(path)
    message = str(info.value)
    assert fragment in message and "\n" not in message and str(path) in message


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text(max_size=40),
            st.sampled_from(["example.com", "# c", "http://a.example/ depth=2", "x=1", "\ufeff"]),
        ),
        max_size=12,
    ).map("\n".join)
)
def test_never_raises_and_line_numbers_in_range(text: str) -> None:
    specs, errors = parse_site_list(text)
    count = max(len(text.splitlines()), 1)
    assert all(1 <= item.line <= count for item in [*specs, *errors])
    assert len({s.url for s in specs}) == len(specs)
