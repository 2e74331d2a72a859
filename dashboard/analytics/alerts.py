"""What changed that a team wants to hear about at once, found in the stored history after each
pass of the sync worker.

Each change is found at a plan's *latest judged execution* (`plan_state`): comparing what holds
with it to what held just before it. So a change is found once, at the execution that made it,
and its key (kind, plan, scenario, that execution) is the same however often and by whichever
worker it is found again:

- *red*: the plan's latest verdict is a fail and the one before was a pass;
- *green*: the latest is a pass and the one before a fail (back to green);
- *broken* / *flaky*: a scenario's state (`analytics.states`) is broken (or flaky) over the
  plan's window ending with the latest execution, and was not over the window before it;
- *expiring*: an open known-failure mark's last day is tomorrow (`analytics.marks`);
- *looks fixed*: an open mark's target ran its last K runs without failing (`marks.
  mark_evidence`), found once per stretch (its last failure is in the key).

Plan and scenario changes are only looked for at executions that started within `horizon` of
now, so a worker started on an old store does not announce last month's changes.

Outages (`analytics.outages`: likely by their share, or confirmed by a mark) are left out before
a plan or a scenario is judged, as every page does by default: a plan that was red only during
an outage night neither turned red nor is green again, and an outage's failures make no
scenario broken or flaky. A red change carries the triage verdicts of its execution's failures
(`split`, counted by `analytics.triage` label), which the message names ("3 unresolved,
2 known"). A red or green change names the outages of its plan it left out (those since the
execution before the change, `left_out`), each with its dominant message, so that a lead who
saw the plan red at night reads why no alert said so.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import timedelta

import pandas as pd

from dashboard.analytics import marks as mark_rules
from dashboard.analytics import states as scenario_states
from dashboard.analytics import triage
from dashboard.analytics.outages import CONFIRMED, outages, without_outages
from dashboard.analytics.outcomes import FAIL, PASS
from dashboard.analytics.plan_state import plan_states
from dashboard.columns.marks import MARK_COLUMNS
from dashboard.columns.shapes import as_utc, empty

RED, GREEN, BROKEN, FLAKY, EXPIRING, LOOKS_FIXED = (
    "red",
    "green",
    "broken",
    "flaky",
    "expiring",
    "looks-fixed",
)
KINDS: tuple[str, ...] = (RED, GREEN, BROKEN, FLAKY, EXPIRING, LOOKS_FIXED)
"""Every kind of change, as `--alerts-on` names them."""
HORIZON = timedelta(days=1)


@dataclass(frozen=True)
class LeftOut:
    """An outage of a changed plan that its judgement left out (`analytics.outages`)."""

    execution_id: int
    start: pd.Timestamp | None
    confirmed: bool  # an outage mark says so; else likely, by its share
    failed: int
    verdicts: int
    signature: str | None  # the message most of its failures share, when its results were read


@dataclass(frozen=True)
class Change:
    """One change, with what its message says (words come from `present.alerts`)."""

    key: str
    kind: str
    plan_id: int | None
    project_id: int | None
    plan: str | None  # the plan's name
    execution_id: int | None  # the execution that made it (plan and scenario changes)
    start: pd.Timestamp | None
    scenario_id: int | None = None
    previous_execution_id: int | None = None
    mark_id: str | None = None
    ticket: str | None = None
    target: str | None = None  # what a mark is about, in words
    detail: str | None = None  # the numbers behind it
    split: tuple[tuple[str, int], ...] = ()
    """A red change's failures by their triage label (`triage.PRECEDENCE` order, the labels
    that have any), when its results were read."""
    left_out: tuple[LeftOut, ...] = ()
    """A red or green change's outages of its plan left out: those since the execution before
    the change, oldest first."""


def without_the_outages(
    executions: pd.DataFrame,
    marks: pd.DataFrame | None,
    now: object,
    results: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """`executions` less their outages (`analytics.outages`, by the marks that apply at
    `now`): what plans and scenarios are judged on."""
    return without_outages(executions, _outages(executions, marks, now, results))


def _outages(
    executions: pd.DataFrame,
    marks: pd.DataFrame | None,
    now: object,
    results: pd.DataFrame | None,
) -> pd.DataFrame:
    applying = mark_rules.applying(empty(MARK_COLUMNS) if marks is None else marks, now)
    return outages(executions, applying, results)


def _left_out(found: pd.DataFrame, plan_id: int, since: object) -> tuple[LeftOut, ...]:
    """The outages of `plan_id` among `found` that started after `since` (the execution
    before a change), oldest first."""
    own = found[found["plan_id"] == plan_id]
    if not pd.isna(since):
        own = own[own["start"].isna() | (own["start"] > since)]
    own = own.sort_values(["start", "execution_id"], kind="stable", na_position="first")
    return tuple(
        LeftOut(
            execution_id=int(row["execution_id"]),
            start=None if pd.isna(row["start"]) else row["start"],
            confirmed=row["state"] == CONFIRMED,
            failed=int(row["failed"]),
            verdicts=int(row["verdicts"]),
            signature=row["signature"] if isinstance(row["signature"], str) else None,
        )
        for row in own.to_dict("records")
    )


def plan_changes(
    executions: pd.DataFrame,
    now: object,
    *,
    horizon: timedelta = HORIZON,
    results: pd.DataFrame | None = None,
    marks: pd.DataFrame | None = None,
) -> list[Change]:
    """Plans that turned red or back to green at their latest judged execution, outages left
    out (by `marks`, those that apply at `now`; none given: the likely ones by their share).
    With `results`, a red change carries its execution's failures by triage label."""
    found_outages = _outages(executions, marks, now, results)
    states = plan_states(without_outages(executions, found_outages))
    since = as_utc(now, "now") - horizon
    found: list[Change] = []
    for row in states.itertuples(index=False):
        latest, previous = row.latest_outcome, row.previous_outcome
        if pd.isna(latest) or pd.isna(previous) or latest == previous:
            continue
        if pd.isna(row.latest_start) or row.latest_start < since:
            continue
        kind = RED if latest == FAIL else GREEN if latest == PASS else None
        if kind is None:
            continue
        execution_id = int(row.latest_execution_id)
        failed = None if pd.isna(row.latest_failed) else int(row.latest_failed)
        verdicts = None if pd.isna(row.latest_verdicts) else int(row.latest_verdicts)
        found.append(
            Change(
                key=f"{kind}:plan {int(row.plan_id)}:execution {execution_id}",
                kind=kind,
                plan_id=int(row.plan_id),
                project_id=None if pd.isna(row.project_id) else int(row.project_id),
                plan=None if pd.isna(row.plan) else str(row.plan),
                execution_id=execution_id,
                start=row.latest_start,
                previous_execution_id=int(row.previous_execution_id),
                detail=None if failed is None else f"{failed} of {verdicts} verdicts failed",
                left_out=_left_out(found_outages, int(row.plan_id), row.previous_start),
            )
        )
    if results is None:
        return found
    return _with_splits(found, executions, results, marks, now)


