"""Loaders against a real sandbox over HTTP: frames, progress, partial failures, skipped records."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from api_client import ApiClient, InternalServerError, PermissionDeniedError, RetryPolicy
from dashboard import loaders
from sandbox import RunningSandbox
from sandbox.auth import USER_INFO_ACCESS_TOKEN_PREFIX
from tests.dashboard.conftest import user

NO_RETRIES = RetryPolicy(max_retries=0, max_server_error_retries=0)


def client_for(running: RunningSandbox, lacking: str | None = None) -> ApiClient:
    who = user(running, lacking=lacking)
    return ApiClient(
        base_url=running.base_url,
        token=who.token,
        company_id=who.company_id,
        retry_policy=NO_RETRIES,
    )


@pytest.fixture
def client(sandbox: RunningSandbox) -> Iterator[ApiClient]:
    with client_for(sandbox) as made:
        yield made


def test_load_plans_gives_one_row_per_plan(client: ApiClient) -> None:
    data = loaders.load_plans(client, active_only=False)

    assert len(data.plans) == len(client.plans(active=False))
    assert data.plans["plan_id"].is_unique
    assert data.skipped == ()


def test_load_executions_reports_progress_and_matches_the_service(client: ApiClient) -> None:
    progress: list[tuple[int, int]] = []

    data = loaders.load_executions(
        client, on_progress=lambda done, total: progress.append((done, total))
    )

    assert len(data.executions) == len(client.all_executions())
    assert progress
    assert progress[-1][0] == progress[-1][1]
    assert set(data.status_counts["execution_id"]) <= set(data.executions["execution_id"])


def test_one_scenario_that_fails_is_a_warning_beside_the_others(client: ApiClient) -> None:
    plan = next(p for p in client.plans(active=False) if len(p.scenarios) >= 2)
    execution = client.all_executions(plan_id=plan.id)[0]
    unknown_scenario = 987_654

    data = loaders.load_execution_results(
        client, execution_id=execution.id, scenario_ids=[*plan.scenarios, unknown_scenario]
    )

    assert data.scenarios == len(plan.scenarios) + 1
    assert [f.scenario_id for f in data.failures] == [unknown_scenario]
    assert "scenario 987654" in data.failures[0].message
    assert set(data.results["scenario_id"]) == set(plan.scenarios)
    assert USER_INFO_ACCESS_TOKEN_PREFIX not in data.results.to_csv()


def test_a_failure_of_every_scenario_for_one_reason_is_raised_once(
    sandbox: RunningSandbox, client: ApiClient
) -> None:
    plan = next(p for p in client.plans(active=False) if p.scenarios)
    execution = client.all_executions(plan_id=plan.id)[0]

    with (
        client_for(sandbox, lacking="TEST_RESULT_VIEW") as limited,
        pytest.raises(PermissionDeniedError),
    ):
        loaders.load_execution_results(
            limited, execution_id=execution.id, scenario_ids=plan.scenarios
        )


def test_skipped_records_are_reported_not_raised(faulty_sandbox: RunningSandbox) -> None:
    with client_for(faulty_sandbox) as faulty:
        plans = loaders.load_plans(faulty, active_only=False)
        executions = loaders.load_executions(faulty)

    assert plans.skipped
    assert plans.skipped[0].reason
    assert len(plans.plans) >= 1
    assert executions.skipped
    assert len(executions.executions) >= 1


def test_when_every_scenario_fails_the_most_telling_error_is_raised() -> None:
    # The first scenario is unknown (404), the others fail for a reason worth telling (500).
    def respond(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/scenario/1"):
            return httpx.Response(404, json={"error": "TEST_SCENARIO_NOT_FOUND"})
        return httpx.Response(500, json={"error": "SYSTEM_INTERNAL_ERROR", "message": "boom"})

    with (
        httpx.Client(transport=httpx.MockTransport(respond)) as http,
        ApiClient(
            base_url="http://service.test",
            token="t",
            company_id=1,
            http_client=http,
            retry_policy=NO_RETRIES,
        ) as client,
        pytest.raises(InternalServerError),
    ):
        loaders.load_execution_results(client, execution_id=5, scenario_ids=[1, 2, 3])
