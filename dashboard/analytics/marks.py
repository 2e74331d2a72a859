"""What the team knows, applied to results: which failures are known, and the marks' lifecycle.

A mark (`dashboard.columns.marks`) *applies* while it is open and not expired: its expiry is the
last day it applies (UTC), so it stops applying when that day is over. It is *expiring* when it
applies and that day is at most `EXPIRING_DAYS` (3) away, and *expired* once it has passed.

A failed result (FAILURE or ERROR, `verdicts`) is *known* when an applying mark covers it; the
others are *unresolved*. Several marks may cover one failure; the most specific one is named:
an outage of its execution, then its scenario on its environment, then its scenario, then its
failure group limited to its plan and one environment, to its plan, to one environment, then
its failure group anywhere (of equals, the oldest). A mark that dismisses an outage covers
nothing.

A failure group's mark has a *scope* (`group_scope`): its plan (`plan_id` set), one
environment (`environment` set: the environment's version-independent label, "CHROME /
Windows 10", so it covers that group's failures on that environment on any browser version,
in every plan), or every plan (neither set).

*Looks fixed* (`mark_evidence`): an open mark of a failure whose target ran in its last
`LOOKS_FIXED_RUNS` (K = 10) runs without failing. Runs are the cells of its target (a scenario,
or the scenario on its environment) in the executions given, or, for a failure group, the
executions of its plan (of any plan, for a group of every plan; on its environment, for a group
of one environment) that had results: "0 failures in the last 10 runs since 24 Nov". With
fewer than K runs nothing is proposed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dashboard.analytics.environment_names import (
    ENVIRONMENT_COLUMNS,
    environment_label,
    label_names,
    with_environments,
)
from dashboard.analytics.failure_groups import normalise_message, normalise_messages
from dashboard.analytics.outcomes import FAIL, PASS, failed_levels, level_outcomes, result_cells
from dashboard.columns import marks as mark_columns
from dashboard.columns.marks import MARK_COLUMNS
from dashboard.columns.schemas import UTC_TIME
from dashboard.columns.shapes import as_utc, require_columns, typed

EXPIRING_DAYS = 3
"""A mark whose last day is at most this many days away is said to expire soon."""
LOOKS_FIXED_RUNS = 10
"""K: a mark whose target ran this many times in a row without failing looks fixed."""

OPEN, EXPIRING, EXPIRED, CLOSED = "open", "expiring", "expired", "closed"
"""A mark's state on a day: applying (open, or expiring soon), expired, or closed."""
LOOKS_FIXED = "looks fixed"
"""Not a state of its own: an open mark whose target has not failed lately (a filter)."""

COVER_COLUMNS = ("mark_id", "kind", "ticket")
"""What `covering_marks` says of each failed result: the mark that covers it, or missing."""

_RESULT_INPUT = ("execution_id", "plan_id", "scenario_id", "level", "message", *ENVIRONMENT_COLUMNS)

STATE_COLUMNS: dict[str, str] = {
    "mark_id": "str",
    "state": "str",  # OPEN, EXPIRING, EXPIRED or CLOSED
    "applies": "bool",
    "days_left": "Int64",  # days until its last day (0: today is its last), when it expires
}

EVIDENCE_COLUMNS: dict[str, str] = {
    "mark_id": "str",
    "runs": "int64",  # of its target, in the results given (at most `runs` counted)
    "failures": "int64",  # of those runs, failed
    "since": UTC_TIME,  # start of the oldest of the runs counted
    "last_failed": UTC_TIME,  # the latest failure of its target in the results given
    "looks_fixed": "bool",  # open, K runs counted, none failed
}


# -- lifecycle ---------------------------------------------------------------------------------


