"""Comparing two executions scenario by scenario and environment by environment.

Each scenario x environment cell (see `outcomes.result_cells`) of the *before* and the *after*
execution lands in one bucket:

| before \\ after | pass           | fail          | warn / no verdict | absent         |
|----------------|----------------|---------------|-------------------|----------------|
| pass           | still passing  | new failure   | no verdict        | missing after  |
| fail           | fixed          | still failing | no verdict        | missing after  |
| warn / none    | no verdict     | no verdict    | no verdict        | missing after  |
| absent         | missing before | missing before| missing before    |                |

Cells are keyed by the environment's identity (OS x browser, or device on a phone: see
`environment_names`), never its version: a browser that went from 130 to 131 between the two is
the same cell, its versions (`before_version`, `after_version`) shown beside it, so a scenario
that passed on 130 and fails on 131 is a new failure, not a "missing before" beside a "missing
after" (`upgrades` counts those that started with the upgrade).

"New failure" and "fixed" are strict (a pass turned fail, a fail turned pass), the same rule as
the standup's newly failing scenarios; the row's outcomes always say what each side had.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dashboard.analytics.basis import Basis
from dashboard.analytics.outages import OUTAGE_COLUMNS, outages
from dashboard.analytics.outcomes import FAIL, PASS, result_cells
from dashboard.analytics.plan_state import judged_executions
from dashboard.columns.schemas import ENVIRONMENT_NAME, UTC_TIME
from dashboard.columns.shapes import require_columns, typed, typed_rows

NEW_FAILURE = "new failure"
FIXED = "fixed"
STILL_FAILING = "still failing"
STILL_PASSING = "still passing"
MISSING_BEFORE = "missing before"
MISSING_AFTER = "missing after"
NO_VERDICT = "no verdict"
BUCKETS: tuple[str, ...] = (
    NEW_FAILURE,
    FIXED,
    STILL_FAILING,
    MISSING_BEFORE,
    MISSING_AFTER,
    NO_VERDICT,
    STILL_PASSING,
)
"""Every bucket, in the order a comparison lists them (most urgent first)."""

UNCHANGED: frozenset[str] = frozenset({STILL_PASSING, STILL_FAILING})

COMPARED_PAIR_COLUMNS: dict[str, str] = {
    "plan_id": "Int64",
    "plan": "str",  # from the pairs when they carry it
    "before_execution_id": "int64",
    "after_execution_id": "int64",
}
"""Which two executions of a plan are compared: a row of `compare_pairs`' `pairs`."""

COMPARE_COLUMNS: dict[str, str] = {
    **COMPARED_PAIR_COLUMNS,
    "scenario_id": "Int64",
    **ENVIRONMENT_NAME,
    "bucket": "str",
    "before_outcome": "str",  # "pass" / "fail" / "warn" / missing (no verdict or absent)
    "after_outcome": "str",
    "before_level": "str",
    "after_level": "str",
    "before_result_id": "Int64",
    "after_result_id": "Int64",
    "before_runtime_s": "Int64",
    "after_runtime_s": "Int64",
    "runtime_delta_s": "Int64",  # after - before, when both have a runtime
    "before_message": "str",
    "after_message": "str",
    "before_start": UTC_TIME,
    "after_start": UTC_TIME,
    "browser": "str",  # the desktop browser (missing on a phone)
    "before_version": "str",  # the desktop browser's version on each side, when known
    "after_version": "str",
}

_SIDE = ("outcome", "level", "result_id", "runtime_s", "message", "start", "version")


def compare_pairs(results: pd.DataFrame, pairs: pd.DataFrame) -> pd.DataFrame:
    """Buckets for several (before, after) pairs at once.

    `pairs` has plan_id, before_execution_id, after_execution_id (and optionally plan);
    `results` holds those executions' results (others are ignored). Columns
    `COMPARE_COLUMNS`, by pair, then bucket order, scenario and environment."""
    require_columns(
        pairs, ("plan_id", "before_execution_id", "after_execution_id"), "comparison pairs"
    )
    require_columns(results, ("execution_id",), "comparison results")
    pairs = pairs.reset_index(drop=True)
    if "plan" not in pairs.columns:
        pairs = pairs.assign(plan=pd.Series(pd.NA, index=pairs.index, dtype="str"))
    wanted = pd.concat([pairs["before_execution_id"], pairs["after_execution_id"]]).unique()
    cells = result_cells(results[results["execution_id"].isin(wanted)])
    cells["version"] = _desktop_versions(cells)
    cells["browser"] = cells["browser"].astype("str").where(cells["version"].notna())
    for column in _SIDE:
        if column not in cells.columns:
            cells[column] = pd.NA
    keep = ["execution_id", "scenario_id", "env_key", "environment", "browser", *_SIDE]
    sides = []
    for side in ("before", "after"):
        linked = pairs[[f"{side}_execution_id"]].reset_index(names="pair")
        side_cells = linked.merge(
            cells[keep], left_on=f"{side}_execution_id", right_on="execution_id"
        ).drop(columns=["execution_id", f"{side}_execution_id"])
        renamed = {c: f"{side}_{c}" for c in (*_SIDE, "environment", "browser")}
        sides.append(side_cells.rename(columns=renamed))
    both = sides[0].merge(sides[1], on=["pair", "scenario_id", "env_key"], how="outer")
    both = both.merge(pairs.reset_index(names="pair"), on="pair", how="left")
    both["environment"] = both["after_environment"].fillna(both["before_environment"])
    both["browser"] = both["after_browser"].fillna(both["before_browser"])
    both["bucket"] = _buckets(both)
    delta = both["after_runtime_s"].astype("Float64") - both["before_runtime_s"].astype("Float64")
    both["runtime_delta_s"] = delta.round().astype("Int64")
    order = {bucket: i for i, bucket in enumerate(BUCKETS)}
    both["_order"] = both["bucket"].map(order)
    both = both.sort_values(["pair", "_order", "scenario_id", "environment"], kind="stable")
    return typed(both, COMPARE_COLUMNS)


