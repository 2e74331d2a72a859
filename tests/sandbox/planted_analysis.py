"""The analytics' definitions, computed straight from a sandbox's data, to find its planted cases.

Kept independent of `sandbox/data/planted.py` (which says what was planted): these functions
only look at executions and results, as the dashboard's analytics will, so a test can compare
what is found with what was planted. Definitions (those of "Planted cases" in
`docs/spec-decisions.md`):

- a result passes when SUCCESS, fails when FAILURE or ERROR; anything else is no verdict;
- an execution fails when any result fails; it is finished when it has an end and no WAITING;
- a scenario's outcome in an execution: fail if any of its results fails, else pass if any
  passes, else none (the same per scenario and environment);
- turned red / fixed / still failing: the latest two finished executions of a plan;
- slower (plan or scenario): median runtime of the last `RECENT` at least +25 % above the
  median of the last 14 days, with at least 3 in the recent window (scenarios: passing results);
- flaky: flips / (runs - 1) over the plan's last 20 finished executions >= 0.2, with >= 5 runs;
- environment-specific: in those 20, fails in every run on one environment (>= 3 runs) and in
  no run on any other;
- a failure message's group: the message with quoted values, hex ids and numbers stripped.
"""

from __future__ import annotations

import itertools
import re
import statistics
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from sandbox.store import DemoStore, ExecutionCriteria

HOUR_MS = 3_600_000
DAY_MS = 24 * HOUR_MS
RECENT_MS = 48 * HOUR_MS
BASELINE_MS = 14 * DAY_MS
WINDOW = 20
FLAKY_THRESHOLD = 0.2
MIN_RUNS = 5
SLOWER = 1.25
PASS, FAIL = "pass", "fail"


@dataclass(frozen=True)
class Result:
    scenario_id: int
    environment_id: int
    level: str
    runtime_s: int
    message: str

    @property
    def outcome(self) -> str | None:
        if self.level == "SUCCESS":
            return PASS
        if self.level in ("FAILURE", "ERROR"):
            return FAIL
        return None


@dataclass(frozen=True)
class Run:
    id: int
    plan_id: int
    start_ms: int
    runtime_ms: int
    results: tuple[Result, ...] = field(repr=False)

    @property
    def finished(self) -> bool:
        return all(r.level != "WAITING" for r in self.results)

    @property
    def failed(self) -> bool:
        return any(r.outcome == FAIL for r in self.results)

    def scenario_outcome(self, scenario_id: int, environment_id: int | None = None) -> str | None:
        outcomes = {
            r.outcome
            for r in self.results
            if r.scenario_id == scenario_id
            and (environment_id is None or r.environment_id == environment_id)
        }
        return FAIL if FAIL in outcomes else PASS if PASS in outcomes else None


def load_runs(store: DemoStore, company_id: int, since_ms: int) -> list[Run]:
    """Every execution of the company starting at or after `since_ms`, newest first."""
    total, _ = store.find_executions(ExecutionCriteria(company_id, start_from_ms=since_ms), 0, 1)
    _, records = store.find_executions(
        ExecutionCriteria(company_id, start_from_ms=since_ms), 0, max(total, 1)
    )
    runs = []
    for record in records:
        execution = store.execution(record.id)
        assert execution is not None
        results = tuple(
            Result(r.scenario_id, r.environment.id, r.level, r.runtime, r.message)
            for r in store.execution_results(execution, "http://sandbox.test/storage")
        )
        runs.append(Run(record.id, record.plan_id, _ms(record.start_date), record.runtime, results))
    return runs


def _ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def by_plan(runs: Iterable[Run]) -> dict[int, list[Run]]:
    plans: dict[int, list[Run]] = defaultdict(list)
    for run in runs:
        plans[run.plan_id].append(run)
    return plans


def finished(runs: list[Run]) -> list[Run]:
    return [run for run in runs if run.finished]


@dataclass(frozen=True)
class PlanCases:
    turned_red: set[int]
    fixed: set[int]
    still_failing: set[int]
    slower: set[int]
    with_failures: set[int]
    running: set[int]


def plan_cases(runs: list[Run], now_ms: int) -> PlanCases:
    cases = PlanCases(set(), set(), set(), set(), set(), set())
    for plan_id, plan_runs in by_plan(runs).items():
        if not plan_runs[0].finished:
            cases.running.add(plan_id)
        done = finished(plan_runs)
        if any(run.failed for run in done):
            cases.with_failures.add(plan_id)
        if len(done) >= 2:
            latest, previous = done[0].failed, done[1].failed
            if latest and not previous:
                cases.turned_red.add(plan_id)
            if previous and not latest:
                cases.fixed.add(plan_id)
            if latest and previous:
                cases.still_failing.add(plan_id)
        if clearly_slower([(run.start_ms, run.runtime_ms) for run in done], now_ms):
            cases.slower.add(plan_id)
    return cases


