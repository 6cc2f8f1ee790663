"""Page type (article / list / other) and body length (short / long) from the
DOM alone, each with a confidence.

Article or list is a logistic model over scale-free measures of where the
page's text sits: in paragraphs of one dense block (articles) or in a
repeated group of link-bearing records (lists), plus how those records look
(a headline-length link, a date each), paragraph and heading shape,
pagination, and the URL shape of the page and of its headline links (a slug
or id = one item; a short word = a section). The weights are fitted by
``python -m training.pagetype dom`` on training pages only and shipped in
``models/pagetype_dom.json``. A page whose metadata declares one discussion
(a forum thread, a question and its answers) is an article, as auto extracts
it. Pages with almost no text, or an error or login page, are "other".
Length is SCEDD's rule (rough text under 450 bytes is short). A screenshot
classifier's P(list) is combined with this one's by
``extractors.visual.combine`` (a logistic stack of the two log-odds, fitted
on validation pages; see ``docs/screenshots.md``).
"""

from __future__ import annotations

import itertools
import json
import math
import re
import string
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

from lxml import etree

from .dates import DATE_IN_TEXT
from .document import Document, as_document, text_pieces
from .listing import Params as ListParams
from .listing import find_records
from .result import LengthClass, PageType
from .scedd import classify_length

__all__ = [
    "Classification",
    "Params",
    "classify",
    "features",
    "list_probability",
    "page_url",
    "url_shape",
]

# The record group the model's features describe: the weights were fitted on
# find_records with these list parameters (the list extractor's defaults
# before its no-link penalty, section split, joined record parts, split
# lists, page wrappers, further regions and advertisements left out); change
# them only with a refit.
RECORD_PARAMS = ListParams(
    more_regions=0.0,
    drop_adverts=False,
    no_link_penalty=1.0,
    split_sections=0.0,
    max_lift=4,
    join_parts=False,
    split_lists=False,
    wrapper_share=1.0,
)

_PARA_TAGS = (
    "p",
    "div",
    "td",
    "li",
    "section",
    "article",
    "dd",
    "span",
    "font",
    "pre",
    "blockquote",
)
_LEAF_TAGS = ("p", "div", "td", "span", "font", "section", "li")
_ERROR_TITLE = re.compile(
    r"\b(404|403|500|not found|page not found|error|forbidden|access denied|log ?in|sign ?in)\b|"
    r"页面不存在|找不到|无法找到|出错|错误|登录|注册|访问受限",
    re.I,
)

_NEXT = re.compile(
    r"^(?:next|next page|older|older posts|older entries|»|›|>>|next\s*[»›>]|下一页|下页)$",
    re.I,
)
# The last path segment of an item's URL: a slug of several words, a long
# number (or a file name with digits: see _is_item_url); a section's is one
# short word or none. Words are taken whole from their start (possessive):
# time linear in the segment, as a long token (base64) is no rarity.
_SLUG = re.compile(r"(?<![a-z0-9])(?:[a-z0-9]++[-_]){3,}[a-z0-9]++|\d{5,}", re.I)
# An opaque id as the last segment ("7kQcQG2peWU", "JU5S83IC00259DLP"):
# eight or more letters and digits, with digits, and either both cases or
# three digits or more. A section's name is a word ("news", "g20summit").
_OPAQUE_ID = re.compile(r"(?=[a-z]*\d)[a-z0-9]{8,}", re.I)
_PAGE_FILE = re.compile(r"\.(?:s?html?|php|aspx?)$", re.I)
_NAME_CHARS = string.ascii_letters + string.digits + "_-"

# Feature names, in the order of Params.weights.
FEATURES = (
    "bias",
    "link_density",
    "log_para",
    "log_main",
    "para_share",
    "main_share",
    "rec_share",
    "rec_link_density",
    "log_records",
    "rec_share_x_link_density",
    "rec_with_link",
    "rec_share_x_with_link",
    "log_longest_para",
    "headline_link_share",
    "log_headline_links",
    "declared_article",
    "p_share",
    "log_long_paras",
    "log_linked_headings",
    "linked_heading_share",
    "log_dates",
    "rec_dated",
    "pagination",
    "group_share",
    "log_group_item_chars",
    "log_group_items",
    "url_item",
    "url_section",
    "log_item_links",
    "item_link_share",
    "rec_headline",
    "group_headline",
    "agreement",
    "log_long_lines",
    "teaser",
    "log_prices",
    "declared_product",
    "declared_collection",
    "url_index",
)


