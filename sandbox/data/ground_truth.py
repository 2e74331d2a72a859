"""The label each planted failure should get: the ground truth of the triage verdict's evaluation.

`python -m dashboard verdicts --evaluate` compares the dashboard's one verdict per failed result
(`dashboard.analytics.triage`) with these rules, over every execution of company 1's demo
history. Each rule names the failed results of one planted case (`planted.py`), by plan,
scenario, environment (or every one) and execution, and the label the case *is*:

    label                 planted as
    incomplete            plan 4's newest execution before the unresolved case's: every
                          failure of it, named by the mark `UNREADABLE_MARK` (of a kind the
                          dashboard does not know; the evaluation applies it), so it cannot
                          be told known or not
    outage                plan 6's outage night: every failure of that execution
    known                 the flaky scenario's failures on `KNOWN_ENVIRONMENT`, covered by the
                          mark `KNOWN_MARK` (the evaluation applies it: the demo has no marks)
    flaky                 plan 2's scenario 4, where `FLAKY_PATTERN` says F, elsewhere
    recovering            plan 5's scenario 18 in the three executions before its latest
    environment-specific  plan 3's scenario 5 on SAFARI 18 / macOS since Safari came
    broken                plan 4's scenario 7 in its last `BROKEN_RUNS` executions, but
                          the one the unreadable mark names (incomplete)
    new                   plan 1's scenario 8 in its latest finished execution; plan 4's
                          scenario 10 in the older of its last two executions (each
                          environment's first failure of it)
    unresolved            plan 4's scenario 10 in its latest execution: failed twice in a row
                          after passing, on both environments; no state explains it

Nothing else in company 1 fails, so every failed result there has exactly one rule (a test
checks it: `tests/sandbox/test_ground_truth.py`). The unreadable mark names the execution
before the unresolved case's, not plan 4's latest: on the latest it would make the unresolved
failures incomplete (bad input comes first). The incomplete case is planted as bad input, a
mark the dashboard cannot read: the demo's history keeps every execution's summary
equal to its results (the sandbox's tests hold it to that), and its running executions have no
failure yet.

Pure: the rules are computed from the executions' ids, plans and starts, as the dashboard sees
them, and "now"; this module imports nothing of the dashboard.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sandbox.data import planted

INCOMPLETE = "incomplete"
OUTAGE = "outage"
KNOWN = "known"
FLAKY = "flaky"
RECOVERING = "recovering"
ENVIRONMENT_SPECIFIC = "environment-specific"
BROKEN = "broken"
NEW = "new"
UNRESOLVED = "unresolved"
PLANTED_LABELS = (
    INCOMPLETE,
    OUTAGE,
    KNOWN,
    FLAKY,
    RECOVERING,
    ENVIRONMENT_SPECIFIC,
    BROKEN,
    NEW,
    UNRESOLVED,
)
"""The labels planted, in the triage analytic's order of precedence."""

KNOWN_ENVIRONMENT = 9  # macOS / Chrome, one of the flaky scenario's four environments


@dataclass(frozen=True)
class KnownMark:
    """The mark the evaluation applies, as the team would have made it on the Flaky page:
    a known issue on one scenario of one plan, on one environment."""

    mark_id: str = "planted-known-1"
    plan_id: int = planted.SCENARIO_CASES_PLAN
    scenario_id: int = planted.FLAKY_SCENARIO
    environment_id: int = KNOWN_ENVIRONMENT
    ticket: str = "https://tickets.example.com/SHOP-101"
    owner: str = "acme.lead"
    note: str = "Session timeouts on the macOS Chrome node: grid ticket filed"
    created_days_before_now: int = 30


KNOWN_MARK = KnownMark()


@dataclass(frozen=True)
class UnreadableMark:
    """A mark the dashboard cannot read, as a newer client could have written it: of a kind it
    does not know (`kind`), on one execution of the broken plan: its newest before the
    unresolved scenario's last `planted.UNRESOLVED_RUNS` (whose failures are the unresolved
    case's). Open and unexpired, it names that execution's failures, which no one can then tell
    known or not: incomplete."""

    mark_id: str = "planted-unreadable-1"
    kind: str = "muted"
    plan_id: int = planted.BROKEN_PLAN
    ticket: str = "https://tickets.example.com/SHOP-102"
    owner: str = "acme.lead"
    note: str = "Muted by the new client while the cart page is rebuilt"
    created_days_before_now: int = 20


UNREADABLE_MARK = UnreadableMark()


@dataclass(frozen=True)
class Execution:
    """What a rule needs of an execution: as the service lists it."""

    execution_id: int
    plan_id: int
    start_ms: int


@dataclass(frozen=True)
class Rule:
    """The failed results of `scenario_id` (every scenario when None) of `plan_id`, on
    `environment_id` (every one when None; not on `except_environment`), in `execution_ids`:
    each should be labelled `label`."""

    label: str
    case: str
    plan_id: int
    execution_ids: frozenset[int]
    scenario_id: int | None = None
    environment_id: int | None = None
    except_environment: int | None = None

    def covers(self, execution_id: int, scenario_id: int, environment_id: int) -> bool:
        return (
            execution_id in self.execution_ids
            and (self.scenario_id is None or scenario_id == self.scenario_id)
            and (self.environment_id is None or environment_id == self.environment_id)
            and environment_id != self.except_environment
        )