def mark_states(marks: pd.DataFrame, now: object) -> pd.DataFrame:
    """Each mark's state at `now` (STATE_COLUMNS, in the marks' order)."""
    require_columns(marks, ("mark_id", "expires_on", "closed_at"), "mark states")
    today = _day(as_utc(now, "now"))
    last_day = marks["expires_on"].dt.tz_convert("UTC").dt.normalize()
    days_left = (last_day - today) // pd.Timedelta(days=1)
    closed = marks["closed_at"].notna().to_numpy()
    expired = (days_left < 0).fillna(False).to_numpy(dtype=bool) & ~closed
    expiring = (days_left <= EXPIRING_DAYS).fillna(False).to_numpy(dtype=bool) & ~closed & ~expired
    state = np.select([closed, expired, expiring], [CLOSED, EXPIRED, EXPIRING], default=OPEN)
    formed = well_formed(marks) if len(marks) else np.ones(0, dtype=bool)
    return typed(
        pd.DataFrame(
            {
                "mark_id": marks["mark_id"].to_numpy(),
                "state": state,
                "applies": ~closed & ~expired & formed,
                "days_left": days_left.astype("Int64").to_numpy(),
            }
        ),
        STATE_COLUMNS,
    )


def applying(marks: pd.DataFrame, now: object) -> pd.DataFrame:
    """The marks that apply at `now`: well-formed, open and not expired (MARK_COLUMNS)."""
    if marks.empty:
        return typed(marks, MARK_COLUMNS)
    require_columns(marks, ("mark_id", "expires_on", "closed_at"), "applying marks")
    # `mark_states`' rule without its frame: not closed, and its last day not before today.
    last_day = marks["expires_on"].dt.tz_convert("UTC").dt.normalize()
    expired = (last_day < _day(as_utc(now, "now"))).to_numpy(dtype=bool)
    keep = marks["closed_at"].isna().to_numpy() & ~expired & well_formed(marks)
    return typed(marks[keep], MARK_COLUMNS)


_NEEDS: dict[str, tuple[str, ...]] = {
    mark_columns.FAILURE_GROUP: ("signature",),
    mark_columns.SCENARIO: ("plan_id", "scenario_id"),
    mark_columns.SCENARIO_ENVIRONMENT: ("plan_id", "scenario_id", "environment"),
    mark_columns.EXECUTION: ("execution_id",),
}


def well_formed(marks: pd.DataFrame) -> np.ndarray:
    """Which marks (by position) mean something this program can apply: a target and a kind it
    knows, of each other (an execution is an outage or not, a failure known or accepted), the
    fields that target needs, and a time it was made. The store keeps a malformed row apart
    (`store.stored_marks`); this is the same rule where frames are made by other hands (an
    import, a test), so a mark of an unknown kind never counts, whoever read it."""
    require_columns(marks, ("target", "kind", "created_at"), "well-formed marks")
    targets = marks["target"].astype("str").to_numpy(dtype=object, na_value=None)
    kinds = marks["kind"].astype("str").to_numpy(dtype=object, na_value=None)
    ok = np.array(marks["created_at"].notna().to_numpy(dtype=bool))  # a copy: written below
    for target, needs in _NEEDS.items():
        of_target = targets == target
        fits = np.isin(kinds, mark_columns.KINDS_FOR[target])
        for name in needs:
            present = marks[name].notna().to_numpy(dtype=bool) if name in marks.columns else False
            fits = fits & present
        ok &= ~of_target | fits
    return ok & np.isin(targets, mark_columns.TARGETS)


def _day(stamp: pd.Timestamp) -> pd.Timestamp:
    return stamp.tz_convert("UTC").normalize()


# -- which failures are known ----------------------------------------------------------------


def covering_marks(results: pd.DataFrame, marks: pd.DataFrame) -> pd.DataFrame:
    """For each row of `results`, the applying mark among `marks` that covers it when it is a
    failure (COVER_COLUMNS, on `results`' index; missing where none does or it did not fail).
    `marks` should be those that apply (`applying`)."""
    require_columns(results, _RESULT_INPUT, "known failures")
    positions = np.flatnonzero(failed_levels(results["level"]))
    covered = _covered_at(results, positions, marks)
    # Each column spread over every row at once: the failed rows' values, missing elsewhere.
    where = np.full(len(results), len(positions), dtype=np.intp)
    where[positions] = np.arange(len(positions))
    return pd.DataFrame(
        {
            name: pd.Series(
                pd.array([*covered[name].tolist(), None], dtype="str").take(where),
                index=results.index,
            )
            for name in COVER_COLUMNS
        }
    )


