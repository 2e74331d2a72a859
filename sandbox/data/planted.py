"""The cases planted in company 1's demo history, each on its own clock, and their names.

A demo of standup digests, plan health and scenario analytics is only convincing when it holds
each case exactly once and nothing that looks like one by accident. So company 1's history is
not left to chance: its scenario pools, plans and environments are fixed here (the seed still
varies runtimes, users, messages' numbers and the rest), every scenario that is not planted
always passes, and five plans run on fixed schedules over the last `WINDOW_DAYS` days, measured
back from the sandbox's "now". Older history and the other plans get the random executions, all
green. Company 2 keeps the seeded, unplanned mix.

The cases, with the rules the analytics use (a result passes when SUCCESS and fails when FAILURE
or ERROR, anything else is no verdict; an execution fails when any result fails and is finished
when it has an end and no WAITING result; flakiness is flips / (runs - 1) over a plan's last
20 finished executions, at least 0.2 with at least 5 runs):

- Plan 1 "Web Shop smoke" TURNED RED: its latest finished execution (17:00, an hour before
  "now") failed and every one before passed. Scenario 8 "Checkout as guest" newly fails there,
  on every environment it ran on. Its newest execution (4 s before "now") is still running,
  so "a running execution is not a verdict" can be seen.
- Plan 5 "Checkout smoke" FIXED: its latest finished execution (14:00) passed, the three
  before it failed (scenario 18 "Checkout with saved card"), everything older passed.
- Plan 3 "Web Shop cross-browser nightly" STILL FAILING since Sun 15 Nov 21:00 (5 nightly
  executions): that night SAFARI 18 on macOS (environment 8) replaced Firefox, and scenario 5
  "Sort results by rating" fails in every run on it and passes on every other environment.
  That is the ENVIRONMENT-SPECIFIC scenario; it is not flaky (one flip, when Safari came).
- Plan 8 "Shop App regression" SLOWER: since three days before "now" each execution waits
  15 more minutes for its devices, so its median runtime over the last 48 hours is far above
  its 14-day median; no scenario got slower, and every execution passes.
- Plan 2 "Web Shop regression" holds the two scenario cases and no plan case (its latest two
  finished executions pass): scenario 4 "Filter results by price" is FLAKY (`FLAKY_PATTERN`),
  scenario 12 "Update profile details" SLOWS DOWN (half as slow again since three days ago,
  on top of a slow drift over the whole window).
- Every failure in company 1 carries one of two message templates that differ only in numbers
  and hex ids (`FAILURE_TEMPLATES`): the session one on scenarios 8 and 4, the cart one on
  scenarios 18 and 5, each on several environments.
- Plans 4, 6, 7, 9 and 10 are steady green: every finished execution passes. Plan 6's newest
  execution (12 minutes before "now") is still running.

The schedules need room: they are planted when the sandbox holds at least `MIN_EXECUTIONS`
executions over at least `MIN_DAYS` days (the default 300 over 90 does; 100,000 does too).

Two more cases, for the triage verdict's evaluation (`ground_truth.py`, `python -m dashboard
verdicts --evaluate`), planted on executions the random draw already gave these plans (no
execution is added or moved, so nothing else in the history changes), and only below
`scale.MIN_EXECUTIONS` (at scale the plans of `scale.py` hold an outage and a broken scenario):

- Plan 6 "Payment providers" OUTAGE NIGHT: its random execution nearest `OUTAGE_DAYS_AGO` days
  before "now" fails in every scenario but `OUTAGE_SPARED`, on every environment it ran on,
  each with `OUTAGE_TEMPLATE` (a likely outage: over 80 % of its results failed). Older than a
  week, so the standup and the Failures page's default week do not meet it.
- Plan 4 "Web Shop regression (v1)" (disabled, its last run over 30 days ago, so no standup
  meets it) BROKEN: scenario `BROKEN_SCENARIO` fails in its last `BROKEN_RUNS` executions (in
  all of them when it has fewer), every one with `BROKEN_TEMPLATE`.
- Plan 4 again, UNRESOLVED: scenario `UNRESOLVED_SCENARIO` fails in its last `UNRESOLVED_RUNS`
  executions, also with `BROKEN_TEMPLATE` (no new failure group), after passing in every one
  before; those two executions run on both of plan 4's environments (their drawn environments
  are replaced, nothing else of them). The older failure on each environment is new, the
  latest is unresolved: 2 failed runs in the window, one flip, no state explains it.
"""