MODEL_FILE = Path(__file__).with_name("models") / "pagetype_dom.json"


def _load_weights(path: Path = MODEL_FILE) -> tuple[float, ...]:
    """The shipped logistic weights, checked against ``FEATURES``."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    if tuple(doc["features"]) != FEATURES:
        raise ValueError(f"{path.name} was fitted on other features; refit it")
    return tuple(float(w) for w in doc["weights"])


_WEIGHTS = _load_weights()


@dataclass(frozen=True, slots=True)
class Params:
    # Logistic weights for P(list), one per name in FEATURES, read from
    # models/pagetype_dom.json: a class-balanced L2 fit on the train pages of
    # training/pagetype/split.json (real and generated) plus the wcxb-dev
    # pages outside that split (product/service/documentation as "not a
    # list"); the L2 strength and the generated pages' weight chosen on the
    # val pages (``python -m training.pagetype dom``). Never test pages.
    weights: tuple[float, ...] = _WEIGHTS
    # A paragraph block: this many non-space characters, few links, few tags.
    para_min_chars: int = 40
    para_max_link_density: float = 0.2
    para_max_tags: int = 8
    # Headline-like links: anchor text of this length (chars, no spaces).
    headline_link_chars: tuple[int, int] = (12, 120)
    # Added to the list log-odds when the page declares itself an article
    # (og:type article, JSON-LD Article/NewsArticle/BlogPosting), on top of
    # the fitted weight of the "declared_article" feature; 0 = the fit alone.
    declared_article_logit: float = 0.0
    # A page whose metadata declares one discussion (a forum thread, a
    # question with its answers: declares_thread) is an article, at least
    # this sure: its repeated posts are its content, and auto never lists
    # them. No list page of pagetype or wcxb-dev declares one; 73 of the
    # held-out wcxb-dev forum threads do, 27 of which the fit called lists.
    declared_thread_confidence: float = 0.9
    # Under this many characters of body text a page has no main content.
    empty_chars: int = 50
    # An error/login title on a page with less text than this is "other".
    error_page_chars: int = 1500


@dataclass(slots=True)
class Classification:
    page_type: PageType
    confidence: float
    length_class: LengthClass | None = None
    list_probability: float = 0.0


def _leaf_paragraphs(doc: Document, p: Params) -> tuple[int, int, int]:
    """(non-link text in paragraph blocks, number of blocks, longest leaf)."""
    stats = doc.stats

    def qualifies(el: etree._Element) -> bool:
        st = stats.get(el)
        return bool(
            st
            and st.text_len >= p.para_min_chars
            and st.link_density < p.para_max_link_density
            and st.tag_count <= p.para_max_tags
        )

    total = count = longest = 0
    for el in doc.body.iter(*_PARA_TAGS):
        st = stats.get(el)
        if st is None:
            continue
        if el.tag in _LEAF_TAGS and st.tag_count <= 3 and st.link_density < p.para_max_link_density:
            longest = max(longest, st.text_len - st.link_text_len)
        if qualifies(el) and not any(qualifies(c) for c in el):
            total += st.text_len - st.link_text_len
            count += 1
    return total, count, longest


def page_url(doc: Document) -> str | None:
    """The page's own URL: the one it was fetched from, else its canonical."""
    if doc.url:
        return doc.url
    for rel, href in doc.links:
        if "canonical" in rel.split() and href.strip():
            return href.strip()
    return doc.meta.get("og:url") or None


def _last_segment(url: str) -> str:
    try:
        path = urlsplit(url.strip()).path
    except ValueError:
        return ""
    return path.rstrip("/").rsplit("/", 1)[-1] if path else ""


# A list's own page: its index, or a numbered page of it (list_2.html).
_LIST_LEAF = re.compile(r"(?:index|default|list)(?:[_-]\d+)?(?:\.[a-z]{1,5})?", re.I)


# Second-level labels that are public suffixes under a country code (co.uk,
# com.cn, ne.jp): a site's name is one label further left.
_PUBLIC_SECOND_LEVEL = frozenset({"ac", "co", "com", "edu", "go", "gov", "ne", "net", "or", "org"})


def site_of(host: str) -> str:
    """The registrable domain of a host, approximately (no public-suffix
    list): a site's portals (``economy.x.com.cn``, ``stock.x.com.cn``) are
    one site. An IP address is its own site."""
    labels = host.lower().split(".")
    if ":" in host or labels[-1].isdigit():
        return host
    public_two = len(labels[-1]) == 2 and labels[-2] in _PUBLIC_SECOND_LEVEL
    return ".".join(labels[-3:] if public_two else labels[-2:])


