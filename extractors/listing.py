"""List-page records: group same-depth, same-class elements and rank them.

The I-AWCE seed (algorithm 2) notes that a list page's entries are elements at
one depth sharing a class name. It counts, for every (depth, class) key, how
often it occurs (O) and how much text it holds (L), ranks the keys by a score
R of both, keeps the top n=15 and takes the one with the greatest average text
length TL. The seed's formulas (4) and (5) are images lost from its text; we
use R = log(1 + O) * log(1 + L) (grows with both, neither dominates) and
TL = L / O.

Menus, tab bars and footers are repeated groups too, so the final choice among
the top n weighs general signals besides TL (see :func:`_score`): entries that
are one short link each, entries inside navigation-like containers (``nav``,
``header``, ``footer``, ``aside`` or a class/id saying menu, nav, footer...)
are penalised; entries with a date or with text beside their link (a snippet)
are preferred. A group of leaf elements (``a.title``) is lifted to the
ancestors that hold exactly one member each (the ``li`` around title + date),
so that a record carries its link, title, date and snippet together.

Class/id words are matched as whole parts ("main-nav", not "unavailable"),
and nothing inside ``<main>`` is chrome because of a wrapper's class. Groups
of checkbox/radio entries or buttons (filter facets and chips) count as
navigation; groups whose texts mostly repeat (font probes, cloned
carousels) are scaled down. One card
template nested at several depths (sections of a front page) is also scored
as one merged group. A record's text leaves out screen-reader-only labels
and parts repeating words already written (a card's title in its image
link, heading and small-screen copy); a record written as a title element
followed by sibling summary elements takes them along. Groups of records
mostly without links (FAQ paragraphs) are scaled down, and chosen records
that are sections of linked entries (a letter's or a category's links) give
way to their entries. A record drawn twice (same text and link: a cloned
carousel slide, a copy for another screen size) is kept once, in its fuller
form when the copy beside it has fewer words. Members that lift into
parts of one record (a card's image box and text box) move up to the card;
a group whose parents hold lists made of different kinds of elements (a
river beside a sidebar sharing its class) is scored list by list; a box
named as navigation that holds most of the page is a wrapper, not chrome.
Records drawn as runs of unlike sibling parts (a title row and a byline
row) are one record per run. A page's other lists of records (featured
cards above the river, a second results block) come with the main one,
each record marked by its region (``Params.more_regions``).
Record and benchmark: ``python -m benchmarks.lists``.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from lxml import etree

from .dates import find_date
from .document import (
    BLOCK_TAGS,
    HEADING_TAGS,
    Document,
    absolute_url,
    as_document,
    mark_parts,
    marks,
    screen_reader_only,
    text_pieces,
)
from .params import resolve_params
from .result import PageType, Record, Result
from .text import clean_text, collapse_ws

METHOD = "list"


@dataclass(frozen=True, slots=True)
class Params:
    """Thresholds of the list-record extractor."""

    # Seed: "将统计的衡量单元限定在n=15" — candidates kept after ranking by R.
    top_n: int = 15
    # A list has at least this many records (fewer is not a list; general).
    min_records: int = 3
    # Lift a group at most this many levels towards its records' containers.
    # 4 -> 5 with join_parts: a card's name in its image box sits five
    # levels below the box (少数派); no wcxb-dev list page changed.
    max_lift: int = 5
    # Lifted members that turn out to be parts of one record (a card's image
    # box and text box, one member each) move up to the record: see lift().
    # Not in the seed. On: wcxb-dev record F1 unchanged but for one unseen
    # grid (P 0.44 -> 0.89), portal lists 0.878 -> 0.898.
    join_parts: bool = True
    # Records averaging fewer non-space characters are "short entries" (menu
    # items: one or two words; a headline is longer). 12 ~ two English words
    # or six Chinese characters.
    short_entry: int = 12
    # Link density above which a record is "link only" (no snippet, no date).
    link_only: float = 0.9
    # Multipliers applied to the seed's TL-based choice (tuned by eye on
    # pagetype list pages, checked on wcxb-dev collection/listing):
    nav_penalty: float = 0.1  # entries inside navigation-like containers
    # A box whose class or id reads as navigation but which holds more than
    # this share of the page's text is a wrapper of the page, not chrome (a
    # forum's "boardnav" around its thread list, a "sticky-footer" layout
    # around everything); a nav, header, footer or aside tag stays chrome (a
    # docs sidebar holds 81% of a page's text). 1.0 = off. Not in the seed.
    # 0.6 / 0.7 / 0.8 / 0.9: wcxb-dev record F1 0.718 / 0.732 / 0.732 /
    # 0.732, portal lists 0.968 / 0.968 / 0.968 / 0.916.
    wrapper_share: float = 0.8
    short_link_penalty: float = 0.3  # short link-only entries (menus)
    # Records mostly without links (paragraphs: an FAQ, a description's
    # paragraphs beside the product grid). wcxb-dev tune half (even ids),
    # record F1 listing / collection: 1.0 (off) 0.781 / 0.612, 0.7 0.799 /
    # 0.621, 0.5 and 0.3 0.799 / 0.621 (lower P+R balance); 0.7 kept. It
    # costs the list method's whole-text char F1 on collection pages (tune
    # 0.648 -> 0.620, unseen 0.625 -> 0.616; listing unseen 0.683 -> 0.671):
    # the paragraphs passed over are part of those pages' truth text; auto's
    # char F1 on list pages moves by under 0.01. The DOM model of
    # classify.py was fitted on find_records with 1.0 and keeps asking for
    # that (classify.RECORD_PARAMS) until it is refitted.
    no_link_penalty: float = 0.7
    date_bonus: float = 0.5  # * share of records with a date
    # Records looked at for dates when scoring a group (speed only).
    date_sample: int = 12
    snippet_bonus: float = 0.3  # * share of records with text beside the link
    # A group with a smaller share of distinct texts is scaled by that share
    # (0 = off). Real lists repeat a story or two (0.6-0.9 distinct seen on
    # wcxb-dev tune pages); font probes and cloned menus are far below.
    min_distinct: float = 0.5
    # Also score a group merged with its template's groups at other depths.
    merge_templates: bool = True
    # A group whose members sit under several parents is split into lists
    # where the parents' entries are made of different kinds of elements:
    # two parents' entries belong to one list when the kinds inside most of
    # them (tag and class) share at least this part of their union (see
    # _lists_of). Not in the seed (its key is depth and class).
    split_lists: bool = True
    same_list: float = 0.5
    # Record text (not in the seed, whose output is the group's text): a
    # part of a record whose text repeats a part already written (the title
    # of an image link, then of the heading; a card's copy for another
    # screen size; "Regular price $9 Sale price $9") is left out when it
    # holds at least this many non-space characters. 0 = keep repeats.
    # Tried 0 / 1 / 3 / 8 on the wcxb-dev tune half (even ids).
    repeat_min_chars: int = 3
    # Record text: leave out screen-reader-only text (class "sr-only",
    # "visually-hidden", "screen-reader-text": labels such as "Sale price",
    # "Vendor:" that are not shown on the page). Not in the seed.
    drop_screen_reader: bool = True
    # Leave out records that are advertisements inserted among the entries:
    # the record, or a box in it holding at least half its text, is named
    # as one by a whole part of its class or id ("adOrigin", "ad-slot",
    # "sponsored") that most records do not carry, and it is less like the
    # entries inside than every unmarked record (a feed's promoted cards sit
    # in its slots; a sponsored product drawn as the grid's products stays).
    # Not in the seed.
    drop_adverts: bool = True
    # A record written as a run of siblings (a title paragraph, then its
    # summary paragraph; dt + dd; h2 + p) with no element of its own: when
    # every member is followed by the same run of at most this many
    # non-member siblings of one pattern (tag and class), the run belongs to
    # the record. 0 = off. Not in the seed (its records are single
    # elements). Tried 0 / 1 / 2 / 3 on the wcxb-dev tune half. When the
    # last member has no such run but the first has one before it, the
    # runs lead the records (h2 + div, h2 + div): each record is its run
    # and itself, titled and linked by the run when it has no heading or
    # link of its own. Records of one parent that come in runs of 2 to
    # max_followers + 1 parts, each run like the first and its parts unlike
    # inside (kinds shared under same_list), are one record per run (a
    # table's title row + byline row; stop 50: one NEXT-EVAL page changed,
    # no wcxb-dev or portal page).
    max_followers: int = 2
    # A chosen record that is itself a list (a letter or category section
    # holding a run of two or more linked entries) is replaced by its
    # entries when most records are such sections, their entries hold at
    # least this share of the records' text and there are min_records
    # entries per record on average. 0 = off. Not in the seed (its records
    # are one group's elements). wcxb-dev tune half (even ids), record F1
    # listing / collection: off 0.799 / 0.621, 0.3 0.802 / 0.624, 0.5
    # 0.802 / 0.633, 0.6 and 0.7 0.802 / 0.621.
    split_sections: float = 0.5
    # ...and when at least this share of those entries' texts are distinct:
    # colour swatches and sizes repeat from card to card. Changes nothing on
    # the tune half (0 / 0.5 / 0.8 / 0.95 equal); seen on an odd-id product
    # grid, whose swatch lists were split off as 353 records at 0.
    split_distinct: float = 0.8
    # ...and sections whose entries are of different kinds (a portal's
    # front: its news feed, a ranking, a column's headlines) give lists of
    # their own: the first by the seed's rank is the main list, the others
    # come after every region. False: all entries stay in the section
    # group's region. Not in the seed.
    section_regions: bool = True
    # Keep one record of each (text, link): copies are the same entry drawn
    # twice (cloned carousel slides, a copy for another screen size). Not in
    # the seed. On all 3,189 dataset pages auto changed on 10 list pages,
    # none with a lower char F1 (wcxb-dev even ids +0.0005, odd +0.0009);
    # wcxb-dev record P / R 0.651 / 0.696 -> 0.657 / 0.693. The same entry
    # drawn next to itself with fewer words (and the same link) is dropped
    # too: one more page changed (char F1 0.80 -> 0.93).
    drop_copies: bool = True
    # A page can hold more than one list of records (a result grid and a
    # table of the same items, featured cards above the river, a second
    # result block): another candidate group scoring at least this share of
    # the main list's score, outside navigation, most of its records linked,
    # sharing no element with a region already taken (nor a sibling part of
    # one's records) and mostly not copies of their texts, is a region of
    # records too (``Record.region`` 1, 2, ... in order of score; the main
    # list is 0). 0 = the main list alone. Not in the seed (its output is one
    # group). Chosen among 0.5-0.9 by record F1 on the tune half (even ids)
    # of benchmarks.lists, checked on the unseen half (docs/extraction.md);
    # the linked-records rule came from reading the tune half's regions
    # (three in four of those without links held no record of the truth).
    # A share: values over 1 count as 1.
    more_regions: float = 0.7


# Form controls hold option lists (countries, sizes), never records.
_FORM_CONTROLS = frozenset({"select", "option", "optgroup", "textarea", "button", "datalist"})
_NAV_TAGS = frozenset({"nav", "header", "footer", "aside", "menu"})
# Navigation/chrome marks, matched against whole parts of class/id/role
# tokens (split at spaces, "-", "_" and camelCase): a substring search took
# "tab-reorder-container" or "unavailable" for navigation.
_NAV_PARTS = frozenset(
    {
        "nav", "navbar", "navigation", "menu", "menubar", "menuitem", "footer", "header",
        "breadcrumb", "breadcrumbs", "sidebar", "copyright", "toolbar", "topbar",
        "masthead", "social", "share", "sharing", "pagination", "pager", "tablist",
        "dropdown", "banner", "cookie", "cookies",
    }
)  # fmt: skip
_NAV_SUFFIXES = ("nav", "menu", "navigation", "footer", "header", "breadcrumbs")
# A token naming the content itself ("entry-header", "content-sidebar-wrap")
# is not chrome, whatever else it says.
_CONTENT_PARTS = frozenset({"content", "entry", "article", "post", "body"})
# A modifier token says what the element holds or lacks ("has-sidebar",
# "no-header", "with-side-banner"), not that it is chrome itself.
_MODIFIER_PARTS = frozenset({"has", "no", "with", "without"})
# Class tokens that mark a state or a stripe, not a kind of element ("item
# active", a forum's "blockpost rowodd" beside "blockpost roweven").
_STATE_CLASS = re.compile(
    r"^(active|current|selected|on|first|last|(?:row[-_]?)?(?:odd|even)(?:[-_]?row)?|hover|open"
    r"|cur|clearfix)$",
    re.I,
)
_DIGITS = re.compile(r"\d+")


@dataclass(slots=True)
class _Group:
    key: tuple[Any, ...]
    members: list[etree._Element]
    text_len: int = 0
    nav_count: int = 0  # members inside navigation-like containers
    nav_factor: float = 1.0

    @property
    def count(self) -> int:
        return len(self.members)

    @property
    def rank(self) -> float:
        """The seed's ranking score R of occurrences and text length."""
        return math.log1p(self.count) * math.log1p(self.text_len) * self.nav_factor


