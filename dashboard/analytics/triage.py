"""One verdict per failed result: the label every face reads, and the evidence behind it.

Each failed result (FAILURE or ERROR, `verdicts`) of the executions judged gets exactly one
label, the first of `PRECEDENCE` that holds, and the numbers that put it there as data (the
words are `present.triage`'s). The rules are the existing ones, composed here once:

    label                 holds when                                      rule from
 1  incomplete            the evidence is short (below: "Bad input")      evidence, verdicts, marks
 2  outage                its execution is a likely or confirmed outage   outages.outages
 3  known                 a mark that applies at `now` covers it          marks.covering_marks
 4  flaky                 its scenario flips, or its environment does     flaky, via states
 5  recovering            its scenario's latest run passed, and so did    states, flaky sequences
                          the latest run on its environment
 6  environment-specific  its scenario fails on its environment and       environments, via states
                          passes elsewhere
 7  broken                its scenario failed >= 90 % of its last N runs  states rule 4
 8  new                   the first failure of its scenario on its        results given
                          environment, after an earlier run of it
 9  unresolved            none of the above

Why this order:

- **incomplete first**: nothing is judged, and nothing excused, on evidence the program does
  not have. A label further down (outage, known) excuses a failure; a gate or a lead must see
  that the evidence is short before anything else. A bad input is said, never a crash and
  never a silent pass.
- **outage before known**: a night the grid was down says nothing about the tests; an outage
  comes first whatever mark covers its failures (as on Compare).
- **known before every state**: the team has said what it is, with a ticket and an owner; the
  state is still in the row's data for a face that wants it.
- **flaky before recovering**: a flaky scenario passes half the time, so its latest pass is no
  sign of a fix (as in `states`, where flaky comes before recovering).
- **recovering before every failing state** (environment-specific, broken, new, unresolved): a
  passing latest run outranks them, so a just-fixed scenario is never called broken. This is
  where the label parts from `states`, which calls a scenario that failed 9 of its last 10 runs
  broken even when the 10th passed.
- **environment-specific before broken**: as in `states`; the environment is the better lead.
- **broken and flaky before new**: a scenario's state describes all its failures alike, so the
  first failure of a scenario broken since is broken, not new; new is left for a failure no
  state explains yet (a scenario that passed until its latest run).

The states are those of each plan's last `rules.window` finished executions *without the
outages* (an outage night's failures would otherwise make flips), read per failed result: a
flaky environment makes only its own failures flaky, an environment-specific scenario only
its failures on those environments. The flaky, environment-specific and broken rules need K
runs (`rules.min_runs`); recovering and new are facts, not rates, and need none.

Bad input (reason in `incomplete`, in the order tried; see `INCOMPLETE_REASONS`):
- `UNKNOWN_EXECUTION`: the result's execution is not among `executions` (its summary cannot
  be checked, nor whether it was an outage);
- `RUNNING`: the execution has no end, or a result of it still runs;
- `SHORT`: a finished execution whose summary counts more failures than its results hold
  (`missing_failures`; an execution with none of them at all gets one row of its own, without a
  result);
- `UNKNOWN_STATUS`: a result whose status this program does not know (it is given a row too:
  it might be a failure);
- `UNREADABLE_MARK`: an open, unexpired mark of an unknown kind or target (or lacking what its
  target needs) whose fields name this failure (every one of its plan, scenario, environment,
  execution and message signature it sets equals the failure's). It is never applied, and the
  failure cannot be told known or not. A mark that sets none of them names nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from dashboard.analytics import states as state_rules
from dashboard.analytics.environment_names import ENVIRONMENT_COLUMNS, with_environments
from dashboard.analytics.evidence import Expected, shortfall
from dashboard.analytics.failure_groups import normalise_messages
from dashboard.analytics.marks import EXPIRING as MARK_EXPIRING
from dashboard.analytics.marks import OPEN as MARK_OPEN
from dashboard.analytics.marks import applying, covering_marks, mark_states
from dashboard.analytics.outages import outages, without_outages
from dashboard.analytics.outcomes import FAIL, PASS, failed_levels, result_cells
from dashboard.analytics.states import StateRules, scenario_states
from dashboard.analytics.verdicts import KNOWN_STATUSES, RUNNING_STATUSES
from dashboard.columns.schemas import UTC_TIME
from dashboard.columns.shapes import empty, require_columns, typed

INCOMPLETE = "incomplete"
OUTAGE = "outage"
KNOWN = "known"
FLAKY = "flaky"
RECOVERING = "recovering"
ENVIRONMENT_SPECIFIC = "environment-specific"
BROKEN = "broken"
NEW = "new"
UNRESOLVED = "unresolved"

PRECEDENCE: tuple[str, ...] = (
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
"""Every label, the first that holds naming a failed result (the module docstring says why)."""

UNKNOWN_EXECUTION = "unknown execution"
RUNNING = "running"
SHORT = "short"
UNKNOWN_STATUS = "unknown status"
UNREADABLE_MARK = "unreadable mark"
INCOMPLETE_REASONS: tuple[str, ...] = (
    UNKNOWN_EXECUTION,
    RUNNING,
    SHORT,
    UNKNOWN_STATUS,
    UNREADABLE_MARK,
)
"""Why a row is incomplete, the first that holds named."""

TRIAGE_COLUMNS: dict[str, str] = {
    "result_id": "Int64",  # missing on an execution's row for failures it lacks (SHORT)
    "execution_id": "int64",
    "plan_id": "Int64",
    "scenario_id": "Int64",
    "env_key": "str",
    "environment": "str",  # the environment's label ("SAFARI 17 / macOS")
    "level": "str",
    "start": UTC_TIME,  # its execution's start
    "label": "str",  # one of PRECEDENCE
    "scenario_state": "str",  # `states`' state of its scenario, missing outside the window
    "shown_state": "str",  # the state the pages show it in (`states.latest_pass_first`'s)
    # incomplete
    "incomplete": "str",  # one of INCOMPLETE_REASONS
    "missing_failures": "Int64",  # SHORT: failures its summary counts that its results lack
    # outage
    "outage": "str",  # `outages.LIKELY` or `outages.CONFIRMED`
    "outage_start": UTC_TIME,
    "outage_failed": "Int64",
    "outage_verdicts": "Int64",
    "outage_share": "float64",  # failed / verdicts
    "outage_signature": "str",  # the message most of its failures share
    "outage_signature_failures": "Int64",
    # known (and the mark confirming an outage, or the unreadable mark of an incomplete row)
    "mark_id": "str",
    "mark_kind": "str",
    "mark_target": "str",
    "ticket": "str",
    "owner": "str",
    "until": UTC_TIME,  # the mark's last day, missing when it does not expire
    # the state labels' numbers, over the window's runs
    "runs": "Int64",  # runs counted (flaky, broken: its last N, environment-specific, ...)
    "failed_runs": "Int64",  # of those, failed
    "flips": "Int64",  # flaky
    "since": UTC_TIME,  # the start of the first run counted
    "evidence_environment": "str",  # the environment the numbers are of, when not the scenario
    "elsewhere_passed": "Int64",  # environment-specific: passes on its other environments
    "elsewhere_runs": "Int64",
    "clean_runs": "Int64",  # recovering: runs passed in a row, newest back
    "passed_at": UTC_TIME,  # recovering: the start of its latest (passing) run
    "earlier_runs": "Int64",  # new: executions before it in which the scenario ran
    "earlier_environment_runs": "Int64",  # new: of those, on its environment
}
"""One row per failed result (and per result of an unknown status, and per execution that
lacks failures its summary counts): its label and the evidence of that label."""

_RESULT_INPUT = (
    "result_id",
    "execution_id",
    "plan_id",
    "scenario_id",
    "level",
    "message",
    "start",
    *ENVIRONMENT_COLUMNS,
)
_EXECUTION_INPUT = ("execution_id", "start", "plan_id", "finished", "verdicts", "failed")
_MARK_INPUT = (
    "mark_id",
    "target",
    "kind",
    "ticket",
    "owner",
    "expires_on",
    "created_at",
    "closed_at",
    "plan_id",
    "scenario_id",
    "environment",
    "execution_id",
    "signature",
)
_SCENARIO: Any = object()
"""`_StateEvidence._count` without an environment: the scenario's runs on any."""
_MARK_NAMES = ("plan_id", "scenario_id", "execution_id", "environment", "signature")
"""What a mark may name of a failure: an unreadable mark names what these of its fields say."""


