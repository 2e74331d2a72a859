"""The pages' decisions without Streamlit: filter choices, "only mine", where a selection leads."""

from __future__ import annotations

from datetime import UTC, datetime

from dashboard.data import frames
from dashboard.state import choices
from dashboard.state import query as query_state
from dashboard.state.params import ViewState
from tests.dashboard import records

PLANS = frames.plans_frame(
    [
        records.plan(3, plan_name="Checkout", project_id=2, project_name="Web"),
        records.plan(4, plan_name="Login", project_id=1, project_name="App"),
    ]
)


def test_status_choices_are_the_execution_statuses_plus_the_links_own() -> None:
    assert list(choices.status_options(())) == [
        "SUCCESS",
        "FAILURE",
        "ERROR",
        "WARNING",
        "WAITING",
        "PROCESSING",
        "STOPPED",
    ]
    assert list(choices.status_options(("QUARANTINED",)))[-1] == "QUARANTINED"
    assert list(choices.status_options(("ERROR",))).count("ERROR") == 1
    assert choices.status_options(())["FAILURE"] == "\u2716 FAILURE"


def test_executions_filters_reconcile_the_link_with_the_plan_list() -> None:
    chosen = choices.executions_filters(
        ViewState(project=2, plan=4), PLANS, email="me@example.test", source="environment"
    )

    assert chosen.state == ViewState(project=2)
    assert ["is not in project 2" in p for p in chosen.problems] == [True]
    assert chosen.projects == {None: "All projects", 1: "App", 2: "Web"}
    assert chosen.plans == {None: "All plans", 3: "Checkout"}


def test_without_the_plan_list_ids_from_the_link_stay_selectable() -> None:
    chosen = choices.executions_filters(
        ViewState(project=9, plan=99), None, email=None, source="environment"
    )

    assert chosen.state == ViewState(project=9, plan=99)
    assert chosen.problems == []
    assert chosen.projects == {None: "All projects", 9: "Project 9"}
    assert chosen.plans == {None: "All plans", 99: "Plan 99"}


def test_only_mine_without_an_email_is_turned_off_with_advice_for_that_connection() -> None:
    chosen = choices.executions_filters(ViewState(mine=True), PLANS, email=None, source="session")

    assert chosen.state.mine is False
    (problem,) = chosen.problems
    assert '"Connect to a service"' in problem
    assert '"Your e-mail (optional)"' in problem
    assert "QA_DASHBOARD_EMAIL" not in problem


def test_a_selected_plan_opens_its_executions_and_a_stale_selection_nothing() -> None:
    assert choices.opened_by_plan(PLANS, 1) == ViewState(project=2, plan=3)  # sorted by project
    assert choices.opened_by_plan(PLANS, None) is None
    assert choices.opened_by_plan(PLANS, 2) is None
    assert choices.opened_by_plan(PLANS, -1) is None


def test_a_selected_execution_opens_its_results_with_the_filters_unchanged() -> None:
    executions = frames.executions_frame(
        [records.execution(7, start_date="2026-11-20T09:15:07Z", plan_id=3)]
    )
    state = ViewState(project=2, statuses=("FAILURE",))

    assert choices.opened_by_execution(executions, 0, state) == ViewState(
        project=2,
        statuses=("FAILURE",),
        execution=7,
        execution_start=datetime(2026, 11, 20, 9, 15, 7, tzinfo=UTC),
    )
    assert choices.opened_by_execution(executions, 1, state) is None


def test_the_slice_names_the_filters_and_the_window() -> None:
    executions = frames.executions_frame(
        [records.execution(1, plan_id=3, start_date="2026-11-14T08:00:00Z")]
    )
    chosen = choices.executions_filters(
        ViewState(plan=3, statuses=("ERROR",), mine=True),
        PLANS,
        email="me@example.test",
        source="environment",
    )
    now = datetime(2026, 11, 20, 18, 0, tzinfo=UTC)

    until_now = query_state.Period(datetime(2026, 11, 13, tzinfo=UTC), None)
    open_start = query_state.Period(None, datetime(2026, 11, 18, tzinfo=UTC))

    assert choices.executions_slice(executions, chosen, period=until_now, now=now) == (
        "1 execution of plan Checkout, with status ERROR, started by you, 13 Nov \u2013 20 Nov"
    )
    assert choices.executions_slice(executions, chosen, period=open_start, now=now).endswith(
        "14 Nov \u2013 18 Nov"  # an open start is the first execution's
    )
