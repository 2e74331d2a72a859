"""Case 13, a team's morning (issue #39 item 7): several viewers on one dashboard process at
100,000 executions, in chromium, each timed beside the same page opened alone.

The history store holds the lead company's finished results (filled as case 9 fills it, shared
with cases 9 and 10), as a team's synced dashboard does. Each time runs from a navigation to
the page's settled state (`cases/pages.py`'s predicate: connected, the script not running,
nothing stale, the title and content drawn), measured in the page itself, so pages opened at
once are each timed to their own moment. Every viewer is a fresh browser context (a new app
session).

1. A fresh server, one tab: the Plans page (the server's first script run), then every other
   page's first visit by its link, in the navigation's order (Time to green included);
2. on the same server, the standup opened alone by a new viewer (its data cached), then by 5
   new viewers at once; the dashboard's CPU seconds meanwhile tell whether the work was done
   once or once per viewer;
3. five different pages (Failures, Plan health, Time to green, Flaky scenarios, Executions 90 d)
   each opened alone by a new viewer, then the 5 at once, one viewer each;
4. a second fresh server: the Plans page, then 5 viewers opening the standup at once with
   nothing loaded (the view for the same data computed once, whoever asks first), beside the
   standup's first visit of step 1;
5. the cold 90-day Executions view on fresh servers (the Plans page first), once per repeat.

That is the full size. The tiny size, which only proves the case runs, has 2 viewers and 2
different pages instead of 5, and times the first visits of Plans and Standup only
(`Size.viewers`, `Size.first_visits`); the figures' names count the viewers it has.

The dashboard's resident set is sampled every 50 ms in a thread through steps 1-4
(/proc/<pid>/status), its peak (`VmHWM`) read at the end of each server.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from playwright.sync_api import Browser, Page, expect

from api_client import ApiClient, ExecutionQuery
from benchmarks import browser
from benchmarks.cases import lists, pages
from benchmarks.context import Run
from benchmarks.measure import Bound, CaseResult, Target
from benchmarks.sizes import Size
from dashboard.state import routes
from sandbox.data import planted
from tests.browser import screen

NAME = "morning"
TITLE = "13. A team's morning: viewers at once, first visits, memory"
MB = 1e6
WITHIN_1_5 = Target(Bound.RATIO_AT_MOST, 1.5, "within 1.5x of one alone (#39)")
WITHIN_2 = Target(Bound.RATIO_AT_MOST, 2.0, "within 2x of the page alone (#39)")
UNDER_10_S = Target(Bound.VALUE_AT_MOST, 10.0, "< 10 s (#39)")
UNDER_5_S = Target(Bound.VALUE_AT_MOST, 5.0, "< 5 s in every run (#39)")
UNDER_600 = Target(Bound.VALUE_AT_MOST, 600, "< 600 MB (#39)")

TABLES = (pages.MAIN + screen.DATAFRAME,)
STANDUP = pages.STANDUP
EXECUTIONS_90D = "executions?range=90d"


@dataclass(frozen=True)
class Opened:
    """A page as a viewer opens it: its name in the figures, its path and query, and what
    its settled state holds."""

    name: str
    path: str
    view: pages.View


# The different pages of step 3 (the first `Size.viewers`: all five at full), each with the
# content its settled state must hold.
DIFFERENT = (
    Opened(
        routes.FAILURES.title,
        f"{routes.FAILURES.url_path}?tz=UTC",
        pages.View(routes.FAILURES.title, "failures", TABLES),
    ),
    Opened(routes.HEALTH.title, f"{routes.HEALTH.url_path}?tz=UTC", pages.HEALTH),
    Opened(
        routes.TIME_TO_GREEN.title,
        f"{routes.TIME_TO_GREEN.url_path}?tz=UTC",
        pages.View(routes.TIME_TO_GREEN.title, "time to green", TABLES),
    ),
    Opened(routes.FLAKY.title, f"{routes.FLAKY.url_path}?tz=UTC", lists.FLAKY),
    Opened("Executions 90 d", EXECUTIONS_90D, pages.EXECUTIONS),
)
STANDUP_OPENED = Opened(routes.STANDUP.title, f"{routes.STANDUP.url_path}?tz=UTC", STANDUP)
# What a page's settled state holds where it is known; elsewhere its title and a finished run.
CONTENT = {
    routes.STANDUP.url_path: STANDUP.content,
    routes.PLANS.url_path: pages.PLANS.content,
    routes.EXECUTIONS.url_path: pages.EXECUTIONS.content,
    routes.HEALTH.url_path: pages.HEALTH.content,
    routes.FAILURES.url_path: TABLES,
    routes.TIME_TO_GREEN.url_path: TABLES,
    routes.FLAKY.url_path: TABLES,
    routes.STATES.url_path: TABLES,
    routes.SLOWER.url_path: TABLES,
}

ALONE = "Standup alone (a new viewer, its data cached)"
CPU_ALONE = "  the dashboard's CPU, standup alone"
BROWSER_ALONE = "  chromium's CPU, standup alone"
COLD_FIRST = "Standup: first visit"
CPU_COLD_ALONE = "  the dashboard's CPU, standup's first visit"
PEAK = "dashboard peak RSS (VmHWM) across every page"
COLD_90 = "Executions 90 d, cold (open the link)"
COLD_90_WORST = "Executions 90 d, cold: the slowest run"


@dataclass(frozen=True)
class Together:
    """The figures of what `viewers` viewers open at once, named by their number (5 at full)."""

    viewers: int

    @property
    def slowest(self) -> str:
        return f"Standup, {self.viewers} viewers at once: the slowest"

    @property
    def each(self) -> str:
        return f"Standup, {self.viewers} viewers at once: each"

    @property
    def cpu(self) -> str:
        return f"  the dashboard's CPU, standup {self.viewers} at once"

    @property
    def browser(self) -> str:
        return f"  chromium's CPU, standup {self.viewers} at once"

    @property
    def cold_slowest(self) -> str:
        return f"Standup, {self.viewers} viewers at once on a fresh server: the slowest"

    @property
    def cold_each(self) -> str:
        return f"Standup, {self.viewers} viewers at once on a fresh server: each"

    @property
    def cold_cpu(self) -> str:
        return f"  the dashboard's CPU, standup {self.viewers} at once on a fresh server"

    @property
    def pages(self) -> tuple[Opened, ...]:
        """The different pages opened at once, one viewer each."""
        return DIFFERENT[: self.viewers]

    @property
    def pages_cpu_alone(self) -> str:
        return f"  the dashboard's CPU, the {len(self.pages)} pages alone (summed)"

    @property
    def pages_cpu(self) -> str:
        return f"  the dashboard's CPU, the {len(self.pages)} pages at once"

    @property
    def pages_browser_alone(self) -> str:
        return f"  chromium's CPU, the {len(self.pages)} pages alone (summed)"

    @property
    def pages_browser(self) -> str:
        return f"  chromium's CPU, the {len(self.pages)} pages at once"

    def among(self, opened: Opened) -> str:
        return f"{opened.name} among {len(self.pages)} different pages at once"

    @property
    def peak_cold(self) -> str:
        return f"dashboard peak RSS (VmHWM), second server ({self.viewers} standups cold)"


def _first(route: routes.Route) -> str:
    return f"{route.title}: first visit"


def _alone(opened: Opened) -> str:
    return f"{opened.name} alone (a new viewer)"


def _visited(size: Size) -> tuple[routes.Route, ...]:
    """The pages whose first visit step 1 times, in the order it opens them: Plans (the
    server's first script run), then the navigation's order (Standup first)."""
    order = (routes.PLANS, *(r for r in routes.ALL if r is not routes.PLANS))
    return order[: size.first_visits]


def run(run: Run) -> CaseResult:
    result = CaseResult(NAME, TITLE)
    executable = browser.chromium_or_skip(run, result)
    if executable is None:
        return result
    size = run.size
    load_before = os.getloadavg()
    sandbox = run.sandbox(executions=size.page_executions)
    visited = _visited(size)
    together = Together(size.viewers)
    for route in routes.ALL:
        if route in visited:
            result.figure(_first(route), "s", target=UNDER_10_S)
    result.figure(ALONE, "s")
    result.figure(together.slowest, "s", peer=ALONE, target=WITHIN_1_5)
    result.figure(together.each, "s", peer=ALONE)
    result.figure(CPU_ALONE, "s")
    result.figure(together.cpu, "s", peer=CPU_ALONE)
    for opened in together.pages:
        result.figure(_alone(opened), "s")
    for opened in together.pages:
        result.figure(together.among(opened), "s", peer=_alone(opened), target=WITHIN_2)
    result.figure(together.pages_cpu_alone, "s")
    result.figure(together.pages_cpu, "s", peer=together.pages_cpu_alone)
    # The viewers' own browser on the same two cores: what the wall clock of viewers at once is
    # made of beside the dashboard's work (a team's browsers are on machines of their own).
    result.figure(BROWSER_ALONE, "s")
    result.figure(together.browser, "s", peer=BROWSER_ALONE)
    result.figure(together.pages_browser_alone, "s")
    result.figure(together.pages_browser, "s", peer=together.pages_browser_alone)
    result.figure(together.cold_slowest, "s", peer=COLD_FIRST, target=WITHIN_1_5)
    result.figure(together.cold_each, "s", peer=COLD_FIRST)
    result.figure(CPU_COLD_ALONE, "s")
    result.figure(together.cold_cpu, "s", peer=CPU_COLD_ALONE)
    result.figure(PEAK, "MB", target=UNDER_600)
    result.figure(together.peak_cold, "MB", target=UNDER_600)
    result.figure(COLD_90, "s", target=UNDER_5_S)
    result.figure(COLD_90_WORST, "s", target=UNDER_5_S, computed=True)

    filled, stored = lists.filled_store(run, sandbox)
    with pages._client(sandbox) as oracle:
        examples = _urls(oracle, run)
    peaks: dict[str, str] = {}
    times: dict[str, float] = {}
    colds = result.figure(COLD_90, "s")
    with browser.launched(executable) as chromium:
        with browser.serving(run, sandbox, "morning", "first", filled) as server:
            with browser.MemorySampler(server.pid) as sampler:
                _attempt(
                    result,
                    "first visits",
                    _first_visits,
                    chromium,
                    server,
                    visited,
                    examples,
                    sampler,
                    times,
                )
                _attempt(
                    result,
                    "standup together",
                    _standup_together,
                    chromium,
                    server,
                    together,
                    sampler,
                    times,
                )
                _attempt(
                    result,
                    f"{len(together.pages)} pages together",
                    _pages_together,
                    chromium,
                    server,
                    together,
                    sampler,
                    times,
                )
                sampler.phase = "end"
            peaks[PEAK] = sampler.peak[0]
            result.figure(PEAK, "MB").runs.append(server.memory().peak / MB)
        with browser.serving(run, sandbox, "morning", "cold", filled) as server:
            with browser.MemorySampler(server.pid) as sampler:
                _attempt(
                    result,
                    "cold standups together",
                    _standup_cold_together,
                    chromium,
                    server,
                    together,
                    sampler,
                    times,
                )
            peaks[together.peak_cold] = sampler.peak[0]
            result.figure(together.peak_cold, "MB").runs.append(server.memory().peak / MB)
        if "cpu standup first" in times:
            times[CPU_COLD_ALONE] = times.pop("cpu standup first")
        for name, seconds in times.items():
            result.figure(name.split("#")[0], "s").runs.append(seconds)
        for number in range(1, run.repeats() + 1):
            with browser.serving(run, sandbox, "morning", f"90d-{number}", filled) as server:
                cold_run: list[float] = []
                _attempt(
                    result, f"cold 90 days, run {number}", _cold_90_days, chromium, server, cold_run
                )
                colds.runs += cold_run
        if colds.runs:
            result.figure(COLD_90_WORST, "s").runs.append(max(colds.runs))
    load_after = os.getloadavg()
    result.notes += _notes(run, together, stored, peaks, colds.runs, load_before, load_after)
    return result


def _attempt(result: CaseResult, label: str, phase: Callable[..., None], *args: Any) -> None:
    """Run one phase; a page that never settles (or any error) ends that phase only, said in
    the notes, so the figures of the others are kept."""
    try:
        phase(*args)
    except Exception as error:  # a finding, reported: the other phases go on
        result.notes.append(f"The phase '{label}' stopped: {type(error).__name__}: {error}"[:400])


def _urls(oracle: ApiClient, run: Run) -> dict[str, str]:
    """Each page's address on the query that shows it at its most telling (as
    `tests/browser/every_page.py` opens it): the plan that turned red and its newest finished
    execution, the planted scenario cases."""
    plan = planted.TURNED_RED_PLAN
    query = ExecutionQuery(plan_id=plan, date_from=run.now - timedelta(days=30))
    finished = [e for e in oracle.all_executions(query) if e.end_date is not None]
    newest = max(finished, key=lambda e: e.start_date or run.now)
    queries = {
        routes.EXECUTIONS.url_path: f"plan={plan}&range=30d",
        routes.RESULTS.url_path: f"execution={newest.id}",
        routes.FLAKY.url_path: f"plan={planted.SCENARIO_CASES_PLAN}",
        routes.ENVIRONMENTS.url_path: f"plan={planted.STILL_FAILING_PLAN}",
        routes.COMPARE.url_path: f"plan={planted.TURNED_RED_PLAN}",
        routes.SCENARIO.url_path: (
            f"plan={planted.SCENARIO_CASES_PLAN}&scenario={planted.SLOWING_SCENARIO}"
        ),
    }
    return {
        route.url_path: ("/" if route.default else f"/{route.url_path}")
        + f"?{'&'.join((*filter(None, [queries.get(route.url_path)]), 'tz=UTC'))}"
        for route in routes.ALL
    }


def _settled(view: pages.View) -> str:
    """The init script timing `view`'s settled state in the page."""
    args = {"title": view.heading, "selectors": list(view.content), "search": None}
    return browser.settled_at_script(pages.READY_JS, {**args, "kpiBefore": None}, pages.POLL_MS)


