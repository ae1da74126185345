# `make run` (the app on the bundled sample data), `make check` (the fast tier, before each commit: about four
# minutes on two cores) and `make test` (the whole suite, what CI runs); the tiers are in tests/tiers.py.
# Each creates the virtual environment in .venv and installs what it needs on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8501
# The address the app listens on: this machine only, unless ADDRESS=0.0.0.0 (every interface) is given on purpose.
ADDRESS ?= 127.0.0.1

.PHONY: run check test samples clean

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python >= 3.11 is needed; set PYTHON=python3.11 or newer")'
	$(PYTHON) -m venv $(VENV)

# Both install this checkout through pyproject.toml, editable (the one place for dependencies and version):
# `make run` the package with its "app" extra, `make test` with its "test" extra (the app, every engine, the
# test tools). `make run` shows pip's progress: the first install downloads Streamlit, pandas, scipy,
# scikit-learn, plotly and DuckDB (a few hundred MB) and may take minutes. `make test` keeps --quiet.
$(VENV)/.run-deps: pyproject.toml | $(BIN)/python
	@echo "Installing fairness_core and the app's dependencies (pyproject.toml) into $(VENV): the first time downloads a few hundred MB and may take several minutes."
	$(BIN)/python -m pip install --progress-bar on --disable-pip-version-check -e '.[app]'
	touch $@

$(VENV)/.test-deps: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $@ $(VENV)/.run-deps

run: $(VENV)/.run-deps
	$(BIN)/streamlit run app.py --server.address $(ADDRESS) --server.port $(PORT)

check: $(VENV)/.test-deps
	$(BIN)/python -m pytest -n auto --dist loadgroup -m "not full" --durations=15

# One pytest worker per CPU and two more: two of them drive the browser tests (tests/conftest.py, browser_group) and
# spend most of their time waiting on an app server and Chromium, a third starts with the Spark tests' group, so the
# CPU-bound tests have a worker of their own from the start.
TEST_WORKERS ?= $(shell $(PYTHON) -c 'import os; print((os.cpu_count() or 1) + 2)')

test: $(VENV)/.test-deps
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadgroup --durations=25

samples: $(VENV)/.run-deps
	$(BIN)/python sample_data/make_samples.py

clean:
	rm -rf $(VENV) .pytest_cache test-artifacts
