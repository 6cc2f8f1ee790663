"""Decoding page bytes: declared, undeclared and wrongly declared charsets."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from extractors import as_document
from extractors.encoding import browser_misread, decode_html, looks_binary, normalize_encoding

SIMPLIFIED = "国务院总理今天在人民大会堂会见了来访的客人，双方就经贸合作交换了意见。"
TRADITIONAL = "中華民國臺灣的經濟發展與國際貿易合作關係，雙方會談內容豐富。"


def page(text: str, meta: str | None = None) -> str:
    head = f'<meta charset="{meta}">' if meta else ""
    return f"<html><head>{head}<title>t</title></head><body><p>{text}</p></body></html>"


@pytest.mark.parametrize(
    ("text", "codec", "header", "meta"),
    [
        (SIMPLIFIED, "gbk", "gbk", None),  # header only
        (SIMPLIFIED, "gbk", None, "gbk"),  # meta only
        (SIMPLIFIED, "gb18030", None, None),  # neither: detection
        (SIMPLIFIED, "gbk", "iso-8859-1", None),  # wrong single-byte header
        (SIMPLIFIED, "gbk", "utf-8", "gbk"),  # header wrong, meta right
        (SIMPLIFIED, "gbk", "big5", None),  # the other Chinese double-byte codec
        (TRADITIONAL, "big5", "big5", None),
        (TRADITIONAL, "big5", None, None),
        (TRADITIONAL, "big5", "iso-8859-1", None),
        (TRADITIONAL, "big5", "gbk", None),
        (SIMPLIFIED, "utf-8", "gbk", None),  # valid UTF-8 under a legacy label
        ("Grüße aus Köln – naïve café", "cp1252", "iso-8859-1", None),
    ],
)
def test_decodes_without_mojibake(
    text: str, codec: str, header: str | None, meta: str | None
) -> None:
    data = page(text, meta).encode(codec)
    content_type = f"text/html; charset={header}" if header else "text/html"
    decoded, encoding = decode_html(data, content_type)
    assert text in decoded, (encoding, decoded[:200])


@pytest.mark.parametrize(
    ("text", "codec"),
    [
        ("你好，世界。今天天气很好。", "gbk"),  # was read as Korean (cp949)
        ("中華民國臺灣的經濟發展", "big5"),  # was read as Johab, which no browser decodes
        ("東京都の天気予報によると、明日は雨が降るでしょう。", "euc_jp"),  # was Korean too
        ("안녕하세요, 세계. 오늘 날씨가 아주 좋습니다.", "cp949"),
        ("こんにちは、世界。今日はとても良い天気です。", "shift_jis"),
    ],
)
def test_a_short_undeclared_east_asian_page_is_read_in_its_script(text: str, codec: str) -> None:
    """A few words decode without error in several East Asian codecs; the
    reading written in its language's own script wins."""
    decoded, encoding = decode_html(f"<title>t</title><p>{text}</p>".encode(codec))
    assert text in decoded, (encoding, decoded)


def test_gbk_label_widened_to_gb18030() -> None:
    assert normalize_encoding("GB2312") == "gb18030"
    assert normalize_encoding("big5") == "big5hkscs"
    assert normalize_encoding("no-such-charset") is None


def test_bom_wins_and_controls_are_dropped() -> None:
    data = "\ufeff<p>a\x00b\x07c</p>".encode("utf-8")
    decoded, encoding = decode_html(data, "text/html; charset=gbk")
    assert encoding == "utf-8"
    assert "abc" in decoded


@settings(deadline=None)  # time is measured in benchmarks; a first call may load code
@given(
    st.binary(max_size=2000),
    st.sampled_from(
        [None, "text/html; charset=gbk", "text/html; charset=utf-8", "text/html; charset=bogus"]
    ),
)
def test_never_raises_and_returns_clean_text(data: bytes, content_type: str | None) -> None:
    decoded, encoding = decode_html(data, content_type)
    assert isinstance(decoded, str) and encoding
    assert not any(ord(c) < 9 for c in decoded)


def test_pages_that_are_mojibake_in_their_own_bytes_are_repaired() -> None:
    body = "黑体字的新闻正文，记者报道了本市的最新情况。" * 5
    # GBK text read as cp1252 and saved as UTF-8, on a page declaring gb2312.
    once = body.encode("gbk").decode("cp1252", errors="ignore")
    data = f'<meta charset="gb2312"><p>{once}</p>'.encode()
    decoded, _ = decode_html(data)
    assert body[:20] in decoded
    # The same read as ISO-8859-15, which puts "Œ" where cp1252 has "¼" (0xBC,
    # the first byte of 记): seen on two Chinese news pages of 2011-12.
    latin9 = body.encode("gbk").decode("iso8859-15")
    assert "Œ" in latin9
    assert body in decode_html(f'<meta charset="gb2312"><p>{latin9}</p>'.encode())[0]
    # UTF-8 read as Latin-1 and saved again as UTF-8 (double encoding).
    text = "Grüße aus Köln, café crème – déjà vu. " * 10
    double = text.encode("utf-8").decode("latin-1").encode("utf-8")
    assert text in decode_html(b"<p>" + double + b"</p>")[0]
    # Genuine Latin-1 text is left alone.
    assert text in decode_html(text.encode("cp1252"), "text/html; charset=iso-8859-1")[0]