def failure_verdicts(
    results: pd.DataFrame,
    executions: pd.DataFrame,
    marks: pd.DataFrame,
    *,
    now: object,
    rules: StateRules | None = None,
    judged: Iterable[int] | None = None,
) -> pd.DataFrame:
    """One verdict per failed result of the `judged` executions (TRIAGE_COLUMNS, oldest
    execution first; module docstring).

    `results`: a results-history frame, the judged executions' results and the history the
    states are read from (each plan's last `rules.window` finished executions); `executions`:
    the executions frame (their summaries, `finished`, starts); `marks`: the company's marks,
    all of them (those that apply at `now` are applied; the unreadable ones are said).
    `judged`: the executions whose failures get a row; by default those with a result in
    `results` (an execution given here without any result is said to lack its failures)."""
    require_columns(results, _RESULT_INPUT, "failure verdicts")
    require_columns(executions, _EXECUTION_INPUT, "failure verdicts")
    require_columns(marks, _MARK_INPUT, "failure verdicts")
    rules = rules or StateRules()
    # Oldest first, as the marks' tie rule wants: made independent of the rows' order.
    marks = marks.sort_values(["created_at", "mark_id"], kind="stable", na_position="last")
    current = applying(marks, now)
    found = outages(executions, current, results)

    wanted = (
        set(results["execution_id"].dropna().astype("int64").tolist())
        if judged is None
        else {int(i) for i in judged}
    )
    failed = failed_levels(results["level"])
    unknown = ~_known_levels(results["level"])
    of_judged = results["execution_id"].isin(wanted).to_numpy(dtype=bool)
    # Only the columns a verdict reads of a result: the rows are cut from the whole history.
    rows = with_environments(results.loc[(failed | unknown) & of_judged, list(_RESULT_INPUT)])
    rows = rows.assign(
        env_key=rows["env_key"].astype("str"), environment=rows["environment"].astype("str")
    )
    rows = pd.concat([rows, _lacking(results, executions, rows, wanted)], ignore_index=True)
    if rows.empty:
        return empty(TRIAGE_COLUMNS)
    rows = rows.assign(_unknown=~_known_levels(rows["level"]))

    order = _execution_order(executions, results, wanted)
    rows["start"] = rows["execution_id"].map(order["start"])
    reasons, more = _incomplete(rows, results, failed, executions, marks, now)
    # No mark applies: nothing is covered (`covering_marks` would say so at a cost).
    covered_by = (
        covering_marks(rows, current)["mark_id"].tolist() if len(current) else [None] * len(rows)
    )
    outage_of = found.drop_duplicates("execution_id").set_index("execution_id")
    by_id = marks.drop_duplicates("mark_id").set_index("mark_id")
    ids = rows["execution_id"].astype("int64").tolist()
    env_keys, environments = rows["env_key"].tolist(), rows["environment"].tolist()
    plans, scenarios = rows["plan_id"].tolist(), rows["scenario_id"].tolist()
    pairs = [
        None if _missing(plan) or _missing(scenario) else (int(plan), int(scenario))
        for plan, scenario in zip(plans, scenarios, strict=True)
    ]
    scored = _StateEvidence(
        executions, results, found, order, rules, pairs={p for p in pairs if p is not None}
    )

    # Each label's fields are decided once per what they depend on (an outage per execution,
    # a mark per mark, a state label per scenario on an environment: 42 of them for the 1,710
    # failed results of 7 days at 100,000 executions), and each row points at its decision:
    # a dict and a frame's row per failed result were most of the verdict's own cost.
    n = len(rows)
    decisions: list[dict[str, Any]] = []
    decision_of: dict[Any, int] = {}
    which = np.zeros(n, dtype=np.intp)
    scenario_state: list[str | None] = [None] * n
    shown_state: list[str | None] = [None] * n
    outage_ids = set(outage_of.index.astype("int64").tolist())
    pending: list[int] = []
    for position, (pair, reason, execution_id, mark_id) in enumerate(
        zip(pairs, reasons, ids, covered_by, strict=True)
    ):
        state = None if pair is None else scored.scenarios.get(pair)
        if state is not None:
            scenario_state[position] = state["state"]
        if pair is not None:
            shown_state[position] = scored.shown_states.get(pair)
        key: Any
        if reason is not None:
            key = ("incomplete", position)
            decision_of[key] = len(decisions)
            decisions.append({"label": INCOMPLETE, "incomplete": reason, **more.get(position, {})})
        elif execution_id in outage_ids:
            key = ("outage", execution_id)
            if key not in decision_of:
                decision_of[key] = len(decisions)
                decisions.append(_outage_verdict(outage_of.loc[execution_id], by_id))
        elif isinstance(mark_id, str):
            key = ("known", mark_id)
            if key not in decision_of:
                decision_of[key] = len(decisions)
                decisions.append({"label": KNOWN, **_mark_fields(by_id.loc[mark_id], mark_id)})
        elif state is None or pair is None:
            pending.append(position)
            continue
        else:
            key = (pair, env_keys[position], environments[position])
            if key not in decision_of:
                by_state = scored.label(pair, env_keys[position], environments[position], state)
                decision_of[key] = -1 if by_state is None else len(decisions)
                if by_state is not None:
                    decisions.append(by_state)
            if decision_of[key] < 0:  # new or unresolved: settled below, from the runs before
                pending.append(position)
                continue
        which[position] = decision_of[key]
    scored.count_earlier({pair for at in pending if (pair := pairs[at]) is not None})
    for position in pending:
        pair = pairs[position]
        which[position] = len(decisions)
        decisions.append(
            scored.new_or_unresolved(
                pair,
                env_keys[position],
                ids[position],
                None if pair is None else scored.scenarios.get(pair),
            )
        )
    decided = pd.DataFrame(decisions, columns=list(_DECIDED))
    for name in _DECIDED:
        if TRIAGE_COLUMNS[name] == UTC_TIME:  # a column of only missing times is read as naive
            decided[name] = pd.to_datetime(decided[name], utc=True)
    decided = decided.astype({name: TRIAGE_COLUMNS[name] for name in _DECIDED})
    # Oldest execution first: the order is found on the keys alone, then every column is
    # taken once in it.
    carried = rows[list(_CARRIED)].assign(start=pd.to_datetime(rows["start"], utc=True))
    in_order = (
        carried[list(_ORDER)]
        .sort_values(list(_ORDER), kind="stable", na_position="first")
        .index.to_numpy()
    )
    states = pd.DataFrame({"scenario_state": scenario_state, "shown_state": shown_state})
    frame = pd.concat(
        [
            carried.take(in_order).reset_index(drop=True),
            states.take(in_order).reset_index(drop=True),
            decided.take(which[in_order]).reset_index(drop=True),
        ],
        axis=1,
    )
    return typed(frame, TRIAGE_COLUMNS)