COVERED_COLUMNS = ("env_key", "environment", *COVER_COLUMNS)
"""What `covered_failures` adds to each failed result: its environment (`with_environments`)
and the mark that covers it (COVER_COLUMNS, missing where none does)."""


def covered_failures(results: pd.DataFrame, marks: pd.DataFrame) -> pd.DataFrame:
    """The failed rows of `results` (on their index, in their order, with the columns
    `covering_marks` reads) and COVERED_COLUMNS: what every known figure is made of. Only the
    failed rows are worked on: a million results with a few thousand failures cost a few
    thousand rows, whatever the marks."""
    require_columns(results, _RESULT_INPUT, "known failures")
    positions = np.flatnonzero(failed_levels(results["level"]))
    return _covered_at(results, positions, marks)


def _covered_at(results: pd.DataFrame, positions: np.ndarray, marks: pd.DataFrame) -> pd.DataFrame:
    """`covered_failures` of the rows of `results` at `positions` (its failures)."""
    failed = with_environments(results[list(_COVER_INPUT)].iloc[positions])
    ids = _covering_ids(failed, marks)
    found = marks[marks["mark_id"].isin({i for i in ids if i is not None})]
    of_id: dict[str, dict[object, object]] = {"kind": {}, "ticket": {}}
    for name, table in of_id.items():
        for mark_id, value in zip(found["mark_id"].tolist(), found[name].tolist(), strict=True):
            table.setdefault(mark_id, value)
    return failed.assign(
        mark_id=pd.Series(ids, index=failed.index, dtype="str"),
        **{
            name: pd.Series([table.get(i) for i in ids], index=failed.index, dtype="str")
            for name, table in of_id.items()
        },
    )


def _covering_ids(failed: pd.DataFrame, marks: pd.DataFrame) -> list[object]:
    """The id of the mark covering each row of `failed` (None where none does), by precedence:
    a kind of target is looked up only for the rows no earlier one covered, and its keys (a
    signature, an environment's label) are worked out only for those rows (a label only where
    a mark names the row's scenario); each kind's marks become one table of their keys (of
    equal marks, the oldest: marks come oldest first). Keys match as a merge on them would: a
    missing value matches a missing value."""
    chosen: list[object] = [None] * len(failed)
    if marks.empty or failed.empty:
        return chosen
    marks = marks[well_formed(marks)]  # a malformed mark covers nothing, applying or not
    if marks.empty:
        return chosen
    marks = by_identity(marks, failed)
    columns: dict[str, list[object]] = {}

    def column(name: str) -> list[object]:
        if name not in columns:
            columns[name] = _plain_values(failed[name])
        return columns[name]

    for keys, table in _mark_tables(marks):
        rows = [i for i, mark in enumerate(chosen) if mark is None]
        if not rows:
            break
        for i, row_key in zip(rows, _level_keys(failed, rows, keys, table, column), strict=True):
            if row_key is not None:
                chosen[i] = table.get(row_key)
    return chosen


def _level_keys(
    failed: pd.DataFrame,
    rows: list[int],
    keys: tuple[str, ...],
    table: dict[tuple[object, ...], object],
    column: Callable[[str], list[object]],
) -> list[tuple[object, ...] | None]:
    """The key values of the `rows` of `failed` for one level of the precedence (None where no
    mark of `table` can cover the row)."""
    values: dict[str, list[object]] = {}
    for name in keys:
        if name == "signature":
            messages = failed["message"].iloc[rows]
            codes, uniques = pd.factorize(messages, use_na_sentinel=True)
            signatures = [normalise_message(str(u)) for u in uniques] + [""]
            values[name] = [signatures[c] for c in codes.tolist()]
        elif name != "environment" or name in failed.columns:
            every = column(name)
            values[name] = [every[i] for i in rows]
    if "environment" not in keys or "environment" in values:
        return list(zip(*(values[k] for k in keys), strict=True))
    # The label only where the other keys are those of a mark: no other row can match.
    others = [k for k in keys if k != "environment"]
    wanted = {
        tuple(v for k, v in zip(keys, key, strict=True) if k != "environment") for key in table
    }
    partial = list(zip(*(values[k] for k in others), strict=True))
    candidates = [n for n, key in enumerate(partial) if key in wanted]
    out: list[tuple[object, ...] | None] = [None] * len(rows)
    at = keys.index("environment")
    labels = _environment_labels(failed, [rows[n] for n in candidates])
    for n, label in zip(candidates, labels, strict=True):
        out[n] = (*partial[n][:at], label, *partial[n][at:])
    return out


