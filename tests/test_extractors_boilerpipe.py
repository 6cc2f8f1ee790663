"""boilerpipe: block model, each filter alone, both chains, hostile input."""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from extractors import METHODS, as_document
from extractors.boilerpipe import Label, Params, extract_article, extract_default
from extractors.boilerpipe.blocks import (
    TextBlock,
    TextDocument,
    build_text_document,
    chinese_measure,
    count_words,
    english_measure,
)
from extractors.boilerpipe.classifiers import (
    DensityRulesClassifier,
    DocumentTitleMatchClassifier,
    NumWordsRulesClassifier,
    TerminatingBlocksFinder,
    potential_titles,
)
from extractors.boilerpipe.filters import (
    BlockProximityFusion,
    ExpandTitleToContentFilter,
    IgnoreBlocksAfterContentFilter,
    KeepLargestBlockFilter,
    SimpleBlockFusionProcessor,
    TrailingHeadlineToBoilerplateFilter,
)

SENTENCE = "The council approved the new budget on Monday after a long debate about roads. "
ZH_SENTENCE = "市政府周一在经过长时间讨论之后批准了新的预算，资金将用于修建道路和学校。"


def blocks_of(html: str, measure=english_measure) -> list[TextBlock]:
    return build_text_document(as_document(html), measure).blocks


def block(words: int, link_words: int = 0, density: float | None = None, offset: int = 0):
    """A block with given word count, anchor words and (one-line) text density."""
    b = TextBlock(
        [f"b{offset}"],
        num_words=words,
        num_words_in_anchor_text=link_words,
        offset_blocks_start=offset,
        offset_blocks_end=offset,
    )
    if density is not None:
        b.num_words_in_wrapped_lines, b.num_wrapped_lines = int(density * 2), 2
        b.init_densities()
    return b


# -- blocks -------------------------------------------------------------------


def test_inline_tags_stay_in_block_and_block_tags_split():
    html = "<body><p>One <b>two</b> <span>three</span> <time>four</time></p><p>five</p></body>"
    blocks = blocks_of(html)
    assert [b.text for b in blocks] == ["One two three four", "five"]
    assert [b.num_words for b in blocks] == [4, 1]


def test_br_and_unknown_tags_separate_blocks_like_the_original():
    blocks = blocks_of("<body><div>first line<br>second line<img src=x>third</div></body>")
    assert [b.text for b in blocks] == ["first line", "second line", "third"]


def test_anchor_words_give_link_density_and_named_anchors_do_not():
    blocks = blocks_of('<body><p>read <a href="/x">this link now</a> ok <a name="n">here</a></p>')
    assert blocks[0].num_words == 6
    assert blocks[0].num_words_in_anchor_text == 3
    assert blocks[0].link_density == pytest.approx(0.5)


def test_options_are_ignored_and_headings_and_items_labelled():
    html = "<body><select><option>Choose one</option></select><h2>Head</h2><ul><li>item</li></ul>"
    blocks = blocks_of(html)
    assert [b.text for b in blocks] == ["Head", "item"]
    assert Label.HEADING in blocks[0].labels and Label.LI in blocks[1].labels


def test_tag_level_counts_block_ancestors_only():
    blocks = blocks_of("<body><div><p>deep <b>bold</b></p></div><p>shallow</p></body>")
    assert blocks[0].tag_level == blocks[1].tag_level + 1


def test_wrapped_lines_at_80_columns():
    # "word" + space = 5 columns: 16 words fill a line, the 17th wraps.
    counts = count_words([("word " * 40, False)], english_measure, 80)
    assert counts.words == 40
    assert counts.wrapped_lines == 2
    assert counts.words_in_wrapped_lines == 32  # the last, partial line is left out
    short = count_words([("a few words", False)], english_measure, 80)
    assert (short.wrapped_lines, short.words_in_wrapped_lines) == (1, 3)


