"""Parse a page once; share the cleaned tree and per-node statistics.

Every algorithm reads a :class:`Document` rather than parsing again. The tree
is cleaned of what is never content (scripts, styles, comments, hidden
elements); form controls stay, because some algorithms score them as noise.
Algorithms must treat ``doc.root`` as read-only: those that prune work on sets
of nodes, never on the shared tree.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from functools import cached_property
from typing import Any, TypeVar
from urllib.parse import urljoin

from lxml import etree, html

from .encoding import (
    decode_html,
    looks_binary,
    may_misread,
    misreads_punctuation,
    repair_misread,
)
from .mathml import linear_text
from .text import clean_text, collapse_ws, guess_language, nonspace_len, preformatted_text

T = TypeVar("T")

# Tags whose whole subtree is dropped while cleaning, never text: code,
# styles, embedded objects, <head>, and ruby annotations (<rt> readings, <rp>
# fallback parentheses: 漢字 is the text, かんじ its pronunciation guide).
# A MathML formula is text, written as one line (:mod:`.mathml`).
DROP_TAGS = frozenset(
    {
        "script",
        "style",
        "noscript",
        "template",
        "svg",
        "canvas",
        "video",  # their text is the fallback shown only where they cannot play
        "audio",
        "iframe",
        "object",
        "embed",
        "link",
        "meta",
        "base",
        "head",
        "rt",
        "rp",
    }  # fmt: skip
)
# Tags that start a new line of text when rendered (HTML block-level + <br>).
BLOCK_TAGS = frozenset(
    {
        "address",
        "article",
        "aside",
        "blockquote",
        "body",
        "br",
        "caption",
        "center",
        "dd",
        "details",
        "dialog",
        "dir",
        "div",
        "dl",
        "dt",
        "fieldset",
        "figcaption",
        "figure",
        "footer",
        "form",
        "frameset",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hgroup",
        "hr",
        "html",
        "legend",
        "li",
        "listing",
        "main",
        "menu",
        "nav",
        "ol",
        "option",
        "p",
        "pre",
        "section",
        "summary",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "tr",
        "ul",
        "textarea",
        "select",
        "optgroup",
        "plaintext",
        "xmp",
    }  # fmt: skip
)
HEADING_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
# Block tags whose text keeps its line breaks and indentation (code, logs).
PREFORMATTED_TAGS = frozenset({"pre", "listing", "xmp", "plaintext"})
FORM_TAGS = frozenset({"form", "input", "select", "option", "textarea", "button", "label"})
# Classes that take a box out of the page's content: CSS frameworks' modal
# box (Bootstrap's, Semantic UI's: a report form or a sign-up prompt, shown
# only on request) and Yahoo's ``robots-nocontent``, by which a site tells
# crawlers that a box (ratings, citation help, a comment form) is no content.
_MARKED_NOT_CONTENT = frozenset({"modal", "robots-nocontent"})
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
# The hide class of CSS frameworks (Bootstrap 2-3, Foundation): the box is
# shown at no width (the page's stylesheet says so; a saved page has none to
# read)...
_HIDE_CLASS = "hide"
# ...unless another class shows it from some width on ("hide visible-desktop",
# "hide show-for-large"). Bootstrap 4's "d-none" and Tailwind's "hidden" were
# measured too: scripts reveal those so often (tabs, carousels, data a script
# renders) that dropping them lost as many pages as it won.
_SHOWN_FROM = re.compile(r"(?:visible|show-for)-[a-z-]+", re.I)
# A hidden subtree with more than this share of the page's text is content
# that a script reveals, not boilerplate.
REVEALED_SHARE = 0.3
# ...and one with at least this share is the whole page (its navigation
# included), shown once its scripts have run.
WHOLE_PAGE_SHARE = 0.9
# An open modal dialog hides every other branch of the body from screen
# readers (react-modal, MUI, a11y-dialog set ``aria-hidden`` on the body's
# other children). When the body's aria-hidden children hold at least this
# share of its text, what is left shown is that small dialog: the page was
# saved with it open, and the marks are its state, not the authors' word.
MODAL_STATE_SHARE = 0.8
# ``<noscript>`` content holding more than half of a page's text, and at
# least this many characters, is the page (a script-only shell's rendering
# for clients without scripts); less is a "please enable JavaScript" notice.
NOSCRIPT_PAGE_CHARS = 200
# A link holding at least this much text over several lines (``<br>``, no
# blocks) is no link but text a site wrapped in one (a story linked to its
# own page): its tag is dropped, or every density method takes the story for
# navigation. Link labels and cards are shorter, or made of blocks.
LINKED_TEXT_CHARS = 300
LINKED_TEXT_BREAKS = 2
# A limit on nesting: deeper markup is flattened to keep recursion bounded.
MAX_DEPTH = 400
# Nested links of one tag and attributes, each with content before the next,
# taken for tags left unclosed (see _unchain).
CHAIN_LINKS = 3
# Pages larger than this are cut before parsing (the main text of any real
# page lies well within it) so that extraction time stays bounded. What holds
# no text is taken out first: scripts (a framework's inlined JSON state),
# style sheets and inline data: URIs (a base64 image) would otherwise fill the
# budget before the body's text begins.
MAX_CHARS = 5_000_000
_NO_TEXT_BLOCKS = re.compile(r"<(script|style|template)\b[^>]*>.*?</\1\s*>", re.S | re.I)
_DATA_URI = re.compile(r"""=\s*(?:"data:[^"]*"|'data:[^']*')""", re.I)


# What a ``lang`` attribute must look like to be read (BCP 47 shape; ``_`` as
# pages write ``zh_CN``); anything else is ignored and the script decides.
_LANG_TAG = re.compile(r"[a-z]{1,8}(?:[-_][a-z0-9]{1,8})*")
# Languages whose script the text tells apart from the Latin-script ones.
_CJK_LANGUAGES = frozenset({"zh", "ja", "ko"})
_LANGUAGE_SAMPLE = 20_000  # characters of body text read for the script


class ExtractionError(ValueError):
    """Raised for input that is not a page at all (wrong type)."""