def _open_alone(chromium: Browser, url: str, view: pages.View) -> float:
    return browser.open_at_once(chromium, [(url, _settled(view))], pages.COLD_MS)[0]


def _first_visits(
    chromium: Browser,
    server: browser.DashboardServer,
    visited: tuple[routes.Route, ...],
    examples: dict[str, str],
    sampler: browser.MemorySampler,
    times: dict[str, float],
) -> None:
    """The pages' first visits on the fresh server, one tab, each opened by its link."""
    with browser.new_page(chromium, pages.SCRIPT_STATES_JS) as page:
        for route in visited:
            view = pages.View(route.title, "", CONTENT.get(route.url_path, ()))
            sampler.phase = _first(route)
            if route is routes.STANDUP:
                before = browser.cpu_seconds(server.pid)
            times[_first(route)] = pages._navigate(
                page, server.url + examples[route.url_path], view, pages.COLD_MS
            )
            if route is routes.STANDUP:
                times["cpu standup first"] = browser.cpu_seconds(server.pid) - before
        _no_error(page)


def _standup_together(
    chromium: Browser,
    server: browser.DashboardServer,
    together: Together,
    sampler: browser.MemorySampler,
    times: dict[str, float],
) -> None:
    url = f"{server.url}/{STANDUP_OPENED.path}"
    sampler.phase = ALONE
    before, browser_before = browser.cpu_seconds(server.pid), browser.browser_cpu_seconds()
    alone = _open_alone(chromium, url, STANDUP)
    cpu_alone = browser.cpu_seconds(server.pid) - before
    times[BROWSER_ALONE] = browser.browser_cpu_seconds() - browser_before
    sampler.phase = together.slowest
    before, browser_before = browser.cpu_seconds(server.pid), browser.browser_cpu_seconds()
    openings = [(url, _settled(STANDUP))] * together.viewers
    each = browser.open_at_once(chromium, openings, pages.COLD_MS)
    cpu_together = browser.cpu_seconds(server.pid) - before
    times[together.browser] = browser.browser_cpu_seconds() - browser_before
    times |= {ALONE: alone, together.slowest: max(each)}
    times |= {CPU_ALONE: cpu_alone, together.cpu: cpu_together}
    times |= _each(together.each, each)