def _environment_labels(failed: pd.DataFrame, positions: list[int]) -> list[str]:
    """The environment's label (`environment_label`, as `with_environments` names it) of the
    rows of `failed` at `positions`, worked out once per distinct environment."""
    at = np.asarray(positions, dtype=np.intp)
    parts = [failed[c].to_numpy(dtype=object)[at].tolist() for c in ENVIRONMENT_COLUMNS]
    named: dict[tuple[object, ...], str] = {}
    labels = []
    for combo in zip(*parts, strict=True):
        label = named.get(combo)
        if label is None:
            label = named[combo] = environment_label(*combo)
        labels.append(label)
    return labels


def by_identity(marks: pd.DataFrame, results: pd.DataFrame) -> pd.DataFrame:
    """`marks` with the environment of each scenario-on-environment mark made before #38
    ("CHROME 130 / Windows 10") named as environments are now ("CHROME / Windows 10"), when
    one of the environments of `results` (with `ENVIRONMENT_COLUMNS`) is the one it names
    (`environment_names.label_names`): such a mark keeps covering its scenario on that
    environment, on any version of the browser. A failure group mark of one environment typed
    with a version is named the same way. Other marks are returned as they are."""
    on_env = (
        marks["target"].isin([mark_columns.SCENARIO_ENVIRONMENT, mark_columns.FAILURE_GROUP])
        & marks["environment"].notna()
    ).to_numpy(dtype=bool)
    if not on_env.any() or results.empty:
        return marks
    combos = list(
        results[list(ENVIRONMENT_COLUMNS)]
        .drop_duplicates()
        .astype(object)
        .itertuples(index=False, name=None)
    )
    identities = {environment_label(*combo) for combo in combos}
    renamed: dict[str, str] = {}
    for label in set(marks.loc[on_env, "environment"].dropna().astype(str)):
        if label in identities:
            continue
        for combo in combos:
            if label_names(label, *combo):
                renamed[label] = environment_label(*combo)
                break
    if not renamed:
        return marks
    environment = marks["environment"].astype("str")
    return marks.assign(environment=environment.where(~on_env, environment.replace(renamed)))


def _mark_tables(
    marks: pd.DataFrame,
) -> list[tuple[tuple[str, ...], dict[tuple[object, ...], object]]]:
    """For each level of `_PRECEDENCE` that has marks, in order: its keys, and its marks' ids
    by their key values (a tuple), the oldest of equals kept (marks come oldest first). An
    execution's mark covers only as an outage; a failure group's is of the level of its scope
    (`_group_keys`)."""
    names = ("target", "kind", *dict.fromkeys(k for _, keys in _PRECEDENCE for k in keys))
    columns = {name: _plain_values(marks[name]) for name in names}
    ids = marks["mark_id"].tolist()
    tables: list[dict[tuple[object, ...], object]] = [{} for _ in _PRECEDENCE]
    levels: dict[object, list[int]] = {}
    for position, (level_target, _) in enumerate(_PRECEDENCE):
        levels.setdefault(level_target, []).append(position)
    for row, target in enumerate(columns["target"]):
        if target == mark_columns.EXECUTION and columns["kind"][row] != mark_columns.OUTAGE:
            continue
        for position in levels.get(target, ()):
            keys = _PRECEDENCE[position][1]
            if target == mark_columns.FAILURE_GROUP and keys != _group_keys(
                columns["plan_id"][row] is not None, columns["environment"][row] is not None
            ):
                continue
            tables[position].setdefault(tuple(columns[k][row] for k in keys), ids[row])
    return [(keys, table) for (_, keys), table in zip(_PRECEDENCE, tables, strict=True) if table]