_CARRIED = (
    "result_id",
    "execution_id",
    "plan_id",
    "scenario_id",
    "env_key",
    "environment",
    "level",
    "start",
)
_ORDER = ("start", "execution_id", "scenario_id", "env_key", "result_id")
"""The verdicts' order: oldest execution first (a missing start first)."""
_DECIDED = tuple(
    name for name in TRIAGE_COLUMNS if name not in (*_CARRIED, "scenario_state", "shown_state")
)
"""The columns a verdict's label decides (its label and evidence): missing unless it sets them."""


def _outage_verdict(outage: pd.Series, by_id: pd.DataFrame) -> dict[str, Any]:
    """An outage's label and fields, with its confirming mark's when it has one."""
    fields = {"label": OUTAGE, **_outage_fields(outage)}
    mark_id = outage["mark_id"]
    if isinstance(mark_id, str) and mark_id in by_id.index:
        fields.update(_mark_fields(by_id.loc[mark_id], mark_id))
    return fields


def label_counts(verdicts: pd.DataFrame) -> dict[str, int]:
    """Rows per label of a `failure_verdicts` frame, every label present, in PRECEDENCE order."""
    tally = verdicts["label"].value_counts()
    return {label: int(tally.get(label, 0)) for label in PRECEDENCE}


# -- bad input ---------------------------------------------------------------------------------