def _desktop_versions(cells: pd.DataFrame) -> pd.Series:
    """Each cell's desktop browser version (a phone's browser is its device: none)."""
    if "browser_version" not in cells.columns:
        return pd.Series(pd.NA, index=cells.index, dtype="str")
    phone = cells["mobile"].fillna(cells["browser"].isna() & cells["device"].notna())
    return cells["browser_version"].astype("str").where(~phone.astype(bool).to_numpy())


def _buckets(both: pd.DataFrame) -> np.ndarray:
    before, after = both["before_outcome"], both["after_outcome"]
    absent_before = both["before_result_id"].isna().to_numpy()
    absent_after = both["after_result_id"].isna().to_numpy()
    b_pass, b_fail = (before == PASS).to_numpy(), (before == FAIL).to_numpy()
    a_pass, a_fail = (after == PASS).to_numpy(), (after == FAIL).to_numpy()
    return np.select(
        [
            absent_before,
            absent_after,
            b_pass & a_fail,
            b_fail & a_pass,
            b_fail & a_fail,
            b_pass & a_pass,
        ],
        [MISSING_BEFORE, MISSING_AFTER, NEW_FAILURE, FIXED, STILL_FAILING, STILL_PASSING],
        default=NO_VERDICT,
    )


@dataclass(frozen=True, eq=False)
class Comparison:
    """Two executions side by side.

    cells: `COMPARE_COLUMNS`, one row per scenario x environment seen on either side.
    counts: cells per bucket, every bucket of `BUCKETS` present (zero when empty).
    before_runtime_ms / after_runtime_ms: the executions' own runtimes when known.
    basis: the two executions; with_results says how many of them had results.
    """

    before_execution_id: int
    after_execution_id: int
    cells: pd.DataFrame
    counts: tuple[tuple[str, int], ...]
    before_runtime_ms: int | None
    after_runtime_ms: int | None
    basis: Basis

    @property
    def runtime_delta_ms(self) -> int | None:
        if self.before_runtime_ms is None or self.after_runtime_ms is None:
            return None
        return self.after_runtime_ms - self.before_runtime_ms

    def count(self, bucket: str) -> int:
        return dict(self.counts)[bucket]


def compare_executions(
    results: pd.DataFrame,
    before_execution_id: int,
    after_execution_id: int,
    *,
    executions: pd.DataFrame | None = None,
) -> Comparison:
    """Compare two executions' results. `executions`, when given (execution_id, runtime_ms,
    and optionally finished), supplies the runtimes and the basis's running count."""
    before, after = int(before_execution_id), int(after_execution_id)
    plan = pd.NA
    runtimes: dict[int, int | None] = {before: None, after: None}
    finished = 2
    if executions is not None:
        require_columns(executions, ("execution_id", "runtime_ms"), "comparison executions")
        two = executions[executions["execution_id"].isin([before, after])]
        for row in two.itertuples(index=False):
            ms = row.runtime_ms
            runtimes[int(row.execution_id)] = None if pd.isna(ms) else int(ms)
        if "plan_id" in two.columns and len(two):
            plan = two["plan_id"].iloc[0]
        if "finished" in two.columns:
            finished = int(two["finished"].fillna(False).astype(bool).sum())
    pairs = pd.DataFrame(
        {
            "plan_id": pd.array([plan], dtype="Int64"),
            "before_execution_id": [before],
            "after_execution_id": [after],
        }
    )
    cells = compare_pairs(results, pairs)
    tally = cells["bucket"].value_counts()
    counts = tuple((bucket, int(tally.get(bucket, 0))) for bucket in BUCKETS)
    present = set(results["execution_id"].unique()) & {before, after}
    read = results[results["execution_id"].isin([before, after])]
    basis = Basis(
        executions=len({before, after}),
        finished=finished,
        running=len({before, after}) - finished,
        judged=finished,
        with_results=len(present),
        results=len(read),
    )
    return Comparison(before, after, cells, counts, runtimes[before], runtimes[after], basis)


