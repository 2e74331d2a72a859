"""At scale the demo fails like a real suite (`sandbox/data/scale.py`): about 5-15 % of its
executions fail, company 1's too, its outages fail most of a run for one reason, and the same
seed builds the same data. Below the scale nothing of it is there.

The pages find each case at scale in tests/dashboard/test_scale_demo.py.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from sandbox import SandboxSettings
from sandbox.data import planted, scale
from sandbox.data.generator import build_database
from sandbox.store import DemoStore, ExecutionCriteria
from tests.sandbox import planted_analysis as analysis

LARGE = 100_000
FAILING = "status IN ('FAILURE', 'ERROR')"


@dataclass(frozen=True)
class Large:
    connection: sqlite3.Connection  # the built tables, read directly
    store: DemoStore  # the results, derived as the service serves them


@pytest.fixture(scope="module")
def large() -> Iterator[Large]:
    connection = sqlite3.connect(":memory:", check_same_thread=False)
    settings = SandboxSettings(executions=LARGE)
    build_database(connection, settings)
    store = DemoStore(connection, settings)
    yield Large(connection, store)
    store.close()


def share_failing(connection: sqlite3.Connection, where: str = "1", *args: object) -> float:
    total, failing = connection.execute(
        f"SELECT count(*), sum({FAILING}) FROM executions WHERE {where}",  # noqa: S608
        args,
    ).fetchone()
    return failing / total


def plan_id(connection: sqlite3.Connection, case: str) -> int:
    name = scale.plan_of(case).name
    row = connection.execute(
        "SELECT id FROM plans WHERE plan_name = ? AND company_id = ?", (name, scale.COMPANY_ID)
    ).fetchone()
    return int(row[0])


@pytest.mark.slow
def test_about_one_execution_in_ten_fails_and_so_in_the_company_the_demo_shows(
    large: Large,
) -> None:
    connection = large.connection
    now_ms = int(SandboxSettings().now.timestamp() * 1000)
    everything = share_failing(connection)
    company = share_failing(connection, "company_id = ?", scale.COMPANY_ID)
    last_30_days = share_failing(
        connection, "company_id = ? AND start_ms >= ?", scale.COMPANY_ID, now_ms - 30 * 86_400_000
    )
    print(
        f"\nfailing: {everything:.1%} of all, {company:.1%} of company 1's, {last_30_days:.1%} "
        "of its last 30 days"
    )
    assert 0.05 <= everything <= 0.15
    assert 0.05 <= company <= 0.15
    assert 0.05 <= last_30_days <= 0.20
    assert share_failing(connection, "company_id = ?", scale.COMPANY_ID + 1) <= 0.20
    # Each company keeps its share of the executions: company 1's views are as large as before.
    ones = connection.execute(
        "SELECT count(*) FROM executions WHERE company_id = ?", (scale.COMPANY_ID,)
    ).fetchone()[0]
    assert ones == pytest.approx(0.7 * LARGE, rel=0.01)
    # Each plan added at scale runs, and only its case fails: the steady plans stay green.
    for spec in scale.PLANS:
        runs = connection.execute(
            "SELECT count(*) FROM executions WHERE plan_id = ?", (plan_id(connection, spec.case),)
        ).fetchone()[0]
        assert runs > 1_000, spec.name
    for steady in planted.STEADY_GREEN_PLANS:
        assert share_failing(connection, "plan_id = ?", steady) == 0, steady


@pytest.mark.slow
def test_an_outage_fails_most_of_a_run_for_one_reason(large: Large) -> None:
    now_ms = int(SandboxSettings().now.timestamp() * 1000)
    connection, store = large.connection, large.store
    outage_plan = plan_id(connection, scale.OUTAGE)
    spec = scale.plan_of(scale.OUTAGE)
    hit = 0
    for start, until in scale.outage_windows(now_ms):
        criteria = ExecutionCriteria(
            scale.COMPANY_ID, plan_id=outage_plan, start_from_ms=start, start_to_ms=until - 1
        )
        total, records = store.find_executions(criteria, 0, 1_000)
        assert total > 0, "an outage hits the runs of its hours"
        for record in records:
            execution = store.execution(record.id)
            assert execution is not None
            results = store.execution_results(execution, "http://sandbox.test/storage")
            failed = [r for r in results if r.level in ("FAILURE", "ERROR")]
            scenarios = {r.scenario_id for r in failed}
            assert len(scenarios) == len(spec.scenario_names) - scale.OUTAGE_SPARED
            assert len(scenarios) / len(spec.scenario_names) >= 0.75  # most of the run
            reasons = {analysis.normalise(r.message) for r in failed}
            assert reasons == {analysis.normalise(scale.OUTAGE_TEMPLATE.format(n=1, hex="0x0"))}
            hit += 1
    # Outside its outages the plan passes.
    runs = connection.execute(
        "SELECT count(*) FROM executions WHERE plan_id = ?", (outage_plan,)
    ).fetchone()[0]
    assert share_failing(connection, "plan_id = ?", outage_plan) == pytest.approx(hit / runs)


def dump_digest(settings: SandboxSettings) -> str:
    connection = sqlite3.connect(":memory:")
    build_database(connection, settings)
    digest = hashlib.sha256()
    for line in connection.iterdump():
        digest.update(line.encode())
    connection.close()
    return digest.hexdigest()


@pytest.mark.slow
def test_the_same_seed_builds_the_same_data_at_scale() -> None:
    settings = SandboxSettings(executions=scale.MIN_EXECUTIONS)
    assert scale.is_active(settings.executions, settings.days)
    assert dump_digest(settings) == dump_digest(settings)
    assert dump_digest(settings) != dump_digest(
        SandboxSettings(executions=scale.MIN_EXECUTIONS, seed=8)
    )


def test_below_the_scale_there_are_only_the_catalogue_plans() -> None:
    connection = sqlite3.connect(":memory:")
    build_database(connection, SandboxSettings(executions=scale.MIN_EXECUTIONS - 1))
    names = {row[0] for row in connection.execute("SELECT plan_name FROM plans")}
    assert not names & {spec.name for spec in scale.PLANS}
    assert connection.execute("SELECT count(*) FROM setup_delays").fetchone()[0] == 1
