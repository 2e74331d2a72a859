# Two promises of the README: `make run` and `make test` work on a fresh clone with only
# Python 3.11+ and make. Both create .venv and install what they need on first use: `make run`
# only what running needs ([project] dependencies), `make test` adds the test tools (extra
# "test"). README "Install size" has both sizes.
VENV       ?= .venv
PYTHON     ?= python3
BIN        := $(VENV)/bin
STAMP      := $(VENV)/.installed-stamp
TEST_STAMP := $(VENV)/.installed-test-stamp
# The accessibility engine of the browser tests: the npm package axe-core, pinned in
# package.json and package-lock.json (tests/browser/axe.py reads this file).
AXE        := node_modules/axe-core/axe.min.js
# Where `make run` listens: this machine only, unless told otherwise (make run ADDRESS=0.0.0.0).
ADDRESS ?= 127.0.0.1
PORT    ?= 8501
# How many executions `make demo` puts in the demo (the sandbox's default is 300).
N       ?= 100000

.PHONY: run demo sandbox test test-browser lint users clean screenshots

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $(STAMP)

$(TEST_STAMP): $(STAMP) pyproject.toml
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $(TEST_STAMP)

$(AXE): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $(AXE)

# headless: no first-run e-mail prompt and no browser launch; the first line says where to look.
run: $(STAMP)
	@echo "Open http://$(if $(filter 0.0.0.0,$(ADDRESS)),localhost,$(ADDRESS)):$(PORT) in your browser (Ctrl+C stops the dashboard)"
	@$(BIN)/streamlit run dashboard/app.py --server.headless true \
		--server.address $(ADDRESS) --server.port $(PORT) \
		--browser.gatherUsageStats false

# The dashboard on a demo of N executions (make demo N=100000): the embedded sandbox builds it
# when the first page opens (about 6 s per 100,000), signed in as its lead as in `make run`.
demo:
	@case "$(N)" in ''|*[!0-9]*) echo "N must be a whole number of executions" >&2; exit 2;; esac
	@QA_DASHBOARD_DEMO_EXECUTIONS=$(N) $(MAKE) --no-print-directory run

sandbox: $(STAMP)
	$(BIN)/python -m sandbox serve --host 127.0.0.1 --port 8000

users: $(STAMP)
	$(BIN)/python -m sandbox users

lint: $(TEST_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# Two workers: much of the suite waits (on timers, latencies, a browser), so two share the two
# cores well. `--dist loadgroup` hands each browser test module to one worker, whole, and every
# other test on its own (tests/conftest.py). WORKERS=0 runs everything in this process.
WORKERS ?= 2

test: lint $(AXE)
	$(BIN)/pytest -n $(WORKERS) --dist loadgroup $(PYTEST_ARGS)

test-browser: $(TEST_STAMP) $(AXE)
	$(BIN)/pytest -m browser $(PYTEST_ARGS)

# The benchmark suite (docs/benchmarks.md); BENCH_ARGS="--size tiny" for a quick
# check, "--only fetch pages" for some cases. Writes artifacts/benchmarks/results-SIZE.json.
.PHONY: bench
bench: $(TEST_STAMP)
	$(BIN)/python -m benchmarks $(BENCH_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache artifacts node_modules

# The README's screenshots: every page of dashboard/state/routes.ALL on the demo, rewritten
# under docs/screenshots/ (tests/browser/test_every_page.py, the light 1920x1080 view of each page;
# the browser suite checks them).
screenshots: $(TEST_STAMP) $(AXE)
	UPDATE_SCREENSHOTS=1 $(BIN)/pytest -m browser tests/browser/test_every_page.py -k light