def _with_splits(
    found: list[Change],
    executions: pd.DataFrame,
    results: pd.DataFrame,
    marks: pd.DataFrame | None,
    now: object,
) -> list[Change]:
    """Each red change with its execution's failures counted by triage label."""
    red = [c.execution_id for c in found if c.kind == RED and c.execution_id is not None]
    if not red or results.empty:
        return found
    verdicts = triage.failure_verdicts(
        results, executions, empty(MARK_COLUMNS) if marks is None else marks, now=now, judged=red
    )
    out = []
    for change in found:
        if change.kind == RED:
            own = verdicts[verdicts["execution_id"] == change.execution_id]
            counts = triage.label_counts(own)
            change = replace(change, split=tuple((k, n) for k, n in counts.items() if n))
        out.append(change)
    return out


def scenario_changes(
    executions: pd.DataFrame,
    results: pd.DataFrame,
    now: object,
    *,
    rules: scenario_states.StateRules | None = None,
    horizon: timedelta = HORIZON,
    marks: pd.DataFrame | None = None,
) -> list[Change]:
    """Scenarios that became broken or flaky at their plan's latest judged execution, outages
    left out (`without_the_outages`)."""
    executions = without_the_outages(executions, marks, now, results)
    results = results[results["execution_id"].isin(executions["execution_id"])]
    plans = plan_states(executions)
    since = as_utc(now, "now") - horizon
    recent = plans[plans["latest_start"].notna() & (plans["latest_start"] >= since)]
    if recent.empty or results.empty:
        return []
    latest_ids = {int(i) for i in recent["latest_execution_id"]}
    after = scenario_states.scenario_states(executions, results, rules).scenarios
    before = scenario_states.scenario_states(
        executions[~executions["execution_id"].isin(latest_ids)],
        results[~results["execution_id"].isin(latest_ids)],
        rules,
    ).scenarios
    was = {
        (int(p), int(s)): state
        for p, s, state in zip(
            before["plan_id"], before["scenario_id"], before["state"], strict=True
        )
    }
    plan_rows = recent.set_index("plan_id")
    found: list[Change] = []
    for row in after.itertuples(index=False):
        if row.state not in (scenario_states.BROKEN, scenario_states.FLAKY):
            continue
        plan_id, scenario_id = int(row.plan_id), int(row.scenario_id)
        if plan_id not in plan_rows.index or was.get((plan_id, scenario_id)) == row.state:
            continue
        plan = plan_rows.loc[plan_id]
        execution_id = int(plan["latest_execution_id"])
        kind = BROKEN if row.state == scenario_states.BROKEN else FLAKY
        detail = (
            f"failed {row.last_fails} of its last {row.last_runs} runs"
            if kind == BROKEN
            else f"{row.flips} flips in {row.runs} runs"
        )
        found.append(
            Change(
                key=f"{kind}:plan {plan_id}:scenario {scenario_id}:execution {execution_id}",
                kind=kind,
                plan_id=plan_id,
                project_id=None if pd.isna(plan["project_id"]) else int(plan["project_id"]),
                plan=None if pd.isna(plan["plan"]) else str(plan["plan"]),
                execution_id=execution_id,
                start=plan["latest_start"],
                scenario_id=scenario_id,
                detail=detail,
            )
        )
    return found


