"""Loaders against a real sandbox over HTTP: frames, progress, partial failures, skipped records."""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from api_client import (
    ApiClient,
    ExecutionQuery,
    InternalServerError,
    InvalidRequestError,
    Operation,
    PermissionDeniedError,
    RetryPolicy,
    ScenarioNotFoundError,
)
from dashboard.data import frames, live
from dashboard.present.formatting import utc_text
from dashboard.present.notes import execution_not_found
from dashboard.state.params import ViewState
from dashboard.state.query import execution_query
from sandbox import RunningSandbox
from sandbox.auth import USER_INFO_ACCESS_TOKEN_PREFIX, bearer_token
from sandbox.data.catalog import PEOPLE
from tests.dashboard import records
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
    data = live.load_plans(client, active_only=False)

    assert len(data.plans) == len(client.plans(active=False))
    assert data.plans["plan_id"].is_unique
    assert data.skipped == ()


def test_load_executions_reports_progress_and_matches_the_service(client: ApiClient) -> None:
    progress: list[tuple[int, int]] = []

    data = live.load_executions(
        client, on_progress=lambda done, total: progress.append((done, total))
    )

    assert len(data.executions) == len(client.all_executions())
    assert progress
    assert progress[-1][0] == progress[-1][1]
    assert set(data.status_counts["execution_id"]) <= set(data.executions["execution_id"])


def test_one_scenario_that_fails_is_a_warning_beside_the_others(client: ApiClient) -> None:
    plan = next(p for p in client.plans(active=False) if len(p.scenarios) >= 2)
    execution = client.all_executions(ExecutionQuery(plan_id=plan.id))[0]
    unknown_scenario = 987_654

    data = live.load_execution_results(
        client, execution_id=execution.id, scenario_ids=[*plan.scenarios, unknown_scenario]
    )

    assert data.scenarios == len(plan.scenarios) + 1
    assert [f.scenario_id for f in data.failures] == [unknown_scenario]
    # The error itself is kept (the page words it): the service does not know that scenario.
    assert isinstance(data.failures[0].error, ScenarioNotFoundError)
    assert set(data.results["scenario_id"]) == set(plan.scenarios)
    assert USER_INFO_ACCESS_TOKEN_PREFIX not in data.results.to_csv()


def test_a_failure_of_every_scenario_for_one_reason_is_raised_once(
    sandbox: RunningSandbox, client: ApiClient
) -> None:
    plan = next(p for p in client.plans(active=False) if p.scenarios)
    execution = client.all_executions(ExecutionQuery(plan_id=plan.id))[0]

    with (
        client_for(sandbox, lacking="TEST_RESULT_VIEW") as limited,
        pytest.raises(PermissionDeniedError),
    ):
        live.load_execution_results(limited, execution_id=execution.id, scenario_ids=plan.scenarios)


def test_skipped_records_are_reported_not_raised(faulty_sandbox: RunningSandbox) -> None:
    with client_for(faulty_sandbox) as faulty:
        plans = live.load_plans(faulty, active_only=False)
        executions = live.load_executions(faulty)

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
        live.load_execution_results(client, execution_id=5, scenario_ids=[1, 2, 3])


def test_the_executions_page_and_the_results_page_ask_with_the_same_filters() -> None:
    now = datetime(2026, 11, 20, 18, 3, tzinfo=UTC)
    state = ViewState(project=2, plan=3, statuses=("ERROR",), mine=True, execution=9)

    filters = execution_query(state, now=now, email="me@example.test")

    # Statuses are applied to what is loaded (issue 15), so they are not part of the request.
    assert filters == ExecutionQuery(
        project_id=2,
        plan_id=3,
        date_from=datetime(2026, 11, 13, 18, 0, tzinfo=UTC),
        email="me@example.test",
    )
    assert execution_query(state, now=now, email=None).email is None
    assert filters.describe(utc_text) == [
        "project 2",
        "plan 3",
        "started from 13 Nov 2026, 18:00 UTC",
        "only mine",
    ]


def test_an_execution_is_found_in_the_listed_executions_with_one_query(
    client: ApiClient,
) -> None:
    execution = client.all_executions()[0]
    listed = ExecutionQuery(date_from=execution.start_date)
    asked: list[ExecutionQuery] = []

    def load(filters: ExecutionQuery) -> live.ExecutionsData:
        asked.append(filters)
        return live.load_executions(client, filters)

    found = live.find_execution(execution.id, listed=listed, started=None, load=load)

    assert found.header is not None
    assert found.header.execution_id == execution.id
    assert asked == [listed]