@dataclass(slots=True)
class NodeStats:
    """Statistics of one element's subtree, computed in one pass.

    Text measures count non-whitespace characters of the subtree's text (the
    element's own tail excluded). ``line`` is the index of the text line on
    which the element starts, when the page is rendered as lines (a new line
    begins at every block tag): the "line number" of the SCEDD seed.
    """

    text_len: int = 0
    link_text_len: int = 0
    tag_count: int = 0  # descendant elements, the element itself excluded
    link_count: int = 0  # descendant <a href> elements, itself included
    depth: int = 0  # root is 0
    index: int = 0  # pre-order position among elements
    line: int = 0  # first text line of the subtree
    last_line: int = 0  # last text line of the subtree

    @property
    def link_density(self) -> float:
        return self.link_text_len / self.text_len if self.text_len else 0.0

    @property
    def text_density(self) -> float:
        """Characters per tag (CETD's text density)."""
        return self.text_len / max(1, self.tag_count)


# The words of a class or id token: split at "-", "_" and camelCase.
_MARK_PARTS = re.compile(r"[\s_\-]+|(?<=[a-z])(?=[A-Z])")


def mark_parts(token: str) -> list[str]:
    """A class or id token's words, lower-cased, in order ("site-footer",
    "copyRight": ["copy", "right"])."""
    return [part.lower() for part in _MARK_PARTS.split(token) if part]


# The common CSS conventions for text read to screen readers but not shown
# (Bootstrap, Tailwind "sr-only"; "visually-hidden"; WordPress
# "screen-reader-text"), matched as whole class tokens.
_SCREEN_READER = re.compile(
    r"(?:^|\s)(?:sr-only|visually-?hidden(?:--\w+)?|screen-?reader-(?:text|only)|a11y-hidden)(?:\s|$)",
    re.I,
)


def screen_reader_only(el: etree._Element) -> bool:
    """Whether the element's class says its text is read aloud, not shown."""
    cls = el.get("class")
    return bool(cls) and bool(_SCREEN_READER.search(cls))


def marks(el: etree._Element) -> str:
    """An element's class and id, space-joined: the words its authors named
    the box by (comments, navigation, share bars, the article body)."""
    return f"{el.get('class') or ''} {el.get('id') or ''}"


def named_boxes(doc: Document) -> list[tuple[etree._Element, str]]:
    """Every element below the body with a class or id, and its
    :func:`marks`, in page order; found once per page for the rules that
    look for boxes by their names (readers' comments, the page footer). One
    walk in Python costs a fraction of an XPath ``contains()`` per name."""

    def compute() -> list[tuple[etree._Element, str]]:
        found = []
        for el in doc.body.iterdescendants(etree.Element):
            cls, ident = el.get("class"), el.get("id")
            if cls or ident:
                found.append((el, f"{cls or ''} {ident or ''}"))
        return found

    return doc.derived("document.named_boxes", compute)


def all_text(el: etree._Element) -> str:
    """Every text of a subtree, its own tail left out, joined (as
    ``"".join(el.itertext())``): one string made by libxml2, for a whole
    page twice as fast as a Python string per text node."""
    return etree.tostring(el, method="text", encoding=str, with_tail=False)


def _is_hidden(el: etree._Element, aria: bool = True) -> bool:
    """Hidden by an attribute, inline style or a framework's hide class, or
    marked by a class as no content (:data:`_MARKED_NOT_CONTENT`).
    ``aria-hidden`` hides a box from screen readers, not from view: icons and
    decorations are dropped with it, but a link so marked is a visible copy
    (a card's title link beside its image link), and a box that also has an
    ``aria-label`` is shown content read aloud by that label (a price shown
    as "$129.99 $89.50", labelled "Original price: ..."): both stay.
    ``aria=False`` reads every other sign but ``aria-hidden``."""
    if el.get("hidden") is not None or (
        aria and el.get("aria-hidden") == "true" and el.tag != "a" and el.get("aria-label") is None
    ):
        return True
    style = el.get("style")
    if style and _HIDDEN_STYLE.search(style):
        return True
    names = (el.get("class") or "").split()
    if _HIDE_CLASS in names and not any(_SHOWN_FROM.fullmatch(n) for n in names):
        return True
    return not _MARKED_NOT_CONTENT.isdisjoint(names)


def _behind_open_modal(root: etree._Element) -> set[etree._Element]:
    """The body's children that are hidden only by an ``aria-hidden`` a modal
    set while it was open when the page was saved (:data:`MODAL_STATE_SHARE`);
    read once scripts and styles are dropped, so their text is what is shown."""
    body = root.find("body")
    if body is None:
        return set()
    children = list(body.iterchildren(etree.Element))
    marked = [c for c in children if c.get("aria-hidden") == "true"]
    if not marked:
        return set()
    total = sum(nonspace_len(all_text(c)) for c in children)
    held = sum(nonspace_len(all_text(c)) for c in marked)
    if not total or held < MODAL_STATE_SHARE * total:
        return set()
    return {c for c in marked if not _is_hidden(c, aria=False)}


def _marked_not_content(el: etree._Element) -> bool:
    cls = el.get("class")
    return bool(cls) and not _MARKED_NOT_CONTENT.isdisjoint(cls.split())


def _is_dialog(el: etree._Element) -> bool:
    """A modal or dialog box (policies, sign-up and cookie prompts): shown
    over the page on request, not part of it. A ``<dialog>`` is shown only
    with ``open``."""
    if el.get("aria-modal") == "true" or el.get("role") in ("dialog", "alertdialog"):
        return True
    return el.tag == "dialog" and el.get("open") is None


# React's streamed server rendering: a part rendered late is sent as a hidden
# segment (<div hidden id="S:1">) that a script call puts in its place:
# $RC("B:1","S:1") into a boundary's <template id="B:1">, $RS("S:2","P:2")
# into a placeholder <template id="P:2">. Without the scripts (a saved page),
# a segment goes to the template of its number, as React numbers them.
_STREAMED = re.compile(r'\$R([CS])\("([^"]{1,20})","([^"]{1,20})"\)')
_SEGMENTS = etree.XPath('//div[@hidden][starts-with(@id, "S:")]')


