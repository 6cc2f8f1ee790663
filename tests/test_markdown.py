"""Extracted text as Markdown: the kinds of a page's lines, the markup written
for them, and reading it back."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from extractors.document import as_document, text_lines
from extractors.markdown import from_markdown, line_kinds, to_markdown

PAGE = """<html><body><h1>Title</h1><p>Intro.</p><h3>Part one</h3>
<ul><li>first<ul><li>nested</li></ul></li><li><p>two a</p><p>two b</p></li></ul>
<ol><li>one</li></ol><blockquote><p>quoted</p></blockquote>
<pre>x = 1
  y = 2</pre><table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>
<p>end</p></body></html>"""


def test_text_lines_reports_what_each_line_is_on_the_page() -> None:
    doc = as_document(PAGE)
    kinds: list[str] = []
    lines = text_lines(doc.body, kinds=kinds)
    assert list(zip(lines, kinds, strict=True)) == [
        ("Title", "h1"),
        ("Intro.", ""),
        ("Part one", "h3"),
        ("first", "ul1"),
        ("nested", "ul2"),
        ("two a", "ul1"),  # a list item's first line carries its mark...
        ("two b", "ul1+"),  # ...its next ones are paragraphs of the item
        ("one", "ol1"),
        ("quoted", "quote"),
        ("x = 1\u2028  y = 2", "pre"),
        ("a | b", "row"),
        ("1 | 2", "row"),
        ("end", ""),
    ]
    kinds = []
    assert text_lines(doc.body, limit=2, kinds=kinds) == ["Title", "Intro."]
    assert kinds == ["h1", ""]
    assert text_lines(doc.body) == lines  # the same lines without kinds


def test_a_line_said_twice_takes_the_kind_of_the_one_in_page_order() -> None:
    """A table of contents' entry and its heading have one text."""
    doc = as_document(
        "<html><body><ul><li>Setup</li><li>Usage</li></ul><h2>Setup</h2><p>Run it.</p>"
        "<h2>Usage</h2><p>Call it.</p></body></html>"
    )
    text = "Setup\nUsage\nSetup\nRun it.\nUsage\nCall it.\nNot on the page"
    assert line_kinds([doc], text) == ["ul1", "ul1", "h2", "", "h2", "", ""]
    assert line_kinds([doc], "Setup\nRun it.") == ["ul1", ""]  # the first one, then


def test_a_preformatted_block_is_one_fenced_block() -> None:
    """The public text has a ``<pre>``'s lines as lines (and a line of
    backticks in it lengthens the fence)."""
    doc = as_document(
        "<html><body><p>Run:</p><pre>pip install x\n  ```\n</pre><p>End.</p></body></html>"
    )
    text = "Run:\npip install x\n  ```\nEnd."
    kinds = line_kinds([doc], text)
    assert kinds == ["", "pre", "pre", ""]
    assert to_markdown(text, kinds) == "Run:\n\n````\npip install x\n  ```\n````\n\nEnd."


KINDS = st.sampled_from(
    ["", "h1", "h2", "h6", "ul1", "ul2", "ul1+", "ol1", "ol3", "ol1+", "quote", "pre", "row"]
)
LINE = st.text(st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\u2028"))


@given(st.lists(st.tuples(LINE, KINDS), min_size=1, max_size=12))
def test_markdown_reads_back_as_the_lines_it_was_written_from(pairs: list) -> None:
    # As text lines are: a preformatted line and a table row are never empty
    # (text_lines drops empty lines), and no other line starts with a space
    # (text_lines collapses white space) but a code line read from a page
    # without kinds (4 spaces: see escape_markdown).
    pairs = [
        (line if kind == "pre" or line.startswith("    ") else line.lstrip(), kind)
        for line, kind in pairs
    ]
    pairs = [(line, kind) for line, kind in pairs if line.strip() or kind not in ("pre", "row")]
    if not pairs:
        return
    lines = [line for line, _ in pairs]
    kinds = [kind for _, kind in pairs]
    assert from_markdown(to_markdown("\n".join(lines), kinds)) == lines


def test_a_list_pages_records_are_linked_items_with_their_regions_apart() -> None:
    from markdown_it import MarkdownIt

    from extractors.markdown import records_markdown
    from extractors.result import Record

    records = [
        Record(text="Featured: the *new* bridge", url="/f.html", region=1),
        Record(
            text="Rates rise [again] June 11, 2024",
            url="/news/a b(1).html",
            title="Rates rise [again]",
            date="2024-06-11",
        ),
        Record(text="Market moves", url="/news/b.html", title="Market moves"),
        Record(text="No link here"),
        Record(text="Broken", url="/c\nd.html", title="Broken"),
    ]
    md = records_markdown(records)
    tokens = MarkdownIt("commonmark").parse(md)
    inline = [c for t in tokens if t.type == "inline" for c in t.children or []]
    hrefs = [c.attrGet("href") for c in inline if c.type == "link_open"]
    # the main list first, in page order; the other region after a rule
    assert hrefs == ["/news/a%20b%281%29.html", "/news/b.html", "/c%0Ad.html", "/f.html"]
    assert [t.type for t in tokens].count("hr") == 1
    html = MarkdownIt("commonmark").render(md)
    assert '<a href="/news/a%20b%281%29.html">Rates rise [again]</a> — June 11, 2024' in html
    assert "<li>No link here</li>" in html
    assert "<em>" not in html  # the record's text is shown as written
