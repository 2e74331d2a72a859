"""The client and the sandbox agree on the spec: shapes, filters, paging and every error."""

from __future__ import annotations

import logging
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest

from api_client import (
    ApiClient,
    ApiConnectionError,
    AuthenticationError,
    CompanyNotFoundError,
    Execution,
    ExecutionNotFoundError,
    ExecutionQuery,
    InvalidRequestError,
    Operation,
    PermissionDeniedError,
    ScenarioNotFoundError,
    UnauthorizedUserError,
)
from sandbox import RunningSandbox, demo_users
from tests.contract.conftest import PREFIX, ClientFactory, full_user, user_lacking


def test_plans_fit_the_models_strictly_and_respect_the_active_filter(
    client_for: ClientFactory,
) -> None:
    client = client_for()

    active = client.plans()
    every = client.plans(active=False)

    assert active, "the demo company has active plans"
    assert active.skipped == []
    assert all(plan.enabled for plan in active)
    assert {p.id for p in active} < {p.id for p in every}, "some demo plans are inactive"
    assert {p.company_id for p in every} == {client.company_id}
    assert {p.type for p in every} >= {"SELENIUM", "APPIUM"}
    for plan in every:
        mobile_only = (plan.clear_app_data, plan.uninstall_app_after_test)
        if plan.type == "APPIUM":
            assert None not in mobile_only
        else:
            assert mobile_only == (None, None)


def test_plans_can_be_narrowed_to_a_project(client_for: ClientFactory) -> None:
    client = client_for()
    every = client.plans(active=False)
    project_id = every[0].project_id
    assert project_id is not None

    narrowed = client.plans(project_id=project_id, active=False)

    assert narrowed
    assert {p.id for p in narrowed} == {p.id for p in every if p.project_id == project_id}


def test_all_executions_equals_a_manual_walk_of_every_page(client_for: ClientFactory) -> None:
    client = client_for()
    first = client.executions(page=1, size=7)
    walked: list[Execution] = []
    for number in range(1, first.page_count + 1):
        page = client.executions(page=number, size=7)
        assert page.current_page == number
        assert page.total_count == first.total_count
        walked.extend(page.item_list)
    progress: list[tuple[int, int]] = []

    everything = client.all_executions(
        page_size=7, on_progress=lambda d, t: progress.append((d, t))
    )

    assert [e.id for e in everything] == [e.id for e in walked]
    assert len(everything) == first.total_count
    assert len({e.id for e in everything}) == len(everything)
    starts = [e.start_date for e in everything]
    assert starts == sorted(starts, reverse=True)  # newest first
    assert progress[-1] == (first.page_count, first.page_count)


def test_page_links_are_absolute_or_empty_and_carry_the_prefix(
    client_for: ClientFactory, contract_sandbox: RunningSandbox
) -> None:
    client = client_for()
    first = client.executions(page=1, size=10)
    last = client.executions(page=first.page_count, size=10)

    assert first.previous_page == ""
    assert first.next_page.startswith(contract_sandbox.base_url + "/api/")
    assert last.next_page == ""
    assert last.previous_page.startswith("http")
    assert first.rest_api_url == contract_sandbox.base_url + "/api"
    assert contract_sandbox.base_url.endswith(PREFIX)


