"""Page metadata: title, publish date, author, language and main image.

Each field is read from the most explicit source first — JSON-LD, then meta
tags, then marked-up elements (``<time>``, ``itemprop``), then visible text
near the headline, then the URL — because publishers fill the machine
fields more reliably than any text heuristic can guess.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from html import unescape
from typing import Any
from unicodedata import east_asian_width
from urllib.parse import urlsplit

from lxml import etree

from .chinese_names import is_chinese_name
from .classify import PRODUCT_TYPES
from .dates import (
    date_in_url,
    find_datetime,
    find_relative_date,
    find_time_today,
    parse_date,
    to_iso,
)
from .document import (
    Document,
    absolute_url,
    as_document,
    marks,
    named_boxes,
    text_content,
    text_lines,
)
from .result import Record
from .text import CJK_CHAR, clean_text, collapse_ws

__all__ = [
    "Metadata",
    "extract_metadata",
    "find_author",
    "find_published",
    "find_title",
    "date_records",
    "declared_body",
    "jsonld_objects",
]

# Separators between a headline and the site name in <title>; a hyphen
# between two CJK characters too (no Chinese word holds one; one between
# digits is a range: "1900万-2900万").
# No match starts inside a whitespace run (one at its start exists): linear
# time on a title of many spaces. Possessive *+ likewise below and in dates.
_TITLE_SEP = re.compile(
    r"(?:(?<!\s)|(?!\s))(?:\s+[-|–—·•:»]\s+|\s*[|｜_—–]\s*|\s+-\s*|\s*--\s*|\s*::\s*"
    r"|(?<=[\u3000-\u9fff\uff00-\uffef])-(?=[\u3000-\u9fff\uff00-\uffef]))"
)
_ARTICLE_TYPES = re.compile(r"article|posting|report|news|blog|webpage|review", re.I)
_DATE_META = (
    "article:published_time",
    "og:published_time",
    "og:article:published_time",
    "datepublished",
    "publishdate",
    "publish-date",
    "publish_date",
    "pubdate",
    "parsely-pub-date",
    "sailthru.date",
    "dc.date.issued",
    "dc.date",
    "dcterms.created",
    "dcterms.date",
    "citation_publication_date",
    "citation_date",
    "date",
    "article.published",
    "published-date",
    "release_date",
)
# A class or id word naming a date's box ("post-date", "published"; not "update").
_DATE_BOX = re.compile(r"(?:^|[-_])(?:date|published|pubdate|posted-?on|timestamp|dateline)$", re.I)
# What every such mark holds: a cheap first cut of a page's named boxes.
_MAY_MARK_DATE = re.compile(r"date|published|posted|timestamp", re.I)
# A meta name for the publish date that _DATE_META does not list.
_PUBLISH_KEY = re.compile(r"publish(?!er)|pub_?date", re.I)
# Dates of the last change: a publish date only when the page gives no other.
_MODIFIED_META = (
    "og:updated_time",
    "article:modified_time",
    "datemodified",
    "dateupdate",  # Baidu's microdata (itemprop), often the only full date
    "last-modified",
)
_AUTHOR_META = (
    "author",
    "article:author",
    "byl",
    "dc.creator",
    "dcterms.creator",
    "parsely-author",
    "sailthru.author",
    "citation_author",
    "twitter:creator",
)
# Visible labels that introduce a publish date or an author (zh and en).
_DATE_LABEL = re.compile(
    r"发布时间|发表时间|发布日期|发表于|时间[:：]|日期[:：]|published|posted|updated|date[:：]",
    re.I,
)
_AUTHOR_TEXT = re.compile(
    # A label, a separator (or a space) and up to four names of 2-4
    # ideographs: 记者 张三, 作者：张三, 文/张三, 执笔/张三、李四. The bare 文
    # needs a separator and no ideograph before it (本文, 英文, 文化 are
    # words), and a label running straight into words ("作者最新文章", "记者
    # 介绍") names no one.
    r"(?:(?:作者|记者|記者|通讯员|通訊員|撰文|撰稿|执笔|執筆|编者|編者)(?:\s*[|｜:：/]\s*|\s+)"
    r"|(?<![\u4e00-\u9fff])文\s*[|｜:：/]\s*)"
    r"([\u4e00-\u9fff]{2,4}(?:\s*[、&＆\s]\s*[\u4e00-\u9fff]{2,4}){0,3})(?![\u4e00-\u9fff])"
    # A dateline's reporter: 新华社北京12月9日电（记者唐霁）, （记者陈智 整合）.
    r"|[（(]\s*(?:记者|記者)\s*([\u4e00-\u9fff]{2,4})(?=[\s）)、，,])"
    # ...or a reporter's name straight after the label, closed by a slash, a
    # dateline's 报道 or the line's end: 记者王小明／北京报道, 本报记者王小明.
    r"|(?:^\s*|(?<=[报報社台网網\s]))(?:记者|記者)([\u4e00-\u9fff]{2,4}?)"
    r"(?=\s*[／/|｜]|\s*(?:报道|報導|摄|攝)|\s*$)"
    r"|(?i:作者|author)\s*[|｜:：]\s*([^\s|｜,，;；/()（）]{2,30})"
    # A name and its source: 王小明/新华社 (read as a name: 打印/导出 is none).
    r"|^(?P<slash>[\u4e00-\u9fff]{2,4})\s*/\s*\S{2,12}$"
    # "By Jane Roe": the names capitalised (case-sensitive: "paid for by the
    # state" is no byline).
    # "by:" and, at a line's start, a "By" glued to the name by markup with
    # no space between ("ByDaryl Austin").
    r"|(?:^|\s)(?i:by)(?:\s*[:：]\s*|\s+|(?<=^By)(?=[A-Z][a-z]))"
    r"(?P<by>[A-Z][\w.'-]+(?:\s+[A-Z][\w.'-]+){0,3})",
)
# A byline's "By" stands in a short line, near its start (after a date or
# a "Story and photos") or with the name closing it (:func:`_is_byline_by`).
_BY_MAX_OFFSET = 40
_BY_MAX_LINE = 100
# "by" after these is no author's credit: the site's, its sponsor's or
# advertiser's, a picture's, or a sentence's ("a team led by").
_NOT_AUTHOR_BY = re.compile(
    r"\b(?:powered|sponsored|presented|hosted|designed|developed|built|made|funded|supported"
    r"|provided|ads|photos?|photograph(?:s|ed)?|images?|illustrations?|illustrated|videos?"
    r"|graphics?|cover|artwork|art|led|headed|chaired|owned|operated|caused|followed)"
    r"(?:\s+\w+)?\s+by\W*$",
    re.I,
)
_SUFFIX = re.compile(r"\b(?:Jr|Sr)\.$")
# Byline labels that a label can run into, and "from" (作者 来自 贵州): never a name.
_LABELS = frozenset({"责任编辑", "責任編輯", "编辑", "編輯", "记者", "記者", "作者", "来源", "來源",
                     "通讯员", "通訊員", "摄影", "攝影", "原标题", "来自", "來自"})  # fmt: skip
# Words a Chinese byline runs on with after its names (a dateline's 报道, the
# next credit's label, the source's).
_BYLINE_WORDS = re.compile(
    r"\s*(?:报道|報導|通讯员|通訊員|实习生|實習生|摄影|攝影|编辑|編輯|来源|來源)"
)
# A label run straight into a name, alone in its part of a byline line
# ("来源CSDN| 作者魏星"): a name only when it reads as one (``is_chinese_name``).
_RUN_ON_AUTHOR = re.compile(r"(?:^|(?<=[|｜\s]))作者([\u4e00-\u9fff]{2,4})\s*(?=[|｜]|$)")
# A reporter's name in brackets closing an article's last paragraph:
# ……在巴西举行。（张巨峰）, (李楠), （王小明 李四）.
_CLOSING_NAMES = re.compile(
    r"[（(]\s*([\u4e00-\u9fff]{2,4}(?:\s*[\s、，,]\s*[\u4e00-\u9fff]{2,4}){0,3})\s*[）)]\s*$"
)
# An address a CMS puts where the author's name belongs (the account's).
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
# JSON-LD types of an author that is no person: the site or its company.
_BODY_TYPES = re.compile(r"organi[sz]ation|website|corporation|brand", re.I)
_ENTITY = re.compile(r"&(?:#\d+|#x[0-9a-f]+|[a-z]+\d*);", re.I)
_SOCIAL_HANDLE = re.compile(r"^@|^https?://")
# A template's variable left unfilled: "page.head.extra.author", "{{ author }}".
# A dotted path names a field ("author", "name"); a user name with dots
# ("sara.r.peter") does not end in one.
_TEMPLATE_VALUE = re.compile(
    r"^[a-z_]+(?:\.[a-z_]+)*\.[a-z_]*(?:author|name)[a-z_]*$|\{\{|\}\}|\$\{|^%\w+%$"
)
_AUTHOR_NAME_MARK = re.compile(r"author[-_]*name", re.I)
_BYLINE_MARK = re.compile(r"(?:[a-z]+[-_]+)*(?:author|byline)$", re.I)
# What both marks hold: a cheap first cut of a page's named boxes.
_MAY_MARK_AUTHOR = re.compile(r"author|byline", re.I)
# What a byline box shows when it names no one.
MAX_NAME_WORDS = 6  # an author's name is at most this many words
_NOT_NAMES = frozenset({"author", "the author", "about the author", "post", "posts", "by", "admin",
                        "name", "staff", "staff writer", "correspondent", "reporter", "editor",
                        "contributor"})  # fmt: skip
_WEEKDAY = re.compile(
    r"(?:mon|tues?|wed|thu|thurs?|fri|sat|sun)(?:day|sday|nesday|rsday|urday)?\.?,?$", re.I
)
# A byline's label before the name ("By", "Written by:", "Author:", 作者);
# alone on its line, it names the next line.
_BY_PREFIX = re.compile(
    r"^(?:(?:article|story|post)\s+)?(?:(?:written|posted)\s+)?by\b\s*[:：]?\s*"
    r"|^(?:author\b|作者|撰文)\s*[:：]?\s*",
    re.I,
)


@dataclass(frozen=True, slots=True)
class Params:
    # Lines after the headline searched for a byline date/author; bylines sit
    # right under the headline (tuned on zh-news and readability, first halves).
    byline_window: int = 12
    # ...and the lines right before the main content node, and into it.
    byline_before: int = 15
    byline_into: int = 3
    # An article's one h1 is its headline even when the declared titles
    # (<title>, og:title: written for search results) word it otherwise
    # (not in a seed; see :func:`_sole_headline`).
    sole_headline: bool = True
    # Last lines of an article's main content, and lines after it, read for
    # its closing credit (采写：记者 王小明, （张巨峰）, "Written by Jane Roe"
    # above a bio) when no byline sits at its top; related links may follow
    # the credit inside the main node.
    credit_lines: int = 8
    # Images smaller than this (declared width or height) are icons.
    min_image_px: int = 200


@dataclass(slots=True)
class Metadata:
    title: str | None = None
    published: str | None = None
    author: str | None = None
    language: str | None = None
    image: str | None = None


def extract_metadata(
    html: str | bytes | Document,
    url: str | None = None,
    fetched_at: datetime | date | str | float | None = None,
    main: etree._Element | None = None,
    params: Params | None = None,
    *,
    listing: bool = False,
) -> Metadata:
    """All metadata of a page; ``main`` (the main-content node) helps find
    the headline, byline and image; ``fetched_at`` resolves relative dates
    and bounds every date (never after the fetch). A ``listing`` page's date
    is only one marked up as such: a date read from its text is an entry's."""
    params = params or Params()
    doc = as_document(html, url)
    now = _as_datetime(fetched_at)
    objects = list(jsonld_objects(doc))
    title, heading = find_title(doc, params)
    return Metadata(
        title=_clean(title),
        published=find_published(doc, objects, heading, now, params, main, declared=listing),
        author=_clean(find_author(doc, objects, heading, params, main)),
        language=_clean(_language(doc)),
        image=_image(doc, objects, main, params),
    )


