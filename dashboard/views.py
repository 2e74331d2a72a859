"""Pure decisions behind the pages: what each filter offers, and what a table selection opens.

Pages call these and lay out what they return, so a page script reads like a description of
the screen. No Streamlit import: each rule is unit-tested with plain frames and states.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import pandas as pd

from dashboard import transforms, url_state
from dashboard.connection import Source
from dashboard.formatting import describe_slice, filter_scope
from dashboard.messages import email_setting
from dashboard.status_colors import FILTER_STATUSES
from dashboard.url_state import ViewState


@dataclass(frozen=True)
class ExecutionsFilters:
    """The executions page's view state checked against what is known, and each filter's
    choices (id -> label; the key None stands for "no filter")."""

    state: ViewState
    problems: list[str]
    projects: dict[int | None, str]
    plans: dict[int | None, str]
    statuses: dict[str | None, str]


def executions_filters(
    state: ViewState, plans: pd.DataFrame | None, *, email: str | None, source: Source
) -> ExecutionsFilters:
    """Reconcile `state` with the plan list (None: it could not be loaded) and the viewer's
    e-mail address, and list what each filter offers."""
    problems: list[str] = []
    if plans is None:
        plans = transforms.plans_frame([])
    else:
        checked = url_state.reconcile(
            state,
            known_projects=transforms.project_names(plans),
            plan_projects=transforms.plan_projects(plans),
        )
        state, problems = checked.state, list(checked.problems)
    projects = transforms.project_names(plans)
    plan_names = transforms.plan_names(plans, project_id=state.project)
    # Without the plan list, ids from the URL stay selectable (and applied) by their number.
    if state.project is not None:
        projects.setdefault(state.project, f"Project {state.project}")
    if state.plan is not None:
        plan_names.setdefault(state.plan, f"Plan {state.plan}")
    if state.mine and not email:
        problems.append(
            "Only my executions needs your e-mail address, and this connection has none: "
            f"{email_setting(source)}. Showing everyone's."
        )
        state = state.with_changes(mine=False)
    return ExecutionsFilters(
        state=state,
        problems=problems,
        projects=_with_all("All projects", projects),
        plans=_with_all("All plans", plan_names),
        statuses=status_options(state.status),
    )


def executions_slice(
    executions: pd.DataFrame,
    filters: ExecutionsFilters,
    *,
    window: url_state.TimeWindow,
    now: datetime,
) -> str:
    """What the executions page's figures were computed from, in words: "312 executions of
    plan Checkout, with status ERROR, 13 Nov - 20 Nov". An open start is the first execution's."""
    state = filters.state
    scope = filter_scope(
        project=filters.projects.get(state.project) if state.project else None,
        plan=filters.plans.get(state.plan) if state.plan else None,
        status=state.status,
        mine=state.mine,
    )
    extent = transforms.time_extent(executions["start"])
    return describe_slice(
        len(executions),
        "execution",
        window.start or (extent[0] if extent else None),
        window.end or now,
        today=now.date(),
        scope=scope,
    )


def status_options(current: str | None) -> dict[str | None, str]:
    """The statuses the service's filter accepts, plus a link's own value when it is another:
    the picker then shows what the link asks for, and the service's answer explains it."""
    return {None: "Any status"} | {s: s for s in (*FILTER_STATUSES, current) if s}


def opened_by_plan(plans: pd.DataFrame, position: int | None) -> ViewState | None:
    """The executions view a selected row of the plans table opens: that plan's executions."""
    row = transforms.row_for_selection(plans, position)
    if row is None:
        return None
    return ViewState(project=transforms.optional_int(row["project_id"]), plan=int(row["plan_id"]))


def opened_by_execution(
    executions: pd.DataFrame, position: int | None, state: ViewState
) -> ViewState | None:
    """The results view a selected row of the executions table opens.

    The executions filters are kept as they are, so that the results page finds the execution
    in the very answer this page loaded, and "back" returns to this view; the start time lets a
    shared link find it even when the filters no longer select it.
    """
    row = transforms.row_for_selection(executions, position)
    if row is None:
        return None
    return state.with_changes(
        execution=int(row["execution_id"]),
        execution_start=transforms.optional_datetime(row["start"]),
    )


def _with_all(label: str, choices: dict[int, str]) -> dict[int | None, str]:
    options: dict[int | None, str] = {None: label}
    options.update(choices.items())
    return options