def test_filters_by_plan_project_status_and_time_window(client_for: ClientFactory) -> None:
    client = client_for()
    everything = client.all_executions(page_size=100)
    sample = everything[len(everything) // 2]
    assert sample.start_date is not None
    window_start = sample.start_date - timedelta(days=3)
    window_end = sample.start_date + timedelta(days=3)

    by_plan = client.all_executions(ExecutionQuery(plan_id=sample.plan_id))
    by_project = client.all_executions(ExecutionQuery(project_id=sample.project_id))
    in_window = client.all_executions(ExecutionQuery(date_from=window_start, date_to=window_end))
    in_window_ms = client.all_executions(
        ExecutionQuery(
            date_from=int(window_start.timestamp() * 1000),
            date_to=int(window_end.timestamp() * 1000),
        )
    )
    failed = client.all_executions(ExecutionQuery(status="FAILURE"))

    assert by_plan
    assert {e.plan_id for e in by_plan} == {sample.plan_id}
    assert {e.project_id for e in by_project} == {sample.project_id}
    assert {e.id for e in by_plan} <= {e.id for e in by_project}
    assert sample.id in {e.id for e in in_window}
    assert all(window_start <= e.start_date <= window_end for e in in_window if e.start_date)
    assert [e.id for e in in_window] == [e.id for e in in_window_ms]
    expected_window = [
        e.id for e in everything if e.start_date and window_start <= e.start_date <= window_end
    ]
    assert [e.id for e in in_window] == expected_window
    assert failed, "the demo data has failed executions"
    assert all(e.result_summary.get("FAILURE", 0) > 0 for e in failed)


def test_the_sandbox_takes_the_largest_page_size_without_a_fallback(
    client_for: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    client = client_for()

    with caplog.at_level(logging.DEBUG, logger="api_client"):
        largest = client.all_executions()
    # The client's own lines of that walk only: the sandbox's access log may be on too (the
    # dashboard tests count requests with it), and it names the same paths.
    asked = [
        r.getMessage()
        for r in caplog.records
        if r.name.startswith("api_client") and "executions/filter" in r.getMessage()
    ]
    small = client.all_executions(page_size=37)

    assert asked
    assert all("size=1000" in line and "-> 200" in line for line in asked), asked
    assert len(asked) == -(-len(largest) // 1000)  # one request per thousand
    assert [e.model_dump() for e in largest] == [e.model_dump() for e in small]
    assert largest.truncation is None


def test_no_matching_executions_is_an_empty_answer(client_for: ClientFactory) -> None:
    client = client_for()
    long_ago = datetime(1999, 1, 1, tzinfo=UTC)

    page = client.executions(
        page=1, size=10, query=ExecutionQuery(date_from=long_ago, date_to=long_ago)
    )

    assert (page.total_count, page.item_list) == (0, [])
    assert client.all_executions(ExecutionQuery(date_from=long_ago, date_to=long_ago)) == []


def test_results_of_an_execution_agree_with_its_summary(
    client_for: ClientFactory, contract_sandbox: RunningSandbox
) -> None:
    client = client_for()
    plans = {plan.id: plan for plan in client.plans(active=False)}
    for execution in client.executions(page=1, size=5).item_list:
        assert execution.plan_id is not None
        results = [
            result
            for scenario_id in plans[execution.plan_id].scenarios
            for result in client.test_results(execution.id, scenario_id)
        ]

        assert Counter(r.level for r in results) == Counter(execution.result_summary)
        assert sorted(r.id for r in results) == sorted(execution.test_results)
        for result in results:
            assert result.execution_id == execution.id
            assert result.environment is not None
            assert result.user_info is not None
            assert result.user_info.access_token is not None
            assert result.node_log_path is not None
            # The demo's logs are served by the sandbox itself
            # (docs/spec-decisions.md, decision 22).
            assert result.node_log_path.startswith(f"{contract_sandbox.base_url}/storage/")
            assert result.start_date is not None
            assert result.start_date.tzinfo == UTC


def test_the_same_seed_answers_identically(client_for: ClientFactory) -> None:
    first = client_for().executions(page=2, size=20)
    second = client_for().executions(page=2, size=20)

    assert first.model_dump() == second.model_dump()


# -- errors, end to end --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("authority", "call", "status"),
    [
        ("TEST_RESULT_VIEW", lambda c: c.test_results(1, 1), 401),
        ("TEST_EXECUTION_VIEW", lambda c: c.executions(page=1, size=5), 403),
        ("PLAN_VIEW", lambda c: c.plans(), 403),
    ],
)
def test_a_missing_authority_is_access_denied_with_the_specs_status(
    client_for: ClientFactory,
    contract_sandbox: RunningSandbox,
    authority: str,
    call: object,
    status: int,
) -> None:
    client = client_for(user_lacking(contract_sandbox, authority))

    with pytest.raises(PermissionDeniedError) as caught:
        call(client)  # type: ignore[operator]

    assert caught.value.status_code == status
    assert caught.value.code == "ACCESS_DENIED"
    assert caught.value.missing_authority == authority


def test_a_wrong_token_is_an_authentication_error(client_for: ClientFactory) -> None:
    client = client_for(token="sbx-not-a-real-token")

    for call in (lambda: client.plans(), lambda: client.test_results(1, 1)):
        with pytest.raises(AuthenticationError) as caught:
            call()
        assert caught.value.status_code == 401


def test_another_companys_id_is_refused(
    client_for: ClientFactory, contract_sandbox: RunningSandbox
) -> None:
    client = client_for(full_user(contract_sandbox, company_id=2), company_id=1)

    with pytest.raises(PermissionDeniedError) as caught:
        client.plans()

    assert caught.value.status_code == 403


def test_results_of_another_companys_execution_are_not_found(
    client_for: ClientFactory, contract_sandbox: RunningSandbox
) -> None:
    mine = client_for()
    execution = mine.executions(page=1, size=1).item_list[0]
    plan = next(p for p in mine.plans(active=False) if p.id == execution.plan_id)
    assert mine.test_results(execution.id, plan.scenarios[0])  # visible to its own company
    other_company = client_for(full_user(contract_sandbox, company_id=2))

    with pytest.raises(ExecutionNotFoundError):
        other_company.test_results(execution.id, plan.scenarios[0])


def test_unknown_execution_and_scenario_are_their_own_errors(client_for: ClientFactory) -> None:
    client = client_for()
    execution = client.executions(page=1, size=1).item_list[0]

    with pytest.raises(ExecutionNotFoundError) as no_execution:
        client.test_results(999_999_999, 1)
    with pytest.raises(ScenarioNotFoundError) as no_scenario:
        client.test_results(execution.id, 999_999_999)

    assert (no_execution.value.status_code, no_execution.value.code) == (404, "EXECUTION_NOT_FOUND")
    assert no_scenario.value.code == "TEST_SCENARIO_NOT_FOUND"
    assert no_scenario.value.operation is Operation.TEST_RESULTS


def test_an_email_filter_of_someone_else_is_unauthorized_user(
    client_for: ClientFactory, contract_sandbox: RunningSandbox
) -> None:
    me = full_user(contract_sandbox)
    someone_else = next(u for u in demo_users(contract_sandbox.settings) if u.email != me.email)
    client = client_for(me)

    mine = client.executions(page=1, size=5, query=ExecutionQuery(email=me.email))
    with pytest.raises(UnauthorizedUserError) as caught:
        client.executions(page=1, size=5, query=ExecutionQuery(email=someone_else.email))

    assert caught.value.status_code == 403
    assert all(e.user_id is not None for e in mine.item_list)


def test_a_user_of_a_missing_company_gets_company_not_found(
    client_for: ClientFactory, contract_sandbox: RunningSandbox
) -> None:
    known_companies = {u.company_id for u in demo_users(contract_sandbox.settings)[:-1]}
    orphan = demo_users(contract_sandbox.settings)[-1]
    assert orphan.company_id not in known_companies

    with pytest.raises(CompanyNotFoundError) as caught:
        client_for(orphan).test_results(1, 1)

    assert (caught.value.status_code, caught.value.code) == (500, "USERS_COMPANY_NOT_EXISTS")


def test_the_service_rejects_what_it_finds_malformed(client_for: ClientFactory) -> None:
    client = client_for()

    with pytest.raises(InvalidRequestError) as caught:
        client.executions(page=1, size=10, query=ExecutionQuery(status="NOT_A_STATUS"))

    assert (caught.value.status_code, caught.value.code) == (400, "INVALID_REQUEST")


def test_a_stopped_service_is_a_connection_error() -> None:
    with (
        ApiClient(
            base_url="http://127.0.0.1:9/Api", token="x", company_id=1, max_retries=0
        ) as client,
        pytest.raises(ApiConnectionError, match=r"127\.0\.0\.1:9"),
    ):
        client.plans()
