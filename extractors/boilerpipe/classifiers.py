"""boilerpipe's classifiers: they label or classify blocks, they never fuse them.

End-of-text markers, the ``<title>`` match, and the two C4.8 decision trees of
the WSDM 2010 paper, transcribed from the seed. Same ``process(doc) -> bool``
shape as :mod:`.filters`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .blocks import Label, TextBlock, TextDocument, empty_block

# -- end of text ------------------------------------------------------------

_N_COMMENTS = re.compile(r"^[0-9]+ (Comments|users responded in)", re.M | re.S | re.I)
# The seed's English end-of-article markers (boilerpipe 1.1.0).
_EN_STARTS = ("Comments", " Reuters", "Please rate this")
_EN_CONTAINS = (
    "What you think...", "add your comment", "Add your comment", "Add Your Comment",
    "Add Comment", "Reader views", "Have your say", "Have Your Say", "Reader Comments",
)  # fmt: skip
_EN_EQUALS = ("Thanks for your comments - this feedback is now closed",)
# Chinese counterparts: generic headings of what follows a news article on
# Chinese sites (related reading, editor and copyright lines, comment boxes).
_ZH_STARTS = ("评论", "相关", "延伸阅读", "推荐阅读", "热门推荐", "猜你喜欢", "版权", "免责声明")
_ZH_CONTAINS = (
    "相关阅读", "相关新闻", "相关文章", "相关报道", "责任编辑", "版权所有", "版权声明",
    "发表评论", "我要评论", "网友评论", "查看评论", "全部评论", "条评论", "评论区",
)  # fmt: skip
_ZH_EDITOR = re.compile(r"^[(（\[【]?\s*(责任编辑|责编|编辑)\s*[:：]")


_TERMINATING = re.compile(
    "|".join(
        [f"^{re.escape(s)}" for s in _EN_STARTS + _ZH_STARTS]
        + [re.escape(s) for s in _EN_CONTAINS + _ZH_CONTAINS]
        + [f"^{re.escape(s)}$" for s in _EN_EQUALS]
    )
)


def is_terminating_text(text: str) -> bool:
    """Whether a short block's text announces the end of the article."""
    return bool(_TERMINATING.search(text) or _N_COMMENTS.search(text) or _ZH_EDITOR.match(text))


class TerminatingBlocksFinder:
    """Label short blocks that announce the end of the article text."""

    def __init__(self, max_words: int) -> None:
        self.max_words = max_words

    def process(self, doc: TextDocument) -> bool:
        changed = False
        for block in doc.blocks:
            if block.num_words < self.max_words and is_terminating_text(block.text):
                block.labels.add(Label.INDICATES_END_OF_TEXT)
                changed = True
        return changed


# -- title ------------------------------------------------------------------

# The original's separators between a headline and a site name, widest last;
# the last adds the ones Chinese titles use (_ — – ｜ ·).
# (?:(?<! )|(?! )): no match starts inside a run of spaces (one starting at
# the run's start exists); tried from every position of a long run, the
# search was quadratic. Same answers (checked on 2.7 M dataset strings).
_TITLE_SPLITS = [
    re.compile(r"(?:(?<! )|(?! ))[ ]*[|»:][ ]*"),
    re.compile(r"(?:(?<! )|(?! ))[ ]*[|»:()][ ]*"),
    re.compile(r"(?:(?<! )|(?! ))[ ]*[|»:()\-][ ]*"),
    re.compile(r"(?:(?<! )|(?! ))[ ]*[|»,:()\-][ ]*"),
    re.compile(r"(?:(?<! )|(?! ))[ ]*[|»,:()\-\u00a0_—–｜·][ ]*"),
]
_TITLE_WORD = re.compile(r"[\b ]+")
_TITLE_PUNCT = re.compile(r"[?!.\-:？！。：]+")


def _normalize_title(text: str) -> str:
    return text.replace("\u00a0", " ").replace("'", "").strip().lower()


def _longest_part(title: str, pattern: re.Pattern[str]) -> str | None:
    parts = pattern.split(title)
    if len(parts) == 1:
        return None
    longest, longest_words = "", 0
    for part in parts:
        if ".com" in part:
            continue
        words = len(_TITLE_WORD.split(part))
        if words > longest_words or len(part) > len(longest):
            longest, longest_words = part, words
    return longest.strip() or None