def _place_streamed(root: etree._Element) -> None:
    """Put React's streamed segments where their scripts would: the body of
    a Next.js page often arrives so, hidden at the end of the page."""
    segments = {el.get("id"): el for el in _SEGMENTS(root)}
    if not segments:
        return
    slots = {el.get("id"): el for el in root.iter("template") if el.get("id")}
    moves = {}  # segment id -> slot id
    for script in root.iter("script"):
        if "$R" in (text := script.text or ""):
            for kind, first, second in _STREAMED.findall(text):
                segment, slot = (second, first) if kind == "C" else (first, second)
                moves.setdefault(segment, slot)
    for name in segments:
        number = name[2:]
        moves.setdefault(name, f"B:{number}" if f"B:{number}" in slots else f"P:{number}")
    for segment_id, slot_id in moves.items():
        segment, slot = segments.get(segment_id), slots.get(slot_id)
        if segment is None or slot is None or slot.getparent() is None:
            continue
        if any(a is segment for a in slot.iterancestors()):
            continue
        box = etree.Element("div")
        box.text, box.tail = segment.text, slot.tail
        box.extend(list(segment))  # each child with its own tail
        slot.getparent().replace(slot, box)
        segment.drop_tree()


def _write_formula(root: etree._Element, math: etree._Element) -> None:
    """Replace a ``<math>`` element by its formula as one line of text,
    unless it lies in a subtree already dropped or in another formula. A
    display formula gets a line of its own by line breaks, not as a block:
    it stays in its paragraph's block, which density methods weigh whole (a
    block of one short formula falls under their thresholds)."""
    parent = math.getparent()
    if parent is None or _top(math) is not root:
        return
    formula = linear_text(math)
    line = etree.Element("span")
    line.tail = math.tail
    if math.get("display") == "block":
        etree.SubElement(line, "br").tail = formula
        etree.SubElement(line, "br")
    else:
        line.text = formula
    parent.replace(math, line)


def _clean(root: etree._Element) -> list[etree._Element]:
    """Drop comments, processing instructions, non-content and hidden
    subtrees; return the collapsed panels kept (:func:`_is_panel`).

    A hidden subtree holding most of the page's text stays: pages (WeChat
    articles, "read more" layouts) hide their body until a script reveals it.
    """
    collapsed: list[etree._Element] = []
    doomed = []
    hidden = []
    noscripts = []
    framesless = []
    anchors = []
    formulas = []
    for el in root.iter():
        tag = el.tag
        if tag == "a":
            anchors.append(el)
        if isinstance(tag, str) and tag.lower() == "noscript":
            noscripts.append(el)
        elif tag == "noframes":
            framesless.append(el)
        elif (
            not isinstance(tag, str)  # comment, processing instruction, entity
            or tag.lower() in DROP_TAGS
            or (tag == "input" and (el.get("type") or "").lower() == "hidden")
            or _is_dialog(el)
        ):
            doomed.append(el)
        elif tag not in ("html", "body") and _is_hidden(el):
            hidden.append(el)
        elif tag == "math":
            formulas.append(el)
    for el in doomed:
        if el.getparent() is not None:
            el.drop_tree()  # keeps the tail text
    for el in formulas:
        _write_formula(root, el)
    _keep_noscript_page(root, noscripts)
    for el in framesless:
        _parse_noframes(el)
    if hidden:
        total = nonspace_len(all_text(root))
        shown_by = _controlled_ids(root)
        background = _behind_open_modal(root)
        for el in hidden:
            if el.getparent() is None or el in background:
                continue
            text = nonspace_len(" ".join(el.itertext()))
            links = sum(nonspace_len(" ".join(a.itertext())) for a in el.iter("a"))
            if _is_panel(el, shown_by) and links <= 0.5 * text:
                if _top(el) is root:  # not inside a box dropped above
                    collapsed.append(el)  # text a click shows (not a menu of links)
                continue
            # Kept only if it is most of the page and is laid out as text
            # (paragraphs, few links): hidden blocks of SEO keyword or link
            # spam are large too, but flat. A subtree holding the whole page
            # is the page, hidden until a script shows it, however many of its
            # words are links (its navigation).
            blocks = sum(1 for _ in el.iter("p", "section", "div", "br", "li", "h2", "h3"))
            whole_page = text >= WHOLE_PAGE_SHARE * total
            link_spam = links > 0.5 * text and not whole_page
            if text <= REVEALED_SHARE * total or link_spam or blocks < 3:
                el.drop_tree()
    for heading in list(root.iter(*HEADING_TAGS)):
        marks = [m for a in heading.iter("a") if (m := _heading_mark(a, heading)) is not None]
        for mark in marks:
            if mark.getparent() is not None:  # a box holding two marks goes once
                mark.drop_tree()  # keeps the tail text
    for el in anchors:
        if el.getparent() is not None and _wraps_text(el):
            el.drop_tag()
    return collapsed


# A heading's own marks, drawn as a link beside its words: a permalink to the
# section ("¶", "#", "§", "🔗"; Sphinx, GitHub, blogs) and a wiki's edit link
# in brackets ("[edit]", "[编辑]"). They are no words of the heading.
_PERMALINK_MARKS = frozenset({"¶", "#", "§", "🔗", "⚓", "∞"})
_BRACKETED = re.compile(r"^\[[^\[\]]{1,40}\]$")


def _heading_mark(a: etree._Element, heading: etree._Element) -> etree._Element | None:
    """The element to drop when link ``a`` of ``heading`` is its permalink
    mark (a link to a place on the page, its text a sign) or the link of a
    bracketed edit control (the brackets' box with it); else None."""
    text = "".join("".join(a.itertext()).split())
    if (a.get("href") or "").startswith("#") and text in _PERMALINK_MARKS:
        return a
    box = a.getparent()
    if box is not heading and _BRACKETED.match("".join("".join(box.itertext()).split())):
        return box
    return None


