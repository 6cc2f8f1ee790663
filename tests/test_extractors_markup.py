"""The article body the markup names (extractors.markup) and auto's use of it."""

from __future__ import annotations

from extractors import as_document, extract
from extractors.markup import body_container

STORY = [
    f"Paragraph {i} of the story: the harbour board met on Monday and agreed to "
    "repair the old sea wall before the winter storms, at a cost of two million."
    for i in range(6)
]
OTHER = [
    f"Line {i} of a longer feature printed beside the story, about the history of "
    "the town's fishing fleet, its boats, its families and the markets it once fed."
    for i in range(14)
]


def page(box_attrs: str = 'class="entry-content"', second_box: bool = False) -> str:
    story = "".join(f"<p>{p}</p>" for p in STORY)
    other = "".join(f"<p>{p}</p>" for p in OTHER)
    extra = f"<div {box_attrs}><p>{STORY[0]}</p></div>" if second_box else ""
    return (
        "<html><head><title>Sea wall repairs</title></head><body>"
        f'<div id="main"><div {box_attrs}>{story}</div>{extra}</div>'
        f'<div class="feature">{other}</div></body></html>'
    )


def test_the_named_body_box_is_found() -> None:
    for attrs in (
        'class="entry-content"',
        'id="article_body"',
        'itemprop="articleBody"',
        'class="main storyBody"',
    ):
        box = body_container(as_document(page(attrs)))
        assert box is not None and box.text is None and box[0].text == STORY[0], attrs
    # No such box, or two of them (which one is meant is not said).
    assert body_container(as_document(page('class="sidebar"'))) is None
    assert body_container(as_document(page(second_box=True))) is None
    # "content" alone or a word that merely contains the names is no body box.
    assert body_container(as_document(page('class="content"'))) is None
    assert body_container(as_document(page('class="postcontentwrapper"'))) is None


def test_auto_takes_the_named_body_when_every_method_chose_another_block() -> None:
    html = page()
    off = extract(html, markup_min_chars=0)
    assert "fishing fleet" in off.text and "sea wall" not in off.text
    # On this clean page the methods agree fully on the feature; real pages
    # the box rescues have methods that disagree (agreement under 0.85).
    result = extract(html, markup_max_agreement=1.01)
    assert result.method == "auto:markup"
    assert result.text.split("\n") == STORY


def test_auto_keeps_what_every_method_agrees_on_over_the_named_box() -> None:
    """Methods in full agreement found the body: a box named elsewhere is a
    teaser's or a sidebar's."""
    result = extract(page())
    assert result.method != "auto:markup"
    assert "fishing fleet" in result.text


def test_auto_keeps_its_choice_when_it_lies_in_the_named_body() -> None:
    html = page('class="intro"').replace('class="feature"', 'class="feature article-text"')
    result = extract(html)
    assert result.method != "auto:markup"
    assert "fishing fleet" in result.text