def _pages_together(
    chromium: Browser,
    server: browser.DashboardServer,
    together: Together,
    sampler: browser.MemorySampler,
    times: dict[str, float],
) -> None:
    cpu_alone = browser_alone = 0.0
    for opened in together.pages:
        sampler.phase = _alone(opened)
        before, browser_before = browser.cpu_seconds(server.pid), browser.browser_cpu_seconds()
        times[_alone(opened)] = _open_alone(chromium, f"{server.url}/{opened.path}", opened.view)
        cpu_alone += browser.cpu_seconds(server.pid) - before
        browser_alone += browser.browser_cpu_seconds() - browser_before
    sampler.phase = f"{len(together.pages)} different pages at once"
    before, browser_before = browser.cpu_seconds(server.pid), browser.browser_cpu_seconds()
    each = browser.open_at_once(
        chromium,
        [(f"{server.url}/{opened.path}", _settled(opened.view)) for opened in together.pages],
        pages.COLD_MS,
    )
    times[together.pages_cpu] = browser.cpu_seconds(server.pid) - before
    times[together.pages_browser] = browser.browser_cpu_seconds() - browser_before
    times[together.pages_browser_alone] = browser_alone
    times[together.pages_cpu_alone] = cpu_alone
    for opened, seconds in zip(together.pages, each, strict=True):
        times[together.among(opened)] = seconds


