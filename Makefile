# Every target bootstraps .venv when it is missing or older than pyproject.toml or the lock.
# Installs take exact versions from requirements.lock (what the suite last passed with):
# `make run` installs the runtime dependencies only, the other targets add tests and bench.
# Upgrading is a deliberate change: `make lock`, run the suite, commit the new lock.
# onapsdk (the reference's client, which the tests drive the catalog with) pins versions the
# project cannot take; it goes into a directory of its own from requirements-onapsdk.lock.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
LOCK := requirements.lock
RUNTIME := $(VENV)/.installed-runtime
DEV := $(VENV)/.installed-dev
ONAPSDK_LOCK := requirements-onapsdk.lock
ONAPSDK_SITE := $(VENV)/onapsdk-site
ONAPSDK := $(VENV)/.installed-onapsdk
PIP := $(BIN)/python -m pip install --quiet --constraint $(LOCK)
PYTEST_ARGS ?= -n auto

.PHONY: install run test test-fast test-postgres lint typecheck bench lock clean

install: $(DEV) $(ONAPSDK)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(RUNTIME): pyproject.toml $(LOCK) | $(BIN)/python
	$(PIP) -e .
	touch $(RUNTIME)

$(DEV): $(RUNTIME)
	$(PIP) -e '.[dev,bench]'
	touch $(DEV)

# Exactly the lock's packages, none of their declared dependencies resolved again, in a directory
# only tests/blueprints/execution/test_onapsdk.py puts on a path (a subprocess's PYTHONPATH).
$(ONAPSDK): $(ONAPSDK_LOCK) | $(BIN)/python
	rm -rf $(ONAPSDK_SITE)
	$(BIN)/python -m pip install --quiet --no-deps --target $(ONAPSDK_SITE) -r $(ONAPSDK_LOCK)
	touch $(ONAPSDK)

run: $(RUNTIME)
	$(BIN)/netplatform serve

# The router's JetStream tests need a NATS server (.ci/nats finds, starts or installs one) and
# the console's browser tests Debian's Chromium (.ci/chromium installs it). Where either cannot
# be had, those tests skip and say why in the summary; everything else still runs. CI
# (.ci/run) sets NETPLATFORM_TEST_REQUIRE_SERVERS=1, which turns such a skip into a failure.
# The config deploy tests need Debian's netconfd and sshd (.ci/netconfd installs them):
# without them the target fails.
SERVERS := NETPLATFORM_TEST_NATS_URL=$${NETPLATFORM_TEST_NATS_URL:-$$(.ci/nats || true)}

test: $(DEV) $(ONAPSDK)
	.ci/chromium || true
	.ci/netconfd
	$(SERVERS) $(BIN)/python -m pytest $(PYTEST_ARGS)

# The fast lane: every test but those marked slow (tests/support/slow.py: e2e, chaos, fuzz,
# OpenAPI examples, the console's browser tests, any test seen over 5 s), on two workers.
test-fast: $(DEV) $(ONAPSDK)
	.ci/netconfd
	$(SERVERS) $(BIN)/python -m pytest -m "not slow" -n 2

# The suite against PostgreSQL: NETPLATFORM_TEST_DATABASE_URL, else the server .ci/postgres
# finds, starts or installs on 127.0.0.1:5432. Every test that uses the suite's database runs
# again; the crash loops (own_stores: they make their stores themselves) are left to `make test`,
# and the generated-request suites send half their requests (tests/support/examples.py), which
# keeps CI, both runs, within its time on two cores.
test-postgres: $(DEV) $(ONAPSDK)
	.ci/chromium || true
	.ci/netconfd
	$(SERVERS) NETPLATFORM_TEST_DATABASE_URL=$${NETPLATFORM_TEST_DATABASE_URL:-$$(.ci/postgres)} \
		NETPLATFORM_TEST_EXAMPLE_SCALE=$${NETPLATFORM_TEST_EXAMPLE_SCALE:-0.5} \
		$(BIN)/python -m pytest -m "not own_stores" $(PYTEST_ARGS)

lint: $(DEV)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy

typecheck: $(DEV)
	$(BIN)/mypy

bench: $(DEV)
	$(BIN)/python bench/run_all.py

# New exact versions within pyproject.toml's ranges; review the diff, run the suite, commit.
lock: | $(BIN)/python
	$(BIN)/python -m pip install --quiet pip-tools
	$(BIN)/pip-compile --quiet --upgrade --all-extras --strip-extras --no-emit-index-url \
		--no-emit-find-links -o $(LOCK) pyproject.toml

clean:
	rm -rf $(VENV) var .pytest_cache .ruff_cache .mypy_cache