@lru_cache(maxsize=4096)
def class_key(raw: str) -> str:
    """Class name without state tokens and numbering, so that siblings of one
    kind share it."""
    parts = {_DIGITS.sub("", t) for t in raw.lower().split() if not _STATE_CLASS.match(t)}
    return " ".join(sorted(p for p in parts if p))


def collect_groups(doc: Document, params: Params | None = None) -> list[_Group]:
    """Every (depth, tag, class, parent tag) key with its elements and text
    (the seed's RetrieveEle/UpdateInfo), in one walk that also notes which
    elements lie inside navigation-like containers."""
    params = params or Params()
    groups: dict[tuple[Any, ...], _Group] = {}
    stats = doc.stats
    body = doc.body
    # lxml lists the elements in page order, in C. An element's parent is
    # then the last element met one level up: ``up`` keeps, per depth, its
    # (tag, inside navigation), or None inside a form control. Subtrees
    # without text need no skipping: every element in them has none.
    up: dict[int, tuple[str, bool] | None] = {stats[body].depth: (body.tag, False)}
    wrapper = params.wrapper_share * stats[body].text_len
    elements = body.iter(etree.Element)
    next(elements)  # the body itself
    for el in elements:
        st = stats[el]
        if not st.text_len:
            continue
        depth = st.depth
        parent = up[depth - 1]
        tag = el.tag
        if parent is None or tag in _FORM_CONTROLS:
            up[depth] = None
            continue
        parent_tag, in_nav = parent
        cls = el.get("class")
        role = el.get("role")
        if tag == "main" or role == "main":  # _is_main
            in_nav = False
        elif not in_nav:  # _chrome, with the attributes read once
            if tag in _NAV_TAGS:
                in_nav = True
            elif st.text_len <= wrapper:
                marks = f"{cls or ''} {el.get('id') or ''} {role or ''}"
                in_nav = len(marks) > 2 and _nav_words(marks)
        up[depth] = (tag, in_nav)
        key = (depth, tag, class_key(cls or ""), parent_tag)
        group = groups.get(key)
        if group is None:
            group = groups[key] = _Group(key, [])
        group.members.append(el)
        group.text_len += st.text_len
        group.nav_count += in_nav
    for group in groups.values():
        group.nav_factor = params.nav_penalty if group.nav_count * 2 > group.count else 1.0
    return list(groups.values())


