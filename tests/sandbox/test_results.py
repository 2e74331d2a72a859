"""GET /api/results/execution/{executionId}/scenario/{scenarioId} (spec 4.1), and how its
results agree with the executions that list them."""

from __future__ import annotations

import re
from collections import Counter
from datetime import datetime
from typing import Any

import httpx
import pytest

from sandbox import DemoUser, RunningSandbox
from sandbox.auth import BEARER_TOKEN_PREFIX, USER_INFO_ACCESS_TOKEN_PREFIX
from tests.sandbox.helpers import (
    ENVIRONMENT_FIELDS,
    FILTER,
    PLANS,
    RESULT_FIELDS,
    RESULTS,
    USER_INFO_FIELDS,
    UserPicker,
    all_executions,
    assert_error,
    company_headers,
    headers,
)

Record = dict[str, Any]
SESSION_ID = re.compile(
    r"[0-9]{20}|[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"
)
# The demo's logs are served by the sandbox itself, at the origin the request came to.
LOG_PATH = (
    r"/storage/(?P<company>\d+)/(?P<date>\d{4}/\d{2}/\d{2})/"
    r"(?P<session>[^/]+)/(?P<file>node\.log|testResult\.log)"
)
LOG_FILES = (("node_log_path", "node.log"), ("executor_log_path", "testResult.log"))


@pytest.fixture(scope="module")
def lead(demo_user: UserPicker) -> DemoUser:
    return demo_user()


@pytest.fixture(scope="module")
def plan_scenarios(http: httpx.Client, lead: DemoUser) -> dict[int, list[int]]:
    plans = http.get(PLANS, params={"active": False}, headers=company_headers(lead)).json()
    return {plan["id"]: plan["scenarios"] for plan in plans}


@pytest.fixture(scope="module")
def recent(http: httpx.Client, lead: DemoUser) -> list[Record]:
    """The 40 newest executions of company 1."""
    page = http.get(FILTER, params={"page": 1, "size": 40}, headers=company_headers(lead)).json()
    items: list[Record] = page["item_list"]
    return items


def _results(http: httpx.Client, user: DemoUser, execution_id: int, scenario_id: int) -> Any:
    path = RESULTS.format(execution_id=execution_id, scenario_id=scenario_id)
    response = http.get(path, headers=headers(user))
    assert response.status_code == 200, response.text
    return response.json()


def _all_results(
    http: httpx.Client, user: DemoUser, execution: Record, scenarios: list[int]
) -> list[Record]:
    return [r for s in scenarios for r in _results(http, user, execution["id"], s)]


def test_results_match_the_executions_summary_and_ids(
    http: httpx.Client, lead: DemoUser, recent: list[Record], plan_scenarios: dict[int, list[int]]
) -> None:
    for execution in recent:
        results = _all_results(http, lead, execution, plan_scenarios[execution["plan_id"]])
        assert Counter(r["level"] for r in results) == execution["result_summary"]
        assert sorted(r["id"] for r in results) == sorted(execution["test_results"])


def test_a_result_has_every_spec_field_with_its_type(
    http: httpx.Client, lead: DemoUser, recent: list[Record], plan_scenarios: dict[int, list[int]]
) -> None:
    execution = recent[-1]
    results = _all_results(http, lead, execution, plan_scenarios[execution["plan_id"]])
    for result in results:
        assert set(result) == RESULT_FIELDS
        assert set(result["environment"]) == ENVIRONMENT_FIELDS
        assert set(result["user_info"]) == USER_INFO_FIELDS
        assert isinstance(result["runtime"], int)
        assert result["screen_shot_type"] in {"FULL", "NO"}
        assert result["video_format"] == "FLV"
        assert re.fullmatch(r"\d+x\d+", result["screen_resolution"])
        assert (result["execution_id"], result["company_id"]) == (execution["id"], 1)
        assert (result["plan_id"], result["project_id"]) == (
            execution["plan_id"],
            execution["project_id"],
        )
        assert result["user_id"] == execution["user_id"] == result["user_info"]["id"]
        assert datetime.fromisoformat(result["start_date"]) >= datetime.fromisoformat(
            execution["start_date"]
        )


def test_one_result_per_environment_of_the_execution(
    http: httpx.Client, lead: DemoUser, recent: list[Record], plan_scenarios: dict[int, list[int]]
) -> None:
    for execution in recent[:10]:
        scenarios = plan_scenarios[execution["plan_id"]]
        per_scenario = [_results(http, lead, execution["id"], s) for s in scenarios]
        environments = {r["environment"]["id"] for r in per_scenario[0]}
        assert 1 <= len(environments) <= 3
        for scenario_id, results in zip(scenarios, per_scenario, strict=True):
            assert {r["scenario_id"] for r in results} == {scenario_id}
            assert {r["environment"]["id"] for r in results} == environments
            assert len(results) == len(environments)


def test_keys_sessions_and_log_paths_have_the_services_shapes(
    http: httpx.Client,
    lead: DemoUser,
    recent: list[Record],
    plan_scenarios: dict[int, list[int]],
    live_sandbox: RunningSandbox,
) -> None:
    log_path = re.compile(re.escape(live_sandbox.base_url) + LOG_PATH)
    seen_mobile = seen_desktop = False
    for execution in recent:
        for result in _all_results(http, lead, execution, plan_scenarios[execution["plan_id"]]):
            env = result["environment"]
            head = (
                f"TEST-C1-P{result['plan_id']}-E{result['execution_id']}-S{result['scenario_id']}"
            )
            tail = f"-{env['operating_system']}-{env['browser_type']}-{env['environment_version']}"
            if env["mobile"]:
                seen_mobile = True
                assert result["test_key"] == head + tail
            else:
                seen_desktop = True
                assert result["test_key"] == f"{head}-ENV:{env['id']}{tail}"
                assert env["environment_type"] == env["browser_type"].lower()
            assert SESSION_ID.fullmatch(result["session_id"])
            for key, file in (
                ("node_log_path", "node.log"),
                ("executor_log_path", "testResult.log"),
            ):
                match = log_path.fullmatch(result[key])
                assert match, result[key]
                assert match["company"] == "1"
                assert match["session"] == result["session_id"]
                assert match["file"] == file
                assert match["date"] == result["start_date"][:10].replace("-", "/")
    assert seen_mobile
    assert seen_desktop


def test_user_info_carries_a_recognisable_fake_access_token(
    http: httpx.Client, lead: DemoUser, recent: list[Record], plan_scenarios: dict[int, list[int]]
) -> None:
    execution = recent[0]
    result = _all_results(http, lead, execution, plan_scenarios[execution["plan_id"]])[0]
    info = result["user_info"]
    assert info["access_token"].startswith(USER_INFO_ACCESS_TOKEN_PREFIX)
    assert not info["access_token"].startswith(BEARER_TOKEN_PREFIX)
    assert all(role.startswith("ROLE_") for role in info["roles"])
    assert (info["language"], info["company_id"], info["current_company_id"]) == ("ENGLISH", 1, 1)


def test_a_running_execution_has_waiting_results(
    http: httpx.Client, lead: DemoUser, plan_scenarios: dict[int, list[int]]
) -> None:
    running = all_executions(http, lead, status="WAITING")
    assert running
    results = _all_results(http, lead, running[0], plan_scenarios[running[0]["plan_id"]])
    waiting = [r for r in results if r["level"] == "WAITING"]
    assert waiting
    assert all(r["runtime"] == 0 for r in waiting)


def test_unknown_execution_is_execution_not_found(http: httpx.Client, lead: DemoUser) -> None:
    response = http.get(RESULTS.format(execution_id=10**9, scenario_id=1), headers=headers(lead))
    assert_error(response, 404, "EXECUTION_NOT_FOUND")


def test_unknown_scenario_is_test_scenario_not_found(
    http: httpx.Client, lead: DemoUser, recent: list[Record]
) -> None:
    path = RESULTS.format(execution_id=recent[0]["id"], scenario_id=10**9)
    assert_error(http.get(path, headers=headers(lead)), 404, "TEST_SCENARIO_NOT_FOUND")


def test_execution_is_checked_before_scenario(http: httpx.Client, lead: DemoUser) -> None:
    path = RESULTS.format(execution_id=10**9, scenario_id=10**9)
    assert_error(http.get(path, headers=headers(lead)), 404, "EXECUTION_NOT_FOUND")


def test_a_scenario_not_in_the_execution_gives_an_empty_list(
    http: httpx.Client, lead: DemoUser, recent: list[Record], plan_scenarios: dict[int, list[int]]
) -> None:
    execution = recent[0]
    company_scenarios = {s for scenarios in plan_scenarios.values() for s in scenarios}
    outsider = min(company_scenarios - set(plan_scenarios[execution["plan_id"]]))
    assert _results(http, lead, execution["id"], outsider) == []


@pytest.mark.parametrize(
    ("execution_id", "scenario_id"), [("abc", "1"), ("1", "x"), ("1.0", "1"), (str(2**63), "1")]
)
def test_malformed_ids_are_invalid_request(
    http: httpx.Client, lead: DemoUser, execution_id: str, scenario_id: str
) -> None:
    path = RESULTS.format(execution_id=execution_id, scenario_id=scenario_id)
    assert_error(http.get(path, headers=headers(lead)), 400, "INVALID_REQUEST")
