# The two commands of the README:
#   make run   sets up, migrates, loads the demo club and serves at http://127.0.0.1:$(PORT)
#   make test  sets up and runs every check and test
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
STAMP := $(VENV)/.installed

.PHONY: setup run test lint bench worker messages clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)

run: setup
	@mkdir -p var
	DEBUG=1 $(BIN)/python manage.py migrate --noinput
	DEBUG=1 $(BIN)/python manage.py load_demo --port $(PORT)
	DEBUG=1 $(BIN)/python manage.py runserver 127.0.0.1:$(PORT) --noreload

lint: setup
	$(BIN)/ruff check .
	$(BIN)/mypy --strict referee/rules

test: lint
	$(BIN)/pytest $(PYTEST_ARGS)

bench: setup
	$(BIN)/python bench/run_all.py

worker: setup
	$(BIN)/celery -A config worker --loglevel=info --concurrency=2

messages: setup
	$(BIN)/python manage.py compile_messages

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache
