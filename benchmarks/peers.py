"""Other extractors, wrapped alike for the side-by-side scoreboard.

Every peer is ``fn(html: str, url: str | None, lang: str | None) -> str``:
it receives the page already decoded by :func:`extractors.encoding.decode_html`
(the same text sitesift's methods get, so no tool wins or loses on charset
guessing) and returns plain text, one block per line. Peers run with their
defaults; only what a tool cannot do without (jusText's stoplist) is chosen
here. ``lxml-parse`` only parses: it is the speed floor, not an extractor.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Callable
from functools import lru_cache

from lxml import html as lxml_html

from extractors.document import text_lines

PeerFn = Callable[[str, str | None, str | None], str]

# jusText's name for a stoplist, by language code.
_JUSTEXT_LANGS: dict[str, str] = {
    "en": "English",
    "de": "German",
    "fr": "French",
    "es": "Spanish",
    "pt": "Portuguese",
    "it": "Italian",
    "nl": "Dutch",
    "cs": "Czech",
    "pl": "Polish",
    "ru": "Russian",
}
# Languages jusText has no stoplist for: its language-independent mode.
_NO_STOPLIST = {"zh", "ja", "ko"}
_WORD = re.compile(r"[^\W\d_]+")


def _parse(text: str):
    """lxml's HTML parser on a str (an XML declaration would make it refuse)."""
    return lxml_html.document_fromstring(text.encode("utf-8"), parser=_UTF8_PARSER)


_UTF8_PARSER = lxml_html.HTMLParser(encoding="utf-8", recover=True, huge_tree=True)


def lxml_parse(text: str, url: str | None = None, lang: str | None = None) -> str:
    """Parse only (the speed floor every method is measured against)."""
    _parse(text)
    return ""


def trafilatura_text(text: str, url: str | None = None, lang: str | None = None) -> str:
    """trafilatura with its defaults, comments excluded (its own eval setting)."""
    import trafilatura

    return trafilatura.extract(text, url=url, include_comments=False) or ""


def readability_text(text: str, url: str | None = None, lang: str | None = None) -> str:
    """readability-lxml's summary HTML rendered to lines."""
    from readability import Document

    summary = Document(text, url=url).summary(html_partial=True)
    if not summary.strip():
        return ""
    root = lxml_html.fragment_fromstring(summary, create_parent="div")
    return "\n".join(text_lines(root))


@lru_cache(maxsize=16)
def _stoplist(name: str) -> frozenset[str]:
    import justext

    return frozenset(justext.get_stoplist(name))


def _guess_stoplist(text: str) -> str:
    """The stoplist covering most words of the page's visible text: the
    dataset language code is too coarse for Latin-script pages (German and
    English both come out as ``en``)."""
    sample = [w.lower() for w in _WORD.findall(_visible_text(text)[:20_000])]
    if not sample:
        return "English"
    best, best_share = "English", -1.0
    for name in _JUSTEXT_LANGS.values():
        words = _stoplist(name)
        share = sum(1 for w in sample if w in words) / len(sample)
        if share > best_share:
            best, best_share = name, share
    return best


_NON_TEXT = re.compile(r"<(script|style)\b.*?</\1\s*>|<[^>]*>", re.I | re.S)


def _visible_text(text: str) -> str:
    """Roughly the page's words: tags, scripts and styles cut by regex (a
    second parse would bill jusText for the harness's language guess)."""
    return _NON_TEXT.sub(" ", text[:500_000])


def justext_text(text: str, url: str | None = None, lang: str | None = None) -> str:
    """jusText (PyPI). Chinese, Japanese and Korean have no stoplist, so they
    run in jusText's language-independent mode: an empty stoplist with both
    stopword thresholds at 0, leaving length and link density to decide.
    Other pages get the stoplist that covers most of their words."""
    import justext

    if lang in _NO_STOPLIST:
        paragraphs = justext.justext(text, frozenset(), stopwords_low=0, stopwords_high=0)
    else:
        stoplist = _JUSTEXT_LANGS.get(lang or "") if lang != "en" else None
        paragraphs = justext.justext(text, _stoplist(stoplist or _guess_stoplist(text)))
    return "\n".join(p.text for p in paragraphs if not p.is_boilerplate)


def boilerpy3_text(text: str, url: str | None = None, lang: str | None = None) -> str:
    """boilerpy3's ArticleExtractor (the boilerpipe port)."""
    from boilerpy3 import extractors

    return extractors.ArticleExtractor(raise_on_failure=False).get_content(text) or ""


def gne_text(text: str, url: str | None = None, lang: str | None = None) -> str:
    """GNE's article body (``content``)."""
    from gne import GeneralNewsExtractor

    return GeneralNewsExtractor().extract(text).get("content") or ""


PEERS: dict[str, PeerFn] = {
    "lxml-parse": lxml_parse,
    "trafilatura": trafilatura_text,
    "readability-lxml": readability_text,
    "justext-pypi": justext_text,
    "boilerpy3": boilerpy3_text,
    "gne": gne_text,
}

# The module each peer needs: they come with the benchmark-only extra
# (``pip install -e '.[bench]'``), never with sitesift itself.
PEER_MODULES: dict[str, str] = {
    "trafilatura": "trafilatura",
    "readability-lxml": "readability",
    "justext-pypi": "justext",
    "boilerpy3": "boilerpy3",
    "gne": "gne",
}


def installed(peer: str) -> bool:
    """Whether a peer's module can be imported (scoring a missing one would
    give zeros)."""
    module = PEER_MODULES.get(peer)
    return module is None or importlib.util.find_spec(module) is not None


# Peers whose output is not text to be scored.
SPEED_ONLY: frozenset[str] = frozenset({"lxml-parse"})
