# Everything runs from the project's own virtualenv, created on first use.
# DATABASE_URL, PORT, HOST, WEB_CONCURRENCY, RATE_LIMIT and REDIS_URL pass through from the
# environment untouched; their defaults are decided by the app and gunicorn.conf.py.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := test

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# This machine's pip config names local indexes that may not exist; pip warns once per package.
PIP_NOISE := is ignored: it is neither a file nor a directory

.PHONY: install install-run install-test install-web run test check check-untimed check-timed soak bench lint lint-web format clean

# Three sets, each installed once and again only when the project's metadata changes: the
# service alone (`make run`), with what the fast loop needs (`make test`), with everything
# (`make check`, lint, the benchmarks; pyproject.toml says why each package is there).
install-run: $(VENV)/.installed-run
install-test: $(VENV)/.installed-test
install: $(VENV)/.installed-dev

$(VENV)/.installed-%: pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -e '.$(if $(filter run,$*),,[$*])' 2>&1 \
		| { grep -v "$(PIP_NOISE)" || true; }
	@touch $@

# The web client's type checker (TypeScript, and openapi-typescript for the API's types), pinned in
# package.json and package-lock.json, installed once by npm and again only when the lock changes.
install-web: node_modules/.installed
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --prefer-offline --loglevel=error
	@touch $@

# The API's types for the web client's JSDoc, generated from the contract (not committed).
WEB_TYPES := app/web/generated/basra.d.ts
$(WEB_TYPES): openapi.yaml node_modules/.installed
	npx --no-install openapi-typescript openapi.yaml --output $@ --silent

run: install-run
	$(BIN)/basra migrate
	exec $(BIN)/gunicorn -c gunicorn.conf.py app.asgi:app

# The fast loop, a few minutes on two cores: the engine, the services, the API in process,
# persistence on both databases and a few flows through a real server, spread over both cores.
# pytest exits 5 when it collected nothing; that is a failure here too (it is non-zero).
test: install-test
	scripts/ensure-haproxy
	HYPOTHESIS_PROFILE=dev $(BIN)/pytest -m 'not slow and not browser and not soak' -n 2 \
		--durations=10

# Everything but the soak runs; this is what CI runs (.ci/run). Two passes: everything but the
# `timed` tests on both cores (the engine at the `ci` hypothesis profile, the services, the API in
# process (on both databases where they matter), persistence on both, the browser, the generated clients, and the
# reliability tests that need real servers but no stopwatch: faults, two instances behind
# HAProxy, metrics and logs, limits), the tests that share a module's server kept on the worker
# that started it (tests/conftest.py), with lint beside it (a few seconds of one core, where the
# pass leaves a quarter of the machine idle waiting on servers and clocks); then the `timed` ones
# one at a time, alone on the machine: those that time real servers under load (latencies,
# streams, races, counts of moves in so many seconds). How long each part takes:
# docs/performance.md, "The test loops"; each pass prints its slowest tests.
check: install install-web
	scripts/ensure-chromium
	scripts/ensure-haproxy
	$(MAKE) --no-print-directory -j 2 --output-sync=line lint check-untimed
	$(MAKE) --no-print-directory check-timed

check-untimed:
	HYPOTHESIS_PROFILE=ci $(BIN)/pytest -m 'not soak and not timed' -n 2 --dist loadgroup \
		--durations=25

check-timed:  # every timed test is a reliability test (tests/conftest.py: TIMED)
	HYPOTHESIS_PROFILE=ci $(BIN)/pytest tests/reliability -m 'timed and not soak' --durations=10

# The long reliability runs (docs/reliability.md): minutes of load, faults and fuzzing. Their
# counts land in test-results/reliability/*-soak.json. Needs PostgreSQL at 127.0.0.1:5432.
soak: install
	HYPOTHESIS_PROFILE=soak $(BIN)/pytest -m soak --durations=20
	@echo "counts: test-results/reliability/*-soak.json; see docs/reliability.md"

# The engine and the HTTP benchmarks, a few minutes in all (docs/performance.md). The bot
# ladder (400 matches a pairing, docs/bots.md) takes much longer: `make bench BOTS=1` adds it
# (BOT_MATCHES=60 for a quicker look).
BOTS ?=
BOT_MATCHES ?= 400
bench: install
	@echo "== bench/engine.py"; $(BIN)/python bench/engine.py --repeat 5
	@echo "== bench/api.py"; $(BIN)/python bench/api.py
	@echo "== bench/observability.py"; $(BIN)/python bench/observability.py
	@echo "== bench/scaling.py"; scripts/ensure-haproxy; $(BIN)/python bench/scaling.py
	@echo "== bench/matchmaking.py"; $(BIN)/python bench/matchmaking.py --clients 64 --think 0.1
	@echo "== bench/analysis.py"; $(BIN)/python bench/analysis.py --noise 150
	@if [ -n "$(BOTS)" ]; then echo "== bench/bots.py"; $(BIN)/python bench/bots.py --matches $(BOT_MATCHES); \
	else echo "(bench/bots.py skipped: make bench BOTS=1 runs the 400-match bot ladder)"; fi

lint: install lint-web
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy app

# The browser's modules (// @ts-check, JSDoc) type-checked against the API's generated types.
lint-web: $(WEB_TYPES)
	npx --no-install tsc -p tsconfig.json

format: install
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

clean:
	rm -rf $(VENV) node_modules app/web/generated build dist *.egg-info .pytest_cache .hypothesis .ruff_cache .mypy_cache test-results
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