def _plain_values(column: pd.Series) -> list[object]:
    """A key column as values alike on both sides (ids as integers, labels and signatures as
    str, an environment's categorical label too), missing as None."""
    if column.name is not None and str(column.name).endswith("_id"):
        values = column.astype("Int64").to_numpy(dtype=object, na_value=None)
    else:
        values = column.astype("str").to_numpy(dtype=object, na_value=None)
    return list(values)


def _keyed(table: pd.DataFrame, keys: tuple[str, ...]) -> pd.DataFrame:
    """A mark table with its key columns in the dtypes the results' keys have."""
    types = {k: ("Int64" if k.endswith("_id") else "str") for k in keys}
    return table.astype(types)


def _with_signature(failed: pd.DataFrame) -> pd.DataFrame:
    return failed.assign(signature=normalise_messages(failed["message"]).fillna(""))


_COVER_INPUT = tuple(
    dict.fromkeys(("execution_id", "plan_id", "scenario_id", "message", *ENVIRONMENT_COLUMNS))
)
_GROUP_LEVELS: dict[tuple[bool, bool], tuple[str, ...]] = {
    (True, True): ("signature", "plan_id", "environment"),
    (True, False): ("signature", "plan_id"),
    (False, True): ("signature", "environment"),
    (False, False): ("signature",),
}
"""A failure group mark's keys by (it names a plan, it names an environment): its scope."""


def _group_keys(has_plan: bool, has_environment: bool) -> tuple[str, ...]:
    return _GROUP_LEVELS[(has_plan, has_environment)]


_PRECEDENCE: tuple[tuple[str, tuple[str, ...]], ...] = (
    (mark_columns.EXECUTION, ("execution_id",)),
    (mark_columns.SCENARIO_ENVIRONMENT, ("plan_id", "scenario_id", "environment")),
    (mark_columns.SCENARIO, ("plan_id", "scenario_id")),
    *((mark_columns.FAILURE_GROUP, keys) for keys in _GROUP_LEVELS.values()),
)

PLAN_SCOPE, ENVIRONMENT_SCOPE, EVERY_PLAN_SCOPE = "plan", "environment", "all"
"""A failure group mark's scope: its plan, one environment, or every plan."""
GROUP_SCOPES: tuple[str, ...] = (PLAN_SCOPE, ENVIRONMENT_SCOPE, EVERY_PLAN_SCOPE)


def group_scope(mark: Mapping[str, object]) -> str | None:
    """The scope of a failure group mark (a row of MARK_COLUMNS): PLAN_SCOPE when it names a
    plan (on one environment too, when it names one), ENVIRONMENT_SCOPE when it names only an
    environment, EVERY_PLAN_SCOPE when neither; None for a mark of another target."""
    if mark.get("target") != mark_columns.FAILURE_GROUP:
        return None
    if not _absent(mark.get("plan_id")):
        return PLAN_SCOPE
    if not _absent(mark.get("environment")):
        return ENVIRONMENT_SCOPE
    return EVERY_PLAN_SCOPE


def _absent(value: object) -> bool:
    if value is None or value == "":
        return True
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def known_failures(results: pd.DataFrame, marks: pd.DataFrame) -> pd.DataFrame:
    """`results` (needs the columns `covering_marks` reads) with a `known` flag and the covering
    mark's id, kind and ticket; unfailed results are never known."""
    cover = covering_marks(results, marks)
    return results.assign(
        known=cover["mark_id"].notna().to_numpy(),
        **{f"mark_{name}" if name != "mark_id" else name: cover[name] for name in COVER_COLUMNS},
    )


