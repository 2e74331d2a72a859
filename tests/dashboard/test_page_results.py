"""The Execution results page, run with AppTest against a sandbox."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs

import pytest

from api_client import ApiClient, Execution, ExecutionQuery, TestPlan
from dashboard.analytics import plans as plan_analytics
from dashboard.present.triage import LABEL_TEXT
from sandbox import RunningSandbox
from sandbox.data import planted
from tests.dashboard.apptest import (
    RESULTS,
    assert_no_failure,
    captions,
    joined,
    metrics,
    notes,
    table_with,
)
from tests.dashboard.conftest import ACCESS_CHECK, AppFactory, Connect, Requests, user
from tests.today import TODAY


@pytest.fixture(scope="module")
def finished(oracle: ApiClient) -> tuple[Execution, TestPlan]:
    """A finished execution (every result has a verdict) and its plan."""
    plans = {plan.id: plan for plan in oracle.plans(active=False)}
    execution = next(
        e
        for e in oracle.all_executions()
        if e.plan_id in plans and "WAITING" not in e.result_summary and e.result_summary
    )
    return execution, plans[execution.plan_id]  # type: ignore[index]


@pytest.fixture(scope="module")
def old(oracle: ApiClient) -> tuple[Execution, TestPlan]:
    """A finished execution a month older than the sandbox's clock, and its plan."""
    plans = {plan.id: plan for plan in oracle.plans(active=False)}
    month_ago = TODAY.replace(hour=0) - timedelta(days=31)
    execution = next(
        e
        for e in oracle.all_executions(ExecutionQuery(date_to=month_ago))
        if e.plan_id in plans and "WAITING" not in e.result_summary and e.result_summary
    )
    return execution, plans[execution.plan_id]  # type: ignore[index]


def iso(moment: datetime | None) -> str:
    assert moment is not None
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_drill_down_state_in_the_url_shows_that_executions_results(
    app: AppFactory,
    connect: Connect,
    oracle: ApiClient,
    sandbox: RunningSandbox,
    finished: tuple[Execution, TestPlan],
) -> None:
    connect()
    execution, plan = finished
    expected = [r for s in plan.scenarios for r in oracle.test_results(execution.id, s)]
    at = app(RESULTS, execution=str(execution.id), plan=str(plan.id))

    at.run()

    assert_no_failure(at)
    assert [t.value for t in at.title] == [f"Execution #{execution.id}"]
    header = joined(at.main.text)
    assert f"Plan: {plan.plan_name}" in header
    assert f"Started by: {execution.username}" in header
    assert metrics(at)["Results"] == str(sum(execution.result_summary.values()))
    table = at.dataframe[0].value
    assert sorted(table["Scenario"]) == sorted(r.scenario_id for r in expected)
    # The demo's logs are served by the sandbox itself (docs/spec-decisions.md, decision 22).
    assert table["Node log"].str.startswith(f"{sandbox.base_url}/storage/").all()
    assert f"{len(expected)} results from {len(plan.scenarios)} of" in captions(at)
    # Each failed result's one verdict beside its level (#37); this one is no outage.
    assert list(table.columns[:3]) == ["Scenario", "Level", "Verdict"]
    assert "likely outage" not in notes(at)
    assert len(at.get("plotly_chart")) == 2
    # The address bar gains the start time, so that a copy finds the execution directly.
    assert at.query_params == {
        "execution": str(execution.id),
        "plan": str(plan.id),
        "started": iso(execution.start_date),
    }
    back = at.get("page_link")[0].proto
    assert back.label == "Back to executions"
    assert parse_qs(back.query_string) == {"plan": [str(plan.id)]}  # the filters, not the execution


def test_an_execution_link_without_its_plan_still_works(
    app: AppFactory, connect: Connect, finished: tuple[Execution, TestPlan]
) -> None:
    connect()
    execution, _ = finished
    at = app(RESULTS, execution=str(execution.id))

    at.run()

    assert_no_failure(at)
    assert at.dataframe


def test_no_execution_selected_points_to_the_executions_page(
    app: AppFactory, connect: Connect
) -> None:
    connect()
    at = app(RESULTS)

    at.run()

    assert_no_failure(at)
    assert "No execution is selected" in notes(at, "info")


@pytest.mark.parametrize("value", ["abc", "0", "1.5", "<script>"])
def test_a_malformed_execution_id_is_explained(
    app: AppFactory, connect: Connect, value: str
) -> None:
    connect()
    at = app(RESULTS, execution=value)

    at.run()

    assert_no_failure(at)
    assert "not a valid execution id" in notes(at)
    assert "No execution is selected" in notes(at, "info")


def test_an_unknown_execution_is_explained(app: AppFactory, connect: Connect) -> None:
    connect()
    with_plan = app(RESULTS, execution="987654321", plan="1")
    with_plan.run()
    with_start = app(RESULTS, execution="987654321", started="2026-11-20T09:15:00Z")
    with_start.run()

    for at in (with_plan, with_start):
        assert_no_failure(at)
        assert not at.dataframe
    # Asked for its results, the service says it has no such execution.
    assert "The service has no execution 987654321" in notes(with_plan)
    assert (
        "Execution 987654321 was not found among the executions of this link's filters "
        "(started from " in notes(with_start)
    )
    assert "nor around 20 Nov 2026, 09:15 UTC" in notes(with_start)


