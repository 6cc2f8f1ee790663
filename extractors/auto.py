"""``extract(method="auto")``: classify the page, route it, combine methods.

Stages, each a small function:

1. Parse once (:func:`as_document`); every candidate method reads the same
   tree, so running several costs their walks, not their parses.
2. Run the candidate extractors (CETD, SCEDD, I-AWCE, layout
   similarity — with the caller's reference pages of the URL group —
   jusText, and boilerpipe unless the others already agree).
3. Classify the page from the DOM (article / list / other; short / long).
4. List pages -> list records. Articles -> the candidates' *medoid*: the
   output that agrees most with all the others (weighted line overlap).
   Each method fails in its own way (boilerpipe drops short pages,
   CETD keeps comment blocks, AWCE cuts long pages...); the output closest
   to the rest is rarely one of the failures. Short pages go to SCEDD, the
   seed's short-content method, unless it disagrees with the consensus.
   When the page's markup names one article-body box and the chosen output
   lies mostly outside it, the box wins (:mod:`extractors.markup`).
   When the page declares its body (JSON-LD ``articleBody``) and the output
   disagrees with it, the candidate agreeing with it is taken; when it
   declares a product whose description the output lacks, the candidate
   holding the description is.
   When the chosen body is a small part of the page's ``<main>`` on a
   page declaring no article (a landing page's sections), the main is taken;
   when it is one chapter (a ``<section>`` under a heading) of the page's
   article or main, divided into such chapters, that box is.
   When the body is one post of a thread, every post is taken
   (:mod:`extractors.posts`); a stream of teasers of the pages beside this
   one, after the story, leaves its text.
   A recipe's ingredient box the text lacks, when the page declares its
   ingredients, joins the text (:mod:`extractors.recipe`).
5. Post-process: drop a leading headline and generic boilerplate lines
   (:mod:`extractors.boilerplate`), attach metadata (:mod:`extractors.metadata`).
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace
from datetime import date, datetime
from itertools import chain
from typing import Any, TypeVar

from .boilerplate import clean_lines, cut_related_tail
from .classify import (
    RECORD_PARAMS,
    Classification,
    classify,
    declares_article,
    declares_product,
    declares_thread,
    names_a_post,
    names_a_thread,
    page_url,
    sibling_url,
    url_shape,
)
from .dates import find_datetime
from .document import (
    HEADING_TAGS,
    PREFORMATTED_TAGS,
    Document,
    absolute_url,
    as_document,
    mark_parts,
    marks,
    named_boxes,
    text_content,
    text_lines,
)
from .layout import check_reference
from .listing import find_records, record_url, to_record
from .markup import body_container, main_landmark
from .metadata import date_records, declared_body, declared_description, extract_metadata
from .pagination import in_series, next_page, numbered_parts
from .params import resolve_params
from .posts import post_lines, thread_posts
from .recipe import missing_ingredients
from .result import LengthClass, PageType, Record, Result
from .text import PRE_BREAK, collapse_ws, nonspace_len, share_on_lines, tokens, without_copies

__all__ = ["Params", "extract", "medoid"]

log = logging.getLogger(__name__)
METHOD = "auto"
# A paragraph line: this many non-space characters.
LONG_LINE_CHARS = 60
# A list entry holds a headline and a snippet: at most this many paragraphs.
MAX_ENTRY_PARAGRAPHS = 2


@dataclass(frozen=True, slots=True)
class Params:
    # The voters. Chosen on daniel-zh/zh-news/daniel-en (all pages): the
    # medoid of these six beat every 4- and 5-method subset and the 7-method
    # set with boilerpipe-default (which duplicates boilerpipe's errors).
    candidates: tuple[str, ...] = ("cetd", "scedd", "awce", "layout", "justext", "boilerpipe")
    # SCEDD's output is taken for a short page when its line overlap with the
    # medoid is at least this (otherwise the consensus wins: SCEDD failed).
    short_agreement: float = 0.5
    # A cascade: the first ``first_round`` candidates run first; when their
    # medoid agreement reaches ``first_round_agreement`` the others (here
    # boilerpipe alone, the costliest: ~30% of auto's time) would only
    # confirm the consensus and are not run; > 1 = always all. Chosen on the
    # even half (60 pages per set) of daniel-en/zh, zh-news, magic-html,
    # wcxb-dev, readability and trafilatura-eval, among the first 3, 4 or 5
    # (this order; layout or jusText last) and 0.7-0.95: the largest saving
    # with every set within 0.002 of running all six. With 4 first (jusText
    # second too) every threshold cost trafilatura-eval 0.009-0.012. Odd
    # half: 0.80x the time, every set within 0.0015 of all six.
    first_round: int = 5
    first_round_agreement: float = 0.8
    # A page the DOM model calls a list is extracted as a list only when the
    # article methods disagree (medoid agreement under this): on a real list
    # there is no one body for them to agree on, while link-heavy portal
    # articles, which the DOM model alone often calls lists, get a consensus
    # body. Chosen among 0.4-0.7 on pagetype + wcxb-dev (first 400) + 150
    # DAnIEL/zh-news articles: 0.5 kept 3 of 151 news articles misrouted.
    list_max_agreement: float = 0.5
    # ...or when the DOM model is this sure of a list, however much the
    # article methods agree (they agree on one entry, or on a description
    # above the grid) and however many long lines their body has (the model
    # reads both itself). 0.9 and 0.97 tried on all 3,189 pages: 0.9 moved
    # 12 (7 better; an article and a service page to lists), 0.97 moved 3
    # list pages, all better. Once the long lines no longer vetoed a sure
    # list (2026-11-27): val page types 0.9009 -> 0.9151 (3 more lists, no
    # article lost), wcxb-dev text +0.0009 (7 list pages better, one
    # 639-record article worse); 0.9 then gained 2 more val lists but lost
    # a val article and turned two dev articles into lists. Raised to 0.99
    # when the DOM model learnt prices and declarations (2026-12-06): its
    # refit is surer, and at 0.97 it sent a journal article and two forum
    # threads to the list route. On all 3,189 pages against the former
    # model at 0.97: 0.97 changed 37 (17 better, 16 worse), 0.98 30 (14 /
    # 12), 0.99 25 (14 better, 8 worse; wcxb-dev +0.0012, magic-html and
    # trafilatura-eval one page worse each). > 1 turns it off.
    list_sure_probability: float = 0.99
    # ...or when the records are the consensus body: their container holds at
    # least this share of the main node's text (small index pages, where
    # every article method picks the list itself).
    list_main_share: float = 0.5
    # A list is "tight" when its records hold this share of their container's
    # text; an article method that picks one record of it found the list.
    list_tight_share: float = 0.8
    # Records of a list are entries (a headline, a date, a snippet), at most
    # this many characters on average; longer "records" are page sections.
    list_record_chars: int = 300
    # ...and most of them link somewhere (an entry leads to its page).
    list_linked_share: float = 0.5
    # A page is an article after all when the article consensus has this many
    # long lines (>= 60 chars): chosen among 3-12 on pagetype + wcxb-dev (first
    # 400) + 150 DAnIEL/zh-news pages, best text F1 (no news article left
    # with list text), at a cost in list recall.
    list_max_long_lines: int = 3
    # ...or when the page is short, the consensus body is a teaser (its
    # headline links to another page) and the linked entries hold at least
    # this multiple of its text: a front page whose article methods all agree
    # on the lead story's paragraph among many headlines.
    short_list_records_share: float = 1.0
    # A short page the DOM model calls an article is a list when its
    # consensus body is one of at least this many like teasers (each under a
    # headline linking elsewhere). On all 3,189 dataset pages and the 273
    # pagetype pages no page has two (none changes); the last page of a
    # paginated list does. 0 turns it off.
    teaser_list_entries: int = 2
    # ...and one teaser is enough on a page of a series (rel=prev/next, or a
    # link worded so): the last page of a paginated list holds one entry.
    # No page of the 3,189 dataset pages and 273 pagetype pages changes.
    teaser_alone_when_paged: bool = True
    # ...or when the consensus is a line or two (under this many non-space
    # characters: a section's description) and the linked entries hold at
    # least this multiple of its text. Not tuned (the first values tried);
    # all 3,189 pages: 3 wcxb-dev list pages changed, all better; a short
    # daniel-zh story in an unlinked table row stays an article (the boxed
    # guard below). 0 turns it off.
    list_tiny_body_chars: int = 200
    list_tiny_body_ratio: float = 3.0
    # A "record" without a link of its own that holds this share of the
    # article consensus (by its lines) is the article's box, not an entry:
    # a table laid out page whose rows make a record group, one row holding
    # the whole story. Such a page stays an article; > 1 turns it off.
    list_unlinked_body_share: float = 0.5
    # ...and so is a linked one holding that share when its text is at least
    # this share of all the records' text: entries of a list are alike, a
    # page laid out in table rows (menu, story, footer) is not. Not tuned
    # (the principle): all 3,189 pages, one daniel-en page changed (0.66 ->
    # 1.00); no labelled page changed type. > 1 turns it off.
    list_dominant_record_share: float = 0.5
    # Records this share of whose links (and two at least) lead back into
    # the page (its comments) or to pages of its own URL shape
    # (:func:`classify.url_shape`) are not what the page lists: the page is
    # an article with its siblings beside it (most read, related, the
    # author's other posts), not their index. > 1 turns it off.
    list_sibling_share: float = 0.5
    # An article's lead paragraphs often sit in their own box above the body
    # (a standfirst, a dateline paragraph): the container methods agree on the
    # body without them. The paragraphs (lines of at least this many
    # non-space characters) that another candidate has right above the
    # chosen output's first line, up to the first shorter line and at most
    # this many, are put back. Chosen on the even half of daniel-en among
    # 40-100 chars and 1-3 candidates, short lines skipped 0-2: 60 chars, one
    # candidate, none skipped (odd half, daniel-zh, wcxb-dev better too).
    lead_min_chars: int = LONG_LINE_CHARS
    lead_max_lines: int = 20
    # When at least ``extend_candidates`` other candidates hold the chosen
    # output (``extend_inside`` of its text, by whole lines, both as cleaned
    # later) and go on past it (``extend_ratio`` times its length or more,
    # at least ``extend_long_share`` of the rest in long lines: prose, not a
    # link list), the chosen one stopped short (at a code block, a table, a
    # figure): the shortest of them is taken. The medoid alone cannot see
    # this when the candidates split three to three. Not in a seed. Chosen
    # on the even half (crc32 of the page key) of all seven sets, among
    # 2-4 candidates, 0.9-0.97 inside, 1.3-2.0 ratio, 0.3-0.8 long share
    # (each candidate's cleaned output scored): 3 / 0.9 / 1.3 / 0.3 was the
    # best with 3 (2 gained more on the tuning half but lost on daniel-en,
    # magic-html and zh-news). In auto, all pages: 0.3 changed 33 pages
    # (25 better), 0.5 changed 25 (19 better), 0.7 changed 19 (14
    # better); 0.5 kept. A candidate whose extra text lies mostly in boxes
    # named for comments (class or id: comment, disqus, respond)
    # goes on into the readers' comments and does not count: 2 daniel-en
    # stories back (0.74 -> 0.97, 0.78 -> 1.00), 3 pages whose comments are
    # their content lost the extension (a blog, a lobste.rs thread). Two
    # are enough when they found one and the same node (two methods agree
    # on the body; stop 60: 17 pages changed, 13 better, 3 worse: a page
    # wrapper or main going on into a feed's teasers or a shop's blurbs).
    # On a forum thread's page (declared, or by its address) one is enough
    # (``extend_thread_candidates``): the methods that take the densest box
    # take one post, and one that holds it and goes on holds the other posts
    # (stop 61: 11 wcxb-dev threads changed, 7 better, up to 0.37 -> 0.95;
    # 4 worse, whose truth is the opening post alone), and a quarter of the
    # rest in long lines is enough there (``extend_thread_long_share``:
    # replies are often one short line; 0, 0.25 and 0.5 tried on the 107
    # thread pages of all sets: 0 moved 4, 2 better; 0.25 moved 2, both
    # better). 0 candidates turns it off (each for its pages).
    extend_candidates: int = 3
    extend_thread_candidates: int = 1
    extend_inside: float = 0.9
    extend_ratio: float = 1.3
    extend_long_share: float = 0.5
    extend_thread_long_share: float = 0.25
    # A second copy of a run of at least ``copy_min_paragraphs`` different
    # paragraphs, in the same order, is cut from the output when the copies
    # hold ``copy_min_share`` of its text or more (``text.without_copies``):
    # a page may hold its body twice (a site builder's variant per screen
    # width, hidden by a stylesheet; a thread quoting whole posts). Not in a
    # seed. Stop 61, on all pages: any such copy (share 0) changed 40 pages,
    # 24 better and 13 worse (pricing cards and tabs repeating a few lines,
    # which the truths keep); a quarter changed 12, 9 better, 2 worse (a
    # synthetic test whose lorem-ipsum lines repeat). 0 turns it off.
    copy_min_paragraphs: int = 3
    copy_min_share: float = 0.25
    # A paragraph (a line of at least ``gap_min_chars`` non-space
    # characters) that at least ``gap_candidates`` other candidates have
    # between the same two consecutive lines of the chosen output is put
    # back there: the chosen method dropped it inside the body (CETD's link
    # density drops a paragraph with several inline links). A block of code
    # (a ``<pre>`` of one line or more, however short; not a gutter of line
    # numbers) needs one: jusText, boilerpipe and SCEDD drop code, which is
    # no prose, from a tutorial or a manual. A list item of the page (not a
    # link's: ``_item_lines``) counts however short, as two others agree on
    # it: "The plan includes:" and its items. So does a section's heading
    # (h2-h6, no link, said once on the page: ``_heading_lines``) that is
    # all the others hold between the two lines: issue 4 keeps headings as
    # lines, and SCEDD and jusText drop them for their length. 0 turns it off.
    gap_candidates: int = 2
    gap_min_chars: int = LONG_LINE_CHARS
    # The body's headline is looked for in it and this many ancestors up.
    headline_levels: int = 3
    # When the page's markup names one article-body box
    # (:mod:`extractors.markup`) holding at least ``markup_min_chars``
    # non-space characters, and under ``markup_max_inside`` of the chosen
    # output lies in it, the box's text is taken instead: every method went
    # for another block. 0 chars turns it off.
    markup_min_chars: int = 500
    markup_max_inside: float = 0.7
    # ...unless the methods agree at least this much: then they found the
    # body, and a box the markup names elsewhere is a teaser or a sidebar's
    # (not in a seed; of the 42 pages the box changes, the 2 with an
    # agreement over 0.82 were the 2 it made much worse, 0.98 -> 0.09 and
    # 0.36 -> 0.18; read off all pages, not held out).
    markup_max_agreement: float = 0.9
    # When the page declares its body (JSON-LD articleBody, this many
    # characters or more) and the output's words agree with it less than
    # declared_min_f1 (word-multiset F1), the candidate agreeing most takes
    # its place if it agrees at least that much and declared_margin more.
    # Not in a seed. Chosen among 0.6 / 0.85 / 0.9 / 0.95 (and a candidate's
    # 0.8 / 0.9) on all pages: every changed page better at 0.9 / 0.9;
    # > 1 turns it off.
    declared_min_f1: float = 0.9
    declared_margin: float = 0.05
    declared_min_chars: int = 200
    # When the page declares a product's description (JSON-LD Product
    # ``description``, this many non-space characters or more) and the
    # output, as cleaned later, holds under ``described_max_held`` of its
    # words, the medoid of the candidates holding ``described_held`` of them
    # takes its place (the whole cascade is asked): the others went for the
    # reviews, the shop's pledges or the newsletter box. Not in a seed.
    # 0.5 first, 0.7 after reading one page (docs/extraction.md: what it
    # changed on all 3,189 pages). > 1 turns it off.
    described_min_chars: int = 80
    described_max_held: float = 0.7
    described_held: float = 0.8
    # A story whose pages all come in one page, in sibling boxes numbered in
    # their ids (``page1``, ``page2``; :func:`pagination.numbered_parts`),
    # is joined when the chosen body is one of them. Not in a seed.
    numbered_parts: bool = True
    # A landing page (a product's or a service's home) is a row of sections
    # under headings; the methods take its densest one. When the chosen
    # output is under ``landing_max_share`` of the text of the page's one
    # ``<main>`` landmark (both as cleaned later) that holds it, not within
    # an ``<article>`` there, that main has under ``landing_max_link_density``
    # of its text in links and no comment boxes, and the page declares no
    # article, product or thread, the main's text is taken. Not in a seed. Chosen on all 3,189 pages
    # (not held out) among 0.3 / 0.4 / 0.5 share and 0.2 / 0.3 / 0.5 / any
    # link density; see docs/extraction.md for what changed. 0 turns it off.
    landing_max_share: float = 0.4
    landing_max_link_density: float = 0.5
    # A document divided into chapters (HTML ``<section>`` elements, each
    # opening with a heading: a manual's or a reference page's) gets its
    # densest chapter taken by the methods. When the chosen node lies in
    # such a chapter, beside another, in a run of nested sections that are
    # the parts of the page's one ``<article>`` (or its one ``<main>``), the
    # page declares no product, and the output is under
    # ``sections_max_share`` of that box's text (both as cleaned later), the
    # box's text is taken, unless it holds comment boxes or
    # ``landing_max_link_density`` of its text in links. Not in a seed.
    # 0 turns it off.
    sections_max_share: float = 0.6
    # A recipe's ingredient box joins the text when the page declares its
    # ingredients (schema.org JSON-LD) and the text lacks most of them
    # (:mod:`extractors.recipe`). Not in a seed. All 3,189 pages: 9
    # trafilatura-eval recipes changed, none worse (even half +0.0004, odd
    # +0.0039); no other set has such a page without its list.
    recipe_ingredients: bool = True
    # A standfirst (the summary line under the headline) is the page's own
    # description said again: an element after the page's ``<h1>``, before
    # the body, whose whole text is the ``description`` (or og: or twitter:
    # description) meta, at least this many non-space characters. The
    # methods take the body below it; the line is put back at the top.
    # Not in a seed. Stop 62, all 3,189 pages: trafilatura-eval (whose
    # truths keep standfirsts) 59 changed, 19 better, 1 worse (0.9266 ->
    # 0.9323); daniel-en, wcxb-dev, magic-html and readability, whose truths
    # mostly leave them out, 0.00-0.02 worse on 63 pages, 33 better, their
    # means within 0.0003. Without the ``<h1>`` test 26 pages more, 16
    # worse. 0 turns it off.
    standfirst_min_chars: int = 30
    # A forum thread's (a Q&A page's, a guide's) posts, when the chosen body
    # is one of them, are all taken (:mod:`extractors.posts`). Not in a seed.
    # All 3,189 pages: wcxb-dev forum threads 0.677 -> 0.744 (with the
    # furniture lines left out); no news set changed (docs/extraction.md).
    thread_posts: bool = True
    # Readers' comments ending the chosen text (lines lying in boxes named
    # "comments" / "disqus" / "respond") are cut when what stays is an
    # article: at least ``comments_min_long_lines`` long lines and at least
    # as much text as the comments (``comments_max_share`` of the whole);
    # a forum's replies, a guide's testimonials are the page. Not in a seed.
    # A first trial without the bounds (and "reply" boxes counted) cut four
    # wcxb-dev forum threads, a docs section and a product's testimonials,
    # each keeping under 3 long lines or less text than it cut; with them,
    # all 3,189 pages: 14 changed, 8 better, none worse. 0 turns it off.
    comments_min_long_lines: int = 3
    comments_max_share: float = 0.5
    # When the candidates' medoid is the readers' comments (most of its text
    # in those boxes, no article in the rest), the medoid of the candidates
    # outside them holding an article is taken instead (the readers outvoted
    # the story)... unless the comments are over this many times that
    # story's text: a discussion (a Slashdot story, a subreddit post) whose
    # comments are the page. Not in a seed; set between the measured pages
    # (stop 44: articles 0.6x-4.7x their story, discussions 12x and 28x).
    # 0 turns it off.
    comments_story_ratio: float = 10.0
    # At least this many list records linking to the pages beside this one
    # (its URL folder), after the densest block and in a box apart, are a
    # stream of other stories: their lines leave the text (the same long-line
    # floor as for comments holds). 0 turns it off. All 3,189 pages: 6
    # changed, 3 better (+0.22 to +0.49), 1 worse (-0.12). Without such a
    # stream, a "related" header followed by those records' lines alone ends
    # the text after one paragraph (boilerplate.cut_related_tail): 2 better.
    teaser_stream_records: int = 3
    # The page footer's lines ending the chosen text (its node holds the
    # footer box: :func:`_page_footers`) are cut. Not in a seed.
    footer_tail: bool = True
    # Remove the headline and generic boilerplate lines from article text.
    clean: bool = True


# -- combining candidates -----------------------------------------------------


def _weights(text: str) -> Counter[str]:
    """Lines of an output weighted by their length (long lines matter more)."""
    counts: Counter[str] = Counter()
    for line in text.split("\n"):
        if line.strip():
            counts[line] += len(line)
    return counts


def _similarity(a: Counter[str], b: Counter[str]) -> float:
    """Weighted Jaccard overlap of two outputs' lines."""
    if len(b) < len(a):
        a, b = b, a
    shared = sum(min(n, b[line]) for line, n in a.items() if line in b)
    union = a.total() + b.total() - shared
    return shared / union if union else 0.0


