"""The client survives a misbehaving service: nothing lost, nothing duplicated.

The sandbox injects seeded faults (5xx, 429 with Retry-After, answers slower than the client's
timeout, connections dropped mid-body, JSON cut short); the client's retries must make the walk
over every page come out exactly as on a healthy service.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from api_client import ApiClient, RetryPolicy
from sandbox import FaultSettings, RunningSandbox, SandboxSettings, serve_in_thread
from tests.contract.conftest import full_user

# Company 1 holds about 70% of the demo executions: this gives it more than 5,000.
EXECUTIONS = 7_200
PAGE_SIZE = 50  # over a hundred pages, so the walk meets every kind of fault
# Independent draws per request: 1 - 0.90 * 0.97**4 ≈ 20% of responses are faulty.
TWENTY_PERCENT_FAULTY = FaultSettings(
    seed=2026,
    error_rate=0.10,
    error_statuses=(500, 502, 503),
    rate_limit_rate=0.03,
    retry_after_seconds=0,
    slow_rate=0.03,
    slow_seconds=20.0,  # five times the client's timeout: load cannot blur the two
    drop_rate=0.03,
    truncated_rate=0.03,
)
# Generous retries with short waits: the point here is correctness under faults, and eight
# retries make giving up (0.2**9 per page) practically impossible.
PATIENT = RetryPolicy(
    max_retries=8, max_server_error_retries=8, backoff_base=0.01, backoff_max=0.05
)
# Far below the injected slowness, so slow answers time out and are retried, and far above what
# a healthy answer takes on a loaded machine, so those never do.
CLIENT_TIMEOUT = 4.0
# Results carry log links at the sandbox's own origin: both sandboxes present the same public
# one, so their answers can be compared record for record.
PUBLIC = "https://qa.example.test"


@pytest.fixture(scope="module")
def healthy() -> Iterator[RunningSandbox]:
    with serve_in_thread(SandboxSettings(executions=EXECUTIONS, public_base_url=PUBLIC)) as running:
        yield running


@pytest.fixture(scope="module")
def faulty() -> Iterator[RunningSandbox]:
    settings = SandboxSettings(
        executions=EXECUTIONS, faults=TWENTY_PERCENT_FAULTY, public_base_url=PUBLIC
    )
    with serve_in_thread(settings) as running:
        yield running


def client_of(running: RunningSandbox) -> ApiClient:
    user = full_user(running)
    return ApiClient(
        base_url=running.base_url,
        token=user.token,
        company_id=user.company_id,
        retry_policy=PATIENT,
        timeout=CLIENT_TIMEOUT,
        strict=True,
    )


@pytest.mark.slow
def test_all_executions_through_twenty_percent_faults_equals_a_fault_free_run(
    healthy: RunningSandbox, faulty: RunningSandbox, caplog: pytest.LogCaptureFixture
) -> None:
    with client_of(healthy) as client:
        expected = client.all_executions(page_size=PAGE_SIZE)
    with client_of(faulty) as client, caplog.at_level(logging.INFO, logger="api_client"):
        survived = client.all_executions(page_size=PAGE_SIZE)

    retries = [r for r in caplog.records if r.getMessage().startswith("retrying")]
    assert len(expected) >= 5_000, "a walk over many pages"
    assert [e.model_dump() for e in survived] == [e.model_dump() for e in expected]
    assert survived.skipped == []
    assert len(retries) >= 10, "faults were met and retried, not avoided"
    kinds = {record.args[4] for record in retries if isinstance(record.args, tuple)}
    assert len(kinds) >= 3, f"several kinds of fault were met: {kinds}"


@pytest.mark.slow
def test_every_page_and_every_scenario_result_survive_the_faults(
    healthy: RunningSandbox, faulty: RunningSandbox
) -> None:
    with client_of(healthy) as good, client_of(faulty) as shaky:
        plans = {plan.id: plan for plan in good.plans(active=False)}
        assert [p.model_dump() for p in shaky.plans(active=False)] == [
            p.model_dump() for p in plans.values()
        ]
        for execution in good.executions(page=1, size=10).item_list:
            assert execution.plan_id is not None
            for scenario_id in plans[execution.plan_id].scenarios:
                expected = good.test_results(execution.id, scenario_id)
                assert shaky.test_results(execution.id, scenario_id) == expected


def test_malformed_records_are_skipped_and_the_rest_delivered() -> None:
    faults = FaultSettings(seed=3, malformed_record_rate=1.0)
    with (
        serve_in_thread(SandboxSettings(faults=faults)) as broken,
        serve_in_thread(SandboxSettings()) as intact,
    ):
        user = full_user(broken)
        with ApiClient(
            base_url=broken.base_url, token=user.token, company_id=user.company_id
        ) as client:
            page = client.executions(page=1, size=20)
        with ApiClient(
            base_url=intact.base_url, token=user.token, company_id=user.company_id
        ) as client:
            reference = client.executions(page=1, size=20)

    assert len(page.skipped) >= 1
    assert len(page.item_list) + len(page.skipped) == len(reference.item_list)
    delivered = {e.id: e for e in reference.item_list}
    for execution in page.item_list:
        assert execution == delivered[execution.id]
    for skipped in page.skipped:
        assert skipped.reason
