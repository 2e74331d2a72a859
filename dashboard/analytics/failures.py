"""Every failed result of a period across plans, each with its failure group, since when it has
been failing, and its scenario's state.

A row is one failed result (FAILURE or ERROR; each retry is a row) of an execution that started
in the period. *Failing since* is about its cell (the scenario on that environment): walking
back through its plan's executions from this one, the failures in a row end at an execution
where it passed, or at a green one (every result a pass: it passed there, or did not run), and
it has been failing since the first failure after that. Executions that show neither (running
without a failure, finished without a verdict, or failing ones where it did not run) are
stepped over. A failing execution whose results were not read says nothing: the walk stops
there and the start is a bound ("at least since"), as when it reaches the oldest execution
given.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np
import pandas as pd

from dashboard.analytics.basis import Basis, execution_basis
from dashboard.analytics.environment_names import with_environments
from dashboard.analytics.failure_groups import normalise_messages
from dashboard.analytics.outcomes import FAIL, PASS, level_outcomes, result_cells
from dashboard.columns.schemas import ENVIRONMENT_NAME, UTC_TIME
from dashboard.columns.shapes import as_utc, require_columns, typed

FAILURE_COLUMNS: dict[str, str] = {
    "execution_id": "int64",
    "execution_start": UTC_TIME,
    "plan_id": "Int64",
    "plan": "str",
    "scenario_id": "Int64",
    **ENVIRONMENT_NAME,
    "result_id": "int64",
    "level": "str",
    "message": "str",
    "signature": "str",  # its failure group (`failure_groups.normalise_message`); "" for none
    "node_log": "str",
    "executor_log": "str",
    "failing_since": UTC_TIME,  # start of the first execution of its failures in a row
    "failing_since_execution_id": "Int64",
    "failing_since_is_bound": "bool",  # it may have failed before that: at least since
    "failures_in_a_row": "int64",  # executions of that run of failures, up to this one
    "state": "str",  # its scenario's state (`states.py`), when given
}

_RESULT_INPUT = (
    "result_id",
    "execution_id",
    "plan_id",
    "scenario_id",
    "level",
    "message",
    "node_log",
    "executor_log",
    "os",
    "browser",
    "browser_version",
    "device",
    "mobile",
)


@dataclass(frozen=True, eq=False)
class Failures:
    """rows: `FAILURE_COLUMNS`, newest execution first, then plan, scenario, environment.
    basis: the period's executions, and which of them had results."""

    rows: pd.DataFrame
    basis: Basis


def failures(
    executions: pd.DataFrame,
    results: pd.DataFrame,
    *,
    start: datetime | pd.Timestamp,
    end: datetime | pd.Timestamp | None = None,
    read: Iterable[int] | None = None,
    states: pd.DataFrame | None = None,
) -> Failures:
    """The failed results of the executions that started in [start, end) (module docstring).

    `executions`: every execution known (the period's and those before it, to walk back
    through); `results`: the results read; `read`: the ids of the executions whose results
    were read (by default, those with a result in `results`); `states`: scenario states
    (plan_id, scenario_id, state), to name each row's."""
    require_columns(
        executions,
        ("execution_id", "start", "plan_id", "finished", "verdicts", "failed"),
        "failures",
    )
    require_columns(results, _RESULT_INPUT, "failures")
    begin = as_utc(start, "start")
    finish = None if end is None else as_utc(end, "end")
    starts = executions["start"]
    in_period = (starts >= begin) & (True if finish is None else starts < finish)
    period = executions[in_period.fillna(False).astype(bool)]
    read_ids = pd.Index(
        pd.unique(results["execution_id"]) if read is None else list(read), dtype="int64"
    )
    own = results[results["execution_id"].isin(period["execution_id"])]
    basis = execution_basis(period, start=begin, end=finish, results_of=read_ids, results=len(own))
    failed = own[level_outcomes(own["level"]) == FAIL]
    if failed.empty:
        return Failures(typed(failed, FAILURE_COLUMNS), basis)

    cells = result_cells(
        results[results["execution_id"].isin(executions["execution_id"])], details=False
    )
    streaks = _failing_since(executions, cells, read_ids)
    # Every failed result is a row, its environment named from its own columns.
    out = with_environments(failed[list(_RESULT_INPUT)])
    out["env_key"] = out["env_key"].astype("str")
    out["environment"] = out["environment"].astype("str")
    runs = executions.drop_duplicates("execution_id").set_index("execution_id")
    out["execution_start"] = out["execution_id"].map(runs["start"])
    names = runs["plan"] if "plan" in runs.columns else pd.Series(dtype="str")
    out["plan"] = out["execution_id"].map(names)
    out["signature"] = normalise_messages(out["message"]).fillna("")
    out = out.merge(streaks, on=["execution_id", "scenario_id", "env_key"], how="left")
    out["failing_since_is_bound"] = out["failing_since_is_bound"].fillna(True).astype(bool)
    out["failures_in_a_row"] = out["failures_in_a_row"].fillna(1).astype("int64")
    if states is not None and not states.empty:
        require_columns(states, ("plan_id", "scenario_id", "state"), "failures")
        known = states.drop_duplicates(["plan_id", "scenario_id"]).set_index(
            ["plan_id", "scenario_id"]
        )
        out = out.join(known["state"], on=["plan_id", "scenario_id"])
    else:
        out["state"] = pd.NA
    out = out.sort_values(
        ["execution_start", "execution_id", "plan_id", "scenario_id", "environment", "result_id"],
        ascending=[False, False, True, True, True, True],
        kind="stable",
    )
    return Failures(typed(out, FAILURE_COLUMNS), basis)


