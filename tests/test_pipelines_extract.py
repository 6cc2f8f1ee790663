"""The analyse pipeline (classify, then extract) on a real crawl of the demo web: every
stored article carries its body, title, date and author from the demo's
ground truth; list pages carry their records. Plus the pipelines' parts
(settings, reference cache, group reuse, screenshot combination)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from scrapy.settings import Settings

from benchmarks.metrics import lcs_prf
from demo.server import DemoWeb
from extractors.classify import Classification
from extractors.result import LengthClass, PageType
from pipelines.classify import ClassifyConfig, GroupTypes, combine, with_group
from pipelines.extract import ExtractConfig, ReferenceCache

WEB = Path(__file__).resolve().parents[1] / "demo" / "web"
SITES = ("en", "zh")


@dataclass
class Crawl:
    items: dict[str, dict]  # by URL
    expected: dict[str, dict[str, dict]]
    base: dict[str, str]

    def item(self, site: str, path: str) -> dict:
        return self.items[self.base[site].rstrip("/") + path]


@pytest.fixture(scope="module")
def crawl(tmp_path_factory: pytest.TempPathFactory) -> Crawl:
    tmp = tmp_path_factory.mktemp("extract")
    feed = tmp / "items.jsonl"
    with DemoWeb(sites=SITES) as web:
        sites = web.write_site_list(tmp / "sites.txt")
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "crawler.cli",
                "crawl",
                str(sites),
                "--db",
                f"sqlite:///{tmp / 'crawl.db'}",
                "-O",
                str(feed),
                "-s",
                "AUTOTHROTTLE_START_DELAY=0",
                "-s",
                "DOWNLOAD_DELAY=0",
                # Extraction is judged on the HTTP bytes; browser-rendered
                # pages are the screenshot stage's business.
                "-s",
                "SITESIFT_SCREENSHOTS=none",
                # The default on more than one CPU: the job in worker processes.
                "-s",
                "SITESIFT_EXTRACT_PROCESSES=2",
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        base = dict(web.urls)
    items = {}
    for line in feed.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        items[item["url"]] = item
    expected = {
        s: json.loads((WEB / s / "_expected.json").read_text(encoding="utf-8"))["pages"]
        for s in SITES
    }
    return Crawl(items, expected, base)


def _decoded(item: dict, page: dict) -> bool:
    """Whether the crawl decoded the page with the right codec family
    (decoding is tests/test_crawl.py's promise; extraction is judged here)."""
    want = page.get("encoding", "utf-8").lower()
    got = (item.get("encoding") or "").lower()
    family = {"gbk": "gb", "gb2312": "gb", "gb18030": "gb", "big5": "big5", "big5hkscs": "big5"}
    return family.get(want, want) == family.get(got, got)


def _pages(crawl: Crawl, kind: str):
    for site in SITES:
        for path, page in crawl.expected[site].items():
            if page.get("kind") == kind and page.get("expect") == "stored":
                yield site, path, page


def _norm(text: str | None) -> str:
    return re.sub(r"\W+", "", text or "").lower()


def test_articles_have_body_title_date_author(crawl: Crawl) -> None:
    articles = list(_pages(crawl, "article"))
    assert len(articles) >= 20
    for site, path, page in articles:
        item = crawl.item(site, path)
        where = f"{site}{path}"
        if not _decoded(item, page):
            continue
        assert item["page_type"] == "article", (where, item["method"])
        assert item["method"].startswith("auto"), where
        f1 = lcs_prf(item["text"] or "", page["body"])[2]
        assert f1 >= 0.8, (where, f1, item["text"][:200])
        assert _norm(item["title"]) == _norm(page["title"]), where
        assert (item["published"] or "")[:10] == page["published"][:10], where
        author = _norm(item["author"])
        assert author and author in _norm(page["author"]), (where, item["author"])
        assert item["language"] == site


def test_mean_article_body_f1_is_high(crawl: Crawl) -> None:
    scores = [
        lcs_prf(crawl.item(s, p)["text"] or "", page["body"])[2]
        for s, p, page in _pages(crawl, "article")
        if _decoded(crawl.item(s, p), page)
    ]
    assert len(scores) >= 20
    assert sum(scores) / len(scores) >= 0.95


def test_list_pages_hold_their_records(crawl: Crawl) -> None:
    lists = [(s, p, page) for s, p, page in _pages(crawl, "list") if len(page["items"]) >= 3]
    assert len(lists) >= 5
    missed = []
    for site, path, page in lists:
        item = crawl.item(site, path)
        if item["page_type"] != "list":
            # Borderline: a section index of three entries with snippets can
            # read as one text; at most one such page is tolerated.
            missed.append((site, path, item["method"]))
            continue
        urls = [r["url"] for r in item["records"] or []]
        for expected in page["items"]:
            assert any(u and u.endswith(expected) for u in urls), (site, path, expected, urls)
        assert _norm(item["title"]) == _norm(page["title"])
    assert len(missed) <= 1, missed


# -- the parts, without a crawl ---------------------------------------------------


def test_a_single_method_crawl_extracts_every_page_of_a_group(tmp_path: Path) -> None:
    """The analyse pipeline hands every method the reference pages of the URL
    group; a method that compares no pages (cetd) ignores them. It raised
    TypeError on every page after the first of its group."""
    feed = tmp_path / "items.jsonl"
    with DemoWeb(sites=("en",)) as web:
        sites = web.write_site_list(tmp_path / "sites.txt")
        proc = subprocess.run(
            [sys.executable, "-m", "crawler.cli", "crawl", str(sites),
             "--db", f"sqlite:///{tmp_path / 'crawl.db'}", "-O", str(feed),
             "-s", "SITESIFT_EXTRACT_METHOD=cetd", "-s", "SITESIFT_SCREENSHOTS=none",
             "-s", "SITESIFT_MAX_PAGES=20", "-s", "AUTOTHROTTLE_START_DELAY=0",
             "-s", "DOWNLOAD_DELAY=0"],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "extract failed" not in proc.stderr, proc.stderr[-3000:]
    items = [json.loads(line) for line in feed.read_text(encoding="utf-8").splitlines()]
    extracted = [i for i in items if i.get("outcome") == "ok" and i.get("method") == "cetd"]
    groups = {i.get("url_group") for i in extracted}
    assert len(extracted) >= 10 and len(groups) < len(extracted), [i["url"] for i in items]


def test_settings_are_validated() -> None:
    assert ExtractConfig.from_settings(Settings()).method == "auto"
    with pytest.raises(ValueError, match="not one of"):
        ExtractConfig.from_settings(Settings({"SITESIFT_EXTRACT_METHOD": "magic"}))
    with pytest.raises(ValueError):
        ClassifyConfig.from_settings(Settings({"SITESIFT_CLASSIFY_GROUP_OVERRIDE": 0.2}))


def test_reference_cache_is_bounded_and_skips_the_page_itself() -> None:
    cache = ReferenceCache(per_group=2, max_groups=2)
    for i in range(3):
        cache.add("g1", f"u{i}", f"<p>{i}</p>")
    assert cache.get("g1", "u2") == ["<p>1</p>"]
    cache.add("g2", "a", "x")
    cache.add("g3", "b", "y")
    assert len(cache) == 2 and cache.get("g1", "zz") == []
    assert cache.get(None, "u") == []


def test_screenshot_decision_is_stacked_with_the_dom() -> None:
    """The pipeline combines by extractors.visual's stack (fitted on validation
    pages), no longer by the 50/50 average of the two P(list)."""
    from extractors.visual import Stack

    dom = Classification(PageType.ARTICLE, 0.6, LengthClass.LONG, 0.4)
    assert combine(dom, None) is dom
    both = combine(dom, 0.95)
    s = Stack()
    z = s.bias + s.dom_weight * np.log(0.4 / 0.6) + s.visual_weight * np.log(0.95 / 0.05)
    assert both.list_probability == pytest.approx(1 / (1 + np.exp(-z)))
    assert both.list_probability != pytest.approx(0.675)  # the former average
    assert both.page_type is (PageType.LIST if z >= 0 else PageType.ARTICLE)
    assert combine(dom, 0.1).page_type is PageType.ARTICLE
    # A confident DOM list is not overruled by a confident screenshot article.
    sure = Classification(PageType.LIST, 0.95, LengthClass.LONG, 0.95)
    assert combine(sure, 0.05).page_type is PageType.LIST


@pytest.mark.parametrize("where", ["memory", "redis"])
def test_group_decision_is_reused_unless_the_dom_is_sure(where: str) -> None:
    config = ClassifyConfig(group_override=0.9)
    groups = GroupTypes(config.max_groups)
    if where == "redis":  # a distributed crawl: the decision is shared by every worker
        from crawler.distributed import Keys, SharedState
        from tests.dbtools import delete_crawl_keys, new_crawl_id, redis_server

        server = redis_server()
        keys = Keys(new_crawl_id())
        groups = GroupTypes(config.max_groups, SharedState(server, keys))
        other_worker = SharedState(server, keys)

    def page(group: str | None, decision: Classification) -> PageType:
        """One page, as the pipeline sees it: the group's type is read before
        the worker decides, and learnt after."""
        known = groups.known(group)
        page_type = with_group(decision, known, config)
        groups.learn(group, known, decision, page_type)
        return page_type

    first = Classification(PageType.LIST, 0.8, None, 0.8)
    unsure = Classification(PageType.ARTICLE, 0.6, None, 0.4)
    sure = Classification(PageType.ARTICLE, 0.95, None, 0.05)
    other = Classification(PageType.OTHER, 0.99, None, 0.0)
    assert page("g", first) is PageType.LIST
    assert page("g", unsure) is PageType.LIST
    assert page("g", other) is PageType.OTHER  # an error page is its own
    assert page("g", unsure) is PageType.LIST  # ...and teaches the group nothing
    assert page("g", sure) is PageType.ARTICLE
    assert page("g", unsure) is PageType.ARTICLE  # the sure page taught the group
    assert page(None, unsure) is PageType.ARTICLE
    if where == "redis":
        assert other_worker.get("pagetype", "g") == "article"
        delete_crawl_keys(server, keys.crawl)