def date_records(
    records: Sequence[Record], fetched_at: datetime | date | str | float | None
) -> None:
    """Date the records whose text dates them against the fetch only
    ("3小时前", "昨天 14:20", "05-03 10:20": how Chinese portals date their
    entries); a record's dated year is read without it (``listing.to_record``).
    On a list whose entries of today or yesterday (in China) are dated, a
    Chinese entry with a time of day alone ("15:02") is of the fetch's day
    (``find_time_today``): a lone clock time on another page may be a
    duration or a schedule."""
    now = _as_datetime(fetched_at)
    if now is None:
        return
    for record in records:
        if record.date is None:
            record.date = find_relative_date(record.text, now)
    recent = {find_relative_date(day, now) for day in ("今天", "昨天")}  # China's clock
    if any(record.date and record.date[:10] in recent for record in records):
        for record in records:
            if record.date is None:
                record.date = find_time_today(record.text, now)


def _clean(value: str | None) -> str | None:
    """Printable text on one line: ``<meta>`` contents and JSON-LD strings
    (``\\u0085`` escapes) can hold control characters the page text never
    shows, and entities a CMS escaped twice ("Tom &amp;amp; Jerry" reads
    "Tom &amp; Jerry" once parsed)."""
    if not value:
        return None
    if _ENTITY.search(value):
        value = unescape(value)
    return collapse_ws(clean_text(value)) or None