from __future__ import annotations

from dataclasses import dataclass

COMPANY_ID = 1
WINDOW_DAYS = 16
MIN_EXECUTIONS = 200
MIN_DAYS = 30
HOUR_MS = 3_600_000
DAY_MS = 24 * HOUR_MS

# -- company 1's fixed layout ------------------------------------------------------------------

# Per project of company 1: which slice of the catalogue's scenario names is its pool. Scenario
# ids are handed out in this order from 1, so they are the same for every seed.
POOLS: dict[int, tuple[str, int, int]] = {
    1: ("web", 0, 14),  # ids 1-14
    2: ("web", 5, 19),  # ids 15-28
    3: ("mobile", 0, 14),  # ids 29-42
    4: ("web", 8, 22),  # ids 43-56
}
PLAN_SCENARIOS: dict[int, tuple[int, ...]] = {
    1: (1, 3, 6, 8, 10),
    2: (1, 2, 3, 4, 6, 7, 11, 12, 13, 14),
    3: (1, 3, 5, 6, 9),
    4: (1, 2, 3, 6, 7, 9, 10, 11),
    5: (15, 17, 18, 19),
    6: (15, 16, 19, 20, 22, 24, 28),
    7: (29, 31, 33, 35),
    8: (29, 30, 32, 34, 36, 37),
    9: (29, 36, 40, 41, 42),
    10: (43, 44, 45, 46, 47, 48, 49, 50),
}
PLAN_ENVIRONMENTS: dict[int, tuple[int, ...]] = {
    1: (1, 4, 7),
    2: (1, 2, 6, 9),
    3: (1, 2, 8, 9),
    4: (3, 5),
    5: (1, 3, 5),
    6: (2, 4, 6),
    7: (11, 13),
    8: (12, 14),
    9: (11, 12, 14),
    10: (3, 10),
}

# -- the cases -----------------------------------------------------------------------------------

TURNED_RED_PLAN = 1
FIXED_PLAN = 5
STILL_FAILING_PLAN = 3
SLOWER_PLAN = 8
SCENARIO_CASES_PLAN = 2
STEADY_GREEN_PLANS = (4, 6, 7, 9, 10)
# Plans whose newest execution is still running at "now" (plan 1's is the planted one).
RUNNING_PLANS = (1, 6)

TURNED_RED_SCENARIO = 8  # newly failing in plan 1's latest finished execution
FIXED_SCENARIO = 18  # failed in plan 5's three executions before its latest
FLAKY_SCENARIO = 4
# (scenario, environment): fails in every run on SAFARI 18 / macOS, passes elsewhere.
ENVIRONMENT_SPECIFIC = (5, 8)
SLOWING_SCENARIO = 12
SAFARI_MACOS = 8

# Every failure message of company 1 is one of these, with {n}/{m} numbers and {hex} an id.
SESSION_TEMPLATE = "SessionNotCreatedException: node {hex} did not respond within {n}s"
CART_TEMPLATE = "AssertionError: expected {n} items in cart but found {m}"
FAILURE_TEMPLATES = (SESSION_TEMPLATE, CART_TEMPLATE)
# Scenario -> (template, level of its failures).
FAILING_SCENARIOS: dict[int, tuple[str, str]] = {
    TURNED_RED_SCENARIO: (SESSION_TEMPLATE, "ERROR"),
    FLAKY_SCENARIO: (SESSION_TEMPLATE, "ERROR"),
    FIXED_SCENARIO: (CART_TEMPLATE, "FAILURE"),
    ENVIRONMENT_SPECIFIC[0]: (CART_TEMPLATE, "FAILURE"),
}

# Plan 2's executions, newest first: F where the flaky scenario fails. The newest two pass, so
# plan 2 is no plan case; over the newest 20 it flips 12 times (score 12 / 19 = 0.63).
FLAKY_PATTERN = "PPFPFFPPFPPFPFPPFFPP" + "PPFPPPPFPPPP"

