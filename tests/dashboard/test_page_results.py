"""The Execution results page, run with AppTest against a sandbox."""

from __future__ import annotations

from urllib.parse import parse_qs

import pytest

from api_client import ApiClient, Execution, TestPlan
from sandbox import RunningSandbox
from tests.dashboard.apptest import RESULTS, assert_no_failure, joined, metrics
from tests.dashboard.conftest import AppFactory, Connect, user


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


def test_drill_down_state_in_the_url_shows_that_executions_results(
    app: AppFactory, connect: Connect, oracle: ApiClient, finished: tuple[Execution, TestPlan]
) -> None:
    connect()
    execution, plan = finished
    expected = [r for s in plan.scenarios for r in oracle.test_results(execution.id, s)]
    at = app(RESULTS, execution=str(execution.id), plan=str(plan.id))

    at.run()

    assert_no_failure(at)
    assert [t.value for t in at.title] == [f"Execution #{execution.id}"]
    header = joined(at.main.markdown)
    assert f"**Plan:** {plan.plan_name}" in header
    assert f"**Started by:** {execution.username}" in header
    assert metrics(at)["Results"] == str(sum(execution.result_summary.values()))
    table = at.dataframe[0].value
    assert sorted(table["Scenario"]) == sorted(r.scenario_id for r in expected)
    assert table["Node log"].str.startswith("https://").all()
    assert f"{len(expected)} results from {len(plan.scenarios)} of" in joined(at.caption)
    assert len(at.get("plotly_chart")) == 2
    assert at.query_params == {"execution": str(execution.id), "plan": str(plan.id)}
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
    assert "No execution is selected" in joined(at.info)


@pytest.mark.parametrize("value", ["abc", "0", "1.5", "<script>"])
def test_a_malformed_execution_id_is_explained(
    app: AppFactory, connect: Connect, value: str
) -> None:
    connect()
    at = app(RESULTS, execution=value)

    at.run()

    assert_no_failure(at)
    assert "not a valid execution id" in joined(at.warning)
    assert "No execution is selected" in joined(at.info)


def test_an_unknown_execution_is_explained(app: AppFactory, connect: Connect) -> None:
    connect()
    at = app(RESULTS, execution="987654321", plan="1")

    at.run()

    assert_no_failure(at)
    assert "Execution 987654321 was not found among plan 1's executions" in joined(at.warning)


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
    from dashboard import transforms

    # The plan names a scenario the service does not know (removed since, say).
    real = transforms.plan_scenarios
    monkeypatch.setattr(
        transforms, "plan_scenarios", lambda plans, plan_id: (*real(plans, plan_id), 987654)
    )
    connect()
    execution, plan = finished
    at = app(RESULTS, execution=str(execution.id), plan=str(plan.id))

    at.run()

    assert_no_failure(at)
    assert "scenario 987654" in joined(at.warning)
    assert set(at.dataframe[0].value["Scenario"]) == set(plan.scenarios)
    assert f"from {len(plan.scenarios)} of {len(plan.scenarios) + 1} scenarios" in joined(
        at.caption
    )
