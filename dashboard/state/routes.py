"""The dashboard's pages: where their scripts are, at which URL path they are served, and which
query parameters each takes. A new page is one route here, in one of the `SECTIONS` the
navigation lists.

Paths are relative to `dashboard/app.py`, which is how `st.Page`, `st.switch_page` and
`st.page_link` name a page. The scripts live in `app_pages/`, not `pages/`, which Streamlit
would otherwise discover on its own and list twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dashboard.state import params
from dashboard.state.params import Param


@dataclass(frozen=True)
class Route:
    """One page: its script, the URL path it is served at, its title and icon in the
    navigation, and the query parameters it takes."""

    script: str
    url_path: str
    title: str
    icon: str
    # The query parameters the page takes: it reads exactly these from the URL and writes them
    # back, so a shared link holds what the page shows and nothing stale from another page.
    # Every page keeps the viewer's time zone, so a link shows the times its sender saw.
    params: tuple[Param[Any], ...]
    default: bool = False


# The pages; `SECTIONS` below orders them in the navigation.
PLANS = Route(
    script="app_pages/plans.py",
    url_path="plans",
    title="Plans",
    icon=":material/checklist:",
    params=(params.PROJECT, params.ACTIVE, params.TZ),
    default=True,  # served at "/"
)
STANDUP = Route(
    script="app_pages/standup.py",
    url_path="standup",
    title="Standup",
    icon=":material/groups:",
    params=(
        params.PROJECT,
        params.RANGE,
        params.FROM,
        params.TO,
        params.TZ,
        params.STANDUP_AT,
        params.PRESENT,
        params.OUTAGES,
    ),
)
HEALTH = Route(
    script="app_pages/health.py",
    url_path="health",
    title="Plan health",
    icon=":material/monitor_heart:",
    params=(params.PROJECT, params.OUTAGES, params.TZ),
)
TIME_TO_GREEN = Route(
    script="app_pages/time_to_green.py",
    url_path="time-to-green",
    title="Time to green",
    icon=":material/timer:",
    params=(params.PROJECT, params.PLAN, params.OUTAGES, params.GROUPS, params.TZ),
)
EXECUTIONS = Route(
    script="app_pages/executions.py",
    url_path="executions",
    title="Executions",
    icon=":material/play_circle:",
    params=(
        params.PROJECT,
        params.PLAN,
        params.STATUS,
        params.RANGE,
        params.FROM,
        params.TO,
        params.MINE,
        params.TZ,
        params.CHART,
        params.OUTAGES,
    ),
)
RESULTS = Route(
    script="app_pages/execution_results.py",
    url_path="results",
    title="Execution results",
    icon=":material/fact_check:",
    # The executions filters too, so that "back to executions" restores them.
    params=(*EXECUTIONS.params, params.EXECUTION, params.STARTED),
)
FAILURES = Route(
    script="app_pages/failures.py",
    url_path="failures",
    title="Failures",
    icon=":material/error:",
    params=(
        params.PROJECT,
        params.PLAN,
        params.RANGE,
        params.FROM,
        params.TO,
        params.STATE,
        params.OWNED,
        params.OUTAGES,
        params.TZ,
    ),
)
FLAKY = Route(
    script="app_pages/flaky.py",
    url_path="flaky",
    title="Flaky scenarios",
    icon=":material/shuffle:",
    params=(
        params.PROJECT,
        params.PLAN,
        params.WINDOW,
        params.THRESHOLD,
        params.OUTAGES,
        params.GROUPS,
        params.TZ,
    ),
)
STATES = Route(
    script="app_pages/states.py",
    url_path="states",
    title="Scenario states",
    icon=":material/rule:",
    params=(
        params.PROJECT,
        params.PLAN,
        params.STATE,
        params.OWNED,
        params.WINDOW,
        params.THRESHOLD,
        params.MIN_RUNS,
        params.BROKEN_RUNS,
        params.TZ,
    ),
)
SLOWER = Route(
    script="app_pages/slower.py",
    url_path="slower",
    title="Slower scenarios",
    icon=":material/speed:",
    params=(params.PROJECT, params.PLAN, params.WINDOW, params.TZ),
)
ENVIRONMENTS = Route(
    script="app_pages/environments.py",
    url_path="environments",
    title="Environments",
    icon=":material/devices:",
    params=(params.PLAN, params.WINDOW, params.OUTAGES, params.TZ),
)
COMPARE = Route(
    script="app_pages/compare.py",
    url_path="compare",
    title="Compare",
    icon=":material/compare_arrows:",
    params=(params.PLAN, params.BEFORE, params.AFTER, params.CHANGES, params.TZ),
)
SCENARIO = Route(
    script="app_pages/scenario.py",
    url_path="scenario",
    title="Scenario history",
    icon=":material/timeline:",
    params=(params.PLAN, params.SCENARIO, params.WINDOW, params.TZ),
)
RULES = Route(
    script="app_pages/rules.py",
    url_path="rules",
    title="Group rules",
    icon=":material/category:",
    params=(params.TZ,),
)

KNOWN = Route(
    script="app_pages/known.py",
    url_path="known",
    title="Known failures",
    icon=":material/bookmark:",
    params=(params.MARKS, params.TZ),
)

SECTIONS: tuple[tuple[str, tuple[Route, ...]], ...] = (
    ("Today", (STANDUP, PLANS, FAILURES, KNOWN)),
    ("Trends", (HEALTH, TIME_TO_GREEN, EXECUTIONS)),
    ("Scenarios", (FLAKY, STATES, SLOWER, ENVIRONMENTS, SCENARIO, COMPARE, RULES)),
    ("Runs", (RESULTS,)),
)
"""The pages by what a lead comes for, in the order the sidebar lists them. Every route above
is in exactly one (tests/browser/test_navigation.py); all of them are in view on arrival, none
behind "View N more". The sidebar does not show the section names yet: Streamlit 1.67's
sectioned navigation fails axe-core's list rules (see `dashboard/app.py`)."""

ALL: tuple[Route, ...] = tuple(route for _, section in SECTIONS for route in section)
"""Every route, in the order the navigation lists them."""