def _standup_cold_together(
    chromium: Browser,
    server: browser.DashboardServer,
    together: Together,
    sampler: browser.MemorySampler,
    times: dict[str, float],
) -> None:
    with browser.new_page(chromium, pages.SCRIPT_STATES_JS) as page:
        pages._navigate(page, server.url + "/", pages.PLANS, pages.COLD_MS)
    sampler.phase = together.cold_slowest
    url = f"{server.url}/{STANDUP_OPENED.path}"
    before = browser.cpu_seconds(server.pid)
    openings = [(url, _settled(STANDUP))] * together.viewers
    each = browser.open_at_once(chromium, openings, pages.COLD_MS)
    cpu = browser.cpu_seconds(server.pid) - before
    times |= {together.cold_slowest: max(each), together.cold_cpu: cpu}
    times |= _each(together.cold_each, each)


def _each(name: str, each: list[float]) -> dict[str, float]:
    """Runs of a figure with one value per viewer are added one by one by `run`."""
    return {f"{name}#{number}": seconds for number, seconds in enumerate(each)}


def _cold_90_days(chromium: Browser, server: browser.DashboardServer, seconds: list[float]) -> None:
    with browser.new_page(chromium, pages.SCRIPT_STATES_JS) as page:
        pages._navigate(page, server.url + "/", pages.PLANS, pages.COLD_MS)
        took = pages._navigate(
            page, f"{server.url}/{EXECUTIONS_90D}", pages.EXECUTIONS, pages.COLD_MS
        )
        _no_error(page)
    seconds.append(took)


