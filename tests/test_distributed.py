"""A crawl shared by several worker processes through the real Redis, storing
into the real PostgreSQL, against a 1,051-page local site over real HTTP.

Every page ends up stored once and fetched once across the workers; a worker
killed with SIGKILL mid-way loses nothing (its in-flight pages go back to the
queue when its heartbeat expires and the survivor fetches them); a worker
started after the crawl is under way takes a share of the frontier.
Redis restarts: tests/test_faults_redis.py.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
import redis
from sqlalchemy import func, select

from benchmarks.metrics import lcs_prf
from crawler.distributed import Keys, crawl_status
from demo.server import DemoWeb
from demo.synthetic import SyntheticParams, SyntheticSite
from pipelines.schema import connect, crawl_runs, pages
from tests.dbtools import pg_schema_url

ARTICLES = 1000
FAST = ["-L", "WARNING", "-s", "AUTOTHROTTLE_ENABLED=False", "-s", "DOWNLOAD_DELAY=0",
        "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=8", "-s", "SITESIFT_SCREENSHOTS=none",
        "-s", "SITESIFT_EXTRACT_ENABLED=False", "-s", "SITESIFT_CLASSIFY_ENABLED=False",
        "-s", "SITESIFT_PROGRESS_INTERVAL=0"]  # fmt: skip


@pytest.fixture
def web() -> DemoWeb:
    with DemoWeb((), synthetic_pages=ARTICLES) as demo:
        yield demo


@pytest.fixture
def db_url(request: pytest.FixtureRequest) -> str:
    return pg_schema_url(request)


def expected_paths(articles: int = ARTICLES) -> set[str]:
    """Every page path of the synthetic site of ``articles`` articles."""
    site = SyntheticSite(SyntheticParams(articles))
    paths = {"/"}
    for section in site.sections:
        paths |= {site.list_path(section, n) for n in range(1, site.list_pages(section) + 1)}
        paths |= {site.article_path(section, i) for i in site.section_ids(section)}
    return paths


def crawl_cmd(sites: Path, db_url: str, redis_url: str, crawl: str, *extra: str) -> list[str]:
    return [sys.executable, "-m", "crawler.cli", "crawl", str(sites), "--db", db_url,
            "--redis", redis_url, "--crawl-id", crawl, *FAST, *extra]  # fmt: skip


def site_list(tmp_path: Path, web: DemoWeb) -> Path:
    sites = tmp_path / "sites.txt"
    sites.write_text(f"{web.urls['synthetic']} max_pages=5000 depth=100\n")
    return sites


def stored(db_url: str, base: str) -> dict[str, tuple[str, int]]:
    engine = connect(db_url)
    with engine.connect() as conn:
        rows = conn.execute(select(pages.c.url, pages.c.outcome, pages.c.fetch_count)).all()
    engine.dispose()
    return {url.removeprefix(base.rstrip("/")): (outcome, count) for url, outcome, count in rows}


def page_requests(web: DemoWeb) -> Counter[str]:
    skip = ("/robots.txt", "/sitemap.xml")
    return Counter(p for p in web.requested_paths("synthetic") if p not in skip)


@pytest.mark.parametrize("workers", [2, 4])
def test_workers_share_one_frontier(
    workers: int, tmp_path: Path, web: DemoWeb, db_url: str, redis_url: str, crawl_id: str
) -> None:
    feed = tmp_path / "items.jsonl"
    feed.write_text('{"url": "from an earlier crawl"}\n')  # -O replaces it
    cmd = crawl_cmd(
        site_list(tmp_path, web), db_url, redis_url, crawl_id, "--workers", str(workers),
        "-O", str(feed),
    )  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    # one line of their counts together (fetched: robots.txt and sitemaps too)
    together = re.search(r"(\d+) workers together: fetched (\d+), stored (\d+), failed (\d+)",
                         done.stderr)  # fmt: skip
    assert together, done.stderr[-2000:]
    assert int(together[1]) == workers and int(together[2]) >= len(expected_paths())
    assert (int(together[3]), int(together[4])) == (len(expected_paths()), 0)
    # every worker wrote a file of its own, joined into the one asked for:
    # not N processes overwriting one file (half lines, items lost)
    items = [json.loads(line) for line in feed.read_text().splitlines()]
    base = web.urls["synthetic"].rstrip("/")
    assert sorted(i["url"].removeprefix(base) for i in items) == sorted(expected_paths())
    assert not list(tmp_path.glob("items.jsonl.*"))  # the parts are gone

    rows = stored(db_url, web.urls["synthetic"])
    assert set(rows) == expected_paths()
    assert {outcome for outcome, _ in rows.values()} == {"ok"}
    assert {count for _, count in rows.values()} == {1}  # stored once each
    requests = page_requests(web)
    assert set(requests) == expected_paths()
    assert max(requests.values()) == 1  # and fetched once across all workers

    engine = connect(db_url)
    with engine.connect() as conn:
        runs = conn.execute(select(func.count()).select_from(crawl_runs)).scalar_one()
        groups = dict(conn.execute(select(pages.c.url, pages.c.url_group)).all())
    engine.dispose()
    assert runs == workers  # every worker did its share and recorded its run
    # URL groups agree across workers: one per section's articles, one per section's lists.
    by_kind: dict[tuple[str, str], set[str]] = {}
    for url, group in groups.items():
        path = url.removeprefix(web.urls["synthetic"].rstrip("/"))
        kind = "article" if path.endswith(".html") else "list"
        by_kind.setdefault((path.split("/")[1], kind), set()).add(group)
    assert all(len(g) == 1 for g in by_kind.values()), by_kind
    assert len(set(groups.values())) == len(by_kind)
    [status] = [c for c in crawl_status(redis_url) if c["crawl"] == crawl_id]
    assert status["finished"] and status["queued"] == 0
    assert len(status["workers"]) == workers
    assert sum(w["stored"] for w in status["workers"]) == len(expected_paths())


def test_a_killed_worker_loses_nothing(
    tmp_path: Path, web: DemoWeb, db_url: str, redis_url: str, crawl_id: str
) -> None:
    sites = site_list(tmp_path, web)
    # A short heartbeat timeout so the survivor notices the dead worker quickly.
    # Items wait up to 5 s in the store's buffer: the victim dies with pages in flight.
    slow_store = ["-s", "SITESIFT_STORE_BATCH=50", "-s", "SITESIFT_STORE_FLUSH_SECONDS=5"]
    cmd = crawl_cmd(sites, db_url, redis_url, crawl_id, "-s", "SITESIFT_WORKER_TIMEOUT=4",
                    *slow_store)  # fmt: skip
    victim = subprocess.Popen(cmd, cwd=tmp_path, stderr=subprocess.DEVNULL)
    survivor = subprocess.Popen(
        cmd, cwd=tmp_path, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        # Kill the victim mid-crawl while it holds pages in flight.
        server = redis.Redis.from_url(redis_url)
        inflight = Keys(crawl_id).inflight(f"*-{victim.pid}-*")
        deadline = time.monotonic() + 120
        while len(stored(db_url, web.urls["synthetic"])) < 300 or not any(
            server.hlen(key) for key in server.scan_iter(inflight)
        ):
            assert time.monotonic() < deadline, "the crawl made no progress"
            assert victim.poll() is None, "the victim finished before it could be killed"
            time.sleep(0.1)
        victim.send_signal(signal.SIGKILL)
        victim.wait()
        _, err = survivor.communicate(timeout=300)
    finally:
        for proc in (victim, survivor):
            if proc.poll() is None:
                proc.kill()
    assert survivor.returncode == 0, err[-3000:]
    assert "queued again" in err  # the survivor took over the victim's in-flight pages

    rows = stored(db_url, web.urls["synthetic"])
    assert set(rows) == expected_paths()  # nothing lost
    assert {outcome for outcome, _ in rows.values()} == {"ok"}
    # Pages the victim had in flight or unstored were fetched again, not the
    # whole site. How many depends on the moment of the kill (the victim's
    # scheduled, downloading and buffered pages): 38 to 122 in three runs on
    # a quiet machine, 214 and 398 in two CI runs; so the bound is half the site.
    refetched = sum(1 for n in page_requests(web).values() if n > 1)
    assert refetched <= len(expected_paths()) // 2


def test_a_worker_joining_late_picks_up_the_frontier(
    tmp_path: Path, web: DemoWeb, db_url: str, redis_url: str, crawl_id: str
) -> None:
    """One worker starts alone; a second joins (same --crawl-id) once pages are
    stored: both store pages, and every page is stored once, fetched once."""
    slower = ["-s", "CONCURRENT_REQUESTS_PER_DOMAIN=2"]  # so the crawl outlasts the join
    cmd = crawl_cmd(site_list(tmp_path, web), db_url, redis_url, crawl_id, *slower)
    first = subprocess.Popen(cmd, cwd=tmp_path, stderr=subprocess.PIPE, text=True)
    late = None
    try:
        deadline = time.monotonic() + 120
        while len(stored(db_url, web.urls["synthetic"])) < 100:
            assert time.monotonic() < deadline, "the crawl made no progress"
            assert first.poll() is None, "the first worker ended too soon"
            time.sleep(0.1)
        late = subprocess.Popen(cmd, cwd=tmp_path, stderr=subprocess.PIPE, text=True)
        errs = [proc.communicate(timeout=600)[1] for proc in (first, late)]
    finally:
        for proc in (first, late):
            if proc is not None and proc.poll() is None:
                proc.kill()
    assert first.returncode == 0, errs[0][-3000:]
    assert late.returncode == 0, errs[1][-3000:]

    rows = stored(db_url, web.urls["synthetic"])
    assert set(rows) == expected_paths()
    assert {outcome for outcome, _ in rows.values()} == {"ok"}
    assert {count for _, count in rows.values()} == {1}  # stored once each
    assert max(page_requests(web).values()) == 1  # fetched once
    [status] = [c for c in crawl_status(redis_url) if c["crawl"] == crawl_id]
    by_pid = {int(w["worker"].split("-")[-2]): w["stored"] for w in status["workers"]}
    assert by_pid[first.pid] >= 100 and by_pid[late.pid] > 0, by_pid  # both did a share
    assert sum(by_pid.values()) == len(expected_paths())


def test_workers_together_keep_to_a_sites_delay(
    tmp_path: Path, db_url: str, redis_url: str, crawl_id: str
) -> None:
    """Two workers, a 0.4 s delay: the site sees one request per 0.4 s, not two."""
    from tests.local_site import serving

    times: list[float] = []

    def page(path: str) -> str:
        times.append(time.monotonic())
        if path == "/robots.txt":
            return "User-agent: *\nAllow: /\n"
        links = "".join(f'<a href="/p{i}.html">page {i}</a>' for i in range(24))
        return f"<html><body><p>A page.</p>{links}</body></html>"

    with serving(page) as base:
        sites = tmp_path / "sites.txt"
        sites.write_text(f"{base}\n")
        polite = ["-s", "DOWNLOAD_DELAY=0.4", "-s", "DOWNLOAD_DELAY_JITTER=0",
                  "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=1",
                  "-s", "SITESIFT_FOLLOW_SITEMAPS=False"]  # fmt: skip
        cmd = crawl_cmd(sites, db_url, redis_url, crawl_id, *polite, "--workers", "2")
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert len(times) >= 25  # 2 robots.txt, the home page, 24 pages
    gaps = sorted(b - a for a, b in zip(times, times[1:], strict=False))
    # The site's rate: two workers each keeping the delay on their own would
    # make it twice as high (mean gap ~0.2 s). Gaps are timed at the server,
    # after the network and the process scheduler, so one gap may shrink when
    # the request before it was late (0.28 s seen on a loaded machine); the
    # span of the crawl and the median gap may not.
    assert times[-1] - times[0] >= 0.95 * 0.4 * len(gaps), gaps[:5]
    assert gaps[len(gaps) // 2] >= 0.38, gaps
    assert gaps[0] >= 0.2, gaps[:5]


def test_two_workers_extract_as_one_process_does(
    tmp_path: Path, db_url: str, redis_url: str, crawl_id: str
) -> None:
    """The whole pipeline (classify, extract with shared reference pages,
    dedup) under two workers: every demo article carries the body, title,
    date, author and language of its ground truth, as in the one-process
    test (tests/test_pipelines_extract.py), and each page is stored once."""
    from tests.test_pipelines_extract import SITES, WEB, Crawl, _decoded, _norm, _pages

    with DemoWeb(SITES) as web:
        sites = web.write_site_list(tmp_path / "sites.txt")
        workers = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "crawler.cli",
                    "crawl",
                    str(sites),
                    "--db",
                    db_url,
                    "--redis",
                    redis_url,
                    "--crawl-id",
                    crawl_id,
                    "-L",
                    "WARNING",
                    "-s",
                    "DOWNLOAD_DELAY=0",
                    "-s",
                    "AUTOTHROTTLE_START_DELAY=0",
                    "-s",
                    "SITESIFT_SCREENSHOTS=none",
                    "-s",
                    "SITESIFT_PROGRESS_INTERVAL=0",
                    "-O",
                    str(tmp_path / f"items-{i}.jsonl"),
                ],
                cwd=tmp_path,
                stderr=subprocess.PIPE,
                text=True,
            )  # fmt: skip
            for i in range(2)
        ]
        errs = [w.communicate(timeout=600)[1] for w in workers]
        base = dict(web.urls)
    for w, err in zip(workers, errs, strict=True):
        assert w.returncode == 0, err[-3000:]
    items: dict[str, dict] = {}
    for i in range(2):  # on a 50-page web one worker may do it all: sharing is tested above
        lines = (tmp_path / f"items-{i}.jsonl").read_text(encoding="utf-8").splitlines()
        for line in lines:
            item = json.loads(line)
            assert item["url"] not in items, f"{item['url']} stored by both workers"
            items[item["url"]] = item
    expected = {
        s: json.loads((WEB / s / "_expected.json").read_text(encoding="utf-8"))["pages"]
        for s in SITES
    }
    crawl = Crawl(items, expected, base)
    articles = list(_pages(crawl, "article"))
    assert len(articles) >= 20
    scores = []
    for site, path, page in articles:
        item, where = crawl.item(site, path), f"{site}{path}"
        if not _decoded(item, page):
            continue
        assert item["page_type"] == "article", (where, item["method"])
        scores.append(lcs_prf(item["text"] or "", page["body"])[2])
        assert scores[-1] >= 0.8, (where, scores[-1], item["text"][:200])
        assert _norm(item["title"]) == _norm(page["title"]), where
        assert (item["published"] or "")[:10] == page["published"][:10], where
        assert _norm(item["author"]) and _norm(item["author"]) in _norm(page["author"]), where
        assert item["language"] == site
    assert sum(scores) / len(scores) >= 0.95


@pytest.mark.parametrize("case", ["home-unstored", "home-stored", "links-met-first"])
def test_links_claimed_by_a_worker_that_died_before_queueing_them_are_not_lost(
    tmp_path: Path, db_url: str, redis_url: str, crawl_id: str, case: str
) -> None:
    """A worker died after claiming the home page's links (seen set and
    dupefilter) but before queueing them, with the home page in flight. The
    next worker takes the home page over and follows its links past those
    claims: the whole site is stored. (The race that lost a section of the
    site in a killed-worker run, made deterministic.) With ``home-stored``
    the home page is in the database too, as when a worker that gave up on
    Redis flushed it but could not clear its in-flight entry: the refetch
    finds it unchanged and must still follow its links past the claims.
    With ``links-met-first`` a page the dead worker had queued is fetched
    first and meets the same links, claimed by the dead worker: the claims
    it lost must not count as this worker having the links."""
    import pickle
    import urllib.request

    from scrapy import Request
    from scrapy_redis.dupefilter import RFPDupeFilter

    from crawler.urls import canonicalize_url, host_of
    from extractors.document import Document

    articles = 60
    keys, dead = Keys(crawl_id), "deadhost-1-dead"
    server = redis.Redis.from_url(redis_url)
    with DemoWeb((), synthetic_pages=articles) as web:
        home = web.urls["synthetic"]
        host = host_of(home)
        html = urllib.request.urlopen(home, timeout=10).read()
        links = {canonicalize_url(h, base=home) for h in Document(html, url=home).hrefs}
        claimed = {u for u in links if u and host_of(u) == host} | {canonicalize_url(home)}
        fingerprints = RFPDupeFilter(server, keys.dupefilter)
        for url in claimed:  # what the dead worker claimed before it died
            server.hset(keys.seen(host), url, "dead:1")
            server.hset(keys.dupefilter, fingerprints.request_fingerprint(Request(url)), "dead:1")
        # In flight: the home page and the first sections, which all link
        # the same sections (each is to be fetched once, not once per page).
        sections = sorted(u for u in claimed if u != canonicalize_url(home))[:4]
        server.sadd(keys.workers, dead)  # no heartbeat: it is dead

        def entry(url: str, depth: int) -> bytes:
            request = Request(url, meta={"sitesift_site": host, "sitesift_depth": depth,
                                         "download_slot": host}).to_dict()  # fmt: skip
            return pickle.dumps(request | {"callback": "parse", "errback": "fetch_failed"}, -1)

        for n, url in enumerate([home, *sections[:3]], 1):
            server.hset(keys.inflight(dead), str(n), entry(url, int(n > 1)))
        if case == "links-met-first":  # queued: fetched before the in-flight pages come back
            server.zadd(keys.queue, {entry(sections[3], 1): 0})

        sites = tmp_path / "sites.txt"
        if case == "home-stored":  # the home page alone, stored by a plain crawl
            sites.write_text(f"{home} max_pages=1\n")
            first = subprocess.run([sys.executable, "-m", "crawler.cli", "crawl", str(sites),
                                    "--db", db_url, *FAST], capture_output=True, text=True,
                                   timeout=300, cwd=tmp_path)  # fmt: skip
            assert first.returncode == 0, first.stderr[-3000:]
            assert set(stored(db_url, home)) == {"/"}
        sites.write_text(f"{home} max_pages=5000 depth=100\n")
        done = subprocess.run(crawl_cmd(sites, db_url, redis_url, crawl_id), capture_output=True,
                              text=True, timeout=300, cwd=tmp_path)  # fmt: skip
        fetched = page_requests(web)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "4 request(s) it had in flight are queued again" in done.stderr
    assert len(claimed) > 3  # the home page links to the sections
    assert set(stored(db_url, home)) == expected_paths(articles)  # nothing lost
    twice = {path: n for path, n in fetched.items() if n > 1 and path != "/"}
    assert not twice  # the home page: twice when a plain crawl stored it first


def test_ctrl_c_stops_the_workers_gracefully_and_the_same_command_goes_on(
    tmp_path: Path, web: DemoWeb, db_url: str, redis_url: str, crawl_id: str
) -> None:
    """Ctrl-C in a terminal reaches the whole process group: the workers,
    in a session of their own, get it once, from the parent (they got it
    twice, a forced stop). Running the command again ends the crawl with
    every page stored once, none fetched more than twice."""
    feed = tmp_path / "items.jsonl"
    cmd = crawl_cmd(site_list(tmp_path, web), db_url, redis_url, crawl_id, "--workers", "2",
                    "-O", str(feed))  # fmt: skip
    log = tmp_path / "first.log"
    with log.open("w") as out:
        first = subprocess.Popen(cmd, stderr=out, cwd=tmp_path, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while len(stored(db_url, web.urls["synthetic"])) < 150:
            assert time.monotonic() < deadline and first.poll() is None, log.read_text()[-2000:]
            time.sleep(0.2)
        os.killpg(first.pid, signal.SIGINT)  # as a terminal's Ctrl-C
        assert first.wait(timeout=120) in (0, 1)
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
    text = log.read_text()
    assert "stopped early (Ctrl-C): run the same command again to go on" in text, text[-2000:]
    assert "forcing unclean shutdown" not in text
    part = len(stored(db_url, web.urls["synthetic"]))
    assert part < len(expected_paths())  # stopped mid-way
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert again.returncode == 0, again.stderr[-3000:]
    rows = stored(db_url, web.urls["synthetic"])
    assert set(rows) == expected_paths() and {n for _, n in rows.values()} == {1}
    assert max(page_requests(web).values()) <= 2


def _redirecting_site(path: str) -> str | tuple[int, str] | None:
    """A home page linking two redirects and a page; the redirects' targets
    and the page link five more pages each."""
    more = "".join(f'<a href="/q{n}">more {n}</a> ' for n in range(1, 6))
    if path == "/":
        return '<html><body><a href="/r1">one</a> <a href="/r2">two</a> <a href="/p1">three</a>'
    if path in ("/r1", "/r2"):
        return 302, f"/t{path[-1]}"
    if path in ("/t1", "/t2", "/p1") or path.startswith("/q"):
        return f"<html><body><p>{'A page of the site. ' * 20}</p>{more}</body></html>"
    return None


def test_a_redirect_target_is_no_second_page_against_the_shared_cap(
    tmp_path: Path, db_url: str, redis_url: str, crawl_id: str
) -> None:
    """max_pages counts the pages scheduled; a redirect's target is claimed
    (never fetched twice) but is no page of its own. The workers' shared
    count took the targets for pages and stopped early."""
    from tests.local_site import serving

    single = f"sqlite:///{tmp_path / 'single.db'}"
    with serving(_redirecting_site) as base:
        sites = tmp_path / "sites.txt"
        sites.write_text(f"{base} max_pages=6 depth=5\n")
        plain = [sys.executable, "-m", "crawler.cli", "crawl", str(sites), "--db", single, *FAST]
        alone = subprocess.run(plain, capture_output=True, text=True, timeout=300, cwd=tmp_path)
        assert alone.returncode == 0, alone.stderr[-3000:]
        workers = crawl_cmd(sites, db_url, redis_url, crawl_id)
        shared = subprocess.run(workers, capture_output=True, text=True, timeout=300, cwd=tmp_path)
        assert shared.returncode == 0, shared.stderr[-3000:]
    expected = stored(single, base)
    assert sum(1 for outcome, _ in expected.values() if outcome == "ok") == 6, expected
    assert stored(db_url, base) == expected


def test_a_redirect_target_is_claimed_and_noted_in_one_step() -> None:
    """The claim and the note that the URL is a target are one Redis step: a
    claim taken (by any worker) adds nothing, a page is never a target."""
    from crawler.distributed import SharedState
    from tests.dbtools import delete_crawl_keys, new_crawl_id, redis_server

    server = redis_server()
    keys = Keys(new_crawl_id())
    state = SharedState(server, keys)
    try:
        assert state.add_seen("h", "http://h/a")
        assert state.add_seen("h", "http://h/b", page=False)
        assert not state.add_seen("h", "http://h/a", page=False)
        assert not state.add_seen("h", "http://h/b", page=False)
        assert server.smembers(keys.redirect_targets("h")) == {b"http://h/b"}
        assert state.count_pages("h") == 1
    finally:
        delete_crawl_keys(server, keys.crawl)