@pytest.mark.parametrize("shift", [0, 1, 2])
@pytest.mark.parametrize("header", [None, "gbk"])
def test_long_utf8_page_cut_inside_a_character_is_still_utf8(
    shift: int, header: str | None
) -> None:
    """Detection reads the first 200,000 bytes; wherever that cut falls in a
    3-byte character, the page is still UTF-8 (chopping a fixed 3 bytes cut
    into the character before, and a Cyrillic codec won)."""
    head = "<html><body><!--" + "x" * (199_000 + shift) + "-->"
    data = (head + SIMPLIFIED * 100 + "</body></html>").encode("utf-8")
    content_type = f"text/html; charset={header}" if header else None
    decoded, encoding = decode_html(data, content_type)
    assert encoding == "utf-8"
    assert SIMPLIFIED in decoded


def test_utf16_without_a_bom_is_text_when_the_header_says_so() -> None:
    """Half its bytes are NULs, which looks binary; the charset says otherwise."""
    from extractors import extract

    page = (
        "<html><body><h1>标题</h1>" + "<p>这是一个用UTF-16LE编码的网页，没有字节顺序标记。</p>" * 5
    )
    data = (page + "</body></html>").encode("utf-16-le")
    assert looks_binary(data) and not looks_binary(data, "text/html; charset=UTF-16LE")
    text = extract(as_document(data, None, "text/html; charset=utf-16le")).text
    assert "没有字节顺序标记" in text


def test_a_short_page_with_stray_nuls_is_text_and_binary_data_is_not() -> None:
    """Two NULs in a 127-byte page are over 1% of it, but the page opens as
    markup: text. Binary data stays binary."""
    page = b"<html><head><title>Notice</title></head><body><p>Closed on Monday.\x00</p>"
    page += b"<p>Open again on Tuesday.\x00</p></body></html>"
    assert len(page) < 130 and page.count(0) == 2
    assert not looks_binary(page)
    assert looks_binary(b"\x00\x01" * 64)
    assert looks_binary(b"<" + bytes(range(256)) * 4)  # controls, even after a "<"
    assert looks_binary(b"data\x00\x00 table" * 8)  # NULs in no markup


def test_an_undeclared_western_page_is_windows_1252_when_it_reads_as_well() -> None:
    """The detector ties cp1250 and cp1252 on French and names cp1250 first
    ("naďve"); a Czech page, which cp1252 reads worse, stays cp1250."""
    french = "Café société über naïve résumé. Le maître d'hôtel a préparé une crème brûlée. " * 6
    czech = "Příliš žluťoučký kůň úpěl ďábelské ódy. Ředitel řekl, že čísla jsou dobrá. " * 6
    for text, codec in ((french, "latin-1"), (czech, "cp1250")):
        decoded, _ = decode_html(f"<html><body><p>{text}</p></body></html>".encode(codec))
        assert text.strip() in decoded, codec


def test_a_browser_misreads_only_when_its_reading_differs() -> None:
    ascii_page = b"<html><body><p>Plain words, nothing else.</p></body></html>"
    # Chromium reads an undeclared page as windows-1252: the same text here
    assert browser_misread(ascii_page, "text/html", "windows-1252") is None
    gbk = "<html><body><p>市政府周二宣布新开公交线路。</p></body></html>".encode("gbk")
    # a wrong header: the browser trusted it, sitesift reads the bytes
    assert browser_misread(gbk, "text/html; charset=utf-8", "UTF-8") == "gb18030"
    assert browser_misread(gbk, "text/html; charset=gbk", "GBK") is None
    latin = "<p>Le café ouvre à sept heures.</p>".encode("cp1252")
    assert browser_misread(latin, "text/html", "windows-1252") is None
    assert browser_misread(latin, "text/html", "") is None  # no reading to doubt


def test_text_pasted_misread_beside_text_read_right_is_repaired() -> None:
    """A page whose CMS stored some paragraphs misread (UTF-8 read as
    cp1252, served as characters or as entities) beside paragraphs read
    right: each misread character is decoded back, once or twice misread;
    the text read right is untouched."""
    from extractors.encoding import _cp1252_char

    def misread(text: str) -> str:
        return "".join(_cp1252_char(b) for b in text.encode("utf-8"))

    story = "It isn’t “quoted” — it’s café, naïve, привет, 中文, 😀 … done."
    right = "<p>" + "Café owners said “yes” — twice. " * 6 + "</p>"
    entities = misread(story).encode("ascii", "xmlcharrefreplace").decode()
    for wrong in (misread(story), misread(misread(story)), entities):
        page = f"<html><head><title>{wrong}</title></head><body><p>{wrong}</p>{right}</body>"
        doc = as_document(page)
        text = " ".join(doc.body.itertext())
        assert story in text and text.count("Café owners said “yes” — twice.") == 6
        assert doc.title == story
    # Two misread marks are not enough to touch a page (an article about
    # mojibake quotes it): the text stays as written.
    quoted = "<p>Broken pages show â€™ or â€œ where quotes belong. Spaß“ stays.</p>"
    doc = as_document(f"<html><body>{quoted}{right}</body></html>")
    assert "â€™ or â€œ" in " ".join(doc.body.itertext())