def known_per_execution(results: pd.DataFrame, marks: pd.DataFrame) -> pd.Series:
    """How many failed results of each execution are known (an int64 Series by execution id;
    executions without known failures are left out)."""
    require_columns(results, _RESULT_INPUT, "known failures")
    positions = np.flatnonzero(failed_levels(results["level"]))
    failed = results[list(_COVER_INPUT)].iloc[positions]
    covered = np.array([mark is not None for mark in _covering_ids(failed, marks)], dtype=bool)
    known = failed["execution_id"][covered] if len(failed) else failed["execution_id"]
    return known.value_counts().astype("int64").rename("known")


KNOWN_CELL_COLUMNS: dict[str, str] = {
    "execution_id": "int64",
    "plan_id": "Int64",
    "scenario_id": "Int64",
    "env_key": "str",
    "environment": "str",
    "failures": "int64",  # failed results of the cell
    "known": "bool",  # every one of them covered
    "mark_id": "str",  # the mark covering its first failure, when any does
    "ticket": "str",
}


def known_cells(results: pd.DataFrame, marks: pd.DataFrame) -> pd.DataFrame:
    """The failed cells (a scenario on an environment in an execution) of `results`, each known
    when every failed result of it is covered by one of `marks` (those that apply)
    (KNOWN_CELL_COLUMNS)."""
    failed = covered_failures(results, marks)
    if failed.empty:
        return typed(failed, KNOWN_CELL_COLUMNS)
    failed = failed.assign(_covered=failed["mark_id"].notna())
    cells = failed.groupby(
        ["execution_id", "plan_id", "scenario_id", "env_key", "environment"],
        dropna=False,
        observed=True,
        sort=True,
    ).agg(
        failures=("_covered", "size"),
        known=("_covered", "all"),
        mark_id=("mark_id", "first"),
        ticket=("ticket", "first"),
    )
    cells = cells.reset_index()
    return typed(
        cells.assign(
            env_key=cells["env_key"].astype("str"), environment=cells["environment"].astype("str")
        ),
        KNOWN_CELL_COLUMNS,
    )


KNOWN_COUNT_COLUMNS: dict[str, str] = {
    "failed_cells": "int64",
    "known_cells": "int64",
    "mark_id": "str",  # the mark covering most of its known cells
    "ticket": "str",
}


