"""How an execution turned out: the one pure function behind stored summaries and served results.

Results are never stored. The generator calls `derive_outcome` to compute each execution's
status, summary, result ids and runtime; the results operation calls it again with the same
inputs (all kept in the database) and serves the results. One function, so the two always agree,
and 100,000 executions need no table of millions of result rows.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

# Result ids are execution_id * RESULT_ID_FACTOR + index, so they are unique and stable.
RESULT_ID_FACTOR = 1000
MAX_SCENARIOS_PER_PLAN = 12
MAX_ENVIRONMENTS_PER_EXECUTION = 3
assert MAX_SCENARIOS_PER_PLAN * MAX_ENVIRONMENTS_PER_EXECUTION < RESULT_ID_FACTOR

ERROR_SHARE_OF_FAILURES = 0.3
WARNING_RATE = 0.01


class Level(StrEnum):
    """Result levels the demo data uses; also the execution statuses the filter accepts."""

    SUCCESS = "SUCCESS"
    FAILURE = "FAILURE"
    ERROR = "ERROR"
    WARNING = "WARNING"
    WAITING = "WAITING"


# Precedence for an execution's status: anything unfinished first, then the worst outcome.
STATUS_PRECEDENCE = (Level.WAITING, Level.ERROR, Level.FAILURE, Level.WARNING, Level.SUCCESS)


@dataclass(frozen=True, slots=True)
class Behaviour:
    """How a scenario tends to turn out. Positions are fractions of the demo time window."""

    base_runtime_s: float
    fail_rate: float
    # Chance of failing inside the failure window or on the weak environment.
    focus_fail_rate: float
    fail_from: float
    fail_until: float
    # An operating_system or browser_type code the scenario fails on ("" for none).
    fails_on: str
    # Extra runtime reached at the end of the window, as a fraction of the base runtime.
    slowdown: float
    # Planted cases (sandbox/data/planted.py), on their own clock, in Unix ms: executions
    # starting inside one of these [from, until) windows fail everywhere ...
    fail_windows: tuple[tuple[int, int], ...] = ()
    # ... and from `step_from_ms` on (when not 0) every run takes `step_factor` times as long.
    step_from_ms: int = 0
    step_factor: float = 1.0
    # The level of every failure ("" for the usual mix of FAILURE and ERROR).
    failure_level: str = ""

    def failure_chance(self, position: float, env: EnvironmentTraits, start_ms: int) -> float:
        if self.fails_on and self.fails_on in (env.operating_system, env.browser_type):
            return self.focus_fail_rate
        if any(start <= start_ms < until for start, until in self.fail_windows):
            return 1.0
        if self.fail_from <= position < self.fail_until:
            return self.focus_fail_rate
        return self.fail_rate

    def runtime_factor(self, position: float, start_ms: int) -> float:
        factor = 1 + self.slowdown * position
        if self.step_from_ms and start_ms >= self.step_from_ms:
            factor *= self.step_factor
        return factor


@dataclass(frozen=True, slots=True)
class EnvironmentTraits:
    id: int
    operating_system: str
    browser_type: str


@dataclass(frozen=True, slots=True)
class Timeline:
    """The demo time window, in Unix milliseconds; `end_ms` is the sandbox's "now"."""

    start_ms: int
    end_ms: int

    @classmethod
    def ending_at(cls, now: datetime, days: int) -> Timeline:
        end_ms = int(now.timestamp()) * 1000
        return cls(start_ms=end_ms - days * 86_400_000, end_ms=end_ms)

    def position(self, at_ms: int) -> float:
        return min(1.0, max(0.0, (at_ms - self.start_ms) / (self.end_ms - self.start_ms)))


@dataclass(frozen=True, slots=True)
class DerivedResult:
    id: int
    scenario_id: int
    environment_id: int
    level: Level
    runtime_s: int
    start_ms: int


@dataclass(frozen=True)
class Outcome:
    results: tuple[DerivedResult, ...]
    runtime_ms: int

    @property
    def summary(self) -> dict[str, int]:
        """Counts by level, only levels that occur, in a fixed order."""
        counts = Counter(result.level for result in self.results)
        return {level.value: counts[level] for level in Level if counts[level]}

    @property
    def status(self) -> Level:
        levels = {result.level for result in self.results}
        return next(level for level in STATUS_PRECEDENCE if level in levels)


def status_counts_text(summary: dict[str, int]) -> str:
    """The service's textual rendering, e.g. "[SUCCESS, 3, FAILURE, 1]"."""
    return "[" + ", ".join(f"{level}, {count}" for level, count in summary.items()) + "]"


def derive_outcome(
    *,
    seed: int,
    timeline: Timeline,
    execution_id: int,
    start_ms: int,
    scenarios: Sequence[tuple[int, Behaviour]],
    environments: Sequence[EnvironmentTraits],
    extra_setup_s: int = 0,
) -> Outcome:
    """Every result of one execution, as a pure function of its inputs.

    Environments run in parallel; on each, the plan's scenarios run one after another after a
    setup time (`extra_setup_s` longer when the plan's setup got slower). A result whose
    scheduled end lies after the timeline's end is still WAITING, and its execution is in
    progress: its runtime is the time elapsed so far.
    """
    rng = random.Random(f"{seed}/{execution_id}")
    position = timeline.position(start_ms)
    setup_s = rng.randint(5, 40) + extra_setup_s
    results: list[DerivedResult] = []
    longest_s = 0
    in_progress = False
    for env in environments:
        clock_s = setup_s
        for scenario_id, behaviour in scenarios:
            failing = rng.random() < behaviour.failure_chance(position, env, start_ms)
            kind_draw = rng.random()
            runtime = behaviour.base_runtime_s * behaviour.runtime_factor(position, start_ms)
            runtime *= rng.uniform(0.85, 1.15)
            if failing:
                if behaviour.failure_level:
                    level = Level(behaviour.failure_level)
                else:
                    level = Level.ERROR if kind_draw < ERROR_SHARE_OF_FAILURES else Level.FAILURE
                runtime *= 0.3 + 0.7 * kind_draw  # a failing test stops early
            else:
                level = Level.WARNING if kind_draw < WARNING_RATE else Level.SUCCESS
            runtime_s = max(1, round(runtime))
            result_start_ms = start_ms + clock_s * 1000
            clock_s += runtime_s
            if result_start_ms + runtime_s * 1000 > timeline.end_ms:
                in_progress = True
                level, runtime_s = Level.WAITING, 0
                result_start_ms = min(result_start_ms, timeline.end_ms)
            results.append(
                DerivedResult(
                    id=execution_id * RESULT_ID_FACTOR + len(results),
                    scenario_id=scenario_id,
                    environment_id=env.id,
                    level=level,
                    runtime_s=runtime_s,
                    start_ms=result_start_ms,
                )
            )
        longest_s = max(longest_s, clock_s)
    runtime_ms = timeline.end_ms - start_ms if in_progress else longest_s * 1000
    return Outcome(results=tuple(results), runtime_ms=runtime_ms)