def _known_levels(levels: pd.Series) -> np.ndarray:
    """Whether each level is a status this program knows (`verdicts.KNOWN_STATUSES`)."""
    return _levels_among(levels, KNOWN_STATUSES)


def _levels_among(levels: pd.Series, statuses: Iterable[str]) -> np.ndarray:
    """Whether each level is one of `statuses` (case and surrounding spaces aside), decided
    once per distinct level."""
    codes, uniques = pd.factorize(levels, use_na_sentinel=True)
    wanted = {status.upper() for status in statuses}
    table = np.array(
        [isinstance(u, str) and u.strip().upper() in wanted for u in uniques] + [False],
        dtype=bool,
    )
    return table[codes]


def _lacking(
    results: pd.DataFrame, executions: pd.DataFrame, rows: pd.DataFrame, wanted: set[int]
) -> pd.DataFrame:
    """One row, without a result, per judged execution whose summary counts failures and that
    has no row of its own: nothing else would say that its failures are missing."""
    counted = executions[
        executions["execution_id"].isin(wanted - set(rows["execution_id"].astype("int64")))
        & (executions["failed"].fillna(0).astype("int64") > 0)
    ].drop_duplicates("execution_id")
    if counted.empty:
        return rows.iloc[0:0]
    return pd.DataFrame(
        {
            "result_id": pd.array([None] * len(counted), dtype="Int64"),
            "execution_id": counted["execution_id"].astype("int64").to_numpy(),
            "plan_id": counted["plan_id"].astype("Int64").to_numpy(),
            "scenario_id": pd.array([None] * len(counted), dtype="Int64"),
            "level": pd.array([None] * len(counted), dtype="str"),
        }
    )