def _as_datetime(value: datetime | date | str | float | None) -> datetime | None:
    """The fetch time from a datetime, a date, an ISO string or POSIX seconds."""
    if value is None or isinstance(value, datetime):
        return value
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return datetime.fromtimestamp(value, UTC)
    if isinstance(value, str):
        if (parsed := parse_date(value)) is None:
            raise ValueError(f"fetched_at: cannot read {value!r} as a date (ISO 8601 wanted)")
        return parsed
    raise TypeError(f"fetched_at takes a datetime, a date, an ISO string or seconds, not {value!r}")


# -- JSON-LD ------------------------------------------------------------------


def jsonld_objects(doc: Document) -> Iterator[dict[str, Any]]:
    """Every JSON-LD object of the page, ``@graph`` members included (parsed
    once per Document: metadata, the declared body and a recipe's
    ingredients all read them)."""
    return iter(doc.derived("metadata.jsonld", lambda: list(_parse_jsonld(doc))))


# XHTML-era pages wrap a script's content in CDATA, often behind comment marks
# (``//<![CDATA[ ... //]]>``): not JSON, so it is unwrapped first.
_CDATA = re.compile(
    r"^(?:(?://|/\*)\s*)?<!\[CDATA\[(?:\s*\*/)?"
    r"|(?:(?<!\s)|(?!\s))(?://|/\*)?\s*+\]\]>(?:\s*+\*/)?$"
)


def _parse_jsonld(doc: Document) -> Iterator[dict[str, Any]]:
    for raw in doc.jsonld[:10]:
        try:
            data = json.loads(_CDATA.sub("", raw.strip()).rstrip(";"))
        except (ValueError, RecursionError):
            continue
        stack = [data]
        while stack:
            item = stack.pop()
            if isinstance(item, list):
                stack.extend(item[:50])
            elif isinstance(item, dict):
                yield item
                if isinstance(item.get("@graph"), list):
                    stack.extend(item["@graph"][:50])


def declared_body(doc: Document, min_chars: int = 200) -> str | None:
    """The longest JSON-LD ``articleBody`` of the page, when it has at least
    ``min_chars`` non-space characters: the body as the page declares it."""
    bodies = [o.get("articleBody") for o in jsonld_objects(doc)]
    texts = [b for b in bodies if isinstance(b, str)]
    best = max(texts, key=len, default="")
    return best if len("".join(best.split())) >= min_chars else None


# A product's JSON-LD types (the ones classify.declares_product reads).
_PRODUCT_TYPES = re.compile(f"^{PRODUCT_TYPES}$")
_TAG = re.compile(r"<[^>]*>")


def declared_description(doc: Document, min_chars: int = 80) -> str | None:
    """The longest JSON-LD ``description`` of a product the page declares,
    when it has at least ``min_chars`` non-space characters (markup in it
    dropped): the text a product page is about."""
    texts = [
        collapse_ws(unescape(_TAG.sub(" ", o["description"])))
        for o in jsonld_objects(doc)
        if isinstance(o.get("description"), str) and any(_PRODUCT_TYPES.match(t) for t in _types(o))
    ]
    best = max(texts, key=len, default="")
    return best if len("".join(best.split())) >= min_chars else None


