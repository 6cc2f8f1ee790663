"""Exact and near-duplicate articles, linked to their original.

Runs after extraction (600), before the store. For an item with cleaned
text: the same text already stored under another URL makes it an exact
duplicate; a MinHash estimate of Jaccard similarity at or above
``SITESIFT_DEDUP_NEAR_THRESHOLD`` against an original found through LSH band
keys makes it a near-duplicate (syndicated or lightly edited copies, Chinese
included). Either way ``item.duplicate_of`` names the original; the store
links it rather than storing the text twice. Nothing is dropped: the page
row and the link are kept. Unchanged text at the same URL is left to the
store, which then writes no new version.

In a distributed crawl the workers share duplicates through Redis: the first
worker to process a text claims its hash (HSETNX), and an original's MinHash
signature and band keys are claimed in one script, so copies handled by two
workers before either is stored still get one original.

The hashing runs in the crawl's worker thread (pipelines/offload.py); the
lookups and the index stay in the reactor thread.
"""

from __future__ import annotations

import logging
from collections import defaultdict, deque
from dataclasses import dataclass

from scrapy import Spider
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from sqlalchemy import Engine, select
from sqlalchemy.exc import DBAPIError

from crawler.distributed import SharedState, shared_state
from crawler.items import Outcome, PageItem
from extractors.minhash import (
    MinHashParams,
    band_keys,
    jaccard,
    normalize_text,
    pack,
    signature,
    text_hash,
    unpack,
)

from .offload import off_reactor
from .schema import article_bands, articles, connect, error_line

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class DedupConfig:
    db_url: str
    # Estimated Jaccard similarity of word / CJK-character 3-shingles at or
    # above which a text is a near-duplicate. 0.5 is the LSH curve's midpoint
    # (extractors/minhash.py); light edits measure 0.8, unrelated texts 0.0-0.1.
    near_threshold: float = 0.5
    minhash: MinHashParams = MinHashParams()

    @classmethod
    def from_settings(cls, s) -> DedupConfig:  # noqa: ANN001 - scrapy Settings
        threshold = s.getfloat("SITESIFT_DEDUP_NEAR_THRESHOLD", 0.5)
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"SITESIFT_DEDUP_NEAR_THRESHOLD must be in (0, 1], got {threshold}")
        shingle = s.getint("SITESIFT_DEDUP_SHINGLE", MinHashParams.shingle)
        return cls(s.get("SITESIFT_DB"), threshold, MinHashParams(shingle=shingle))


@dataclass(frozen=True, slots=True)
class Fingerprint:
    """A text's exact hash, MinHash signature (None: too short to shingle)
    and LSH band keys."""

    digest: str
    sig: tuple[int, ...] | None
    keys: list[int]


def fingerprint(text: str, params: MinHashParams) -> Fingerprint | None:
    """Pure: safe to run in a worker thread. None for a text with no words."""
    normalized = normalize_text(text)
    if not normalized:
        return None
    sig = signature(text, params)
    return Fingerprint(text_hash(text, normalized), sig, band_keys(sig, params) if sig else [])


class Index:
    """This run's recent originals, for duplicates not yet flushed to the
    database. Bounded: older entries are in the database by then (the store
    flushes every ``SITESIFT_STORE_BATCH`` items)."""

    def __init__(self, limit: int = 10_000) -> None:
        self.limit = limit
        self.by_hash: dict[str, str] = {}
        self.by_key: dict[int, set[str]] = defaultdict(set)
        self.signatures: dict[str, bytes] = {}
        self._order: deque[tuple[str, str, tuple[int, ...]]] = deque()

    def add(self, url: str, digest: str, sig: tuple[int, ...] | None, keys: list[int]) -> None:
        self.by_hash.setdefault(digest, url)
        if sig is not None:
            self.signatures[url] = pack(sig)
            for key in keys:
                self.by_key[key].add(url)
        self._order.append((url, digest, tuple(keys)))
        while len(self._order) > self.limit:
            self._evict(*self._order.popleft())

    def _evict(self, url: str, digest: str, keys: tuple[int, ...]) -> None:
        if self.by_hash.get(digest) == url:
            del self.by_hash[digest]
        self.signatures.pop(url, None)
        for key in keys:
            urls = self.by_key.get(key)
            if urls is not None:
                urls.discard(url)
                if not urls:
                    del self.by_key[key]

    def candidates(self, url: str, keys: list[int]) -> dict[str, tuple[int, ...]]:
        found = {}
        for key in keys:
            for other in self.by_key.get(key, ()):
                if other != url and other in self.signatures:
                    found[other] = unpack(self.signatures[other])
        return found


