"""DOM page-type classifier: article / list / other with a confidence."""

from __future__ import annotations

from collections import Counter

from extractors.classify import (
    Params,
    _count_in_text,
    classify,
    declares_article,
    declares_collection,
    declares_product,
    list_probability,
)
from extractors.document import Document, as_document
from extractors.result import LengthClass, PageType

PARA = (
    "The regional water authority said on Monday that reservoir levels had fallen to their "
    "lowest point in a decade, and asked households to cut their use by a fifth this summer."
)
ARTICLE = f"""<html><head><title>Reservoirs at a ten-year low</title></head><body>
<div class="nav"><a href="/">Home</a> <a href="/news">News</a> <a href="/sport">Sport</a></div>
<div class="story"><h1>Reservoirs at a ten-year low</h1>{f"<p>{PARA}</p>" * 8}</div>
</body></html>"""
LINKS = "".join(
    f'<li><a href="/story/{i}.html">Story headline number {i} about the valley and the river</a>'
    f"<span>2024-05-{i % 28 + 1:02d}</span></li>"
    for i in range(30)
)
LISTING = f"""<html><head><title>Latest news</title></head><body><h1>Latest news</h1>
<ul class="stories">{LINKS}</ul></body></html>"""


def test_article_page() -> None:
    result = classify(ARTICLE)
    assert result.page_type is PageType.ARTICLE
    assert 0.5 <= result.confidence <= 1.0
    assert result.length_class is LengthClass.LONG


def test_list_page() -> None:
    result = classify(LISTING)
    assert result.page_type is PageType.LIST
    assert result.confidence >= 0.5
    assert result.list_probability >= 0.5


def test_declared_article_lowers_list_probability() -> None:
    declared = LISTING.replace("<head>", '<head><meta property="og:type" content="article">')
    assert declares_article(as_document(declared))
    assert not declares_article(as_document(LISTING))
    assert classify(declared).list_probability < classify(LISTING).list_probability


def test_a_declared_thread_is_an_article_however_its_posts_repeat() -> None:
    # The listing's markup, declared one discussion: its entries are posts.
    ld = '{"@context": "https://schema.org", "@type": "DiscussionForumPosting"}'
    thread = LISTING.replace("<head>", f'<head><script type="application/ld+json">{ld}</script>')
    assert classify(LISTING).page_type is PageType.LIST
    result = classify(thread)
    assert result.page_type is PageType.ARTICLE
    assert result.confidence >= Params().declared_thread_confidence


def test_empty_error_and_login_pages_are_other() -> None:
    assert classify("").page_type is PageType.OTHER
    error = "<html><head><title>404 Not Found</title></head><body><p>Sorry, gone.</p></body></html>"
    assert classify(error).page_type is PageType.OTHER
    login = (
        "<html><head><title>Members</title></head><body><form><input name='u'>"
        "<input type='password' name='p'><button>Enter</button></form></body></html>"
    )
    assert classify(login).page_type is PageType.OTHER


def test_probability_is_bounded_and_monotone_in_prior() -> None:
    x = [1.0] * len(Params().weights)
    assert 0.0 <= list_probability(x) <= 1.0
    assert list_probability(x, prior=-2.0) < list_probability(x)
    assert list_probability([1e9] * len(x)) <= 1.0


def test_shipped_weights_match_the_features() -> None:
    from extractors.classify import FEATURES, features

    doc = as_document(LISTING)
    assert len(Params().weights) == len(FEATURES)
    assert len(features(doc, 100, (0.5, 2, False))) == len(FEATURES)


def test_url_shape_item_versus_section() -> None:
    from extractors.classify import _is_item_url, page_url

    assert _is_item_url("https://example.org/2024/05/river-levels-fall-again-this-week")
    assert _is_item_url("/news/content_20240503123.htm")
    assert _is_item_url("https://example.org/story/8812345")
    assert not _is_item_url("https://example.org/news/")
    assert not _is_item_url("https://example.org/sport")
    assert _is_item_url("https://example.org/news/story-2024.html")
    assert not _is_item_url("https://example.org/news/index.html")
    assert not _is_item_url("https://example.org/news/2024/index.html")
    # An opaque id is an item; a word with digits is a section's name.
    assert _is_item_url("https://news.example.cn/c/7kQcQG2peWU")
    assert _is_item_url("https://example.org/v/JU5S83IC00259DLP")
    assert not _is_item_url("https://example.org/g20summit")
    assert not _is_item_url("https://example.org/tag/covid19")
    # A long token (a tracking link's base64) is read in linear time: the
    # regex this replaced took seconds on this one (cubic backtracking).
    token = "eyJ2IjoiMSIsImFiYyI6" * 200
    assert not _is_item_url(f"https://example.org/113={token}")
    assert _is_item_url(f"https://example.org/113={token}9.html")
    canonical = '<html><head><link rel="canonical" href="https://example.org/news/"></head>'
    assert page_url(as_document(canonical + "<body><p>x</p></body></html>")) == (
        "https://example.org/news/"
    )
    assert page_url(as_document(canonical, "https://example.org/a")) == "https://example.org/a"


def test_an_address_naming_an_index() -> None:
    from extractors.classify import _names_an_index

    assert _names_an_index("https://shop.example.com/collections/mens-sneakers")
    assert _names_an_index("https://example.com/category/recipes/air-fryer/")
    assert _names_an_index("https://example.com/browse/shoes/mens/sneakers?page=2")
    assert _names_an_index("https://example.org/tag/covid19")
    # An item under an index, a forum's thread, a section: no index named.
    assert not _names_an_index("https://example.com/shop/blue-ceramic-mug-with-handle")
    assert not _names_an_index("https://forum.example.com/topic/1666")
    assert not _names_an_index("https://example.org/news/")