def _incomplete(
    rows: pd.DataFrame,
    results: pd.DataFrame,
    failed: np.ndarray,
    executions: pd.DataFrame,
    marks: pd.DataFrame,
    now: object,
) -> tuple[list[str | None], dict[int, dict[str, Any]]]:
    """For each of `rows`, why it cannot be judged (INCOMPLETE_REASONS, None when it can), and
    per position of an incomplete row the fields that say more. `failed`: whether each of
    `results` failed."""
    ids = rows["execution_id"].astype("int64")
    # Only the rows' executions: each is looked up, the other 90 days' are not.
    given = executions[executions["execution_id"].isin(ids).to_numpy(dtype=bool)]
    given = given.drop_duplicates("execution_id").set_index("execution_id")
    running_results = _levels_among(results["level"], RUNNING_STATUSES)
    still_running = set(results.loc[running_results, "execution_id"].astype("int64").tolist())
    unfinished = set(
        given.index[~given["finished"].fillna(False).astype(bool)].astype("int64").tolist()
    )
    finished = set(ids.tolist()) - unfinished - still_running
    missing = _missing_failures(results, given, finished, failed)
    unreadable = _unreadable_marks(rows, marks, now)

    # Each test over the whole column, the first that holds set last.
    known = ids.isin(given.index).to_numpy(dtype=bool)
    running = ids.isin(unfinished | still_running).to_numpy(dtype=bool)
    short = ids.isin(missing).to_numpy(dtype=bool)
    unknown = np.asarray(rows["_unknown"], dtype=bool) & rows["result_id"].notna().to_numpy()
    reasons = np.full(len(rows), None, dtype=object)
    reasons[list(unreadable)] = UNREADABLE_MARK
    reasons[unknown] = UNKNOWN_STATUS
    reasons[short] = SHORT
    reasons[running] = RUNNING
    reasons[~known] = UNKNOWN_EXECUTION
    said = reasons.tolist()
    more: dict[int, dict[str, Any]] = {}
    for position in np.flatnonzero(short).tolist():
        if said[position] == SHORT:
            more[position] = {"missing_failures": missing[int(ids.iat[position])]}
    for position, fields in unreadable.items():
        if said[position] == UNREADABLE_MARK:
            more[position] = fields
    return said, more


def _missing_failures(
    results: pd.DataFrame, given: pd.DataFrame, finished: set[int], failed: np.ndarray
) -> dict[int, int]:
    """Per finished execution among `finished`, the failures its summary counts that its results
    lack (`evidence.shortfall`, the one completeness rule), where any are lacking. `failed`:
    whether each of `results` failed (`failed_levels`)."""
    of_finished = results["execution_id"].isin(finished).to_numpy(dtype=bool)
    present = results.loc[of_finished & failed, "execution_id"].value_counts()
    counted = given.loc[sorted(finished & set(given.index)), "failed"].fillna(0).astype("int64")
    short = counted[counted > counted.index.map(present).fillna(0).astype("int64")]
    found: dict[int, int] = {}
    if short.empty:  # the common case: no frame of the finished executions' results is cut
        return found
    own = results[of_finished]
    for execution_id, count in short.items():
        of_it = own[own["execution_id"] == execution_id]
        gap = shortfall(Expected(failed=int(count)), of_it)
        if gap is not None and gap.failures:
            found[int(execution_id)] = gap.failures
    return found


def _unreadable_marks(
    rows: pd.DataFrame, marks: pd.DataFrame, now: object
) -> dict[int, dict[str, Any]]:
    """Per position of `rows`, the first open, unexpired mark that cannot be applied
    (`marks.well_formed` refuses it) and whose fields name the row."""
    if marks.empty or rows.empty:
        return {}
    states = mark_states(marks, now)
    open_now = states["state"].isin([MARK_OPEN, MARK_EXPIRING]).to_numpy(dtype=bool)
    bad = marks[open_now & ~states["applies"].to_numpy(dtype=bool)]
    if bad.empty:
        return {}
    values = {
        "plan_id": rows["plan_id"].astype("Int64"),
        "scenario_id": rows["scenario_id"].astype("Int64"),
        "execution_id": rows["execution_id"].astype("Int64"),
        "environment": rows["environment"].astype("str"),
        "signature": normalise_messages(rows["message"]).fillna("").astype("str")
        if "message" in rows.columns
        else pd.Series("", index=rows.index, dtype="str"),
    }
    found: dict[int, dict[str, Any]] = {}
    for mark in bad.to_dict("records"):
        named = {k: mark[k] for k in _MARK_NAMES if k in mark and not _missing(mark[k])}
        if not named:
            continue
        hit = np.ones(len(rows), dtype=bool)
        for name, value in named.items():
            column = values[name]
            same = column == (int(value) if name.endswith("_id") else str(value))
            hit &= same.fillna(False).to_numpy(dtype=bool)
        for position in np.flatnonzero(hit).tolist():
            found.setdefault(position, _mark_fields(mark, str(mark["mark_id"])))
    return found


def _missing(value: object) -> bool:
    if isinstance(value, int | np.integer | str):  # the common case, without pandas' dispatch
        return False
    return value is None or bool(pd.isna(value))


# -- outages and marks -------------------------------------------------------------------------


def _outage_fields(outage: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "outage": outage["state"],
        "outage_start": outage["start"],
        "outage_failed": outage["failed"],
        "outage_verdicts": outage["verdicts"],
        "outage_share": outage["failed_share"],
        "outage_signature": outage["signature"],
        "outage_signature_failures": outage["signature_failures"],
    }


