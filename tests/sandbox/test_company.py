"""The company header and company isolation: nobody ever sees another company's data."""

from __future__ import annotations

import httpx
import pytest

from sandbox import DemoUser
from tests.sandbox.helpers import (
    FILTER,
    PLANS,
    RESULTS,
    UserPicker,
    all_executions,
    assert_error,
    company_headers,
    headers,
)

LISTS = [(FILTER, {"page": 1, "size": 5}), (PLANS, {})]


@pytest.mark.parametrize(("path", "params"), LISTS)
@pytest.mark.parametrize("company_header", [None, "", "one", "1.0", str(2**63)])
def test_missing_or_malformed_company_header_is_invalid_request(
    http: httpx.Client,
    demo_user: UserPicker,
    path: str,
    params: dict[str, int],
    company_header: str | None,
) -> None:
    request_headers = headers(demo_user())
    if company_header is not None:
        request_headers["current-company-id"] = company_header
    response = http.get(path, params=params, headers=request_headers)
    assert_error(response, 400, "INVALID_REQUEST")
    assert "current-company-id" in response.json()["message"]


@pytest.mark.parametrize(("path", "params"), LISTS)
@pytest.mark.parametrize(("own", "other"), [(1, 2), (2, 1), (1, 99)])
def test_another_companys_id_is_access_denied(
    http: httpx.Client,
    demo_user: UserPicker,
    path: str,
    params: dict[str, int],
    own: int,
    other: int,
) -> None:
    response = http.get(path, params=params, headers=headers(demo_user(company_id=own), other))
    assert_error(response, 403, "ACCESS_DENIED")


def test_membership_is_checked_before_the_query_parameters(
    http: httpx.Client, demo_user: UserPicker
) -> None:
    response = http.get(FILTER, params={"page": 0}, headers=headers(demo_user(), 2))
    assert_error(response, 403, "ACCESS_DENIED")


def test_lists_hold_only_the_callers_company(http: httpx.Client, demo_user: UserPicker) -> None:
    for company_id in (1, 2):
        user = demo_user(company_id=company_id)
        executions = all_executions(http, user)
        assert executions
        assert {e["company_id"] for e in executions} == {company_id}
        plans = http.get(PLANS, params={"active": False}, headers=company_headers(user)).json()
        assert plans
        assert {p["company_id"] for p in plans} == {company_id}


def _first_execution(http: httpx.Client, user: DemoUser) -> dict[str, int]:
    page = http.get(FILTER, params={"page": 1, "size": 1}, headers=company_headers(user)).json()
    execution: dict[str, int] = page["item_list"][0]
    return execution


def _scenarios_of(http: httpx.Client, user: DemoUser, plan_id: int) -> list[int]:
    plans = http.get(PLANS, params={"active": False}, headers=company_headers(user)).json()
    scenarios: list[int] = next(p["scenarios"] for p in plans if p["id"] == plan_id)
    return scenarios


def test_results_of_another_companys_execution_are_not_found(
    http: httpx.Client, demo_user: UserPicker
) -> None:
    acme, globex = demo_user(company_id=1), demo_user(company_id=2)
    execution = _first_execution(http, acme)
    scenario_id = _scenarios_of(http, acme, execution["plan_id"])[0]
    path = RESULTS.format(execution_id=execution["id"], scenario_id=scenario_id)
    assert http.get(path, headers=headers(acme)).status_code == 200
    assert_error(http.get(path, headers=headers(globex)), 404, "EXECUTION_NOT_FOUND")


def test_another_companys_scenario_is_not_found(http: httpx.Client, demo_user: UserPicker) -> None:
    acme, globex = demo_user(company_id=1), demo_user(company_id=2)
    own_execution = _first_execution(http, globex)
    foreign_scenario = _scenarios_of(http, acme, _first_execution(http, acme)["plan_id"])[0]
    path = RESULTS.format(execution_id=own_execution["id"], scenario_id=foreign_scenario)
    assert_error(http.get(path, headers=headers(globex)), 404, "TEST_SCENARIO_NOT_FOUND")


def test_results_ignore_a_company_header(http: httpx.Client, demo_user: UserPicker) -> None:
    # The results operation takes the company from the user, never from a header.
    acme = demo_user(company_id=1)
    execution = _first_execution(http, demo_user(company_id=2))
    path = RESULTS.format(execution_id=execution["id"], scenario_id=1)
    assert_error(http.get(path, headers=headers(acme, 2)), 404, "EXECUTION_NOT_FOUND")


def test_user_of_a_missing_company_gets_users_company_not_exists(
    http: httpx.Client, demo_user: UserPicker, orphan_user: DemoUser
) -> None:
    execution = _first_execution(http, demo_user())
    path = RESULTS.format(execution_id=execution["id"], scenario_id=1)
    assert_error(http.get(path, headers=headers(orphan_user)), 500, "USERS_COMPANY_NOT_EXISTS")


def test_user_of_a_missing_company_finds_no_executions_and_no_plans(
    http: httpx.Client, orphan_user: DemoUser
) -> None:
    response = http.get(FILTER, params={"page": 1, "size": 5}, headers=company_headers(orphan_user))
    assert_error(response, 404, "TEST_EXECUTION_NOT_FOUND")
    response = http.get(PLANS, headers=company_headers(orphan_user))
    assert response.status_code == 200
    assert response.json() == []