def test_an_execution_the_filters_miss_is_found_around_its_start(client: ApiClient) -> None:
    execution = client.all_executions(ExecutionQuery(date_to=datetime(2026, 10, 1, tzinfo=UTC)))[0]
    assert execution.start_date is not None
    listed = ExecutionQuery(date_from=datetime(2026, 11, 19, tzinfo=UTC))
    asked: list[ExecutionQuery] = []

    def load(filters: ExecutionQuery) -> live.ExecutionsData:
        asked.append(filters)
        return live.load_executions(client, filters)

    found = live.find_execution(
        execution.id, listed=listed, started=execution.start_date, load=load
    )

    assert found.header is not None
    assert found.header.plan_id == execution.plan_id
    margin = timedelta(minutes=1)
    assert asked == [
        listed,
        ExecutionQuery(
            date_from=execution.start_date - margin, date_to=execution.start_date + margin
        ),
    ]


def test_without_a_start_time_the_results_tell_when_the_execution_ran(client: ApiClient) -> None:
    plan = next(p for p in client.plans(active=False) if p.scenarios)
    execution = client.all_executions(
        ExecutionQuery(plan_id=plan.id, date_to=datetime(2026, 10, 1, tzinfo=UTC))
    )[0]
    listed = ExecutionQuery(plan_id=plan.id, date_from=datetime(2026, 11, 19, tzinfo=UTC))

    def results() -> live.ResultsData:
        return live.load_execution_results(
            client, execution_id=execution.id, scenario_ids=plan.scenarios
        )

    asked: list[ExecutionQuery] = []

    def load(filters: ExecutionQuery) -> live.ExecutionsData:
        asked.append(filters)
        return live.load_executions(client, filters)

    found = live.find_execution(
        execution.id, listed=listed, started=None, load=load, results=results
    )

    assert found.header is not None
    assert found.header.start == execution.start_date
    assert len(asked) == 2
    assert asked[1].plan_id == plan.id
    assert asked[1].date_from is not None
    assert asked[1].date_to is not None
    assert asked[1].date_to - asked[1].date_from <= timedelta(days=1, minutes=1)


def test_filters_without_a_start_bound_are_not_walked_when_the_link_has_a_start() -> None:
    asked: list[ExecutionQuery] = []

    def load(filters: ExecutionQuery) -> live.ExecutionsData:
        asked.append(filters)
        return live.ExecutionsData(
            frames.executions_frame([records.execution(1)]),
            frames.status_counts_frame([records.execution(1)]),
        )

    started = datetime(2026, 11, 20, 9, 15, tzinfo=UTC)
    everything_until = ExecutionQuery(date_to=datetime(2026, 11, 21, tzinfo=UTC))

    found = live.find_execution(1, listed=everything_until, started=started, load=load)

    assert found.header is not None
    assert [f.date_from for f in asked] == [started - timedelta(minutes=1)]


def test_a_rejected_filter_does_not_stop_the_search_and_missing_is_worded() -> None:
    def load(filters: ExecutionQuery) -> live.ExecutionsData:
        if filters.status:
            raise InvalidRequestError(
                "bad", status_code=400, code="INVALID_REQUEST", operation=Operation.EXECUTIONS
            )
        return live.ExecutionsData(
            frames.executions_frame([records.execution(1)]),
            frames.status_counts_frame([records.execution(1)]),
        )

    listed = ExecutionQuery(status="PROCESSING")
    started = datetime(2026, 11, 20, 9, 15, tzinfo=UTC)

    found = live.find_execution(1, listed=listed, started=started, load=load)
    missing = live.find_execution(2, listed=listed, started=started, load=load)

    assert found.header is not None
    assert missing.header is None
    assert "Execution 2 was not found among the executions of this link's filters" in (
        execution_not_found(missing, listed)
    )
    assert "(status PROCESSING), nor around 20 Nov 2026, 09:15 UTC" in execution_not_found(
        missing, listed
    )


def test_what_loaders_return_pickles_without_a_model_or_a_credential(
    sandbox: RunningSandbox, client: ApiClient
) -> None:
    """What the cache keeps is pickled: frames and strings only, never a model (whose
    `user_info.access_token` is another user's credential) and never a token."""
    plan = next(p for p in client.plans(active=False) if len(p.scenarios) >= 2)
    execution = client.all_executions(ExecutionQuery(plan_id=plan.id))[0]
    filters = ExecutionQuery(plan_id=plan.id)

    outputs = [
        live.load_plans(client, active_only=False),
        live.load_executions(client, filters),
        live.load_execution_results(
            client, execution_id=execution.id, scenario_ids=[*plan.scenarios, 987_654]
        ),
        live.find_execution(
            execution.id,
            listed=filters,
            started=None,
            load=lambda f: live.load_executions(client, f),
        ),
    ]

    seed = sandbox.settings.seed
    tokens = [bearer_token(seed, person.username) for person in PEOPLE]
    for output in outputs:
        data = pickle.dumps(output)
        assert USER_INFO_ACCESS_TOKEN_PREFIX.encode() not in data
        assert not [token for token in tokens if token.encode() in data]
        assert b"api_client" not in data  # no model object (nor an error holding a response)
        assert b"pydantic" not in data  # no SecretStr
