# Every target bootstraps .venv when it is missing or older than pyproject.toml.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PYTEST_ARGS ?= -n auto

.PHONY: install run test test-postgres lint bench clean

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,bench]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/netplatform serve

test: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# The suite against PostgreSQL: NETPLATFORM_TEST_DATABASE_URL, else the server .ci/postgres
# finds, starts or installs on 127.0.0.1:5432.
test-postgres: $(STAMP)
	NETPLATFORM_TEST_DATABASE_URL=$${NETPLATFORM_TEST_DATABASE_URL:-$$(.ci/postgres)} \
		$(BIN)/python -m pytest $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

bench: $(STAMP)
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) var .pytest_cache .ruff_cache