# Words of a class or id naming a box for signing in or up ("x-dialog-login",
# "signupForm").
_LOGIN_PARTS = frozenset({"login", "signin", "logon", "signup", "register", "registration"})


# Words of a class or id naming a box for a newsletter sign-up.
_NEWSLETTER_PARTS = frozenset({"newsletter", "newsletters", "subscribe", "subscription"})
# A sign-up box holds a pitch, a field and a button; a box so named holding
# more is a page section (a newsletter's own landing page, a post).
NEWSLETTER_MAX_CHARS = 600


def _is_email_field(field: etree._Element) -> bool:
    kind = (field.get("type") or "text").lower()
    named = f"{field.get('name') or ''} {field.get('id') or ''}".lower()
    return kind == "email" or (kind == "text" and "mail" in named)


def _drop_form_boxes(root: etree._Element) -> bool:
    """Drop the boxes named for signing in that hold a password field (a
    site's login or sign-up dialog: its labels, hints and error messages
    are never the page's content, and it can hold more text than a short
    article), and the small ones named for a newsletter that hold an e-mail
    field (a sign-up box: "Get our news", "Thanks! Check your inbox"; at
    most NEWSLETTER_MAX_CHARS). The outermost box so named goes. Returns
    whether the page shows a password field at all."""
    inputs = list(root.iter("input"))
    passwords = [f for f in inputs if (f.get("type") or "").lower() == "password"]
    _drop_named_boxes(passwords, _LOGIN_PARTS)
    _drop_named_boxes(
        [f for f in inputs if _is_email_field(f)], _NEWSLETTER_PARTS, NEWSLETTER_MAX_CHARS
    )
    return bool(passwords)


# A box's text but its menus' options (a sign-up form's list of countries).
_SHOWN_TEXT = etree.XPath(".//text()[not(ancestor::select)]", smart_strings=False)


def _drop_named_boxes(
    fields: list[etree._Element], parts: frozenset[str], max_chars: int | None = None
) -> None:
    """Drop, for each field, its outermost ancestor below the body whose
    class or id has a word of ``parts`` (and, with ``max_chars``, no more
    non-space text than that outside its menus' options: the walk stops at
    a larger one)."""
    doomed = []
    for field in fields:
        box = None
        for el in field.iterancestors():
            if el.tag in ("body", "html"):
                break
            if not parts.isdisjoint(mark_parts(marks(el))):
                if max_chars is not None and nonspace_len("".join(_SHOWN_TEXT(el))) > max_chars:
                    break
                box = el
        if box is not None:
            doomed.append(box)
    for box in doomed:
        if box.getparent() is not None:
            box.drop_tree()


def _top(el: etree._Element) -> etree._Element:
    """The outermost ancestor: the root, unless a subtree holding ``el`` was
    dropped (a dropped subtree keeps its document)."""
    top = el
    while (parent := top.getparent()) is not None:
        top = parent
    return top


def _repair_texts(root: etree._Element) -> None:
    """Undo misread characters in every text, tail and ``<meta>`` content
    (read after entities are resolved: pages serve mojibake as ``&acirc;&euro;``)."""
    for el in root.iter():
        if el.text:
            el.text = repair_misread(el.text)
        if el.tail:
            el.tail = repair_misread(el.tail)
        if el.tag == "meta" and el.get("content"):
            el.set("content", repair_misread(el.get("content")))


def _controlled_ids(root: etree._Element) -> set[str]:
    """Ids a control on the page shows or hides (``aria-controls``)."""
    return {name for value in root.xpath("//@aria-controls") for name in value.split()}


def _is_panel(el: etree._Element, shown_by: set[str]) -> bool:
    """A disclosure panel: a tab's panel, or a box a control on the page
    opens (an accordion's answer, a "read more" section). Collapsed until
    clicked, it is content the reader asks for, unlike a hidden template,
    and it is marked so in the ARIA the page gives assistive technology."""
    if _marked_not_content(el):
        return False
    return el.get("role") == "tabpanel" or el.get("id") in shown_by


def _wraps_text(a: etree._Element) -> bool:
    """Whether a link is text wrapped in one: long, several lines, no blocks."""
    breaks = 0
    for el in a.iterdescendants():
        if el.tag == "br":
            breaks += 1
        elif el.tag in BLOCK_TAGS:
            return False
    return (
        breaks >= LINKED_TEXT_BREAKS and nonspace_len(" ".join(a.itertext())) >= LINKED_TEXT_CHARS
    )


def _parse_noframes(el: etree._Element) -> None:
    """A frameset page's ``<noframes>`` content: the parser keeps it as raw
    text ("<body><p>...</p></body>"); it is the page for clients without
    frames, so it is parsed into elements."""
    if el.getparent() is None or "<" not in (el.text or ""):
        return
    try:
        box = html.fragment_fromstring(el.text, create_parent="div")
    except (etree.ParserError, ValueError):
        return
    box.tail = el.tail
    el.getparent().replace(el, box)


def _keep_noscript_page(root: etree._Element, noscripts: list[etree._Element]) -> None:
    """Drop ``<noscript>`` blocks, unless they hold more of the page's text
    than the rest of it, and at least ``NOSCRIPT_PAGE_CHARS``: a JavaScript
    application's shell (a forum, a documentation site) whose server puts
    the whole page in ``<noscript>`` for clients without scripts, as this
    extractor is one. Then their content stays in place. Markup the parser
    left as text inside them (tracking pixels) is never text."""
    live = [el for el in noscripts if el.getparent() is not None]
    for el in live:
        if el.text and "<" in el.text:
            el.text = None
    inside = sum(nonspace_len(" ".join(el.itertext())) for el in live)
    keep = inside >= NOSCRIPT_PAGE_CHARS and 2 * inside > nonspace_len(all_text(root))
    for el in live:
        if el.getparent() is not None:
            if keep:
                el.drop_tag()  # its children and text stay where it stood
            else:
                el.drop_tree()


