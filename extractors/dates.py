"""Dates in pages: ISO 8601 from meta values, URLs and visible text.

One parser shared by metadata (publish date) and list records (a date per
record). It reads machine formats (ISO 8601, RFC 2822), numeric and
month-name English forms, Chinese forms (2024年5月3日, 发布时间：2024-05-03
10:20) and relative ones (3小时前, 昨天 08:00, 2 days ago), which need the
fetch time. A date after the fetch time is never returned: pages show
countdowns, event dates and copyright years that are not publish dates.
"""

from __future__ import annotations

import contextlib
import re
from datetime import UTC, date, datetime, timedelta, timezone
from email.utils import parsedate_to_datetime
from typing import Any

from .text import CJK_CHAR

__all__ = [
    "find_date",
    "find_datetime",
    "find_relative_date",
    "date_in_url",
    "parse_date",
    "to_iso",
]

_MONTHS = {
    m: i + 1
    for i, names in enumerate(
        [
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ]
    )  # fmt: skip
    for m in names
}
_MONTH = (
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_YEAR = r"((?:19|20)\d\d)"
# An optional clock time after a date: 10:20, 10:20:30, 10时20分, T10:20Z,
# ", 8:45 pm", " at 18:45", " 下午3:20" (its half of the day: groups 4 and 8).
_HALF_DAY_WORDS = "上午|早上|凌晨|中午|下午|晚上"
_HALF_DAY = f"({_HALF_DAY_WORDS})?"  # before the clock
_MERIDIEM = r"(?:\s*([aApP])\.?\s?[mM]\b\.?)?"  # after it: am, p.m.
_TIME = (
    r"(?:\s*(?:T|\s|日|[,，])?\s*(?:at\s+)?" + _HALF_DAY + r"\s*"
    r"(\d{1,2})\s*[:：时]\s*(\d{1,2})(?:\s*[:：分]\s*(\d{1,2}))?" + _MERIDIEM + ")?"
)
# The afternoon's marks: "pm", 下午 and 晚上 (中午 before 11 o'clock too).
_AFTERNOON = frozenset({"p", "P", "下午", "晚上"})
# (pattern, order of year/month/day groups); the earliest match in a text wins.
_DATE_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(_YEAR + r"\s*[-/.年]\s*(\d{1,2})\s*[-/.月]\s*(\d{1,2})(?!\d)\s*日?" + _TIME),
        "ymd",
    ),
    (
        re.compile(r"\b" + _MONTH + r"\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+" + _YEAR + _TIME, re.I),
        "Mdy",
    ),
    (
        re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+" + _MONTH + r",?\s+" + _YEAR + _TIME, re.I),
        "dMy",
    ),
    (re.compile(r"(?<!\d)(\d{1,2})[/.](\d{1,2})[/.]" + _YEAR + r"(?!\d)" + _TIME), "mdy"),
    (re.compile(r"(?<!\d)" + _YEAR + r"(\d\d)(\d\d)(?!\d)"), "ymd8"),
)
# Every pattern above needs a year: a text without one (most list entries,
# menus) is passed over after one cheap scan instead of one per pattern.
_ANY_YEAR = re.compile(_YEAR)
# Relative dates: (pattern, unit). Chinese and English.
# A date written in running text, as a listing shows one beside each item
# or a comment's signature holds it (numeric, month names, "3
# hours ago"); the lookahead lets the scan skip most positions quickly: every
# alternative starts with an ASCII digit or a month's first letter.
DATE_IN_TEXT = re.compile(
    r"(?=[0-9adfjmnos])(?:(?:19|20)\d\d\s*[-/.年]\s*\d{1,2}\s*[-/.月]\s*\d{1,2}|"
    r"\b\d{1,2}[/.]\d{1,2}[/.](?:19|20)?\d\d\b|"
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2},?\s+(?:19|20)\d\d|"
    r"\b\d{1,2}\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?,?\s+(?:19|20)\d\d|"
    r"\b\d+\s+(?:minute|hour|day|week|month)s?\s+ago\b|(?<!\d)\d+\s*(?:分钟|小时|天)前)",
    re.I,
)
# "3小时前", "2 days ago": the amount, its unit and "ago" right after it (a
# reading time "阅读约需5分钟", a video's "时长：3分钟" or "24小时热榜" is no date).
# The amount is a number, or "a"/"an"/"one" ("an hour ago") or 半 ("半小时前",
# half an hour), which ``_AMOUNTS`` reads.
_AMOUNT = r"(?<![\dA-Za-z])(\d+|an?|one|半)\s*"
_AMOUNTS = {"a": 1.0, "an": 1.0, "one": 1.0, "半": 0.5}
_RELATIVE: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(_AMOUNT + r"(?:秒钟?\s*前|seconds?\s+ago)", re.I), "seconds"),
    (re.compile(_AMOUNT + r"(?:分钟\s*前|mins?(?:utes?)?\s+ago)", re.I), "minutes"),
    (re.compile(_AMOUNT + r"(?:个?小时\s*前|hours?\s+ago|hrs?\s+ago)", re.I), "hours"),
    (re.compile(_AMOUNT + r"(?:天前|days?\s+ago)", re.I), "days"),
    (re.compile(_AMOUNT + r"(?:周前|个?星期前|weeks?\s+ago)", re.I), "weeks"),
)
# A day word is a date when a clock time follows it ("昨天 14:20") or it is
# the whole stamp ("刚刚", "Yesterday"); "今天天气晴朗" and "Today's Paper" are not.
_JUST_NOW = re.compile(r"刚刚|just now", re.I)  # a time too: the fetch time
_DAY_WORDS: tuple[tuple[re.Pattern[str], int], ...] = (
    (_JUST_NOW, 0),
    (re.compile(r"今天|today", re.I), 0),
    (re.compile(r"前天"), 2),
    (re.compile(r"昨天|昨日|yesterday", re.I), 1),
)
# The clock of "昨天 14:20" is the site's: every Chinese-speaking region
# (mainland China, Taiwan, Hong Kong, Macau, Singapore, Malaysia) keeps UTC+8.
# An English day word's zone is unknown, so its time stays local (no offset),
# like a printed "2024-05-03 10:20".
CHINESE_TIME = timezone(timedelta(hours=8), "UTC+08:00")
_CLOCK_AFTER = re.compile(
    r"\s*+[,，]?\s*+(?:at\s++)?"
    + _HALF_DAY
    + r"\s*+(\d{1,2})\s*+[:：]\s*+(\d{2})(?!\d)"
    + _MERIDIEM,
    re.I,
)
# What may stand beside a lone day word in a stamp: separators, "发布"/"更新"
# ("published", "updated") and the like.
_STAMP_REST = re.compile(
    r"[\s|·•:：,，\-–—()（）\[\]]*+(?:(?:发布|更新)(?:时间|于)?|时间|posted|published|updated)?"
    r"[\s|·•:：,，\-–—()（）\[\]]*+",
    re.I,
)
_ISO = re.compile(
    r"^\s*((?:19|20)\d\d)-?(\d\d)-?(\d\d)(?:[T ](\d\d):?(\d\d)(?::?(\d\d)(?:\.\d+)?)?"
    r"\s*(Z|[+-]\d\d:?\d\d)?)?"
)
_URL_DATE = re.compile(
    r"(?<!\d)((?:19|20)\d\d)[/_-]?(0[1-9]|1[0-2])[/_-]?(0[1-9]|[12]\d|3[01])(?!\d)"
)
_URL_MONTH = re.compile(r"/((?:19|20)\d\d)[/_-](0[1-9]|1[0-2])/")


