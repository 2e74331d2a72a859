# Two promises of the README: `make run` and `make test` work on a fresh clone with only
# Python 3.11+ and make. Both create .venv and install what they need on first use.
VENV    ?= .venv
PYTHON  ?= python3
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed-stamp
# Where `make run` listens: this machine only, unless told otherwise (make run ADDRESS=0.0.0.0).
ADDRESS ?= 127.0.0.1
PORT    ?= 8501

.PHONY: run sandbox test test-browser lint users clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $(STAMP)

run: $(STAMP)
	@# headless: no first-run e-mail prompt and no browser launch; open the URL it prints
	$(BIN)/streamlit run dashboard/app.py --server.headless true \
		--server.address $(ADDRESS) --server.port $(PORT)

sandbox: $(STAMP)
	$(BIN)/python -m sandbox serve --host 127.0.0.1 --port 8000

users: $(STAMP)
	$(BIN)/python -m sandbox users

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

test: lint
	$(BIN)/pytest $(PYTEST_ARGS)

test-browser: $(STAMP)
	$(BIN)/pytest -m browser $(PYTEST_ARGS)

# The benchmark suite of issue #10 (README "Benchmarks"); BENCH_ARGS="--size tiny" for a quick
# check, "--only fetch pages" for some cases. Writes artifacts/benchmarks/results-SIZE.json.
.PHONY: bench
bench: $(STAMP)
	$(BIN)/python -m benchmarks $(BENCH_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache artifacts