def _mark_fields(mark: Mapping[str, Any] | pd.Series, mark_id: str) -> dict[str, Any]:
    return {
        "mark_id": mark_id,
        "mark_kind": mark["kind"],
        "mark_target": mark["target"],
        "ticket": mark["ticket"],
        "owner": mark["owner"],
        "until": mark["expires_on"],
    }


# -- the states, per failed result ------------------------------------------------------------


def _execution_order(
    executions: pd.DataFrame, results: pd.DataFrame, wanted: set[int]
) -> pd.DataFrame:
    """Every execution of `results` and of `wanted` with its start (the executions frame's,
    else its first result's) and its rank by (start, id), a missing start the oldest. Only
    those: a rank is compared with ranks of the same results, and sorting the 90 days'
    executions (70,000 at 100,000) for a few thousand of them was a tenth of the verdict."""
    seen = results.groupby(results["execution_id"].astype("int64"), sort=False)["start"].min()
    needed = executions["execution_id"].isin(set(seen.index.tolist()) | wanted)
    listed = executions.loc[needed.to_numpy(dtype=bool), ["execution_id", "start"]]
    listed = listed.drop_duplicates("execution_id")
    listed = listed.assign(execution_id=listed["execution_id"].astype("int64"))
    extra = seen[~seen.index.isin(listed["execution_id"])]
    every = listed.assign(start=pd.to_datetime(listed["start"], utc=True))
    if len(extra):  # its starts kept as times: a tz-aware `to_numpy()` is objects, slow to concat
        more = pd.DataFrame({"execution_id": extra.index, "start": extra.array})
        every = pd.concat(
            [every, more.assign(start=pd.to_datetime(more["start"], utc=True))], ignore_index=True
        )
    every = every.sort_values(["start", "execution_id"], kind="stable", na_position="first")
    every["rank"] = np.arange(len(every), dtype="int64")
    return every.set_index("execution_id")