def medoid(
    results: dict[str, Result], among: Collection[str] | None = None
) -> tuple[str | None, float]:
    """The candidate (of ``among``, if given) whose output agrees most with
    the others, and its mean agreement (0..1). Empty outputs do not vote."""
    weights = {name: _weights(r.text) for name, r in results.items() if r.text.strip()}
    names = [n for n in weights if among is None or n in among]
    if not names:
        return None, 0.0
    if len(weights) == 1:
        return names[0], 0.0
    scores = {
        name: sum(_similarity(weights[name], other) for o, other in weights.items() if o != name)
        / (len(weights) - 1)
        for name in names
    }
    best = max(scores, key=lambda n: scores[n])
    return best, scores[best]


# Voters vote on their raw output (auto cleans the winner), and CETD as the
# plain leader-scope method: dropping widget markup took a forum's replies,
# and its shorter output sent the page to list routing (magic-html first 100:
# auto 0.806 -> 0.801). classify's CETD length feature uses the same.
VOTER_PARAMS: dict[str, dict[str, Any]] = {
    "scedd": {"clean": False},
    "cetd": {"clean": False, "markup_chars_per_tag": 0.0},
}


def _run(name: str, doc: Document, url: str | None, reference: Any) -> Result | None:
    """One method's result; a voter's without reference pages is kept on the
    document, so the page-type features (:func:`consensus_signals`) and the
    extraction share one run."""
    if name == "layout" and reference is not None:
        return _call(name, doc, url, reference)
    if name == "list":  # auto makes its result the page's
        return _call(name, doc, url, None)
    return doc.derived(("auto.voter", name, url), lambda: _call(name, doc, url, None))