def potential_titles(title: str | None) -> set[str]:
    """DocumentTitleMatchClassifier's candidates: the title and its longest parts."""
    if not title:
        return set()
    title = _normalize_title(title)
    if not title:
        return set()
    found = {title}
    found.update(p for p in (_longest_part(title, pat) for pat in _TITLE_SPLITS) if p)
    for sep in (re.compile(r"(?<! )[ ]+[|][ ]+"), re.compile(r"(?<! )[ ]+[\-][ ]+")):
        parts = sep.split(title)
        if len(parts) > 1:
            found.update(p for p in parts if ".com" not in p and len(_TITLE_WORD.split(p)) >= 4)
    found.add(re.sub(r" - [^\-]+$", "", title, count=1))
    found.add(re.sub(r"^[^\-]+ - ", "", title, count=1))
    return found


class DocumentTitleMatchClassifier:
    """Label the first block whose text is the ``<title>`` or a part of it."""

    def __init__(self, title: str | None) -> None:
        self.titles = potential_titles(title)

    def process(self, doc: TextDocument) -> bool:
        if not self.titles:
            return False
        for block in doc.blocks:
            text = _normalize_title(block.text)
            if text in self.titles or _TITLE_PUNCT.sub("", text).strip() in self.titles:
                block.labels.add(Label.TITLE)
                return True
        return False


# -- the two decision trees ---------------------------------------------------

Rule = Callable[[TextBlock, TextBlock, TextBlock], bool]


def classify_with_context(doc: TextDocument, rule: Rule) -> bool:
    """Apply ``rule(prev, curr, next)`` to every block; the ends see empty blocks."""
    blocks = doc.blocks
    changed = False
    start, end = empty_block(-1), empty_block(len(blocks) + 1)
    for i, block in enumerate(blocks):
        prev = blocks[i - 1] if i > 0 else start
        nxt = blocks[i + 1] if i + 1 < len(blocks) else end
        changed = block.set_is_content(rule(prev, block, nxt)) | changed
    return changed


class NumWordsRulesClassifier:
    """Algorithm 2 of the WSDM 2010 paper, transcribed from the seed."""

    def __init__(
        self,
        max_link_density: float,
        max_prev_link_density: float,
        words: tuple[int, int, int, int, int],
    ) -> None:
        self.max_ld = max_link_density
        self.max_prev_ld = max_prev_link_density
        self.words = words

    def rule(self, prev: TextBlock, curr: TextBlock, nxt: TextBlock) -> bool:
        curr_words, next_words, prev_words, curr_words_2, next_words_2 = self.words
        if curr.link_density > self.max_ld:
            return False
        if prev.link_density <= self.max_prev_ld:
            if curr.num_words <= curr_words:  # 16
                if nxt.num_words <= next_words:  # 15
                    return prev.num_words > prev_words  # 4
                return True
            return True
        if curr.num_words <= curr_words_2:  # 40
            return nxt.num_words > next_words_2  # 17
        return True

    def process(self, doc: TextDocument) -> bool:
        return classify_with_context(doc, self.rule)


class DensityRulesClassifier:
    """Algorithm 1 (densitometric) of the WSDM 2010 paper, transcribed from the seed."""

    def __init__(
        self,
        max_link_density: float,
        max_prev_link_density: float,
        densities: tuple[float, float, float, float],
    ) -> None:
        self.max_ld = max_link_density
        self.max_prev_ld = max_prev_link_density
        self.densities = densities

    def rule(self, prev: TextBlock, curr: TextBlock, nxt: TextBlock) -> bool:
        curr_td, next_td, prev_td, next_td_2 = self.densities
        if curr.link_density > self.max_ld:
            return False
        if prev.link_density <= self.max_prev_ld:
            if curr.text_density <= curr_td:  # 9
                if nxt.text_density <= next_td:  # 10
                    return prev.text_density > prev_td  # 4
                return True
            return nxt.text_density != 0
        return nxt.text_density > next_td_2  # 11

    def process(self, doc: TextDocument) -> bool:
        return classify_with_context(doc, self.rule)
