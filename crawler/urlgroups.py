"""URL groups: pages of one site section that share a template.

Seed: layout-similarity extraction (layout-similarity-extraction.zh.md, 3.1).
Pages of one site, one section and one kind share a template, and their URLs
are alike: similarity = common leading directory levels / the larger number of
levels (or, for equal directories, equal query pairs / the larger number of
pairs). ``url_similarity`` is that measure.

``URLGrouper`` learns groups online. Each URL becomes a pattern of slots, one
per path segment and query pair, abstracted by shape (``{n}`` digits,
``{date}``, ``{id}`` hashes and mixed ids, ``{slug}`` multi-word titles;
extensions, section names and query keys kept). Pagination is folded into the
page it paginates, so a section's list pages form one group. A URL joins the
group with its exact pattern, else the most similar group of its host whose
slots agree in shape when the seed measure on patterns reaches
``min_similarity``, else starts a group. Literal slots that keep taking new
values under one parent (tags, wiki titles, single-word slugs) are learned to
be variable after ``literal_fanout`` values and their groups merged.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import unquote

from crawler.urls import canonicalize_url, host_of

__all__ = ["PAGINATION_KEYS", "GroupParams", "URLGrouper", "url_pattern", "url_similarity"]


@dataclass(frozen=True)
class GroupParams:
    """Thresholds of URL grouping. The seed publishes only the similarity
    measure; the values below were set by the rules written beside them and
    checked on the hand-written URL sets in tests/test_urlgroups.py."""

    # Seed measure on patterns needed to merge two patterns whose slots differ
    # only in the kind of variable ({n} vs {id}...). 0.5 = at least half of the
    # directory levels, counted from the root, are equal: the seed's "close to
    # 1" with one varying level in two.
    min_similarity: float = 0.5
    # Distinct literal values seen in one slot under the same parent before the
    # slot is taken as variable. Sections of a site are a handful; tags, wiki
    # titles and one-word slugs run to hundreds. 10 sits between.
    literal_fanout: int = 10
    # The first path level names the section (seed: "same channel"), so it is
    # never learned as variable unless this is set.
    learn_first_level: bool = False
    # A first-level directory of up to this many words is a section name
    # ("real-estate"); more words is a post title ("how-to-cook-rice").
    section_max_words: int = 2
    # A single word longer than this (UTF-8 bytes: 8 Chinese characters) is a
    # title or an id, not a section or file name.
    max_literal_bytes: int = 24
    # Hex runs at least this long are hashes/ids (md5 is 32, short git ids 7-12).
    hex_min_len: int = 16
    # Trap guard: beyond this many groups a host's new patterns share one group.
    max_groups_per_host: int = 2000


# Query keys whose numeric value only picks a page of the same list. ``p`` is
# left out: WordPress uses ``?p=123`` for a post.
PAGINATION_KEYS: frozenset[str] = frozenset(
    {
        "page", "pg", "paged", "pageno", "page_no", "pagenum", "pagenumber", "pn",
        "start", "offset", "curpage", "currentpage", "pageindex", "page_index", "pagenow",
    }
)  # fmt: skip

_VARS = ("{n}", "{date}", "{id}", "{slug}")
# Variable kinds that may stand for one another, and the broader one they become.
_MERGED_KIND = {
    frozenset({"{n}", "{date}"}): "{n}",
    frozenset({"{n}", "{id}"}): "{id}",
    frozenset({"{date}", "{id}"}): "{id}",
    frozenset({"{id}", "{slug}"}): "{slug}",
}
_INVALID_KEY = "(invalid)/"
_OVERFLOW = "{other}"

_DATE_RE = re.compile(r"(?:19|20)\d\d([-_]?)(?:0[1-9]|1[0-2])\1(?:0[1-9]|[12]\d|3[01])")
_UUID_RE = re.compile(r"[0-9a-fA-F]{8}-?(?:[0-9a-fA-F]{4}-?){3}[0-9a-fA-F]{12}")
_HEX_RE = re.compile(r"[0-9a-fA-F]+")
_EXT_RE = re.compile(r"(.+?)(\.[A-Za-z][A-Za-z0-9]{0,4})")
_SPLIT_RE = re.compile(r"([-_.+~,\s]+)")
_DIGITS_RE = re.compile(r"[0-9]+")
# Escaped in group keys: the pattern syntax, and control characters (a key is
# printed to terminals; %1B would otherwise decode to a raw ESC).
_ESCAPE_RE = re.compile(r"[%/?&=#{}\s\x00-\x1f\x7f-\x9f]")
_PAGED_LEAF_RE = re.compile(r"(index|default|list)(?:[_-]\d+)?(\.[A-Za-z][A-Za-z0-9]{0,4})?", re.I)


def url_similarity(a: str, b: str) -> float:
    """The seed's URL similarity in [0, 1]; 0 for different hosts or unusable URLs."""
    ca, cb = canonicalize_url(a), canonicalize_url(b)
    if ca is None or cb is None or host_of(ca) != host_of(cb):
        return 0.0
    (path_a, query_a), (path_b, query_b) = _path_query(ca), _path_query(cb)
    return _seed_similarity(
        path_a.split("/")[1:-1],
        path_b.split("/")[1:-1],
        query_a.split("&") if query_a else [],
        query_b.split("&") if query_b else [],
    )


