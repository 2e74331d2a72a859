"""Case 9, the states, failures, slower and time-to-green pages in a browser, on 100,000
executions with their history stored: each under 3 s.

Per run, the lead company's finished executions and their results are written into the
dashboard's history store first (`benchmarks.data.fill_store`, as a sync writes them: every
one, newest first, up to `Size.lists_results`), so no page asks the service for a stored
result. Then a fresh `streamlit run` over the sandbox (no latency), one tab:

1. Flaky scenarios opened: it loads the last 90 days of executions from the service (cold,
   reported, no target), which the four pages read too;
2. each new page through the sidebar, first visit: Scenario states, Failures (the last 7 days),
   Slower scenarios, Time to green (its failure groups read the 90 days' failing executions'
   results); each held to < 3 s;
3. each again, through the sidebar (the data cached: the script's run and the drawing);
4. each opened by its link (a new page load: the front end starts again), reported beside the
   Plans page opened (case 4's trivial peer).
"""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser

from benchmarks import browser, data
from benchmarks.cases import pages
from benchmarks.context import Run
from benchmarks.measure import Bound, CaseResult, Target
from benchmarks.sandbox_process import SandboxProcess
from dashboard.data.connection import resolve
from dashboard.data.store import open_for
from dashboard.state import routes
from tests.browser import screen

NAME = "lists"
TITLE = "9. States, failures, slower and time to green, history stored"
UNDER_3_S = Target(Bound.VALUE_AT_MOST, 3.0, "< 3 s (history stored)")
FIRST = "Flaky scenarios opened: 90 days of executions loaded (cold)"
TRIVIAL = "Plans page opened (trivial)"
TABLES = (pages.MAIN + screen.DATAFRAME,)
VIEWS = tuple(
    pages.View(route.title, route.title.lower(), TABLES)
    for route in (routes.STATES, routes.FAILURES, routes.SLOWER, routes.TIME_TO_GREEN)
)
FLAKY = pages.View(routes.FLAKY.title, routes.FLAKY.title.lower(), TABLES)
PATHS = {
    routes.STATES.title: routes.STATES.url_path,
    routes.FAILURES.title: routes.FAILURES.url_path,
    routes.SLOWER.title: routes.SLOWER.url_path,
    routes.TIME_TO_GREEN.title: routes.TIME_TO_GREEN.url_path,
}


def run(run: Run) -> CaseResult:
    result = CaseResult(NAME, TITLE)
    executable = browser.chromium_or_skip(run, result)
    if executable is None:
        return result
    size = run.size
    sandbox = run.sandbox(executions=size.page_executions)
    result.figure(FIRST, "s")
    for view in VIEWS:
        result.figure(f"{view.title} via the sidebar, first visit", "s", target=UNDER_3_S)
    for view in VIEWS:
        result.figure(f"{view.title} via the sidebar, again", "s", target=UNDER_3_S)
    for view in VIEWS:
        result.figure(f"{view.title} opened by its link", "s", peer=TRIVIAL)
    result.figure(TRIVIAL, "s")
    filled, stored = filled_store(run, sandbox)
    with browser.launched(executable) as chromium:
        for number in range(1, run.repeats(slow=True) + 1):
            # Each run starts from the same filled store (a copy): nothing a run adds is kept.
            with browser.serving(run, sandbox, "lists", str(number), filled) as server:
                for name, seconds in _journey(chromium, server.url).items():
                    result.figure(name, "s").runs.append(seconds)
    result.notes += [
        f"Sandbox of {size.page_executions:,} executions ending at {run.now:%d %b %Y %H:%M} UTC, "
        f"no latency; before each run the dashboard's history store held {stored:,} results of "
        "the lead company's finished executions (written once as a sync writes them, then "
        "copied for each run), so the pages read every finished execution's results from it.",
        "The four pages read the last 90 days of executions from the service through the same "
        "cached query as Flaky scenarios, opened first: their first visits find it loaded, as "
        "after any analytics page. The first row is that cold load, for scale.",
        "Each time runs from the click (or the navigation) until, polled every 20 ms, the app is "
        "`notRunning` with nothing stale, the page's title and its tables drawn "
        "(`benchmarks/cases/pages.py`'s predicate).",
        "An opened link loads the front end again (case 4: a second or more before any script "
        "runs); it is set beside the Plans page opened in the same tab.",
    ]
    return result


def filled_store(run: Run, sandbox: SandboxProcess) -> tuple[Path, int]:
    """A store folder holding the lead company's history (filled once per run and size, then
    shared with case 10), and how many results it holds; cases copy it before use."""
    key = sandbox.settings.executions
    if key not in run.filled_stores:
        filled = run.folder("lists-filled")
        run.filled_stores[key] = (filled, _fill(run, sandbox, filled))
    return run.filled_stores[key]


def _fill(run: Run, sandbox: SandboxProcess, store_dir: Path) -> int:
    """The lead company's history, written into the store the dashboard will open."""
    lead = sandbox.lead
    env = {
        "QA_DASHBOARD_BASE_URL": sandbox.base_url,
        "QA_DASHBOARD_TOKEN": lead.token,
        "QA_DASHBOARD_COMPANY_ID": str(lead.company_id),
        "QA_DASHBOARD_CACHE_DIR": str(store_dir),
    }
    connection = resolve(session=None, secrets=None, env=env).connection
    assert connection is not None, "the sandbox's connection did not resolve"
    with open_for(connection, secrets=None, env=env, idle=0) as store:
        filled = data.fill_store(
            store, run.demo(run.size.page_executions), results_wanted=run.size.lists_results
        )
    return filled.results


def _journey(chromium: Browser, base: str) -> dict[str, float]:
    times: dict[str, float] = {}
    with browser.new_page(chromium, pages.SCRIPT_STATES_JS) as page:
        times[FIRST] = pages._navigate(
            page, f"{base}/{routes.FLAKY.url_path}", FLAKY, pages.COLD_MS
        )
        for view in VIEWS:
            first = pages._switch(page, view, pages.COLD_MS)
            times[f"{view.title} via the sidebar, first visit"] = first
        for view in VIEWS:
            times[f"{view.title} via the sidebar, again"] = pages._switch(page, view, pages.WARM_MS)
        for view in VIEWS:
            url = f"{base}/{PATHS[view.title]}"
            times[f"{view.title} opened by its link"] = pages._navigate(
                page, url, view, pages.WARM_MS
            )
        times[TRIVIAL] = pages._navigate(page, base + "/", pages.PLANS, pages.WARM_MS)
    return times
