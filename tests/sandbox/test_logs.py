"""The demo's log links: each opens a real, deterministic log served by the sandbox itself."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from sandbox import DemoUser, RunningSandbox, SandboxSettings, serve_in_thread
from sandbox.auth import BEARER_TOKEN_PREFIX, USER_INFO_ACCESS_TOKEN_PREFIX
from tests.sandbox.helpers import FILTER, PLANS, RESULTS, UserPicker, company_headers, headers

Record = dict[str, Any]
PUBLIC = "https://qa.example.test"
LOG_KEYS = ("node_log_path", "executor_log_path")
STAMP = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}Z (INFO |WARN |ERROR) \[")


def _results_of(client: httpx.Client, lead: DemoUser, executions: int) -> list[Record]:
    """Every result of the company's `executions` newest executions, with their plans' names."""
    plans = {
        plan["id"]: plan
        for plan in client.get(
            PLANS, params={"active": False}, headers=company_headers(lead)
        ).json()
    }
    page = client.get(FILTER, params={"page": 1, "size": executions}, headers=company_headers(lead))
    results = []
    for execution in page.json()["item_list"]:
        for scenario_id in plans[execution["plan_id"]]["scenarios"]:
            path = RESULTS.format(execution_id=execution["id"], scenario_id=scenario_id)
            for result in client.get(path, headers=headers(lead)).json():
                result["plan_name"] = plans[execution["plan_id"]]["plan_name"]
                results.append(result)
    return results


@pytest.fixture(scope="module")
def results(http: httpx.Client, demo_user: UserPicker) -> list[Record]:
    found = _results_of(http, demo_user(), 10)
    assert {r["level"] for r in found} >= {"SUCCESS", "WAITING"}
    return found


@pytest.fixture(scope="module")
def secrets(live_sandbox: RunningSandbox, results: list[Record]) -> set[str]:
    """Every credential a log could leak: the demo users' tokens and the fake access tokens."""
    return {user.token for user in live_sandbox.users} | {
        r["user_info"]["access_token"] for r in results
    }


def test_log_links_point_at_the_sandbox_itself(
    live_sandbox: RunningSandbox, results: list[Record]
) -> None:
    for result in results:
        day = result["start_date"][:10].replace("-", "/")
        folder = f"{live_sandbox.base_url}/storage/1/{day}/{result['session_id']}"
        assert result["node_log_path"] == f"{folder}/node.log"
        assert result["executor_log_path"] == f"{folder}/testResult.log"


def test_every_log_link_opens_a_log_without_a_token(
    http: httpx.Client, results: list[Record], secrets: set[str]
) -> None:
    for result in results:
        for key in LOG_KEYS:
            response = http.get(result[key])  # as a browser would: no Authorization header
            assert response.status_code == 200, (result[key], response.text)
            assert response.headers["content-type"].startswith("text/plain")
            text = response.text
            lines = text.splitlines()
            assert 2 <= len(lines) <= 12, text
            assert all(STAMP.match(line) for line in lines), text
            assert lines[0].startswith(result["start_date"][:10]), text
            assert result["session_id"] in text
            for secret in secrets:
                assert secret not in text
            assert BEARER_TOKEN_PREFIX not in text
            assert USER_INFO_ACCESS_TOKEN_PREFIX not in text


def test_the_executor_log_names_plan_scenario_environment_and_verdict(
    http: httpx.Client, results: list[Record]
) -> None:
    levels_seen = set()
    for result in results:
        text = http.get(result["executor_log_path"]).text
        assert f"plan '{result['plan_name']}'" in text
        assert f"(id {result['scenario_id']})" in text
        assert result["environment"]["name"] in text
        assert f"Result {result['id']}: {result['level']}" in text
        assert result["message"] in text
        levels_seen.add(result["level"])
        node = http.get(result["node_log_path"]).text
        assert result["environment"]["name"] in node
        if result["level"] != "WAITING":
            assert f"closed ({result['level']})" in node
    assert {"SUCCESS", "WAITING"} <= levels_seen
    assert levels_seen & {"FAILURE", "ERROR"}, "no failing result among the newest executions"


def test_a_log_is_the_same_on_every_request_and_every_instance(
    http: httpx.Client, live_sandbox: RunningSandbox, results: list[Record]
) -> None:
    with serve_in_thread(live_sandbox.settings) as other:
        for result in results[:10]:
            ours = http.get(result["node_log_path"]).text
            assert http.get(result["node_log_path"]).text == ours
            path = urlsplit(result["node_log_path"]).path
            assert http.get(other.base_url + path).text == ours


@pytest.fixture(scope="module")
def public() -> Iterator[RunningSandbox]:
    settings = SandboxSettings(executions=40, path_prefix="/svc", public_base_url=PUBLIC)
    with serve_in_thread(settings) as running:
        yield running


def test_behind_a_public_url_log_links_use_it_and_the_prefix(public: RunningSandbox) -> None:
    with httpx.Client(base_url=public.base_url) as client:
        results = _results_of(client, public.users[0], 3)
        assert results
        for result in results:
            for key in LOG_KEYS:
                assert result[key].startswith(f"{PUBLIC}/svc/storage/1/"), result[key]
                # The public origin is a proxy's; the path is served by this sandbox.
                local = public.base_url + result[key].removeprefix(f"{PUBLIC}/svc")
                assert client.get(local).status_code == 200


def test_unknown_log_paths_are_not_found(
    http: httpx.Client, live_sandbox: RunningSandbox, results: list[Record], demo_user: UserPicker
) -> None:
    result = next(r for r in results if r["session_id"].isdigit())
    path = urlsplit(result["node_log_path"]).path
    prefix, session, _ = path.rsplit("/", 2)
    other_company = _results_of(http, demo_user(company_id=2), 1)[0]
    other_path = urlsplit(other_company["node_log_path"]).path
    year = int(result["start_date"][:4])
    unknown = [
        f"{prefix}/{session}/other.log",
        f"{prefix}/{session}/node.log/extra",
        f"{prefix}/{int(session) + 1}/node.log",
        f"{prefix}/not-a-session/node.log",
        f"{prefix}/{session.replace(session[-1], 'x')}/node.log",
        path.replace(f"/{year}/", f"/{year - 1}/"),
        path.replace("/storage/1/", "/storage/2/"),
        path.replace("/storage/1/", "/storage/01/"),
        other_path.replace("/storage/2/", "/storage/1/"),
        "/storage/1/2026/11/20",
        "/storage",
        f"/api{path}",
    ]
    assert http.get(path).status_code == 200
    for bad in unknown:
        response = http.get(bad)
        assert response.status_code == 404, bad


def test_logs_are_not_part_of_the_api_document(http: httpx.Client) -> None:
    assert not [p for p in http.get("/openapi.json").json()["paths"] if "storage" in p]
