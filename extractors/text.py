"""Words, characters and languages: the text measures every algorithm shares.

English counts whitespace words; Chinese has no spaces, so it is cut with
jieba (loaded lazily, once per process) or counted by characters.
"""

from __future__ import annotations

import logging
import re
import tempfile
import threading
import unicodedata
from enum import StrEnum
from functools import lru_cache
from pathlib import Path
from types import ModuleType

# CJK Unified Ideographs (+ extension A, compatibility) — the characters that
# make a text "Chinese" for counting purposes.
_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
CJK_CHAR = re.compile(f"[{_CJK}]")
_WORD = re.compile(rf"[^\W{_CJK}]+|[{_CJK}]")
_LATIN_WORD = re.compile(rf"[^\W{_CJK}]+")

_jieba_lock = threading.Lock()
_jieba = None


class Tokenizer(StrEnum):
    """How text is cut into words (pluggable for jusText and boilerpipe)."""

    WHITESPACE = "whitespace"  # \\w+ runs; each CJK character alone
    JIEBA = "jieba"  # jieba words for CJK runs, \\w+ runs elsewhere
    CHARS = "chars"  # every non-space character is a token


def collapse_ws(text: str) -> str:
    """Fold runs of whitespace to one space and strip. ``str.split`` drops
    exactly what ``\\s`` matches (``isspace``), and is several times faster
    than a regex substitution."""
    return " ".join(text.split())


def nonspace_len(text: str | None) -> int:
    """Number of non-whitespace characters (``str.split`` drops exactly the
    characters ``isspace`` names, in C)."""
    return len("".join(text.split())) if text else 0


def share_on_lines(text: str, lines: list[str]) -> float:
    """Share of the text's non-space characters on lines that are among
    ``lines`` (whitespace aside): how much of an output lies in a box."""
    box = {"".join(line.split()) for line in lines}
    own = ["".join(line.split()) for line in text.split("\n")]
    total = sum(map(len, own))
    return sum(len(line) for line in own if line in box) / total if total else 0.0


def without_copies(text: str, min_chars: int, min_lines: int, min_share: float) -> str:
    """``text`` without the second copies of runs of its paragraphs (lines
    of ``min_chars`` non-space characters or more): at least ``min_lines``
    different paragraphs repeated in the same order, and the lines between
    them, when the copies hold ``min_share`` of the text or more. A page may
    hold its body twice (a site builder's variant per screen width, hidden
    by a stylesheet a saved page does not have; a thread quoting whole
    posts); a paragraph said again (a pull quote, a refrain) or a few lines
    each card or tab repeats are no such copy."""
    lines = text.split("\n")
    keys = ["".join(line.split()) for line in lines]
    paras = [i for i, key in enumerate(keys) if len(key) >= min_chars]
    first: dict[str, int] = {}
    drop: set[int] = set()
    j = 0
    while j < len(paras):
        key = keys[paras[j]]
        start = first.get(key)
        if start is None:
            first[key] = j
            j += 1
            continue
        n = 0
        while j + n < len(paras) and start + n < j and keys[paras[j + n]] == keys[paras[start + n]]:
            n += 1
        if len({keys[paras[j + m]] for m in range(n)}) >= min_lines:
            drop.update(range(paras[j], paras[j + n - 1] + 1))
            j += n
        else:
            # A long run of a few lines said over and over (a table's like
            # rows) holds no copy: passed at once, not line by line.
            j += n if n > min_lines else 1
    dropped = sum(len(keys[i]) for i in drop)
    if not drop or dropped < min_share * sum(map(len, keys)):
        return text
    return "\n".join(line for i, line in enumerate(lines) if i not in drop)


def cjk_ratio(text: str) -> float:
    """Share of CJK ideographs among the non-space characters."""
    chars = nonspace_len(text)
    if not chars:
        return 0.0
    return len(CJK_CHAR.findall(text)) / chars


def is_chinese(text: str, threshold: float = 0.3) -> bool:
    """Whether a text is mostly Chinese (by its share of ideographs)."""
    return cjk_ratio(text[:20_000]) >= threshold


def _load_jieba():
    global _jieba
    if _jieba is None:
        with _jieba_lock:
            if _jieba is None:
                import jieba

                jieba.setLogLevel(logging.WARNING)
                jieba.dt.tmp_dir = tempfile.gettempdir()
                jieba.dt.cache_file = str(Path(tempfile.gettempdir()) / "sitesift-jieba.cache")
                jieba.initialize()
                _jieba = jieba
    return _jieba


def jieba_tagger() -> ModuleType:
    """jieba's part-of-speech tagger (``jieba.posseg``) over the dictionary
    loaded as above; its tables load on first import (0.5 s), which Python's
    import lock makes once per process."""
    _load_jieba()
    import jieba.posseg

    return jieba.posseg


# jieba is quadratic in the length of a run it cannot segment by dictionary
# (33,000 of one repeated ideograph take ~3 s); real text breaks runs with
# punctuation every few dozen characters, so longer runs are cut into pieces
# of this many characters before jieba sees them.
_JIEBA_MAX_RUN = 200
_LONG_RUN = re.compile(rf"[{_CJK}a-zA-Z0-9]{{{_JIEBA_MAX_RUN + 1},}}")


def _split_long_runs(match: re.Match[str]) -> str:
    run = match.group()
    return " ".join(run[i : i + _JIEBA_MAX_RUN] for i in range(0, len(run), _JIEBA_MAX_RUN))


