"""Near-duplicates on English and Chinese pairs; exact and unchanged content
through the dedup and store pipelines on a real database."""

from __future__ import annotations

import pytest
from scrapy import Spider
from scrapy.utils.test import get_crawler
from sqlalchemy import select

from crawler.items import PageItem
from extractors.minhash import band_keys, jaccard, signature, text_hash
from pipelines.dedup import DedupConfig, DedupPipeline
from pipelines.schema import article_versions, articles, connect
from pipelines.store import StorePipeline

EN = (
    "The city council voted on Tuesday to expand the bus network with six new routes serving "
    "the northern suburbs, a plan that officials say will cut commuting times by a quarter. "
    "The routes will start operating in March, and fares will remain unchanged for the first "
    "year. Residents who attended the meeting welcomed the decision but asked for more "
    "frequent evening services."
)
EN_EDITED = (
    EN.replace("on Tuesday", "on Tuesday evening").replace("welcomed", "largely welcomed")
    + " Reporting by Jane Doe."
)
EN_OTHER = (
    "The city council voted on Tuesday to close two public libraries in the northern suburbs, "
    "a plan that officials say will save money. Librarians protested outside the town hall "
    "and a petition against the closures has gathered thousands of signatures since the "
    "proposal was first announced in the spring."
)
ZH = (
    "市政府周二宣布，将在北部郊区新开六条公交线路，官员表示这一计划将把通勤时间缩短四分之一。"
    "新线路将于三月开始运营，首年票价保持不变。出席会议的居民对这一决定表示欢迎，但希望增加晚间班次。"
)
ZH_SYNDICATED = (
    "市政府周二正式宣布，将在北部郊区新开六条公交线路，官员表示，这一计划将把通勤时间缩短约四分之一。"
    "新线路将于三月开始运营，首年票价保持不变。出席会议的居民对这一决定表示欢迎，但希望增加晚间班次。"
    "（来源：新华社）"
)
ZH_OTHER = (
    "市政府周二宣布，将关闭北部郊区的两座公共图书馆，官员表示此举可以节省开支。"
    "图书馆员在市政厅外抗议，反对关闭的请愿书自春季提出以来已征集到数千个签名。"
)


@pytest.mark.parametrize(
    ("a", "b", "near"),
    [
        (EN, EN_EDITED, True),
        (EN, EN_OTHER, False),
        (ZH, ZH_SYNDICATED, True),
        (ZH, ZH_OTHER, False),
    ],
)
def test_minhash_separates_light_edits_from_other_articles(a: str, b: str, near: bool) -> None:
    sa, sb = signature(a), signature(b)
    assert sa is not None and sb is not None
    threshold = DedupConfig("sqlite://").near_threshold
    assert (jaccard(sa, sb) >= threshold) is near
    assert bool(set(band_keys(sa)) & set(band_keys(sb))) is near  # found through the index


def test_exact_hash_ignores_whitespace_but_not_words() -> None:
    assert text_hash("a  b\n c") == text_hash("a b c")
    assert text_hash("a b c") != text_hash("a b d")
    assert signature("too short") is None


def _pipelines(url: str, **settings: object) -> tuple[DedupPipeline, StorePipeline]:
    crawler = get_crawler(Spider, {"SITESIFT_DB": url, "SITESIFT_STORE_BATCH": 1, **settings})
    crawler.spider = Spider(name="site")
    dedup = DedupPipeline.from_crawler(crawler)
    store = StorePipeline.from_crawler(crawler)
    store.flush_seconds = 0
    store.open_spider(crawler.spider)
    dedup.open_spider(crawler.spider)
    return dedup, store


def _article(url: str, text: str, title: str = "T") -> PageItem:
    return PageItem(url=url, site="h", status=200, html=f"<p>{text}</p>", title=title,
                    content_hash=text_hash(text), text=text, page_type="article")  # fmt: skip


def _run(pipes: tuple[DedupPipeline, StorePipeline], *items: PageItem) -> None:
    dedup, store = pipes
    for item in items:
        store.process_item(dedup.check(item))


