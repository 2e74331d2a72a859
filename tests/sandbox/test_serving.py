"""Serving: path prefixes, public URLs, identical answers for identical settings, OpenAPI."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from sandbox import RunningSandbox, SandboxSettings, serve_in_thread
from tests.sandbox.helpers import (
    FILTER,
    PLANS,
    RESULTS,
    UserPicker,
    assert_error,
    company_headers,
    headers,
)

PUBLIC = "https://qa.example.test"


@pytest.fixture(scope="module")
def prefixed() -> Iterator[RunningSandbox]:
    with serve_in_thread(SandboxSettings(path_prefix="/svc", public_base_url=PUBLIC)) as running:
        yield running


def _answers(running: RunningSandbox) -> list[Any]:
    """A fixed tour of the API: a page, the plans, and the results of its first execution."""
    lead = running.users[0]
    with httpx.Client(base_url=running.base_url) as client:
        page = client.get(FILTER, params={"page": 2, "size": 20}, headers=company_headers(lead))
        plans = client.get(PLANS, params={"active": False}, headers=company_headers(lead))
        execution = page.json()["item_list"][0]
        plan = next(p for p in plans.json() if p["id"] == execution["plan_id"])
        results = [
            client.get(
                RESULTS.format(execution_id=execution["id"], scenario_id=s), headers=headers(lead)
            ).json()
            for s in plan["scenarios"]
        ]
    return [page.json(), plans.json(), results]


def test_the_api_is_served_under_the_prefix(prefixed: RunningSandbox) -> None:
    assert prefixed.base_url.endswith("/svc")
    lead = prefixed.users[0]
    with httpx.Client(base_url=prefixed.base_url) as client:
        assert client.get(PLANS, headers=company_headers(lead)).status_code == 200
    origin = prefixed.base_url.removesuffix("/svc")
    with httpx.Client(base_url=origin) as client:
        response = client.get(PLANS, headers=company_headers(lead))
    assert response.status_code == 404
    assert response.json()["error"] == "NOT_FOUND"


def test_links_use_the_public_url_and_the_prefix(prefixed: RunningSandbox) -> None:
    lead = prefixed.users[0]
    with httpx.Client(base_url=prefixed.base_url) as client:
        page = client.get(FILTER, params={"page": 1, "size": 5}, headers=company_headers(lead))
    body = page.json()
    assert body["rest_api_url"] == f"{PUBLIC}/svc/api"
    assert body["next_page"] == f"{PUBLIC}/svc/api/executions/filter?page=2&size=5"


def test_openapi_documents_the_three_operations(prefixed: RunningSandbox) -> None:
    with httpx.Client(base_url=prefixed.base_url) as client:
        schema = client.get("/openapi.json").json()
        docs = client.get("/docs")
    assert set(schema["paths"]) == {
        "/svc/api/results/execution/{executionId}/scenario/{scenarioId}",
        "/svc/api/executions/filter",
        "/svc/api/plans/lazy",
        "/svc/oauth/token",  # the token endpoint, under the same prefix
    }
    flows = schema["components"]["securitySchemes"]["oauth2"]["flows"]
    assert {flow["tokenUrl"] for flow in flows.values()} == {"/svc/oauth/token"}
    operation = schema["paths"]["/svc/api/executions/filter"]["get"]
    assert {p["name"] for p in operation["parameters"]} == {
        "current-company-id", "projectId", "planId", "from", "to", "status", "page", "size",
        "email",
    }  # fmt: skip
    assert docs.status_code == 200
    assert "/svc/openapi.json" in docs.text


def test_same_settings_give_identical_answers() -> None:
    settings = SandboxSettings(public_base_url=PUBLIC)
    with serve_in_thread(settings) as first, serve_in_thread(settings) as second:
        assert first.base_url != second.base_url
        assert _answers(first) == _answers(second)


def test_another_seed_gives_other_answers_and_tokens() -> None:
    with (
        serve_in_thread(SandboxSettings(public_base_url=PUBLIC)) as first,
        serve_in_thread(SandboxSettings(seed=8, public_base_url=PUBLIC)) as second,
    ):
        assert first.users[0].token != second.users[0].token
        assert _answers(first)[0] != _answers(second)[0]


def test_framework_errors_use_the_services_error_shape(
    http: httpx.Client, demo_user: UserPicker
) -> None:
    assert_error(http.post(PLANS, headers=company_headers(demo_user())), 405, "METHOD_NOT_ALLOWED")
    assert_error(http.get("/api/plans"), 404, "NOT_FOUND")


def test_a_database_file_is_rebuilt_at_every_start(tmp_path: Path) -> None:
    settings = SandboxSettings(
        db_path=str(tmp_path / "demo.sqlite3"), executions=60, public_base_url=PUBLIC
    )
    with serve_in_thread(settings) as first:
        first_answers = _answers(first)
    with serve_in_thread(replace(settings, seed=8)) as second:
        assert _answers(second)[0] != first_answers[0]
    with serve_in_thread(settings) as third:
        assert _answers(third) == first_answers


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"executions": -1}, "executions"),
        ({"days": 0}, "days"),
        ({"path_prefix": "svc"}, "path_prefix"),
        ({"path_prefix": "/svc/"}, "path_prefix"),
        ({"public_base_url": "qa.example.test"}, "public_base_url"),
    ],
)
def test_impossible_settings_are_refused(bad: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SandboxSettings(**bad)