def jieba_words(text: str) -> list[str]:
    """jieba words of a text, without whitespace or punctuation tokens."""
    jieba = _load_jieba()
    text = _LONG_RUN.sub(_split_long_runs, text)
    words: list[str] = []
    # jieba.cut splits a text at its own pattern and segments each run alone,
    # so the runs are cached, not the texts: several methods cut the same page
    # into different texts (boilerpipe's blocks, jusText's paragraphs) that
    # share their runs.
    for block in jieba.re_han_default.split(text):
        if block:
            words.extend(_jieba_block(block))
    return words


# Segmenting is the costliest step on Chinese; the cache is per process,
# bounded, and (lru_cache locks) safe across threads.
@lru_cache(maxsize=16384)
def _jieba_block(block: str) -> tuple[str, ...]:
    """The words of one block of ``jieba.re_han_default.split``: a run jieba
    segments, or the text between runs, whose characters jieba.cut yields
    one by one (whitespace, which is dropped, aside)."""
    jieba = _load_jieba()
    words = jieba.lcut(block) if jieba.re_han_default.match(block) else block
    return tuple(w for w in words if _LATIN_WORD.search(w) or CJK_CHAR.search(w))


def tokens(text: str, tokenizer: Tokenizer | str = Tokenizer.WHITESPACE) -> list[str]:
    """Cut ``text`` into tokens with the chosen tokenizer."""
    tokenizer = Tokenizer(tokenizer)
    if tokenizer is Tokenizer.WHITESPACE:
        return _WORD.findall(text)
    if tokenizer is Tokenizer.CHARS:
        return [c for c in text if not c.isspace()]
    if not CJK_CHAR.search(text):
        return _LATIN_WORD.findall(text)
    return jieba_words(text)


# A zero-width joiner joins the characters on its two sides (an emoji
# sequence); next to a space or a line's end it joins nothing and would
# leave a line that looks empty but is not.
_LOOSE_ZWJ = re.compile(r"(?<!\S)\u200d+|\u200d+(?!\S)")


def clean_text(text: str) -> str:
    """Valid printable Unicode: drop control and format characters (keep
    newlines and tabs), normalise non-breaking and ideographic spaces."""
    # The common case, nothing to drop or normalise: all printable but for
    # the newlines and tabs that are kept.
    if text.isprintable() or text.replace("\n", "").replace("\t", "").isprintable():
        return text
    # A few distinct characters to fix (most often no-break and ideographic
    # spaces): each replaced throughout in C, not the text walked in Python.
    for ch in set(text):
        if not ch.isprintable() and (fixed := _cleaned_char(ch)) != ch:
            text = text.replace(ch, fixed)
    return _LOOSE_ZWJ.sub("", text) if "\u200d" in text else text


def _cleaned_char(ch: str) -> str:
    """What :func:`clean_text` writes for a character: nothing for a control,
    format (but the zero-width joiner), surrogate or private-use one, a space
    for a space separator, else the character."""
    if ch in "\n\t":
        return ch
    cat = unicodedata.category(ch)
    if cat in ("Cc", "Cs", "Co") or (cat == "Cf" and ch != "\u200d"):
        return ""
    return " " if cat == "Zs" else ch


# Joins the lines of one block of preformatted text (``<pre>``: code, logs,
# verse laid out by hand) inside one line of an extractor's output, so that
# the line rules (boilerplate, comments, teasers, line lengths) treat a code
# block as one paragraph. The public API (``extractors.extract``, ``METHODS``)
# turns it back into line breaks. Text outside ``<pre>`` never holds it: text
# lines fold every whitespace character to a space.
PRE_BREAK = "\u2028"  # LINE SEPARATOR


def preformatted_text(text: str) -> str:
    """Preformatted text as the page shows it, joined by :data:`PRE_BREAK`:
    its lines with their indentation (tabs as 4 spaces) less the indentation
    they all share (the HTML source's), without trailing space or blank lines."""
    lines = [clean_text(piece.expandtabs(4)).rstrip() for piece in text.split("\n")]
    lines = [line for line in lines if line and not line.isspace()]
    shared = min((len(line) - len(line.lstrip()) for line in lines), default=0)
    return PRE_BREAK.join(line[shared:] for line in lines)


# What is not of a script, in runs: a script's share is the text's length
# after a substitution, which builds no list of single characters as findall.
_NOT_LETTER = re.compile(r"[\W\d_]+")  # letters: str.isalpha, plus a few numerals like ²
_NOT_KANA = re.compile("[^\u3040-\u30ff]+")
_NOT_HANGUL = re.compile("[^\uac00-\ud7af]+")
_NOT_HAN = re.compile(f"[^{_CJK}]+")
_NOT_ASCII_LETTER = re.compile("[^a-zA-Z]+")


def _count(not_wanted: re.Pattern[str], text: str) -> int:
    return len(not_wanted.sub("", text))


def guess_language(text: str) -> str | None:
    """A coarse language code from the script: ``zh``, ``ja``, ``ko``, ``en``
    or None. Good enough for picking tokenizers and stoplists."""
    sample = text[:20_000]
    if not sample.strip():
        return None
    letters = _count(_NOT_LETTER, sample)
    if not letters:
        return None
    if _count(_NOT_KANA, sample) > 0.05 * letters:
        return "ja"
    if _count(_NOT_HANGUL, sample) > 0.2 * letters:
        return "ko"
    if _count(_NOT_HAN, sample) > 0.2 * letters:
        return "zh"
    if _count(_NOT_ASCII_LETTER, sample) > 0.7 * letters:
        return "en"
    return None