class _StateEvidence:
    """The scenario states of the window without outages, and the runs before each failure,
    looked up per (plan, scenario) and environment of a failed result."""

    def __init__(
        self,
        executions: pd.DataFrame,
        results: pd.DataFrame,
        found: pd.DataFrame,
        order: pd.DataFrame,
        rules: StateRules,
        *,
        pairs: set[tuple[int, int]],
    ) -> None:
        """`pairs`: the (plan, scenario) pairs of the failed results; only theirs are read out
        of the states (all of them are computed: a scenario's window is its plan's)."""
        self.rules = rules
        judged = without_outages(executions[list(_EXECUTION_INPUT)], found)
        states = scenario_states(judged, results, rules)
        keys = ["plan_id", "scenario_id"]
        # The failed results' scenarios only: a scenario's state and the state it is shown in
        # (`latest_pass_first`) are its own and its environments'.
        scenarios = _of_pairs(states.scenarios, pairs)
        envs = _of_pairs(states.flakiness.environments, pairs)
        self.scenarios: dict[tuple[int, int], dict[str, Any]] = {
            _key(r, keys): r for r in scenarios.to_dict("records")
        }
        own = replace(
            states, scenarios=scenarios, flakiness=replace(states.flakiness, environments=envs)
        )
        shown = state_rules.latest_pass_first(own).scenarios
        self.shown_states: dict[tuple[int, int], str] = {
            (int(p), int(q)): str(s)
            for p, q, s in zip(shown["plan_id"], shown["scenario_id"], shown["state"], strict=True)
        }
        env_keys = ["plan_id", "scenario_id", "env_key"]
        self.environments: dict[tuple[Any, ...], dict[str, Any]] = {
            _key(r, env_keys): r for r in envs.to_dict("records")
        }
        positions = states.flakiness.positions
        self.starts: dict[tuple[int, int], pd.Timestamp] = {
            (int(p), int(q)): s
            for p, q, s in zip(
                positions["plan_id"], positions["position"], positions["start"], strict=True
            )
        }
        self.results = results
        self.outage_ids = found["execution_id"]
        self.order = order
        self.rank: dict[int, int] = dict(
            zip(order.index.tolist(), order["rank"].tolist(), strict=True)
        )
        self.scenario_runs: dict[tuple[Any, ...], np.ndarray] = {}
        self.cell_runs: dict[tuple[Any, ...], np.ndarray] = {}
        self.cell_fails: dict[tuple[Any, ...], np.ndarray] = {}

    def count_earlier(self, pairs: set[tuple[int, int]]) -> None:
        """The ranks of the runs of each scenario of `pairs`, of each scenario on each
        environment, and of its failures there: what `new` counts back from (outages left
        out). Only of the scenarios asked for: few failures get that far (most have a state),
        and the cells of the whole history were a fifth of the verdict's cost."""
        if not pairs:
            return
        results = self.results
        # The scenarios' rows first (a few of the history's), then their exact pairs.
        scenario = results["scenario_id"]
        near = scenario.isin({q for _, q in pairs}).to_numpy(dtype=bool)
        near &= ~results["execution_id"].isin(self.outage_ids).to_numpy(dtype=bool)
        nearby = results[near]
        plan = nearby["plan_id"].astype("Int64").fillna(-1).to_numpy(dtype="int64")
        scenario = nearby["scenario_id"].astype("Int64").fillna(-1).to_numpy(dtype="int64")
        wanted = pd.MultiIndex.from_tuples(sorted(pairs))
        asked = np.asarray(pd.MultiIndex.from_arrays([plan, scenario]).isin(wanted), dtype=bool)
        self._earlier(nearby[asked], self.order)

    def _earlier(self, results: pd.DataFrame, order: pd.DataFrame) -> None:
        cells = result_cells(results, details=False)
        outcome = cells["outcome"]
        counted = outcome.isin([PASS, FAIL]).to_numpy(dtype=bool)
        rank = cells["execution_id"].map(order["rank"])
        known = (cells["plan_id"].notna() & cells["scenario_id"].notna() & rank.notna()).to_numpy(
            dtype=bool
        )
        kept = counted & known
        plan = cells.loc[kept, "plan_id"].astype("int64").to_numpy()
        scenario = cells.loc[kept, "scenario_id"].astype("int64").to_numpy()
        env = cells.loc[kept, "env_key"].astype("str").to_numpy(dtype=object)
        ranks = rank[kept].astype("int64").to_numpy()
        failed = (outcome[kept] == FAIL).to_numpy(dtype=bool)
        self.scenario_runs = _ranks(plan, scenario, None, ranks, unique=True)
        self.cell_runs = _ranks(plan, scenario, env, ranks)
        self.cell_fails = _ranks(plan[failed], scenario[failed], env[failed], ranks[failed])

    def label(
        self, pair: tuple[int, int], env_key: Any, environment: Any, state: dict[str, Any]
    ) -> dict[str, Any] | None:
        """The first state label of PRECEDENCE (after known) that holds for a failure of the
        scenario `pair` on the environment `env_key` (labelled `environment`), and its
        numbers; None when none does before new (`new_or_unresolved` settles it, after
        `count_earlier`). The same for every failure of the scenario there."""
        plan = pair[0]
        env = self.environments.get((*pair, str(env_key)))
        enough = state["state"] != state_rules.NOT_ENOUGH_DATA
        if env is not None and bool(env["flagged"]):
            return {"label": FLAKY, **self._flaky(env, plan, scope=env)}
        if state["flaky_reason"] == "scenario":
            return {"label": FLAKY, **self._flaky(state, plan, scope=None)}
        if _latest_passed(state["sequence"]) and (env is None or _latest_passed(env["sequence"])):
            return {"label": RECOVERING, **self._recovering(state, plan)}
        specific = state["specific_environments"]
        if enough and isinstance(specific, tuple) and environment in specific:
            return {"label": ENVIRONMENT_SPECIFIC, **self._specific(state, env, plan, environment)}
        last = int(state["last_runs"])
        broken = last > 0 and state["last_fails"] >= self.rules.broken_share * last - 1e-9
        if enough and broken:  # `states` rule 4, read again: it is not exposed on its own
            since = self._since(state["sequence"], plan, last=last)
            return {
                "label": BROKEN,
                "runs": last,
                "failed_runs": state["last_fails"],
                "since": since,
            }
        return None

    def new_or_unresolved(
        self,
        pair: tuple[int, int] | None,
        env_key: Any,
        execution_id: int,
        state: dict[str, Any] | None,
    ) -> dict[str, Any]:
        """New or unresolved, and its numbers, for a failure `label` left unsettled (of the
        scenario `pair`, on the environment `env_key`, in the execution `execution_id`)."""
        earlier = self._count(self.scenario_runs, pair, execution_id)
        earlier_here = self._count(self.cell_runs, pair, execution_id, env_key=env_key)
        if earlier > 0 and self._count(self.cell_fails, pair, execution_id, env_key=env_key) == 0:
            return {
                "label": NEW,
                "earlier_runs": earlier,
                "earlier_environment_runs": earlier_here,
            }
        if state is None or pair is None:
            return {"label": UNRESOLVED}
        return {
            "label": UNRESOLVED,
            "runs": state["runs"],
            "failed_runs": state["fails"],
            "since": self._since(state["sequence"], pair[0]),
        }

    def _flaky(
        self, of: Mapping[str, Any], plan: int, *, scope: Mapping[str, Any] | None
    ) -> dict[str, Any]:
        return {
            "runs": of["runs"],
            "failed_runs": of["fails"],
            "flips": of["flips"],
            "since": self._since(of["sequence"], plan),
            "evidence_environment": None if scope is None else scope["environment"],
        }

    def _recovering(self, state: Mapping[str, Any], plan: int) -> dict[str, Any]:
        runs = _run_positions(state["sequence"])
        return {
            "runs": state["runs"],
            "failed_runs": state["fails"],
            "clean_runs": state["clean_runs"],
            "passed_at": self.starts.get((plan, runs[-1][0])),
        }

    def _specific(
        self, state: Mapping[str, Any], env: Mapping[str, Any] | None, plan: int, environment: Any
    ) -> dict[str, Any]:
        of = env if env is not None else state
        return {
            "runs": of["runs"],
            "failed_runs": of["fails"],
            "since": self._since(of["sequence"], plan),
            "evidence_environment": environment,
            "elsewhere_passed": state["elsewhere_passed"],
            "elsewhere_runs": state["elsewhere_runs"],
        }

    def _since(self, sequence: object, plan: int, *, last: int = 0) -> Any:
        """The start of the first run of `sequence` counted (of its `last` runs, when given)."""
        runs = _run_positions(sequence)
        counted = runs[-last:] if last else runs
        if not counted:
            return None
        return self.starts.get((plan, counted[0][0]))

    def _count(
        self,
        table: dict[tuple[Any, ...], np.ndarray],
        pair: tuple[int, int] | None,
        execution_id: int,
        *,
        env_key: Any = _SCENARIO,
    ) -> int:
        """How many of the ranks `table` holds for the scenario `pair` (on the environment
        `env_key`, when given) are before the execution's own."""
        if pair is None:
            return 0
        key: tuple[Any, ...] = pair if env_key is _SCENARIO else (*pair, str(env_key))
        ranks = table.get(key)
        if ranks is None:
            return 0
        return int(np.searchsorted(ranks, self.rank[execution_id], side="left"))


