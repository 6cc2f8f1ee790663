"""The scoreboard harness: timeouts, failures, grouping, aggregation, loading."""

from __future__ import annotations

import time

import pytest

from benchmarks import datasets
from benchmarks.extraction import (
    SPEED_FLOOR,
    Method,
    aggregate,
    call_with_timeout,
    group_of,
    page_input,
    resolve_methods,
    run_page,
    summarize,
)
from benchmarks.peers import PEER_MODULES, PEERS


def _page(set_name: str = "daniel-en", kind: str | None = None, **truth) -> datasets.Page:
    html = (
        b"<?xml version='1.0' encoding='utf-8'?><html><body><p>Hello world here</p></body></html>"
    )
    truth.setdefault("text", "Hello world here")
    return datasets.Page(set_name, "p1", html, truth, truth["text"], "en", kind, None)


def _echo(text: str, url: str | None, lang: str | None) -> str:
    return "Hello world here"


def _hang(text: str, url: str | None, lang: str | None) -> str:
    try:
        while True:
            time.sleep(0.01)
    except Exception:  # a method swallowing errors must still be stopped
        return "caught"


def _boom(text: str, url: str | None, lang: str | None) -> str:
    raise RuntimeError("broken")


def test_timeout_stops_a_hanging_method() -> None:
    start = time.perf_counter()
    out, seconds, status, error = call_with_timeout(_hang, ("", None, None), 0.2)
    assert (out, status) == ("", "timeout")
    assert 0.15 < seconds < 2 and time.perf_counter() - start < 2
    assert "0.2" in error


def test_failing_method_scores_zero_and_run_goes_on() -> None:
    methods = [Method("boom", "sitesift", _boom), Method("echo", "peer", _echo)]
    boom, echo = run_page(_page(), methods, timeout=5)
    assert boom.status == "error" and boom.lcs == (0.0, 0.0, 0.0)
    assert echo.status == "ok" and echo.lcs == (1.0, 1.0, 1.0)


def test_page_input_drops_xml_declaration() -> None:
    assert page_input(_page()).startswith("<html>")


def test_snippet_only_set_scores_snippets() -> None:
    page = _page("trafilatura-eval", **{"with": ["Hello world"], "without": ["nope"]})
    (score,) = run_page(page, [Method("echo", "peer", _echo)], timeout=5)
    assert score.snippets == (1, 0, 0, 1) and score.lcs is None


def test_groups() -> None:
    assert group_of(_page("wcxb-dev", "listing")) == "list"
    assert group_of(_page("wcxb-dev", "collection")) == "list"
    assert group_of(_page("wcxb-dev", "product")) == "other"
    assert group_of(_page("magic-html", "forum")) == "forum"
    assert group_of(_page("daniel-en")) is None


def test_aggregate_relative_speed_and_summary() -> None:
    floor = Method(SPEED_FLOOR, "peer", PEERS[SPEED_FLOOR])
    methods = [floor, Method("echo", "peer", _echo)]
    scores = run_page(_page("wcxb-dev", "article"), methods, timeout=5)
    scores[0].seconds, scores[1].seconds = 0.01, 0.05
    rows = aggregate(scores, methods)
    assert [(r.group, r.method) for r in rows] == [
        ("all", SPEED_FLOOR),
        ("all", "echo"),
        ("article", SPEED_FLOOR),
        ("article", "echo"),
    ]
    echo = rows[1]
    assert echo.char_f1 == 1.0 and echo.x_lxml == pytest.approx(5.0)
    assert echo.pages_per_s == pytest.approx(20.0)
    (summary,) = [s for s in summarize(rows, methods) if s["method"] == "echo"]
    assert summary["mean"] == 1.0


def test_resolve_methods_adds_speed_floor_and_rejects_unknown(monkeypatch) -> None:
    monkeypatch.setitem(PEER_MODULES, "trafilatura", "json")  # as if installed
    methods, notes = resolve_methods(["trafilatura"])
    assert [m.name for m in methods] == [SPEED_FLOOR, "trafilatura"] and notes == []
    with pytest.raises(SystemExit):
        resolve_methods(["no-such-method"])


def test_a_peer_not_installed_is_skipped_with_a_note(monkeypatch) -> None:
    """Without the bench extra a peer would score a row of zeros."""
    monkeypatch.setitem(PEER_MODULES, "trafilatura", "no_such_module_for_sitesift")
    methods, notes = resolve_methods(["trafilatura", "cetd"])
    assert [m.name for m in methods] == [SPEED_FLOOR, "cetd"]
    assert "trafilatura" in notes[0] and "not installed" in notes[0]


@pytest.mark.skipif(datasets.datasets_dir() is None, reason="shared datasets folder not found")
def test_load_orders_by_id_and_filters_kinds() -> None:
    pages = list(datasets.load("wcxb-dev", 5, kinds=["listing", "collection"]))
    assert len(pages) == 5
    assert [p.id for p in pages] == sorted(p.id for p in pages)
    assert {p.kind for p in pages} <= {"listing", "collection"}
    daniel = next(datasets.load("daniel-zh", 1))
    assert daniel.title and not daniel.truth_text.startswith(daniel.title)
    assert daniel.lang == "zh" and daniel.html.lstrip()[:1] == b"<"
