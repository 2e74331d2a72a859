"""The Plans page, run with AppTest against a sandbox."""

from __future__ import annotations

from datetime import timedelta

import pytest
from streamlit.testing.v1 import AppTest

from api_client import ApiClient, ExecutionQuery
from sandbox import RunningSandbox
from tests.dashboard.apptest import (
    assert_no_failure,
    assert_red_first,
    captions,
    joined,
    metrics,
    notes,
    plain_notes,
    sources,
)
from tests.dashboard.conftest import AppFactory, Connect, user


def test_opens_on_demo_data_with_no_configuration(app: AppFactory, oracle: ApiClient) -> None:
    at = app()
    at.run()

    assert_no_failure(at)
    assert [t.value for t in at.title] == ["Test plans"]
    active = oracle.plans(active=True)  # the demo sandbox holds the same (seeded) data
    assert metrics(at) == {
        "Plans": str(len(active)),
        "Enabled": str(sum(1 for p in active if p.enabled)),
        "Scenarios": str(sum(len(p.scenarios) for p in active)),
        "With alerts": str(sum(1 for p in active if any(a.enabled for a in p.alerts))),
    }
    table = at.dataframe[0].value
    assert sorted(table["Plan"]) == sorted(p.plan_name for p in active)
    assert "Demo data" in joined(at.sidebar.markdown)
    assert at.query_params == {}  # the default view keeps a clean address


def test_filters_come_from_the_url(app: AppFactory, connect: Connect, oracle: ApiClient) -> None:
    connect()
    every_plan = oracle.plans(active=False)
    project = every_plan[0].project_id
    expected = oracle.plans(project_id=project, active=False)
    at = app(project=str(project), active="false")

    at.run()

    assert_no_failure(at)
    assert sorted(at.dataframe[0].value["Id"]) == sorted(p.id for p in expected)
    assert at.selectbox(key="plans.project").value == project
    assert at.toggle(key="plans.active_only").value is False
    assert f"{len(expected)} plan" in captions(at)
    assert at.query_params == {"project": str(project), "active": "false"}
    assert "Live" in joined(at.sidebar.markdown)


def test_changing_a_filter_updates_the_url(
    app: AppFactory, connect: Connect, oracle: ApiClient
) -> None:
    connect()
    at = app()
    at.run()
    project = oracle.plans()[0].project_id

    at.selectbox(key="plans.project").select(project).run()
    at.toggle(key="plans.active_only").set_value(False).run()

    assert at.query_params == {"project": str(project), "active": "false"}
    assert set(at.dataframe[0].value["Project"]) == {oracle.plans()[0].project_name}


def test_selecting_a_plan_opens_its_executions(
    app: AppFactory, connect: Connect, oracle: ApiClient
) -> None:
    connect()
    at = app()
    at.run()
    chosen = at.dataframe[0].value.iloc[1]

    at.session_state["plans.table"] = {"selection": {"rows": [1], "columns": [], "cells": []}}
    at.run()

    assert_no_failure(at)
    assert [t.value for t in at.title] == ["Executions"]
    assert at.query_params["plan"] == str(chosen["Id"])
    assert at.selectbox(key="executions.plan").value == chosen["Id"]


def test_ids_in_a_shared_link_that_are_unknown_or_malformed_are_explained(
    app: AppFactory, connect: Connect
) -> None:
    connect()

    unknown = app(project="999")
    unknown.run()
    malformed = app(project="<b>abc</b>", active="sometimes")
    malformed.run()

    for at in (unknown, malformed):
        assert_no_failure(at)
        assert at.dataframe, "the rest of the page keeps working"
    assert "Project 999 is not one of this company" in notes(unknown)
    warning = notes(malformed)
    assert "not a valid project id" in warning
    assert "not true or false" in warning
    # Shown literally: in a plain-text element, never in markdown.
    assert "<b>abc</b>" in plain_notes(malformed)
    assert "<b>" not in "".join(sources(malformed.markdown) + sources(malformed.warning))
    assert malformed.query_params == {}  # the bad values are dropped from the address


def test_a_token_without_plan_view_gets_a_readable_message(
    app: AppFactory, connect: Connect, sandbox: RunningSandbox
) -> None:
    connect(who=user(sandbox, lacking="PLAN_VIEW"))
    at = app()

    at.run()

    assert not at.exception
    assert "PLAN_VIEW" in joined(at.error)
    assert not at.dataframe


def test_records_that_do_not_fit_are_counted_and_the_rest_shown(
    app: AppFactory, connect: Connect, faulty_sandbox
) -> None:
    connect(faulty_sandbox)
    at = app(active="false")

    at.run()

    assert_no_failure(at)
    assert "plan was skipped" in notes(at) or "plans were skipped" in notes(at)
    assert len(at.dataframe[0].value) >= 1


@pytest.mark.slow
def test_when_retries_run_out_the_page_says_what_failed(
    app: AppFactory, connect: Connect, failing_sandbox: RunningSandbox
) -> None:
    connect(failing_sandbox)
    at = app()

    at.run()

    assert not at.exception
    error = joined(at.error)
    assert "failed while loading the test plans" in error
    assert "Refresh" in error


@pytest.fixture
def every_plan(opened: dict[str, AppTest], app: AppFactory) -> AppTest:
    """The demo's plans, active or not (`active=false`): run once, never changed."""
    if "every_plan" not in opened:
        at = app(active="false")
        at.run()
        opened["every_plan"] = at
    return opened["every_plan"]


def test_each_plan_leads_with_its_latest_finished_outcome(
    every_plan: AppTest, sandbox: RunningSandbox, oracle: ApiClient
) -> None:
    """The first page answers "which plans are red, and since when". Each plan is judged on
    its latest finished execution of the last 30 days, computed here from the service directly.
    The demo (same seeded data as `oracle`) counts its 30 days back from the data's own clock."""
    now = sandbox.settings.now
    recent = oracle.all_executions(ExecutionQuery(date_from=now - timedelta(days=30)))
    expected: dict[int, str] = {}
    for execution in sorted(recent, key=lambda e: (e.start_date, e.id)):
        summary = {k.upper(): n for k, n in execution.result_summary.items() if n}
        if any(status in summary for status in ("WAITING", "PROCESSING")):
            continue  # running: not a verdict
        if summary.get("FAILURE") or summary.get("ERROR"):
            expected[execution.plan_id] = "\u2716 failing"
        elif any(summary.get(s) for s in ("SUCCESS", "WARNING")):
            expected[execution.plan_id] = "\u2714 passing"
    assert "\u2716 failing" in expected.values(), "the demo should hold a red plan"
    at = every_plan

    assert_no_failure(at)
    table = at.dataframe[0].value
    shown = {
        int(plan_id): now_text.replace(" (one running)", "")
        for plan_id, now_text in zip(table["Id"], table["Now"], strict=True)
    }
    for plan_id, outcome in expected.items():
        assert shown[plan_id] == outcome, plan_id
    assert all(shown[p] == "\u2013 no finished run" for p in set(shown) - set(expected))
    assert "last 30 days of executions" in captions(at)


def test_failing_plans_come_first(every_plan: AppTest) -> None:
    """Which plans are red is the first question: the table answers it in its first rows."""
    assert_no_failure(every_plan)
    assert_red_first(every_plan)
