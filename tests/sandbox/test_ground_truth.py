"""The evaluation's ground truth (`sandbox/data/ground_truth.py`) matches the generated demo.

Every rule names failed results that exist, every failed result of company 1 has exactly one
rule, and the cases planted for the evaluation (the outage night, the broken and the
unresolved scenarios, the unreadable mark) are what their labels say, by the analytics'
definitions (`planted_analysis`), read from the data.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Iterator

import pytest

from dashboard.columns.marks import KINDS
from sandbox import SandboxSettings
from sandbox.data import ground_truth, planted
from sandbox.data.generator import build_database
from sandbox.store import DemoStore
from tests.sandbox import planted_analysis as analysis


@pytest.fixture(scope="module")
def runs() -> Iterator[tuple[list[analysis.Run], int]]:
    settings = SandboxSettings()
    connection = sqlite3.connect(":memory:", check_same_thread=False)
    build_database(connection, settings)
    store = DemoStore(connection, settings)
    yield analysis.load_runs(store, planted.COMPANY_ID, 0), int(settings.now.timestamp() * 1000)
    store.close()


def _rules(runs: list[analysis.Run], now_ms: int) -> tuple[ground_truth.Rule, ...]:
    listed = [ground_truth.Execution(run.id, run.plan_id, run.start_ms) for run in runs]
    return ground_truth.rules(listed, now_ms)


def _failed(runs: list[analysis.Run]) -> list[tuple[analysis.Run, analysis.Result]]:
    return [(run, r) for run in runs for r in run.results if r.outcome == analysis.FAIL]


def test_every_failed_result_has_exactly_one_planted_label(
    runs: tuple[list[analysis.Run], int],
) -> None:
    history, now_ms = runs
    rules = _rules(history, now_ms)
    failed = _failed(history)
    assert failed
    for run, result in failed:
        covering = [
            rule
            for rule in rules
            if rule.plan_id == run.plan_id
            and rule.covers(run.id, result.scenario_id, result.environment_id)
        ]
        assert len(covering) == 1, (run.id, run.plan_id, result.scenario_id, covering)


def test_every_rule_names_failed_results_that_exist(runs: tuple[list[analysis.Run], int]) -> None:
    history, now_ms = runs
    by_id = {run.id: run for run in history}
    for rule in _rules(history, now_ms):
        assert rule.execution_ids, rule.case
        covered = []
        for execution_id in rule.execution_ids:
            run = by_id[execution_id]
            assert run.plan_id == rule.plan_id
            covered += [
                r for r in run.results if rule.covers(execution_id, r.scenario_id, r.environment_id)
            ]
        # (Plan 2 runs on three of its four environments in turn: a run may lack the known
        # mark's environment, never every run.)
        assert covered, rule.case
        # The outage night spares one scenario; the unreadable mark names a whole execution
        # (the failures of it are what the evaluation judges).
        if rule.label not in (ground_truth.OUTAGE, ground_truth.INCOMPLETE):
            assert all(r.outcome == analysis.FAIL for r in covered), rule.case


def test_each_planted_label_has_its_cases(runs: tuple[list[analysis.Run], int]) -> None:
    history, now_ms = runs
    rules = _rules(history, now_ms)
    labels = Counter(
        ground_truth.label_of(rules, run.plan_id, run.id, r.scenario_id, r.environment_id)
        for run, r in _failed(history)
    )
    assert set(labels) == set(ground_truth.PLANTED_LABELS)
    plan_runs = analysis.by_plan(history)
    latest_red = analysis.finished(plan_runs[planted.TURNED_RED_PLAN])[0]
    # New: the turned-red scenario on each environment of its plan's latest run, and the
    # unresolved scenario's first failure on each environment of the retired plan.
    retired = len(planted.PLAN_ENVIRONMENTS[planted.BROKEN_PLAN])
    assert labels[ground_truth.NEW] == len({r.environment_id for r in latest_red.results}) + retired
    assert labels[ground_truth.UNRESOLVED] == retired
    assert labels[ground_truth.ENVIRONMENT_SPECIFIC] == planted.STILL_FAILING_RUNS
    # The known mark takes the flaky scenario's failures on one of its four environments.
    assert labels[ground_truth.KNOWN] > 0
    assert labels[ground_truth.FLAKY] > labels[ground_truth.KNOWN]


def test_the_outage_night_is_a_likely_outage_with_one_message(
    runs: tuple[list[analysis.Run], int],
) -> None:
    history, now_ms = runs
    (rule,) = [r for r in _rules(history, now_ms) if r.label == ground_truth.OUTAGE]
    (night,) = [run for run in history if run.id in rule.execution_ids]
    verdicts = [r for r in night.results if r.outcome is not None]
    failed = [r for r in verdicts if r.outcome == analysis.FAIL]
    # The outages rule: at least 5 results with a verdict, at least 80 % of them failed.
    assert len(verdicts) >= 5
    assert len(failed) >= 0.8 * len(verdicts)
    assert len(failed) < len(verdicts), "most of the run, not all of it"
    assert {analysis.normalise(r.message) for r in failed} == {
        analysis.normalise(planted.OUTAGE_TEMPLATE.format(n=30, hex="0x1f2e"))
    }
    days_ago = (now_ms - night.start_ms) / analysis.DAY_MS
    assert 7 < days_ago < planted.WINDOW_DAYS  # past a week: no standup nor default week meets it
    # Every other execution of its plan passes.
    others = [run for run in analysis.by_plan(history)[planted.OUTAGE_PLAN] if run is not night]
    assert not any(run.failed for run in others)


def test_the_broken_scenario_failed_every_one_of_its_last_runs(
    runs: tuple[list[analysis.Run], int],
) -> None:
    history, now_ms = runs
    plan_runs = analysis.finished(analysis.by_plan(history)[planted.BROKEN_PLAN])  # newest first
    outcomes = [run.scenario_outcome(planted.BROKEN_SCENARIO) for run in plan_runs]
    last = outcomes[: planted.BROKEN_RUNS]
    assert len(last) >= 5  # enough runs for a state
    assert set(last) == {analysis.FAIL}
    assert set(outcomes[planted.BROKEN_RUNS :]) <= {analysis.PASS}
    # Only the broken scenario fails there, and no standup (30 days back) reaches the plan.
    for run in plan_runs:
        failing = {r.scenario_id for r in run.results if r.outcome == analysis.FAIL}
        assert failing <= {planted.BROKEN_SCENARIO, planted.UNRESOLVED_SCENARIO}
    assert now_ms - plan_runs[0].start_ms > 30 * analysis.DAY_MS


def test_the_unreadable_mark_names_the_broken_plan_s_execution_before_the_unresolved_case(
    runs: tuple[list[analysis.Run], int],
) -> None:
    """The incomplete case: a mark of a kind the dashboard does not know, on the retired plan's
    newest execution before the unresolved scenario's last two, whose only failures are the
    broken scenario's; the rule gives them the label incomplete, and the broken rule leaves them
    out (one label per failure)."""
    history, now_ms = runs
    listed = [ground_truth.Execution(run.id, run.plan_id, run.start_ms) for run in history]
    target = ground_truth.unreadable_mark_target(listed)
    named = analysis.finished(analysis.by_plan(history)[planted.BROKEN_PLAN])[
        planted.UNRESOLVED_RUNS
    ]
    assert target == named.id
    assert ground_truth.UNREADABLE_MARK.kind not in KINDS  # the dashboard cannot read it
    failed = [r for r in named.results if r.outcome == analysis.FAIL]
    assert failed
    assert {r.scenario_id for r in failed} == {planted.BROKEN_SCENARIO}
    rules = _rules(history, now_ms)
    labels = {
        ground_truth.label_of(rules, named.plan_id, named.id, r.scenario_id, r.environment_id)
        for r in failed
    }
    assert labels == {ground_truth.INCOMPLETE}


def test_the_unresolved_scenario_fails_in_the_broken_plan_s_last_two_runs_on_each_environment(
    runs: tuple[list[analysis.Run], int],
) -> None:
    """The unresolved case: after passing in every earlier run, a scenario fails in the retired
    plan's last two executions, each on both of its environments: the older failure on each
    environment is new, the latest unresolved."""
    history, now_ms = runs
    plan_runs = analysis.finished(analysis.by_plan(history)[planted.BROKEN_PLAN])  # newest first
    scenario = planted.UNRESOLVED_SCENARIO
    outcomes = [run.scenario_outcome(scenario) for run in plan_runs]
    assert outcomes[: planted.UNRESOLVED_RUNS] == [analysis.FAIL] * planted.UNRESOLVED_RUNS
    assert set(outcomes[planted.UNRESOLVED_RUNS :]) <= {analysis.PASS}
    rules = _rules(history, now_ms)
    environments = set(planted.PLAN_ENVIRONMENTS[planted.BROKEN_PLAN])
    for run, label in zip(plan_runs, (ground_truth.UNRESOLVED, ground_truth.NEW), strict=False):
        failed = [r for r in run.results if r.scenario_id == scenario]
        assert {r.environment_id for r in failed} == environments
        assert all(r.outcome == analysis.FAIL for r in failed)
        assert {
            ground_truth.label_of(rules, run.plan_id, run.id, scenario, r.environment_id)
            for r in failed
        } == {label}
        assert {analysis.normalise(r.message) for r in failed} == {
            analysis.normalise(planted.BROKEN_TEMPLATE.format(n=30, hex="0x1f2e"))
        }
