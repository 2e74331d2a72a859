"""The demo data: does it look like a real team's history, and is it reproducible?"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from statistics import mean

import pytest

from sandbox import SandboxSettings
from sandbox.data.catalog import ENVIRONMENTS
from sandbox.data.generator import ScenarioKind, build_database
from sandbox.data.outcomes import DerivedResult, Level, Timeline
from sandbox.store import DemoStore, ExecutionCriteria

FAILED = {Level.FAILURE, Level.ERROR}


@dataclass(frozen=True)
class Observation:
    """One result, with what is needed to judge its scenario's behaviour."""

    result: DerivedResult
    kind: str
    fail_from: float
    fails_on: str
    position: float
    environment: tuple[str, str]


@pytest.fixture(scope="module")
def database() -> Iterator[tuple[sqlite3.Connection, DemoStore]]:
    connection = sqlite3.connect(":memory:", check_same_thread=False)
    settings = SandboxSettings()
    build_database(connection, settings)
    store = DemoStore(connection, settings)
    yield connection, store
    store.close()


@pytest.fixture(scope="module")
def observations(database: tuple[sqlite3.Connection, DemoStore]) -> list[Observation]:
    connection, store = database
    settings = SandboxSettings()
    timeline = Timeline.ending_at(settings.now, settings.days)
    scenarios = {
        row[0]: row[1:]
        for row in connection.execute("SELECT id, kind, fail_from, fails_on FROM scenarios")
    }
    environments = {env.id: (env.operating_system, env.browser_type) for env in ENVIRONMENTS}
    seen = []
    for (execution_id,) in connection.execute("SELECT id FROM executions").fetchall():
        execution = store.execution(execution_id)
        assert execution is not None
        for result in store.outcome(execution).results:
            kind, fail_from, fails_on = scenarios[result.scenario_id]
            seen.append(
                Observation(
                    result=result,
                    kind=kind,
                    fail_from=fail_from,
                    fails_on=fails_on,
                    position=timeline.position(execution.start_ms),
                    environment=environments[result.environment_id],
                )
            )
    return seen


def _failure_rate(observations: list[Observation]) -> float:
    finished = [o for o in observations if o.result.level is not Level.WAITING]
    assert len(finished) >= 20, "too few results to judge"
    return sum(o.result.level in FAILED for o in finished) / len(finished)


def test_stored_executions_agree_with_their_derived_results(
    database: tuple[sqlite3.Connection, DemoStore],
) -> None:
    connection, store = database
    rows = connection.execute(
        "SELECT id, status, result_summary, test_results, runtime_ms, start_ms, end_ms"
        " FROM executions"
    ).fetchall()
    result_ids: set[int] = set()
    for execution_id, status, summary, test_results, runtime_ms, start_ms, end_ms in rows:
        execution = store.execution(execution_id)
        assert execution is not None
        outcome = store.outcome(execution)
        assert outcome.summary == json.loads(summary)
        assert [r.id for r in outcome.results] == json.loads(test_results)
        assert outcome.status == status
        assert outcome.runtime_ms == runtime_ms == end_ms - start_ms
        result_ids.update(json.loads(test_results))
    assert len(result_ids) == sum(len(json.loads(row[3])) for row in rows)


def test_most_scenarios_mostly_pass(observations: list[Observation]) -> None:
    stable = [o for o in observations if o.kind == ScenarioKind.STABLE]
    assert _failure_rate(stable) < 0.05
    assert len(stable) > len(observations) / 2


def test_flaky_scenarios_fail_about_a_third_of_the_time(observations: list[Observation]) -> None:
    assert 0.15 < _failure_rate([o for o in observations if o.kind == ScenarioKind.FLAKY]) < 0.5


def test_broken_scenarios_fail_reliably_since_a_day(observations: list[Observation]) -> None:
    broken = [o for o in observations if o.kind == ScenarioKind.BROKEN]
    assert _failure_rate([o for o in broken if o.position >= o.fail_from]) > 0.85
    assert _failure_rate([o for o in broken if o.position < o.fail_from]) < 0.1


def test_environment_specific_failures_stay_on_their_environment(
    observations: list[Observation],
) -> None:
    specific = [o for o in observations if o.kind == ScenarioKind.ENVIRONMENT_SPECIFIC]
    on_weak_spot = [o for o in specific if o.fails_on in o.environment]
    assert _failure_rate(on_weak_spot) > 0.75
    assert _failure_rate([o for o in specific if o not in on_weak_spot]) < 0.1


def test_slowing_scenarios_get_slower_over_time(observations: list[Observation]) -> None:
    runtimes: dict[int, dict[bool, list[int]]] = defaultdict(lambda: defaultdict(list))
    slowing = [
        o
        for o in observations
        if o.kind == ScenarioKind.SLOWING and o.result.level is Level.SUCCESS
    ]
    for o in slowing:
        if not 1 / 3 <= o.position <= 2 / 3:  # compare the first third with the last
            runtimes[o.result.scenario_id][o.position > 2 / 3].append(o.result.runtime_s)
    compared = [(mean(r[False]), mean(r[True])) for r in runtimes.values() if r[False] and r[True]]
    assert compared
    assert all(late > 1.5 * early for early, late in compared)


def test_warnings_and_waiting_results_occur(observations: list[Observation]) -> None:
    levels = {o.result.level for o in observations}
    assert levels == set(Level)


def _dump(settings: SandboxSettings) -> list[tuple[object, ...]]:
    connection = sqlite3.connect(":memory:")
    build_database(connection, settings)
    tables = [
        row[0]
        for row in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
        )
    ]
    return [
        (table, *row)
        for table in tables
        if not table.startswith("sqlite_")
        for row in connection.execute(f"SELECT * FROM {table} ORDER BY 1, 2")  # noqa: S608
    ]


def test_the_same_seed_builds_the_same_data() -> None:
    assert _dump(SandboxSettings(executions=50)) == _dump(SandboxSettings(executions=50))


def test_another_seed_builds_other_data() -> None:
    assert _dump(SandboxSettings(executions=50)) != _dump(SandboxSettings(seed=8, executions=50))


def test_no_executions_is_a_valid_sandbox() -> None:
    connection = sqlite3.connect(":memory:", check_same_thread=False)
    settings = SandboxSettings(executions=0)
    build_database(connection, settings)
    store = DemoStore(connection, settings)
    assert store.find_executions(ExecutionCriteria(company_id=1), 0, 10) == (0, [])
    assert store.plans(1, None, active_only=True)
    store.close()