def _valid(y: int, m: int, d: int, hh: int = 0, mm: int = 0, ss: int = 0) -> datetime | None:
    try:
        return datetime(y, m, d, hh, mm, ss)
    except ValueError:
        return None


def _from_groups(groups: tuple[str | Any, ...], order: str) -> tuple[datetime | None, bool]:
    """A datetime from a pattern's groups, and whether it carried a time."""
    order = "ymd" if order == "ymd8" else order
    values: dict[str, int] = {}
    for part, value in zip(order, groups[:3], strict=True):
        values["m" if part == "M" else part] = (
            _MONTHS[value.lower().rstrip(".")] if part == "M" else int(value)
        )
    y, m, d = values["y"], values["m"], values["d"]
    if order == "mdy" and m > 12:  # day first (31/12/2024)
        m, d = d, m
    half, *clock, meridiem = groups[3:8] if len(groups) > 3 else (None,) * 5
    if clock[0] is not None:
        hh, mm, ss = (int(v) if v else 0 for v in clock)
        hh = _twenty_four(hh, half or meridiem)
        if hh < 24 and mm < 60 and ss < 60:
            return _valid(y, m, d, hh, mm, ss), True
    return _valid(y, m, d), False


def _twenty_four(hour: int, half: str | None) -> int:
    """A 12-hour clock's hour on the 24-hour clock ("1:47 pm" is 13:47,
    "12:05 am" 0:05, "下午3:20" 15:20); a 24-hour one's as it is."""
    if half in _AFTERNOON or (half == "中午" and hour < 11):
        return hour + 12 if hour < 12 else hour
    if half in ("a", "A") and hour == 12:
        return 0
    return hour


def to_iso(value: datetime | date, with_time: bool = True) -> str:
    """ISO 8601: a date, or a date and time (with its offset when known)."""
    if isinstance(value, datetime) and with_time:
        return value.isoformat(timespec="seconds")
    return (value.date() if isinstance(value, datetime) else value).isoformat()


