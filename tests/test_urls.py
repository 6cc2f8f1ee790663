from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.provisional import urls as hypothesis_urls

from crawler.urls import TRACKING_PARAMS, canonicalize_url, host_of


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("HTTP://Example.COM/a", "http://example.com/a"),
        ("http://example.com", "http://example.com/"),
        ("http://example.com:80/a", "http://example.com/a"),
        ("https://example.com:443/a", "https://example.com/a"),
        ("https://example.com:80/a", "https://example.com:80/a"),
        ("http://example.com:08080/", "http://example.com:8080/"),
        ("http://example.com./a", "http://example.com/a"),
        ("http://example.com/a#section", "http://example.com/a"),
        ("http://example.com/a/./b/../c", "http://example.com/a/c"),
        ("http://example.com/a/b/..", "http://example.com/a/"),
        ("http://example.com/../../x", "http://example.com/x"),
        ("http://example.com/a/%2e%2E/b", "http://example.com/b"),
        ("http://example.com/blog/", "http://example.com/blog/"),
        ("http://example.com/blog", "http://example.com/blog"),
        ("http://example.com//double//", "http://example.com//double//"),
        ("http://example.com/%7euser/%41%2f", "http://example.com/~user/A%2F"),
        ("http://example.com/a%2fb", "http://example.com/a%2Fb"),
        ("http://example.com/100%", "http://example.com/100%25"),
        ("http://example.com/a b", "http://example.com/a%20b"),
        ("http://example.com/新闻/", "http://example.com/%E6%96%B0%E9%97%BB/"),
        ("http://example.com/?b=2&a=1&a=0", "http://example.com/?a=0&a=1&b=2"),
        ("http://example.com/?", "http://example.com/"),
        ("http://example.com/?&&", "http://example.com/"),
        ("http://example.com/?q=a+b&x=%2B", "http://example.com/?q=a+b&x=%2B"),
        ("http://example.com/?flag&empty=", "http://example.com/?empty=&flag"),
        ("http://example.com/?q=%e4%b8%ad", "http://example.com/?q=%E4%B8%AD"),
        ("http://example.com/?q=中", "http://example.com/?q=%E4%B8%AD"),
        ("  http://example.com/a\n\tb  ", "http://example.com/ab"),
        ("http:\\\\example.com\\a\\b?x=\\", "http://example.com/a/b?x=%5C"),
        ("http://münchen.de/", "http://xn--mnchen-3ya.de/"),
        ("http://[0:0::1]:8000/x", "http://[::1]:8000/x"),
        ("http://user:pw@example.com/", "http://user:pw@example.com/"),
    ],
)
def test_canonical_forms(url: str, expected: str) -> None:
    assert canonicalize_url(url) == expected


def test_tracking_parameters_dropped_content_parameters_kept() -> None:
    url = (
        "https://example.com/a?utm_source=x&UTM_Medium=y&gclid=1&fbclid=2&msclkid=3"
        "&spm=a.b.c&_ga=4&id=7&ref=home&page=2"
    )
    assert canonicalize_url(url) == "https://example.com/a?id=7&page=2&ref=home"
    assert {"gclid", "fbclid", "msclkid", "mc_cid", "mc_eid", "yclid", "_ga"} <= TRACKING_PARAMS
    assert not {"id", "ref", "page", "p", "q", "source", "from"} & TRACKING_PARAMS


@pytest.mark.parametrize(
    ("url", "canonical"),
    [
        ("http://example.com/a?PHPSESSID=abc&id=7", "http://example.com/a?id=7"),
        ("http://example.com/a;jsessionid=0AF3B2?id=7", "http://example.com/a?id=7"),
        ("http://example.com/a?sid=9f86d081884c7d65&id=7", "http://example.com/a?id=7"),
        ("http://example.com/a?sid=a1B2c3D4e5F6g7H8i9J0k", "http://example.com/a"),
        # ``sid`` that is not an opaque token names content (a story, a station).
        ("http://example.com/a?sid=08/01/02/1234", "http://example.com/a?sid=08/01/02/1234"),
        ("http://example.com/a?sid=42", "http://example.com/a?sid=42"),
    ],
)
def test_session_ids_dropped(url: str, canonical: str) -> None:
    assert canonicalize_url(url) == canonical


def test_only_tracking_query_leaves_no_question_mark() -> None:
    assert canonicalize_url("http://example.com/a?utm_campaign=z") == "http://example.com/a"


@pytest.mark.parametrize(
    ("url", "base", "expected"),
    [
        ("../c.html", "http://example.com/a/b/page.html", "http://example.com/a/c.html"),
        ("c.html?x=1#f", "http://example.com/a/b", "http://example.com/a/c.html?x=1"),
        ("/root", "https://example.com/a/", "https://example.com/root"),
        ("//other.org/x", "https://example.com/", "https://other.org/x"),
        ("?page=2", "http://example.com/list/", "http://example.com/list/?page=2"),
        ("#top", "http://example.com/a", "http://example.com/a"),
        ("http://abs.com/", "http://example.com/", "http://abs.com/"),
    ],
)
def test_resolves_against_base(url: str, base: str, expected: str) -> None:
    assert canonicalize_url(url, base) == expected


@pytest.mark.parametrize(
    "url",
    [
        "",
        "   ",
        "javascript:alert(1)",
        "JavaScript:void(0)",
        "mailto:someone@example.com",
        "tel:+123",
        "data:text/html,<p>hi</p>",
        "ftp://example.com/file",
        "relative/path",
        "/absolute/path",
        "http://",
        "http://exa mple.com/",
        "http://example..com/",
        "http://example.com:99999/",
        "http://example.com:port/",
        "http://[::1/",
        "http://[zz::1]/",
    ],
)
def test_unusable_urls_give_none(url: str) -> None:
    assert canonicalize_url(url) is None


def test_non_http_base_does_not_make_a_relative_url_usable() -> None:
    assert canonicalize_url("page.html", "ftp://example.com/") is None
    assert canonicalize_url("mailto:a@b.c", "http://example.com/") is None


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("HTTP://Example.com:80/x", "example.com"),
        ("https://example.com:8443/x", "example.com:8443"),
        ("http://127.0.0.1:8000/", "127.0.0.1:8000"),
        ("http://user:pw@example.com/", "example.com"),
        ("mailto:a@b.c", ""),
    ],
)
def test_host_of(url: str, expected: str) -> None:
    assert host_of(url) == expected


_url_like = st.one_of(
    st.text(max_size=80),
    hypothesis_urls(),
    st.builds(
        lambda scheme, host, path, query: f"{scheme}://{host}{path}?{query}",
        st.sampled_from(["http", "HTTPS", "hTTp", "ftp"]),
        st.sampled_from(["example.com", "EXAMPLE.com:80", "[::1]", "bücher.de", "a_b.c", "x.."]),
        st.text(alphabet="/.%2eEfF:@ab中\\?#&=~ ", max_size=30),
        st.text(alphabet="=&%+abutm_gclid2中 #", max_size=30),
    ),
)


@settings(max_examples=300, deadline=None)
@given(_url_like, st.one_of(st.none(), st.just("http://base.example/dir/page.html"), _url_like))
def test_never_raises_and_is_idempotent(url: str, base: str | None) -> None:
    once = canonicalize_url(url, base)
    if once is not None:
        assert once.startswith(("http://", "https://"))
        assert once.isascii()
        assert "#" not in once
        assert canonicalize_url(once) == once
        assert host_of(once) != ""