def test_chinese_is_counted_in_jieba_words():
    from extractors.text import jieba_words

    counts = count_words([(ZH_SENTENCE, False)], chinese_measure(80 / 25), 80)
    assert counts.words == len(jieba_words(ZH_SENTENCE))
    assert counts.words > 10  # the original would see one unspaced "word"
    assert count_words([(ZH_SENTENCE, False)], english_measure, 80).words == 2


def test_merge_next_sums_counts_and_keeps_offsets():
    a, b = block(10, 2, offset=3), block(20, 0, offset=5)
    b.is_content = True
    a.merge_next(b)
    assert (a.num_words, a.num_words_in_anchor_text) == (30, 2)
    assert (a.offset_blocks_start, a.offset_blocks_end) == (3, 5)
    assert a.is_content and a.text == "b3\nb5"


# -- the decision trees -----------------------------------------------------------


def num_words_rule(prev, curr, nxt) -> bool:
    p = Params()
    clf = NumWordsRulesClassifier(
        p.max_link_density,
        p.max_prev_link_density,
        (p.curr_words, p.next_words, p.prev_words, 40, 17),
    )
    return clf.rule(prev, curr, nxt)


@pytest.mark.parametrize(
    ("prev", "curr", "nxt", "content"),
    [
        (block(10), block(20, link_words=7), block(50), False),  # curr link density > 1/3
        (block(4), block(16), block(15), False),  # short, short next, tiny prev
        (block(5), block(16), block(15), True),  # prev > 4 words
        (block(0), block(16), block(16), True),  # next > 15 words
        (block(0), block(17), block(0), True),  # curr > 16 words
        (block(10, link_words=6), block(40), block(17), False),  # linky prev
        (block(10, link_words=6), block(40), block(18), True),
        (block(10, link_words=6), block(41), block(0), True),
    ],
)
def test_num_words_rules_tree(prev, curr, nxt, content):
    assert num_words_rule(prev, curr, nxt) is content


def density_rule(prev, curr, nxt) -> bool:
    return DensityRulesClassifier(0.333333, 0.555556, (9, 10, 4, 11)).rule(prev, curr, nxt)


@pytest.mark.parametrize(
    ("prev", "curr", "nxt", "content"),
    [
        (block(9, density=9), block(9, link_words=4, density=9), block(9, density=9), False),
        (block(4, density=4), block(9, density=9), block(10, density=10), False),
        (block(5, density=5), block(9, density=9), block(10, density=10), True),
        (block(0, density=0), block(9, density=9), block(11, density=11), True),
        (block(0, density=0), block(10, density=10), block(0), False),  # next density 0
        (block(0, density=0), block(10, density=10), block(1, density=1), True),
        (block(10, 6, density=10), block(30, density=30), block(11, density=11), False),
        (block(10, 6, density=10), block(1, density=1), block(12, density=12), True),
    ],
)
def test_density_rules_tree(prev, curr, nxt, content):
    assert density_rule(prev, curr, nxt) is content


def test_classifier_sees_empty_blocks_at_the_ends():
    doc = TextDocument([block(16, offset=0)])
    NumWordsRulesClassifier(0.333333, 0.555556, (16, 15, 4, 40, 17)).process(doc)
    assert doc.blocks[0].is_content is False  # prev = empty start block (0 words)


# -- filters ---------------------------------------------------------------------


def test_terminating_blocks_english_and_chinese():
    texts = ["Comments", "12 comments so far", "相关阅读", "责任编辑：王明", "Have your say now"]
    doc = TextDocument([TextBlock([t], num_words=3) for t in [*texts, "A normal line"]])
    TerminatingBlocksFinder(20).process(doc)
    marked = [Label.INDICATES_END_OF_TEXT in b.labels for b in doc.blocks]
    assert marked == [True] * len(texts) + [False]
    long_block = TextDocument([TextBlock(["Comments " + "word " * 30], num_words=31)])
    assert TerminatingBlocksFinder(20).process(long_block) is False


