"""At scale the demo fails like a real suite (`sandbox/data/scale.py`): about 5-15 % of its
executions fail, company 1's too, and the analytics' definitions (`planted_analysis`), computed
on the generated data of the last 30 days, find each planted case in its plan and no other:
the flaky scenario, the broken one, the Firefox-only failure, the outages (most of a run for one
reason) and the slower plan. The same seed builds the same data; below the scale nothing of it
is there.

The pages find each case at scale in tests/dashboard/test_scale_demo.py.
"""

from __future__ import annotations

import hashlib
import sqlite3
import statistics
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from sandbox import SandboxSettings
from sandbox.data import planted, scale
from sandbox.data.catalog import ENVIRONMENTS
from sandbox.data.generator import build_database
from sandbox.store import DemoStore, ExecutionCriteria
from tests.sandbox import planted_analysis as analysis

LARGE = 100_000
FAILING = "status IN ('FAILURE', 'ERROR')"
LOOKBACK_DAYS = 30


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


@dataclass(frozen=True)
class Cases:
    runs: list[analysis.Run]  # the executions of the plans added at scale, newest first
    plans: dict[str, int]  # case -> plan id
    scenarios: dict[str, int]  # case -> the id of its plan's first scenario (the case's own)
    now_ms: int

    def plan_runs(self, case: str) -> list[analysis.Run]:
        return analysis.finished(analysis.by_plan(self.runs)[self.plans[case]])


@pytest.fixture(scope="module")
def cases(large: Large) -> Cases:
    """The last `LOOKBACK_DAYS` days of the plans added at scale, as the service serves them."""
    now_ms = int(SandboxSettings().now.timestamp() * 1000)
    plans = {spec.case: plan_id(large.connection, spec.case) for spec in scale.PLANS}
    runs: list[analysis.Run] = []
    for plan in plans.values():
        runs += analysis.load_runs(
            large.store, scale.COMPANY_ID, now_ms - LOOKBACK_DAYS * analysis.DAY_MS, plan_id=plan
        )
    runs.sort(key=lambda run: run.start_ms, reverse=True)
    scenarios = {
        case: large.connection.execute(
            "SELECT scenario_id FROM plan_scenarios WHERE plan_id = ? AND position = 0", (plan,)
        ).fetchone()[0]
        for case, plan in plans.items()
    }
    return Cases(runs, plans, scenarios, now_ms)


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


def failing_scenarios(run: analysis.Run) -> set[int]:
    return {r.scenario_id for r in run.results if r.outcome == analysis.FAIL}


@pytest.mark.slow
def test_only_the_flaky_plans_scenario_is_flaky_and_it_fails_at_its_rate(cases: Cases) -> None:
    plan, scenario = cases.plans[scale.FLAKY], cases.scenarios[scale.FLAKY]
    found = analysis.flaky(cases.runs)
    assert {(p, s) for p, s, _ in found} == {(plan, scenario)}
    assert (plan, scenario, None) in found  # as a whole, and on each of its environments
    assert {e for _, _, e in found} - {None} == set(scale.plan_of(scale.FLAKY).environments)
    verdicts = [
        r.outcome
        for run in cases.plan_runs(scale.FLAKY)
        for r in run.results
        if r.scenario_id == scenario
    ]
    assert verdicts.count(analysis.FAIL) / len(verdicts) == pytest.approx(
        scale.FLAKY_FAIL_RATE, abs=0.03
    )
    assert all(failing_scenarios(run) <= {scenario} for run in cases.plan_runs(scale.FLAKY))


@pytest.mark.slow
def test_the_broken_scenario_fails_in_every_run_since_it_broke_and_passed_before(
    cases: Cases,
) -> None:
    runs, scenario = cases.plan_runs(scale.BROKEN), cases.scenarios[scale.BROKEN]
    since = scale.broken_since_ms(cases.now_ms)
    streak = analysis.red_streak(runs)
    # Red since it broke (its first execution after that moment), in every execution since.
    assert since <= streak[-1].start_ms < since + analysis.DAY_MS
    assert [run for run in runs if run.start_ms >= since] == streak
    assert all(failing_scenarios(run) == {scenario} for run in streak)
    assert not any(run.failed for run in runs if run.start_ms < since)
    # Broken as the states define it (failing in at least 90 % of its last runs), not flaky.
    last = [run.scenario_outcome(scenario) for run in runs[: analysis.WINDOW]]
    assert last.count(analysis.FAIL) / len(last) >= 0.9
    assert cases.plans[scale.BROKEN] in analysis.plan_cases(cases.runs, cases.now_ms).still_failing


@pytest.mark.slow
def test_only_the_zoom_scenario_is_environment_specific_and_only_on_firefox(
    cases: Cases,
) -> None:
    scenario = cases.scenarios[scale.ENVIRONMENT_SPECIFIC]
    ((plan, found, environment),) = analysis.environment_specific(cases.runs)
    assert (plan, found) == (cases.plans[scale.ENVIRONMENT_SPECIFIC], scenario)
    browser = next(env.browser_type for env in ENVIRONMENTS if env.id == environment)
    assert browser == scale.ENVIRONMENT_SPECIFIC_ON
    runs = cases.plan_runs(scale.ENVIRONMENT_SPECIFIC)
    for run in runs:  # every execution runs on all three; Firefox fails it, the others pass it
        assert {r.environment_id for r in run.results} == set(
            scale.plan_of(scale.ENVIRONMENT_SPECIFIC).environments
        )
        assert {(r.scenario_id, r.environment_id) for r in run.results if r.outcome == "fail"} == {
            (scenario, environment)
        }


@pytest.mark.slow
def test_the_slower_plan_alone_runs_about_twice_as_long_since_it_slowed(cases: Cases) -> None:
    found = analysis.plan_cases(cases.runs, cases.now_ms)
    assert found.slower == {cases.plans[scale.SLOWER]}
    runs = cases.plan_runs(scale.SLOWER)
    since = scale.slow_since_ms(cases.now_ms)
    recent = [run.runtime_ms for run in runs if run.start_ms >= since]
    before = [
        run.runtime_ms for run in runs if since - 14 * analysis.DAY_MS <= run.start_ms < since
    ]
    assert len(recent) >= 3
    assert len(before) >= 3
    assert statistics.median(recent) / statistics.median(before) == pytest.approx(2, abs=0.3)
    # The devices' setup is what waits: no scenario of any plan slows, and the plan stays green.
    assert analysis.slowing_scenarios(cases.runs, cases.now_ms) == set()
    assert not any(run.failed for run in runs)


@pytest.mark.slow
def test_each_troubled_plan_fails_for_one_reason_the_outage_plan_only_in_its_outages(
    cases: Cases,
) -> None:
    templates = {**scale.TEMPLATES, scale.OUTAGE: scale.OUTAGE_TEMPLATE}
    for case, template in templates.items():
        groups = analysis.failure_groups(cases.plan_runs(case))
        assert set(groups) == {analysis.normalise(template.format(n=1, hex="0x0"))}, case
        ((_, _, messages),) = groups.values()
        assert len(messages) >= 2, f"{case}: one failure, told with different numbers"
    windows = scale.outage_windows(cases.now_ms)
    for run in cases.plan_runs(scale.OUTAGE):
        in_outage = any(start <= run.start_ms < until for start, until in windows)
        assert run.failed == in_outage
    assert analysis.failure_groups(cases.plan_runs(scale.SLOWER)) == {}
