"""Company 1's demo history holds exactly the planted cases, and nothing else qualifies.

Each test computes a case from the data (`planted_analysis`, the analytics' definitions) and
compares it with what `sandbox/data/planted.py` says was planted: exactly these, no others. The
default demo (300 executions) is checked over its whole history; 100,000 executions (marked
slow) over the planted window, which is all the definitions look at.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest

from sandbox import SandboxSettings
from sandbox.data import planted, scale
from sandbox.data.catalog import ENVIRONMENTS
from sandbox.data.generator import build_database
from sandbox.store import DemoStore, ExecutionCriteria
from tests.sandbox import planted_analysis as analysis
from tests.sandbox.helpers import FILTER, RESULTS, UserPicker, company_headers, headers

ALL_COMPANY_PLANS = set(planted.PLAN_SCENARIOS)


@dataclass(frozen=True)
class Demo:
    runs: list[analysis.Run]
    now_ms: int
    store: DemoStore
    evaluation: bool  # whether the outage night and the broken scenario are planted


def _evaluation(settings: SandboxSettings) -> bool:
    size, days = settings.executions, settings.days
    return planted.evaluation_cases_active(size, days, scale.is_active(size, days))


def _demo(settings: SandboxSettings, since_ms: int | None = None) -> Iterator[Demo]:
    connection = sqlite3.connect(":memory:", check_same_thread=False)
    build_database(connection, settings)
    store = DemoStore(connection, settings)
    now_ms = int(settings.now.timestamp() * 1000)
    window = 0 if since_ms is None else now_ms - since_ms
    runs = analysis.load_runs(store, planted.COMPANY_ID, window)
    yield Demo(runs, now_ms, store, _evaluation(settings))
    store.close()


@pytest.fixture(scope="module", params=["default", pytest.param("100k", marks=pytest.mark.slow)])
def demo(request: pytest.FixtureRequest) -> Iterator[Demo]:
    if request.param == "default":
        yield from _demo(SandboxSettings())
    else:
        # Only the planted window is derived (about 12,700 executions): the definitions look
        # at the last 20 executions and 14 days of each plan. At this size company 1 also runs
        # the plans of sandbox/data/scale.py, each with a case of its own (tests/sandbox/
        # test_scale.py): the catalogue's plans still hold exactly the planted cases.
        for demo in _demo(
            SandboxSettings(executions=100_000), planted.WINDOW_DAYS * analysis.DAY_MS
        ):
            runs = [run for run in demo.runs if run.plan_id in ALL_COMPANY_PLANS]
            yield Demo(runs, demo.now_ms, demo.store, demo.evaluation)


def test_the_plan_cases_are_exactly_the_planted_ones(demo: Demo) -> None:
    cases = analysis.plan_cases(demo.runs, demo.now_ms)
    assert cases.turned_red == {planted.TURNED_RED_PLAN}
    assert cases.fixed == {planted.FIXED_PLAN}
    # The broken scenario's plan is red too, since over a month (no standup reaches it).
    evaluation = {planted.BROKEN_PLAN} if demo.evaluation else set()
    assert cases.still_failing == {planted.STILL_FAILING_PLAN} | evaluation
    assert cases.slower == {planted.SLOWER_PLAN}
    # Only those plans, and the one holding the scenario cases, ever fail (and, below scale,
    # the evaluation's: the broken scenario's and the outage night's); the rest are green.
    assert cases.with_failures == {
        planted.TURNED_RED_PLAN,
        planted.FIXED_PLAN,
        planted.STILL_FAILING_PLAN,
        planted.SCENARIO_CASES_PLAN,
    } | ({planted.BROKEN_PLAN, planted.OUTAGE_PLAN} if demo.evaluation else set())
    assert set(planted.STEADY_GREEN_PLANS) | set(planted.SCHEDULED_PLANS) == ALL_COMPANY_PLANS


def test_a_running_execution_is_not_a_verdict(demo: Demo) -> None:
    cases = analysis.plan_cases(demo.runs, demo.now_ms)
    assert cases.running == set(planted.RUNNING_PLANS)
    runs = analysis.by_plan(demo.runs)[planted.TURNED_RED_PLAN]
    assert not runs[0].finished
    assert {r.level for r in runs[0].results} == {"WAITING"}
    latest, previous = analysis.finished(runs)[:2]
    assert latest.start_ms == planted.start_ms(demo.now_ms, planted.TURNED_RED_PLAN, 0)
    assert (latest.failed, previous.failed) == (True, False)


def test_the_turned_red_plan_has_one_newly_failing_scenario_on_every_environment(
    demo: Demo,
) -> None:
    latest, previous = analysis.finished(analysis.by_plan(demo.runs)[planted.TURNED_RED_PLAN])[:2]
    newly = {
        (r.scenario_id, r.environment_id)
        for r in latest.results
        if r.outcome == analysis.FAIL and previous.scenario_outcome(r.scenario_id) == analysis.PASS
    }
    environments = {r.environment_id for r in latest.results}
    assert newly == {(planted.TURNED_RED_SCENARIO, env) for env in environments}


def test_the_fixed_plan_failed_in_the_executions_before_its_latest(demo: Demo) -> None:
    runs = analysis.finished(analysis.by_plan(demo.runs)[planted.FIXED_PLAN])
    failed = [index for index, run in enumerate(runs) if run.failed]
    assert failed == list(planted.FIXED_FAILURES)
    for index in failed:
        failing = {r.scenario_id for r in runs[index].results if r.outcome == analysis.FAIL}
        assert failing == {planted.FIXED_SCENARIO}


def test_the_still_failing_plan_is_red_since_safari_joined(demo: Demo) -> None:
    streak = analysis.red_streak(analysis.by_plan(demo.runs)[planted.STILL_FAILING_PLAN])
    assert len(streak) == planted.STILL_FAILING_RUNS
    assert streak[-1].start_ms == planted.red_since_ms(demo.now_ms)
    for run in streak:
        failing = {(r.scenario_id, r.environment_id) for r in run.results if r.outcome == "fail"}
        assert failing == {planted.ENVIRONMENT_SPECIFIC}


def test_only_the_slower_plan_got_slower_and_only_the_slowing_scenario_slows_down(
    demo: Demo,
) -> None:
    assert analysis.plan_cases(demo.runs, demo.now_ms).slower == {planted.SLOWER_PLAN}
    assert analysis.slowing_scenarios(demo.runs, demo.now_ms) == {
        (planted.SCENARIO_CASES_PLAN, planted.SLOWING_SCENARIO)
    }


def test_only_the_flaky_scenario_is_flaky(demo: Demo) -> None:
    found = analysis.flaky(demo.runs)
    assert {(plan, scenario) for plan, scenario, _ in found} == {
        (planted.SCENARIO_CASES_PLAN, planted.FLAKY_SCENARIO)
    }
    # As a whole, with the planted score over its plan's last 20 finished executions.
    assert (planted.SCENARIO_CASES_PLAN, planted.FLAKY_SCENARIO, None) in found
    window = list(
        reversed(
            analysis.finished(analysis.by_plan(demo.runs)[planted.SCENARIO_CASES_PLAN])[
                : analysis.WINDOW
            ]
        )
    )
    outcomes = [run.scenario_outcome(planted.FLAKY_SCENARIO) for run in window]
    pattern = planted.FLAKY_PATTERN[: analysis.WINDOW][::-1]
    assert "".join("F" if o == analysis.FAIL else "P" for o in outcomes) == pattern
    assert analysis.flips_score(outcomes) == pytest.approx(12 / 19)


def test_only_the_planted_scenario_is_environment_specific(demo: Demo) -> None:
    scenario, environment = planted.ENVIRONMENT_SPECIFIC
    assert analysis.environment_specific(demo.runs) == {
        (planted.STILL_FAILING_PLAN, scenario, environment)
    }
    safari = next(env for env in ENVIRONMENTS if env.id == environment)
    assert (safari.operating_system, safari.browser_type) == ("MAC", "SAFARI")


def test_failures_repeat_two_message_templates_across_scenarios_and_environments(
    demo: Demo,
) -> None:
    groups = analysis.failure_groups(demo.runs)

    def signatures(templates: tuple[str, ...]) -> set[str]:
        return {analysis.normalise(t.format(n=30, m=2, hex="0x1f2e")) for t in templates}

    expected = signatures(planted.FAILURE_TEMPLATES)
    evaluation = signatures(planted.EVALUATION_TEMPLATES) if demo.evaluation else set()
    assert set(groups) == expected | evaluation
    for signature in expected:
        scenarios, environments, messages = groups[signature]
        assert len(scenarios) >= 2
        assert len(environments) >= 2
        assert len(messages) >= 2, "the same failure should come with different numbers"
    failing = set().union(*(scenarios for scenarios, _, _ in groups.values()))
    planted_failing = set(planted.FAILING_SCENARIOS)
    if demo.evaluation:  # the outage night's message is one, on all but one of its scenarios
        planted_failing |= {
            planted.BROKEN_SCENARIO,
            planted.UNRESOLVED_SCENARIO,
            *planted.outage_scenarios(),
        }
        outage = groups[analysis.normalise(planted.OUTAGE_TEMPLATE.format(n=30, hex="0x1f2e"))]
        assert outage[0] == set(planted.outage_scenarios())
    assert failing == planted_failing


def test_the_default_demo_is_checked_over_its_whole_history() -> None:
    """What the default demo's window check covers: every company-1 execution there is."""
    for demo in _demo(SandboxSettings()):
        total, _ = demo.store.find_executions(ExecutionCriteria(planted.COMPANY_ID), 0, 1)
        assert len(demo.runs) == total > planted.scheduled_count()


def test_the_api_shows_the_turned_red_plan_as_the_analytics_see_it(
    http: httpx.Client, demo_user: UserPicker
) -> None:
    """The same case, read over HTTP as the dashboard will: newest running, then red, then green."""
    lead = demo_user()
    page = http.get(
        FILTER,
        params={"page": 1, "size": 3, "planId": planted.TURNED_RED_PLAN},
        headers=company_headers(lead),
    ).json()
    running, latest, previous = page["item_list"]
    assert set(running["result_summary"]) == {"WAITING"}
    assert set(latest["result_summary"]) & {"FAILURE", "ERROR"}
    assert not set(previous["result_summary"]) & {"FAILURE", "ERROR", "WAITING"}
    path = RESULTS.format(execution_id=latest["id"], scenario_id=planted.TURNED_RED_SCENARIO)
    failing = http.get(path, headers=headers(lead)).json()
    assert failing
    assert {r["level"] for r in failing} == {"ERROR"}
    assert all(r["message"].startswith("SessionNotCreatedException: node 0x") for r in failing)
