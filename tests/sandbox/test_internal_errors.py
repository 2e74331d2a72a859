"""Unexpected failures answer 500 with each operation's own internal-error code."""

from __future__ import annotations

import httpx
import pytest

from sandbox import SandboxSettings, serve_in_thread
from tests.sandbox.helpers import FILTER, PLANS, RESULTS, assert_error, company_headers, headers


@pytest.mark.parametrize(
    ("path", "params", "with_company", "code"),
    [
        (RESULTS.format(execution_id=1, scenario_id=1), {}, False, "SYSTEM_INTERNAL_ERROR"),
        (FILTER, {"page": 1, "size": 5}, True, "INTERNAL_SERVER_ERROR"),
        (PLANS, {}, True, "SYSTEM_INTERNAL_ERROR"),
    ],
)
def test_a_failing_database_gives_the_operations_internal_error(
    path: str, params: dict[str, int], with_company: bool, code: str
) -> None:
    with serve_in_thread(SandboxSettings(executions=10)) as running:
        running.app.state.store.close()  # every query now raises
        lead = running.users[0]
        auth = company_headers(lead) if with_company else headers(lead)
        with httpx.Client(base_url=running.base_url) as client:
            response = client.get(path, params=params, headers=auth)
    assert_error(response, 500, code)
    assert "Traceback" not in response.text
