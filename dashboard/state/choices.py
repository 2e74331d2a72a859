"""Pure decisions behind the pages: what each filter offers, and what a table selection opens.

Pages call these and lay out what they return, so a page script reads like a description of
the screen. No Streamlit import: each rule is unit-tested with plain frames and states.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

import pandas as pd

from dashboard.analytics.plans import plan_names as plan_names_of
from dashboard.analytics.plans import plan_projects, project_names
from dashboard.analytics.verdicts import EXECUTION_STATUSES
from dashboard.columns.cells import (
    optional_datetime,
    optional_int,
    row_for_selection,
    time_extent,
)
from dashboard.data.connection import Source
from dashboard.data.frames import plans_frame
from dashboard.present.colors import status_label
from dashboard.present.formatting import describe_slice, filter_scope
from dashboard.present.messages import email_setting
from dashboard.state.params import ViewState
from dashboard.state.query import Period
from dashboard.state.url import ParsedState


@dataclass(frozen=True)
class ExecutionsFilters:
    """The executions page's view state checked against what is known, and each filter's
    choices (id -> label; the key None stands for "no filter"; no status chosen means any)."""

    state: ViewState
    problems: list[str]
    projects: dict[int | None, str]
    plans: dict[int | None, str]
    statuses: dict[str, str]


def executions_filters(
    state: ViewState, plans: pd.DataFrame | None, *, email: str | None, source: Source
) -> ExecutionsFilters:
    """Reconcile `state` with the plan list (None: it could not be loaded) and the viewer's
    e-mail address, and list what each filter offers."""
    problems: list[str] = []
    if plans is None:
        plans = plans_frame([])
    else:
        checked = reconcile(
            state, known_projects=project_names(plans), plan_projects=plan_projects(plans)
        )
        state, problems = checked.state, list(checked.problems)
    projects = project_names(plans)
    plan_names = plan_names_of(plans, project_id=state.project)
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
        statuses=status_options(state.statuses),
    )


def executions_slice(
    executions: pd.DataFrame,
    filters: ExecutionsFilters,
    *,
    period: Period,
    now: datetime,
) -> str:
    """What the executions page's figures were computed from, in words: "312 executions of
    plan Checkout, with status ERROR, 13 Nov - 20 Nov". An open start is the first execution's."""
    state = filters.state
    scope = filter_scope(
        project=filters.projects.get(state.project) if state.project else None,
        plan=filters.plans.get(state.plan) if state.plan else None,
        statuses=state.statuses,
        mine=state.mine,
    )
    extent = time_extent(executions["start"])
    return describe_slice(
        len(executions),
        "execution",
        period.start or (extent[0] if extent else None),
        period.end or now,
        today=now.date(),
        scope=scope,
    )


def status_options(current: Sequence[str]) -> dict[str, str]:
    """The statuses an execution may have (`verdicts.execution_status`), plus a link's own
    values when they are others: the picker then shows what the link asks for."""
    return {s: status_label(s) for s in dict.fromkeys((*EXECUTION_STATUSES, *current))}


def opened_by_plan(plans: pd.DataFrame, position: int | None) -> ViewState | None:
    """The executions view a selected row of the plans table opens: that plan's executions."""
    row = row_for_selection(plans, position)
    if row is None:
        return None
    return ViewState(project=optional_int(row["project_id"]), plan=int(row["plan_id"]))


def opened_by_execution(
    executions: pd.DataFrame, position: int | None, state: ViewState
) -> ViewState | None:
    """The results view a selected row of the executions table opens.

    The executions filters are kept as they are, so that the results page finds the execution
    in the very answer this page loaded, and "back" returns to this view; the start time lets a
    shared link find it even when the filters no longer select it.
    """
    row = row_for_selection(executions, position)
    if row is None:
        return None
    return state.with_changes(
        execution=int(row["execution_id"]),
        execution_start=optional_datetime(row["start"]),
    )


def reconcile(
    state: ViewState,
    *,
    known_projects: Mapping[int, str],
    plan_projects: Mapping[int, int | None],
) -> ParsedState:
    """Check ids from the URL against what the service knows; drop unknown ones with a problem.

    `known_projects` maps project id to name; `plan_projects` maps plan id to its project id.
    """
    problems: list[str] = []
    if state.project is not None and state.project not in known_projects:
        problems.append(
            f"Project {state.project} is not one of this company's projects (or has no plans "
            f"you can see), so every project is shown."
        )
        state = state.with_changes(project=None)
    plan = state.plan
    if plan is not None:
        if plan not in plan_projects:
            problems.append(
                f"Plan {plan} is not one of this company's plans, so every plan is shown."
            )
            state = state.with_changes(plan=None)
        elif state.project is not None and plan_projects[plan] != state.project:
            problems.append(
                f"Plan {plan} is not in project {state.project}, so every plan of the "
                f"project is shown."
            )
            state = state.with_changes(plan=None)
    return ParsedState(state, problems)


def _with_all(label: str, choices: dict[int, str]) -> dict[int | None, str]:
    options: dict[int | None, str] = {None: label}
    options.update(choices.items())
    return options
