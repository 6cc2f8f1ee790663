from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crawler.urlgroups import GroupParams, URLGrouper, url_pattern, url_similarity

H = "http://127.0.0.1:8000"

ARTICLES = ["/news/2024/05/some-title.html", "/news/2024/06/other-story.html"]
ID_ARTICLES = ["/news/12345.html", "/news/67890.html", "/news/23456.html"]
LISTS = ["/news/", "/news/page/2/", "/news/index_2.html", "/news/?page=3", "/news/index.html"]
SPORTS = ["/sports/2024/05/big-match-report.html", "/sports/2024/07/late-winner.html"]
HOME = ["/", "/index.html"]
CHINESE = [
    "/a/20240503/123456.shtml",
    "/a/20240611/987654.shtml",
    "/n1/2024/0503/c1001-40228931.html",
    "/n1/2024/0612/c1002-40299990.html",
]
ALL = ARTICLES + ID_ARTICLES + LISTS + SPORTS + HOME + CHINESE


def _assign(urls: list[str], grouper: URLGrouper | None = None) -> dict[str, str]:
    grouper = grouper or URLGrouper()
    return {url: grouper.group(H + url) for url in urls}


def _partition(assigned: dict[str, str]) -> set[frozenset[str]]:
    by_key: dict[str, set[str]] = {}
    for url, key in assigned.items():
        by_key.setdefault(key, set()).add(url)
    return {frozenset(urls) for urls in by_key.values()}


def test_seed_similarity() -> None:
    assert url_similarity(H + "/news/2024/05/a.html", H + "/news/2024/06/b.html") == 2 / 3
    assert url_similarity(H + "/news/a.html", H + "/news/b.html") == 1.0
    assert url_similarity(H + "/news/a.html", H + "/sports/a.html") == 0.0
    assert url_similarity(H + "/l.php?a=1&b=2", H + "/l.php?a=1&b=3") == 0.5
    assert url_similarity(H + "/a/", "http://other.example/a/") == 0.0
    assert url_similarity("mailto:x@y.z", H + "/") == 0.0


def test_articles_of_a_section_share_a_readable_group() -> None:
    assigned = _assign(ALL)
    assert {assigned[u] for u in ARTICLES} == {"127.0.0.1:8000/news/{n}/{n}/{slug}.html"}
    assert {assigned[u] for u in ID_ARTICLES} == {"127.0.0.1:8000/news/{n}.html"}


def test_list_page_and_its_pagination_form_one_list_group() -> None:
    assigned = _assign(ALL)
    assert {assigned[u] for u in LISTS} == {"127.0.0.1:8000/news/"}
    assert assigned["/news/"] not in {assigned[u] for u in ARTICLES + ID_ARTICLES}


def test_sections_and_home_are_separate() -> None:
    assigned = _assign(ALL)
    assert assigned[SPORTS[0]] == assigned[SPORTS[1]] != assigned[ARTICLES[0]]
    assert {assigned[u] for u in HOME} == {"127.0.0.1:8000/"}
    assert assigned["/"] not in {assigned[u] for u in ALL if u not in HOME}


def test_chinese_numeric_ids_group_well() -> None:
    assigned = _assign(ALL)
    assert assigned[CHINESE[0]] == assigned[CHINESE[1]] == "127.0.0.1:8000/a/{date}/{n}.shtml"
    assert assigned[CHINESE[2]] == assigned[CHINESE[3]]
    assert assigned[CHINESE[2]] == "127.0.0.1:8000/n{n}/{n}/{n}/c{n}-{n}.html"


def test_hosts_and_ports_are_separate() -> None:
    grouper = URLGrouper()
    keys = {grouper.group(f"http://127.0.0.1:{port}/news/1.html") for port in (8000, 8001)}
    assert len(keys) == 2


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_order_barely_matters(seed: int) -> None:
    shuffled = ALL[:]
    random.Random(seed).shuffle(shuffled)
    assert _partition(_assign(ALL)) == _partition(_assign(shuffled))


def test_compatible_id_kinds_merge_when_directories_agree() -> None:
    grouper = URLGrouper()
    first = grouper.group(H + "/item/123456.html")
    assert grouper.group(H + "/item/5f3a9c2e1b7d4a6f8e9c0d1b.html") == first
    assert grouper.group(H + "/other/5f3a9c2e1b7d4a6f8e9c0d1b.html") != first


def test_many_literal_siblings_are_learned_as_variable() -> None:
    grouper = URLGrouper(GroupParams(literal_fanout=5))
    words = ["Python", "Java", "Rust", "Haskell", "Erlang", "Ruby", "Perl"]
    keys = [grouper.group(f"{H}/wiki/{word}") for word in words]
    assert keys[0] == "127.0.0.1:8000/wiki/Python"
    assert set(keys[4:]) == {"127.0.0.1:8000/wiki/{slug}"}
    assert grouper.groups() == {"127.0.0.1:8000/wiki/{slug}": len(words)}


def test_sections_are_not_learned_as_variable() -> None:
    grouper = URLGrouper(GroupParams(literal_fanout=3))
    keys = {grouper.group(f"{H}/{s}/") for s in ["news", "sports", "tech", "world", "arts"]}
    assert len(keys) == 5


def test_counts_and_state_round_trip() -> None:
    grouper = URLGrouper()
    _assign(ALL, grouper)
    counts = grouper.groups()
    assert sum(counts.values()) == len(ALL)
    assert counts["127.0.0.1:8000/news/"] == len(LISTS)
    restored = URLGrouper.from_dict(json.loads(json.dumps(grouper.to_dict())))
    assert restored.groups() == counts
    assert restored.group(H + "/news/2025/01/new-piece.html") == grouper.group(
        H + "/news/2025/01/new-piece.html"
    )


def test_group_cap_per_host() -> None:
    grouper = URLGrouper(GroupParams(max_groups_per_host=3))
    keys = [grouper.group(f"{H}/{name}/") for name in ["one", "two", "three", "four", "five"]]
    assert len(set(keys[:3])) == 3
    assert keys[3] == keys[4] == "127.0.0.1:8000/{other}"
    assert grouper.group(f"{H}/one/") == keys[0]


def test_url_pattern_and_invalid_urls() -> None:
    assert url_pattern(H + "/video/BV1xx411c7mD") == "127.0.0.1:8000/video/{id}"
    assert url_pattern(H + "/article.php?id=12&utm_source=x") == "127.0.0.1:8000/article.php?id={n}"
    assert URLGrouper().group("javascript:void(0)") == "(invalid)/"


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text(max_size=60),
            st.builds(
                lambda path: H + "/" + path,
                st.text(alphabet="/abc-_.%{}?&=#12中 page", max_size=40),
            ),
        ),
        max_size=25,
    )
)
def test_group_never_raises(urls: list[str]) -> None:
    grouper = URLGrouper(GroupParams(literal_fanout=2, max_groups_per_host=8))
    keys = [grouper.group(url) for url in urls]
    assert all(isinstance(key, str) and key for key in keys)
    assert sum(grouper.groups().values()) == len(urls)
    assert URLGrouper.from_dict(json.loads(json.dumps(grouper.to_dict()))).groups() == (
        grouper.groups()
    )