def _of_pairs(frame: pd.DataFrame, pairs: set[tuple[int, int]]) -> pd.DataFrame:
    """The rows of `frame` (with plan_id and scenario_id) of one of `pairs`: those of their
    scenarios first, then the exact pairs among those few."""
    near = frame[frame["scenario_id"].isin({q for _, q in pairs}).to_numpy(dtype=bool)]
    exact = [
        not _missing(plan) and (int(plan), int(scenario)) in pairs
        for plan, scenario in zip(
            near["plan_id"].tolist(), near["scenario_id"].tolist(), strict=True
        )
    ]
    return near[np.asarray(exact, dtype=bool)]


def _latest_passed(sequence: object) -> bool:
    runs = _run_positions(sequence)
    return bool(runs) and runs[-1][1] == "P"


def _ranks(
    plan: np.ndarray,
    scenario: np.ndarray,
    env: np.ndarray | None,
    ranks: np.ndarray,
    *,
    unique: bool = False,
) -> dict[tuple[Any, ...], np.ndarray]:
    """The sorted execution `ranks` of cells per plan and scenario (and environment key, when
    `env` is given; each rank once per scenario when `unique`), by one sort and one split
    over plain arrays: a few cells (the scenarios that reach `new`) cost a frame's sort
    several times their own work."""
    if not len(ranks):
        return {}
    columns: list[np.ndarray] = [plan, scenario]
    if env is not None:
        columns.append(pd.factorize(env, sort=True)[0])
    order = np.lexsort((ranks, *reversed(columns)))
    columns = [column[order] for column in columns]
    ranks = ranks[order]
    starts_group = np.zeros(len(ranks), dtype=bool)
    starts_group[0] = True
    for column in columns:
        starts_group[1:] |= column[1:] != column[:-1]
    names = None if env is None else env[order]
    if unique:  # a scenario runs once per execution, whatever its environments
        kept = starts_group.copy()
        kept[1:] |= ranks[1:] != ranks[:-1]
        columns, ranks, starts_group = [c[kept] for c in columns], ranks[kept], starts_group[kept]
        names = None if names is None else names[kept]
    starts = np.flatnonzero(starts_group)
    return {
        (
            int(columns[0][at]),
            int(columns[1][at]),
            *(() if names is None else (str(names[at]),)),
        ): part
        for at, part in zip(starts.tolist(), np.split(ranks, starts[1:]), strict=True)
    }


def _key(row: Mapping[str, Any], keys: list[str]) -> tuple[Any, ...]:
    return tuple(str(row[k]) if k == "env_key" else int(row[k]) for k in keys)


def _run_positions(sequence: object) -> list[tuple[int, str]]:
    """The runs of a `flaky` sequence (a character per position of its plan's window, oldest
    first): each one's position and whether it passed (P) or failed (F)."""
    text = sequence if isinstance(sequence, str) else ""
    return [(at, char) for at, char in enumerate(text) if char in "PF"]
