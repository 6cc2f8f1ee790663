"""Turn page bytes into text without mojibake.

Order of evidence: a byte-order mark, then the HTTP charset, then a ``<meta>``
charset, then detection. A declared charset is trusted only if the bytes decode
under it cleanly; Chinese legacy labels are widened to their supersets
(GB2312/GBK -> GB18030, Big5 -> Big5-HKSCS) because real pages use characters
outside the narrow tables.
"""

from __future__ import annotations

import codecs
import re

from charset_normalizer import CharsetMatch, CharsetMatches, from_bytes

_META_CHARSET = re.compile(
    rb"""<meta[^>]+charset\s*=\s*["']?\s*([a-zA-Z0-9_\-:.]+)""", re.IGNORECASE
)
_HEADER_CHARSET = re.compile(r"charset\s*=\s*[\"']?([a-zA-Z0-9_\-:.]+)", re.IGNORECASE)

# Labels that are narrower than what pages actually use.
_SUPERSETS = {
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "x-gbk": "gb18030",
    "cp936": "gb18030",
    "euc-cn": "gb18030",
    "hz-gb-2312": "gb18030",
    "big5": "big5hkscs",
    "big5-tw": "big5hkscs",
    "cp950": "big5hkscs",
    "x-big5": "big5hkscs",
    # WHATWG: latin-1 labels mean windows-1252.
    "iso-8859-1": "cp1252",
    "latin1": "cp1252",
    "latin-1": "cp1252",
    "us-ascii": "cp1252",
    "ascii": "cp1252",
}
_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_CJK_MULTIBYTE = ("gb18030", "big5hkscs")
_CJK_CHECK_BYTES = 32_000
_MULTIBYTE = frozenset(
    {
        "utf-8",
        "gb18030",
        "big5hkscs",
        "shift_jis",
        "cp932",
        "euc_jp",
        "euc_kr",
        "cp949",
        "iso2022_jp",
        "utf-16",
        "utf-16-le",
        "utf-16-be",
    }  # fmt: skip
)
# Sample size for detection; the head of a page carries enough signal.
_DETECT_BYTES = 200_000


# The encodings of the WHATWG Encoding Standard (what browsers decode), as
# Python codec names after widening. A declaration naming any other Python
# codec (``rot13``, ``hex``, ``idna``, ``undefined``, ``utf-7``, EBCDIC...)
# is ignored, as browsers ignore it: those are not page encodings, and some
# cannot even decode bytes.
_WEB_CODECS = frozenset(
    {
        "utf-8", "utf-16", "utf-16-le", "utf-16-be", "cp866", "iso8859-2", "iso8859-3",
        "iso8859-4", "iso8859-5", "iso8859-6", "iso8859-7", "iso8859-8", "iso8859-10",
        "iso8859-11", "iso8859-13", "iso8859-14", "iso8859-15", "iso8859-16", "koi8-r",
        "koi8-u", "mac-roman", "mac-cyrillic", "cp874", "tis-620", "cp1250", "cp1251",
        "cp1252", "cp1253", "cp1254", "cp1255", "cp1256", "cp1257", "cp1258", "gb18030",
        "big5hkscs", "euc_jp", "iso2022_jp", "shift_jis", "cp932", "euc_kr", "cp949",
    }
)  # fmt: skip


def normalize_encoding(label: str | None) -> str | None:
    """Return the Python codec for a charset label (widened), or None if it
    names no encoding a browser would decode a page with."""
    name = _codec_name(label)
    return name if name in _WEB_CODECS else None


def _codec_name(label: str | None) -> str | None:
    """The widened Python codec for any label Python knows, or None."""
    if not label:
        return None
    label = label.strip().strip("\"'").lower()
    label = _SUPERSETS.get(label, label)
    try:
        name = codecs.lookup(label).name
    except (LookupError, ValueError):  # ValueError: NUL or a lone surrogate in the label
        return None
    return _SUPERSETS.get(name, name)