def _call(
    name: str, doc: Document, url: str | None, reference: Any, **params: Any
) -> Result | None:
    from . import method_function

    kwargs: dict[str, Any] = {"reference": reference} if reference is not None else {}
    kwargs.update(VOTER_PARAMS.get(name, {}), **params)
    try:
        return method_function(name)(doc, url, **kwargs)
    except Exception:  # one failing voter must not sink the page
        log.warning("auto: method %s failed on %s", name, url or "<page>", exc_info=True)
        return None


Consensus = tuple[str | None, float]  # the medoid and its agreement
T = TypeVar("T")


def _optional(step: Callable[..., T], doc: Document, *args: Any) -> T | None:
    """``step(doc, *args)``, or None when it raises: like a failing voter
    (:func:`_call`), a refinement failing on an odd page is logged and
    skipped, and the page keeps what it had."""
    try:
        return step(doc, *args)
    except Exception:
        log.warning("auto: step %s failed on %s", step.__name__, doc.url or "<page>", exc_info=True)
        return None


def _cleaned(text: str, product: bool = False, thread: bool = False) -> list[str]:
    """``text``'s lines as the result's cleaning leaves them (headline
    aside): what a rule weighs must be what the user gets."""
    return clean_lines(text.split("\n"), product=product, thread=thread)


def _candidates(
    doc: Document, url: str | None, reference: Any, p: Params
) -> tuple[dict[str, Result], Consensus]:
    """The candidates' results and their medoid: the first round's alone
    when they agree. Without reference pages they are kept on the document
    (the page-type model reads the same consensus; callers only read them)."""

    def run(names: tuple[str, ...]) -> dict[str, Result]:
        return {n: r for n in names if (r := _run(n, doc, url, reference)) is not None}

    def compute() -> tuple[dict[str, Result], Consensus]:
        results = run(p.candidates[: p.first_round])
        consensus = medoid(results)
        rest = p.candidates[p.first_round :]
        if rest and consensus[1] < p.first_round_agreement:
            results.update(run(rest))
            consensus = medoid(results)
        return results, consensus

    if reference is not None:
        return compute()
    key = ("auto.candidates", url, p.candidates, p.first_round, p.first_round_agreement)
    return doc.derived(key, compute)


# Class or id words of the page's footer (a token, or a word of one, as
# listing reads navigation marks: "footer", "site-footer", "copyRight").
_FOOTER_PARTS = frozenset({"footer", "copyright", "copyrights"})
# ...not when the token names a box of content or one component's footer
# ("entry-footer", "card-footer", "section-footer") or a place beside the
# footer or a modifier ("above-footer", "has-footer").
_NOT_PAGE_FOOTER = frozenset(
    {"content", "entry", "article", "post", "body", "text", "main",
     "card", "modal", "panel", "section", "widget", "item", "tile"}
)  # fmt: skip
_BESIDE_PARTS = frozenset({"has", "no", "with", "without", "above", "before", "pre"})


def _footer_marks(named: str) -> bool:
    """A class or id token naming the page footer: "footer", "site-footer",
    "copyRight"; not a content box's ("topicBodyAndFooter",
    "CopyrightRichText"), see ``_NOT_PAGE_FOOTER``."""
    for token in named.split():
        words = mark_parts(token)
        if (
            (token.lower() in _FOOTER_PARTS or _FOOTER_PARTS.intersection(words))
            and not _NOT_PAGE_FOOTER.intersection(words)
            and words[0] not in _BESIDE_PARTS
        ):
            return True
    return False