def url_shape(url: str) -> tuple[str, tuple[str, ...], tuple[str, ...]] | None:
    """Site (:func:`site_of`), path segments (``*`` for one naming an item:
    with digits, or a slug) and, when the path names no item, query keys.
    The pages of one kind on a site share a shape, across its portals: an
    article's URL has its siblings' shape, a section's index has another.
    None for an index page, a one-level path without a query
    (``/native-4k-projectors``: a category or a product) or no URL."""
    try:
        parts = urlsplit(url.strip())
        host = site_of(parts.hostname or "")
    except ValueError:
        return None
    if not host:
        return None
    segments = []
    for seg in parts.path.split("/"):
        if not seg:
            continue
        if _LIST_LEAF.fullmatch(seg):
            return None
        item = any(c.isdigit() for c in seg) or _SLUG.fullmatch(seg)
        segments.append("*" if item else seg.lower())
    keys = () if "*" in segments else tuple(sorted({k for k, _ in parse_qsl(parts.query)}))
    if len(segments) < 2 and not keys:
        return None  # one level: a section and an item look alike there
    return host, tuple(segments), keys


def sibling_url(link: str, own: str) -> bool:
    """Whether ``link`` names a page beside this one: on its site, in the
    same folder of the URL tree (``/discover/a/<story>``), at the same depth."""
    try:
        a, b = urlsplit(link), urlsplit(own)
    except ValueError:
        return False
    folder_a, _, leaf_a = a.path.rstrip("/").rpartition("/")
    folder_b, _, leaf_b = b.path.rstrip("/").rpartition("/")
    return (
        bool(leaf_a and leaf_b)
        and folder_a == folder_b
        and site_of(a.hostname or "") == site_of(b.hostname or "")
    )


# A dated post's permalink: a year (and month, day) in the path, then the
# post's slug ("/2020/01/23/a-day-in-the-park/", "/2013/06/some_title.html");
# WordPress's plain permalink is "/?p=<id>". An archive of a year or month
# ("/2020/01/") has no slug after the date and is a list.
_DATED_POST = re.compile(
    r"/(?:19|20)\d\d/(?:(?:0?[1-9]|1[0-2])/(?:(?:0?[1-9]|[12]\d|3[01])/)?)?"
    r"[^/]*[a-z][^/]*[-_][^/]+/?$",
    re.I,
)


def names_a_post(url: str | None) -> bool:
    """Whether a URL is a dated post's permalink (see ``_DATED_POST``): the
    page is one entry of a blog or a news site, however many lists of links
    stand around it. No list page of the labelled sets has such a URL."""
    if not url:
        return False
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return False
    if _DATED_POST.search(parts.path):
        return True
    return (
        parts.path in ("", "/", "/index.php")
        and dict(parse_qsl(parts.query)).get("p", "").isdigit()
    )


# A forum thread's address, as forum software writes it: phpBB's and
# FluxBB's viewtopic.php, Discuz's forum.php?mod=viewthread, vBulletin's
# showthread.php, XenForo's /threads/<slug>.<id>/, and a topic by its number
# (Discourse's /t/<slug>/<id>, Flarum's /d/<id>, /topic/<id>). A board's
# index (viewforum, forumdisplay, /forums/) and a news site's topic page
# (/topic/software: a name, no number) are none of these.
_THREAD_URL = re.compile(
    r"viewtopic|viewthread|showthread|showtopic|/threads?/[^/?#]+"
    r"|/(?:t|d|topic|topics)/(?:[^/?#]+/)?\d+(?:[/?#]|$)",
    re.I,
)


def names_a_thread(url: str | None) -> bool:
    """Whether a URL is a forum thread's (see ``_THREAD_URL``): its posts are
    the page's content, however alike they look. No list page of the
    labelled sets has such a URL."""
    return bool(url) and _THREAD_URL.search(url) is not None


def _opaque_id(segment: str) -> bool:
    """Whether a URL segment is an opaque id (see ``_OPAQUE_ID``)."""
    if not _OPAQUE_ID.fullmatch(segment):
        return False
    digits = sum(c.isdigit() for c in segment)
    mixed = segment.lower() != segment and segment.upper() != segment
    return digits >= 3 or mixed


