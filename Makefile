# The two commands of the README:
#   make run   sets up, migrates, loads the demo club and serves at http://127.0.0.1:$(PORT)
#   make test  sets up and runs every check and test
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
STAMP := $(VENV)/.installed

.PHONY: setup run test screenshots lint bench worker messages clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The browser tests load axe-core into Chromium from node_modules (package-lock.json pins it
# with its integrity hash); npm ci runs again whenever package.json or the lock changes.
NODE_STAMP := node_modules/.installed

$(NODE_STAMP): package.json package-lock.json
	@command -v node >/dev/null 2>&1 || { echo "make: Node.js is missing: install node and npm (Debian: apt-get install nodejs npm); the browser tests' accessibility checker (axe-core) is installed with npm" >&2; exit 1; }
	@command -v npm >/dev/null 2>&1 || { echo "make: npm is missing: install npm (Debian: apt-get install npm); it installs axe-core for the browser tests" >&2; exit 1; }
	npm ci --ignore-scripts --no-audit --no-fund
	touch $(NODE_STAMP)

# The tablet's referee: referee/rules zipped with its glue and the refusals'
# catalogue, Pyodide copied from node_modules, and the memory snapshot of Pyodide with the
# engine imported (made through Node, so the tablet starts in about a second, not Python's
# several), into static/offline/ (git-ignored); rebuilt whenever one of its sources changes.
ENGINE := static/offline/engine.json

$(ENGINE): $(STAMP) $(NODE_STAMP) referee/offline_engine.py referee/offline_snapshot.mjs referee/tablet_engine.py $(wildcard referee/rules/*.py referee/games/*.py locale/*/LC_MESSAGES/django.mo)
	ALLOW_INSECURE_KEY=1 $(BIN)/python manage.py build_engine

setup: $(STAMP) $(NODE_STAMP) $(ENGINE)

run: setup
	@mkdir -p var
	DEBUG=1 $(BIN)/python manage.py migrate --noinput
	DEBUG=1 $(BIN)/python manage.py load_demo --port $(PORT)
	DEBUG=1 $(BIN)/python manage.py runserver 127.0.0.1:$(PORT) --noreload

lint: setup
	$(BIN)/ruff check .
	$(BIN)/mypy --strict referee/rules
	$(BIN)/mypy db referee evenings scoring web config

# The tests run in parallel, one worker per core (pytest-xdist; each worker has its own test
# database, live server and Chromium). tests/conftest.py puts the long tests (the browser's, the
# fuzzers, those marked slow) first and the workers steal from each other at the end, so both
# stay busy to the last test (docs/measurements.md: 11:13 -> 9:32 on 2 cores). The fifteen
# slowest are named at the end. PYTEST_ARGS="-n 0" runs them all in one process.
PYTEST_ARGS ?= -n auto --dist worksteal --durations=15

test: lint
	$(BIN)/pytest $(PYTEST_ARGS)

# The browser tests again, saving what each screen looks like at tablet and phone size into
# screenshots/ (a plain test run checks the same pages without writing the pictures).
screenshots: setup
	SCREENSHOTS=1 $(BIN)/pytest $(PYTEST_ARGS) -m browser tests

bench: setup
	$(BIN)/python bench/run_all.py

worker: setup
	$(BIN)/celery -A config worker --loglevel=info --concurrency=2

messages: setup
	$(BIN)/python manage.py compile_messages

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache
