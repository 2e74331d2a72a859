"""GET /api/executions/filter: validation, pagination, filters and the not-found rule (4.2)."""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest

from sandbox import Authority, DemoUser, RunningSandbox
from tests.sandbox.helpers import (
    EXECUTION_FIELDS,
    FILTER,
    PAGE_FIELDS,
    UserPicker,
    all_executions,
    assert_error,
    company_headers,
)

Execution = dict[str, Any]
STATUS_PRECEDENCE = ("WAITING", "ERROR", "FAILURE", "WARNING", "SUCCESS")


@pytest.fixture(scope="module")
def lead(demo_user: UserPicker) -> DemoUser:
    return demo_user()


@pytest.fixture(scope="module")
def executions(http: httpx.Client, lead: DemoUser) -> list[Execution]:
    """Every execution of company 1, newest first."""
    return all_executions(http, lead)


def _get(http: httpx.Client, user: DemoUser, **params: str | int) -> httpx.Response:
    return http.get(FILTER, params=params, headers=company_headers(user))


def _ms(timestamp: str) -> int:
    return int(datetime.fromisoformat(timestamp).timestamp() * 1000)


def _status(execution: Execution) -> str:
    """The execution status the filter uses, by the documented precedence."""
    return next(level for level in STATUS_PRECEDENCE if level in execution["result_summary"])


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"size": 10},
        {"page": 1},
        {"page": 0, "size": 10},
        {"page": -1, "size": 10},
        {"page": "one", "size": 10},
        {"page": 1, "size": 0},
        {"page": 1, "size": 1001},
        {"page": 1, "size": "1.5"},
        {"page": "1.0", "size": 10},
        {"page": " 1", "size": 10},
        {"page": 2**31, "size": 10},
        {"page": 1, "size": 10, "projectId": "web"},
        {"page": 1, "size": 10, "planId": 2**63},
        {"page": 1, "size": 10, "from": "yesterday"},
        {"page": 1, "size": 10, "status": "GREEN"},
        {"page": 1, "size": 10, "status": "success"},
    ],
)
def test_malformed_request_is_invalid_request(
    http: httpx.Client, lead: DemoUser, params: dict[str, str | int]
) -> None:
    assert_error(_get(http, lead, **params), 400, "INVALID_REQUEST")


def test_unknown_parameters_are_ignored(http: httpx.Client, lead: DemoUser) -> None:
    plain = _get(http, lead, page=1, size=5).json()
    assert _get(http, lead, page=1, size=5, sort="name", projectid=99).json() == plain


def test_the_message_names_the_faulty_parameter(http: httpx.Client, lead: DemoUser) -> None:
    message = _get(http, lead, size=10).json()["message"]
    assert "'page'" in message


def test_page_has_the_spec_fields_and_absolute_links(
    http: httpx.Client, lead: DemoUser, live_sandbox: RunningSandbox
) -> None:
    page = _get(http, lead, page=2, size=10).json()
    assert set(page) == PAGE_FIELDS
    assert set(page["item_list"][0]) == EXECUTION_FIELDS
    assert page["rest_api_url"] == live_sandbox.base_url + "/api"
    assert page["next_page"] == f"{live_sandbox.base_url}/api/executions/filter?page=3&size=10"
    assert page["previous_page"] == f"{live_sandbox.base_url}/api/executions/filter?page=1&size=10"


def test_walking_the_pages_yields_every_execution_once_newest_first(
    http: httpx.Client, lead: DemoUser, executions: list[Execution]
) -> None:
    first = _get(http, lead, page=1, size=7).json()
    total = first["total_count"]
    assert first["page_count"] == -(-total // 7)
    assert first["previous_page"] == ""
    walked = all_executions(http, lead, size=7)
    assert [e["id"] for e in walked] == [e["id"] for e in executions]
    assert len({e["id"] for e in walked}) == total == len(executions)
    keys = [(_ms(e["start_date"]), e["id"]) for e in walked]
    assert keys == sorted(keys, reverse=True)


def test_last_page_has_no_next_and_a_page_past_it_is_empty(
    http: httpx.Client, lead: DemoUser
) -> None:
    first = _get(http, lead, page=1, size=50).json()
    last_number = first["page_count"]
    last = _get(http, lead, page=last_number, size=50).json()
    assert last["next_page"] == ""
    assert len(last["item_list"]) == first["total_count"] - 50 * (last_number - 1)
    beyond = _get(http, lead, page=last_number + 5, size=50)
    assert beyond.status_code == 200
    body = beyond.json()
    assert body["item_list"] == []
    assert body["total_count"] == first["total_count"]
    assert body["next_page"] == ""
    assert dict(parse_qsl(urlsplit(body["previous_page"]).query))["page"] == str(last_number)


def test_links_keep_the_filters(http: httpx.Client, lead: DemoUser) -> None:
    params: dict[str, str | int] = {"projectId": 1, "from": 0, "to": 2**62, "email": lead.email}
    page = _get(http, lead, page=1, size=2, **params).json()
    assert page["page_count"] > 1
    query = dict(parse_qsl(urlsplit(page["next_page"]).query))
    assert query == {"page": "2", "size": "2", **{k: str(v) for k, v in params.items()}}


def test_from_and_to_bound_the_start_inclusively_in_milliseconds(
    http: httpx.Client, lead: DemoUser, executions: list[Execution]
) -> None:
    target = executions[len(executions) // 2]
    start_ms = _ms(target["start_date"])
    exact = _get(http, lead, page=1, size=1000, **{"from": start_ms, "to": start_ms}).json()
    assert target["id"] in {e["id"] for e in exact["item_list"]}
    assert all(_ms(e["start_date"]) == start_ms for e in exact["item_list"])
    after = _get(http, lead, page=1, size=1000, **{"from": start_ms + 1}).json()
    assert {e["id"] for e in after["item_list"]} == {
        e["id"] for e in executions if _ms(e["start_date"]) > start_ms
    }
    before = _get(http, lead, page=1, size=1000, to=start_ms - 1).json()
    assert {e["id"] for e in before["item_list"]} == {
        e["id"] for e in executions if _ms(e["start_date"]) < start_ms
    }


def test_nothing_matching_is_test_execution_not_found(
    http: httpx.Client, lead: DemoUser, executions: list[Execution]
) -> None:
    newest = _ms(executions[0]["start_date"])
    response = _get(http, lead, page=1, size=10, **{"from": newest + 1})
    assert_error(response, 404, "TEST_EXECUTION_NOT_FOUND")
    assert_error(_get(http, lead, page=1, size=10, projectId=999), 404, "TEST_EXECUTION_NOT_FOUND")


def test_status_filter_matches_the_summary(
    http: httpx.Client, lead: DemoUser, executions: list[Execution]
) -> None:
    expected = Counter(_status(e) for e in executions)
    assert set(expected) == set(STATUS_PRECEDENCE), "the demo data should show every status"
    for status, count in expected.items():
        found = all_executions(http, lead, status=status)
        assert len(found) == count
        assert {_status(e) for e in found} == {status}


def test_project_and_plan_filters(
    http: httpx.Client, lead: DemoUser, executions: list[Execution]
) -> None:
    by_project = Counter(e["project_id"] for e in executions)
    assert len(by_project) >= 3
    for project_id, count in by_project.items():
        found = all_executions(http, lead, projectId=project_id)
        assert len(found) == count
        assert {e["project_id"] for e in found} == {project_id}
    plan_id, project_id = executions[0]["plan_id"], executions[0]["project_id"]
    found = all_executions(http, lead, planId=plan_id, projectId=project_id)
    assert found
    assert {e["plan_id"] for e in found} == {plan_id}
    other_project = next(p for p in by_project if p != project_id)
    response = _get(http, lead, page=1, size=10, planId=plan_id, projectId=other_project)
    assert_error(response, 404, "TEST_EXECUTION_NOT_FOUND")


def test_own_email_narrows_to_own_executions(
    http: httpx.Client, lead: DemoUser, executions: list[Execution]
) -> None:
    mine = [e for e in executions if e["user_id"] == lead.id]
    assert 0 < len(mine) < len(executions)
    found = all_executions(http, lead, email=lead.email)
    assert [e["id"] for e in found] == [e["id"] for e in mine]
    assert {e["username"] for e in found} == {lead.username}
    # E-mail addresses are compared without regard to case; an empty field means "not given".
    assert len(all_executions(http, lead, email=lead.email.upper())) == len(mine)
    assert len(all_executions(http, lead, email="")) == len(executions)


def test_someone_elses_email_is_unauthorized_user(
    http: httpx.Client, demo_user: UserPicker, lead: DemoUser
) -> None:
    colleague = demo_user(lacking=Authority.PLAN_VIEW)
    for email in (colleague.email, demo_user(company_id=2).email, "nobody@example.com"):
        response = _get(http, lead, page=1, size=10, email=email)
        assert_error(response, 403, "UNAUTHORIZED_USER")


def test_executions_are_internally_consistent(executions: list[Execution]) -> None:
    for execution in executions:
        summary = execution["result_summary"]
        assert sum(summary.values()) == len(execution["test_results"])
        assert (
            execution["test_result_status_counts"]
            == "[" + ", ".join(f"{level}, {count}" for level, count in summary.items()) + "]"
        )
        duration_ms = _ms(execution["end_date"]) - _ms(execution["start_date"])
        assert duration_ms == execution["runtime"]