# A path segment naming an index of items: a shop's collection or
# category, a blog's tag or archive, a search ("/collections/sneakers",
# "/category/recipes/", "/tag/python", "/browse/shoes/mens"). Not "topic":
# a forum names one thread so ("/topic/1666").
_INDEX_SEGMENT = re.compile(
    r"collections?|categor(?:y|ies)|browse|tags?|topics|search|archives?|shop|lists?", re.I
)


def _names_an_index(url: str) -> bool:
    """Whether a URL naming no item has a path segment naming an index."""
    try:
        path = urlsplit(url.strip()).path
    except ValueError:
        return False
    return any(_INDEX_SEGMENT.fullmatch(seg) for seg in path.split("/")) and not _is_item_url(url)


def _is_item_url(url: str) -> bool:
    """Whether a URL looks like one item's (a slug, an id, a file name with
    digits: story-2024.html), not a section's. No regex for the file name:
    searched for, its backtracking was cubic in a long segment (0.2-0.5 s
    for one link of 900 characters)."""
    segment = _last_segment(url)
    if _SLUG.search(segment) or _opaque_id(segment):
        return True
    end = _PAGE_FILE.search(segment)
    if end is None:
        return False
    stem = segment[: end.start()]
    name = stem[len(stem.rstrip(_NAME_CHARS)) :]
    return any(c in string.digits for c in name)


def _paragraphs(doc: Document) -> tuple[int, int]:
    """(non-link text in <p> elements, number of long ones)."""
    stats = doc.stats
    text = long = 0
    for el in doc.body.iter("p"):
        st = stats.get(el)
        if st is None:
            continue
        own = st.text_len - st.link_text_len
        text += own
        long += own >= 120
    return text, long


def _headings(doc: Document) -> tuple[int, int]:
    """(headings, headings that are or hold a link)."""
    total = linked = 0
    for el in doc.body.iter("h1", "h2", "h3", "h4", "h5", "h6"):
        total += 1
        parent = el.getparent()
        linked += bool(el.find(".//a") is not None or (parent is not None and parent.tag == "a"))
    return total, linked


def _headline_share(doc: Document, items: list[etree._Element], p: Params) -> float:
    """Share of ``items`` whose longest link has a headline's length."""
    lo, hi = p.headline_link_chars
    stats = doc.stats
    hits = 0
    for item in items:
        links = [st.text_len for a in item.iter("a") if (st := stats.get(a))]
        hits += bool(links and lo <= max(links) <= hi)
    return hits / max(1, len(items))


def _repeated_group(doc: Document) -> tuple[int, list[etree._Element]]:
    """(text, members) of the largest group of like siblings (same tag and
    class, at least four) that nearly all hold a link."""
    stats = doc.stats
    best_text = 0
    best: list[etree._Element] = []
    for el in doc.body.iter():
        kids = [c for c in el if isinstance(c.tag, str)]
        if len(kids) < 4:
            continue
        groups: dict[tuple[str, str], list[etree._Element]] = defaultdict(list)
        for c in kids:
            groups[(c.tag, c.get("class") or "")].append(c)
        for members in groups.values():
            if len(members) < 4:
                continue
            sts = [st for c in members if (st := stats.get(c))]
            if sum(1 for st in sts if st.link_count) < 0.75 * len(members):
                continue
            text = sum(st.text_len for st in sts)
            if text > best_text:
                best_text, best = text, members
    return best_text, best


def _pagination(doc: Document) -> bool:
    """Whether the page links to a next page or to numbered pages."""
    if any("next" in rel.split() for rel, _ in doc.links):
        return True
    numbers: set[int] = set()
    for a in doc.body.iter("a"):
        text = "".join(text_pieces(a)).strip()
        if _NEXT.match(text):
            return True
        if text.isdigit() and len(text) <= 3:
            numbers.add(int(text))
    return len(numbers & {1, 2, 3, 4, 5}) >= 3


# A price: a currency sign or code before or after an amount ("$19.99",
# "€ 25", "1,299 元", "25 EUR"). A shop's category page shows one per
# product; an article or a product's own page a few.
PRICE_IN_TEXT = re.compile(
    r"(?=[$€£¥₹UR\d])(?:(?:[$€£¥₹]|US\$|RMB)\s?\d[\d,.]*|\d[\d,.]*\s?(?:元|€|USD|EUR)(?!\w))"
)