def known_by(cells: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Failed and known cells of `known_cells` per `keys`, with the mark covering most of them
    (KNOWN_COUNT_COLUMNS, indexed by `keys`)."""
    if cells.empty:
        frame = pd.DataFrame(columns=[*keys, *KNOWN_COUNT_COLUMNS])
        return typed(frame, {**dict.fromkeys(keys, "object"), **KNOWN_COUNT_COLUMNS}).set_index(
            keys
        )
    counts = cells.groupby(keys, dropna=False, sort=False).agg(
        failed_cells=("known", "size"), known_cells=("known", "sum")
    )
    marked = cells[cells["known"]]
    top = (
        marked.groupby([*keys, "mark_id", "ticket"], dropna=False, sort=False)
        .size()
        .rename("_n")
        .reset_index()
        .sort_values("_n", ascending=False, kind="stable")
        .drop_duplicates(keys)
        .set_index(keys)[["mark_id", "ticket"]]
    )
    out = counts.join(top)
    return out.astype(KNOWN_COUNT_COLUMNS)


@dataclass(frozen=True)
class KnownSplit:
    """Failures split into known and unresolved, and a pass rate with known failures left out."""

    failed: int
    known: int
    passed: int
    verdicts: int

    @property
    def unresolved(self) -> int:
        return self.failed - self.known

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.verdicts if self.verdicts else None

    @property
    def pass_rate_without_known(self) -> float | None:
        """Passed out of the verdicts once known failures are left out of them."""
        left = self.verdicts - self.known
        return self.passed / left if left > 0 else None


def without_known(executions: pd.DataFrame, known: pd.Series) -> pd.DataFrame:
    """`executions` (verdicts, failed) with each one's known failures (`known_per_execution`)
    left out of its verdicts and failures: what a rate "without known failures" is taken of."""
    require_columns(executions, ("execution_id", "verdicts", "failed"), "without known failures")
    counts = executions["execution_id"].map(known).fillna(0).astype("int64")
    counts = np.minimum(counts, executions["failed"].astype("int64"))
    return executions.assign(
        verdicts=executions["verdicts"] - counts, failed=executions["failed"] - counts
    )


def split_of(executions: pd.DataFrame, known: pd.Series) -> KnownSplit:
    """The finished executions' failures, known and unresolved, pooled."""
    require_columns(
        executions, ("execution_id", "finished", "passed", "verdicts", "failed"), "known split"
    )
    done = executions[executions["finished"].fillna(False).astype(bool)]
    counts = done["execution_id"].map(known).fillna(0).astype("int64")
    known_count = int(np.minimum(counts, done["failed"].astype("int64")).sum())
    return KnownSplit(
        failed=int(done["failed"].sum()),
        known=known_count,
        passed=int(done["passed"].sum()),
        verdicts=int(done["verdicts"].sum()),
    )


# -- evidence: has the target failed lately? -----------------------------------------------------


def mark_evidence(
    marks: pd.DataFrame,
    results: pd.DataFrame,
    now: object,
    *,
    runs: int = LOOKS_FIXED_RUNS,
) -> pd.DataFrame:
    """For each mark of a failure (not an execution's), its target's latest `runs` runs in
    `results` and their failures (EVIDENCE_COLUMNS, in the marks' order)."""
    if runs < 1:
        raise ValueError(f"looks fixed needs at least 1 run, got {runs}")
    require_columns(results, (*_RESULT_INPUT, "result_id", "start"), "mark evidence")
    failures = marks[marks["target"] != mark_columns.EXECUTION]
    if failures.empty:
        return typed(failures, EVIDENCE_COLUMNS)
    every = pd.concat(
        [_scenario_runs(failures, results), _group_runs(failures, results, runs)], ignore_index=True
    ).sort_values(["mark_id", "start", "execution_id"], kind="stable", na_position="first")
    latest = every.groupby("mark_id", sort=False).tail(runs)
    summed = latest.groupby("mark_id").agg(
        runs=("execution_id", "size"), failures=("failed", "sum"), since=("start", "min")
    )
    # An empty frame's "failed" is of object dtype: as a bool mask it selects rows, not columns.
    failed = every["failed"].astype("bool").to_numpy()
    last_failed = every[failed].groupby("mark_id")["start"].max().rename("last_failed")
    out = failures[["mark_id"]].join(summed, on="mark_id").join(last_failed, on="mark_id")
    out["runs"] = out["runs"].fillna(0).astype("int64")
    out["failures"] = out["failures"].fillna(0).astype("int64")
    states = mark_states(failures, now)["state"].to_numpy()
    out["looks_fixed"] = (
        np.isin(states, [OPEN, EXPIRING]) & (out["runs"] >= runs) & (out["failures"] == 0)
    )
    return typed(out, EVIDENCE_COLUMNS)


_RUN_COLUMNS = ["mark_id", "execution_id", "start", "failed"]


def _scenario_runs(marks: pd.DataFrame, results: pd.DataFrame) -> pd.DataFrame:
    """(mark, execution, start, failed) for the marks of a scenario or a scenario on an
    environment: each execution where it passed or failed (on its environment)."""
    scenario = marks[marks["target"] == mark_columns.SCENARIO]
    on_env = marks[marks["target"] == mark_columns.SCENARIO_ENVIRONMENT]
    if (scenario.empty and on_env.empty) or results.empty:
        return pd.DataFrame(columns=_RUN_COLUMNS)
    cells = result_cells(results[[*_RESULT_INPUT, "result_id", "start"]])
    judged = cells[cells["outcome"].isin([PASS, FAIL])]
    judged = judged.assign(
        failed=(judged["outcome"] == FAIL).to_numpy(),
        environment=judged["environment"].astype("str"),
    )
    found = []
    for those, keys in (
        (scenario, ["plan_id", "scenario_id"]),
        (on_env, ["plan_id", "scenario_id", "environment"]),
    ):
        if those.empty:
            continue
        per = judged.groupby([*keys, "execution_id"], as_index=False, sort=False).agg(
            start=("start", "min"), failed=("failed", "any")
        )
        if "environment" in keys:
            those = by_identity(those, judged)
        table = _keyed(those[["mark_id", *keys]], tuple(keys))
        found.append(table.merge(per, on=keys, how="inner")[_RUN_COLUMNS])
    return pd.concat(found, ignore_index=True) if found else pd.DataFrame(columns=_RUN_COLUMNS)


def _group_runs(marks: pd.DataFrame, results: pd.DataFrame, runs: int) -> pd.DataFrame:
    """(mark, execution, start, failed) for the marks of a failure group: the executions of its
    plan (of the plans it failed in, for a group of every plan; of every plan when it failed in
    none: the latest `runs` of them, all passed) that had results, failed where one of its
    failures is; a group of one environment counts only the results on that environment."""
    groups = marks[marks["target"] == mark_columns.FAILURE_GROUP]
    if groups.empty or results.empty:
        return pd.DataFrame(columns=_RUN_COLUMNS)
    on_env = groups["environment"].notna().to_numpy(dtype=bool)
    found = [_scoped_group_runs(groups[~on_env], results, runs)] if (~on_env).any() else []
    if on_env.any():
        named = with_environments(results)
        labels = named["environment"].astype("str")
        scoped = by_identity(groups[on_env], named)
        for environment, those in scoped.groupby("environment", sort=False):
            there = named[(labels == environment).to_numpy(dtype=bool)]
            found.append(_scoped_group_runs(those, there.drop(columns="environment"), runs))
    found = [f for f in found if not f.empty]
    return pd.concat(found, ignore_index=True) if found else pd.DataFrame(columns=_RUN_COLUMNS)


def _scoped_group_runs(groups: pd.DataFrame, results: pd.DataFrame, runs: int) -> pd.DataFrame:
    """`_group_runs` of failure group marks over `results` (those of their environment, for
    marks of one environment)."""
    if groups.empty or results.empty:
        return pd.DataFrame(columns=_RUN_COLUMNS)
    executions = results.groupby(["plan_id", "execution_id"], as_index=False, sort=False).agg(
        start=("start", "min")
    )
    failed = _with_signature(results[(level_outcomes(results["level"]) == FAIL).to_numpy()])
    hits = failed[["signature", "plan_id", "execution_id"]].drop_duplicates()
    table = groups[["mark_id", "signature", "plan_id"]].assign(
        signature=groups["signature"].fillna("").astype("str"),
        plan_id=groups["plan_id"].astype("Int64"),
    )
    of_plan = table[table["plan_id"].notna()]
    anywhere = table[table["plan_id"].isna()].drop(columns="plan_id")
    seen_in = anywhere.merge(hits[["signature", "plan_id"]].drop_duplicates(), on="signature")
    never_seen = anywhere[~anywhere["mark_id"].isin(seen_in["mark_id"])]
    latest = executions.drop(columns="plan_id").nlargest(runs, "start")
    every = pd.concat(
        [
            of_plan.merge(executions, on="plan_id"),
            seen_in.merge(executions, on="plan_id"),
            never_seen.merge(latest, how="cross"),
        ],
        ignore_index=True,
    )
    marked = hits[["signature", "execution_id"]].drop_duplicates().assign(failed=True)
    every = every.merge(marked, on=["signature", "execution_id"], how="left")
    every["failed"] = every["failed"].fillna(False).astype(bool)
    return every[_RUN_COLUMNS]


def marks_key(marks: pd.DataFrame) -> tuple[tuple[str, int], ...]:
    """What names a set of marks in a cache key: each one's id and revision (a change to a mark
    makes a new revision)."""
    return tuple(zip(marks["mark_id"], marks["revision"].astype("int64").tolist(), strict=True))


def failed_of(results: pd.DataFrame) -> pd.DataFrame:
    """The failed results among `results`, with their environment's label and their message's
    signature (what a mark of them would target)."""
    failed = results[(level_outcomes(results["level"]) == FAIL).to_numpy()]
    named = with_environments(failed)
    return named.assign(
        environment=named["environment"].astype("str"),
        signature=normalise_messages(named["message"]).fillna("").to_numpy(),
    )