def _types(obj: dict[str, Any]) -> list[str]:
    t = obj.get("@type", "")
    return [x for x in t if isinstance(x, str)] if isinstance(t, list) else [str(t)]


def _article_objects(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [o for o in objects if _ARTICLE_TYPES.search(" ".join(_types(o)))] or objects


def _names(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return _names(value.get("name"))
    if isinstance(value, list):
        return [n for v in value[:5] for n in _names(v)]
    return []


def _jsonld_authors(objects: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """The article's JSON-LD authors: (people, the rest). An author given
    only by its ``@id`` (Yoast's graph points at a Person elsewhere in it)
    is looked up. One typed as an organisation or a website is the
    publisher named again, and an e-mail address the CMS account's: a
    byline's person beats both, which are kept for when nothing else names
    one."""
    by_id = {o["@id"]: o for o in objects if isinstance(o.get("@id"), str)}
    people: list[str] = []
    bodies: list[str] = []
    for obj in _article_objects(objects):
        authors = obj.get("author") or obj.get("creator")
        for author in authors[:5] if isinstance(authors, list) else [authors]:
            if isinstance(author, dict) and "name" not in author:
                author = by_id.get(author.get("@id"), author)
            is_body = isinstance(author, dict) and any(
                _BODY_TYPES.search(t) for t in _types(author)
            )
            for name in filter(None, (n.strip() for n in _names(author))):
                (bodies if is_body or _EMAIL.search(name) else people).append(name)
        if people:
            break  # the first article object that names a person
    return list(dict.fromkeys(people)), list(dict.fromkeys(bodies))


# -- title ----------------------------------------------------------------------


def _norm(text: str) -> str:
    return re.sub(r"\W+", "", text).lower()


def find_title(
    doc: Document, params: Params | None = None
) -> tuple[str | None, etree._Element | None]:
    """The headline (not the site name) and its element when one is shown.

    A visible heading that is part of ``<title>`` or og:title wins; else
    og:title; else ``<title>`` minus the site-name part.
    """
    params = params or Params()
    page_title = doc.title or ""
    og = doc.meta.get("og:title") or doc.meta.get("twitter:title") or ""
    site = doc.meta.get("og:site_name", "")
    heading = _headline_element(doc, (page_title, og), site)
    if heading is not None:
        return collapse_ws(text_content(heading)), heading
    headings = {
        _norm(text_content(h)) for h in itertools.islice(doc.body.iter("h1", "h2", "h3"), 20)
    }
    declared = None
    if candidate := og or page_title:
        home = _home_names(doc) if _TITLE_SEP.search(candidate) else set()
        declared = _strip_site_name(candidate, site, headings, home)
    h1 = _sole_headline(doc, declared, (page_title, og), site) if params.sole_headline else None
    if h1 is not None:
        return collapse_ws(text_content(h1)), h1
    return declared, None


# What makes a line a headline rather than a label ("Latest News"): three
# words, or six CJK characters; and a word it shares with the declared title.
_HEADLINE_WORDS = 3
_HEADLINE_CJK = 6
_TITLE_WORD = re.compile(r"[^\W\d_]{4,}|\d{2,}")


def _title_words(text: str) -> set[str]:
    """Words of 4+ letters (numbers of 2+ digits) and CJK character pairs, lower-cased."""
    cjk = "".join(CJK_CHAR.findall(text))
    return {w.lower() for w in _TITLE_WORD.findall(text)} | {
        cjk[i : i + 2] for i in range(len(cjk) - 1)
    }


def _sole_headline(
    doc: Document, declared: str | None, titles: tuple[str, ...], site: str
) -> etree._Element | None:
    """The page's one h1, when it is an article's headline that its declared
    titles word otherwise ("Top 10 Health and Nutrition Trends to Watch"
    under ``<title>`` "Health And Nutrition Trends For 2026"): readers see
    the h1. None when the page has several h1s or none; when the h1 is a
    logo, sits in the page header, navigation, an aside or the footer, is a
    label (under three words) or shares no word with the declared titles
    (when the page declares any);
    when it holds the declared title (a "Sponsored by" label around it: the
    declared one is the cleaner form); and on a page that declares itself a
    website (og:type: a home or landing page, whose h1 is a slogan: "Make
    anything possible")."""
    if (doc.meta.get("og:type") or "").strip().lower() == "website":
        return None
    found = [el for el in doc.body.iter("h1") if doc.stats.get(el) and doc.stats[el].text_len]
    if len(found) != 1:
        return None
    h1 = found[0]
    st = doc.stats[h1]
    if not 4 <= st.text_len <= 200 or _is_logo(h1, st.link_density):
        return None
    if any(a.tag in ("header", "nav", "aside", "footer") for a in h1.iterancestors()):
        return None
    text = collapse_ws(text_content(h1))
    if len(text.split()) < _HEADLINE_WORDS and len(CJK_CHAR.findall(text)) < _HEADLINE_CJK:
        return None
    shown = _norm(text)
    if shown == _norm(site) or (declared and _norm(declared) in shown):
        return None
    if not any(titles):
        return h1  # nothing declared (no <title>, no og:title): the h1 is all there is
    said = set().union(*(_title_words(t) for t in titles if t))
    return h1 if said & _title_words(text) else None


def _home_names(doc: Document, limit: int = 5) -> set[str]:
    """What the page calls its site without og:site_name, normalised: the
    text of its links to the site's home page (the logo link, "Springfield
    Gazette") and the host's name ("springfieldgazette" of
    www.springfieldgazette.com). A section page's ``<title>``, "News -
    Springfield Gazette", has the site's name as its longest part."""
    names: set[str] = set()
    host = urlsplit(doc.url).hostname if doc.url else None
    if host:
        labels = host.split(".")
        names.add(labels[-2] if len(labels) >= 2 else labels[0])
    for a in doc.body.iter("a"):
        href = (a.get("href") or "").strip()  # "/", "./", "https://host/", "//host"
        if href not in ("/", "./") and href.rstrip("/").partition("//")[2].lower() != host:
            continue
        if name := _norm(text_content(a)):
            names.add(name)
            if len(names) > limit:
                break
    return names


def _headline_element(
    doc: Document, titles: tuple[str, ...], site: str = ""
) -> etree._Element | None:
    """The first h1 (else h2, h3, or element with a title-ish class) whose
    text is contained in one of the page's declared titles and is not the
    site's name (og:site_name, or a logo): a section's or the site's name
    shown as an h2 above the story is part of the title too, after a
    separator."""
    wanted = [_norm(t) for t in titles if t]
    if not wanted:
        return None
    site_n = _norm(site)
    found: etree._Element | None = None
    for el in doc.body.iter("h1", "h2", "h3", "h4", "div", "span", "p", "td", "strong"):
        st = doc.stats.get(el)
        if st is None or not 4 <= st.text_len <= 200:
            continue
        if el.tag not in ("h1", "h2", "h3") and "title" not in (el.get("class") or "").lower():
            continue
        if _is_logo(el, st.link_density):
            continue
        text = _norm(text_content(el))
        if text == site_n:
            continue
        if len(text) >= 4 and any(text in w and len(text) >= 0.3 * len(w) for w in wanted):
            if el.tag == "h1":
                return el
            found = found if found is not None else el
    return found


def _is_logo(el: etree._Element, link_density: float) -> bool:
    """A site name shown as a heading: a link (to the home page), inside the
    page header/navigation, or marked a logo (by its class or an ancestor's)."""
    if link_density > 0.5 or "logo" in (el.get("class") or "").lower():
        return True
    return any(
        a.tag in ("header", "nav", "a") or "logo" in (a.get("class") or "").lower()
        for a in el.iterancestors()
    )


def _strip_site_name(
    title: str,
    site: str,
    headings: set[str] = frozenset(),  # type: ignore[assignment]
    home: set[str] = frozenset(),  # type: ignore[assignment]
) -> str:
    """The part of a ``<title>`` that is not the site name: the part shown
    as a heading, else the longest part once the site name (og:site_name,
    or a part that is exactly one of the ``home`` names) is dropped."""
    parts = [p.strip() for p in _TITLE_SEP.split(title) if p and p.strip()]
    if len(parts) <= 1:
        return _without_site_suffix(title.strip(), site)
    for part in parts:
        if _norm(part) in headings:
            return part
    site_n = _norm(site)
    kept = [p for p in parts if not site_n or _norm(p) not in site_n and site_n not in _norm(p)]
    kept = [p for p in kept if _norm(p) not in home] or kept or parts
    return max(kept, key=_shown_width)


def _shown_width(text: str) -> int:
    """Columns a text takes on screen: a CJK character (wide, East Asian
    width W or F) two, as it carries a word where a Latin letter carries a
    fifth of one; so "勾結醫師病患詐保險金 男遭訴" outweighs "Taiwan News Online"."""
    return sum(2 if east_asian_width(ch) in "WF" else 1 for ch in text)


def _without_site_suffix(title: str, site: str) -> str:
    """A title ending in the site's name after a separator no space sets off
    ("春季植树活动-江城日报网"), without it: a hyphen in a word is no
    separator, but before the declared site name it is."""
    site = site.strip()
    if not site or not title.endswith(site):
        return title
    head = title[: -len(site)].rstrip()
    stripped = head.rstrip("-_|:·•—–~ ")
    return stripped if stripped and stripped != head else title


# -- publish date --------------------------------------------------------------


def find_published(
    doc: Document,
    objects: list[dict[str, Any]],
    heading: etree._Element | None,
    now: datetime | None,
    params: Params | None = None,
    main: etree._Element | None = None,
    *,
    declared: bool = False,
) -> str | None:
    """ISO 8601 publish date: JSON-LD, meta, <time> (only these, marked up
    as dates, when ``declared``), byline text, URL, a box named for the
    date, then the dates of the last change."""
    params = params or Params()
    articles = _article_objects(objects)
    # pubDate / upDate: the JSON-LD of Baidu's structured data, which many
    # Chinese sites declare instead of schema.org's names.
    for key in ("datePublished", "dateCreated", "uploadDate", "pubDate"):
        if iso := _jsonld_date(articles, key, now):
            return iso
    for key in _DATE_META:
        if (value := doc.meta.get(key)) and (iso := _iso(value, now)):
            return iso
    for key, value in doc.meta.items():  # names of a site's own: "w-published-date"
        if _PUBLISH_KEY.search(key) and (iso := _iso(value, now)):
            return iso
    for el in doc.body.iter("time", "abbr", "span", "div", "p", "em", "meta"):
        if el.get("itemprop") in ("datePublished", "dateCreated") or el.tag == "time":
            value = el.get("datetime") or el.get("content") or el.get("title") or text_content(el)
            if iso := _iso(value, now) or find_datetime(value, now):
                return iso
    if declared:
        return None
    byline = _byline_lines(doc, heading, main, params)
    if found := (
        _byline_date(byline, now)
        or date_in_url(doc.url, now)
        or _box_date(doc, now)
        or _labelled_date(main, now)
    ):
        return found
    for key in ("dateModified", "upDate"):
        if iso := _jsonld_date(articles, key, now):
            return iso
    for key in _MODIFIED_META:
        if (value := doc.meta.get(key)) and (iso := _iso(value, now)):
            return iso
    return None


def _box_date(doc: Document, now: datetime | None) -> str | None:
    """The date in the first box its class or id calls a date ("post-date",
    "entry-date", "published"), not a comment's."""
    for el, named in itertools.chain([(doc.body, marks(doc.body))], named_boxes(doc)):
        if not _MAY_MARK_DATE.search(named):
            continue
        words = named.split()
        if any(_DATE_BOX.search(w) and "comment" not in w.lower() for w in words):
            text = collapse_ws(text_content(el))
            if len(text) <= 80 and (iso := find_datetime(text, now)):
                return iso
    return None


def _labelled_date(main: etree._Element | None, now: datetime | None) -> str | None:
    """The date on the first short line around the main content that labels
    one ("Posted on April 13, 2023", "Updated May 6, 2025", 发布时间：...)
    or opens with a byline ("By Jane Roe ● December 23, 2025"): a byline
    further from the headline than the lines read near it. Around: in the
    box two levels above the main node, not the page's footer ("Site Last
    Updated: ...")."""
    box = main
    for _ in range(2):
        parent = box.getparent() if box is not None else None
        if parent is None or parent.tag == "body":
            break
        box = parent
    for line in text_lines(box) if box is not None and box.tag != "body" else ():
        if (
            len(line) <= 120
            and (_DATE_LABEL.search(line) or _BY_PREFIX.match(line))
            and (iso := find_datetime(line, now))
        ):
            return iso
    return None


def _jsonld_date(objects: list[dict[str, Any]], key: str, now: datetime | None) -> str | None:
    for obj in objects:
        value = obj.get(key)
        if isinstance(value, str) and (iso := _iso(value, now)):
            return iso
    return None


def _iso(value: str | None, now: datetime | None) -> str | None:
    parsed = parse_date(value, now)
    if parsed is None:
        return None
    has_time = bool(re.search(r"\d[:：]\d", value or "")) and (
        parsed.hour or parsed.minute or parsed.second
    )
    return to_iso(parsed, bool(has_time))


def _lines_after(doc: Document, heading: etree._Element | None, window: int) -> list[str]:
    """Text lines right after the headline (or the first lines of the body)."""
    if heading is None:
        return text_lines(doc.body, limit=window)
    lines: list[str] = []
    node: etree._Element | None = heading
    # Walk following elements in document order until enough lines are read.
    while node is not None and len(lines) < window:
        if node is not heading:
            lines.extend(text_lines(node, limit=window - len(lines)))
        if node.tail and node.tail.strip():
            lines.append(collapse_ws(node.tail))
        sibling = node.getnext()
        while sibling is None and node is not None:
            node = node.getparent()
            sibling = node.getnext() if node is not None else None
        node = sibling
    return lines


def _byline_lines(
    doc: Document, heading: etree._Element | None, main: etree._Element | None, params: Params
) -> list[str]:
    """Where a byline sits: the lines right after the headline, then the
    lines right before the main content and its first lines (share bars and
    photo credits can push a byline past the first window). Read once for
    the date and the author."""
    key = ("metadata.byline", id(heading), id(main), params)
    return list(doc.derived(key, lambda: _find_byline_lines(doc, heading, main, params)))


def _find_byline_lines(
    doc: Document, heading: etree._Element | None, main: etree._Element | None, params: Params
) -> list[str]:
    lines = _lines_after(doc, heading, params.byline_window)
    if main is not None and main in doc.stats:
        start = doc.stats[main].line
        body = text_lines(doc.body, limit=start + params.byline_into)  # rendered no further
        lines += body[max(0, start - params.byline_before) :]
    return lines


def _byline_date(lines: list[str], now: datetime | None) -> str | None:
    labelled = [line for line in lines if _DATE_LABEL.search(line)]
    for line in labelled + lines:
        if len(line) <= 120 and (iso := find_datetime(line, now)):
            return iso
    return None


# -- author ----------------------------------------------------------------------


def find_author(
    doc: Document,
    objects: list[dict[str, Any]],
    heading: etree._Element | None,
    params: Params | None = None,
    main: etree._Element | None = None,
) -> str | None:
    """The byline's name: a JSON-LD person, meta, a microdata author's
    declared name, rel/itemprop author, a box named author-name, byline
    text, a box named author or byline, the article's closing credit, a
    thread's first poster, a JSON-LD organisation. On a Chinese page the
    byline text and the closing credit come before meta, which portals
    fill with their own name."""
    params = params or Params()
    people, bodies = _jsonld_authors(objects)
    if people:
        return ", ".join(people)
    if starter := _thread_starter(doc):
        return starter
    byline = _byline_author(_byline_lines(doc, heading, main, params))
    chinese = is_chinese_page(doc)
    if chinese and (byline := byline or _closing_credit(doc, main, params)):
        return byline  # Chinese portals put their own name in meta author
    site = doc.meta.get("og:site_name", "").strip().lower()
    for key in _AUTHOR_META:
        value = _without_addresses(doc.meta.get(key, ""))
        if (
            value
            and value.lower() not in _NOT_NAMES
            and not _SOCIAL_HANDLE.search(value)
            and len(value) <= 100
            and any(c.isalpha() for c in value)
            and value.lower() != site
            and not _TEMPLATE_VALUE.search(value)
        ):
            return value
    if doc.author_names:
        return doc.author_names[0]
    marked = [
        el
        for el in doc.body.iter(etree.Element)
        if el.get("rel") == "author" or el.get("itemprop") == "author"
    ]
    for el in marked:
        name = _microdata_name(el)
        if 2 <= len(name) <= 60:
            return name
    # Only a box with a class or id can be named for its author.
    boxes: dict[int, etree._Element] = {}  # the first box of each kind
    named_author = (el for el, words in named_boxes(doc) if _MAY_MARK_AUTHOR.search(words))
    for el in itertools.chain([doc.body], named_author):
        if (kind := _author_box(el)) and kind not in boxes and el not in marked:
            boxes[kind] = el
    named = _author_name(boxes[NAME_BOX]) if NAME_BOX in boxes else None
    return (
        named
        or byline
        or (_author_name(boxes[BYLINE_BOX]) if BYLINE_BOX in boxes else None)
        or (None if chinese else _closing_credit(doc, main, params))  # read above if chinese
        or _first_poster(doc)
        or (", ".join(bodies) if bodies else None)
    )


def _first_poster(doc: Document) -> str | None:
    """The first of several names in boxes of class "username" (the class
    phpBB, XenForo, vBulletin and others give each post's author): a
    thread's, whose first post is the thread's author. One such box alone is
    a login widget's greeting ("Hi"). Read off the page's named boxes,
    which the author-box search above has already listed."""
    found = [el for el, _ in named_boxes(doc) if "username" in (el.get("class") or "").split()]
    if len(found) < 2:
        return None
    return _as_name(text_content(found[0]).strip().rstrip(":："))


NAME_BOX, BYLINE_BOX = 1, 2
# A forum thread's header names who started it ("Thread starter Jane"): its
# author, where the first post on a later page of the thread is a reply's.
_STARTER = r"(?:thread\s+starter|started\s+by|original\s+poster|楼主)"
# Words one of the labels holds, as the page's source writes them.
_STARTER_WORDS = ("starter", "started", "poster", "楼主")
_STARTER_LABEL = re.compile(rf"^\s*{_STARTER}\s*[:：]?\s*$", re.I)


def _thread_starter(doc: Document) -> str | None:
    """The name beside the one label naming a thread's starter (an element
    of its own: a forum's index shows one per thread, and names no one)."""
    labels = [
        el
        for el in doc.body.iter()
        if isinstance(el.tag, str) and el.text and _STARTER_LABEL.match(el.text)
    ]
    if len(labels) != 1 or (box := labels[0].getparent()) is None:
        return None
    # Tested after the labels: lower-casing the whole source costs more
    # than the walk, and few pages have one label.
    source = doc.text.lower()
    if not any(word in source for word in _STARTER_WORDS):
        return None
    text = " ".join(box.itertext()).replace(labels[0].text, " ", 1)
    return _as_name(text)


def _microdata_name(el: etree._Element) -> str:
    """An author element's name: a Person item's ``name`` property (the
    rest of its box is a forum member's title, join date and post counts),
    else the text of its link to the person's page (its ``url`` property or
    its first link: a Q&A site's box adds the reputation and badge counts
    after it), else its text."""
    if el.get("itemscope") is not None:
        for prop in el.iterdescendants():
            if prop.get("itemprop") == "name":
                return collapse_ws(prop.get("content") or text_content(prop))
        links = [a for a in el.iter("a") if a.get("itemprop") == "url"] or list(el.iter("a"))
        if links and (name := collapse_ws(text_content(links[0]))):
            return name
    return collapse_ws(text_content(el))


def _author_box(el: etree._Element) -> int:
    """What a box's class or id says it holds: an author's name
    ("author-name", "post_author_name", "authorName": NAME_BOX), a byline
    ("author", "post-author", "byline": BYLINE_BOX, a name with a role or a
    date), or neither (0). A commenter's box is neither."""
    if not isinstance(el.tag, str):
        return 0
    words = [w for w in marks(el).split() if "comment" not in w.lower()]
    if any(_AUTHOR_NAME_MARK.search(w) for w in words):
        return NAME_BOX
    return BYLINE_BOX if any(_BYLINE_MARK.match(w) for w in words) else 0


def _author_name(box: etree._Element) -> str | None:
    """The name in an author box: in its innermost such box, the link (to the
    author's page; a role or a date may sit beside it) or the text, "By" left
    out, and a date after it; None for text that is no name (a bio, a label,
    a date)."""
    while (inner := next((d for d in box.iterdescendants() if _author_box(d)), None)) is not None:
        box = inner
    link = next(box.iter("a"), None)
    return _as_name(text_content(link if link is not None else box))


def _as_name(text: str) -> str | None:
    """``text`` as a person's name ("By" and a date after it left out), or
    None for text that is no name (a bio, a label, a date)."""
    name = _without_date(_BY_PREFIX.sub("", collapse_ws(text)))
    if (
        not 2 <= len(name) <= 60
        or len(name.split()) > MAX_NAME_WORDS
        or not any(c.isalpha() for c in name)
        or name.lower() in _NOT_NAMES
        or _DATE_LABEL.search(name)  # "Published on" left of a date
        or (name.endswith(".") and len(name.split()) > 3)  # a sentence
    ):
        return None
    return name


def _without_date(text: str) -> str:
    """A name without the date written after it ("Jane Roe | May 3, 2024");
    empty when the text starts with a date. The date starts at the first
    word whose removal changes the date read from the rest (a weekday's
    name before it is part of it). Only the first words are tried: a date
    further on leaves no name anyway (and a long box would cost a read of
    the rest per word)."""
    words = text.split()
    for i in range(min(len(words), MAX_NAME_WORDS + 1)):
        found = find_datetime(" ".join(words[i:]))
        if found is None:
            break
        if find_datetime(" ".join(words[i + 1 :])) != found:
            while i and _WEEKDAY.match(words[i - 1]):
                i -= 1
            return " ".join(words[:i]).rstrip(" |,-–—·•")
    return text


def _without_addresses(value: str) -> str:
    """A meta author without the e-mail and web addresses listed beside the
    name ("Jane Roe, jane@x.test, http://x.test" is "Jane Roe"; a form's
    placeholder "name, email@gmail.com" is "name")."""
    value = value.strip()
    if not _EMAIL.search(value):
        return value
    parts = [p.strip() for p in value.split(",")]
    return ", ".join(p for p in parts if p and not _EMAIL.search(p) and "://" not in p)


def _is_byline_by(line: str, m: re.Match[str]) -> bool:
    """Whether "by <Name>" in ``line`` credits the page's author: near the
    start of a short line, or closing it ("<headline> by Eric Ries"); not
    in a sentence ("a report by Food and Water Watch, ...", "loans made
    by WebBank."), and not a credit for the site or a picture ("Powered by",
    "Photo by")."""
    if len(line) > _BY_MAX_LINE:
        return False
    if m.start() > _BY_MAX_OFFSET and line[m.end() :].strip():
        return False
    name = m.group("by")
    if name.endswith(".") and len(name.split()[-1]) > 2 and not _SUFFIX.search(name):
        return False  # a sentence's full stop, not an initial's
    return not _NOT_AUTHOR_BY.search(line[: m.start("by")])


def _closing_credit(doc: Document, main: etree._Element | None, params: Params) -> str | None:
    """The author credited at the end of an article: a byline line among
    the main content's last lines or the lines right after it ("Written by
    Jane Roe" above the author's bio), or, on a Chinese page, the names in
    brackets that close a line (the reporter's: ……举行。（张巨峰）)."""
    if main is None or main.tag == "body" or main not in doc.stats:
        return None  # the page's last lines are its footer's
    own = text_lines(main)
    start = doc.stats[main].line + len(own)
    last = own[-params.credit_lines :]
    after = text_lines(doc.body, limit=start + params.credit_lines)[start:]
    if name := _byline_author(last + after):
        return name
    if not is_chinese_page(doc):
        return None
    for line in last:
        if m := _CLOSING_NAMES.search(line):
            names = re.split(r"[\s、，,]+", m.group(1))
            if all(is_chinese_name(n) for n in names):
                return " ".join(names)
    return None


def _byline_author(lines: list[str]) -> str | None:
    for i, line in enumerate(lines):
        # "Written by" on a line of its own (nothing left once the label
        # is taken off), the name on the next.
        alone = line.strip() and not _BY_PREFIX.sub("", line.strip())
        if alone and i + 1 < len(lines) and (name := _as_name(lines[i + 1])):
            return name
        for m in _AUTHOR_TEXT.finditer(line[:200]):
            if m.lastgroup == "by" and not _is_byline_by(line, m):
                continue
            name = next(g for g in m.groups() if g).strip()
            if m.lastgroup == "slash" and not is_chinese_name(name):
                continue
            if name in _LABELS:  # 作者：责任编辑：张三
                continue
            # 记者 王小明 报道, 记者 王小明 通讯员 李四: the names end at a word
            # of the byline's own
            if name := _BYLINE_WORDS.split(name)[0].strip():
                return name
        for m in _RUN_ON_AUTHOR.finditer(line[:200]):
            if is_chinese_name(m.group(1)):
                return m.group(1)
    return None


def is_chinese_page(doc: Document) -> bool:
    return (doc.language or "").startswith("zh")


# -- language and image -------------------------------------------------------------


def _language(doc: Document) -> str | None:
    lang = doc.language or doc.meta.get("content-language") or doc.meta.get("og:locale")
    return primary_language(lang) if lang else None


def primary_language(tag: str) -> str:
    """A language tag's primary subtag, lower case ("zh-CN", "zh_TW" -> "zh"):
    how results (and so the stored articles) name a language."""
    return tag.strip().replace("_", "-").split("-")[0].lower()


def _image(
    doc: Document, objects: list[dict[str, Any]], main: etree._Element | None, params: Params
) -> str | None:
    base = doc.url
    for key in ("og:image", "og:image:url", "twitter:image", "twitter:image:src"):
        if value := doc.meta.get(key):
            return absolute_url(value, base)
    for obj in _article_objects(objects):
        image = obj.get("image")
        if isinstance(image, dict):
            image = image.get("url")
        if isinstance(image, list) and image:
            image = image[0].get("url") if isinstance(image[0], dict) else image[0]
        if isinstance(image, str) and image:
            return absolute_url(image, base)
    for img in (main if main is not None else doc.body).iter("img"):
        src = img.get("src") or img.get("data-src")
        if src and not src.startswith("data:") and _big_enough(img, params.min_image_px):
            return absolute_url(src, base)
    return None


def _big_enough(img: etree._Element, min_px: int) -> bool:
    for attr in ("width", "height"):
        value = (img.get(attr) or "").strip().rstrip("px")
        if value.isdigit() and int(value) < min_px:
            return False
    return True