def _no_error(page: Page) -> None:
    """Nothing opened was an error page that merely looked settled."""
    expect(page.locator(screen.EXCEPTION)).to_have_count(0)
    expect(page.locator(screen.ERROR_ALERT)).to_have_count(0)


def _notes(
    run: Run,
    together: Together,
    stored: int,
    peaks: dict[str, str],
    colds: list[float],
    load_before: tuple[float, float, float],
    load_after: tuple[float, float, float],
) -> list[str]:
    spread = f"{min(colds):.2f}-{max(colds):.2f} s" if colds else "not measured"
    return [
        f"Sandbox of {run.size.page_executions:,} executions ending at {run.now:%d %b %Y %H:%M} "
        f"UTC, no latency; each server's history store held {stored:,} results of the lead "
        "company's finished executions (as case 9 fills it).",
        "Load average (1, 5, 15 min) "
        f"{' / '.join(f'{x:.1f}' for x in load_before)} at the case's start, "
        f"{' / '.join(f'{x:.1f}' for x in load_after)} at its end, on {os.cpu_count()} cores.",
        "Each time runs from a navigation to the page's settled state, polled every 20 ms in "
        "the page itself (`benchmarks/browser.py`'s SETTLED_AT_JS): pages opened at once are "
        "each timed to their own moment. Every viewer of steps 2-4 is a fresh browser context "
        "(a new app session); the five navigations start before any is waited on.",
        "First visits: one tab on a fresh server, the Plans page first (the server's first "
        "script run), then each page by its link in the navigation's order, on the query "
        "`tests/browser/every_page.py` gives it (the plan that turned red, its failing "
        "execution, the planted cases).",
        f"The slowest of {together.viewers} is held to the target; 'each' holds every viewer's "
        "time. The dashboard's CPU seconds meanwhile (/proc/<pid>/stat) tell work done once "
        f"from work done once per viewer (about {together.viewers}x the CPU alone).",
        "chromium's CPU: every process of the benchmark's chromium (the browser, each tab's "
        "renderer, the GPU and network helpers, and what the exited ones used), read the same "
        "way: the viewers' browsers share the machine's two cores with the dashboard here, as "
        "a team's browsers, each on its own machine, do not.",
        f"Peak RSS: VmHWM at each server's end. The highest resident set sampled (every 50 ms) "
        f"was during '{peaks.get(PEAK, '?')}' on the first server and "
        f"'{peaks.get(together.peak_cold, '?')}' on the second.",
        f"Cold 90 days: {len(colds)} fresh servers, the Plans page first; spread {spread}.",
    ]