def test_the_store_keeps_the_signature_the_duplicate_check_made(tmp_path) -> None:
    """The stored MinHash is the one the dedup pipeline computed with the
    crawl's shingle setting (a later run looks near-copies up with it), not
    one made again with the defaults."""
    from extractors.minhash import MinHashParams, unpack

    url = f"sqlite:///{tmp_path / 'd.db'}"
    _run(_pipelines(url, SITESIFT_DEDUP_SHINGLE=5), _article("http://h/a", EN))
    stored = _articles(url)["http://h/a"]
    assert unpack(stored.minhash) == signature(EN, MinHashParams(shingle=5))
    assert unpack(stored.minhash) != signature(EN)
    assert stored.text_hash == text_hash(EN)


def _articles(url: str) -> dict[str, object]:
    engine = connect(url)
    with engine.connect() as conn:
        rows = {r.url: r for r in conn.execute(select(articles)).all()}
    engine.dispose()
    return rows


def test_duplicates_are_linked_not_stored_twice(db_url: str) -> None:
    pipes = _pipelines(db_url)
    _run(pipes, _article("http://h/en", EN), _article("http://h/zh", ZH))
    pipes[1].close_spider()
    # A second crawl: the copies are found in the database, not in memory.
    pipes = _pipelines(db_url)
    _run(
        pipes,
        _article("http://h/en-copy", EN.replace(" ", "  ")),
        _article("http://h/en-edit", EN_EDITED),
        _article("http://h/en-other", EN_OTHER),
        _article("http://h/zh-synd", ZH_SYNDICATED),
        _article("http://h/zh-other", ZH_OTHER),
    )
    pipes[1].close_spider()
    rows = _articles(db_url)
    assert rows["http://h/en-copy"].duplicate_of == "http://h/en"
    assert rows["http://h/en-copy"].text is None  # the original holds the text
    assert rows["http://h/en-edit"].duplicate_of == "http://h/en"
    assert 0.5 <= rows["http://h/en-edit"].similarity < 1.0
    assert rows["http://h/en-edit"].text == EN_EDITED
    assert rows["http://h/zh-synd"].duplicate_of == "http://h/zh"
    assert rows["http://h/en-other"].duplicate_of is None
    assert rows["http://h/zh-other"].duplicate_of is None


def test_duplicates_within_one_batchless_run_are_found_in_memory(tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'd.db'}"
    dedup, store = _pipelines(url)
    store.config = type(store.config)(db_url=url, batch=100, flush_seconds=0)
    _run((dedup, store), _article("http://h/1", ZH), _article("http://h/2", ZH_SYNDICATED))
    assert dedup.index.by_hash  # nothing flushed yet
    store.close_spider()
    assert _articles(url)["http://h/2"].duplicate_of == "http://h/1"


def test_copies_keep_their_text_when_the_original_changes(db_url: str) -> None:
    """Exact copies store no text; when their original's text changes, the
    first copy takes the text it copies and becomes the original of the rest."""
    pipes = _pipelines(db_url)
    _run(pipes, *(_article(f"http://h/{name}", EN) for name in ("orig", "c1", "c2")))
    pipes[1].close_spider()
    assert _articles(db_url)["http://h/c1"].text is None
    pipes = _pipelines(db_url)
    _run(pipes, _article("http://h/orig", EN_OTHER))  # the original now says something else
    pipes[1].close_spider()
    rows = _articles(db_url)
    assert (rows["http://h/orig"].text, rows["http://h/orig"].duplicate_of) == (EN_OTHER, None)
    assert (rows["http://h/c1"].text, rows["http://h/c1"].duplicate_of) == (EN, None)
    assert (rows["http://h/c2"].text, rows["http://h/c2"].duplicate_of) == (None, "http://h/c1")
    # The heir is indexed: a later near-copy of its text finds it.
    pipes = _pipelines(db_url)
    _run(pipes, _article("http://h/c3", EN_EDITED))
    pipes[1].close_spider()
    assert _articles(db_url)["http://h/c3"].duplicate_of == "http://h/c1"