def header_charset(content_type: str | None) -> str | None:
    """The charset parameter of a Content-Type header value, if any."""
    if not content_type:
        return None
    match = _HEADER_CHARSET.search(content_type)
    return match.group(1) if match else None


def meta_charset(data: bytes) -> str | None:
    """The charset declared by a ``<meta>`` tag in the first 4 KiB."""
    match = _META_CHARSET.search(data[:4096])
    return match.group(1).decode("ascii", "ignore") if match else None


def _meta_encoding(data: bytes) -> str | None:
    """The ``<meta>`` charset as HTML reads it: a page whose ``<meta>`` could be
    read as ASCII is not UTF-16, so a UTF-16 declaration there means UTF-8."""
    label = meta_charset(data)
    name = normalize_encoding(label)
    return "utf-8" if name and name.startswith("utf-16") else label


def _is_utf8_prefix(sample: bytes) -> bool:
    """Whether ``sample``, possibly cut from a longer page, is valid UTF-8: a
    character cut off at its end is allowed, nothing else (chopping a fixed
    number of bytes instead can cut into the last whole character too)."""
    try:
        codecs.getincrementaldecoder("utf-8")().decode(sample, final=False)
    except UnicodeDecodeError:
        return False
    return True


def _bad_bytes(data: bytes, encoding: str) -> int:
    """How many undecodable sequences the bytes hold under ``encoding``."""
    return data.decode(encoding, errors="replace").count("\ufffd") - data.count("\ufffd".encode())


def _has_high_bytes(data: bytes) -> bool:
    return not data[:_DETECT_BYTES].isascii()


