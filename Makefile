# sitesift: `make demo` and `make test` set up everything they need.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
EXTRAS ?= test,postgres,redis

.PHONY: setup system-deps demo demo-web test lint bench bench-extraction bench-crawl clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[$(EXTRAS)]'
	touch $@

# Debian's Chromium (Playwright cannot download its own browser here) and a
# CJK font so that Chinese pages render in screenshots.
system-deps:
	@if ! command -v chromium >/dev/null 2>&1 || ! fc-list 2>/dev/null | grep -qi wqy; then \
		echo "installing chromium and fonts-wqy-zenhei (apt)"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium fonts-wqy-zenhei >/dev/null; \
	fi

setup: $(VENV)/.installed system-deps

demo: setup
	$(PY) -m demo.run

# Regenerate demo/web/ after editing demo/content*.py (a test checks they agree).
demo-web: setup
	$(PY) -m demo.build_web

test: setup
	$(PY) -m pytest -q

lint: setup
	$(VENV)/bin/ruff check . && $(VENV)/bin/ruff format --check .

bench-extraction: setup
	$(PY) -m pip install -q -e '.[$(EXTRAS),bench]'
	$(PY) -m benchmarks.extraction

bench-crawl: setup
	$(PY) -m benchmarks.crawl

bench: bench-extraction bench-crawl

clean:
	rm -rf out build *.egg-info .pytest_cache .ruff_cache
