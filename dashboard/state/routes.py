"""The dashboard's pages: where their scripts are and at which URL path they are served.

Paths are relative to `dashboard/app.py`, which is how `st.Page`, `st.switch_page` and
`st.page_link` name a page. The scripts live in `app_pages/`, not `pages/`, which Streamlit
would otherwise discover on its own and list twice.
"""

from __future__ import annotations

from dataclasses import dataclass

from dashboard.state import url


@dataclass(frozen=True)
class Route:
    script: str
    url_path: str
    title: str
    icon: str
    params: tuple[str, ...]  # the query parameters the page owns (see dashboard.state.url)
    default: bool = False


PLANS = Route(
    script="app_pages/plans.py",
    url_path="plans",
    title="Plans",
    icon=":material/checklist:",
    params=url.PLANS_PARAMS,
    default=True,  # served at "/"
)
EXECUTIONS = Route(
    script="app_pages/executions.py",
    url_path="executions",
    title="Executions",
    icon=":material/play_circle:",
    params=url.EXECUTIONS_PARAMS,
)
RESULTS = Route(
    script="app_pages/execution_results.py",
    url_path="results",
    title="Execution results",
    icon=":material/fact_check:",
    params=url.RESULTS_PARAMS,
)
STANDUP = Route(
    script="app_pages/standup.py",
    url_path="standup",
    title="Standup",
    icon=":material/groups:",
    params=url.STANDUP_PARAMS,
)
HEALTH = Route(
    script="app_pages/health.py",
    url_path="health",
    title="Plan health",
    icon=":material/monitor_heart:",
    params=url.HEALTH_PARAMS,
)
FLAKY = Route(
    script="app_pages/flaky.py",
    url_path="flaky",
    title="Flaky scenarios",
    icon=":material/shuffle:",
    params=url.FLAKY_PARAMS,
)
ENVIRONMENTS = Route(
    script="app_pages/environments.py",
    url_path="environments",
    title="Environments",
    icon=":material/devices:",
    params=url.ENVIRONMENTS_PARAMS,
)
COMPARE = Route(
    script="app_pages/compare.py",
    url_path="compare",
    title="Compare",
    icon=":material/compare_arrows:",
    params=url.COMPARE_PARAMS,
)
SCENARIO = Route(
    script="app_pages/scenario.py",
    url_path="scenario",
    title="Scenario history",
    icon=":material/timeline:",
    params=url.SCENARIO_PARAMS,
)
ALL = (PLANS, STANDUP, HEALTH, EXECUTIONS, RESULTS, FLAKY, ENVIRONMENTS, COMPARE, SCENARIO)