def _is_plausible(data: bytes, encoding: str) -> bool:
    """Whether a declared charset fits the bytes.

    Real legacy pages hold a few broken sequences, so a handful of errors is
    tolerated. A declaration is rejected when the bytes are valid UTF-8 with
    non-ASCII text (accidental UTF-8 validity of GBK/Big5/Latin text is
    vanishingly rare), and a single-byte charset is rejected when detection
    finds a multi-byte one (the classic ``iso-8859-1`` header on a GBK page).
    """
    sample = data[:_DETECT_BYTES]
    if encoding != "utf-8" and _has_high_bytes(sample) and _is_utf8_prefix(sample):
        return False
    bad = _bad_bytes(sample, encoding)
    if bad > max(2, len(sample) // 2000):
        return False
    single_byte = codecs.lookup(encoding).name in ("cp1252", "iso8859-1", "ascii")
    if single_byte and _has_high_bytes(sample) and detect_encoding(sample) in _MULTIBYTE:
        return False
    if encoding in _CJK_MULTIBYTE and _has_high_bytes(sample):
        # GBK and Big5 share byte ranges, so a wrong one of the two still
        # "decodes"; let the detector compare them by how chaotic the text is.
        rivals = [encoding, *(c for c in _CJK_MULTIBYTE if c != encoding)]
        best = from_bytes(sample[:_CJK_CHECK_BYTES], cp_isolation=rivals).best()
        if best is not None and normalize_encoding(best.encoding) != encoding:
            return False
    return True


def detect_encoding(data: bytes) -> str | None:
    """Guess the encoding of undeclared bytes."""
    sample = data[:_DETECT_BYTES]
    if not _has_high_bytes(sample):
        return "utf-8"
    if _is_utf8_prefix(sample):
        return "utf-8"
    matches = from_bytes(sample)
    best = matches.best()
    if best is None:
        return None
    guess = _codec_name(best.encoding)
    if guess != "cp1252" and _ties_with_cp1252(matches, best):
        return "cp1252"
    if guess in _CJK_SCRIPT:
        guess = _most_native_cjk(matches, best, guess)
    # charset_normalizer sometimes names a sibling of a Chinese codec; keep to
    # the superset that decodes the whole page.
    narrow = {"gb2312": "gb18030", "gbk": "gb18030", "hz": "gb18030", "cp936": "gb18030",
              "big5": "big5hkscs", "cp950": "big5hkscs"}  # fmt: skip
    return narrow.get(guess, guess) if guess else None


_TIE = 0.01  # chaos and coherence closer than this are a tie

# The script each East Asian codec's language is written in: Korean in Hangul
# syllables; Japanese in kana and ideographs; Chinese in ideographs.
_HANGUL = ((0xAC00, 0xD7A3),)
_IDEOGRAPHS = ((0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0x20000, 0x3FFFF))
_KANA = ((0x3040, 0x30FF), (0x31F0, 0x31FF))  # not half-width: rare beside ideographs
_JAPANESE = ("shift_jis", "cp932", "euc_jp", "euc_jis_2004", "euc_jisx0213", "shift_jis_2004",
             "shift_jisx0213", "iso2022_jp")  # fmt: skip
_CJK_SCRIPT: dict[str, tuple[tuple[int, int], ...]] = {
    **dict.fromkeys(("cp949", "euc_kr", "johab"), _HANGUL),
    **dict.fromkeys(_JAPANESE, _KANA + _IDEOGRAPHS),
    **dict.fromkeys(("gb18030", "big5hkscs"), _IDEOGRAPHS),
}
# Those browsers decode (the Japanese 2004 codecs extend theirs).
_WEB_CJK = (_WEB_CODECS & set(_CJK_SCRIPT)) | {"euc_jis_2004", "euc_jisx0213", "shift_jis_2004",
                                               "shift_jisx0213"}  # fmt: skip
# Short pages: chaos this close among East Asian readings is no evidence.
_CJK_TIE = 0.05


def _most_native_cjk(matches: CharsetMatches, best: CharsetMatch, guess: str) -> str:
    """Among East Asian codecs that read the bytes about as well, the one
    whose reading is written in its own language's script, then one that
    browsers decode. Korean, Japanese and Chinese double-byte codecs share
    byte ranges, so a short page decodes without error in several, and the
    detector then names the first: a GBK "你好，世界" became Korean "콱봤，各썹"
    (Hangul mixed with stray ideographs, which Korean is not written in), a
    short Big5 page Johab, a Korean codec no browser knows."""
    readings = [(codec, str(m)[:20_000]) for m in matches
                if m.chaos <= best.chaos + _CJK_TIE
                and (codec := _codec_name(m.encoding) or "") in _CJK_SCRIPT]  # fmt: skip
    if len(readings) < 2:
        return guess
    ranked = [(round(_script_share(text, _CJK_SCRIPT[codec]), 2), codec in _WEB_CJK, -i, codec)
              for i, (codec, text) in enumerate(readings)]  # fmt: skip
    return max(ranked)[3]


def _script_share(text: str, ranges: tuple[tuple[int, int], ...]) -> float:
    """Share of the non-ASCII letters of ``text`` in these code point ranges."""
    letters = [ord(c) for c in text if not c.isascii() and c.isalpha()]
    if not letters:
        return 0.0
    inside = sum(1 for c in letters if any(lo <= c <= hi for lo, hi in ranges))
    return inside / len(letters)


def _ties_with_cp1252(matches: CharsetMatches, best: CharsetMatch) -> bool:
    """Whether windows-1252 reads the bytes as well as the detector's pick
    (as chaotic, as coherent): the detector then names the first codec of a
    tie, cp1250 for a French page ("naďve" for "naïve"). Windows-1252 is what
    browsers assume for an undeclared Western page; a Czech or Polish page,
    whose letters it reads worse, keeps its codec."""
    return any(
        _codec_name(m.encoding) == "cp1252"
        and m.chaos <= best.chaos + _TIE
        and m.coherence >= best.coherence - _TIE
        for m in matches
    )


# A body is sniffed for binary content in its first bytes: the signatures of
# binary formats, and the C0 controls that are not whitespace.
SNIFF_BYTES = 4096
# The signatures of binary formats, with what each file is (for messages).
BINARY_KINDS: dict[bytes, str] = {
    b"\x89PNG\r\n\x1a\n": "a PNG image", b"\xff\xd8\xff": "a JPEG image",
    b"GIF87a": "a GIF image", b"GIF89a": "a GIF image", b"%PDF-": "a PDF document",
    b"PK\x03\x04": "a ZIP archive", b"\x1f\x8b": "gzip data", b"\xfd7zXZ\x00": "xz data",
    b"7z\xbc\xaf\x27\x1c": "a 7z archive", b"Rar!\x1a\x07": "a RAR archive",
    b"\x28\xb5\x2f\xfd": "zstd data", b"\x7fELF": "a program (ELF)",
    b"RIFF": "a RIFF file (WebP, WAV...)", b"OggS": "Ogg media", b"wOFF": "a web font",
    b"wOF2": "a web font",
}  # fmt: skip
_BINARY_MAGIC = tuple(BINARY_KINDS)
_CONTROL_BYTES = bytes(b for b in range(32) if b not in b"\t\n\x0c\r")


# Content types of a page; other text/* bodies are a page when they look it.
HTML_TYPES = ("text/html", "application/xhtml+xml")
_PAGE_TAGS = (b"<html", b"<!doctype html", b"<head", b"<body", b"<meta", b"<title")


def looks_html(head: bytes) -> bool:
    """Whether a body opens as an HTML page (a tag a page starts with)."""
    sample = head.lstrip()[:512].lower()
    return any(tag in sample for tag in _PAGE_TAGS)


def served_as_other(content_type: str | None, head: bytes) -> str | None:
    """The media type of a body its Content-Type says is no page (JSON, a
    PDF; a ``text/*`` body that opens as a page is one), else None."""
    ctype = (content_type or "").split(";")[0].strip().lower()
    if ctype and ctype not in HTML_TYPES and not (ctype.startswith("text/") and looks_html(head)):
        return ctype
    return None


def looks_binary(head: bytes, content_type: str | None = None) -> bool:
    """Whether the first bytes of a body are a binary file rather than text
    (where a stray NUL is no proof): a known binary signature, or more
    non-whitespace control bytes (over 5%) or, unless it opens as markup,
    NULs (over 1%, more than one) than text has; random or compressed bytes
    are about 0.4% NUL and 11% control bytes. UTF-16, half NULs, is text
    when its byte order mark or the Content-Type's charset says so."""
    head = head[:SNIFF_BYTES]
    if head.startswith(_BINARY_MAGIC):
        return True
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return False
    if (normalize_encoding(header_charset(content_type)) or "").startswith("utf-16"):
        return False
    controls = len(head) - len(head.translate(None, _CONTROL_BYTES))
    if controls * 20 > len(head):
        return True
    if head.lstrip().removeprefix(b"\xef\xbb\xbf").startswith(b"<"):
        return False  # markup: a few stray NULs in a short page are no proof
    nuls = head.count(0)
    return nuls > 1 and nuls * 100 > len(head)


def decode_html(data: bytes | str, content_type: str | None = None) -> tuple[str, str]:
    """Decode page bytes; return ``(text, encoding)``.

    Never raises: undecodable bytes are replaced, NUL and other C0 control
    characters (except tab and newlines) are dropped.
    """
    if isinstance(data, str):
        return _strip_controls(data), "unicode"
    encoding = None
    for bom, name in _BOMS:
        if data.startswith(bom):
            encoding = name
            data = data[len(bom) :]
            break
    if encoding is None:
        for declared in (header_charset(content_type), _meta_encoding(data)):
            candidate = normalize_encoding(declared)
            if candidate and _is_plausible(data, candidate):
                encoding = candidate
                break
    if encoding is None:
        encoding = detect_encoding(data) or "utf-8"
    text = data.decode(encoding, errors="replace")
    declared = [normalize_encoding(d) for d in (header_charset(content_type), meta_charset(data))]
    text = repair_mojibake(text, [d for d in declared if d in _CJK_MULTIBYTE])
    return _strip_controls(text), encoding


def browser_misread(raw: bytes, content_type: str | None, charset: str | None) -> str | None:
    """The encoding to read a page's bytes with when a browser read them as
    ``charset`` (``document.characterSet``) and sitesift reads them otherwise,
    or None when the browser's reading stands. Chromium trusts a charset
    header even when the bytes say otherwise (its DOM is then mojibake); two
    names that read the bytes alike (an ASCII page read as windows-1252, as
    Chromium reads a page that declares no charset) are no disagreement."""
    ours = decode_html(raw, content_type)[1]
    if normalize_encoding(charset) in (None, normalize_encoding(ours)):
        return None
    try:
        if raw.decode(str(charset)) == raw.decode(ours):
            return None
    except (LookupError, UnicodeDecodeError):
        pass  # one of them cannot read the bytes: they disagree
    return ours


# UTF-8 bytes read as Latin-1: "Ã©" for "é", "Â°" for "°".
_UTF8_AS_LATIN1 = re.compile(r"[\u00c2-\u00f4][\u0080-\u00bf]")
_LATIN1_LETTERS = re.compile(
    r"[\u0080-\u00ff\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u0192\u02c6\u02dc\u2013-\u203a\u20ac\u2122]"
)


# Latin-1 letters that ISO-8859-15 (Latin-9) replaced by "€ŠšŽžŒœŸ".
_NOT_IN_LATIN9 = re.compile("[\u00a4\u00a6\u00a8\u00b4\u00b8\u00bc\u00bd\u00be]")
_LATIN9_ONLY = re.compile("[\u20ac\u0160\u0161\u017d\u017e\u0152\u0153\u0178]")


def _to_bytes(text: str, codec: str = "cp1252") -> bytes | None:
    """Bytes that ``codec`` (or Latin-1 for its holes) would have decoded to ``text``."""
    out = bytearray()
    for ch in text:
        try:
            out += ch.encode(codec)
        except UnicodeEncodeError:
            if ord(ch) > 0xFF:
                return None
            out.append(ord(ch))
    return bytes(out)


def _single_byte_codec(text: str) -> str:
    """The codec a text of Latin letters was decoded with: ISO-8859-15 when
    it holds letters only Latin-9 has at those positions ("Œ" for 0xBC) and
    none of the Latin-1 letters Latin-9 dropped ("¼"), else cp1252. GBK bytes
    read as Latin-9 hold many such letters (0xBC-0xBE lead common
    characters), so their absence beside them is a clear sign."""
    if _LATIN9_ONLY.search(text) and not _NOT_IN_LATIN9.search(text):
        return "iso8859-15"
    return "cp1252"


def repair_mojibake(text: str, cjk_codecs: list[str] | None = None) -> str:
    """Undo text that was decoded with the wrong codec before it was served.

    Some pages are already mojibake in their own bytes (UTF-8 read as Latin-1
    and saved again, sometimes twice; GBK read as cp1252). Repair only on a
    strong signature: many UTF-8-as-Latin-1 pairs, or, for a page that
    declares a Chinese codec yet holds no Chinese, a text made of Latin-1
    letters that decodes cleanly under the declared codec (read as cp1252,
    or as Latin-9: :func:`_single_byte_codec`).
    """
    if text.isascii():
        return text
    for _ in range(3):
        pairs = len(_UTF8_AS_LATIN1.findall(text))
        if pairs < 20 or pairs * 2 < 0.6 * len(_NON_ASCII.findall(text)):
            break
        raw = _to_bytes(text)
        if raw is None:
            break
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            break
    for codec in cjk_codecs or []:
        latin = len(_LATIN1_LETTERS.findall(text))
        if latin < 50 or CJK_TEXT.search(text):
            break
        raw = _to_bytes(text, _single_byte_codec(text))
        if raw is None:
            break
        fixed = raw.decode(codec, errors="replace")
        if (
            fixed.count("\ufffd") <= max(2, latin // 100)
            and len(CJK_TEXT.findall(fixed)) * 3 > latin
        ):
            return fixed
    return text


def _cp1252_char(byte: int) -> str:
    """What cp1252 reads one byte as (Latin-1 for the bytes it leaves undefined)."""
    try:
        return bytes([byte]).decode("cp1252")
    except UnicodeDecodeError:
        return chr(byte)


_CONTINUATION = re.escape("".join(_cp1252_char(b) for b in range(0x80, 0xC0)))
# One character's UTF-8 bytes read as cp1252: a lead byte's letter, then one
# to three continuation bytes' characters ("â€™" is "’"). Two-byte ones only
# for Latin, Greek and Cyrillic letters (leads C2-D4): "ß“" is German, not a
# misread NKo letter.
_MIXED_MOJIBAKE = re.compile(
    f"[\u00c2-\u00d4][{_CONTINUATION}]|[\u00e0-\u00ef][{_CONTINUATION}]{{2}}"
    f"|[\u00f0-\u00f4][{_CONTINUATION}]{{3}}"
)
# Smart punctuation (’ “ ” – — …) misread once ("â€" and one more
# character) or twice ("Ã¢â‚¬"...). Real text holds neither; a page holding
# them a few times holds mojibake.
_MISREAD_PUNCTUATION = ("\u00e2\u20ac", "\u00c3\u00a2\u00e2\u201a\u00ac")
MIXED_MOJIBAKE_MIN = 3
# What a source holding them shows besides the characters: "â" as an entity.
_MISREAD_ENTITY = re.compile(r"&(?:acirc|#0*226|#x0*e2);", re.I)


def may_misread(source: str) -> bool:
    """Whether a page's source may hold misread punctuation (a cheap test
    before :func:`misreads_punctuation` reads the parsed texts)."""
    return _MISREAD_PUNCTUATION[0] in source or bool(_MISREAD_ENTITY.search(source))


def misreads_punctuation(text: str) -> bool:
    """Whether a page's text (entities resolved) shows smart punctuation
    misread (UTF-8 read as cp1252) at least ``MIXED_MOJIBAKE_MIN`` times:
    text pasted from a misread source beside text read right, which the
    whole-page repair of :func:`repair_mojibake` cannot undo."""
    return sum(text.count(sign) for sign in _MISREAD_PUNCTUATION) >= MIXED_MOJIBAKE_MIN


def repair_misread(text: str) -> str:
    """``text`` with each misread character decoded back (twice for one
    misread twice), on a page :func:`misreads_punctuation` flags."""
    text = _MIXED_MOJIBAKE.sub(_decoded, text)
    if _MISREAD_PUNCTUATION[0] in text:  # misread twice: its first reading
        text = _MIXED_MOJIBAKE.sub(_decoded, text)
    return text


def _decoded(match: re.Match[str]) -> str:
    raw = _to_bytes(match.group())
    try:
        char = raw.decode("utf-8") if raw is not None else match.group()
    except UnicodeDecodeError:
        return match.group()
    # A Latin-1 control or soft hyphen may be the first reading of a
    # character misread twice.
    keep = char.isprintable() or char.isspace() or ord(char) < 0x100
    return char if keep else match.group()


CJK_TEXT = re.compile(r"[\u4e00-\u9fff]")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_CONTROL_CHARS = tuple(chr(c) for c in (*range(0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F))


def _strip_controls(text: str) -> str:
    """Drop C0 controls; make the text valid Unicode. Surrogate code points
    come from ``str`` input (``surrogateescape``, JSON ``\\ud83d`` escapes) and
    from a few codecs (UTF-7): a pair is joined into its character, a lone
    one becomes U+FFFD (lxml refuses to parse a text holding any)."""
    # Both tests scan the whole page, so they are done in C: a substring test
    # per control character, and UTF-8 encoding, which fails on surrogates only.
    if any(c in text for c in _CONTROL_CHARS):
        text = _CONTROLS.sub("", text)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text