def red_streak(plan_runs: list[Run]) -> list[Run]:
    """The plan's latest finished executions that failed, back to its last green one."""
    streak = []
    for run in finished(plan_runs):
        if not run.failed:
            break
        streak.append(run)
    return streak


def clearly_slower(samples: list[tuple[int, float]], now_ms: int) -> bool:
    recent = [value for at, value in samples if at >= now_ms - RECENT_MS]
    baseline = [value for at, value in samples if at >= now_ms - BASELINE_MS]
    return len(recent) >= 3 and statistics.median(recent) >= SLOWER * statistics.median(baseline)


def flips_score(outcomes: list[str | None]) -> float | None:
    verdicts = [outcome for outcome in outcomes if outcome is not None]
    if len(verdicts) < MIN_RUNS:
        return None
    flips = sum(a != b for a, b in itertools.pairwise(verdicts))
    return flips / (len(verdicts) - 1)


def _keys(runs: list[Run]) -> set[tuple[int, int]]:
    return {(r.scenario_id, r.environment_id) for run in runs for r in run.results}


def flaky(runs: list[Run]) -> set[tuple[int, int, int | None]]:
    """(plan, scenario, environment or None for the scenario as a whole) at or above 0.2."""
    found: set[tuple[int, int, int | None]] = set()
    for plan_id, plan_runs in by_plan(runs).items():
        window = list(reversed(finished(plan_runs)[:WINDOW]))  # oldest first
        keys = _keys(window)
        per_scenario: set[tuple[int, int | None]] = {(s, None) for s, _ in keys}
        for scenario_id, environment_id in per_scenario | set(keys):
            outcomes = [run.scenario_outcome(scenario_id, environment_id) for run in window]
            score = flips_score(outcomes)
            if score is not None and score >= FLAKY_THRESHOLD:
                found.add((plan_id, scenario_id, environment_id))
    return found


def environment_specific(runs: list[Run]) -> set[tuple[int, int, int]]:
    found = set()
    for plan_id, plan_runs in by_plan(runs).items():
        window = finished(plan_runs)[:WINDOW]
        keys = _keys(window)
        for scenario_id, environment_id in keys:
            here = [run.scenario_outcome(scenario_id, environment_id) for run in window]
            here = [outcome for outcome in here if outcome is not None]
            elsewhere = [
                run.scenario_outcome(scenario_id, other)
                for run in window
                for s, other in keys
                if s == scenario_id and other != environment_id
            ]
            if len(here) >= 3 and set(here) == {FAIL} and FAIL not in elsewhere:
                found.add((plan_id, scenario_id, environment_id))
    return found


def slowing_scenarios(runs: list[Run], now_ms: int) -> set[tuple[int, int]]:
    found = set()
    for plan_id, plan_runs in by_plan(runs).items():
        samples: dict[int, list[tuple[int, float]]] = defaultdict(list)
        for run in finished(plan_runs):
            for r in run.results:
                if r.outcome == PASS:
                    samples[r.scenario_id].append((run.start_ms, r.runtime_s))
        for scenario_id, values in samples.items():
            if clearly_slower(values, now_ms):
                found.add((plan_id, scenario_id))
    return found


_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
_HEX = re.compile(r"\b0x[0-9a-fA-F]+\b|\b[0-9a-f]{8,}\b")
_NUMBER = re.compile(r"\d+")


def normalise(message: str) -> str:
    return _NUMBER.sub("{n}", _HEX.sub("{hex}", _QUOTED.sub("{q}", message)))


def failure_groups(runs: list[Run]) -> dict[str, tuple[set[int], set[int], set[str]]]:
    """Normalised message -> (scenarios, environments, distinct raw messages) of its failures."""
    groups: dict[str, tuple[set[int], set[int], set[str]]] = defaultdict(
        lambda: (set(), set(), set())
    )
    for run in finished(runs):
        for r in run.results:
            if r.outcome == FAIL:
                scenarios, environments, messages = groups[normalise(r.message)]
                scenarios.add(r.scenario_id)
                environments.add(r.environment_id)
                messages.add(r.message)
    return dict(groups)