def _footer_box(doc: Document, node: Any) -> Any:
    """The page footer ``node`` lies in, or None: a ``<footer>`` not inside
    an article, or a box named footer or copyright, below any main or
    article element, with less text after it than in it (a card's or a
    post's footer has the rest of the page after it)."""
    stats = doc.stats
    for el in chain([node], node.iterancestors()) if node is not None else ():
        if el.tag in ("main", "article", "body") or el.get("role") == "main":
            return None
        if (el.tag == "footer" or _footer_marks(marks(el))) and el in stats:
            after = sum(
                stats[sib].text_len
                for up in chain([el], el.iterancestors())
                for sib in up.itersiblings()
                if sib in stats
            )
            return el if after < stats[el].text_len else None
    return None


# A class or id that may name the page footer (a cheap first cut;
# :func:`_footer_box` decides).
_MAY_NAME_FOOTER = re.compile(r"(?i:footer|copyright)")


def _page_footers(doc: Document) -> list[Any]:
    """The page's footer boxes (:func:`_footer_box` of themselves), outermost
    only, none inside a main or article element."""

    def compute() -> list[Any]:
        named = {el for el, words in named_boxes(doc) if _MAY_NAME_FOOTER.search(words)}
        named.update(doc.body.iter("footer"))
        found = sorted(
            (
                el
                for el in named
                if _footer_box(doc, el) is el
                and not any(
                    a.tag in ("main", "article") or a.get("role") == "main"
                    for a in el.iterancestors()
                )
            ),
            key=lambda el: doc.stats[el].index,
        )
        inside = set(found)
        return [el for el in found if not any(a in inside for a in el.iterancestors())]

    return doc.derived("auto.page_footers", compute)


def _without_footer(doc: Document, text: str, node: Any, p: Params) -> str | None:
    """``text`` without its last lines when they are the page footer's
    (copyright, legal and contact lines of a footer box inside ``node``): a
    candidate whose node holds the body and the footer keeps both. None when
    no line is cut, or nothing would stay."""
    if not p.footer_tail or node is None:
        return None
    boxes = [el for el in _page_footers(doc) if any(a is node for a in el.iterancestors())]
    if not boxes:
        return None
    kept = _without_tail_in(text, boxes)
    return kept if kept is not None and kept.strip() else None


def _without_tail_in(text: str, boxes: list[Any]) -> str | None:
    """``text`` without its last lines that ``boxes`` hold (their text, white
    space aside), or None when its last line is none of theirs."""
    said = "".join("".join(t.split()) for el in boxes for t in text_lines(el))
    lines = text.split("\n")
    cut = len(lines)
    while cut and (line := "".join(lines[cut - 1].split())) and line in said:
        cut -= 1
    return "\n".join(lines[:cut]) if cut < len(lines) else None


def _outside_footer(
    doc: Document,
    url: str | None,
    reference: Any,
    found: tuple[dict[str, Result], Consensus],
    p: Params,
) -> tuple[dict[str, Result], Consensus]:
    """The candidates without those that took the page's footer (the legal
    lines of a page whose body is short), and their medoid. When every
    candidate with text took it, the candidates left out of the first round
    are asked too; if none of them finds text elsewhere, all are kept."""
    results, consensus = found

    def outside(candidates: dict[str, Result]) -> dict[str, Result]:
        return {
            n: r
            for n, r in candidates.items()
            if not (r.text.strip() and _footer_box(doc, r.node) is not None)
        }

    kept = outside(results)
    if len(kept) == len(results):
        return found
    if not any(r.text.strip() for r in kept.values()):
        rest = (n for n in p.candidates if n not in results)
        kept.update(outside({n: r for n in rest if (r := _run(n, doc, url, reference))}))
        if not any(r.text.strip() for r in kept.values()):
            return found
    return kept, medoid(kept)


def voter(doc: Document, name: str, url: str | None = None) -> Result | None:
    """A method's result as auto's vote (its voter parameters, no reference
    pages), run once per page."""
    return _run(name, doc, url or doc.url, None)


def consensus_signals(doc: Document, url: str | None = None) -> tuple[float, int, bool]:
    """How much the article methods agree on one body (the medoid's mean
    agreement, 0..1), how many long lines that body has, and whether it sits
    under a headline linking to another page (a teaser): on a list there is
    no one body to agree on, or the body is an entry. Inputs of the DOM
    page-type model, computed with the default voters and no reference
    pages (a decision must not depend on what else the crawl fetched)."""
    p = Params()
    url = url or doc.url

    def compute() -> tuple[float, int, bool]:
        results, (best, agreement) = _candidates(doc, url, None, p)
        if best is None:
            return agreement, 0, False
        body = results[best]
        return agreement, _long_lines(_shown(doc, body.text)), _is_teaser(body.node, url, p)

    return doc.derived(("auto.consensus", url), compute)


def _choose_article(
    doc: Document, results: dict[str, Result], consensus: Consensus, cls: Classification, p: Params
) -> tuple[str | None, float]:
    best, agreement = consensus
    if (
        best is not None
        and p.comments_story_ratio
        and (outside := _outside_comments(doc, results, best, p))
    ):
        best = medoid(results, outside)[0]
    scedd = results.get("scedd")
    if (
        best is not None
        and cls.length_class is LengthClass.SHORT
        and scedd is not None
        and scedd.text.strip()
        and _similarity(_weights(scedd.text), _weights(results[best].text)) >= p.short_agreement
    ):
        return "scedd", agreement
    return best, agreement


def _list_is_main(doc: Document, listed: Result, main: Any, article_text: str, p: Params) -> bool:
    """Whether the records are the main content: they fill most of the main
    node, or the main node is one of the records of a tight list (one whose
    container holds little besides its records). When the consensus came
    from elsewhere (the first of several blocks, a heading above the list):
    whether most of its text is the records' lines."""
    container = listed.node
    if container is None or main is None or main not in doc.stats:
        return False
    if _linked_share(listed) < p.list_linked_share:
        return False  # paragraphs of an article, not entries
    records_len = nonspace_len(listed.text)
    if main is container or any(a is main for a in container.iterancestors()):
        return records_len >= p.list_main_share * max(1, doc.stats[main].text_len)
    if any(a is container for a in main.iterancestors()):
        entries = records_len <= p.list_record_chars * len(listed.records)
        return entries and records_len >= p.list_tight_share * max(1, doc.stats[container].text_len)
    entry_lines = {"".join(line.split()) for line in listed.text.split("\n")}
    lines = ["".join(line.split()) for line in article_text.split("\n")]
    listed_chars = sum(len(line) for line in lines if line in entry_lines)
    return listed_chars >= p.list_main_share * max(1, sum(map(len, lines)))


def _headline(node: Any, p: Params) -> tuple[Any, Any] | None:
    """The body's headline (the first heading in it or in one of its nearest
    ancestors) and the element holding it."""
    el = node
    for _ in range(p.headline_levels + 1):
        if el is None:
            return None
        heading = next(el.iter(*HEADING_TAGS), None)
        if heading is not None:
            return el, heading
        el = el.getparent()
    return None


def _links_elsewhere(heading: Any, url: str | None) -> bool:
    """Whether a heading links to another page (not to this one or a fragment)."""
    page = (url or "").split("#")[0]
    hrefs = (absolute_url(a.get("href") or "", url) or "" for a in heading.iter("a"))
    return any(
        h and not h.startswith(("#", "javascript:")) and h.split("#")[0] != page for h in hrefs
    )


def _is_teaser(node: Any, url: str | None, p: Params) -> bool:
    """Whether the body's headline links to another page: the lead story of
    a front page is a teaser under a linked headline, an article's body sits
    under its own plain headline (or one linking to itself)."""
    found = _headline(node, p)
    return found is not None and _links_elsewhere(found[1], url)


def _teaser_entries(node: Any, url: str | None, p: Params) -> list[Any]:
    """The entries of a list too short for a record group (the last page of
    a paginated list holds one or two): the element holding the body's
    teaser headline, and its like siblings (same tag and class) with one."""
    found = _headline(node, p)
    if found is None or not _links_elsewhere(found[1], url):
        return []
    entry = found[0]
    parent = entry.getparent()
    if parent is None:
        return []
    return [
        el
        for el in parent
        if el.tag == entry.tag
        and el.get("class") == entry.get("class")
        and (heading := next(el.iter(*HEADING_TAGS), None)) is not None
        and _links_elsewhere(heading, url)
    ]


def _linked_share(listed: Result) -> float:
    return sum(1 for r in listed.records if r.url) / len(listed.records)


def _entries_outweigh(listed: Result, article_text: str, factor: float, p: Params) -> bool:
    """Whether the records, linked ones mostly, hold ``factor`` times the
    text of the article consensus."""
    linked = _linked_share(listed) >= p.list_linked_share
    return linked and nonspace_len(listed.text) >= factor * nonspace_len(article_text)


def _short_hub(listed: Result, article_text: str, cls: Classification, p: Params) -> bool:
    """A short page whose linked entries outweigh the article consensus."""
    return cls.length_class is LengthClass.SHORT and _entries_outweigh(
        listed, article_text, p.short_list_records_share, p
    )