def _naive(value: datetime) -> datetime:
    return value.astimezone(UTC).replace(tzinfo=None) if value.tzinfo else value


def _not_future(value: datetime, now: datetime | None) -> bool:
    """Whether ``value`` is not after ``now`` (the fetch time; without one,
    the present). A time with its offset is compared as it stands, with an
    hour for clocks that disagree; a local time without one may be up to a
    day ahead of the fetch time in UTC."""
    bound = now or datetime.now(UTC)
    if value.tzinfo is not None and bound.tzinfo is not None:
        return value <= bound + timedelta(hours=1)
    return _naive(value) <= _naive(bound) + timedelta(days=1)


def parse_date(text: str | None, now: datetime | None = None) -> datetime | None:
    """The first date (with time when given) in ``text``; None if none.

    Machine formats are tried first, then the visible-text patterns, then
    relative expressions resolved against ``now`` (the fetch time). A date
    later than ``now`` is rejected.
    """
    if not text:
        return None
    text = text.strip()[:500]
    value = _parse_machine(text)
    if value is None:
        value, _ = _parse_text(text)
    if value is None and now is not None:
        value = _parse_relative(text, now)
    if value is None or not _not_future(value, now) or value.year < 1990:
        return None
    return value


def _parse_machine(text: str) -> datetime | None:
    m = _ISO.match(text)
    if m:
        y, mo, d, hh, mi, ss, tz = m.groups()
        value = _valid(int(y), int(mo), int(d), int(hh or 0), int(mi or 0), int(ss or 0))
        if value and tz:
            with contextlib.suppress(ValueError):
                offset = "+00:00" if tz == "Z" else tz
                value = datetime.fromisoformat(f"{value.isoformat()}{offset}")
        if value is not None:
            return value
    if "," in text[:5] or re.match(r"^[A-Za-z]{3},", text):
        try:
            return parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
    return None


def _parse_text(text: str, compact: bool = True) -> tuple[datetime | None, int]:
    """Earliest date pattern in ``text``: (datetime, position). ``compact``
    allows 8-digit dates (20240503), which ids in visible text can mimic."""
    best: tuple[int, datetime] | None = None
    if not _ANY_YEAR.search(text):
        return None, -1
    for pattern, order in _DATE_PATTERNS:
        if order == "ymd8" and not compact:
            continue
        for m in pattern.finditer(text):
            value, _ = _from_groups(m.groups(), order)
            if value is not None:
                if best is None or m.start() < best[0]:
                    best = (m.start(), value)
                break
    return (best[1], best[0]) if best else (None, -1)


def _parse_relative(text: str, now: datetime) -> datetime | None:
    for pattern, unit in _RELATIVE:
        m = pattern.search(text)
        if m:
            amount = m.group(1).lower()
            return now - timedelta(**{unit: _AMOUNTS.get(amount) or float(amount)})
    for pattern, days_back in _DAY_WORDS:
        for m in pattern.finditer(text):
            day = _site_clock(now, m.group()) - timedelta(days=days_back)
            clock = _CLOCK_AFTER.match(text, m.end())
            if clock:
                half, hour, minute, meridiem = clock.groups()
                hour = _twenty_four(int(hour), half or meridiem)
                if hour < 24 and int(minute) < 60:
                    return day.replace(hour=hour, minute=int(minute), second=0, microsecond=0)
            rest = text[: m.start()] + " " + text[m.end() :]
            if _STAMP_REST.fullmatch(rest):
                if pattern is _JUST_NOW:
                    return now.replace(microsecond=0)
                return day.replace(hour=0, minute=0, second=0, microsecond=0)
    return None


def _site_clock(now: datetime, day_word: str) -> datetime:
    """``now`` on the clock of the site that wrote ``day_word``: UTC+8 for a
    Chinese one, the wall time without an offset for another."""
    if now.tzinfo is None:
        return now
    if CJK_CHAR.search(day_word):
        return now.astimezone(CHINESE_TIME)
    return now.replace(tzinfo=None)


def find_datetime(text: str | None, now: datetime | None = None) -> str | None:
    """The first date in visible text as ISO 8601, with its time when the
    text gives one (``2024-05-03T10:20:00``), else the day only."""
    if not text:
        return None
    value, has_time, pos = None, False, len(text)
    for pattern, order in _DATE_PATTERNS if _ANY_YEAR.search(text) else ():
        m = pattern.search(text)
        if m:
            candidate, timed = _from_groups(m.groups(), order)
            if candidate is not None and m.start() < pos:
                value, has_time, pos = candidate, timed, m.start()
    if value is None and now is not None:
        value = _parse_relative(text, now)
        has_time = value is not None and value.time() != datetime.min.time()
    if value is None and now is not None:
        value, has_time = _without_year(text, now)
    if value is None or not _not_future(value, now) or value.year < 1990:
        return None
    return to_iso(value, has_time)