def _seed_similarity(
    dirs_a: list[str], dirs_b: list[str], pairs_a: list[str], pairs_b: list[str]
) -> float:
    """cl / max(la, lb): directory levels from the root, or query pairs when
    the directories are the same."""
    if dirs_a == dirs_b:
        if not pairs_a and not pairs_b:
            return 1.0
        return len(set(pairs_a) & set(pairs_b)) / max(len(set(pairs_a)), len(set(pairs_b)))
    common = 0
    for left, right in zip(dirs_a, dirs_b, strict=False):
        if left != right:
            break
        common += 1
    return common / max(len(dirs_a), len(dirs_b))


def url_pattern(url: str, params: GroupParams | None = None) -> str:
    """The group key ``url`` would get from its shape alone (before any learning)."""
    host, pattern = _abstract(url, params or GroupParams())
    return _render(host, pattern) if host else _INVALID_KEY


@dataclass
class _Group:
    key: str
    host: str
    pattern: tuple[str, ...]
    count: int = 0


class URLGrouper:
    """Online URL-pattern groups per host; see the module docstring."""

    def __init__(self, params: GroupParams | None = None) -> None:
        self.params = params or GroupParams()
        self._groups: dict[str, _Group] = {}
        self._by_pattern: dict[tuple[str, tuple[str, ...]], str] = {}
        self._aliases: dict[str, str] = {}
        self._fanout: dict[str, dict[str, list[str]]] = {}
        self._learned: dict[str, set[str]] = {}
        self._hosts: dict[str, int] = {}
        self._shelves: dict[tuple[str, int], set[str]] = {}  # live keys by host, length

    def group(self, url: str) -> str:
        """Assign ``url`` to a group (learning from it) and return the group key."""
        host, pattern = _abstract(url, self.params)
        if not host:
            return self._count(_INVALID_KEY, "", ())
        pattern = self._apply_learned(host, pattern)
        key = self._by_pattern.get((host, pattern))
        if key is None:
            key = self._join_similar(host, pattern)
        if key is None:
            key = self._new_group(host, pattern)
        return self._count(self._resolve(key), host, pattern)

    def groups(self) -> dict[str, int]:
        """Group key -> number of URLs assigned to it so far."""
        return {key: group.count for key, group in self._groups.items()}

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe state, so that several workers can share what was learned."""
        return {
            "params": asdict(self.params),
            "groups": [
                {"key": g.key, "host": g.host, "pattern": list(g.pattern), "count": g.count}
                for g in self._groups.values()
            ],
            "patterns": [
                {"host": host, "pattern": list(pattern), "key": key}
                for (host, pattern), key in self._by_pattern.items()
            ],
            "aliases": dict(self._aliases),
            "fanout": {host: dict(sigs) for host, sigs in self._fanout.items()},
            "learned": {host: sorted(sigs) for host, sigs in self._learned.items()},
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> URLGrouper:
        """Rebuild a grouper from ``to_dict()`` output."""
        grouper = cls(GroupParams(**data.get("params", {})))
        for item in data.get("groups", []):
            group = _Group(item["key"], item["host"], tuple(item["pattern"]), int(item["count"]))
            grouper._add(group)
        for item in data.get("patterns", []):
            grouper._by_pattern[(item["host"], tuple(item["pattern"]))] = item["key"]
        grouper._aliases = dict(data.get("aliases", {}))
        fanout = data.get("fanout", {})
        grouper._fanout = {h: {s: list(v) for s, v in sigs.items()} for h, sigs in fanout.items()}
        grouper._learned = {host: set(sigs) for host, sigs in data.get("learned", {}).items()}
        return grouper

    # -- assignment -------------------------------------------------------------

    def _count(self, key: str, host: str, pattern: tuple[str, ...]) -> str:
        group = self._groups.get(key) or self._add(_Group(key, host, pattern))
        group.count += 1
        return key

    def _add(self, group: _Group) -> _Group:
        self._groups[group.key] = group
        self._hosts[group.host] = self._hosts.get(group.host, 0) + 1
        self._shelves.setdefault((group.host, len(group.pattern)), set()).add(group.key)
        return group

    def _remove(self, group: _Group) -> None:
        del self._groups[group.key]
        self._hosts[group.host] -= 1
        self._shelves[(group.host, len(group.pattern))].discard(group.key)

    def _shelf(self, host: str, length: int) -> list[_Group]:
        """Live groups of ``host`` with ``length`` slots, in key order (not arrival order)."""
        keys = self._shelves.get((host, length), set())
        return sorted((self._groups[key] for key in keys), key=lambda g: g.key)

    def _resolve(self, key: str) -> str:
        while key in self._aliases:
            key = self._aliases[key]
        return key

    def _join_similar(self, host: str, pattern: tuple[str, ...]) -> str | None:
        """The most similar group whose slots agree in shape, if similar enough."""
        best: tuple[float, int, _Group] | None = None
        for group in self._shelf(host, len(pattern)):
            if _merge_patterns(group.pattern, pattern) is None:
                continue
            score = _pattern_similarity(group.pattern, pattern)
            if score >= self.params.min_similarity and (
                best is None or (score, group.count) > best[:2]
            ):
                best = (score, group.count, group)
        if best is None:
            return None
        group = best[2]
        group.pattern = _merge_patterns(group.pattern, pattern) or group.pattern
        self._by_pattern[(host, group.pattern)] = group.key
        self._by_pattern[(host, pattern)] = group.key
        return group.key

    def _new_group(self, host: str, pattern: tuple[str, ...]) -> str:
        if self._hosts.get(host, 0) >= self.params.max_groups_per_host:
            key = f"{host}/{_OVERFLOW}"
            if key not in self._groups:
                self._add(_Group(key, host, (_OVERFLOW,)))
            return key
        key = _render(host, pattern)
        self._add(_Group(key, host, pattern))
        self._by_pattern[(host, pattern)] = key
        self._learn(host, pattern)
        return self._resolve(key)

    # -- learning variable literals -------------------------------------------

    def _learnable(self, pattern: tuple[str, ...], index: int) -> bool:
        slot = pattern[index]
        if not _is_literal(slot) or slot in ("", "?"):
            return False
        return index > 0 or self.params.learn_first_level or slot.startswith("?")

    def _apply_learned(self, host: str, pattern: tuple[str, ...]) -> tuple[str, ...]:
        learned = self._learned.get(host)
        if not learned:
            return pattern
        for index in range(len(pattern)):
            if self._learnable(pattern, index) and _signature(pattern, index) in learned:
                pattern = _generalized(pattern, index)
        return pattern

    def _learn(self, host: str, pattern: tuple[str, ...]) -> None:
        fanout = self._fanout.setdefault(host, {})
        for index in range(len(pattern)):
            if not self._learnable(pattern, index):
                continue
            signature = _signature(pattern, index)
            values = fanout.setdefault(signature, [])
            if pattern[index] not in values:
                values.append(pattern[index])
            if len(values) >= self.params.literal_fanout:
                del fanout[signature]
                self._learned.setdefault(host, set()).add(signature)
                self._fold(host, signature, index, len(pattern))
                return

    def _fold(self, host: str, signature: str, index: int, length: int) -> None:
        """Merge the groups whose slot ``index`` is a literal of ``signature``."""
        for group in self._shelf(host, length):
            pattern = group.pattern
            if not self._learnable(pattern, index) or _signature(pattern, index) != signature:
                continue
            general = _generalized(pattern, index)
            known = self._by_pattern.get((host, general), _render(host, general))
            target_key = self._resolve(known)
            if target_key not in self._groups:
                self._add(_Group(target_key, host, general))
            self._by_pattern[(host, general)] = target_key
            if target_key == group.key:
                continue
            self._groups[target_key].count += group.count
            self._aliases[group.key] = target_key
            self._remove(group)


# -- patterns ----------------------------------------------------------------------


def _abstract(url: str, params: GroupParams) -> tuple[str, tuple[str, ...]]:
    """(host, slots) for ``url``; host is "" when the URL is unusable."""
    canonical = canonicalize_url(url)
    if canonical is None:
        return "", ()
    path, query = _path_query(canonical)
    segments = _fold_path_pagination([unquote(s, errors="replace") for s in path.split("/")[1:]])
    slots = [
        _segment_shape(segment, index, is_dir=index < len(segments) - 1, params=params)
        for index, segment in enumerate(segments)
    ]
    return host_of(canonical), tuple(slots) + _query_slots(query, params)


def _path_query(canonical: str) -> tuple[str, str]:
    after_host = canonical.split("//", 1)[1]
    slash = after_host.find("/")
    path_query = after_host[slash:] if slash >= 0 else "/"
    path, _, query = path_query.partition("?")
    return path, query


def _fold_path_pagination(segments: list[str]) -> list[str]:
    """``/news/page/2/``, ``/news/index_2.html``, ``/news/index.html`` -> ``/news/``."""
    if len(segments) >= 3 and segments[-1] == "" and _is_page(segments[-3], segments[-2]):
        segments = segments[:-3] + [""]
    elif len(segments) >= 2 and _is_page(segments[-2], segments[-1]):
        segments = segments[:-2] + [""]
    match = _PAGED_LEAF_RE.fullmatch(segments[-1])
    if match:
        word = match.group(1).lower()
        segments[-1] = "" if word in ("index", "default") else word + (match.group(2) or "")
    return segments


def _is_page(word: str, number: str) -> bool:
    return word.lower() == "page" and number.isascii() and number.isdigit()


def _segment_shape(segment: str, index: int, *, is_dir: bool, params: GroupParams) -> str:
    match = _EXT_RE.fullmatch(segment) if not is_dir else None
    stem, ext = (match.group(1), match.group(2).lower()) if match else (segment, "")
    keep_words = index == 0 and is_dir
    return _shape(stem, params, keep_words=keep_words) + _escape(ext)


def _query_slots(query: str, params: GroupParams) -> tuple[str, ...]:
    slots: set[str] = set()
    for pair in query.split("&") if query else []:
        key, _, value = pair.partition("=")
        key, value = unquote(key, errors="replace"), unquote(value, errors="replace")
        if key.lower() in PAGINATION_KEYS and value.isascii() and value.isdigit():
            continue
        slots.add(f"?{_escape(key)}={_shape(value, params, keep_words=False)}")
    return tuple(sorted(slots))


def _shape(text: str, params: GroupParams, *, keep_words: bool) -> str:
    """The shape of one path segment (without extension) or query value."""
    if not text:
        return ""
    if text.isascii() and text.isdigit():
        return "{date}" if _DATE_RE.fullmatch(text) else "{n}"
    if _DATE_RE.fullmatch(text):
        return "{date}"
    if _UUID_RE.fullmatch(text) or _is_hex_id(text, params):
        return "{id}"
    parts = _SPLIT_RE.split(text)
    words = [part for part in parts[::2] if part.isalpha()]
    limit = params.section_max_words if keep_words else 1
    if len(words) > limit:
        return "{slug}"
    shaped = "".join(
        _token_shape(part) if i % 2 == 0 else _escape(part) for i, part in enumerate(parts)
    )
    if _is_literal(shaped) and len(text.encode("utf-8", "replace")) > params.max_literal_bytes:
        return "{slug}"
    return shaped


def _is_hex_id(text: str, params: GroupParams) -> bool:
    return (
        len(text) >= params.hex_min_len
        and bool(_HEX_RE.fullmatch(text))
        and not text.isdigit()
        and not text.isalpha()
    )


def _token_shape(token: str) -> str:
    """Digits -> {n}; a mixed token with one number keeps its letters
    (``c1001`` -> ``c{n}``); with more numbers it is an id (``BV1xx411c7mD``)."""
    if not token:
        return ""
    runs = _DIGITS_RE.findall(token) if token.isascii() else []
    if not runs:
        return _escape(token)
    if token.isdigit():
        return "{n}"
    if len(runs) >= 2:
        return "{id}"
    # A private-use character holds the digits' place through the escaping.
    return _escape(_DIGITS_RE.sub("\ue000", token)).replace("\ue000", "{n}")


def _escape(text: str) -> str:
    """Keep literal text from looking like a variable or a separator in a key."""
    return _ESCAPE_RE.sub(lambda m: "".join(f"%{b:02X}" for b in m.group().encode()), text)


def _is_literal(slot: str) -> bool:
    return "{" not in slot


def _split_slot(slot: str) -> tuple[str, str]:
    """(stem, extension) of a path slot, or (value, "?key=") of a query slot."""
    if slot.startswith("?"):
        key, _, value = slot.partition("=")
        return value, key + "="
    match = _EXT_RE.fullmatch(slot)
    return (match.group(1), match.group(2)) if match else (slot, "")


def _signature(pattern: tuple[str, ...], index: int) -> str:
    """The pattern with slot ``index`` blanked: siblings under one parent share it."""
    _, suffix = _split_slot(pattern[index])
    blanked = pattern[:index] + (f"*{suffix}",) + pattern[index + 1 :]
    return "\x1f".join(blanked)


def _generalized(pattern: tuple[str, ...], index: int) -> tuple[str, ...]:
    _, suffix = _split_slot(pattern[index])
    slot = f"{suffix}{{slug}}" if suffix.startswith("?") else f"{{slug}}{suffix}"
    return pattern[:index] + (slot,) + pattern[index + 1 :]


def _merge_patterns(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...] | None:
    """Slot-wise union when every slot is equal or a compatible variable; else None."""
    merged: list[str] = []
    for left, right in zip(a, b, strict=True):
        if left == right:
            merged.append(left)
            continue
        (stem_l, suffix_l), (stem_r, suffix_r) = _split_slot(left), _split_slot(right)
        kind = _MERGED_KIND.get(frozenset({stem_l, stem_r}))
        if suffix_l != suffix_r or kind is None:
            return None
        merged.append(f"{suffix_l}{kind}" if suffix_l.startswith("?") else f"{kind}{suffix_l}")
    return tuple(merged)


def _pattern_similarity(a: tuple[str, ...], b: tuple[str, ...]) -> float:
    """The seed measure on patterns: directories, then query slots."""
    path_a = [slot for slot in a if not slot.startswith("?")]
    path_b = [slot for slot in b if not slot.startswith("?")]
    query_a = [slot for slot in a if slot.startswith("?")]
    query_b = [slot for slot in b if slot.startswith("?")]
    return _seed_similarity(path_a[:-1], path_b[:-1], query_a, query_b)


def _render(host: str, pattern: tuple[str, ...]) -> str:
    path = [slot for slot in pattern if not slot.startswith("?")]
    query = [slot[1:] for slot in pattern if slot.startswith("?")]
    return f"{host}/" + "/".join(path) + ("?" + "&".join(query) if query else "")