def _tiny_body(listed: Result, article_text: str, p: Params) -> bool:
    """Whether the article consensus is a line or two (a section's
    description, a heading) beside linked entries holding many times its
    text: nothing on the page is an article."""
    return nonspace_len(article_text) < p.list_tiny_body_chars and _entries_outweigh(
        listed, article_text, p.list_tiny_body_ratio, p
    )


def _paragraphs_beside(article_text: str, records: list[str], enough: int) -> int:
    """Long lines of the article consensus that no entry holds, counted up
    to ``enough``: an article with its comments or a link list below it has
    several, a list page none. A "record" holding several long paragraphs is
    the article itself (a group that took the article's box for one of its
    items), not an entry.

    Lines and entries are both in page order, so each line is looked for
    from the entry that held the line before: a list of thousands of
    entries costs one pass, not one search of every entry per line."""
    paragraphs = [
        "".join(line.split())
        for line in article_text.split("\n")
        if nonspace_len(line) >= LONG_LINE_CHARS
    ]
    entries = ["".join(r.split()) for r in records]
    held_by: list[int | None] = []
    unheld = 0
    at = 0
    for para in paragraphs:
        holder = next(
            (i for i in chain(range(at, len(entries)), range(at)) if para in entries[i]), None
        )
        if holder is None:
            unheld += 1
            if unheld >= enough:
                return enough
        else:
            at = holder
        held_by.append(holder)
    per_entry = Counter(i for i in held_by if i is not None)
    return unheld + sum(1 for i in held_by if i is not None and per_entry[i] > MAX_ENTRY_PARAGRAPHS)


def _body_in_record(article_text: str, records: list[Record], p: Params) -> bool:
    """Whether one record holds most of the article consensus
    (``Params.list_unlinked_body_share`` of its non-space characters, line by
    line) and is no entry: it has no link (an entry leads to its page, the
    article's own box does not), or it outweighs the other records together
    (``Params.list_dominant_record_share``: a list's entries are alike)."""
    lines = ["".join(line.split()) for line in article_text.split("\n")]
    total = sum(len(line) for line in lines)
    if not total:
        return False
    needed = p.list_unlinked_body_share * total
    dominant = p.list_dominant_record_share * sum(nonspace_len(r.text) for r in records)
    for record in records:
        box = "".join(record.text.split())
        if record.url and len(box) < dominant:
            continue
        # A box shorter than the share cannot hold it; skipping those keeps
        # a page of thousands of one-line records linear.
        if len(box) < needed:
            continue
        if sum(len(line) for line in lines if line and line in box) >= needed:
            return True
    return False


def _lists_itself(doc: Document, url: str | None, records: list[Record], p: Params) -> bool:
    """Whether the records link back into this page (its comments, a table
    of contents) or to pages of its own URL shape (the items it is one of),
    at least ``Params.list_sibling_share`` of the linked ones and two."""
    own = url or page_url(doc)
    if not own:
        return False
    page, shape = own.split("#")[0], url_shape(own)
    links = [r.url for r in records if r.url]
    alike = sum(
        1
        for link in links
        if link.split("#")[0] == page or (shape is not None and url_shape(link) == shape)
    )
    return alike >= 2 and alike >= p.list_sibling_share * len(links)


def _shown(doc: Document, text: str) -> str:
    """``text`` without the lines of the page's collapsed panels (tab panels,
    accordion answers: :attr:`Document.collapsed`): the page as first shown,
    which decides its type (a category page's grid above a buying guide
    folded into accordions is a list, as its screenshot shows)."""
    if not doc.collapsed:
        return text

    def compute() -> frozenset[str]:
        return frozenset(line for el in doc.collapsed for line in text_lines(el))

    folded = doc.derived("auto.collapsed_lines", compute)
    return "\n".join(line for line in text.split("\n") if line not in folded)


def _long_lines(text: str) -> int:
    return sum(1 for line in text.split("\n") if nonspace_len(line) >= LONG_LINE_CHARS)


def _with_lead(text: str, results: dict[str, Result], chosen: str, p: Params) -> str:
    """The chosen output with the lead paragraphs another candidate has right
    above its first line (see ``Params.lead_min_chars``)."""
    lines = text.split("\n")
    first = next((line for line in lines if line.strip()), None)
    if first is None:
        return text
    present = set(lines)
    best: list[str] = []
    for name, result in results.items():
        if name == chosen or first not in result.text:
            continue
        other = [line for line in result.text.split("\n") if line.strip()]
        if first not in other:
            continue
        j = other.index(first)
        lead: list[str] = []
        for line in reversed(other[max(0, j - p.lead_max_lines) : j]):
            if nonspace_len(line) < p.lead_min_chars:
                break
            lead.append(line)
        lead = [line for line in reversed(lead) if line not in present]
        if len(lead) > len(best):
            best = lead
    return "\n".join([*best, text]) if best else text


def _with_gaps(
    text: str,
    results: dict[str, Result],
    chosen: str,
    p: Params,
    code: frozenset[str] = frozenset(),
    items: frozenset[str] = frozenset(),
    headings: frozenset[str] = frozenset(),
) -> str:
    """The chosen output with the paragraphs other candidates agree lie
    between two of its consecutive lines (see ``Params.gap_candidates``).
    ``code``: lines that are a block of code of their own on the page;
    ``items``: lines of the page's list items. Both count however short;
    so do ``headings`` (of the page's sections) alone between the two."""
    if not p.gap_candidates:
        return text
    lines = text.split("\n")
    rank: dict[str, int] = {}  # a line's place among the non-blank lines
    for line in lines:
        if line.strip():
            rank.setdefault(line, len(rank))
    votes: Counter[tuple[int, str]] = Counter()
    order: dict[tuple[int, str], int] = {}  # first seen place in its gap
    for name, result in results.items():
        if name == chosen:
            continue
        after: int | None = None  # the chosen line the run of others follows
        run: list[str] = []
        for line in result.text.split("\n"):
            if not line.strip():
                continue
            i = rank.get(line)
            if i is None:
                run.append(line)
                continue
            if after is not None and i == after + 1:
                alone = len(set(run)) == 1
                for j, extra in enumerate(dict.fromkeys(run)):
                    # A block of code inside the body: prose methods drop it,
                    # one holding it is enough (not a listing's gutter of
                    # line numbers).
                    is_code = (PRE_BREAK in extra or extra in code) and not "".join(
                        extra.split()
                    ).isdigit()
                    if (
                        is_code
                        or extra in items
                        or (alone and extra in headings)
                        or nonspace_len(extra) >= p.gap_min_chars
                    ):
                        votes[after, extra] += p.gap_candidates if is_code else 1
                        order.setdefault((after, extra), j)
            after, run = i, []
    gaps: dict[int, list[str]] = {}
    for key in sorted((k for k, n in votes.items() if n >= p.gap_candidates), key=order.get):
        gaps.setdefault(key[0], []).append(key[1])
    if not gaps:
        return text
    out: list[str] = []
    for line in lines:
        out.append(line)
        if line.strip() and rank[line] in gaps:
            out.extend(gaps.pop(rank[line]))
    return "\n".join(out)


def _completed(
    doc: Document, text: str, results: dict[str, Result], name: str, p: Params, items: bool = True
) -> str:
    """Candidate ``name``'s output ``text`` with the lead and the inner
    paragraphs, code and (``items``) list items and section headings the
    others hold and it dropped (:func:`_with_lead`, :func:`_with_gaps`)."""
    text = _with_lead(text, results, name, p)
    if not items:
        return _with_gaps(text, results, name, p, _code_lines(doc))
    return _with_gaps(
        text, results, name, p, _code_lines(doc), _item_lines(doc), _heading_lines(doc)
    )


def _plain_lines(doc: Document, *tags: str) -> Counter[str]:
    """The first lines of the page's ``tags`` elements that are no links,
    counted (rendered no further than their first line)."""
    stats = doc.stats
    return Counter(
        line
        for el in doc.body.iter(*tags)
        if (st := stats.get(el)) and st.text_len and st.link_density < 0.5
        for line in text_lines(el, limit=1)
    )


def _item_lines(doc: Document) -> frozenset[str]:
    """The lines of the page's list items that are no links (a list in the
    text, not a menu or related links)."""
    return doc.derived("auto.item_lines", lambda: frozenset(_plain_lines(doc, "li")))


def _heading_lines(doc: Document) -> frozenset[str]:
    """The lines of the page's section headings (h2-h6) that are no links
    and name one section (a heading said twice is a card's label, one dated
    to the minute a post's or a comment's header)."""

    def compute() -> frozenset[str]:
        said = _plain_lines(doc, "h2", "h3", "h4", "h5", "h6")
        return frozenset(line for line, n in said.items() if n == 1 and not _stamped(line))

    return doc.derived("auto.heading_lines", compute)


def _stamped(line: str) -> bool:
    """Whether ``line`` holds a date with its time of day ("2024-04-07
    01:09", "2024年5月3日 10:20"): a post's stamp, not a section's name."""
    return "T" in (find_datetime(line) or "")