def only_changes(cells: pd.DataFrame) -> pd.DataFrame:
    """The "only changes" view: drop cells that are still passing or still failing, and
    no-verdict cells whose two sides had the same outcome."""
    require_columns(cells, ("bucket", "before_outcome", "after_outcome"), "only changes")
    same = cells["before_outcome"].fillna("") == cells["after_outcome"].fillna("")
    unchanged = cells["bucket"].isin(UNCHANGED) | ((cells["bucket"] == NO_VERDICT) & same)
    return cells[~unchanged].reset_index(drop=True)


def default_pair(
    executions: pd.DataFrame, plan_id: int, *, leave_out: Collection[int] = frozenset()
) -> tuple[int, int] | None:
    """(before, after): the plan's latest judged execution and the judged one before it, or
    None when it has fewer than two. Executions of `leave_out` (its outages) are passed over:
    a night the grid was down says nothing about what changed in the tests."""
    judged = judged_executions(executions)
    mine = judged[(judged["plan_id"] == plan_id) & ~judged["execution_id"].isin(list(leave_out))]
    if len(mine) < 2:
        return None
    return int(mine["execution_id"].iloc[-2]), int(mine["execution_id"].iloc[-1])


def passed_over(
    executions: pd.DataFrame, plan_id: int, leave_out: Collection[int], before: int
) -> list[int]:
    """The judged executions of `leave_out` that the default pair (`default_pair`) passed
    over: those of the plan newer than `before`, oldest first."""
    judged = judged_executions(executions)
    mine = judged[judged["plan_id"] == plan_id].reset_index(drop=True)
    ids = [int(i) for i in mine["execution_id"]]
    if before not in ids:
        return []
    newer = ids[ids.index(before) + 1 :]
    return [i for i in newer if i in set(leave_out)]


OUTAGE_SIDE_COLUMNS: dict[str, str] = {**OUTAGE_COLUMNS, "side": "str"}
"""A compared execution that is an outage (`outages.OUTAGE_COLUMNS`) and its side."""


def outage_sides(
    executions: pd.DataFrame,
    marks: pd.DataFrame,
    results: pd.DataFrame,
    before: int,
    after: int,
) -> pd.DataFrame:
    """Which of the two compared executions are outages (likely, or confirmed by a mark among
    `marks`, those that apply), each with its dominant failure group read from `results`:
    OUTAGE_SIDE_COLUMNS, before first."""
    two = executions[executions["execution_id"].isin([before, after])]
    found = outages(two, marks, results)
    side = np.where(found["execution_id"].to_numpy() == before, "before", "after")
    ordered = found.assign(side=side).sort_values("side", ascending=False, kind="stable")
    return typed(ordered.reset_index(drop=True), OUTAGE_SIDE_COLUMNS)


def with_outage_sides(cells: pd.DataFrame, outage_ids: Collection[int]) -> pd.DataFrame:
    """The comparison's cells with whether each side's execution is an outage:
    `before_outage` and `after_outage` (bool) added."""
    require_columns(cells, ("before_execution_id", "after_execution_id"), "outage sides")
    ids = list(outage_ids)
    return cells.assign(
        before_outage=cells["before_execution_id"].isin(ids).to_numpy(dtype=bool),
        after_outage=cells["after_execution_id"].isin(ids).to_numpy(dtype=bool),
    )


FAILURE_SPLIT_COLUMNS: dict[str, str] = {
    "bucket": "str",
    "cells": "int64",
    "unresolved": "int64",  # the after side's failure, neither known nor in an outage
    "known": "int64",  # the after side's failure covered by a mark, not in an outage
    "outage": "int64",  # the failing side (after; before, for fixed) was an outage
}


def failure_split(cells: pd.DataFrame) -> pd.DataFrame:
    """New failures and still failing cells split into unresolved, known and in an outage
    (the after side's execution was one), and fixed cells counting those whose failure before
    was in an outage (a "fix" that is the grid coming back): FAILURE_SPLIT_COLUMNS, one row
    per bucket in that order. `cells` carry `known` (`known_figures.compare_with_known`) and
    the outage sides (`with_outage_sides`). An outage comes first: a failure in one is counted
    there, whatever mark covers it."""
    require_columns(cells, ("bucket", "known", "before_outage", "after_outage"), "failure split")
    rows = []
    for bucket in (NEW_FAILURE, STILL_FAILING, FIXED):
        chosen = cells[cells["bucket"] == bucket]
        side = "before_outage" if bucket == FIXED else "after_outage"
        outage = chosen[side].astype(bool)
        known = 0 if bucket == FIXED else int((chosen["known"].astype(bool) & ~outage).sum())
        rows.append(
            {
                "bucket": bucket,
                "cells": len(chosen),
                "unresolved": len(chosen) - int(outage.sum()) - known,
                "known": known,
                "outage": int(outage.sum()),
            }
        )
    return typed_rows(rows, FAILURE_SPLIT_COLUMNS)
