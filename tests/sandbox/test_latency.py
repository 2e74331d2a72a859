"""`latency_ms` / `serve --latency-ms N`: every API response waits N ms (for the benchmarks).

Only a generous lower bound is asserted: a delay that is applied, never how long it takes.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from sandbox import RunningSandbox, SandboxSettings, serve_in_thread
from sandbox.__main__ import parser, settings_from
from tests.sandbox.helpers import FILTER, PLANS, RESULTS, company_headers, headers
from tests.waiting import PATIENT_S

LATENCY_MS = 300


@pytest.fixture(scope="module")
def slow() -> Iterator[RunningSandbox]:
    with serve_in_thread(SandboxSettings(executions=20, latency_ms=LATENCY_MS)) as running:
        yield running


def _timed(client: httpx.Client, path: str, **options: Any) -> tuple[httpx.Response, float]:
    started = time.perf_counter()
    response = client.get(path, **options)
    return response, time.perf_counter() - started


def test_every_api_response_waits_at_least_the_latency(slow: RunningSandbox) -> None:
    lead = slow.users[0]
    with httpx.Client(base_url=slow.base_url, timeout=PATIENT_S) as client:
        page, waited = _timed(
            client, FILTER, params={"page": 1, "size": 5}, headers=company_headers(lead)
        )
        assert page.status_code == 200
        assert waited >= LATENCY_MS / 1000
        execution = page.json()["item_list"][0]
        plans, waited = _timed(
            client, PLANS, params={"active": False}, headers=company_headers(lead)
        )
        assert plans.status_code == 200
        assert waited >= LATENCY_MS / 1000
        scenario = next(p for p in plans.json() if p["id"] == execution["plan_id"])["scenarios"][0]
        path = RESULTS.format(execution_id=execution["id"], scenario_id=scenario)
        results, waited = _timed(client, path, headers=headers(lead))
        assert results.status_code == 200
        assert waited >= LATENCY_MS / 1000
        # Errors come as late as answers: the delay is the network's, not the operation's.
        refused, waited = _timed(client, PLANS)
        assert refused.status_code == 401
        assert waited >= LATENCY_MS / 1000


def test_the_flag_becomes_the_setting() -> None:
    assert settings_from(parser().parse_args(["serve", "--latency-ms", "50"])).latency_ms == 50
    assert settings_from(parser().parse_args(["serve"])).latency_ms == 0


def test_a_negative_latency_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parser().parse_args(["serve", "--latency-ms", "-5"])
    assert "--latency-ms" in capsys.readouterr().err
    with pytest.raises(ValueError, match="latency_ms"):
        SandboxSettings(latency_ms=-1)
