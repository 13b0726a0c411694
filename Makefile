# BesluitBron: `make run` starts everything, `make test` runs the whole suite.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000
# UPSTREAM=auto (the default): each platform live when it answers at start, else its offline sample;
# UPSTREAM=replica: every platform from the offline sample (offline demos); UPSTREAM=real: every platform live.
UPSTREAM ?= auto

.PHONY: install system-deps run test lint site conformance bench fuzz soak image clean

# requirements.lock constrains what pip picks for the runtime and everything it pulls in, so a clean clone tests
# the versions the image installs, not whatever the index published since (scripts/lock.py writes the lock).
$(STAMP): pyproject.toml requirements.lock
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,bench]' -c requirements.lock
	touch $(STAMP)

install: $(STAMP)

# Node packages the tests use (axe-core for the accessibility scan), pinned in package-lock.json.
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --silent
	touch $@

# Debian packages the tests use: a real redis-server, a real headless Chromium and a real nginx (tests/test_nginx.py);
# wrk, the bench's load generator; valgrind, whose callgrind counts the instructions of a call
# (bench/bench_instructions.py).
system-deps:
	@command -v redis-server >/dev/null && command -v chromium >/dev/null && command -v npm >/dev/null \
	  && command -v wrk >/dev/null && command -v valgrind >/dev/null && { command -v nginx || test -x /usr/sbin/nginx; } \
	  >/dev/null || { \
	  echo "installing redis-server, chromium, nginx, wrk, valgrind and npm (Debian packages)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server chromium nginx wrk \
	    valgrind $$(command -v npm >/dev/null || echo nodejs npm) >/dev/null; }

run: install
	$(PY) -m proxy serve --host $(HOST) --port $(PORT) --site --watch --upstream $(UPSTREAM)

# mypy checks what [tool.mypy] in pyproject.toml names (proxy/, site_hooks/ and tests/, strict), before any test runs.
# The tests run in TEST_PROCESSES pytest-xdist processes, one per core of the 2-core machines this runs on; each
# test starts its own servers on free ports under its own tmp_path, so none shares state with another.
TEST_PROCESSES ?= 2
test: install system-deps node_modules/.installed
	$(PY) -m ruff check proxy site_hooks tests bench
	$(PY) -m mypy
	$(PY) -m pytest -q -p no:cacheprovider -n $(TEST_PROCESSES)

lint: install
	$(PY) -m ruff check proxy site_hooks tests bench
	$(PY) -m mypy

site: install
	$(PY) -m mkdocs build --strict

conformance: install
	bash scripts/conformance-run.sh

# Every figure of issues 14 and 26 side by side in one run: writes bench/RESULTS.md, its plots and
# bench/profile.txt (about 20 minutes). wrk drives the servers; py-spy (the bench extra) profiles the cached call;
# valgrind's callgrind counts its instructions.
bench: install system-deps
	$(PY) bench/run.py

# The hostile-input suite at length (make test runs 300 requests of it): figures on the Betrouwbaarheid page.
# 5,000 hypothesis examples of 20 requests each: 100,000 hostile requests.
FUZZ_EXAMPLES ?= 5000
FUZZ_BATCH ?= 20
fuzz: install
	mkdir -p build
	BESLUITBRON_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) BESLUITBRON_FUZZ_BATCH=$(FUZZ_BATCH) \
	  BESLUITBRON_FUZZ_REPORT=build/fuzz-report.json \
	  $(PY) -m pytest -q -p no:cacheprovider -W ignore::hypothesis.errors.HypothesisWarning tests/test_hardening_fuzz.py
	cat build/fuzz-report.json

# 200 concurrent clients for 60 s across every connector: errors, p50/p99, resident memory.
soak: install
	mkdir -p build
	$(PY) bench/soak.py --clients 200 --seconds 60 --report build/soak-report.json

# The container image (deploy/Dockerfile) where a container engine is installed; tests/test_deploy.py checks the
# Dockerfile (hadolint, its paths, user and health check) without one.
image:
	@engine=$$(command -v docker || command -v podman) || { echo "no docker or podman here: install one to build"; exit 1; }; \
	  $$engine build -f deploy/Dockerfile -t besluitbron:local .

clean:
	rm -rf build site .pytest_cache .mypy_cache node_modules test-artifacts
