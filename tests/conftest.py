"""Fixtures every test module may use: the storage and Redis fixtures of
tests/dbtools.py (kept there so a probe test outside this folder can import
them too)."""

import atexit
import os
import shutil
import tempfile

# The spool folder's default is per user (~/.local/state/sitesift/spool):
# the tests' crawls, and the crawls they start, keep theirs in a folder of
# their own, set before crawler.settings reads it.
os.environ["XDG_STATE_HOME"] = tempfile.mkdtemp(prefix="sitesift-tests-state-")
atexit.register(shutil.rmtree, os.environ["XDG_STATE_HOME"], ignore_errors=True)
# Likewise the screenshots of crawls that name no folder (the default,
# ./sitesift-screenshots, is relative to where the tests run: the checkout).
os.environ["SITESIFT_SCREENSHOT_DIR"] = tempfile.mkdtemp(prefix="sitesift-tests-shots-")
atexit.register(shutil.rmtree, os.environ["SITESIFT_SCREENSHOT_DIR"], ignore_errors=True)

# The crawls tests start classify and extract in a thread of their own
# process: two worker processes spawned for each small crawl cost the full
# suite 1,871 s against 1,738 on one day (start-up, and CPU taken from
# Chromium). The default,
# worker processes, is what tests/test_offload.py and the demo crawl of
# tests/test_pipelines_extract.py run, by -s (which beats the environment).
os.environ.setdefault("SITESIFT_EXTRACT_PROCESSES", "0")

from tests.dbtools import crawl_id, db_url, pg_restartable, redis_url  # noqa: E402

__all__ = ["crawl_id", "db_url", "pg_restartable", "redis_url"]