def _code_lines(doc: Document) -> frozenset[str]:
    """The page's blocks of preformatted text of one line (a command), as
    lines of an output."""

    def compute() -> frozenset[str]:
        blocks = (text_lines(pre) for pre in doc.body.iter(*PREFORMATTED_TAGS))
        return frozenset(b[0] for b in blocks if len(b) == 1 and PRE_BREAK not in b[0])

    return doc.derived("auto.code_lines", compute)


# A box named for readers' comments as a word of its own ("comments",
# "comment-list", "disqus_thread"; not "reply", a forum's post, or a docs
# section "receive-and-reply"), or for users' reviews ("reviews",
# "pdp-reviews_container"; not "review", a critic's review is the story).
_COMMENTS_NAME = re.compile(r"(?<![a-z])(?i:comments?|disqus|respond|reviews)(?![a-z])")


def _comments_chars(doc: Document, node: Any, chosen: Any) -> int:
    """Text (non-space characters) in comment boxes inside ``node`` (the
    page without one) and outside the ``chosen`` node."""
    stats = doc.stats
    above = set(chosen.iterancestors()) if chosen is not None else set()
    total = 0
    stack = [node if node is not None and node in stats else doc.body]
    while stack:
        el = stack.pop()
        if el is chosen:
            continue
        named = marks(el)
        if _COMMENTS_NAME.search(named) and el not in above:
            total += stats[el].text_len if el in stats else 0
            continue
        stack.extend(c for c in el if isinstance(c.tag, str))
    return total


def _outside_comments(doc: Document, results: dict[str, Result], best: str, p: Params) -> list[str]:
    """The candidates whose text lies outside the boxes named for comments
    and holds an article (``comments_min_long_lines`` long lines), when most
    of the medoid's text lies in those boxes and the rest holds none: the
    readers outvoted the story (see ``Params.comments_story_ratio``). Empty
    otherwise, and on a page declaring a thread (its posts are the content)."""
    if not (said := _comment_lines(doc)) or declares_thread(doc):
        return []

    def share_said(text: str) -> float:
        lines = ["".join(line.split()) for line in text.split("\n")]
        return sum(len(x) for x in lines if x in said) / max(1, sum(map(len, lines)))

    rest = [x for x in results[best].text.split("\n") if "".join(x.split()) not in said]
    if (
        share_said(results[best].text) < p.comments_max_share
        or _long_lines("\n".join(rest)) >= p.comments_min_long_lines
    ):
        return []  # the story and its comments: _without_comments cuts them
    comments = sum(map(len, said))
    return [
        name
        for name, r in results.items()
        if share_said(r.text) < 1 - p.comments_max_share
        and _long_lines(r.text) >= p.comments_min_long_lines
        and comments <= p.comments_story_ratio * nonspace_len(r.text)
    ]


def _comment_lines(doc: Document) -> set[str]:
    """The text lines (spaces removed) of the boxes named for comments."""

    def compute() -> set[str]:
        return {"".join(t.split()) for el in _comments_named(doc) for t in text_lines(el)}

    return doc.derived("auto.comment_lines", compute)


def _comments_named(doc: Document) -> list[Any]:
    """The outermost boxes of the page named for comments (see
    ``_COMMENTS_NAME``), in document order."""

    def compute() -> list[Any]:
        named = [el for el, words in named_boxes(doc) if _COMMENTS_NAME.search(words)]
        inside = set(named)
        return [el for el in named if not any(a in inside for a in el.iterancestors())]

    return doc.derived("auto.comments_named", compute)


def _without_comments(doc: Document, text: str, node: Any, p: Params) -> str | None:
    """``text`` without its last lines when they are readers' comments (they
    lie in boxes named for comments, none holding ``node``): a method
    keeping every paragraph of prose keeps the comments below the story.
    None unless what stays is an article (see ``Params.comments_max_share``)."""
    if not p.comments_min_long_lines or not (named := _comments_named(doc)):
        return None
    chain = set(node.iterancestors()) | {node} if node is not None else set()
    boxes = [el for el in named if el not in chain]
    if not boxes:
        return None
    kept = _without_tail_in(text, boxes)
    if kept is None:
        return None
    if _long_lines(kept) < p.comments_min_long_lines:
        return None
    if nonspace_len(kept) < (1 - p.comments_max_share) * nonspace_len(text):
        return None
    return kept


def _without_teasers(doc: Document, text: str, results: dict[str, Result], p: Params) -> str | None:
    """``text`` without the lines of a stream of teasers after the article:
    the page's list records, in a box apart from the densest text block
    (CETD's node) and after it, at least ``teaser_stream_records`` of them
    linking to the pages beside this one (other stories of its section),
    whose snippets a paragraph-keeping method takes for more of the story.
    None unless what stays is still an article. Without such a stream, a
    "related stories" header followed by teasers' lines alone ends the text."""
    cetd = results.get("cetd")
    core = cetd.node if cetd is not None else None
    if p.teaser_stream_records <= 0 or core is None:
        return None
    records = _teaser_records(doc)
    if not records:
        return None
    lines = text.split("\n")
    chain = {core, *core.iterancestors()}
    start = doc.stats[core].index
    stream = [el for el in records if doc.stats[el].index > start]
    parents = {el.getparent() for el in find_records(doc, RECORD_PARAMS)}
    if len(stream) >= p.teaser_stream_records and len(parents) == 1 and not parents & chain:
        said = {"".join(t.split()) for el in stream for t in text_lines(el)}
        said -= {"".join(t.split()) for t in text_lines(core)}
        kept = [line for line in lines if "".join(line.split()) not in said]
        if len(kept) < len(lines) and _long_lines("\n".join(kept)) >= p.comments_min_long_lines:
            return "\n".join(kept)
    told = {"".join(t.split()) for el in records for t in text_lines(el)}
    cut = cut_related_tail(lines, told, lead=LONG_LINE_CHARS)
    return "\n".join(cut) if len(cut) < len(lines) else None


def _teaser_records(doc: Document) -> list[Any]:
    """The page's list records (the page-type features' records: found
    already) whose link leads to another page beside this one."""
    own = page_url(doc)
    if not own:
        return []
    page = own.split("#")[0]
    return [
        el
        for el in find_records(doc, RECORD_PARAMS)
        if (link := record_url(doc, el, own))
        and link.split("#")[0] != page
        and sibling_url(link, own)
    ]


def _extended(
    doc: Document, results: dict[str, Result], chosen: str, p: Params, thread_page: bool = False
) -> str | None:
    """The candidate to take instead of ``chosen`` when enough others go on
    past its text (see ``Params.extend_candidates``; fewer on a forum
    thread's page, ``thread_page``), or None. A candidate
    whose extra text lies mostly in comment boxes goes on into the readers'
    comments, not the article."""
    needed = p.extend_thread_candidates if thread_page else p.extend_candidates
    long_share = p.extend_thread_long_share if thread_page else p.extend_long_share
    if not needed:
        return None

    thread = declares_thread(doc)

    def cleaned(text: str) -> list[str]:
        return [line for line in _cleaned(text, thread=thread) if line.strip()]

    lines = cleaned(results[chosen].text)
    own = set(lines)
    size = sum(nonspace_len(line) for line in lines)
    if not size:
        return None
    # Cleaning only drops lines: an output shorter than needed before it
    # is never long enough after it.
    long_enough = [
        (name, result)
        for name, result in results.items()
        if name != chosen and nonspace_len(result.text) >= p.extend_ratio * size
    ]
    if len(long_enough) < min(needed, 2):  # two on one node may do
        return None
    longer: list[tuple[int, str]] = []
    for name, result in long_enough:
        other = cleaned(result.text)
        total = sum(nonspace_len(line) for line in other)
        if total < p.extend_ratio * size:
            continue
        present = set(other)
        if sum(nonspace_len(line) for line in lines if line in present) < p.extend_inside * size:
            continue
        rest = [nonspace_len(line) for line in other if line not in own]
        prose = sum(n for n in rest if n >= LONG_LINE_CHARS)
        if prose < long_share * sum(rest):
            continue
        if 2 * _comments_chars(doc, result.node, results[chosen].node) >= sum(rest):
            continue
        longer.append((total, name))
    if len(longer) < needed and not _one_node([results[n] for _, n in longer]):
        return None
    return min(longer)[1]


def _one_node(found: list[Result]) -> bool:
    """Whether two or more of these candidates found one and the same node."""
    nodes = [r.node for r in found if r.node is not None]
    return len(set(nodes)) < len(nodes)


def _list_result(listed: Result, cls: Classification) -> Result:
    listed.page_type = PageType.LIST
    listed.length_class = cls.length_class
    # The model's P(list); 0.5 when the evidence overruled its "article".
    listed.confidence = round(max(cls.list_probability, 0.5), 3)
    listed.method = f"{METHOD}:list"
    return listed


# -- the entry point ----------------------------------------------------------------