def rules(executions: Iterable[Execution], now_ms: int) -> tuple[Rule, ...]:
    """The planted cases' rules over company 1's `executions` (all of them: the broken
    scenario's plan last ran over a month before "now")."""
    by_plan: dict[int, dict[int, int]] = {}  # plan -> start -> execution id
    for execution in executions:
        by_plan.setdefault(execution.plan_id, {})[execution.start_ms] = execution.execution_id

    def at(plan_id: int, indexes: Iterable[int]) -> frozenset[int]:
        starts = by_plan.get(plan_id, {})
        wanted = (planted.start_ms(now_ms, plan_id, index) for index in indexes)
        return frozenset(starts[start] for start in wanted if start in starts)

    flaky_runs = at(
        planted.SCENARIO_CASES_PLAN,
        (i for i, outcome in enumerate(planted.FLAKY_PATTERN) if outcome == "F"),
    )
    found = [
        Rule(
            NEW,
            "turned red",
            planted.TURNED_RED_PLAN,
            at(planted.TURNED_RED_PLAN, [0]),
            planted.TURNED_RED_SCENARIO,
        ),
        Rule(
            RECOVERING,
            "fixed",
            planted.FIXED_PLAN,
            at(planted.FIXED_PLAN, planted.FIXED_FAILURES),
            planted.FIXED_SCENARIO,
        ),
        Rule(
            ENVIRONMENT_SPECIFIC,
            "still failing on Safari",
            planted.STILL_FAILING_PLAN,
            at(planted.STILL_FAILING_PLAN, range(planted.STILL_FAILING_RUNS)),
            planted.ENVIRONMENT_SPECIFIC[0],
            planted.ENVIRONMENT_SPECIFIC[1],
        ),
        Rule(
            FLAKY,
            "flaky",
            planted.SCENARIO_CASES_PLAN,
            flaky_runs,
            planted.FLAKY_SCENARIO,
            except_environment=KNOWN_MARK.environment_id,
        ),
        Rule(
            KNOWN,
            "flaky, marked known on one environment",
            KNOWN_MARK.plan_id,
            flaky_runs,
            KNOWN_MARK.scenario_id,
            KNOWN_MARK.environment_id,
        ),
    ]
    outage_plan = by_plan.get(planted.OUTAGE_PLAN, {})
    if outage_plan:
        night = planted.outage_start(list(outage_plan), now_ms)
        found.append(
            Rule(OUTAGE, "outage night", planted.OUTAGE_PLAN, frozenset({outage_plan[night]}))
        )
    broken_plan = by_plan.get(planted.BROKEN_PLAN, {})
    if broken_plan:
        named = unreadable_mark_execution(broken_plan)
        found.append(
            Rule(
                INCOMPLETE,
                "named by a mark the dashboard cannot read",
                UNREADABLE_MARK.plan_id,
                frozenset({named}),
            )
        )
        broken = frozenset(broken_plan[at] for at in planted.broken_starts(list(broken_plan)))
        found.append(
            Rule(
                BROKEN,
                "broken",
                planted.BROKEN_PLAN,
                broken - {named},
                planted.BROKEN_SCENARIO,
            )
        )
        *older, latest = planted.unresolved_starts(list(broken_plan))
        found.append(
            Rule(
                NEW,
                "failing since its second-latest run: the first failure",
                planted.BROKEN_PLAN,
                frozenset(broken_plan[at] for at in older) - {named},
                planted.UNRESOLVED_SCENARIO,
            )
        )
        found.append(
            Rule(
                UNRESOLVED,
                "failing since its second-latest run: the latest failure",
                planted.BROKEN_PLAN,
                frozenset({broken_plan[latest]}) - {named},
                planted.UNRESOLVED_SCENARIO,
            )
        )
    return tuple(found)


def unreadable_mark_execution(plan_starts: dict[int, int]) -> int:
    """The execution `UNREADABLE_MARK` names: its plan's newest before the unresolved case's
    last `planted.UNRESOLVED_RUNS` (its oldest when it has no more; `plan_starts`: start -> id)."""
    ordered = sorted(plan_starts)
    return plan_starts[ordered[max(0, len(ordered) - planted.UNRESOLVED_RUNS - 1)]]


def unreadable_mark_target(executions: Iterable[Execution]) -> int | None:
    """The execution `UNREADABLE_MARK` names among company 1's `executions`; None when its plan
    has none (a demo at scale)."""
    plan_id = UNREADABLE_MARK.plan_id
    starts = {e.start_ms: e.execution_id for e in executions if e.plan_id == plan_id}
    return unreadable_mark_execution(starts) if starts else None


def label_of(
    found: Iterable[Rule], plan_id: int, execution_id: int, scenario_id: int, environment_id: int
) -> str | None:
    """The planted label of one failed result; None when no case was planted there."""
    for rule in found:
        if rule.plan_id == plan_id and rule.covers(execution_id, scenario_id, environment_id):
            return rule.label
    return None