def test_pagination_is_seen() -> None:
    from extractors.classify import _pagination

    pager = "".join(f'<a href="?page={i}">{i}</a> ' for i in range(1, 6))
    assert _pagination(as_document(f"<html><body><p>x</p><div>{pager}</div></body></html>"))
    assert _pagination(as_document('<html><body><a href="/p2">Next</a></body></html>'))
    assert not _pagination(as_document(ARTICLE))


def test_fit_recovers_a_separable_rule() -> None:
    import numpy as np

    from training.pagetype.dom import _prob, fit

    rng = np.random.default_rng(0)
    raw = rng.normal(size=(200, 2)) * [1.0, 50.0] + [0.0, 100.0]
    x = np.hstack([np.ones((200, 1)), raw])
    y = (raw[:, 0] + (raw[:, 1] - 100.0) / 50.0 > 0).astype(float)
    w = fit(x, y, l2=1e-3)
    assert ((_prob(x, w) >= 0.5) == (y == 1)).mean() > 0.95


def test_a_document_is_classified_once(monkeypatch) -> None:
    """The crawl classifies a page in its analysis job and again in auto:
    the second call reuses the features and CETD's length."""
    import extractors.classify as classify_module
    from extractors import extract

    calls: list[int] = []
    features = classify_module.features
    monkeypatch.setattr(
        classify_module, "features", lambda *a, **k: calls.append(1) or features(*a, **k)
    )
    doc = as_document(LISTING, "https://example.org/news/")
    first = classify(doc)
    assert extract(doc).page_type is first.page_type is PageType.LIST
    assert classify(doc) == first
    assert len(calls) == 1


def test_the_article_methods_agree_on_an_article_not_on_a_list() -> None:
    """The model's consensus inputs: one body the methods agree on, with
    long lines and its own headline, on an article; no such body on a
    headline list."""
    from extractors.auto import consensus_signals

    agreement, long_lines, teaser = consensus_signals(as_document(ARTICLE))
    assert agreement > 0.8 and long_lines == 8 and not teaser
    listed, listed_long, _ = consensus_signals(as_document(LISTING))
    assert listed_long == 0 and listed < agreement


def test_the_article_methods_run_once_for_classify_and_extract(monkeypatch) -> None:
    """classify() reads the article methods' consensus; auto then extracts
    from the same outputs instead of running the methods again."""
    import extractors
    from extractors import extract

    calls: Counter[str] = Counter()
    for name in ("cetd", "scedd", "awce", "layout", "justext", "boilerpipe"):
        method = extractors.method_function(name)
        monkeypatch.setitem(
            extractors._FUNCTIONS,  # what auto calls
            name,
            lambda *a, _n=name, _m=method, **k: calls.update([_n]) or _m(*a, **k),
        )
    doc = as_document(ARTICLE, "https://example.org/news/reservoirs.html")
    classify(doc, "https://example.org/news/reservoirs.html")
    ran = dict(calls)
    assert len(ran) >= 5 and set(ran.values()) == {1}
    assert extract(doc).page_type is PageType.ARTICLE
    assert calls == ran


SHOP_CARDS = "".join(
    f'<div class="tile"><a href="/p/{i}"><img src="/i/{i}.jpg" alt=""></a>'
    f'<a href="/p/{i}">Trail shoe {i}</a><span class="cost">${49 + i}.99</span></div>'
    for i in range(16)
)
SHOP = f"""<html><head><title>Running shoes</title></head><body><h1>Running shoes</h1>
<p>Light shoes for road and trail, in every size.</p>
<div class="grid">{SHOP_CARDS}</div></body></html>"""


def test_a_shop_grid_of_priced_items_is_a_list() -> None:
    # Short product names, no dates: the prices (one per card) say list.
    result = classify(SHOP)
    assert result.page_type is PageType.LIST
    without_prices = SHOP.replace("$", "size ")
    assert classify(without_prices).list_probability < result.list_probability


def test_prices_are_counted_in_any_currency_and_dates_beside_them() -> None:
    doc = as_document(
        "<html><body><p>$19.99, US$ 5, € 25, 25 EUR, 1,299 元, ¥3,500 and 2,000 USD. "
        "Posted 2024-05-03; in 2019 there were 30 of them.</p></body></html>"
    )
    assert _count_in_text(doc.body) == (1, 7)
    # counted alike across chunk boundaries
    assert _count_in_text(doc.body, chunk_chars=8) == (1, 7)


def test_a_page_declares_one_product_or_a_collection() -> None:
    def head(meta: str) -> Document:
        return as_document(f"<html><head>{meta}</head><body><p>x</p></body></html>")

    og = '<meta property="og:type" content="{}">'
    group = head(og.format("product.group"))
    assert declares_collection(group) and not declares_product(group)
    for kind in ("product", "og:product", "product.item"):
        one = head(og.format(kind))
        assert declares_product(one) and not declares_collection(one), kind
    ld = '<script type="application/ld+json">{{"@type": "{}"}}</script>'
    assert declares_collection(head(ld.format("CollectionPage")))
    assert declares_collection(head(ld.format("ItemList")))
    assert not declares_collection(head(ld.format("BreadcrumbList")))
    assert not declares_collection(head(og.format("website")))