def test_a_drill_down_link_finds_its_execution_without_walking_the_history(
    app: AppFactory,
    connect: Connect,
    oracle: ApiClient,
    service_requests: Requests,
    old: tuple[Execution, TestPlan],
) -> None:
    """The link's filters ("last 24 h") no longer select a month-old execution; the links find
    it all the same, each with a bounded query (never the plan's or company's whole history)."""
    connect()
    execution, plan = old
    links = {
        "with its start": {"started": iso(execution.start_date)},
        "with its plan (an older link)": {"plan": str(plan.id)},
    }

    for name, params in links.items():
        at = app(RESULTS, execution=str(execution.id), range="24h", **params)
        service_requests()
        at.run()

        assert_no_failure(at)
        assert f"Plan: {plan.plan_name}" in joined(at.main.text), name
        assert at.dataframe, name
        assert at.query_params["started"] == iso(execution.start_date), name
        queries = [r for r in service_requests() if "/executions/" in r and r != ACCESS_CHECK]
        assert 1 < len(queries) <= 3, (name, queries)
        assert all("from=" in query for query in queries), (name, queries)


def test_a_bad_start_time_in_a_link_is_explained_and_the_page_works(
    app: AppFactory, connect: Connect, finished: tuple[Execution, TestPlan]
) -> None:
    connect()
    execution, _ = finished
    at = app(RESULTS, execution=str(execution.id), started="last tuesday")

    at.run()

    assert_no_failure(at)
    assert '"started" value "last tuesday" is not a UTC time' in notes(at)
    assert at.dataframe
    assert at.query_params["started"] == iso(execution.start_date)  # corrected


def test_a_token_without_result_view_keeps_the_header(
    app: AppFactory, connect: Connect, sandbox: RunningSandbox, finished: tuple[Execution, TestPlan]
) -> None:
    connect(who=user(sandbox, lacking="TEST_RESULT_VIEW"))
    execution, plan = finished
    at = app(RESULTS, execution=str(execution.id), plan=str(plan.id))

    at.run()

    assert not at.exception
    assert "TEST_RESULT_VIEW" in joined(at.error)
    assert "Duration" in metrics(at)  # the rest of the page is still there
    assert not at.dataframe


def test_one_scenario_that_fails_is_a_warning_beside_the_others(
    app: AppFactory,
    connect: Connect,
    monkeypatch: pytest.MonkeyPatch,
    finished: tuple[Execution, TestPlan],
) -> None:

    # The plan names a scenario the service does not know (removed since, say).
    real = plan_analytics.plan_scenarios
    monkeypatch.setattr(
        plan_analytics, "plan_scenarios", lambda plans, plan_id: (*real(plans, plan_id), 987654)
    )
    connect()
    execution, plan = finished
    at = app(RESULTS, execution=str(execution.id), plan=str(plan.id))

    at.run()

    assert_no_failure(at)
    assert "scenario 987654" in notes(at)
    assert set(at.dataframe[0].value["Scenario"]) == set(plan.scenarios)
    assert f"from {len(plan.scenarios)} of {len(plan.scenarios) + 1} scenarios" in captions(at)


def test_each_result_links_to_its_scenarios_history(
    app: AppFactory, connect: Connect, finished: tuple[Execution, TestPlan]
) -> None:
    connect()
    execution, plan = finished
    at = app(RESULTS, execution=str(execution.id), plan=str(plan.id))

    at.run()

    table = at.dataframe[0].value
    assert list(table["History"]) == [
        f"scenario?plan={plan.id}&scenario={scenario}" for scenario in table["Scenario"]
    ]


def test_the_demo_s_outage_night_says_so_at_the_top_and_labels_its_failures(
    app: AppFactory, connect: Connect, oracle: ApiClient
) -> None:
    """The planted outage night of plan 6: "likely outage" with its dominant message at the
    top, and each failed row's verdict is outage; an ordinary execution says nothing of it
    (#37)."""
    connect()
    plan_executions = [e for e in oracle.all_executions() if e.plan_id == planted.OUTAGE_PLAN]

    def failed_share(execution: Execution) -> float:
        summary = execution.result_summary
        verdicts = sum(summary.get(s, 0) for s in ("SUCCESS", "FAILURE", "ERROR", "WARNING"))
        failed = summary.get("FAILURE", 0) + summary.get("ERROR", 0)
        return failed / verdicts if verdicts else 0.0

    night = max(plan_executions, key=failed_share)
    assert failed_share(night) >= 0.8
    at = app(RESULTS, execution=str(night.id), plan=str(planted.OUTAGE_PLAN))

    at.run()

    assert_no_failure(at)
    said = notes(at)
    assert "likely outage: " in said
    assert "% of the run failed with one message: WebDriverException: Selenium grid" in said
    table = table_with(at, "Level", "Verdict")
    failed = table[table["Level"].isin(["FAILURE", "ERROR"])]
    assert len(failed) > 0
    assert set(failed["Verdict"]) == {"\u26a1 outage"}


def test_a_failing_execution_s_failures_are_judged_on_its_plan_s_window(
    app: AppFactory, connect: Connect, oracle: ApiClient
) -> None:
    """Every failed row of an ordinary failing execution has its one verdict, judged with its
    plan's window (#37): none is "results incomplete", and no row that passed has one."""
    connect()
    plans = {plan.id: plan for plan in oracle.plans(active=False)}
    execution = next(
        e
        for e in oracle.all_executions()
        if e.plan_id in plans
        and e.plan_id != planted.OUTAGE_PLAN
        and "WAITING" not in e.result_summary
        and 0 < e.result_summary.get("FAILURE", 0) < sum(e.result_summary.values()) / 2
    )
    at = app(RESULTS, execution=str(execution.id), plan=str(execution.plan_id))

    at.run()

    assert_no_failure(at)
    table = table_with(at, "Level", "Verdict")
    failed = table["Level"].isin(["FAILURE", "ERROR"])
    assert failed.any()
    labels = set(table.loc[failed, "Verdict"])
    assert labels <= set(LABEL_TEXT.values()) - {LABEL_TEXT["incomplete"], LABEL_TEXT["outage"]}
    assert table.loc[~failed, "Verdict"].isna().all()
