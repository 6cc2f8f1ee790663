"""boilerpipe's filters: they fuse, drop and re-class blocks, one small class each.

Every filter has ``process(doc) -> bool`` (whether it changed anything), so
they chain like the original's ``a.process(doc) | b.process(doc) | ...``.
Thresholds are constructor arguments; their published defaults live in
:class:`extractors.boilerpipe.chains.Params`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from .blocks import Label, TextBlock, TextDocument


class Filter(Protocol):
    def process(self, doc: TextDocument) -> bool: ...


def run_chain(doc: TextDocument, filters: Iterable[Filter]) -> bool:
    """Run every filter in order (no short-circuit, like Java's ``|``)."""
    changed = False
    for f in filters:
        changed = f.process(doc) | changed
    return changed


def num_full_text_words(block: TextBlock, min_text_density: float) -> int:
    """HeuristicFilterBase.getNumFullTextWords(): words of blocks dense enough to be prose."""
    return block.num_words if block.text_density >= min_text_density else 0


# -- end of text (see classifiers.TerminatingBlocksFinder) ------------------


class IgnoreBlocksAfterContentFilter:
    """Mark everything from an end-of-text block on as boilerplate, once at
    least ``min_words`` full-text content words precede it."""

    def __init__(self, min_words: int, min_text_density: float) -> None:
        self.min_words = min_words
        self.min_text_density = min_text_density

    def process(self, doc: TextDocument) -> bool:
        changed = False
        words = 0
        found_end = False
        for block in doc.blocks:
            if block.is_content:
                words += num_full_text_words(block, self.min_text_density)
            if Label.INDICATES_END_OF_TEXT in block.labels and words >= self.min_words:
                found_end = True
            if found_end:
                changed = True
                block.is_content = False
        return changed


# -- fusion and selection -----------------------------------------------------


class SimpleBlockFusionProcessor:
    """Merge neighbours of equal text density."""

    def process(self, doc: TextDocument) -> bool:
        if len(doc.blocks) < 2:
            return False
        kept = [doc.blocks[0]]
        for block in doc.blocks[1:]:
            if kept[-1].text_density == block.text_density:
                kept[-1].merge_next(block)
            else:
                kept.append(block)
        changed = len(kept) != len(doc.blocks)
        doc.blocks = kept
        return changed


class BlockProximityFusion:
    """Fuse a content block into its predecessor when at most ``max_distance``
    original blocks lie between them (only between content blocks, and only on
    one tag level, when asked)."""

    def __init__(
        self, max_distance: int = 1, content_only: bool = False, same_tag_level: bool = False
    ) -> None:
        self.max_distance = max_distance
        self.content_only = content_only
        self.same_tag_level = same_tag_level

    def _fusable(self, prev: TextBlock, block: TextBlock) -> bool:
        if block.offset_blocks_start - prev.offset_blocks_end - 1 > self.max_distance:
            return False
        if self.content_only and not prev.is_content:
            return False
        return not (self.same_tag_level and prev.tag_level != block.tag_level)

    def process(self, doc: TextDocument) -> bool:
        blocks = doc.blocks
        if len(blocks) < 2:
            return False
        if self.content_only:
            first = next((i for i, b in enumerate(blocks) if b.is_content), None)
            if first is None:
                return False
        else:
            first = 0
        kept = blocks[: first + 1]
        prev = blocks[first]
        for block in blocks[first + 1 :]:
            if block.is_content and self._fusable(prev, block):
                prev.merge_next(block)
                continue
            kept.append(block)
            prev = block
        changed = len(kept) != len(blocks)
        doc.blocks = kept
        return changed


class BoilerplateBlockFilter:
    """Drop the blocks not marked content (keeping the title block, as 1.2's
    INSTANCE_KEEP_TITLE does, so that ExpandTitleToContentFilter can find it)."""

    def __init__(self, keep_title: bool = True) -> None:
        self.keep_title = keep_title

    def process(self, doc: TextDocument) -> bool:
        kept = [
            b for b in doc.blocks if b.is_content or (self.keep_title and Label.TITLE in b.labels)
        ]
        changed = len(kept) != len(doc.blocks)
        doc.blocks = kept
        return changed


class KeepLargestBlockFilter:
    """Keep the content block with the most words (the first on ties); the rest
    become boilerplate labelled MIGHT_BE_CONTENT. With ``expand_min_words``,
    1.2's variant also keeps large blocks on the winner's tag level."""

    def __init__(self, min_text_density: float | None = None, expand_min_words: int = 0) -> None:
        self.min_text_density = min_text_density
        self.expand_min_words = expand_min_words

    def _size(self, block: TextBlock) -> tuple[int, int]:
        """Full-text words when asked (1.1's KeepLargestFulltextBlockFilter); ties,
        such as no block dense enough at all, go to the block with more words."""
        if self.min_text_density is None:
            return block.num_words, 0
        return num_full_text_words(block, self.min_text_density), block.num_words

    def process(self, doc: TextDocument) -> bool:
        blocks = doc.blocks
        if len(blocks) < 2:
            return False
        largest, best = None, (-1, -1)
        for block in blocks:
            if block.is_content and self._size(block) > best:
                largest, best = block, self._size(block)
        if largest is None:
            return False
        for block in blocks:
            if block is largest:
                block.is_content = True
                block.labels.add(Label.VERY_LIKELY_CONTENT)
            else:
                block.is_content = False
                block.labels.add(Label.MIGHT_BE_CONTENT)
        if self.expand_min_words:
            self._expand(blocks, blocks.index(largest))
        return True

    def _expand(self, blocks: list[TextBlock], n: int) -> None:
        level = blocks[n].tag_level
        for side in (reversed(blocks[:n]), blocks[n + 1 :]):
            for block in side:
                if block.tag_level < level:
                    break
                if block.tag_level == level and block.num_words >= self.expand_min_words:
                    block.is_content = True


class ExpandTitleToContentFilter:
    """Mark MIGHT_BE_CONTENT blocks between the title and the content as content."""

    def process(self, doc: TextDocument) -> bool:
        title = content_start = -1
        for i, block in enumerate(doc.blocks):
            if content_start == -1 and Label.TITLE in block.labels:
                title = i
            if content_start == -1 and block.is_content:
                content_start = i
        if title == -1 or content_start <= title:
            return False
        changed = False
        for block in doc.blocks[title:content_start]:
            if Label.MIGHT_BE_CONTENT in block.labels:
                changed = block.set_is_content(True) | changed
        return changed


class TrailingHeadlineToBoilerplateFilter:
    """A heading at the very end of the content (e.g. of a related-links box) is boilerplate."""

    def process(self, doc: TextDocument) -> bool:
        changed = False
        for block in reversed(doc.blocks):
            if not block.is_content:
                continue
            if Label.HEADING not in block.labels:
                break
            block.is_content = False
            changed = True
        return changed


class LargeBlockSameTagLevelToContentFilter:
    """1.2: large blocks on the main block's tag level are content too."""

    def __init__(self, min_words: int) -> None:
        self.min_words = min_words

    def process(self, doc: TextDocument) -> bool:
        level = next(
            (
                b.tag_level
                for b in doc.blocks
                if b.is_content and Label.VERY_LIKELY_CONTENT in b.labels
            ),
            None,
        )
        if level is None:
            return False
        changed = False
        for block in doc.blocks:
            if (
                not block.is_content
                and block.num_words >= self.min_words
                and block.tag_level == level
            ):
                block.is_content = changed = True
        return changed


class ListAtEndFilter:
    """1.2: link-free list items just below the main block's level are content."""

    def process(self, doc: TextDocument) -> bool:
        changed = False
        level: float = float("inf")
        for block in doc.blocks:
            if block.is_content and Label.VERY_LIKELY_CONTENT in block.labels:
                level = block.tag_level
            elif (
                block.tag_level > level
                and Label.MIGHT_BE_CONTENT in block.labels
                and Label.LI in block.labels
                and block.link_density == 0
            ):
                block.is_content = changed = True
            else:
                level = float("inf")
        return changed
