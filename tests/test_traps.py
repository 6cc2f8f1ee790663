"""Trap guards, Retry-After parsing and the address classifier, alone."""

from __future__ import annotations

import ipaddress
from datetime import UTC, datetime

import pytest
from scrapy.settings import Settings

from crawler.middlewares.destinations import non_public_kind
from crawler.middlewares.retry_after import retry_after_seconds
from crawler.traps import TrapGuard, TrapParams


def test_long_urls_and_repeated_segments_are_traps() -> None:
    guard = TrapGuard(TrapParams(max_url_length=60, max_segment_repeats=2))
    assert guard.check("http://a.com/news/2024/05/05/story.html") is None  # "05" twice is fine
    assert "repeated 3 times" in guard.check("http://a.com/loop/loop/loop/")
    assert "repeated" in guard.check("http://a.com/a/b/a/b/a/")
    assert "longer than 60" in guard.check("http://a.com/search?q=" + "more+" * 10)


def test_a_pattern_gets_its_share_and_no_more() -> None:
    guard = TrapGuard(TrapParams(max_group_pages=3))
    days = [f"http://a.com/calendar/2024/05/{d:02d}/" for d in range(1, 6)]
    verdicts = [guard.check(url) for url in days]
    assert verdicts[:3] == [None, None, None]
    assert all("calendar/{n}/{n}/{n}/" in v for v in verdicts[3:])
    # Another pattern of the same site still has its own budget.
    assert guard.check("http://a.com/news/2024/05/a-story.html") is None


def test_a_url_checked_again_uses_no_budget() -> None:
    """The links of a page taken over from a dead worker are checked a second
    time; counting them again made real pages of a section look like a trap."""
    guard = TrapGuard(TrapParams(max_group_pages=3))
    days = [f"http://a.com/calendar/2024/05/{d:02d}/" for d in range(1, 4)]
    assert [guard.check(url) for url in days + days] == [None] * 6
    assert guard.check("http://a.com/calendar/2024/05/04/") is not None


def test_zero_turns_a_guard_off_and_negatives_are_refused() -> None:
    guard = TrapGuard(TrapParams(max_url_length=0, max_segment_repeats=0, max_group_pages=0))
    assert guard.check("http://a.com/x/x/x/x/x/?q=" + "y" * 5000) is None
    with pytest.raises(ValueError, match="max_group_pages"):
        TrapParams.from_settings(Settings({"SITESIFT_TRAP_MAX_GROUP_PAGES": -1}))
    assert TrapParams.from_settings(Settings({"SITESIFT_TRAP_MAX_URL_LENGTH": 99})) == TrapParams(
        max_url_length=99
    )


@pytest.mark.parametrize(
    ("value", "seconds"),
    [(b"120", 120.0), ("0", 0.0), (b"Wed, 21 Oct 2015 07:28:30 GMT", 30.0),
     (b"Wed, 21 Oct 2015 07:27:00 GMT", 0.0), (b"soon", None), (None, None)],
)  # fmt: skip
def test_retry_after_values(value: bytes | str | None, seconds: float | None) -> None:
    now = datetime(2015, 10, 21, 7, 28, 0, tzinfo=UTC)
    assert retry_after_seconds(value, now=now) == seconds


@pytest.mark.parametrize(
    ("address", "kind"),
    [("127.0.0.1", "loopback"), ("::1", "loopback"), ("10.1.2.3", "private"),
     ("192.168.0.1", "private"), ("169.254.169.254", "link-local"), ("fe80::1", "link-local"),
     ("::ffff:127.0.0.1", "loopback"), ("0.0.0.0", "unspecified"), ("224.0.0.1", "multicast"),
     ("93.184.216.34", None), ("2606:4700::1111", None)],
)  # fmt: skip
def test_non_public_addresses_are_named(address: str, kind: str | None) -> None:
    """Classification only: no traffic goes to any of these addresses."""
    assert non_public_kind(ipaddress.ip_address(address)) == kind


def test_workers_share_a_patterns_budget_through_redis() -> None:
    """Two workers' guards over one crawl's Redis: together they admit a
    pattern's budget once, not once each; a URL counted by one worker is
    free for the other (its links were checked again after a takeover)."""
    from crawler.distributed import SharedState
    from tests.dbtools import crawl_state, redis_server

    server = redis_server()
    with crawl_state(server) as keys:
        a, b = (
            TrapGuard(TrapParams(max_group_pages=4), SharedState(server, keys).admit_to_pattern)
            for _ in range(2)
        )
        days = [f"http://a.com/calendar/2024/05/{d:02d}/" for d in range(1, 7)]
        assert [a.check(u) for u in days[:2]] == [None, None]
        assert [b.check(u) for u in days[:4]] == [None] * 4  # two new, two counted by a
        assert a.check(days[4]) is not None and b.check(days[5]) is not None
        assert a.check(days[3]) is None  # counted already, by b