def mark_changes(marks: pd.DataFrame, results: pd.DataFrame, now: object) -> list[Change]:
    """Open marks whose last day is tomorrow, and open marks that look fixed."""
    if marks.empty:
        return []
    found: list[Change] = []
    states = mark_rules.mark_states(marks, now)
    by_id = marks.set_index("mark_id")
    for mark_id, state, days_left in zip(
        states["mark_id"], states["state"], states["days_left"], strict=True
    ):
        if state != mark_rules.EXPIRING or pd.isna(days_left) or int(days_left) != 1:
            continue
        mark = by_id.loc[mark_id]
        found.append(
            _mark_change(
                EXPIRING,
                mark,
                str(mark_id),
                key_part=f"{mark['expires_on']:%Y-%m-%d}",
                detail=f"its last day is {mark['expires_on']:%a %d %b}",
            )
        )
    if not results.empty:
        evidence = mark_rules.mark_evidence(marks, results, now)
        for row in evidence[evidence["looks_fixed"]].itertuples(index=False):
            mark = by_id.loc[row.mark_id]
            last = "never" if pd.isna(row.last_failed) else f"{row.last_failed:%Y-%m-%dT%H:%M}"
            found.append(
                _mark_change(
                    LOOKS_FIXED,
                    mark,
                    str(row.mark_id),
                    key_part=f"last failed {last}",
                    detail=f"0 failures in its last {row.runs} runs since {row.since:%d %b}",
                )
            )
    return found


def _mark_change(kind: str, mark: pd.Series, mark_id: str, *, key_part: str, detail: str) -> Change:
    plan_id = None if pd.isna(mark["plan_id"]) else int(mark["plan_id"])
    scenario_id = None if pd.isna(mark["scenario_id"]) else int(mark["scenario_id"])
    return Change(
        key=f"{kind}:mark {mark_id}:{key_part}",
        kind=kind,
        plan_id=plan_id,
        project_id=None,
        plan=None,
        execution_id=None,
        start=None,
        scenario_id=scenario_id,
        mark_id=mark_id,
        ticket=None if pd.isna(mark["ticket"]) else str(mark["ticket"]),
        target=_target_words(mark),
        detail=detail,
    )


def _target_words(mark: pd.Series) -> str:
    from dashboard.columns import marks as columns

    target = mark["target"]
    if target == columns.SCENARIO:
        return f"scenario {int(mark['scenario_id'])} of plan {int(mark['plan_id'])}"
    if target == columns.SCENARIO_ENVIRONMENT:
        return (
            f"scenario {int(mark['scenario_id'])} of plan {int(mark['plan_id'])} on "
            f"{mark['environment']}"
        )
    if target == columns.EXECUTION:
        return f"execution {int(mark['execution_id'])}"
    signature = str(mark["signature"] or "(no message)")
    short = signature if len(signature) <= 80 else signature[:79] + "…"
    where = "" if pd.isna(mark["plan_id"]) else f" in plan {int(mark['plan_id'])}"
    return f"the failure “{short}”{where}"


@dataclass(frozen=True)
class AlertChoice:
    """Which kinds of change are announced: `default` for every plan, unless its plan (first)
    or its project says otherwise."""

    default: frozenset[str] = frozenset(KINDS)
    plans: tuple[tuple[int, frozenset[str]], ...] = ()
    projects: tuple[tuple[int, frozenset[str]], ...] = ()

    def wanted(self, change: Change) -> bool:
        if change.plan_id is not None:
            for plan_id, kinds in self.plans:
                if plan_id == change.plan_id:
                    return change.kind in kinds
        if change.project_id is not None:
            for project_id, kinds in self.projects:
                if project_id == change.project_id:
                    return change.kind in kinds
        return change.kind in self.default


def with_projects(changes: list[Change], executions: pd.DataFrame) -> list[Change]:
    """Mark changes given the project of their plan (as the executions name it)."""
    if "project_id" not in executions.columns:
        return changes
    known = executions.dropna(subset=["plan_id", "project_id"]).drop_duplicates("plan_id")
    pairs = zip(known["plan_id"], known["project_id"], strict=True)
    project_of = {int(p): int(q) for p, q in pairs}
    out = []
    for change in changes:
        if change.project_id is None and change.plan_id is not None:
            project = project_of.get(change.plan_id)
            if project is not None:
                change = replace(change, project_id=project)
        out.append(change)
    return out
