"""Fault injection: each fault at rate 1.0, reproducibility from the fault seed, and scope."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

import httpx
import pytest

from sandbox import FaultSettings, RunningSandbox, SandboxSettings, serve_in_thread
from tests.sandbox.helpers import FILTER, PLANS, RESULTS, company_headers, headers
from tests.waiting import PATIENT_S

PUBLIC = "https://qa.example.test"
EXECUTIONS = 40

Call = Callable[[RunningSandbox, str], httpx.Response]

# Each operation, with the error code an injected 500 must carry.
OPERATIONS = [
    ("results", "SYSTEM_INTERNAL_ERROR"),
    ("filter", "INTERNAL_SERVER_ERROR"),
    ("plans", "SYSTEM_INTERNAL_ERROR"),
]


@contextmanager
def faulty(**faults: Any) -> Iterator[RunningSandbox]:
    settings = SandboxSettings(
        executions=EXECUTIONS, public_base_url=PUBLIC, faults=FaultSettings(**faults)
    )
    with serve_in_thread(settings) as running:
        yield running


@pytest.fixture(scope="module")
def intact() -> Iterator[RunningSandbox]:
    with faulty() as running:
        yield running


@pytest.fixture(scope="module")
def results_path(intact: RunningSandbox) -> str:
    """Results of some scenario of some execution: the data is the same in every sandbox here."""
    lead = intact.users[0]
    with httpx.Client(base_url=intact.base_url) as client:
        page = client.get(FILTER, params={"page": 1, "size": 5}, headers=company_headers(lead))
        execution = page.json()["item_list"][-1]
        plans = client.get(PLANS, headers=company_headers(lead)).json()
    scenario = next(p["scenarios"][0] for p in plans if p["id"] == execution["plan_id"])
    return RESULTS.format(execution_id=execution["id"], scenario_id=scenario)


@pytest.fixture(scope="module")
def client() -> Iterator[httpx.Client]:
    # One client for every sandbox of the module (URLs are absolute): clients are slow to make.
    with httpx.Client(timeout=PATIENT_S) as shared:  # a loaded machine answers late, not wrong
        yield shared


@pytest.fixture
def call(client: httpx.Client, results_path: str) -> Call:
    """Calls an operation the way a healthy sandbox answers with a non-empty list."""

    def call(running: RunningSandbox, operation: str) -> httpx.Response:
        lead = running.users[0]
        requests = {
            "filter": (FILTER, {"page": 1, "size": 10}, company_headers(lead)),
            "plans": (PLANS, {}, company_headers(lead)),
            "results": (results_path, {}, headers(lead)),
        }
        path, params, auth = requests[operation]
        return client.get(running.base_url + path, params=params, headers=auth)

    return call


@pytest.mark.parametrize(("operation", "code"), OPERATIONS)
def test_injected_500_carries_the_operations_internal_error_code(
    call: Call, operation: str, code: str
) -> None:
    with faulty(error_rate=1.0, error_statuses=(500,)) as running:
        response = call(running, operation)
    assert response.status_code == 500
    assert response.json() == {"error": code, "message": "Unexpected error (injected)"}
    assert response.headers["X-Sandbox-Fault"] == "error-500"


def test_gateway_errors_come_as_html_pages(call: Call) -> None:
    with faulty(error_rate=1.0, error_statuses=(502, 503, 504)) as running:
        responses = [call(running, "plans") for _ in range(12)]
    assert {r.status_code for r in responses} == {502, 503, 504}
    for response in responses:
        assert response.headers["content-type"].startswith("text/html")
        with pytest.raises(json.JSONDecodeError):
            response.json()


def test_rate_limit_answers_429_with_the_configured_retry_after(call: Call) -> None:
    with faulty(rate_limit_rate=1.0, retry_after_seconds=3) as running:
        response = call(running, "filter")
    assert response.status_code == 429
    assert response.headers["Retry-After"] == "3"
    assert response.json()["error"] == "TOO_MANY_REQUESTS"


def test_faults_come_before_authentication() -> None:
    with faulty(rate_limit_rate=1.0) as running, httpx.Client(base_url=running.base_url) as client:
        assert client.get(PLANS).status_code == 429


SLOW_S = 8.0  # long, so what load adds to two requests is small beside it


def test_slow_answers_are_delayed_without_blocking_the_server(call: Call) -> None:
    with faulty(slow_rate=1.0, slow_seconds=SLOW_S) as running:
        started = time.monotonic()
        with ThreadPoolExecutor(max_workers=2) as pool:
            responses = list(pool.map(lambda op: call(running, op), ["filter", "plans"]))
        elapsed = time.monotonic() - started
    assert [r.status_code for r in responses] == [200, 200]
    # Each waited SLOW_S; together under twice that (one after the other), so they overlapped,
    # with SLOW_S to spare for a loaded machine.
    assert SLOW_S <= elapsed < 2 * SLOW_S


@pytest.mark.parametrize("operation", ["results", "filter", "plans"])
def test_dropped_connection_cuts_the_body(call: Call, operation: str) -> None:
    with faulty(drop_rate=1.0) as running, pytest.raises(httpx.RemoteProtocolError):
        call(running, operation)


@pytest.mark.parametrize("operation", ["results", "filter", "plans"])
def test_truncated_body_is_a_complete_message_with_half_the_json(
    call: Call, intact: RunningSandbox, operation: str
) -> None:
    whole = call(intact, operation).content
    with faulty(truncated_rate=1.0) as running:
        response = call(running, operation)
    assert response.status_code == 200
    assert response.headers["X-Sandbox-Fault"] == "truncated-body"
    assert int(response.headers["Content-Length"]) == len(response.content) == len(whole) // 2
    assert whole.startswith(response.content)
    with pytest.raises(json.JSONDecodeError):
        response.json()


def _records(body: Any) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = body["item_list"] if isinstance(body, dict) else body
    return records


@pytest.mark.parametrize("operation", ["results", "filter", "plans"])
def test_malformed_record_spoils_exactly_one_field_of_one_record(
    call: Call, intact: RunningSandbox, operation: str
) -> None:
    expected = _records(call(intact, operation).json())
    with faulty(malformed_record_rate=1.0) as running:
        response = call(running, operation)
    assert response.headers["X-Sandbox-Fault"] == "malformed-record"
    received = _records(response.json())
    assert len(received) == len(expected)
    spoiled = [
        {k: v for k, v in got.items() if want[k] != v}
        for got, want in zip(received, expected, strict=True)
        if got != want
    ]
    assert len(spoiled) == 1
    assert spoiled[0] in (
        {"id": "not-a-number"},
        {"start_date": "yesterday"},
        {"created_at": "yesterday"},
    )


def test_malformed_record_fault_leaves_errors_and_empty_lists_alone() -> None:
    with faulty(malformed_record_rate=1.0) as running:
        lead = running.users[0]
        with httpx.Client(base_url=running.base_url) as client:
            error = client.get(FILTER, headers=company_headers(lead))
            empty = client.get(PLANS, params={"projectId": 5}, headers=company_headers(lead))
    assert error.json()["error"] == "INVALID_REQUEST"
    assert empty.json() == []
    assert "X-Sandbox-Fault" not in error.headers
    assert "X-Sandbox-Fault" not in empty.headers


def test_faults_spare_documentation_and_unknown_paths() -> None:
    every_fault = {
        "error_rate": 1.0,
        "rate_limit_rate": 1.0,
        "drop_rate": 1.0,
        "truncated_rate": 1.0,
        "malformed_record_rate": 1.0,
    }
    with faulty(**every_fault) as running, httpx.Client(base_url=running.base_url) as client:
        assert client.get("/openapi.json").json()["paths"]
        assert client.get("/docs").status_code == 200
        assert client.get("/api/unknown").json()["error"] == "NOT_FOUND"


def _outcomes(call: Call, running: RunningSandbox, count: int) -> list[tuple[int, str]]:
    """What a sequential client meets: (status, fault) per request; (0, ...) for a drop."""
    seen = []
    for _ in range(count):
        try:
            response = call(running, "plans")
        except httpx.RemoteProtocolError:
            seen.append((0, "dropped-connection"))
        else:
            seen.append((response.status_code, response.headers.get("X-Sandbox-Fault", "")))
    return seen


SOME_OF_EACH = {
    "error_rate": 0.15,
    "rate_limit_rate": 0.15,
    "drop_rate": 0.15,
    "truncated_rate": 0.15,
    "malformed_record_rate": 0.15,
}


def test_the_fault_seed_makes_a_run_reproducible(call: Call) -> None:
    with faulty(seed=11, **SOME_OF_EACH) as first, faulty(seed=11, **SOME_OF_EACH) as second:
        first_run = _outcomes(call, first, 30)
        assert first_run == _outcomes(call, second, 30)
    assert len({fault for _, fault in first_run}) >= 4, "the rates should mix several faults"
    with faulty(seed=12, **SOME_OF_EACH) as other:
        assert _outcomes(call, other, 30) != first_run


@pytest.mark.parametrize(
    "bad",
    [
        {"error_rate": 1.5},
        {"drop_rate": -0.1},
        {"error_statuses": ()},
        {"error_statuses": (404,)},
        {"retry_after_seconds": -1},
        {"slow_seconds": -1.0},
    ],
)
def test_impossible_fault_settings_are_refused(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=next(iter(bad))):
        FaultSettings(**bad)