def _count_in_text(root: etree._Element, chunk_chars: int = 65536) -> tuple[int, int]:
    """(dates, prices) in ``root``'s text, matched ``chunk_chars`` at a
    time: one regex call over a multi-megabyte page would hold the GIL, and
    with it the crawl's event loop, for a second. Smaller pages are matched
    whole."""
    dates = prices = 0
    chunk: list[str] = []
    size = 0
    for piece in itertools.chain(text_pieces(root), (None,)):
        if piece is not None:
            chunk.append(piece)
            size += len(piece) + 1
        if chunk and (size >= chunk_chars or piece is None):
            text = " ".join(chunk)
            dates += len(DATE_IN_TEXT.findall(text))
            prices += len(PRICE_IN_TEXT.findall(text))
            chunk, size = [], 0
    return dates, prices


def features(
    doc: Document, main_chars: int, consensus: tuple[float, int, bool], p: Params | None = None
) -> list[float]:
    """The model's inputs; ``main_chars`` is the length of a density
    extractor's main text (CETD's), which the caller usually has already;
    ``consensus`` is :func:`extractors.auto.consensus_signals`."""
    p = p or Params()
    stats = doc.stats
    body = stats[doc.body]
    total = max(1, body.text_len)
    para, _, longest = _leaf_paragraphs(doc, p)
    records = find_records(doc, RECORD_PARAMS)
    rec_text = sum(stats[r].text_len for r in records)
    rec_links = sum(stats[r].link_text_len for r in records)
    with_link = sum(1 for r in records if stats[r].link_count) / max(1, len(records))
    rec_share = rec_text / total
    rec_ld = rec_links / max(1, rec_text)
    rec_dated = sum(1 for r in records if DATE_IN_TEXT.search(" ".join(text_pieces(r)))) / max(
        1, len(records)
    )
    lo, hi = p.headline_link_chars
    headlinks = 0
    hrefs: set[str] = set()
    item_hrefs: set[str] = set()
    for a in doc.body.iter("a"):
        st = stats.get(a)
        if st and lo <= st.text_len <= hi:
            headlinks += st.text_len
            href = (a.get("href") or "").strip()
            if href and not href.startswith(("#", "javascript:")):
                hrefs.add(href)
                if _is_item_url(href):
                    item_hrefs.add(href)
    p_text, long_paras = _paragraphs(doc)
    n_headings, linked_headings = _headings(doc)
    dates, prices = _count_in_text(doc.body)
    group_text, group = _repeated_group(doc)
    group_n = len(group)
    url = page_url(doc)
    url_item = bool(url and _is_item_url(url))
    url_section = bool(url and not url_item)
    return [
        1.0,
        body.link_density,
        math.log1p(para) / 8,
        math.log1p(main_chars) / 8,
        para / total,
        main_chars / total,
        rec_share,
        rec_ld,
        math.log1p(len(records)) / 4,
        rec_share * rec_ld,
        with_link,
        rec_share * with_link,
        math.log1p(longest) / 6,
        headlinks / total,
        math.log1p(headlinks) / 8,
        float(declares_article(doc)),
        min(1.0, p_text / total),
        math.log1p(long_paras) / 3,
        math.log1p(linked_headings) / 3,
        linked_headings / max(1, n_headings),
        math.log1p(dates) / 3,
        rec_dated,
        float(_pagination(doc)),
        group_text / total,
        math.log1p(group_text / max(1, group_n)) / 6,
        math.log1p(group_n) / 4,
        float(url_item),
        float(url_section),
        math.log1p(len(item_hrefs)) / 4,
        len(item_hrefs) / max(1, len(hrefs)),
        _headline_share(doc, records, p),
        _headline_share(doc, group, p),
        consensus[0],
        math.log1p(consensus[1]) / 3,
        float(consensus[2]),
        math.log1p(prices) / 4,
        float(declares_product(doc)),
        float(declares_collection(doc)),
        float(bool(url and _names_an_index(url))),
    ]


# What a page's own metadata says it is: og:type, then the first JSON-LD
# blocks' "@type" (read as text: no JSON parse for one yes/no).
_ARTICLE_OG = re.compile(r"article$")
_ARTICLE_JSONLD = re.compile(r'"@type"\s*:\s*\[?\s*"(?:\w*Article|BlogPosting|Report)"', re.I)
_PRODUCT_OG = re.compile(r"(og:)?product(\.item)?$")
# A page that says it shows many items: og:type product.group (a shop's
# category), schema.org's collection and result-list types.
_COLLECTION_OG = re.compile(r"(og:)?product\.group$")
_COLLECTION_JSONLD = re.compile(
    r'"@type"\s*:\s*\[?\s*"(?:CollectionPage|ItemList|SearchResultsPage|OfferCatalog)"'
)
# The schema.org types of one product (metadata reads their description).
PRODUCT_TYPES = r"Product(?:Group)?"
_PRODUCT_JSONLD = re.compile(r'"@type"\s*:\s*\[?\s*"' + PRODUCT_TYPES + '"', re.I)