def _continues(el: etree._Element) -> bool:
    """Whether ``el`` ends in an element of its own tag and attributes after
    content of its own: one link of a chain that unclosed tags make (each
    ``<div>`` or ``<font>`` left open holds its paragraph and all the rest)."""
    last = el[-1]
    return (
        last.tag == el.tag
        and (len(el) > 1 or bool(el.text and el.text.strip()))
        and dict(last.attrib) == dict(el.attrib)
    )


def _unchain(root: etree._Element) -> None:
    """Make chains of at least CHAIN_LINKS unclosed tags siblings again: the
    paragraphs of such a chain sit one level deeper each, so that every
    density and depth measure sees one deep node instead of a run of
    paragraphs (browsers show them one under the other all the same)."""
    links = {el for el in root.iter() if len(el) and isinstance(el.tag, str) and _continues(el)}
    if len(links) < CHAIN_LINKS:
        return
    for top in [el for el in links if el.getparent() not in links or el.getparent()[-1] is not el]:
        length, el = 1, top[-1]
        while el in links:
            length, el = length + 1, el[-1]
        if length < CHAIN_LINKS:
            continue
        el = top[-1]
        while el is not None and el.tag == top.tag:
            following = el[-1] if el in links else None
            el.drop_tag()  # its children, the next link last, now sit in top
            el = following


def _flatten_deep(root: etree._Element) -> None:
    """Unwrap elements nested deeper than MAX_DEPTH (their text is kept)."""
    # The elements at depth MAX_DEPTH (the cleaned tree holds only elements),
    # found by lxml in C: a path of MAX_DEPTH child steps.
    deep = root.xpath("/".join(["*"] * MAX_DEPTH))
    for el in deep:
        text = "".join(el.itertext())
        for child in list(el):
            el.remove(child)
        el.text = text


def within_budget(text: str) -> tuple[str, bool]:
    """The markup parsed for ``text``: over MAX_CHARS, its scripts, styles and
    data URIs emptied and the rest cut there; and whether anything was cut."""
    if len(text) <= MAX_CHARS:
        return text, False
    slim = _DATA_URI.sub('=""', _NO_TEXT_BLOCKS.sub(r"<\1></\1>", text))
    return slim[:MAX_CHARS], len(slim) > MAX_CHARS


def parse_html(text: str) -> etree._Element:
    """Parse markup (cut to the budget by :func:`within_budget`) into an
    lxml tree (never returns None)."""
    if text.lstrip().startswith("<?xml"):
        text = re.sub(r"^\s*<\?xml[^>]*\?>", "", text)
    text = _BODY_END.sub("", _close_title(_without_server_errors(text)))
    try:
        root = html.document_fromstring(text, parser=_parser()) if text.strip() else None
    except (etree.ParserError, ValueError):
        root = None
    if root is None:
        root = html.document_fromstring("<html><body></body></html>")
    _scrub_characters(root)
    return root


# A browser ignores ``</body>`` and ``</html>``: what follows them is still
# shown in the body. libxml2 honours them, so markup after a stray one (a
# template closing the page after its header) would land beside the body,
# or in a second root no one reads. Dropped before parsing, as browsers do.
_BODY_END = re.compile(r"</(?:body|html)\s*>", re.I)
# What PHP prints into a page when ``display_errors`` is on (a deprecated
# call, a failed query): one line per message, "<b>Warning</b>:  ... in
# <b>/path/file.php</b> on line <b>45</b><br />". It is the server's noise,
# never the page's text, and can be longer than a short post beside it.
_SERVER_ERROR = re.compile(
    r"(?:<br\s*/?>\s*)?<b>(?:Warning|Notice|Deprecated|Strict Standards|(?:Catchable )?"
    r"Fatal error|Parse error)</b>:\s[^\n]{0,2000}?\son line\s<b>\d+</b>(?:\s*<br\s*/?>)?"
)


def _without_server_errors(text: str) -> str:
    if "</b> on line <b>" not in text:
        return text
    return _SERVER_ERROR.sub("", text)


_TITLE_OPEN = re.compile(r"<title\b[^>]*>[^<]*", re.I)
_TITLE_CLOSE = re.compile(r"</title", re.I)
_TITLE_TAG = re.compile(r"^<title\b[^>]*>", re.I)


def _close_title(text: str) -> str:
    """Close a <title> that is never closed at the next tag: its text runs
    to the end of the file (it holds no markup) and would take the whole
    page with it, leaving an empty body."""
    opened = _TITLE_OPEN.search(text)
    if opened is None or _TITLE_CLOSE.search(text, opened.end()):
        return text
    rest = _TITLE_TAG.sub("", text[opened.end() :], count=1)  # "<title>X<title>": a typo
    return f"{text[: opened.end()]}</title>{rest}"


# Characters an lxml tree cannot store (XML forbids them): character
# references such as ``&#1;`` still put them into the parsed tree, and any
# later edit of that text (``drop_tree`` joining a tail) would then raise.
_XML_INVALID = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
# Addresses keep their characters as written (a link is followed as given).
_ADDRESS_ATTRIBUTES = frozenset({"href", "src", "srcset", "action", "data-src"})


def _scrub_characters(root: etree._Element) -> None:
    """Drop XML-invalid characters from every text, tail and attribute
    value, and compose texts and values (Unicode NFC; addresses aside):
    canonically equivalent text is then one string (a decomposed "é" and a
    composed one; Bengali's য় as one code point or as য plus a nukta), as
    readers, search and duplicate checks expect it."""
    search, sub = _XML_INVALID.search, _XML_INVALID.sub
    # Nearly every page needs neither: one check over its texts and one over
    # its attribute values, which lxml lists in C (the parser already dropped
    # comments and PIs; a union of the two paths would sort, and is slower).
    texts = all_text(root)
    values = "".join(root.xpath("//@*", smart_strings=False))
    invalid = bool(search(texts) or search(values))
    composed = unicodedata.is_normalized("NFC", texts) and unicodedata.is_normalized("NFC", values)
    if not invalid and composed:
        return

    def scrub(text: str, compose: bool = True) -> str:
        if invalid:
            text = sub("", text)
        return text if composed or not compose else unicodedata.normalize("NFC", text)

    for el in root.iter():
        if el.text:
            el.text = scrub(el.text)
        if el.tail:
            el.tail = scrub(el.tail)
        if isinstance(el.tag, str):
            for key, value in el.attrib.items():
                if (fixed := scrub(value, key not in _ADDRESS_ATTRIBUTES)) != value:
                    el.set(key, fixed)


_parsers = threading.local()


def _parser() -> html.HTMLParser:
    """This thread's parser: an lxml parser must not be used by two threads
    at once (a crawl parses in its event loop and extracts in a worker)."""
    parser = getattr(_parsers, "parser", None)
    if parser is None:
        parser = html.HTMLParser(
            remove_comments=True, remove_pis=True, huge_tree=True, recover=True
        )
        # Every element is a plain HtmlElement, chosen in C: lxml.html's own
        # lookup is a Python call for each element object made (a few per
        # element and page), only to give form controls classes no
        # extractor uses.
        parser.set_element_class_lookup(
            etree.ElementDefaultClassLookup(
                element=html.HtmlElement,
                comment=html.HtmlComment,
                pi=html.HtmlProcessingInstruction,
                entity=html.HtmlEntity,
            )
        )
        _parsers.parser = parser
    return parser


class Document:
    """A parsed, cleaned page plus statistics for every element.

    Build with :func:`as_document`. ``stats[el]`` gives an element's
    :class:`NodeStats`; ``text`` is the decoded source.
    """

    def __init__(
        self,
        source: str | bytes,
        url: str | None = None,
        content_type: str | None = None,
    ) -> None:
        if isinstance(source, bytes) and looks_binary(source, content_type):
            source = b""  # an image or an archive is no page: an empty result
        self.text, self.encoding = decode_html(source, content_type)
        self.url = url
        # What is parsed (the text itself, unless over the budget): enough to
        # build this Document again elsewhere (a crawl's worker process).
        self.markup, self.cut_short = within_budget(self.text)  # said by `sitesift extract`
        root = parse_html(self.markup)
        if may_misread(self.text) and misreads_punctuation(all_text(root)):
            _repair_texts(root)
        self.title = _title_of(root)
        lang = (root.get("lang") or "").strip().lower()
        self.lang_attr = lang if _LANG_TAG.fullmatch(lang) else None
        # What metadata needs from <head> and <script> is kept before cleaning.
        self.meta: dict[str, str] = _meta_of(root)
        self.jsonld: list[str] = [
            s.text for s in root.iter("script")
            if (s.get("type") or "").lower() == "application/ld+json" and s.text
        ]  # fmt: skip
        # A microdata author's name given only in a <meta> of its item
        # (forum posts, WordPress themes), which cleaning drops.
        self.author_names: list[str] = (
            [
                collapse_ws(name)
                for name in root.xpath(
                    "//body//*[@itemprop='author'][@itemscope]/meta[@itemprop='name']/@content"
                )
                if name.strip()
            ]
            if "itemscope" in self.text
            else []
        )
        self.links: list[tuple[str, str]] = [
            ((el.get("rel") or "").lower(), el.get("href") or "")
            for el in root.iter("link", "a")
            if el.get("rel") and el.get("href")
        ]
        # For crawling: every outgoing href (hidden menus included, cleaning
        # drops those) and the pages of a paginated article announced in
        # <head> (rel=next/prev), feeds announced there, and the <base> URL.
        self.hrefs: list[str] = [
            href.strip()
            for el in root.iter("a", "area", "frame", "iframe", "link")
            if (href := el.get("href") or el.get("src"))
            and (el.tag != "link" or {"next", "prev"} & set((el.get("rel") or "").lower().split()))
        ]
        self.feeds: list[str] = [
            el.get("href", "").strip()
            for el in root.iter("link")
            if "alternate" in (el.get("rel") or "").lower()
            and any(t in (el.get("type") or "").lower() for t in ("rss", "atom"))
            and el.get("href")
        ]
        base = root.find(".//base[@href]")
        self.base_href: str | None = base.get("href").strip() if base is not None else None
        if "<template" in self.text:  # a streamed segment has one to go to
            _place_streamed(root)
        # Tab panels and accordion answers: text, but not what the page
        # shows at first sight (auto's page-type decision reads without them).
        self.collapsed: list[etree._Element] = _clean(root)
        # A shown password field: a login page, when little else is shown.
        self.asks_password: bool = _drop_form_boxes(root)
        _unchain(root)
        _flatten_deep(root)
        self.root: etree._Element = root
        body = root.find("body")
        self.body: etree._Element = body if body is not None else root
        self.stats: dict[etree._Element, NodeStats] = {}
        self.line_count = 0
        self._compute_stats()
        self._derived: dict[Hashable, Any] = {}

    def derived(self, key: Hashable, compute: Callable[[], T]) -> T:
        """``compute()``, once per document and ``key``: the tree is never
        changed after parsing, so what one method derives from it (CETD's
        densities, the list records) is shared with the others."""
        if key not in self._derived:
            self._derived[key] = compute()
        return self._derived[key]

    # -- statistics -------------------------------------------------------

    def _compute_stats(self) -> None:
        """One walk of lxml's start/end events (in C, no stack of our own):
        the start assigns depth/index/line, the end sums text, link text and
        tag counts into the parent."""
        stats = self.stats
        block_tags = BLOCK_TAGS
        index = 0
        line = 0
        line_open = False  # whether text was emitted on the current line
        # The open elements' (stats, inside a link, the element included).
        stack: list[tuple[NodeStats, bool]] = []
        push, pop = stack.append, stack.pop
        for event, el in etree.iterwalk(self.root, events=("start", "end")):
            if event == "start":
                tag = el.tag
                if line_open and tag in block_tags:
                    line += 1
                    line_open = False
                is_link = tag == "a" and el.get("href") is not None
                link = is_link or (stack[-1][1] if stack else False)
                own = nonspace_len(el.text)
                st = NodeStats(own, own if link else 0, 0, int(is_link), len(stack), index, line)
                stats[el] = st
                index += 1
                if own:
                    line_open = True
                push((st, link))
                continue
            st = pop()[0]
            st.last_line = max(st.line, line if line_open else line - 1)
            if line_open and el.tag in block_tags:
                line += 1
                line_open = False
            tail_len = nonspace_len(el.tail)
            if stack:
                pst, in_link = stack[-1]
                pst.text_len += st.text_len + tail_len
                pst.link_text_len += st.link_text_len + (tail_len if in_link else 0)
                pst.tag_count += st.tag_count + 1
                pst.link_count += st.link_count
            if tail_len:
                line_open = True
        self.line_count = line + (1 if line_open else 0)

    # -- convenience ------------------------------------------------------

    @cached_property
    def language(self) -> str | None:
        """Language code from the ``lang`` attribute, unless the script of the
        text says otherwise (a Chinese site's template left at ``lang="en"``:
        Chinese, Japanese and Korean against the rest); without one, the script."""
        declared = self.lang_attr.split("-")[0].split("_")[0] if self.lang_attr else None
        sample: list[str] = []
        size = 0
        for piece in self.body.itertext():
            sample.append(piece)
            size += len(piece)
            if size > _LANGUAGE_SAMPLE:
                break
        script = guess_language(" ".join(sample))
        if declared is None or script is None:
            return declared or script
        if (script in _CJK_LANGUAGES) != (declared in _CJK_LANGUAGES):
            return script
        return declared

    def elements(self, tag: str | None = None) -> list[etree._Element]:
        """Elements of the cleaned tree in document order (optionally one tag)."""
        return [el for el in self.root.iter(tag) if isinstance(el.tag, str)]


