"""The article body as the page's markup names it.

Many pages say where their article body is: schema.org's
``itemprop="articleBody"``, or the class or id a CMS gives the body box
(``entry-content``, ``article-body``, ``post_content``, ``news-text``...).
These are conventions of publishing software, not of a site. The
statistical methods never read them, so when they all fail together (a short
story beside a longer block of other text, a page of several stories) the
markup still points at the body: :mod:`extractors.auto` uses it as a
fallback when its chosen output lies mostly outside that box. The page's
``<main>`` landmark (:func:`main_landmark`) says where a landing page's
sections are.
"""

from __future__ import annotations

import re

from lxml import etree

from .document import Document, marks, named_boxes

# A class or id naming an article body: "article" / "post" / "entry" /
# "story" / "news" joined to "content" / "body" / "text", either way round,
# with "-", "_" or nothing between (case-insensitive, so camelCase too).
_BODY_NAME = re.compile(
    r"(?:^|[\s_-])(?:"
    r"article[-_]?(?:content|body|text)|(?:content|body|text)[-_]?article|"
    r"post[-_]?(?:content|body|text)|entry[-_]?(?:content|body|text)|"
    r"story[-_]?(?:content|body|text)|news[-_]?(?:content|body|text)"
    r")(?:$|[\s_-])",
    re.I,
)


def _names_body(el: etree._Element) -> bool:
    if el.get("itemprop") == "articleBody":
        return True
    return _BODY_NAME.search(marks(el)) is not None


def body_container(doc: Document) -> etree._Element | None:
    """The one outermost element the markup names as the article body, or
    None when there is none or several (a page of several stories names a
    body per story: which one is meant is not said)."""
    stats = doc.stats
    # Named by microdata, or by a class or id (the body element's too).
    named = {el for el in doc.body.iter(etree.Element) if el.get("itemprop") == "articleBody"}
    named.update(el for el, words in named_boxes(doc) if _BODY_NAME.search(words))
    if _names_body(doc.body):
        named.add(doc.body)
    found: etree._Element | None = None
    end = -1
    for el in sorted((el for el in named if el in stats), key=lambda el: stats[el].index):
        st = stats[el]
        if st.index <= end:
            continue
        if found is not None:
            return None
        found, end = el, st.index + st.tag_count
    return found


def main_landmark(doc: Document) -> etree._Element | None:
    """The page's one ``<main>`` element (or ``role="main"``), or None when
    there is none or several: where HTML5 says the page's own content is."""
    found = [el for el in doc.body.xpath(".//main|.//*[@role='main']") if el in doc.stats]
    return found[0] if len(found) == 1 else None