class DedupPipeline:
    def __init__(self, crawler: Crawler, config: DedupConfig) -> None:
        self.crawler = crawler
        self.config = config
        self.engine: Engine | None = None
        self.index = Index()
        # A distributed crawl's text and signature claims in Redis, shared by its workers.
        self.shared: SharedState | None = shared_state(crawler.settings)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> DedupPipeline:
        if not crawler.settings.getbool("SITESIFT_DEDUP_ENABLED", True):
            raise NotConfigured("SITESIFT_DEDUP_ENABLED is off")
        return cls(crawler, DedupConfig.from_settings(crawler.settings))

    def open_spider(self, spider: Spider | None = None) -> None:
        self.engine = connect(self.config.db_url)

    def close_spider(self, spider: Spider | None = None) -> None:
        if self.engine is not None:
            self.engine.dispose()

    async def process_item(self, item: PageItem, spider: Spider | None = None) -> PageItem:
        """Hash the text in the crawl's worker thread (MinHash costs ~0.1 s per
        megabyte of text), then look it up here, in the reactor thread, where
        the index is only ever touched."""
        if self._applies(item):
            fp = await off_reactor(self.crawler, fingerprint, item.text, self.config.minhash)
            self._mark(item, fp)
        return item

    def check(self, item: PageItem) -> PageItem:
        """:meth:`process_item` without the worker thread (tools, tests)."""
        if self._applies(item):
            self._mark(item, fingerprint(item.text, self.config.minhash))
        return item

    @staticmethod
    def _applies(item: PageItem) -> bool:
        return bool(item.outcome is Outcome.OK and item.text and item.page_type != "list")

    def _mark(self, item: PageItem, fp: Fingerprint | None) -> None:
        if fp is None:
            return
        item.text_hash, item.minhash = fp.digest, list(fp.sig) if fp.sig else None
        original, kind = self.find_original(item.url, fp)
        if original:
            item.duplicate_of = original
            self.crawler.stats.inc_value(f"sitesift/dedup/{kind}")

    def find_original(self, url: str, fp: Fingerprint) -> tuple[str | None, str]:
        """(the original's URL, "exact" | "near"), or (None, "") for an original."""
        original = self._exact(url, fp.digest)
        if original:
            return original, "exact"
        if fp.sig is not None:
            original = self._near(url, fp.sig, fp.keys)
            if original:
                return original, "near"
        self.index.add(url, fp.digest, fp.sig, fp.keys)
        return None, ""

    def _exact(self, url: str, digest: str) -> str | None:
        seen = self.index.by_hash.get(digest)
        if seen and seen != url:
            return seen
        query = (
            select(articles.c.url)
            .where(articles.c.text_hash == digest, articles.c.url != url)
            .where(articles.c.duplicate_of.is_(None))
            .order_by(articles.c.first_seen, articles.c.id)
            .limit(1)
        )
        original = self._db(lambda conn: conn.execute(query).scalar())
        if original or self.shared is None:
            return original
        owner = self.shared.claim_text(digest, url)
        return owner if owner != url else None

    def _near(self, url: str, sig: tuple[int, ...], keys: list[int]) -> str | None:
        candidates = self.index.candidates(url, keys)
        query = (
            select(articles.c.url, articles.c.minhash)
            .join(article_bands, article_bands.c.url == articles.c.url)
            .where(article_bands.c.key.in_(keys), articles.c.url != url)
            .where(articles.c.duplicate_of.is_(None), articles.c.minhash.is_not(None))
            .distinct()
        )
        rows = self._db(lambda conn: conn.execute(query).all()) or []
        for other, blob in rows:
            candidates.setdefault(other, unpack(blob))
        best, score = None, 0.0
        for other, their_sig in sorted(candidates.items()):
            similarity = jaccard(sig, their_sig)
            if similarity > score:
                best, score = other, similarity
        if score >= self.config.near_threshold:
            return best
        if self.shared is None:
            return None
        owner = self.shared.claim_near(url, pack(sig), keys, self.config.near_threshold)
        return owner if owner != url else None

    def _db(self, read):  # noqa: ANN001, ANN202
        """Run a read; a database that went away only disables the lookup."""
        if self.engine is None:
            return None
        try:
            with self.engine.connect() as conn:
                return read(conn)
        except DBAPIError as exc:
            self.crawler.stats.inc_value("sitesift/dedup/db_unavailable")
            logger.warning("dedup lookup skipped, database unavailable: %s", error_line(exc))
            return None