def lift(
    members: list[etree._Element],
    max_levels: int,
    body: etree._Element,
    join_parts: bool = True,
) -> list[etree._Element]:
    """Move every member up to its parent while the parents are distinct
    (each still holds exactly one record) and stay below ``body``, at most
    ``max_levels`` levels.

    Members that became parts of one record on the way up (a card's image
    box and text box, each holding one of the group's elements) move up to
    the record when ``join_parts``, whatever the levels climbed: when every
    parent holds the same run of members of distinct kinds (tag and class),
    the parent is the record."""
    levels = 0
    while True:
        parents = [m.getparent() for m in members]
        if any(p is None or p is body for p in parents):
            return members
        if len(set(parents)) < len(parents):
            if not (join_parts and _parts_of_records(members, parents)):
                return members
            members = list(dict.fromkeys(parents))
        elif levels < max_levels:
            members = parents
            levels += 1
        else:
            return members


def _parts_of_records(members: list[etree._Element], parents: list[etree._Element]) -> bool:
    """Whether the members come in runs, one per parent, of the same kinds in
    the same order, each kind once in a run (not a parent's list items)."""
    runs = [
        [_kind(m) for m in run]
        for _, run in itertools.groupby(members, key=lambda m: m.getparent())
    ]
    first = runs[0]
    return (
        len(runs) == len(set(parents)) >= 3
        and len(first) > 1
        and len(set(first)) == len(first)
        and all(run == first for run in runs)
    )


def _kind(el: etree._Element) -> tuple[str, str]:
    return el.tag, class_key(el.get("class") or "")


def _chrome(doc: Document, el: etree._Element, wrapper: float) -> bool:
    """Navigation or page chrome: by its tag, or by class/id/role words
    unless it holds more than ``wrapper`` characters (a wrapper of the page
    named after one of its parts; a ``<nav>`` is navigation at any size)."""
    if el.tag in _NAV_TAGS:
        return True
    return doc.stats[el].text_len <= wrapper and looks_like_navigation(el)


def looks_like_navigation(el: etree._Element) -> bool:
    """A navigation or page-chrome container, by tag or class/id/role words."""
    if el.tag in _NAV_TAGS:
        return True
    named = f"{marks(el)} {el.get('role') or ''}"
    return len(named) > 2 and _nav_words(named)


@lru_cache(maxsize=4096)
def _nav_words(marks: str) -> bool:
    return any(_nav_token(token) for token in marks.split())


def _nav_token(token: str) -> bool:
    parts = mark_parts(token)
    if any(p in _CONTENT_PARTS for p in parts) or (parts and parts[0] in _MODIFIER_PARTS):
        return False
    for part in parts:
        if part in _NAV_PARTS or (len(part) > 4 and part.endswith(_NAV_SUFFIXES)):
            return True
        if part.startswith(("nav", "menu", "breadcrumb", "paginat")) and part != "navy":
            return True
    return False


# Words of a share bar's class/id parts ("share-bar", "socialIcons",
# "sharedaddy"); "shared" alone is a shared style ("shared-styles__Header").
_SHARE_PART = re.compile(r"^(?:share(?!d$)|social|sns)")


def _share_bar(el: etree._Element) -> bool:
    """A share/like bar inside a record (not the record's own words)."""
    named = marks(el)
    return len(named) > 1 and _share_words(named)


@lru_cache(maxsize=4096)
def _share_words(marks: str) -> bool:
    return any(_SHARE_PART.match(part) for token in marks.split() for part in mark_parts(token))