def test_ignore_blocks_after_content_needs_enough_words_first():
    def doc_with(words_before: int) -> TextDocument:
        content = block(words_before, density=words_before)
        end = block(1, offset=1)
        end.labels.add(Label.INDICATES_END_OF_TEXT)
        after = block(50, density=12, offset=2)
        for b in (content, end, after):
            b.is_content = True
        return TextDocument([content, end, after])

    enough = doc_with(60)
    IgnoreBlocksAfterContentFilter(60, 9).process(enough)
    assert [b.is_content for b in enough.blocks] == [True, False, False]
    too_few = doc_with(59)
    IgnoreBlocksAfterContentFilter(60, 9).process(too_few)
    assert all(b.is_content for b in too_few.blocks)


def test_title_candidates_split_site_names_including_chinese_separators():
    assert "big news today" in potential_titles("Big News Today - Example Times")
    assert "市政府批准新预算" in potential_titles("市政府批准新预算_新闻中心_某某网")
    doc = TextDocument([TextBlock(["Example Times"]), TextBlock(["Big News Today!"])])
    assert DocumentTitleMatchClassifier("Big News Today | Example Times").process(doc)
    assert Label.TITLE in doc.blocks[1].labels and Label.TITLE not in doc.blocks[0].labels


def test_block_proximity_fusion_respects_distance_and_content_only():
    a, b, c = block(5, offset=0), block(5, offset=2), block(5, offset=5)
    for x in (a, b, c):
        x.is_content = True
    doc = TextDocument([a, b, c])
    assert BlockProximityFusion(1, content_only=True).process(doc)
    assert len(doc.blocks) == 2 and doc.blocks[0].offset_blocks_end == 2
    d, e = block(5, offset=0), block(5, offset=1)
    e.is_content = True
    doc = TextDocument([d, e])
    assert BlockProximityFusion(1, content_only=True).process(doc) is False
    assert BlockProximityFusion(1).process(doc) and doc.blocks[0].is_content  # the seed's oddity


def test_simple_block_fusion_merges_equal_densities():
    doc = TextDocument([block(5, offset=0), block(5, offset=1), block(7, offset=2)])
    SimpleBlockFusionProcessor().process(doc)
    assert [b.num_words for b in doc.blocks] == [10, 7]


def test_keep_largest_then_expand_title():
    title, teaser, main, other = block(5), block(20), block(100, density=12), block(30)
    title.labels.add(Label.TITLE)
    for b in (teaser, main, other):
        b.is_content = True
    doc = TextDocument([title, teaser, main, other])
    KeepLargestBlockFilter(min_text_density=9).process(doc)
    assert [b.is_content for b in doc.blocks] == [False, False, True, False]
    assert Label.MIGHT_BE_CONTENT in other.labels
    ExpandTitleToContentFilter().process(doc)
    assert [b.is_content for b in doc.blocks] == [True, True, True, False]


def test_trailing_headings_become_boilerplate():
    body, heading = block(50), block(3)
    heading.labels.add(Label.HEADING)
    body.is_content = heading.is_content = True
    doc = TextDocument([body, heading])
    assert TrailingHeadlineToBoilerplateFilter().process(doc)
    assert [b.is_content for b in doc.blocks] == [True, False]


# -- whole extractors ------------------------------------------------------------------

COMMENT = "I think this is a very good decision by the council. " * 2
NAV = '<div class="nav">' + " | ".join(f'<a href="/s{i}">Section {i}</a>' for i in range(8))
EN_PAGE = f"""<html><head><title>Budget approved - Example Times</title></head><body>
{NAV}</div>
<div id="story"><h1>Budget approved</h1>
<p>{SENTENCE * 3}</p><p>{SENTENCE * 2}</p><p>{SENTENCE * 3}</p></div>
<div id="comments"><p>Comments</p><p>{COMMENT}</p></div>
<ul>{"".join(f'<li><a href="/o{i}">Other story number {i}</a></li>' for i in range(6))}</ul>
</body></html>"""