def _meta_of(root: etree._Element) -> dict[str, str]:
    """``<meta>`` values keyed by lower-cased name, property or itemprop
    (the first occurrence wins)."""
    meta: dict[str, str] = {}
    for el in root.iter("meta"):
        key = el.get("name") or el.get("property") or el.get("itemprop") or el.get("http-equiv")
        content = el.get("content")
        if key and content is not None:
            meta.setdefault(key.strip().lower(), content.strip())
    return meta


def _title_of(root: etree._Element) -> str | None:
    el = root.find(".//title")
    if el is None:
        return None
    title = collapse_ws(el.text_content())
    return clean_text(title) or None


def as_document(
    source: str | bytes | Document, url: str | None = None, content_type: str | None = None
) -> Document:
    """Return ``source`` if it is already a :class:`Document`, else parse it."""
    if url is not None and not isinstance(url, str):
        raise TypeError(f"url= takes the page's address as a str, not {type(url).__name__}")
    if isinstance(source, Document):
        return source
    if not isinstance(source, (str, bytes, bytearray)):
        raise ExtractionError(f"expected HTML as str or bytes, got {type(source).__name__}")
    return Document(bytes(source) if isinstance(source, bytearray) else source, url, content_type)


# A link attribute as browsers read it (WHATWG URL): C0 controls and spaces
# around it stripped, tabs and newlines inside dropped; the controls and
# spaces left are percent-encoded, so an output URL never holds them.
_URL_STRIP = "".join(chr(c) for c in range(0x21))
_URL_TAB_NEWLINE = re.compile(r"[\t\n\r]")
_URL_UNSAFE = re.compile(r"[\x00-\x20\x7f-\x9f]")


def absolute_url(href: str, base: str | None) -> str | None:
    """``href`` resolved against ``base`` (if any) the way a browser reads a
    link, or None when it is empty or malformed (``http://[::1:bad/``)."""
    href = _URL_TAB_NEWLINE.sub("", href.strip(_URL_STRIP))
    if not href:
        return None
    try:
        url = urljoin(base, href) if base else href
    except ValueError:
        return None
    return _URL_UNSAFE.sub(lambda m: "".join(f"%{b:02X}" for b in m.group().encode()), url)


def text_pieces(el: etree._Element) -> list[str]:
    """An element's text pieces, its own tail left out.

    Not a compiled XPath (``descendant::text()``), which is no faster: lxml
    locks an XPath object around each call, dropping and retaking the GIL,
    and a worker thread doing that thousands of times a second starves the
    crawl's event loop of the GIL (CPython counts each retake as a switch).
    """
    return list(el.itertext())


def text_content(el: etree._Element) -> str:
    """All text of a subtree, whitespace collapsed, on one line."""
    return collapse_ws(" ".join(text_pieces(el)))


CELL_TAGS = frozenset({"td", "th"})
CELL_SEPARATOR = " | "  # between the cells of a data row's line


def is_data_row(tr: etree._Element) -> bool:
    """A table row of data: two cells or more holding text only (no block,
    no ``<br>``). Every method writes it as one line, its cells joined by
    :data:`CELL_SEPARATOR`, as people write a table in plain text; a row of a
    layout table holds blocks and keeps a line per block."""
    return len(tr) >= 2 and all(
        cell.tag in CELL_TAGS and not any(d.tag in BLOCK_TAGS for d in cell.iterdescendants())
        for cell in tr
    )


# A data table: at least this many data rows, most of its rows, and under
# this share of link text (a grid of links is a menu, not data).
DATA_TABLE_MIN_ROWS = 2
DATA_TABLE_MAX_LINK_DENSITY = 0.5
# The parts of a table below ``<table>``.
TABLE_PARTS = frozenset({"thead", "tbody", "tfoot", "tr"})


def is_data_table(table: etree._Element, stats: dict[etree._Element, NodeStats]) -> bool:
    """A table of data: text under :data:`DATA_TABLE_MAX_LINK_DENSITY` link
    text, and at least :data:`DATA_TABLE_MIN_ROWS` data rows, most of its rows."""
    st = stats.get(table)
    if st is None or not st.text_len or st.link_density >= DATA_TABLE_MAX_LINK_DENSITY:
        return False
    rows = list(table.iter("tr"))
    data = sum(1 for tr in rows if is_data_row(tr))
    return data >= DATA_TABLE_MIN_ROWS and 2 * data >= len(rows)