# A date of this year as Chinese portals print it: "5月3日 10:20", "05-03 10:20"
# (the numeric form only with its clock time: "3-1" alone is a score).
_NO_YEAR = (
    re.compile(r"(?<![\d年])(\d{1,2})\s*月\s*(\d{1,2})\s*日(?:\s*(\d{1,2})\s*[:：]\s*(\d{2}))?"),
    re.compile(r"(?<![\w/.-])(\d{1,2})-(\d{1,2})\s+(\d{1,2}):(\d{2})(?![\d:])"),
)
# ...and "04/19 15:15" in a Chinese text, which writes the month first (an
# English one's order varies: 04/05 is April or May).
_NO_YEAR_SLASH = re.compile(r"(?<![\w/.-])(\d{1,2})/(\d{1,2})\s+(\d{1,2}):(\d{2})(?![\d:])")


def _without_year(text: str, now: datetime) -> tuple[datetime | None, bool]:
    """A month and day without a year, in the fetch's year (the year before
    when that day is still to come)."""
    for pattern in (*_NO_YEAR, _NO_YEAR_SLASH) if CJK_CHAR.search(text) else _NO_YEAR:
        m = pattern.search(text)
        if m is None:
            continue
        month, day, hour, minute = (int(g) if g else 0 for g in m.groups())
        for year in (now.year, now.year - 1):
            value = _valid(year, month, day, hour, minute)
            if value is not None and _not_future(value, now):
                return value, m.group(3) is not None
    return None, False


def find_date(text: str) -> str | None:
    """The first date in ``text`` as ISO 8601 ``YYYY-MM-DD`` (English and
    Chinese numeric and month-name forms); None when there is none."""
    value, _ = _parse_text(text, compact=False)
    return value.date().isoformat() if value else None


def find_relative_date(text: str, now: datetime) -> str | None:
    """The day ``text`` gives relative to ``now`` (the fetch), as ISO 8601
    ``YYYY-MM-DD``: "3小时前", "2 days ago", "昨天 14:20", this year's "05-03
    10:20"; None for a text with no such date or one after ``now``. A date
    with its year is :func:`find_date`'s, which needs no fetch time."""
    value = _parse_relative(text, now)
    if value is None:
        value, _ = _without_year(text, now)
    if value is None or not _not_future(value, now):
        return None
    if value.tzinfo is not None and CJK_CHAR.search(text):
        value = value.astimezone(CHINESE_TIME)  # "2小时前" is a day of the site's clock
    return value.date().isoformat()


# A clock time standing alone ("Sholmes 15:02"): on the 24-hour clock (no
# am or pm), not part of a longer time, a score or a range...
_CLOCK_ALONE = re.compile(
    r"(?<![\d:：.\-/])([01]?\d|2[0-3])[:：]([0-5]\d)"
    r"(?![\d:：])(?!\s*(?:[-–~至到]|[aApP]\.?\s?[mM]\b))"
)
# ...nor after a half of the day ("下午 3:20") or a day ("04/19 15:15", a
# day this module does not read: the order of its numbers varies).
_NOT_ALONE_AFTER = re.compile(r"(?:\d\s*[-/.月]\s*\d{1,2}\s*日?|" + _HALF_DAY_WORDS + r")\s*$")


def find_time_today(text: str, now: datetime) -> str | None:
    """The fetch's day (``YYYY-MM-DD``, on the site's clock) for a Chinese
    text dated by one time of day alone: how a Chinese portal stamps the
    entries of its own day ("15:02") beside older ones ("昨天 14:20").
    None for no such time, several, one still to come that day (it may be
    yesterday's), or a text in another script: an English list's lone time
    is as often an event's or a show's ("Wednesday at 4:00 PM")."""
    if not CJK_CHAR.search(text):
        return None
    found = [
        m for m in _CLOCK_ALONE.finditer(text) if not _NOT_ALONE_AFTER.search(text, 0, m.start())
    ]
    if len(found) != 1:
        return None
    hour, minute = found[0].groups()
    clock = _site_clock(now, text)
    if (int(hour), int(minute)) > (clock.hour, clock.minute):
        return None
    return clock.date().isoformat()


def date_in_url(url: str | None, now: datetime | None = None) -> str | None:
    """A publish day encoded in a URL path (/2024/05/03/, /20240503/,
    2024-05-03); a year and month alone give the first of the month."""
    if not url:
        return None
    path = url.split("://", 1)[-1].partition("/")[2]
    m = _URL_DATE.search(path)
    if m:
        value = _valid(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    else:
        m = _URL_MONTH.search("/" + path)
        value = _valid(int(m.group(1)), int(m.group(2)), 1) if m else None
    if value is None or not _not_future(value, now):
        return None
    return value.date().isoformat()