def extract(
    html: str | bytes | Document,
    url: str | None = None,
    reference: Any = None,
    fetched_at: datetime | date | str | float | None = None,
    classification: Classification | None = None,
    params: Params | None = None,
    **overrides: Any,
) -> Result:
    """Main text (or list records) and metadata of a page, method chosen
    per page. ``reference``: pages of the same URL group (html or
    Documents) for layout similarity; ``fetched_at``: the fetch time, for
    relative dates and to reject future ones; ``classification``: a decision
    already made (by a crawl's classification step), used instead of the DOM one."""
    p = resolve_params(params, overrides, Params)
    if reference is not None:
        check_reference(reference)  # raised here: a failed voter is only logged
    doc = as_document(html, url)
    url = url or doc.url
    if doc.body not in doc.stats or doc.stats[doc.body].text_len == 0:
        # Nothing shown (a page its scripts would fill): what the head
        # declares (title, date, author, language, image) is still the page's.
        empty = Result(method=METHOD, page_type=PageType.OTHER, confidence=0.95)
        _attach_metadata(empty, doc, url, fetched_at, p)
        return empty
    results, consensus = _candidates(doc, url, reference, p)
    cetd = results.get("cetd")
    scedd = results.get("scedd")
    cls = classification or classify(
        doc,
        url,
        main_chars=len("".join(cetd.text.split())) if cetd else None,
        length=scedd.length_class if scedd else None,
    )
    results, consensus = _outside_footer(doc, url, reference, (results, consensus), p)
    result = _route(doc, url, results, consensus, cls, p)
    _attach_metadata(result, doc, url, fetched_at, p)
    return result


def _list_route(
    doc: Document,
    url: str | None,
    results: dict[str, Result],
    consensus: Consensus,
    cls: Classification,
    article_text: str,
    agreement: float,
    p: Params,
) -> Result | None:
    """The list result of a page the DOM model calls a list, or None when
    the article consensus holds after all, or the page is an item of the
    list it shows."""
    found = _run("list", doc, url, None)
    # Whether the page is a list is the main list's question, the chosen
    # group's records all (their sections' lists not told apart: an
    # article's own box can be one of those sections); the page's other
    # regions of records come along once it is.
    if found is not None and any(r.region for r in found.records):
        whole = _call("list", doc, url, None, section_regions=False)
        listed = _main_list(whole) if whole is not None else None
    else:
        listed = found
    main = results[consensus[0]].node if consensus[0] else None
    if found is not None and listed is not None and listed.records:
        if _lists_itself(doc, url, listed.records, p):
            return None
        # Methods that disagree mean no single body, unless their
        # consensus is several long paragraphs: an article with link
        # lists around it, which the DOM model alone calls a list. A
        # model sure of a list has weighed both.
        no_body = (
            agreement < p.list_max_agreement and _long_lines(article_text) < p.list_max_long_lines
        ) or cls.list_probability >= p.list_sure_probability
        teaser = _is_teaser(main, url, p)
        # The consensus inside a record without a link is the article's box.
        boxed = _body_in_record(article_text, listed.records, p)
        if (
            no_body
            or (teaser and _short_hub(listed, article_text, cls, p))
            or (not boxed and _tiny_body(listed, article_text, p))
            or (
                not boxed
                and _list_is_main(doc, listed, main, article_text, p)
                and _paragraphs_beside(
                    article_text, [r.text for r in listed.records], p.list_max_long_lines
                )
                < p.list_max_long_lines
            )
        ):
            return _list_result(found, cls)
    return _teaser_list(doc, url, main, cls, 1, p)


def _main_list(found: Result) -> Result:
    """The list result with its main list's records alone (region 0)."""
    records = [r for r in found.records if r.region == 0]
    if len(records) == len(found.records):
        return found
    text = "\n".join(r.text for r in records)
    return replace(found, records=records, text=text)


def _teaser_list(
    doc: Document, url: str | None, main: Any, cls: Classification, least: int, p: Params
) -> Result | None:
    """The list of a short page whose consensus body is a teaser, when it has
    at least ``least`` (1 or more) teaser entries (see :func:`_teaser_entries`)."""
    if cls.length_class is not LengthClass.SHORT:
        return None
    entries = _teaser_entries(main, url, p)
    if not entries or len(entries) < least:
        return None
    records = [to_record(doc, el, url) for el in entries]
    text = "\n".join(r.text for r in records)
    return _list_result(Result(text=text, records=records, node=main), cls)


def _route(
    doc: Document,
    url: str | None,
    results: dict[str, Result],
    consensus: Consensus,
    cls: Classification,
    p: Params,
) -> Result:
    chosen, agreement = _choose_article(doc, results, consensus, cls, p)
    article_text = results[chosen].text if chosen else ""
    thread = declares_thread(doc)
    # A dated post's permalink, or a forum thread's address, names one entry:
    # its lists of links stand beside it, unless the DOM model is sure of a list.
    own = url or page_url(doc)
    thread_address = names_a_thread(own)
    thread_page = thread or thread_address
    one_entry = (names_a_post(own) or thread_address) and (
        cls.list_probability < p.list_sure_probability
    )
    if (
        cls.page_type is PageType.LIST
        and not thread
        and not one_entry
        and (
            listed := _optional(
                _list_route,
                doc,
                url,
                results,
                consensus,
                cls,
                _shown(doc, article_text),
                agreement,
                p,
            )
        )
    ):
        return listed
    # Two or more like teasers are a list whatever the DOM model says (the
    # last page of a paginated list); one is, when the model says so.
    main = results[consensus[0]].node if consensus[0] else None
    if cls.page_type is PageType.ARTICLE and p.teaser_list_entries and not thread and not one_entry:
        least = 1 if p.teaser_alone_when_paged and in_series(doc) else p.teaser_list_entries
        if listed := _optional(_teaser_list, doc, url, main, cls, least, p):
            return listed
    if cls.page_type is PageType.OTHER or chosen is None:
        return Result(
            text=article_text,
            method=f"{METHOD}:{chosen}" if chosen else METHOD,
            page_type=PageType.OTHER,
            length_class=cls.length_class,
            confidence=cls.confidence,
            node=results[chosen].node if chosen else None,
        )
    # A thread's posts are gathered below; other candidates going on past
    # one post are not the rest of the thread (asked only when an extension
    # is found: rare, and the posts search is not free).
    extended = _optional(_extended, doc, results, chosen, p, thread_page)
    if extended is not None and not (
        p.thread_posts and _optional(thread_posts, doc, results[chosen].node, article_text)
    ):
        chosen, article_text = extended, results[extended].text
    # The list items it dropped are put back once the output is known to be
    # the candidate's (a longer text would change the share the page's
    # <main> or sections are weighed by).
    text = _completed(doc, article_text, results, chosen, p, items=False)
    method, node = f"{METHOD}:{chosen}", results[chosen].node
    if p.numbered_parts and (parts := _optional(numbered_parts, doc, node)):
        text = _with_parts(text, node, parts)
    if (
        agreement < p.markup_max_agreement
        and (found := _optional(_markup_body, doc, text, p)) is not None
    ):
        node, lines = found
        text, method = "\n".join(lines), f"{METHOD}:markup"
    elif (found := _optional(_landing_main, doc, node, text, p)) is not None:
        node, lines = found
        text, method = "\n".join(lines), f"{METHOD}:main"
    elif (found := _optional(_sectioned_article, doc, node, text, p)) is not None:
        node, lines = found
        text, method = "\n".join(lines), f"{METHOD}:sections"
    else:
        text = _with_gaps(
            text, results, chosen, p, items=_item_lines(doc), headings=_heading_lines(doc)
        )
    if (declared := _optional(_declared_choice, doc, text, results, p)) is not None:
        text = _completed(doc, results[declared].text, results, declared, p)
        method, node = f"{METHOD}:{declared}", results[declared].node
    elif (described := _optional(_described_choice, doc, url, text, results, p)) is not None:
        name, found = described
        text = _completed(doc, found.text, results, name, p)
        method, node = f"{METHOD}:{name}", found.node
    if p.thread_posts and (posts := _optional(thread_posts, doc, node, text)) is not None:
        node = posts[0].getparent()
        text = "\n".join(post_lines(posts, own))
        method += "+posts"
    elif not thread and (uncommented := _optional(_without_comments, doc, text, node, p)):
        text = uncommented
    if not thread and (untold := _optional(_without_teasers, doc, text, results, p)):
        text = untold
    text = _optional(_without_footer, doc, text, node, p) or text
    if p.copy_min_paragraphs:
        text = without_copies(text, LONG_LINE_CHARS, p.copy_min_paragraphs, p.copy_min_share)
    if p.recipe_ingredients:
        text = _optional(_with_ingredients, doc, text, node) or text
    if p.standfirst_min_chars:
        text = _optional(_with_standfirst, doc, node, text, p) or text
    confidence = cls.confidence if cls.page_type is PageType.ARTICLE else 1.0 - cls.confidence
    return Result(
        text=text,
        method=method,
        page_type=PageType.ARTICLE,
        length_class=cls.length_class,
        confidence=round(min(confidence, 0.5 + 0.5 * agreement), 3),
        node=node,
    )