def _declares(doc: Document, og_type: re.Pattern[str], jsonld_type: re.Pattern[str]) -> bool:
    if og_type.match(doc.meta.get("og:type", "").strip().lower()):
        return True
    return _jsonld_declares(doc, jsonld_type)


def _jsonld_declares(doc: Document, jsonld_type: re.Pattern[str]) -> bool:
    return any(jsonld_type.search(raw[:20000]) for raw in doc.jsonld[:10])


def declares_article(doc: Document) -> bool:
    """Whether the page's own metadata says it is one article."""
    return _declares(doc, _ARTICLE_OG, _ARTICLE_JSONLD)


def declares_collection(doc: Document) -> bool:
    """Whether the page's own metadata says it is a collection of items (a
    shop's category, a result page, a list of items)."""
    return _declares(doc, _COLLECTION_OG, _COLLECTION_JSONLD)


def declares_product(doc: Document) -> bool:
    """Whether the page's own metadata says it is one product (og:type
    product or product.item, JSON-LD Product): its reviews are not its
    description. A ``product.group`` is a collection."""
    return _declares(doc, _PRODUCT_OG, _PRODUCT_JSONLD)


_THREAD_TYPES = r"(?:QAPage|DiscussionForumPosting)"
_THREAD_JSONLD = re.compile(r'"@type"\s*:\s*\[?\s*"' + _THREAD_TYPES + '"')
_THREAD_ITEMTYPE = re.compile(r"schema\.org/" + _THREAD_TYPES + r"\b")


def declares_thread(doc: Document) -> bool:
    """Whether the page's own metadata (JSON-LD or microdata) says it is a
    forum thread or a question with its answers: its signed posts, replies
    and comments are its content."""

    def compute() -> bool:
        return _jsonld_declares(doc, _THREAD_JSONLD) or any(
            _THREAD_ITEMTYPE.search(t) for t in doc.root.xpath("//@itemtype")[:50]
        )

    return doc.derived("declares_thread", compute)


def list_probability(x: list[float], p: Params | None = None, prior: float = 0.0) -> float:
    """P(list) from the features; ``prior`` is added to the log-odds."""
    p = p or Params()
    z = prior + sum(w * v for w, v in zip(p.weights, x, strict=True))
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def _other(doc: Document, p: Params) -> float | None:
    """Confidence that the page has no main content (empty, error, login)."""
    text = doc.stats[doc.body].text_len if doc.body in doc.stats else 0
    if text < p.empty_chars:
        return 0.95
    title = doc.title or ""
    if text < p.error_page_chars and _ERROR_TITLE.search(title):
        return 0.8
    if doc.asks_password and text < p.error_page_chars // 2:
        return 0.75
    return None


def classify(
    html: str | bytes | Document,
    url: str | None = None,
    main_chars: int | None = None,
    params: Params | None = None,
    length: LengthClass | None = None,
) -> Classification:
    """Page type with a confidence (the probability of the chosen class) and
    SCEDD's length class."""
    p = params or Params()
    doc = as_document(html, url)
    other = _other(doc, p)
    if other is not None:
        return Classification(PageType.OTHER, other, LengthClass.SHORT, 0.0)
    if length is None:
        length, _ = classify_length(doc)
    # The article methods' outputs, shared with auto (run once per page).
    from .auto import consensus_signals, voter

    if main_chars is None:
        cetd = voter(doc, "cetd", url)
        main_chars = len("".join(cetd.text.split())) if cetd else 0
    consensus = consensus_signals(doc, url)
    prior = p.declared_article_logit if declares_article(doc) else 0.0
    # A crawled page is classified by its analysis job, then again by
    # auto (unless a screenshot decided): the features are computed once.
    x = doc.derived(
        ("classify.features", main_chars, consensus, p),
        lambda: features(doc, main_chars, consensus, p),
    )
    prob = list_probability(x, p, prior)
    if declares_thread(doc):
        prob = min(prob, 1.0 - p.declared_thread_confidence)
    page_type = PageType.LIST if prob >= 0.5 else PageType.ARTICLE
    confidence = prob if page_type is PageType.LIST else 1.0 - prob
    return Classification(page_type, round(confidence, 3), length, prob)