def in_data_table(
    el: etree._Element,
    stats: dict[etree._Element, NodeStats],
    known: dict[etree._Element, bool] | None = None,
) -> bool:
    """Whether ``el`` lies in a data table (the nearest ``<table>`` above
    it); ``known`` keeps each table's answer for a caller asking per row."""
    table = next(el.iterancestors("table"), None)
    if table is None:
        return False
    if known is None:
        return is_data_table(table, stats)
    if table not in known:
        known[table] = is_data_table(table, stats)
    return known[table]


def data_table_nodes(root: etree._Element, stats: dict[etree._Element, NodeStats]) -> set:
    """The elements of ``root``'s data tables, with the wrappers that hold
    mostly one of them; all of ``root`` when it is a part of one (the densest
    node of a page whose body is a table may be its ``<tbody>``). The density
    methods keep these whole: short cells under many tags are what a table
    is, not a sign of boilerplate, and pruning them by density cut price
    lists and schedules out of articles."""
    if root.tag in TABLE_PARTS:
        return set(root.iter()) if in_data_table(root, stats) else set()
    nodes: set[etree._Element] = set()
    for table in root.iter("table"):
        if not is_data_table(table, stats):
            continue
        st = stats[table]
        if not stats[root].line < st.line or not st.last_line < stats[root].last_line:
            continue  # not between other lines of the root
        nodes.update(table.iter())
        el = table.getparent()
        while el is not None and el is not root and 2 * st.text_len >= stats[el].text_len:
            nodes.add(el)
            el = el.getparent()
    return nodes


def row_line(cells: list[str]) -> str:
    """A data row's line ("" when all its cells are empty)."""
    line = collapse_ws(CELL_SEPARATOR.join(cells))
    return line if line.strip("| ") else ""


# The blocks whose lines a line's kind names (see ``text_lines``' ``kinds``):
# a heading's level, a list item's list and depth, a quotation.
_KIND_TAGS = HEADING_TAGS | {"li", "blockquote"}


def _kind_of(node: etree._Element) -> str:
    """A block's kind: "h2", "ul1" / "ol2" (a list item: its list, how many
    items hold it, itself included), "quote"."""
    tag = node.tag
    if tag == "li":
        items = sum(1 for _ in node.iterancestors("li")) + 1
        listed = next(node.iterancestors("ol", "ul"), None)
        return f"{'ol' if listed is not None and listed.tag == 'ol' else 'ul'}{items}"
    return "quote" if tag == "blockquote" else tag


def text_lines(
    el: etree._Element,
    skip: frozenset[etree._Element] | set[etree._Element] | None = None,
    limit: int | None = None,
    kinds: list[str] | None = None,
) -> list[str]:
    """Text of a subtree as lines: a new line at every block tag and ``<br>``,
    a block of preformatted text on one line (see ``text.PRE_BREAK``), a
    table row of data on one line (see ``is_data_row``).

    ``skip`` holds elements whose subtree (not tail) is left out — the way
    pruning algorithms render their result without mutating the shared tree.
    ``limit`` (at least 0): only the first lines, rendered no further.
    ``kinds``, when given, gets each line's kind, for output with markup: a
    heading's tag ("h2"), a list item's first line ("ul1", "ol2": see
    ``_kind_of``) and its next ones ("ul1+"), a line in a quotation
    ("quote"), preformatted text ("pre"), a data row ("row"); "" for any
    other line.
    """
    lines: list[str] = []
    current: list[str] = []
    preformatted = 0  # open <pre> and the like
    row: etree._Element | None = None  # the table row being written on one line
    cells: list[str] = []
    # The open blocks of a kind, innermost last: [element, kind, lines so far].
    blocks: list[list[Any]] = []

    def kind() -> str:
        if preformatted:
            return "pre"
        if not blocks:
            return ""
        block = blocks[-1]
        block[2] += 1
        if block[1][0] in "uo" and block[2] > 1:  # a list item's first line carries its mark
            return block[1] + "+"
        return block[1]

    def flush() -> None:
        if current:
            text = "".join(current)
            if line := preformatted_text(text) if preformatted else collapse_ws(clean_text(text)):
                lines.append(line)
                if kinds is not None:
                    kinds.append(kind())
            current.clear()

    if not isinstance(el.tag, str):
        return []
    # lxml's start/end events (in C, no stack of our own); a skipped
    # subtree's end event comes right after its start and adds its tail only.
    # Comments and processing instructions (none in a cleaned tree) are
    # events of their own: only their tails are text.
    skipping = False
    walk = etree.iterwalk(el, events=("start", "end", "comment", "pi"))
    for event, node in walk:
        if limit is not None and len(lines) >= limit:
            break
        if event in ("comment", "pi"):
            if node.tail:
                current.append(node.tail)
            continue
        if event == "start":
            tag = node.tag
            if skip and node in skip or not isinstance(tag, str):
                walk.skip_subtree()
                skipping = True
                continue
            if row is not None:  # inside a cell, or a cell begins
                if node.getparent() is row:
                    current.clear()  # the space between two cells
            elif tag == "tr" and is_data_row(node):
                flush()
                row, cells = node, []
            elif tag in BLOCK_TAGS:
                flush()
                preformatted += tag in PREFORMATTED_TAGS
                if kinds is not None and tag in _KIND_TAGS:
                    blocks.append([node, _kind_of(node), 0])
            if node.text:
                current.append(node.text)
            continue
        if skipping:
            skipping = False
        elif node is row:
            if line := row_line(cells):
                lines.append(line)
                if kinds is not None:
                    kinds.append("row")
            row = None
            current.clear()
        elif row is not None:
            if node.getparent() is row:
                cells.append(collapse_ws(clean_text("".join(current))))
                current.clear()
        elif node.tag in BLOCK_TAGS:
            flush()
            preformatted -= node.tag in PREFORMATTED_TAGS
            if blocks and blocks[-1][0] is node:
                blocks.pop()
        if node is not el and node.tail:
            current.append(node.tail)
    flush()
    if limit is not None and kinds is not None:
        del kinds[limit:]
    return lines if limit is None else lines[:limit]