def failing_executions(
    executions: pd.DataFrame,
    *,
    start: datetime | pd.Timestamp,
    end: datetime | pd.Timestamp | None = None,
) -> pd.DataFrame:
    """The executions that started in [start, end) with a failed result: the only ones whose
    results the list needs (a green execution has nothing to list)."""
    require_columns(executions, ("start", "failed"), "failing executions")
    begin = as_utc(start, "start")
    starts = executions["start"]
    inside = starts >= begin
    if end is not None:
        inside &= starts < as_utc(end, "end")
    failed = executions["failed"].fillna(0) > 0
    return executions[inside.fillna(False).astype(bool) & failed]


def together(frames: Sequence[pd.DataFrame], key: str) -> pd.DataFrame:
    """Frames of one shape (at least one) as one, each `key` once (the first kept): executions
    or results read for two purposes."""
    kept = [frame for frame in frames if len(frame)]
    if not kept:
        return frames[0]
    return pd.concat(kept, ignore_index=True).drop_duplicates(key).reset_index(drop=True)


def of_states(rows: pd.DataFrame, states: tuple[str, ...]) -> pd.DataFrame:
    """The rows (`FAILURE_COLUMNS`) of scenarios in one of `states` (none given: every row)."""
    if not states:
        return rows
    return rows[rows["state"].isin(states)].reset_index(drop=True)


_STREAK_COLUMNS = {
    "execution_id": "int64",
    "scenario_id": "Int64",
    "env_key": "str",
    "failing_since": UTC_TIME,
    "failing_since_execution_id": "Int64",
    "failing_since_is_bound": "bool",
    "failures_in_a_row": "int64",
}


def _failing_since(executions: pd.DataFrame, cells: pd.DataFrame, read: pd.Index) -> pd.DataFrame:
    """For each failing cell, where its failures in a row began (module docstring)."""
    runs = executions[executions["plan_id"].notna()].drop_duplicates("execution_id")
    runs = runs.sort_values(
        ["plan_id", "start", "execution_id"], kind="stable", na_position="first"
    )
    runs = runs.assign(
        _plan=runs["plan_id"].astype("int64"),
        _pos=runs.groupby("plan_id").cumcount().astype("int64"),
    )
    finished = runs["finished"].fillna(False).astype(bool)
    green = finished & (runs["failed"].fillna(0) == 0) & (runs["verdicts"].fillna(0) > 0)
    unknown = (runs["failed"].fillna(0) > 0) & ~runs["execution_id"].isin(read)
    place = runs.set_index("execution_id")[["_plan", "_pos", "start"]]

    cells = cells.join(place, on="execution_id", how="inner")
    cells = cells.assign(env_key=cells["env_key"].astype("str"))
    keys = ["_plan", "scenario_id", "env_key"]
    fails = cells[cells["outcome"] == FAIL][[*keys, "execution_id", "_pos", "start"]]
    if fails.empty:
        return typed(pd.DataFrame(), _STREAK_COLUMNS)
    fails = fails.assign(scenario_id=fails["scenario_id"].astype("int64")).sort_values("_pos")
    passes = cells[cells["outcome"] == PASS][[*keys, "_pos"]]
    passes = passes.assign(scenario_id=passes["scenario_id"].astype("int64"), _pass=passes["_pos"])
    # Each column from the stops themselves: a column assigned from all of `runs` to a frame
    # with no rows (no plan ever green) takes `runs`' whole index, its keys NaN floats.
    stops = runs[green | unknown]
    plan_stops = stops[["_plan", "_pos"]].assign(
        _stop=stops["_pos"], _unknown=unknown[green | unknown]
    )

    walked = pd.merge_asof(
        fails,
        plan_stops.sort_values("_pos"),
        on="_pos",
        by="_plan",
        allow_exact_matches=False,
    )
    walked = pd.merge_asof(
        walked.sort_values("_pos"),
        passes.sort_values("_pos")[[*keys, "_pos", "_pass"]],
        on="_pos",
        by=keys,
        allow_exact_matches=False,
    )
    stop = np.fmax(
        walked["_stop"].to_numpy(dtype="float64"), walked["_pass"].to_numpy(dtype="float64")
    )
    walked["_after"] = np.nan_to_num(stop, nan=-1.0)
    # A stop at an execution whose results were not read (and no pass of the cell after it)
    # says nothing: the start found is a bound, as is a walk that met no stop at all.
    unknown_stop = walked["_unknown"].fillna(False).astype(bool) & (
        walked["_stop"].fillna(-1) >= walked["_pass"].fillna(-1)
    )
    walked["failing_since_is_bound"] = unknown_stop | np.isnan(stop)

    # The first failure after the stop: the earliest failure of the cell at a later position.
    firsts = fails.rename(
        columns={
            "_pos": "_first",
            "execution_id": "failing_since_execution_id",
            "start": "failing_since",
        }
    )
    walked = walked.assign(_key=walked["_after"] + 0.5).sort_values("_key")
    firsts = firsts.assign(_key=firsts["_first"].astype("float64")).sort_values("_key")
    found = pd.merge_asof(
        walked,
        firsts[[*keys, "_key", "_first", "failing_since_execution_id", "failing_since"]],
        on="_key",
        by=keys,
        direction="forward",
    )
    ordinal = fails.assign(_n=fails.groupby(keys).cumcount()).set_index([*keys, "_pos"])["_n"]
    now_n = found.set_index([*keys, "_pos"]).index.map(ordinal)
    first_n = found.set_index([*keys, "_first"]).index.map(ordinal)
    found["failures_in_a_row"] = (
        np.asarray(now_n, dtype="int64") - np.asarray(first_n, dtype="int64") + 1
    )
    return typed(found, _STREAK_COLUMNS)