# The evaluation's cases (module docstring): an outage night and a broken scenario.
OUTAGE_PLAN = 6
OUTAGE_DAYS_AGO = 11
OUTAGE_SPARED = 28  # the one scenario of plan 6 that still passes that night
OUTAGE_TEMPLATE = "WebDriverException: Selenium grid {hex} unreachable after {n}s"
BROKEN_PLAN = 4
BROKEN_SCENARIO = 7
BROKEN_RUNS = 12
UNRESOLVED_SCENARIO = 10
UNRESOLVED_RUNS = 2
BROKEN_TEMPLATE = "NoSuchElementException: no element '#cart-remove-{n}' on page {hex}"
EVALUATION_TEMPLATES = (OUTAGE_TEMPLATE, BROKEN_TEMPLATE)

SLOW_SINCE_HOURS = 72  # plan 8's devices, and scenario 12, are slower since then
SLOWER_PLAN_EXTRA_SETUP_S = 900
SLOWING_STEP_FACTOR = 1.5
SLOWING_DRIFT = 1.5  # as the other slowing scenarios: +150 % across the whole window
SLOWING_BASE_RUNTIME_S = 30.0


@dataclass(frozen=True)
class Schedule:
    """A plan's executions in the planted window: the newest `first_hours` before "now", then
    one every `every_hours` further back, `count` in all."""

    plan_id: int
    first_hours: int
    every_hours: int
    count: int

    def offsets_ms(self) -> list[int]:
        """How long before "now" each execution starts, newest first."""
        return [(self.first_hours + k * self.every_hours) * HOUR_MS for k in range(self.count)]


SCHEDULES: tuple[Schedule, ...] = (
    Schedule(TURNED_RED_PLAN, first_hours=1, every_hours=24, count=16),  # daily 17:00
    Schedule(FIXED_PLAN, first_hours=4, every_hours=24, count=16),  # daily 14:00
    Schedule(STILL_FAILING_PLAN, first_hours=21, every_hours=24, count=16),  # nightly 21:00
    Schedule(SLOWER_PLAN, first_hours=2, every_hours=12, count=32),  # 04:00 and 16:00
    Schedule(SCENARIO_CASES_PLAN, first_hours=3, every_hours=12, count=32),  # 03:00 and 15:00
)
SCHEDULED_PLANS = tuple(schedule.plan_id for schedule in SCHEDULES)

# Plan 3 ran on Windows and Firefox and Chrome on macOS until Safari replaced Firefox.
FIXED_FAILURES = (1, 2, 3)  # plan 5: the executions (0 = newest) where scenario 18 fails
STILL_FAILING_RUNS = 5  # plan 3: its newest five nightly executions, since Safari came
NIGHTLY_BEFORE_SAFARI = (1, 2, 9)
NIGHTLY_WITH_SAFARI = (1, 8, 9)


def evaluation_cases_active(executions: int, days: int, at_scale: bool) -> bool:
    """Whether the outage night and the broken and unresolved scenarios are planted (below
    scale only)."""
    return is_active(executions, days) and not at_scale


def outage_scenarios() -> tuple[int, ...]:
    """The scenarios of plan 6 that fail in its outage night."""
    return tuple(s for s in PLAN_SCENARIOS[OUTAGE_PLAN] if s != OUTAGE_SPARED)


def failure_of(scenario_id: int) -> tuple[str, str]:
    """A company-1 scenario's failure (template, level), ("", "") for one that never fails;
    a scenario failing in the outage night fails with the outage's message."""
    if scenario_id in FAILING_SCENARIOS:
        return FAILING_SCENARIOS[scenario_id]
    if scenario_id in (BROKEN_SCENARIO, UNRESOLVED_SCENARIO):
        return BROKEN_TEMPLATE, "FAILURE"
    if scenario_id in outage_scenarios():
        return OUTAGE_TEMPLATE, "ERROR"
    return "", ""


def outage_start(plan_starts_ms: list[int], now_ms: int) -> int:
    """Which of plan 6's execution starts is its outage night: the nearest `OUTAGE_DAYS_AGO`
    days before "now" (the earlier of two as near)."""
    target = now_ms - OUTAGE_DAYS_AGO * DAY_MS
    return min(plan_starts_ms, key=lambda at: (abs(at - target), at))


def broken_starts(plan_starts_ms: list[int]) -> list[int]:
    """Which of plan 4's execution starts the broken scenario fails in: the last `BROKEN_RUNS`."""
    return sorted(plan_starts_ms)[-BROKEN_RUNS:]