def _in_navigation(doc: Document, el: etree._Element, wrapper_share: float) -> bool:
    """Whether the element or an ancestor below the page's main element looks
    like navigation or chrome (not a wrapper of the page, see
    ``Params.wrapper_share``). The answer is noted for every element on the
    way up (each has the same one), so the candidate groups' records, which
    share their ancestors, walk up only to the first element seen before."""
    known: dict[etree._Element, bool] = doc.derived(
        ("listing", "in_navigation", wrapper_share), dict
    )
    wrapper = wrapper_share * doc.stats[doc.body].text_len
    path: list[etree._Element] = []
    found = False
    node: etree._Element | None = el
    while node is not None and node is not doc.body:
        seen = known.get(node)
        if seen is not None:
            found = seen
            break
        path.append(node)
        if _is_main(node):  # neither it nor what holds it is chrome by its name
            break
        if _chrome(doc, node, wrapper):
            found = True
            break
        node = node.getparent()
    for node in path:
        known[node] = found
    return found


def _is_main(el: etree._Element) -> bool:
    """The page's declared main content (``<main>``, ``role=main``): what lies
    inside is not chrome because a wrapper's class says so."""
    return el.tag == "main" or el.get("role") == "main"


@dataclass(slots=True)
class _Candidate:
    records: list[etree._Element]
    score: float