def test_versions_only_when_cleaned_text_changes(db_url: str) -> None:
    pipes = _pipelines(db_url)
    _run(pipes, _article("http://h/a", EN, title="v1"))
    _run(pipes, _article("http://h/a", EN, title="v1"))  # refetched, same text
    _run(pipes, _article("http://h/a", EN_OTHER, title="v2"))  # the text changed
    pipes[1].close_spider()
    row = _articles(db_url)["http://h/a"]
    assert (row.version, row.title, row.text, row.duplicate_of) == (2, "v2", EN_OTHER, None)
    engine = connect(db_url)
    with engine.connect() as conn:
        old = conn.execute(select(article_versions)).all()
    engine.dispose()
    assert [(v.url, v.version, v.title, v.text) for v in old] == [("http://h/a", 1, "v1", EN)]


def test_threshold_is_validated() -> None:
    crawler = get_crawler(Spider, {"SITESIFT_DEDUP_NEAR_THRESHOLD": 1.5})
    with pytest.raises(ValueError, match="NEAR_THRESHOLD"):
        DedupPipeline.from_crawler(crawler)


def test_memory_index_is_bounded() -> None:
    from pipelines.dedup import Index

    index = Index(limit=2)
    sigs = [signature(t) for t in (EN, ZH, EN_OTHER)]
    for i, sig in enumerate(sigs):
        index.add(f"u{i}", f"h{i}", sig, band_keys(sig))
    assert set(index.signatures) == {"u1", "u2"} and "h0" not in index.by_hash
    assert all("u0" not in urls for urls in index.by_key.values())
    assert set(index.candidates("x", band_keys(signature(ZH_SYNDICATED)))) == {"u1"}


def test_workers_share_duplicates_through_redis(
    tmp_path,
    redis_url: str,
    crawl_id: str,
) -> None:
    """Two workers of a distributed crawl (two pipelines, real Redis) each get
    a copy of one text before either is stored: one original, one duplicate;
    near copies (an edited English story, a syndicated Chinese one) too."""
    url = f"sqlite:///{tmp_path / 'd.db'}"
    settings = {"SITESIFT_DB": url, "SITESIFT_STORE_BATCH": 100, "SITESIFT_STORE_FLUSH_SECONDS": 0,
                "SITESIFT_REDIS_URL": redis_url, "SITESIFT_CRAWL_ID": crawl_id}  # fmt: skip
    workers = []
    for _ in range(2):
        crawler = get_crawler(Spider, settings)
        crawler.spider = Spider(name="site")
        dedup, store = DedupPipeline.from_crawler(crawler), StorePipeline.from_crawler(crawler)
        store.open_spider(crawler.spider)
        dedup.open_spider(crawler.spider)
        workers.append((dedup, store))
    # Both copies go through dedup before either worker's batch is stored
    # (the crawl_id fixture clears the crawl's Redis keys afterwards).
    _run(workers[0], _article("http://h/a", EN))
    _run(workers[1], _article("http://h/b", EN.replace(" ", "  ")))
    _run(workers[1], _article("http://h/c", ZH))
    _run(workers[0], _article("http://h/a", EN))  # refetched: still the original
    _run(workers[1], _article("http://h/a-edit", EN_EDITED))
    _run(workers[0], _article("http://h/c-synd", ZH_SYNDICATED))
    _run(workers[0], _article("http://h/other", EN_OTHER))
    for dedup, store in workers:
        store.close_spider()
        dedup.close_spider()
    rows = _articles(url)
    assert rows["http://h/a"].duplicate_of is None
    assert rows["http://h/b"].duplicate_of == "http://h/a"
    assert rows["http://h/c"].duplicate_of is None
    assert rows["http://h/a-edit"].duplicate_of == "http://h/a"
    assert rows["http://h/c-synd"].duplicate_of == "http://h/c"
    assert rows["http://h/other"].duplicate_of is None