def test_article_extractor_keeps_title_and_story_only():
    result = extract_article(EN_PAGE, "https://example.com/a/1.html")
    lines = result.lines
    # The seed's BlockProximityFusion(1) fuses a content block into the block
    # before it, content or not: the menu right above the headline comes along
    # (boilerpy3 does the same).
    assert lines[0].startswith("Section 0 | Section 1")
    assert lines[1] == "Budget approved"
    assert lines[2:] == [(SENTENCE * n).strip() for n in (3, 2, 3)]
    assert "Comments" not in result.text and "Other story" not in result.text
    assert result.method == "boilerpipe" and result.title == "Budget approved - Example Times"


def test_result_node_is_the_common_ancestor_of_the_content():
    page = EN_PAGE.replace(NAV + "</div>", "")
    result = extract_article(page)
    assert result.lines[0] == "Budget approved"
    assert result.node is not None and result.node.get("id") == "story"


def test_methods_registry_points_here():
    assert METHODS["boilerpipe"].__wrapped__ is extract_article
    assert METHODS["boilerpipe-default"].__wrapped__ is extract_default
    result = extract_default(EN_PAGE)
    assert result.method == "boilerpipe-default"
    assert (SENTENCE * 3).strip() in result.text and "Section 3" not in result.text


ZH_PAGE = f"""<html><head><title>市政府批准新预算_新闻中心_某某网</title></head><body>
<div>{"".join(f'<a href="/c{i}">栏目{i}</a> ' for i in range(10))}</div>
<div id="art"><h1>市政府批准新预算</h1><p>{ZH_SENTENCE * 3}</p><p>{ZH_SENTENCE * 2}</p>
<p>{ZH_SENTENCE * 2}</p><p>责任编辑：王明</p></div>
<div><h3>相关阅读</h3><p>{ZH_SENTENCE}</p><p>{ZH_SENTENCE}</p></div></body></html>"""


def test_chinese_article_uses_jieba_words_and_chinese_terminators():
    result = extract_article(ZH_PAGE)
    assert result.lines[0].startswith("栏目0")  # fused menu, as above
    assert result.lines[1] == "市政府批准新预算"
    assert result.lines[2:] == [ZH_SENTENCE * 3, ZH_SENTENCE * 2, ZH_SENTENCE * 2]
    assert "责任编辑" not in result.text and "相关阅读" not in result.text
    # Without jieba the page is a handful of long "words" and the story is lost.
    assert extract_article(ZH_PAGE, tokenizer="whitespace").text != result.text


def test_params_overrides_and_validation():
    doc = as_document(EN_PAGE)
    strict = extract_article(doc, min_words_before_end=10_000)
    assert "I think this is a very good decision" in strict.text  # end marker ignored
    assert extract_article(doc, params=Params()).text == extract_article(doc).text
    with pytest.raises(TypeError):
        extract_article(doc, no_such_threshold=1)


def test_shared_document_is_not_mutated():
    doc = as_document(EN_PAGE)
    before = etree.tostring(doc.root)
    extract_article(doc)
    extract_default(doc)
    assert etree.tostring(doc.root) == before


# -- hostile input ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "html",
    [
        "",
        b"",
        b"\x00\xff\xfe\x89PNG\r\n\x1a\n" * 100,
        "<p>no body tag at all</p>",
        "<div>" * 10_000 + "deep" + "</div>" * 10_000,
        "<html><body><table><tr><td>" * 500,
    ],
)
def test_garbage_returns_quickly(html):
    start = time.perf_counter()
    for fn in (extract_article, extract_default):
        result = fn(html)
        assert isinstance(result.text, str)
    assert time.perf_counter() - start < 5


def test_huge_page_is_bounded():
    html = "<html><body>" + ("<p>" + "word " * 200 + "</p>\n") * 6_000
    assert len(html) > 5_000_000
    start = time.perf_counter()
    assert extract_article(html).text
    assert time.perf_counter() - start < 20


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=2000), st.binary(max_size=2000)))
def test_never_raises_on_arbitrary_input(data):
    for fn in (extract_article, extract_default):
        result = fn(data)
        assert result.method in ("boilerpipe", "boilerpipe-default")
        assert isinstance(result.text, str)
