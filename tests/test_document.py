"""The shared parsed Document: cleaning, statistics, rendering as lines."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from extractors import extract
from extractors.document import as_document, text_lines
from extractors.text import PRE_BREAK

PAGE = """<html lang="en"><head><title>A title</title>
<meta property="og:title" content="OG title">
<script type="application/ld+json">{"@type": "NewsArticle"}</script>
<link rel="alternate" type="application/rss+xml" href="/feed.xml"></head>
<body><nav style="display:none"><a href="/hidden-menu">Menu</a></nav>
<div id="main"><h1>Head</h1><p>First <a href="/x">link</a> para.</p><!-- note -->
<ul><li>one</li><li>two<br>three</li></ul></div>
<script>var x = 1;</script><footer>© 2024</footer></body></html>"""


def test_cleaning_keeps_what_later_stages_need() -> None:
    doc = as_document(PAGE, url="http://h/a")
    assert doc.title == "A title"
    assert doc.meta["og:title"] == "OG title"
    assert "NewsArticle" in doc.jsonld[0]
    assert doc.feeds == ["/feed.xml"]
    assert "/hidden-menu" in doc.hrefs  # links of hidden menus are still crawled
    assert not doc.root.xpath("//script|//nav")  # but hidden and script content is gone
    assert doc.language == "en"


def test_statistics_and_lines() -> None:
    doc = as_document(PAGE)
    main = doc.root.xpath("//div[@id='main']")[0]
    st_main = doc.stats[main]
    assert st_main.text_len == len("Head") + len("Firstlinkpara.") + len("onetwothree")
    assert st_main.link_text_len == len("link")
    assert st_main.link_count == 1
    p = main.find("p")
    assert doc.stats[p].depth == doc.stats[main].depth + 1
    assert doc.stats[p].line > doc.stats[main.find("h1")].line
    assert text_lines(main) == ["Head", "First link para.", "one", "two", "three"]
    assert text_lines(main, skip={main.find("ul")}) == ["Head", "First link para."]


def test_a_preformatted_block_keeps_its_lines_and_indentation_as_one_line() -> None:
    # The HTML source indents the block by 6 (a tab counts 4); the code's own
    # indentation stays. The public API turns PRE_BREAK into line breaks.
    page = (
        "<html><body><p>Before the code.</p><pre><code>\n      def f(x):\n"
        "          if x:\n\t\t      return x\n\n      <b>print</b>(f(1))  \n</code></pre>"
        "<p>After   the\n code.</p></body></html>"
    )
    code = PRE_BREAK.join(["def f(x):", "    if x:", "        return x", "print(f(1))"])
    assert text_lines(as_document(page).body) == ["Before the code.", code, "After the code."]


def test_a_data_row_is_one_line_and_a_layout_row_a_line_per_block() -> None:
    page = (
        "<html><body><table><tr><th>Size</th><th>Price</th></tr>"
        "<tr><td>Small</td><td><b>$5</b> each <img src=i.png></td></tr>"
        "<tr><td> </td><td></td></tr><tr><td></td><td>Large</td></tr>"
        "<tr><td><p>Menu</p></td><td>Story<br>goes on</td></tr></table></body></html>"
    )
    assert text_lines(as_document(page).body) == [
        "Size | Price",
        "Small | $5 each",
        "| Large",  # the empty row is no line; an empty cell keeps its place
        "Menu",
        "Story",
        "goes on",
    ]


def test_bytes_are_decoded_with_the_declared_charset() -> None:
    html = '<html><head><meta charset="gbk"></head><body><p>中文正文内容</p></body></html>'
    doc = as_document(html.encode("gbk"))
    assert doc.encoding == "gb18030"
    assert text_lines(doc.body) == ["中文正文内容"]


def test_deep_nesting_and_garbage_do_not_break_parsing() -> None:
    # libxml2 stops building the tree past its depth limit; what comes before
    # survives and nothing hangs or overflows the stack.
    deep = "<div>" * 10_000 + "deep text" + "</div>" * 10_000
    doc = as_document(f"<html><body><p>before</p>{deep}</body></html>")
    assert text_lines(doc.body)[0] == "before"
    assert max(st.depth for st in doc.stats.values()) <= 400
    assert as_document(b"").stats  # empty input still yields a tree
    assert as_document(bytes(range(256)) * 10).body is not None


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=500))
def test_any_text_parses(text: str) -> None:
    doc = as_document(text)
    for line in text_lines(doc.body):
        # a block of <pre> keeps its lines' indentation past the first line
        assert line and (line == line.strip() or PRE_BREAK in line)


def test_hidden_body_revealed_by_script_is_kept() -> None:
    body = ("<p>" + "This paragraph is the article itself. " * 5 + "</p>") * 4
    page = (
        '<html><body><div style="display:none">Popup menu</div>'
        f'<div id="c" style="visibility: hidden">{body}</div></body></html>'
    )
    doc = as_document(page)
    assert doc.root.xpath("//div[@id='c']")
    assert "Popup menu" not in " ".join(text_lines(doc.body))
    spam = "<div style='display:none'>" + "cheap keyword " * 500 + "</div>"
    doc = as_document(f"<html><body><p>Short visible text.</p>{spam}</body></html>")
    assert "keyword" not in " ".join(text_lines(doc.body))  # flat keyword spam is not content


def test_a_script_shell_whose_page_is_in_noscript_keeps_it() -> None:
    posts = "".join(
        f'<div class="post"><span class="user">user{i}</span>'
        f"<p>Reply {i}: the update broke the voice mode for me as well, "
        "and restarting the app did not bring it back.</p></div>"
        for i in range(6)
    )
    shell = (
        '<html><body><section id="splash">Loading</section>'
        f'<noscript><div id="main-outlet"><h1>Voice mode broken</h1>{posts}</div></noscript>'
        '<section id="main"></section></body></html>'
    )
    lines = text_lines(as_document(shell).body)
    assert "Voice mode broken" in lines
    assert sum(line.startswith("Reply") for line in lines) == 6
    # A notice alone, or beside the page's own text, is dropped.
    notice = "<noscript><p>You need to enable JavaScript to run this app.</p></noscript>"
    assert text_lines(as_document(f"<html><body>{notice}</body></html>").body) == []
    page = f"<html><body>{notice}<p>{'The article text itself. ' * 20}</p></body></html>"
    assert "JavaScript" not in " ".join(text_lines(as_document(page).body))
    # Markup left as text inside it (a tracking pixel) is never text.
    pixel = '<noscript>&lt;img src="https://t.example/p.gif" width=1&gt;</noscript>'
    assert "img" not in " ".join(text_lines(as_document(f"<html><body>{pixel}</body></html>").body))


def test_a_whole_page_hidden_until_its_scripts_run_is_kept_links_and_all() -> None:
    nav = "".join(f'<li><a href="/docs/{i}">Reference page number {i}</a></li>' for i in range(40))
    body = "".join(
        f"<p>Step {i} of the guide explains one part of the setup.</p>" for i in range(8)
    )
    page = (
        '<html><body><div id="app" style="visibility:hidden">'
        f"<ul>{nav}</ul><main>{body}</main></div></body></html>"
    )
    lines = text_lines(as_document(page).body)
    assert sum(line.startswith("Step") for line in lines) == 8
    # A hidden link block beside visible text is still dropped as link spam.
    spam = "<div style='display:none'><ul>" + nav + "</ul></div>"
    visible = "<p>" + "The visible article text. " * 30 + "</p>"
    lines = text_lines(as_document(f"<html><body>{visible}{spam}</body></html>").body)
    assert not any(line.startswith("Reference page") for line in lines)


def test_dialogs_are_not_part_of_the_page() -> None:
    policy = "<p>" + "Items bought in November can be returned until January. " * 40 + "</p>"
    page = (
        "<html><body><main><p>The product: a wool runner in four colours.</p></main>"
        f'<div id="modal" role="dialog" aria-modal="true"><h2>Refund policy</h2>{policy}</div>'
        f"<dialog><p>Sign up for our newsletter.</p></dialog>"
        "<dialog open><p>Your basket holds one item.</p></dialog></body></html>"
    )
    text = " ".join(text_lines(as_document(page).body))
    assert "wool runner" in text and "basket holds" in text
    assert "Refund policy" not in text and "returned" not in text and "newsletter" not in text


def test_a_modal_box_by_its_class_is_hidden() -> None:
    story = "<p>" + "The story a reader came for, told at some length. " * 20 + "</p>"
    report = "<div class='ui small modal report'><p>Report this post: spam, abuse</p></div>"
    page = f"<html><body class='modal-open'><div class='modal-content'>{story}</div>{report}"
    text = " ".join(text_lines(as_document(page + "</body></html>").body))
    assert "reader came for" in text and "Report this post" not in text
    # A modal holding the whole page is the page, shown by a script.
    whole = f"<html><body><div class='modal'><h1>Title</h1>{story}<p>More.</p><p>End.</p></div>"
    assert "reader came for" in " ".join(text_lines(as_document(whole + "</body></html>").body))


def test_a_box_a_site_marks_robots_nocontent_is_not_text() -> None:
    """Yahoo's convention: ratings, citation help and comment forms marked
    ``robots-nocontent`` are no content for crawlers."""
    story = "<p>" + "The story a reader came for, told at some length. " * 20 + "</p>"
    rate = "<div class='robots-nocontent'><p>Rate this article: Patient / Public</p></div>"
    page = f"<html><body><div class='story'>{story}</div>{rate}</body></html>"
    text = " ".join(text_lines(as_document(page).body))
    assert "reader came for" in text and "Rate this article" not in text


def test_a_login_box_is_not_text_but_the_page_still_asks_for_a_password() -> None:
    """A site's sign-in dialog (a box named for logging in, holding a
    password field) can hold more text than a short story: its labels and
    error messages are no content. The page is still known to ask for a
    password (a login page, when nothing else is shown)."""
    story = "<p>" + "The story a reader came for, told briefly. " * 5 + "</p>"
    dialog = (
        "<div class='b-dialog x-dialog-login'><h2>Mein Konto - Login</h2><form>"
        "<input type='email'><input type='password'>"
        + "<p class='error'>Zu dieser E-Mail-Adresse ist kein Konto vorhanden.</p>" * 8
        + "</form></div>"
    )
    search = "<form class='search'><input type='search'><p>Search the site</p></form>"
    doc = as_document(f"<html><body>{search}{story}{dialog}</body></html>")
    text = " ".join(text_lines(doc.body))
    assert "reader came for" in text and "Search the site" in text
    assert "Konto" not in text and doc.asks_password
    # A password field in a box named for nothing else stays (a members' form).
    plain = f"<html><body>{story}<form><input type='password'><p>PIN</p></form></body></html>"
    doc = as_document(plain)
    assert "PIN" in " ".join(text_lines(doc.body)) and doc.asks_password
    assert not as_document(f"<html><body>{story}</body></html>").asks_password


def test_a_newsletter_sign_up_box_is_not_text_but_a_newsletters_page_is() -> None:
    """A box named for a newsletter holding an e-mail field is a sign-up
    prompt ("Get our news", "Thanks! Check your inbox"); a box so named that
    holds a whole section (a newsletter's own page) stays."""
    story = "<p>" + "The story a reader came for, told briefly. " * 5 + "</p>"
    signup = (
        "<section class='newsletter-signup'><div><h3>Get our news</h3>"
        "<p>We will only send you news about our work.</p><form>"
        "<input type='email' name='email'><button>Sign up</button></form>"
        "<p>Thanks! Please check your inbox to confirm.</p></div></section>"
    )
    page = f"<html><body>{story}{signup}</body></html>"
    text = " ".join(text_lines(as_document(page).body))
    assert "reader came for" in text and "check your inbox" not in text
    # A country menu does not make the box a section.
    countries = "".join(f"<option>Country number {i}</option>" for i in range(60))
    menu = signup.replace("<button>", f"<select>{countries}</select><button>")
    text = " ".join(text_lines(as_document(f"<html><body>{story}{menu}</body></html>").body))
    assert "check your inbox" not in text
    legacy = signup.replace("type='email' name='email'", "type='text' name='EMAIL'")
    text = " ".join(text_lines(as_document(f"<html><body>{story}{legacy}</body></html>").body))
    assert "check your inbox" not in text
    # Named for a newsletter but holding the page's text; or no e-mail field.
    landing = f"<div id='newsletter'>{story * 8}{signup.replace('newsletter-signup', 'box')}</div>"
    text = " ".join(text_lines(as_document(f"<html><body>{landing}</body></html>").body))
    assert "reader came for" in text and "check your inbox" in text
    no_field = signup.replace("<input type='email' name='email'>", "")
    text = " ".join(text_lines(as_document(f"<html><body>{story}{no_field}</body></html>").body))
    assert "check your inbox" in text


def test_a_box_of_the_frameworks_hide_class_is_not_text_unless_shown_from_some_width() -> None:
    """Bootstrap's and Foundation's ``hide`` is ``display: none``: a saved
    page has no stylesheet to say so. A class showing it on wider screens
    (``visible-desktop``) keeps it; a class merely containing the word
    (``hide-on-print``) is no hide class."""
    story = "<p>" + "The story a reader came for, told at some length. " * 20 + "</p>"
    promo = "<div class='promo-bar hide'><p>Free shipping on orders over $50</p></div>"
    desk = "<div class='hide visible-desktop'><p>Shown on a desktop</p></div>"
    printed = "<div class='hide-on-print'><p>Shown on screen</p></div>"
    page = f"<html><body><div class='story'>{story}</div>{promo}{desk}{printed}</body></html>"
    text = " ".join(text_lines(as_document(page).body))
    assert "reader came for" in text and "Free shipping" not in text
    assert "Shown on a desktop" in text and "Shown on screen" in text


@pytest.mark.parametrize("scripted", [True, False], ids=["scripts", "saved-without-scripts"])
def test_react_streamed_segments_are_read_where_they_belong(scripted: bool) -> None:
    """Next.js streams a late part as a hidden segment at the page's end
    that a script moves into its template: read there, in order."""
    story = "<p>" + "The story a reader came for, streamed in late. " * 12 + "</p>"
    script = '<script>$RC("B:0","S:0")</script>' if scripted else ""
    page = (
        '<html><body><h1>Index funds</h1><!--$?--><template id="B:0"></template><!--/$-->'
        "<p>Related: more guides.</p><footer>Site footer</footer>"
        f'<div hidden id="S:0">{story}</div>{script}</body></html>'
    )
    lines = text_lines(as_document(page).body)
    assert lines[0] == "Index funds" and lines[1].startswith("The story a reader came for")
    assert lines[2:] == ["Related: more guides.", "Site footer"]


def test_ruby_readings_are_not_text() -> None:
    ruby = "<ruby>漢<rp>(</rp><rt>かん</rt><rp>)</rp>字<rt>じ</rt></ruby>"
    page = f"<html><body><p>{ruby}を書く</p></body></html>"
    assert text_lines(as_document(page).body) == ["漢字を書く"]


def test_a_players_fallback_text_is_not_text() -> None:
    video = "<video src='a.mp4'>Your browser does not support the video tag.</video>"
    audio = "<audio><source src='a.mp3'>Your browser does not support audio.</audio>"
    page = f"<html><body><p>Watch it:</p>{video}{audio}<p>More.</p></body></html>"
    assert text_lines(as_document(page).body) == ["Watch it:", "More."]


def test_a_story_wrapped_in_a_link_is_text_and_cards_stay_links() -> None:
    lines = "<br><br>".join(
        f"Line {i} of a story that a site wrapped, whole, in a link to its own page."
        for i in range(6)
    )
    card = '<a href="/item"><h3>A card title</h3><p>' + "A card's long snippet. " * 20 + "</p></a>"
    page = (
        f'<html><body><nav><a href="/a">Home</a> <a href="/b">News</a></nav>'
        f'<div class="story"><a href="/story.html">{lines}</a></div>'
        f'<div class="cards">{card}</div><footer><a href="/c">Contact us</a></footer></body></html>'
    )  # fmt: skip
    doc = as_document(page)
    story = doc.root.xpath("//div[@class='story']")[0]
    assert story.find("a") is None  # the wrapper is gone, its text stays
    assert doc.stats[story].text_len > 300 and doc.stats[story].link_text_len == 0
    assert "/story.html" in doc.hrefs  # and its link is still crawled
    cards = doc.root.xpath("//div[@class='cards']")[0]
    assert doc.stats[cards].link_text_len == doc.stats[cards].text_len  # a card is a link
    assert "Line 5 of a story" in extract(page).text


def test_binary_bytes_give_an_empty_page_and_one_nul_does_not() -> None:
    import random

    from extractors import extract

    noise = random.Random(7).randbytes(50_000)
    png = b"\x89PNG\r\n\x1a\n" + noise[:2000]
    for data in (noise, png, b"%PDF-1.7\n" + noise[:2000]):
        result = extract(data)
        assert not result.text and result.page_type is not None
    page = b"<html><body><p>A stray NUL \x00" + b" in a real article." * 20 + b"</p></body></html>"
    assert "real article" in extract(page).text


def test_a_huge_inline_script_or_image_does_not_push_the_text_past_the_cut() -> None:
    """Pages over MAX_CHARS are cut before parsing; what holds no text (a
    framework's inlined JSON state, a base64 image) goes first, so the body's
    text after it survives."""
    from extractors.document import MAX_CHARS

    story = "".join(
        f"<p>Paragraph {i} of the story, long enough to be kept as text.</p>" for i in range(6)
    )
    state = (
        '{"items": [' + ",".join(f'{{"id": {i}, "name": "item"}}' for i in range(300_000)) + "]}"
    )
    image = "data:image/png;base64," + "A" * MAX_CHARS
    for bulk in (f'<script type="application/json">{state}</script>', f'<img src="{image}">'):
        assert len(bulk) > MAX_CHARS
        doc = as_document(f"<html><head><title>T</title></head><body>{bulk}{story}</body></html>")
        assert "Paragraph 5 of the story" in "\n".join(text_lines(doc.body)), bulk[:30]


def test_the_script_overrules_a_lang_attribute_of_the_other_kind() -> None:
    """A Chinese site's template left at lang="en" is Chinese; lang="de" on
    Latin text stays German (the script cannot tell Latin languages apart)."""
    chinese = "".join(
        f"<p>第{i}段：市绿化委员会负责人表示，全市森林覆盖率稳步提升。</p>" for i in range(5)
    )
    english = "".join(
        f"<p>Paragraph {i}: the council will install more bins.</p>" for i in range(5)
    )
    page = "<html lang='{}'><body>{}</body></html>"
    assert as_document(page.format("en", chinese)).language == "zh"
    assert as_document(page.format("zh-CN", english)).language == "en"
    assert as_document(page.format("de", english)).language == "de"
    assert as_document(page.format("zh_TW", chinese)).language == "zh"


def test_a_frameset_pages_noframes_text_is_parsed_not_markup() -> None:
    page = (
        "<html><head><title>Frames</title></head><frameset><frame src='a.html'><noframes>"
        "<body><p>No frames here. Read the <a href='a.html'>plain page</a>.</p></body>"
        "</noframes></frameset></html>"
    )
    assert extract(page).text == "No frames here. Read the plain page."


def test_paragraphs_of_unclosed_tags_are_all_extracted() -> None:
    """Old pages leave a <div> or <font> open before each paragraph: every
    paragraph then nests one level deeper. Every method sees them as one run
    of sibling paragraphs again (before, auto kept 2 of 100)."""
    nav = '<div class="nav"><a href="/">Home</a> <a href="/about">About</a></div>'
    for tag in ("div", "font"):
        body = "".join(
            f"<{tag}><p>Paragraph {i} of the story, which goes on for a while.</p>"
            for i in range(100)
        )
        html = f"<html><head><title>Story</title></head><body>{nav}{body}</body></html>"
        for method in ("auto", "cetd", "awce"):
            lines = extract(html, method=method).text.split("\n")
            assert sum(line.startswith("Paragraph") for line in lines) == 100, (tag, method)
    # Two such links are nesting, not yet a chain: they stay as they are.
    doc = as_document("<div><p>a</p><div><p>b</p><div><p>c</p></div></div></div>")
    assert len(doc.root.findall(".//div")) == 3


def test_a_title_never_closed_does_not_swallow_the_page() -> None:
    """An unclosed <title> (or "<title>X<title>") would run to the end of the
    file: it is closed at the next tag, and the body is the body."""
    body = "".join(f"<p>Sentence {i} says what the council plans.</p>" for i in range(8))
    for head in ("<title>Bridge repair</head>", "<title>Bridge repair<title></head>",
                 "<TITLE>Bridge repair"):  # fmt: skip
        result = extract(f"<html><head>{head}<body>{body}</body></html>")
        assert result.title == "Bridge repair"
        assert result.text.count("Sentence") == 8, head


def test_markup_after_a_stray_body_or_html_end_tag_is_in_the_body() -> None:
    """A template closing the page after its header (``</body></html>``,
    then the story): a browser shows the story in the body, so it is the
    body's, not a second root's or a sibling's of the body."""
    story = "".join(f"<p>Sentence {i} says what the council plans.</p>" for i in range(8))
    header = "<header><a href='/'>Home</a> <a href='/news'>News</a></header>"
    for stray in ("</body></html>", "</BODY>", "</html >"):
        page = f"<html><body>{header}{stray}<main>{story}</main></body></html>"
        doc = as_document(page)
        assert doc.body.find(".//main") is not None, stray
        assert extract(page).text.count("Sentence") == 8, stray


def test_php_error_output_is_not_the_pages_text() -> None:
    """Server noise a PHP site prints when display_errors is on: longer than
    the short post beside it, it would be taken for the text."""
    warning = (
        "<br />\n<b>Warning</b>:  Use of undefined constant comments - assumed "
        "'comments' (this will throw an Error in a future version of PHP) in "
        "<b>/home/site/wp-content/plugins/recent-comments.php</b> on line <b>928</b><br />\n"
    )
    post = "<p>It has been a while since the first one arrived. Now the second is here too.</p>"
    aside = f"<aside><ul>{warning * 6}</ul></aside>"
    page = f"<html><body>{aside}<article>{post}</article></body></html>"
    text = extract(page).text
    assert "the second is here too" in text
    assert "on line" not in text and "undefined constant" not in text
    # The words alone, in a story about PHP, are text.
    story = "<p>PHP prints <b>Warning</b>: and the file's name, then on line and a number.</p>"
    assert "on line" in extract(f"<html><body>{story * 3}</body></html>").text


def test_collapsed_panels_a_control_opens_are_text_and_other_hidden_boxes_are_not() -> None:
    """An accordion's answer (a box some control's aria-controls names) and a
    tab's panel are hidden until clicked, but they are the page's text; a
    menu of links a button opens, and a hidden box nothing opens, are not."""
    answer = "Refunds are paid to the card used within five working days of the return."
    tab = "The frame is welded aluminium and carries riders up to one hundred kilos."
    page = f"""<html><body><main><h1>Questions</h1>
      <button aria-controls="a1" aria-expanded="false">How are refunds paid?</button>
      <div id="a1" hidden><p>{answer}</p></div>
      <div role="tabpanel" style="display:none"><p>{tab}</p></div>
      <div style="display: none"><p>Free shipping on orders over fifty euros today.</p></div>
      <div hidden><button aria-controls="tip">?</button><p id="tip" hidden>{tab} Tip.</p></div>
      <button aria-controls="menu">Menu</button>
      <ul id="menu" hidden><li><a href="/a">Shop all bikes</a></li><li><a href="/b">Stores</a></li>
      </ul>
      <p>{"Our shop answers the questions customers ask most. " * 3}</p>
    </main></body></html>"""
    doc = as_document(page)
    text = " ".join(doc.body.itertext())
    assert answer in text and tab in text
    assert "Free shipping" not in text and "Shop all bikes" not in text
    assert "Tip." not in text  # a panel inside a box dropped is dropped with it
    assert sorted(el.tag for el in doc.collapsed) == ["div", "div"]


def test_a_page_over_the_budget_is_cut_and_says_so() -> None:
    from extractors.document import MAX_CHARS

    prose = "<p>" + "words of a paragraph. " * (MAX_CHARS // 20) + "</p>"
    assert as_document(prose).cut_short
    # scripts and styles do not count against the budget: nothing is cut
    scripted = "<script>" + "x" * (MAX_CHARS + 10) + "</script><p>A short page.</p>"
    doc = as_document(scripted)
    assert not doc.cut_short and "A short page." in "".join(doc.body.itertext())
    assert not as_document("<p>A short page.</p>").cut_short


def test_aria_hidden_hides_icons_but_not_a_links_visible_copy() -> None:
    # aria-hidden keeps a box from screen readers, not from view: a card's
    # title link so marked (its image link names the card already) is shown,
    # and so is a box read aloud by its own aria-label.
    doc = as_document(
        "<html><body><div class='card'><a href='/p/1'><img alt='Teacher post'></a>"
        "<a aria-hidden='true' href='/p/1'>Elementary School Teacher</a>"
        "<span aria-hidden='true'>★★★★</span> <span>4.2 stars</span>"
        "<p aria-hidden='true' aria-label='Original price: $129.99, now $89.50'>"
        "<s>$129.99</s> $89.50</p></div></body></html>"
    )
    text = " ".join(doc.body.itertext())
    assert "Elementary School Teacher" in text
    assert "★" not in text and "4.2 stars" in text
    assert "$89.50" in text  # shown, and read aloud by its label


def test_a_page_saved_with_a_modal_open_keeps_what_the_modal_covers() -> None:
    # A modal library marks every other child of the body aria-hidden while
    # it is open; a page saved so still shows its header, main and footer.
    story = "Council approves the new tram line after a year of hearings. " * 6
    behind = (
        "<header aria-hidden='true'><a href='/'>Home</a> <a href='/news'>News</a></header>"
        f"<main aria-hidden='true'><h1>Tram line approved</h1><p>{story}</p></main>"
        "<footer aria-hidden='true'><p>About us and contact details.</p></footer>"
    )
    modal = "<div role='dialog' aria-modal='true'><p>Subscribe to our newsletter</p></div>"
    text = " ".join(as_document(f"<html><body>{behind}{modal}</body></html>").body.itertext())
    assert "Council approves the new tram line" in text and "About us" in text
    assert "Subscribe" not in text  # the dialog itself is no content
    # Most of the page shown: the authors' aria-hidden marks are honoured.
    page = (
        f"<main><p>{story}</p></main>"
        "<div aria-hidden='true'><span>★★★★★ decorative stars and a sprite label</span></div>"
    )
    text = " ".join(as_document(f"<html><body>{page}</body></html>").body.itertext())
    assert "Council approves" in text and "decorative stars" not in text


def test_text_is_composed_and_addresses_are_kept_as_written() -> None:
    # A decomposed "é" (e + combining acute, raw or as a character
    # reference) is one character in the tree, the meta it declares and the
    # extracted text: what a reader sees as equal is one string.
    story = "The café on the corner reopened this week after a long renovation. " * 4
    decomposed = story.replace("é", "e\u0301")
    page = (
        '<html><head><meta property="og:title" content="Caf' + "e\u0301" + ' reopens"></head>'
        f"<body><p>{decomposed}</p><p>Cafe&#x301; owners said so."
        "<a href='/caf" + "e\u0301" + "'>more</a></p></body></html>"
    )
    doc = as_document(page)
    text = " ".join(doc.body.itertext())
    assert "\u0301" not in text and "café on the corner" in text and "Café owners" in text
    assert doc.meta["og:title"] == "Café reopens"
    assert doc.body.find(".//a").get("href") == "/cafe\u0301"  # a link is followed as given
    assert "café on the corner" in extract(page).text
    # An XML-invalid character is dropped from an address too.
    doc = as_document("<html><body><p>Text of the page.<a href='/a&#1;b'>x</a></p></body></html>")
    assert doc.body.find(".//a").get("href") == "/ab"


def test_a_headings_permalink_and_edit_marks_are_no_words_of_it() -> None:
    doc = as_document(
        "<html><body>"
        '<h2>Values<span class="x"><span>[</span><a href="/w?action=edit">edit</a>'
        "<span>]</span></span></h2>"
        '<h2>URL Building<a class="headerlink" href="#url">¶</a></h2>'
        '<h2>TL;DR <a href="#tldr">#</a></h2>'
        '<h2><a href="#x">A linked section</a></h2>'
        '<h2><a href="#y"></a>An empty anchor</h2>'
        '<p>See <a href="#a">¶</a> 4 and <a href="#b">§</a> 2 [<a href="/n">1</a>].</p>'
        "</body></html>"
    )
    assert text_lines(doc.body) == [
        "Values",
        "URL Building",
        "TL;DR",
        "A linked section",
        "An empty anchor",
        "See ¶ 4 and § 2 [1].",  # outside a heading, a sign is the text's
    ]
