"""Links between pages, built from view states: the evidence behind an analytic's item.

Links are relative ("results?execution=5"), so they work behind any path prefix; the standup's
chat digest makes them absolute with the dashboard's own address. No link carries a credential.
"""

from __future__ import annotations

from datetime import datetime
from urllib.parse import quote_plus, urljoin

from dashboard.state import routes
from dashboard.state.params import DateRange, ViewState
from dashboard.state.url import to_query_params


def results_link(execution_id: int, *, plan_id: int | None, started: datetime | None) -> str:
    """The results page of one execution (its start time lets the page find it at once)."""
    if started is not None and started != started:  # NaT (a missing start) is not equal to itself
        started = None
    state = ViewState(plan=plan_id, execution=execution_id, execution_start=started)
    return _link(routes.RESULTS, state)


def executions_link(plan_id: int, *, date_range: DateRange = DateRange.LAST_30_DAYS) -> str:
    """The executions page of one plan over a preset date range."""
    return _link(routes.EXECUTIONS, ViewState(plan=plan_id, date_range=date_range))


def absolute(link: str, page_url: str | None) -> str:
    """`link` made absolute against the address of the page the viewer has open."""
    return urljoin(page_url, link) if page_url else link


def _link(route: routes.Route, state: ViewState) -> str:
    params = to_query_params(state, route.params)
    return route.url_path + (f"?{_query_string(params)}" if params else "")


def _query_string(params: dict[str, str]) -> str:
    """`urlencode(params)`, the same text, cheaper: a table makes one link per row. Names are
    the table's (letters and "_", never quoted); a value of ASCII letters and digits (an id)
    needs no quoting either."""
    return "&".join(
        f"{name}={value if value.isascii() and value.isalnum() else quote_plus(value)}"
        for name, value in params.items()
    )


def standup_link(state: ViewState) -> str:
    """The standup page showing `state` (its window, zone and presenter mode)."""
    return _link(routes.STANDUP, state)


def scenario_link(plan_id: int, scenario_id: int, *, window: int | None = None) -> str:
    """The history of one scenario of one plan (over the last `window` executions)."""
    state = ViewState(plan=plan_id, scenario=scenario_id)
    if window is not None:
        state = state.with_changes(window=window)
    return _link(routes.SCENARIO, state)


def compare_link(plan_id: int, before: int | None = None, after: int | None = None) -> str:
    """Two executions of a plan side by side (the plan's latest two when not given)."""
    return _link(routes.COMPARE, ViewState(plan=plan_id, before=before, after=after))


def environments_link(plan_id: int) -> str:
    """A plan's scenario x environment matrix."""
    return _link(routes.ENVIRONMENTS, ViewState(plan=plan_id))


def states_link(
    plan_id: int | None = None, *, states: tuple[str, ...] = (), project_id: int | None = None
) -> str:
    """The scenario states of a plan (or a project, or all), of some states only."""
    return _link(routes.STATES, ViewState(project=project_id, plan=plan_id, states=states))


def failures_link(
    plan_id: int | None = None,
    *,
    date_range: DateRange = DateRange.LAST_7_DAYS,
    states: tuple[str, ...] = (),
) -> str:
    """Every failed result of a plan (or all) over a preset date range."""
    return _link(routes.FAILURES, ViewState(plan=plan_id, date_range=date_range, states=states))


def slower_link(plan_id: int | None = None) -> str:
    """The scenarios of a plan (or all) that got slower."""
    return _link(routes.SLOWER, ViewState(plan=plan_id))


def time_to_green_link(plan_id: int | None = None, *, project_id: int | None = None) -> str:
    """How long a plan (or all) stayed red: its red stretches and time to green."""
    return _link(routes.TIME_TO_GREEN, ViewState(project=project_id, plan=plan_id))


def known_link() -> str:
    """The Known failures page: every mark, its state and evidence."""
    return _link(routes.KNOWN, ViewState())