def unresolved_starts(plan_starts_ms: list[int]) -> list[int]:
    """Which of plan 4's execution starts the unresolved scenario fails in: the last
    `UNRESOLVED_RUNS`, each on every environment of plan 4."""
    return sorted(plan_starts_ms)[-UNRESOLVED_RUNS:]


def is_active(executions: int, days: int) -> bool:
    """Whether a sandbox of this size holds the planted schedules."""
    return executions >= MIN_EXECUTIONS and days >= MIN_DAYS


def scheduled_count() -> int:
    return sum(schedule.count for schedule in SCHEDULES)


def schedule_of(plan_id: int) -> Schedule:
    return next(schedule for schedule in SCHEDULES if schedule.plan_id == plan_id)


def scheduled_environments(plan_id: int, index: int) -> tuple[int, ...]:
    """The environments of a plan's `index`-th scheduled execution (0 = newest)."""
    if plan_id == STILL_FAILING_PLAN:
        return NIGHTLY_WITH_SAFARI if index < STILL_FAILING_RUNS else NIGHTLY_BEFORE_SAFARI
    environments = PLAN_ENVIRONMENTS[plan_id]
    if plan_id == SCENARIO_CASES_PLAN:  # three of its four, in turn
        left_out = environments[index % len(environments)]
        return tuple(env for env in environments if env != left_out)
    return environments


def random_environments(plan_id: int) -> tuple[int, ...]:
    """What a random (older) execution of a company-1 plan may run on: plan 3 never on Safari
    before Safari joined it."""
    if plan_id == STILL_FAILING_PLAN:
        return NIGHTLY_BEFORE_SAFARI
    return PLAN_ENVIRONMENTS[plan_id]


def start_ms(now_ms: int, plan_id: int, index: int) -> int:
    return now_ms - schedule_of(plan_id).offsets_ms()[index]


def window_start_ms(now_ms: int) -> int:
    """Scheduled plans get no random executions from here on."""
    return now_ms - WINDOW_DAYS * DAY_MS


def red_since_ms(now_ms: int) -> int:
    """When plan 3 turned red: the first nightly execution with Safari."""
    return start_ms(now_ms, STILL_FAILING_PLAN, STILL_FAILING_RUNS - 1)


def slow_since_ms(now_ms: int) -> int:
    return now_ms - SLOW_SINCE_HOURS * HOUR_MS


def fail_windows(now_ms: int, scenario_id: int) -> tuple[tuple[int, int], ...]:
    """When (execution start, [from, until) in ms) a planted failing scenario fails everywhere."""
    if scenario_id == TURNED_RED_SCENARIO:
        return ((start_ms(now_ms, TURNED_RED_PLAN, 0), 2**62),)
    if scenario_id == FIXED_SCENARIO:
        starts = [start_ms(now_ms, FIXED_PLAN, index) for index in FIXED_FAILURES]
        return tuple((start, start + 1000) for start in starts)
    if scenario_id == FLAKY_SCENARIO:
        return tuple(
            (start, start + 1000)
            for index, outcome in enumerate(FLAKY_PATTERN)
            if outcome == "F"
            for start in (start_ms(now_ms, SCENARIO_CASES_PLAN, index),)
        )
    return ()


assert len(FLAKY_PATTERN) == schedule_of(SCENARIO_CASES_PLAN).count
assert all(scenario in PLAN_SCENARIOS[TURNED_RED_PLAN] for scenario in (TURNED_RED_SCENARIO,))
assert FIXED_SCENARIO in PLAN_SCENARIOS[FIXED_PLAN]
assert BROKEN_SCENARIO in PLAN_SCENARIOS[BROKEN_PLAN]
assert OUTAGE_SPARED in PLAN_SCENARIOS[OUTAGE_PLAN]
assert UNRESOLVED_SCENARIO in PLAN_SCENARIOS[BROKEN_PLAN]
assert not set(outage_scenarios()) & (
    {BROKEN_SCENARIO, UNRESOLVED_SCENARIO} | set(FAILING_SCENARIOS)
)
assert UNRESOLVED_SCENARIO not in {BROKEN_SCENARIO, *FAILING_SCENARIOS}
assert ENVIRONMENT_SPECIFIC[0] in PLAN_SCENARIOS[STILL_FAILING_PLAN]
assert {FLAKY_SCENARIO, SLOWING_SCENARIO} <= set(PLAN_SCENARIOS[SCENARIO_CASES_PLAN])