def _declared_choice(doc: Document, text: str, results: dict[str, Result], p: Params) -> str | None:
    """The candidate to take instead of ``text`` when the page declares its
    body (JSON-LD ``articleBody``): the text's words disagree with it
    (F1 under ``declared_min_f1``) and a candidate's agree (at least that,
    and ``declared_margin`` better)."""
    if p.declared_min_f1 > 1:
        return None
    body = declared_body(doc, p.declared_min_chars)
    if body is None:
        return None
    want = _word_bag(body)

    thread = declares_thread(doc)

    def agreement(output: str) -> float:
        return _bag_f1(_word_bag("\n".join(_cleaned(output, thread=thread))), want)

    current = agreement(text)
    if current >= p.declared_min_f1:
        return None
    scores = {n: agreement(r.text) for n, r in results.items() if r.text.strip()}
    best = max(scores, key=lambda n: scores[n], default=None)
    if best is None or scores[best] < max(p.declared_min_f1, current + p.declared_margin):
        return None
    return best


def _described_choice(
    doc: Document, url: str | None, text: str, results: dict[str, Result], p: Params
) -> tuple[str, Result] | None:
    """The candidate to take instead of ``text`` when the page declares a
    product description ``text`` lacks and candidates hold: of these, the one
    agreeing most with all. Candidates the cascade skipped are run."""
    if p.described_held > 1:
        return None
    described = declared_description(doc, p.described_min_chars)
    if described is None:
        return None
    want = _word_bag(described)

    def held(output: str) -> float:
        got = _word_bag("\n".join(_cleaned(output, product=True)))
        return (want & got).total() / want.total()

    if held(text) >= p.described_max_held:
        return None
    pool = dict(results)
    for name in p.candidates:
        if name not in pool and (ran := _run(name, doc, url, None)) is not None:
            pool[name] = ran
    holding = {n for n, r in pool.items() if r.text.strip() and held(r.text) >= p.described_held}
    best = medoid(pool, among=holding)[0] if holding else None
    return (best, pool[best]) if best is not None else None


def _word_bag(text: str) -> Counter[str]:
    """Words (each CJK character alone) with their counts."""
    return Counter(tokens(text.lower()))


def _bag_f1(a: Counter[str], b: Counter[str]) -> float:
    """F1 of two texts' word multisets."""
    total = a.total() + b.total()
    return 2 * (a & b).total() / total if total else 0.0


def _with_ingredients(doc: Document, text: str, node: Any) -> str:
    """The text with the recipe's ingredient box when it lacks the
    ingredients the page declares (:mod:`extractors.recipe`): before the
    text, or after it when the box comes after the body. A box holding the
    body is taken whole."""
    box = missing_ingredients(doc, text)
    if box is None:
        return text
    lines = text_lines(box)
    stats = doc.stats
    if node is not None and node in stats:
        if node is box or any(a is box for a in node.iterancestors()):
            return "\n".join(lines)
        if stats[box].line > stats[node].last_line:
            return "\n".join([text, *lines])
    return "\n".join([*lines, text])


def _descriptions(doc: Document) -> set[str]:
    """The page's meta descriptions, whitespace collapsed, a closing stop
    or ellipsis left out."""
    found = (doc.meta.get(k, "") for k in ("description", "og:description", "twitter:description"))
    return {d for d in map(_summary_key, found) if d}


def _summary_key(text: str) -> str:
    return collapse_ws(text).rstrip(".…").rstrip()


def _with_standfirst(doc: Document, node: Any, text: str, p: Params) -> str | None:
    """The text with the page's standfirst line above it (see
    ``Params.standfirst_min_chars``), or None when there is none to add."""
    stats = doc.stats
    if node is None or node not in stats:
        return None
    wanted = {d: nonspace_len(d) for d in _descriptions(doc)}
    wanted = {d: n for d, n in wanted.items() if n >= p.standfirst_min_chars}
    if not wanted:
        return None
    start = stats[node].index
    headline = min((stats[h].index for h in doc.elements("h1") if h in stats), default=start)
    if headline >= start:
        return None
    above = set(node.iterancestors())
    for el in doc.body.iter():
        st = stats.get(el)
        if st is None or st.index <= headline or el in above:
            continue
        if st.index >= start:
            return None
        if not any(abs(st.text_len - n) <= 3 for n in wanted.values()):
            continue
        key = _summary_key(text_content(el))
        if key in wanted:
            return None if key in collapse_ws(text) else "\n".join([*text_lines(el), text])
    return None


def _markup_body(doc: Document, text: str, p: Params) -> tuple[Any, list[str]] | None:
    """The article-body box the markup names and its lines, when the chosen
    output lies mostly outside it (see ``Params.markup_min_chars``)."""
    if p.markup_min_chars <= 0:
        return None
    box = body_container(doc)
    if box is None or doc.stats[box].text_len < p.markup_min_chars:
        return None
    box_lines = text_lines(box)
    return (box, box_lines) if share_on_lines(text, box_lines) < p.markup_max_inside else None


def _with_parts(text: str, node: Any, parts: list[Any]) -> str:
    """``text`` (the output of ``node``, one of ``parts``) with the other
    parts' lines before and after it, in the parts' order."""
    at = parts.index(node)
    before = [line for part in parts[:at] for line in text_lines(part)]
    after = [line for part in parts[at + 1 :] for line in text_lines(part)]
    return "\n".join([*before, text, *after])


def _landing_main(doc: Document, node: Any, text: str, p: Params) -> tuple[Any, list[str]] | None:
    """The page's ``<main>`` and its lines when the chosen output is one
    section of a landing page (see ``Params.landing_max_share``)."""
    if p.landing_max_share <= 0 or node is None:
        return None
    main = main_landmark(doc)
    if main is None:
        return None
    chain = [node, *node.iterancestors()]
    if main not in chain:
        return None
    if any(el.tag == "article" for el in chain[: chain.index(main)]):
        return None  # the main holds an article: the page's content is the article
    if declares_article(doc) or declares_product(doc) or declares_thread(doc):
        return None
    return _whole_box(doc, main, node, text, p.landing_max_share, p)


def _whole_box(
    doc: Document, box: Any, node: Any, text: str, max_share: float, p: Params
) -> tuple[Any, list[str]] | None:
    """``box`` and its lines when the chosen output (``text`` of ``node``) is
    under ``max_share`` of its text (both as cleaned later), it has under
    ``landing_max_link_density`` of its text in links and no comment box
    beside the output."""
    if doc.stats[box].link_density >= p.landing_max_link_density:
        return None
    lines = text_lines(box)
    whole = nonspace_len("\n".join(_cleaned("\n".join(lines))))
    if nonspace_len("\n".join(_cleaned(text))) >= max_share * whole:
        return None
    return (box, lines) if not _comments_chars(doc, box, node) else None


def _sectioned_article(
    doc: Document, node: Any, text: str, p: Params
) -> tuple[Any, list[str]] | None:
    """The page's one ``<article>`` (or its one ``<main>``) and its lines
    when the chosen output is one of the chapters it is divided into (see
    ``Params.sections_max_share``)."""
    if p.sections_max_share <= 0 or node is None or declares_product(doc):
        return None
    chain = [node, *node.iterancestors()]
    first = next((i for i, el in enumerate(chain) if el.tag == "section"), None)
    if first is None or not _chapter(doc, chain[first]):
        return None
    top = first  # up the run of nested sections to the article's child
    while top + 1 < len(chain) and chain[top + 1].tag == "section":
        top += 1
    article = chain[top + 1] if top + 1 < len(chain) else None
    if article is None:
        return None
    if article.tag == "article":
        if sum(1 for el in doc.body.iter("article") if el in doc.stats) != 1:
            return None
    elif article is not main_landmark(doc):
        return None
    return _whole_box(doc, article, node, text, p.sections_max_share, p)


def _chapter(doc: Document, section: Any) -> bool:
    """A ``<section>`` that opens with a heading beside another such section:
    one chapter of several (a page's header or paywall box is no chapter)."""
    parent = section.getparent()
    return _headed(doc, section) and any(
        s is not section and s.tag == "section" and _headed(doc, s) for s in parent
    )


def _headed(doc: Document, el: Any) -> bool:
    """Whether the first child holding text is a heading."""
    stats = doc.stats
    first = next((c for c in el if c in stats and stats[c].text_len), None)
    return first is not None and first.tag in HEADING_TAGS


def _attach_metadata(
    result: Result,
    doc: Document,
    url: str | None,
    fetched_at: datetime | date | str | float | None,
    p: Params,
) -> None:
    listing = result.page_type is PageType.LIST
    meta = extract_metadata(doc, url, fetched_at, main=result.node, listing=listing)
    date_records(result.records, fetched_at)
    result.title = meta.title or doc.title
    result.published = meta.published
    result.author = meta.author
    result.language = meta.language
    result.image = meta.image
    if result.page_type is PageType.ARTICLE:
        result.next_page = next_page(doc, url)
    if result.page_type is PageType.ARTICLE and p.clean and result.text:
        titles = [t for t in (meta.title, doc.title, doc.meta.get("og:title")) if t]
        lines = result.text.split("\n")
        product, thread = declares_product(doc), declares_thread(doc)
        result.text = "\n".join(clean_lines(lines, titles, product, thread))