def _score(
    doc: Document, records: list[etree._Element], params: Params, floor: float | None = None
) -> float | None:
    """How much a group looks like the page's records.

    The seed picks the greatest average text length TL among the top n; alone,
    TL lets three long footer paragraphs beat thirty headlines, so it is
    weighted by log(count), then by general signals that tell records from
    menus and footers: navigation-like containers, short link-only entries,
    dates, text beside the link. Entries of a list differ from each other: a
    group whose texts mostly repeat (font-metric probes, a cloned carousel)
    is scaled by its share of distinct texts.

    With ``floor`` (a score to beat: the best so far, or the share of it
    another region needs), None when the score cannot exceed it: the record
    texts and dates, most of the cost, are read only if the score with every
    record dated (the most the date bonus gives), then with all texts
    distinct (their share only scales down), would."""
    stats = doc.stats
    n = len(records)
    lengths = [stats[r].text_len for r in records]
    mean_len = sum(lengths) / n
    with_link = sum(1 for r in records if stats[r].link_count)
    link_only = sum(1 for r in records if stats[r].link_density > params.link_only)
    snippets = sum(
        1 for r in records if stats[r].link_count and stats[r].link_density <= params.link_only
    )
    share = params.wrapper_share
    nav = _in_navigation(doc, records[0], share) + _in_navigation(doc, records[-1], share)
    score = math.log1p(mean_len) * math.log1p(n)
    if nav:
        score *= 1 - (1 - params.nav_penalty) * nav / 2
    if link_only / n > 0.5 and mean_len < params.short_entry:
        score *= params.short_link_penalty
    if with_link / n < 0.5:
        score *= params.no_link_penalty
    choices = _choice_holders(doc)
    facets = sum(1 for r in records if r in choices and 2 * choices[r] >= stats[r].text_len) * 2 > n
    # The bounds hold when every factor left is non-negative and grows with
    # the dated share (float rounding is monotonic, so they hold exactly).
    if score < 0 or min(params.date_bonus, params.snippet_bonus, params.nav_penalty) < 0:
        floor = None
    if floor is not None:
        most = score * (1 + params.date_bonus * n / n + params.snippet_bonus * snippets / n)
        if (most * params.nav_penalty if facets else most) <= floor:
            return None
    sample = records[:: max(1, n // params.date_sample)]
    dated = sum(1 for r in sample if has_date(doc, r)) * n / len(sample)
    score *= 1 + params.date_bonus * dated / n + params.snippet_bonus * snippets / n
    if facets:
        score *= params.nav_penalty
    if floor is not None and score <= floor:
        return None
    distinct = len({_flat_text_of(doc, r) for r in records}) / n
    if distinct < params.min_distinct:
        score *= distinct
    return score


def _choice_holders(doc: Document) -> dict[etree._Element, int]:
    """The elements with a checkbox or radio button inside (or that are one),
    each with the longest text of the control's label (its first ancestor
    with text), or with a button inside and its text: filter facets and
    chips, not records, when that label is most of their text; a product
    card's "Compare" box or "Add to cart" button is a small part of it.
    Found once per page from its few controls rather than by a search of
    every candidate record's subtree."""

    def compute() -> dict[etree._Element, int]:
        stats = doc.stats
        holders: dict[etree._Element, int] = {}
        for i in doc.root.iter("input"):
            if (i.get("type") or "").lower() not in ("checkbox", "radio"):
                continue
            chain = [i, *i.iterancestors()]
            label = next((stats[a].text_len for a in chain if a in stats and stats[a].text_len), 0)
            for a in chain:
                holders[a] = max(holders.get(a, 0), label)
        # A button's text is its own label (filter chips, sort options).
        for b in doc.root.iter("button"):
            label = stats[b].text_len if b in stats else 0
            if label:
                for a in (b, *b.iterancestors()):
                    holders[a] = max(holders.get(a, 0), label)
        return holders

    return doc.derived(("listing", "choice_holders"), compute)


def _flat_text(el: etree._Element) -> str:
    return collapse_ws(" ".join(text_pieces(el)))


# The candidate groups share members (a group, its merge with the groups of
# its template, their lifted records): their texts and dates are read once
# per element of the document.
def _flat_text_of(doc: Document, el: etree._Element) -> str:
    texts: dict[etree._Element, str] = doc.derived(("listing", "flat_text"), dict)
    text = texts.get(el)
    if text is None:
        text = texts[el] = _flat_text(el)
    return text


def has_date(doc: Document, el: etree._Element) -> bool:
    """Whether the element's text holds a date (noted once per element)."""
    dated: dict[etree._Element, bool] = doc.derived(("listing", "dated"), dict)
    found = dated.get(el)
    if found is None:
        found = dated[el] = find_date(_flat_text_of(doc, el)) is not None
    return found


def find_records(doc: Document, params: Params | None = None) -> list[etree._Element]:
    """The record elements of the best group (empty if the page has none).

    Besides every top-n group alone, the union of a group with the groups of
    the same template (tag, class, parent tag) at other depths is scored: a
    front page nests one card template in sections of different depth, and
    the seed's depth key would keep each section apart. Groups whose texts
    mostly repeat the group's are not merged (copies for another screen)."""
    regions = find_regions(doc, params)
    return list(regions[0]) if regions else []


def find_regions(doc: Document, params: Params | None = None) -> list[list[etree._Element]]:
    """The record elements of each region of records: the main list (as
    :func:`find_records`) first, then the others (``Params.more_regions``)
    by score; empty if the page has no list."""
    params = params or Params()
    # Each region as the lists its sections split into: both layouts of
    # ``section_regions`` come from one search.
    searched = replace(params, section_regions=True)
    split = doc.derived(("records", searched), lambda: _find_regions(doc, searched))
    if params.section_regions:
        # The main list keeps its place; other lists of a region's sections
        # come after every region.
        return [list(lists[0]) for lists in split] + [
            list(more) for lists in split for more in lists[1:]
        ]
    stats = doc.stats
    return [
        list(lists[0])
        if len(lists) == 1
        else sorted(itertools.chain(*lists), key=lambda e: stats[e].index)
        for lists in split
    ]


def _find_regions(doc: Document, params: Params) -> list[list[list[etree._Element]]]:
    all_groups = collect_groups(doc, params)
    by_template: dict[tuple[Any, ...], list[_Group]] = {}
    for g in all_groups:
        if g.key[2] and g.nav_factor == 1.0:
            by_template.setdefault(g.key[1:], []).append(g)
    groups = [g for g in all_groups if g.count >= params.min_records]
    groups.sort(key=lambda g: g.rank, reverse=True)
    best: _Candidate | None = None
    scored: list[_Candidate] = []
    # A group below this share of the best so far can be neither the main
    # list nor another region (the best only grows).
    share = min(params.more_regions, 1.0) or 1.0
    seen: set[tuple[int, ...]] = set()
    for group in groups[: params.top_n]:
        options = _lists_of(group.members, params) if params.split_lists else [group.members]
        same = by_template.get(group.key[1:], [])
        if params.merge_templates and len(same) > 1:
            options.append(_merge(doc, group, same, params.min_records))
        for members in options:
            records = lift(members, params.max_lift, doc.body, params.join_parts)
            if members is not group.members:  # members of several depths may lift into each other
                records = _outermost(doc, records)
            ident = tuple(doc.stats[r].index for r in records)
            if ident in seen:
                continue
            seen.add(ident)
            score = _score(doc, records, params, best.score * share if best else None)
            if score is None:
                continue
            scored.append(_Candidate(records, score))
            if best is None or score > best.score:
                best = scored[-1]
    if best is None:
        return []
    regions = [best.records]
    if params.more_regions:
        regions += _more_regions(doc, best, scored, params)
    if params.drop_adverts:
        regions = [kept for region in regions if (kept := _without_adverts(doc, region))]
    if params.split_sections:  # a region of sections gives way to their entries
        return [_split_sections(doc, region, params) for region in regions]
    return [[region] for region in regions]


# Class/id parts naming an advertisement (whole parts: "adOrigin" is
# ad + origin; "header", "shadow" and "adv-search" are not).
_ADVERT_PARTS = frozenset(
    {"ad", "ads", "advert", "adverts", "advertisement", "advertising", "sponsored", "adsense"}
)


@lru_cache(maxsize=4096)
def _advert_words(marks: str) -> bool:
    return any(part in _ADVERT_PARTS for token in marks.split() for part in mark_parts(token))


def _without_adverts(doc: Document, records: list[etree._Element]) -> list[etree._Element]:
    """The records that are no advertisement inserted among the entries (see
    ``Params.drop_adverts``). A mark most records carry is the site's name
    for its cards (a feed whose every card is an "advertisementCardBox"),
    not an advertisement's. A marked record is an insert when it is less
    like the entries (the kinds of element inside most records) than every
    unmarked record is: a sponsored product drawn as the grid's products
    are is a product."""
    stats = doc.stats

    def advert_marks(record: etree._Element) -> set[str]:
        half = stats[record].text_len / 2
        found: set[str] = set()
        for el in record.iter(etree.Element):
            if stats[el].text_len >= half:
                found.update(t for t in marks(el).split() if _advert_words(t))
        return found

    found = [advert_marks(r) for r in records]
    shared = Counter(t for f in found for t in f)
    common = {t for t, n in shared.items() if n * 2 > len(records)}
    flagged = [r for r, f in zip(records, found, strict=True) if f - common]
    if not flagged:
        return records
    entry_kinds = _inner_kinds(records)
    likeness = {r: _alike(_inner_kinds([r]), entry_kinds) for r in records}
    least = min((likeness[r] for r in records if r not in flagged), default=1.0)
    return [r for r in records if r not in flagged or likeness[r] >= least]


def _more_regions(
    doc: Document, best: _Candidate, scored: list[_Candidate], params: Params
) -> list[list[etree._Element]]:
    """The other regions of records (see ``Params.more_regions``), by score:
    each outside navigation, most of its records linked, sharing no element
    with the main list or a region taken before it (a record, one inside or
    around one, or a sibling part of one: :func:`_companions`), and mostly
    not copies of their texts (the same items drawn again for another
    screen or as a table)."""
    stats = doc.stats
    taken: set[etree._Element] = set()
    around: set[etree._Element] = set()
    texts: set[str] = set()

    def parts_of(records: list[etree._Element]) -> list[etree._Element]:
        _, leaders, followers = _companions(records, params.max_followers, params.same_list)
        return [*records, *itertools.chain(*leaders, *followers)]

    def take(records: list[etree._Element], parts: list[etree._Element]) -> None:
        taken.update(parts)
        around.update(a for r in parts for a in r.iterancestors())
        texts.update(_flat_text_of(doc, r) for r in records)

    take(best.records, parts_of(best.records))
    regions: list[list[etree._Element]] = []
    for cand in sorted(scored, key=lambda c: c.score, reverse=True):
        records = cand.records
        if cand is best or cand.score < params.more_regions * best.score:
            continue
        if len(records) < params.min_records:
            continue
        if sum(1 for r in records if stats[r].link_count) * 2 < len(records):
            continue
        ends = (records[0], records[-1])
        if any(_in_navigation(doc, r, params.wrapper_share) for r in ends):
            continue
        parts = parts_of(records)
        if any(r in taken or r in around or taken.intersection(r.iterancestors()) for r in parts):
            continue
        if sum(_flat_text_of(doc, r) in texts for r in records) * 2 >= len(records):
            continue
        regions.append(records)
        take(records, parts)
    return regions


def _lists_of(members: list[etree._Element], params: Params) -> list[list[etree._Element]]:
    """A group's members split into the lists they belong to. The members
    under one parent holding at least ``min_records`` of them are one list's
    entries; two such parents' entries belong to one list when they are made
    of mostly the same kinds of elements (tag and class of the elements
    inside them: a river of stories with author, time and tags is not a
    sidebar of bare headlines sharing their class). Members of smaller
    parents (one card per grid cell) join the list whose kinds they share
    most, if alike. The group itself when it forms one list; else its
    lists."""
    by_parent: dict[etree._Element, list[etree._Element]] = {}
    for m in members:
        by_parent.setdefault(m.getparent(), []).append(m)
    big = [e for e in by_parent.values() if len(e) >= params.min_records]
    if len(big) < 2:
        return [members]
    lists: list[tuple[frozenset[tuple[str, str]], list[etree._Element]]] = []
    for entries in big:
        inside = _inner_kinds(entries)
        found = next(
            (found for kinds, found in lists if _alike(kinds, inside) >= params.same_list), None
        )
        if found is None:
            lists.append((inside, list(entries)))
        else:
            found.extend(entries)
    if len(lists) == 1:
        return [members]
    for entries in by_parent.values():
        if len(entries) < params.min_records:
            inside = _inner_kinds(entries)
            kinds, found = max(lists, key=lambda kf: _alike(kf[0], inside))
            if _alike(kinds, inside) >= params.same_list:
                found.extend(entries)
    order = {m: i for i, m in enumerate(members)}
    return [sorted(found, key=order.__getitem__) for _, found in lists]


def _inner_kinds(entries: list[etree._Element]) -> frozenset[tuple[str, str]]:
    """The kinds (tag, class) of element found inside most of the entries."""
    counts: Counter[tuple[str, str]] = Counter()
    for e in entries:
        counts.update({_kind(d) for d in e.iterdescendants(etree.Element)})
    return frozenset(k for k, n in counts.items() if 2 * n >= len(entries))


def _alike(a: frozenset[tuple[str, str]], b: frozenset[tuple[str, str]]) -> float:
    """The share of two sets of kinds in their union (1 for two empty sets)."""
    return len(a & b) / len(a | b) if a or b else 1.0


def _entry_run(doc: Document, record: etree._Element) -> list[etree._Element]:
    """The record's largest run of linked entries (empty if none has two):
    children of one element inside it sharing tag and class, each holding
    text and a link (table cells are a row's columns, not entries)."""
    stats = doc.stats
    best: list[etree._Element] = []
    best_len = 0
    for node in record.iter():
        if not isinstance(node.tag, str) or len(node) < 1:
            continue
        runs: dict[tuple[str, str], list[etree._Element]] = {}
        for child in node:
            st = stats.get(child) if isinstance(child.tag, str) else None
            if st is None or not st.text_len or child.tag in ("td", "th", "tr"):
                continue
            if not (st.link_count or (child.tag == "a" and child.get("href"))):
                continue
            runs.setdefault((child.tag, class_key(child.get("class") or "")), []).append(child)
        for run in runs.values():
            length = sum(stats[c].text_len for c in run)
            if len(run) > 1 and (len(run), length) > (len(best), best_len):
                best, best_len = run, length
    return best


def _split_sections(
    doc: Document, records: list[etree._Element], params: Params
) -> list[list[etree._Element]]:
    """Records that are sections of linked entries, replaced by their entries
    (see ``Params.split_sections``); other records are kept as they are.
    Sections whose entries are made alike (the entries' and their insides'
    kinds of element) are one list: an index's letters. Sections of other
    kinds are lists of their own (a portal's front: its news feed, a ranking,
    a column's headlines), the first by the seed's rank of a group (entries
    and text)."""
    stats = doc.stats
    runs = [_entry_run(doc, r) for r in records]
    text = sum(stats[r].text_len for r in records)
    inner = sum(stats[c].text_len for run in runs for c in run)
    entries = sum(len(run) for run in runs)
    sections = sum(1 for run in runs if run)
    if (
        sections * 2 <= len(records)
        or inner < params.split_sections * text
        or entries < params.min_records * len(records)
    ):
        return [records]
    # Entries of sections differ; options repeated in every card (colour
    # swatches, sizes) do not.
    distinct = len({_flat_text_of(doc, c) for run in runs for c in run}) / entries
    if distinct < params.split_distinct:
        return [records]
    lists: list[tuple[frozenset[tuple[str, str]], list[etree._Element]]] = []
    for record, run in zip(records, runs, strict=True):
        found = run or [record]
        kinds = _inner_kinds(found) | {_kind(e) for e in found}
        alike = next((f for k, f in lists if _alike(k, kinds) >= params.same_list), None)
        if alike is None:
            lists.append((kinds, list(found)))
        else:
            alike.extend(found)
    # By the seed's rank of a group: occurrences and text.
    return sorted(
        (f for _, f in lists),
        key=lambda f: -math.log1p(len(f)) * math.log1p(sum(stats[e].text_len for e in f)),
    )


def _merge(
    doc: Document, group: _Group, same: list[_Group], min_records: int
) -> list[etree._Element]:
    """The group with those of its template that are lists themselves (at
    least ``min_records``: a lone item of a header or body is no section)
    and mostly add new texts (a copy of the cards for another screen adds
    none)."""
    members = list(group.members)
    texts = {_flat_text_of(doc, m) for m in members}
    for other in same:
        if other is group or other.count < min_records:
            continue
        new = [_flat_text_of(doc, m) for m in other.members]
        if sum(t not in texts for t in new) * 2 > len(new):
            members.extend(other.members)
            texts.update(new)
    return _outermost(doc, members)


def _outermost(doc: Document, members: list[etree._Element]) -> list[etree._Element]:
    """Members in page order, without those nested inside another member."""
    chosen = set(members)
    kept = [m for m in members if not any(a in chosen for a in m.iterancestors())]
    return sorted(kept, key=lambda m: doc.stats[m].index)


def _main_link(doc: Document, el: etree._Element) -> etree._Element | None:
    """The record's title link: the one inside a heading, else the longest."""
    links = [a for a in el.iter("a") if a.get("href") and doc.stats.get(a)]
    if el.tag == "a" and el.get("href"):
        links.insert(0, el)
    for a in links:
        if _in_heading(a, el) or any(c.tag in HEADING_TAGS for c in a.iterdescendants()):
            return a
    return max(links, key=lambda a: doc.stats[a].text_len, default=None)


def _in_heading(a: etree._Element, record: etree._Element) -> bool:
    node = a.getparent()
    while node is not None and node is not record.getparent():
        if node.tag in HEADING_TAGS:
            return True
        node = node.getparent()
    return False


def _heading(el: etree._Element) -> etree._Element | None:
    for h in el.iter(*HEADING_TAGS):
        return h
    return None


_EDGE = "\x00"  # an inline tag's edge while the text is built
_CAMEL_EDGE = re.compile(
    r"(?<=[a-zA-Z])\x00+(?=\d)|(?<=[a-z])\x00+(?=[A-Z])|(?<=[A-Z0-9])\x00+(?=[A-Z][a-z])"
)


def _edge(tag: str) -> str:
    """What a tag's edge adds to a record's text: a space for a block, no
    break for a sub- or superscript (H2O, m2), else an inline edge."""
    if tag in BLOCK_TAGS:
        return " "
    return "" if tag in ("sub", "sup") else _EDGE


def record_text(el: etree._Element, params: Params | None = None) -> str:
    """A record's text on one line: words split by inline tags stay joined,
    blocks are spaced; form controls and share/menu bars inside are left out.
    Where an inline tag edge falls between a lower-case and an upper-case
    letter ("<span>Brand</span><span>Model</span>"), or between capitals or
    digits and a capitalised word ("<span>HOKA</span><span>Clifton</span>",
    "<span>AZ 85281</span><span>Phoenix</span>"), or between a letter and a
    digit ("<span>Weight</span><span>22 kg</span>"; not at a sub- or
    superscript: H2O), a space is put: such spans are laid out apart by CSS,
    and a glued "BrandModel" is no word.

    Screen-reader-only text is left out, and so is a part whose text repeats
    a part written before it (see ``Params.repeat_min_chars``; a part's text
    is noted once the part is written, so a link repeating its heading's
    words is not a repeat)."""
    params = params or _DEFAULT
    min_repeat = params.repeat_min_chars
    written: set[str] = set()  # texts of the parts already written
    parts: list[str] = []
    stack: list[tuple[etree._Element, str | None]] = [(el, None)]
    while stack:
        node, done = stack.pop()
        if done is not None:
            parts.append(_edge(node.tag))
            if node is not el and node.tail:
                parts.append(node.tail)
            if done:
                written.add(done)
            continue
        tag = node.tag
        key = ""
        if node is not el and isinstance(tag, str) and min_repeat:
            key = "".join("".join(text_pieces(node)).split())
            if len(key) < min_repeat:
                key = ""
        if not isinstance(tag, str) or (
            node is not el
            and (
                tag in _FORM_CONTROLS
                or _share_bar(node)
                or (params.drop_screen_reader and screen_reader_only(node))
                or key in written
            )
        ):
            if node is not el and node.tail:
                parts.append(node.tail)
            continue
        parts.append(_edge(tag))
        if node.text:
            parts.append(node.text)
        stack.append((node, key))
        stack.extend((child, None) for child in reversed(node))
    text = collapse_ws(_CAMEL_EDGE.sub(" ", "".join(parts)).replace(_EDGE, ""))
    return text if text.isprintable() else collapse_ws(clean_text(text))


def to_record(
    doc: Document,
    el: etree._Element,
    base: str | None,
    params: Params | None = None,
    followers: list[etree._Element] | None = None,
    leaders: list[etree._Element] | None = None,
) -> Record:
    """A Record with the entry's text, title, absolute link and ISO date;
    ``leaders`` and ``followers`` are siblings before and after ``el`` that
    belong to the record."""
    text = record_text(el, params)
    if followers or leaders:
        parts = [*(leaders or ()), el, *(followers or ())]
        text = collapse_ws(" ".join(record_text(part, params) for part in parts))
    link = _main_link(doc, el)
    heading = _heading(el)
    for lead in leaders or ():
        link = link if link is not None else _main_link(doc, lead)
        heading = heading if heading is not None else _heading(lead)
    title_el = heading if heading is not None else link
    title = collapse_ws(clean_text(_flat_text(title_el))) if title_el is not None else None
    url = _address(link, base) if link is not None else None
    return Record(text=text, url=url, title=title or None, date=find_date(text))


def record_url(doc: Document, el: etree._Element, base: str | None) -> str | None:
    """The absolute link of a record's title (:func:`to_record`'s ``url``),
    without reading its text."""
    link = _main_link(doc, el)
    return _address(link, base) if link is not None else None


def _address(link: etree._Element, base: str | None) -> str | None:
    href = (link.get("href") or "").strip()
    if not href or href.lower().startswith(("javascript:", "#", "mailto:")):
        return None
    return absolute_url(href, base)


_DEFAULT = Params()


Runs = list[list[etree._Element]]


def _companions(
    elements: list[etree._Element], limit: int, same_list: float
) -> tuple[list[etree._Element], Runs, Runs]:
    """The records with, for each, the siblings before it and those after it
    that belong to it (see ``Params.max_followers``), found among the records
    of each parent in turn (a list laid out in columns). A heading of one
    class right before each record, which has none inside it, is its title.
    Records of one parent that come in like runs of parts (:func:`_cycle`)
    are one record per run."""
    if limit and len(elements) > 1:
        heads = [next(el.itersiblings(etree.Element, preceding=True), None) for el in elements]
        if all(h is not None and h.tag in HEADING_TAGS for h in heads) and (
            len({class_key(h.get("class") or "") for h in heads}) == 1
            and all(_heading(el) is None for el in elements)
        ):
            return elements, [[h] for h in heads], [[] for _ in elements]
    records: list[etree._Element] = []
    leaders: Runs = []
    followers: Runs = []
    for _, group in itertools.groupby(elements, key=lambda e: e.getparent()):
        children = list(group)
        period = _cycle(children, limit, same_list)
        if period:
            runs = [children[i : i + period] for i in range(0, len(children), period)]
            title = _title_part(runs)
            records += [run[title] for run in runs]
            leaders += [run[:title] for run in runs]
            followers += [run[title + 1 :] for run in runs]
            continue
        before, after = _companions_of_children(children, limit)
        records += children
        leaders += before
        followers += after
    return records, leaders, followers


def _signature(el: etree._Element) -> tuple[tuple[str, str], frozenset[tuple[str, str]]]:
    """An element's kind and the kinds of its children."""
    return _kind(el), frozenset(_kind(c) for c in el.iterchildren(etree.Element))


def _cycle(elements: list[etree._Element], limit: int, same_list: float) -> int:
    """The length of the runs the records of one parent come in, when each
    record is drawn as a run of 2 to ``limit + 1`` sibling parts (a table's
    title row and its byline row), else 0. The parts of a run differ in kind
    or in the kinds of their children and every run repeats the first
    one's, at least three times; and the parts are unlike inside
    (:func:`_alike` under ``same_list``): cards alternating left and right
    are alike inside, each a record."""
    signatures = [_signature(el) for el in elements]
    for period in range(2, limit + 2):
        if len(elements) % period or len(elements) < 3 * period:
            continue
        first = signatures[:period]
        if len(set(first)) < period:
            continue
        if any(sig != first[i % period] for i, sig in enumerate(signatures)):
            continue
        parts = [_inner_kinds(elements[i::period]) for i in range(period)]
        if all(_alike(a, b) < same_list for a, b in itertools.combinations(parts, 2)):
            return period
    return 0


def _title_part(runs: list[list[etree._Element]]) -> int:
    """The part of each run that holds its title: the one with a heading,
    else the one whose main link is longest over the runs."""
    period = len(runs[0])
    for i in range(period):
        if all(_heading(run[i]) is not None for run in runs):
            return i

    def link_chars(i: int) -> int:
        total = 0
        for run in runs:
            links = [len("".join(text_pieces(a))) for a in run[i].iter("a") if a.get("href")]
            total += max(links, default=0)
        return total

    return max(range(period), key=link_chars)


def _companions_of_children(elements: list[etree._Element], limit: int) -> tuple[Runs, Runs]:
    """:func:`_companions` of records that are children of one parent: when
    every gap between two of them is the same run of one to ``limit``
    non-record elements (same tags and classes in each gap)."""
    none: Runs = [[] for _ in elements]
    if not limit or len(elements) < 2:
        return none, none
    members = set(elements)
    runs: list[list[etree._Element]] = []
    for el in elements:
        run: list[etree._Element] = []
        for sib in el.itersiblings():
            if sib in members or len(run) > limit:
                break
            if isinstance(sib.tag, str):
                run.append(sib)
        runs.append(run)
    pattern = _shape(runs[0])
    if not pattern or len(pattern) > limit:
        return none, none
    if any(_shape(run) != pattern for run in runs[:-1]):
        return none, none
    last = runs[-1][: len(pattern)]
    if _shape(last) == pattern:
        return none, [*runs[:-1], last]
    # None after the last record but one before the first: the runs lead.
    before = list(elements[0].itersiblings(etree.Element, preceding=True))
    first = before[: len(pattern)][::-1]
    if _shape(first) == pattern:
        return [first, *runs[:-1]], none
    return none, [*runs[:-1], []]


def _shape(run: list[etree._Element]) -> list[tuple[str, str]]:
    """The tags and class patterns of a run of siblings."""
    return [(e.tag, class_key(e.get("class") or "")) for e in run]


def extract(
    html: str | bytes | Document,
    url: str | None = None,
    params: Params | None = None,
    **overrides: Any,
) -> Result:
    """Records of a list page (``result.records``, in page order, each with
    its region: 0 for the main list; their text one per line)."""
    p = resolve_params(params, overrides, Params)
    doc = as_document(html, url)
    result = Result(method=METHOD, title=doc.title, page_type=PageType.LIST)
    regions = find_regions(doc, p)
    if not regions:
        return result
    base = url or doc.url
    placed: list[tuple[int, Record]] = []  # (page position, record)
    for number, region in enumerate(regions):
        elements, leaders, followers = _companions(region, p.max_followers, p.same_list)
        for el, before, after in zip(elements, leaders, followers, strict=True):
            record = to_record(doc, el, base, p, after, before)
            record.region = number
            placed.append((doc.stats[el].index, record))
    records = [record for _, record in sorted(placed, key=lambda pr: pr[0])]
    result.records = _distinct(records) if p.drop_copies else [r for r in records if r.text]
    result.text = "\n".join(r.text for r in result.records)
    result.node = _common_parent(regions[0])
    return result


def _distinct(records: list[Record]) -> list[Record]:
    """Records with text, each (text, link) once: a copy is the same entry
    rendered again (a cloned carousel slide, a copy for another screen size).
    A record with the previous one's link whose words are a part of its
    words, or the reverse, is the same entry in a narrower layout: the fuller
    of the two is kept. What is kept is in the lower region of the two (the
    main list's, when one of them is in it)."""
    seen: dict[tuple[str, str | None], Record] = {}
    out: list[Record] = []
    for r in records:
        if not r.text:
            continue
        key = (r.text, r.url)
        if key in seen:  # a copy: it stays in the lower of the two regions
            seen[key].region = min(seen[key].region, r.region)
            continue
        seen[key] = r
        last = out[-1] if out else None
        if last is not None and r.url and r.url == last.url and _same_words(r.text, last.text):
            r.region = last.region = min(r.region, last.region)
            if len(r.text) > len(last.text):
                out[-1] = r
            continue
        out.append(r)
    return out


def _same_words(a: str, b: str) -> bool:
    """Whether the words of the shorter text all occur in the longer one."""
    short, long_ = sorted((Counter(a.split()), Counter(b.split())), key=lambda c: c.total())
    return not short - long_


def _common_parent(elements: list[etree._Element]) -> etree._Element | None:
    """The nearest element holding all records (for callers that combine
    methods): the common prefix of their ancestor paths."""
    common = list(reversed(list(elements[0].iterancestors())))
    for el in elements[1:]:
        path = list(reversed(list(el.iterancestors())))
        n = 0
        while n < min(len(common), len(path)) and common[n] is path[n]:
            n += 1
        common = common[:n]
    return common[-1] if common else None
