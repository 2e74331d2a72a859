"""Figures with what is known told apart: the unresolved and the known failures side by side,
and each pass rate also "without known failures" (the known ones left out of its verdicts), for
plan health, the environments matrix and the flaky lists. The rules are `analytics.marks`'.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from dashboard.analytics.failure_groups import normalise_messages
from dashboard.analytics.marks import covered_failures, known_by
from dashboard.analytics.plan_state import PLAN_FIGURES_NEED
from dashboard.columns.shapes import as_utc, require_columns

PLAN_KNOWN_COLUMNS: dict[str, str] = {
    "failed_short": "int64",  # failed results of finished executions of the short period
    "known_short": "int64",  # of those, known
    "pass_rate_short_without_known": "float64",
    "failed_long": "int64",
    "known_long": "int64",
    "pass_rate_long_without_known": "float64",
}


def plan_known_figures(
    executions: pd.DataFrame,
    known: pd.Series,
    *,
    now: object,
    short_days: int = 7,
    long_days: int = 30,
) -> pd.DataFrame:
    """Per plan (PLAN_KNOWN_COLUMNS, indexed by plan id): its failures in the short and long
    periods (rolling, as `analytics.health`'s), how many are known (`known`: known failures per
    execution, `marks.known_per_execution`), and its pass rates without them."""
    require_columns(executions, PLAN_FIGURES_NEED, "known figures")
    current = as_utc(now, "now")
    frame = executions[
        executions["plan_id"].notna()
        & executions["finished"].fillna(False).astype(bool)
        & (executions["start"] < current)
    ]
    counts = frame["execution_id"].map(known).fillna(0).astype("int64")
    frame = frame.assign(_known=np.minimum(counts, frame["failed"].astype("int64")))
    out = pd.DataFrame(index=pd.Index(frame["plan_id"].dropna().unique(), name="plan_id"))
    for name, days in (("short", short_days), ("long", long_days)):
        chosen = frame[frame["start"] >= current - pd.Timedelta(days=days)]
        sums = chosen.groupby("plan_id")[["passed", "verdicts", "failed", "_known"]].sum()
        left = sums["verdicts"] - sums["_known"]
        out[f"failed_{name}"] = sums["failed"]
        out[f"known_{name}"] = sums["_known"]
        out[f"pass_rate_{name}_without_known"] = sums["passed"] / left.where(left > 0)
    for column in ("failed_short", "known_short", "failed_long", "known_long"):
        out[column] = out[column].fillna(0).astype("int64")
    return out[list(PLAN_KNOWN_COLUMNS)].astype(PLAN_KNOWN_COLUMNS)


MATRIX_KNOWN_COLUMNS: dict[str, str] = {
    "known": "int64",  # failed cells that are known
    "unresolved": "int64",  # failed - known
    "pass_rate_without_known": "float64",
    "ticket": "str",  # the mark covering most of its known cells
}


def matrix_with_known(matrix: pd.DataFrame, cells: pd.DataFrame) -> pd.DataFrame:
    """The environments matrix (`environments.MATRIX_COLUMNS`) with its known and unresolved
    failed cells (`cells`: `marks.known_cells` of the same results) and its pass rate without
    the known ones (MATRIX_KNOWN_COLUMNS added)."""
    keys = ["plan_id", "scenario_id", "env_key"]
    require_columns(matrix, (*keys, "passed", "failed", "warned"), "known matrix")
    per = known_by(cells, keys)
    joined = matrix.join(per[["known_cells", "ticket"]], on=keys)
    known = joined["known_cells"].fillna(0).astype("int64").clip(upper=joined["failed"])
    verdicts = joined["passed"] + joined["failed"] - known + joined["warned"]
    return matrix.assign(
        known=known.to_numpy(),
        unresolved=(joined["failed"] - known).to_numpy(),
        pass_rate_without_known=(joined["passed"] / verdicts.where(verdicts > 0)).to_numpy(),
        ticket=joined["ticket"].astype("str").to_numpy(),
    )


RUN_KNOWN_COLUMNS: dict[str, str] = {
    "failed": "int64",  # runs that failed
    "known": "int64",  # of those, runs whose every failure is known
    "ticket": "str",  # the mark covering most of them
}


@dataclass(frozen=True, eq=False)
class KnownRuns:
    """Failed runs, known and not, of each scenario (`scenarios`, indexed by plan and scenario:
    a run is an execution) and of each scenario on each environment (`environments`, indexed
    by plan, scenario and environment label: a run is a cell), RUN_KNOWN_COLUMNS."""

    scenarios: pd.DataFrame
    environments: pd.DataFrame


def known_runs(cells: pd.DataFrame) -> KnownRuns:
    """The failed runs of `cells` (`marks.known_cells`) per scenario and per scenario on an
    environment, and how many are known: the flaky lists' "known" and "unresolved"."""
    env_keys = ["plan_id", "scenario_id", "environment"]
    environments = known_by(cells, env_keys).rename(
        columns={"failed_cells": "failed", "known_cells": "known"}
    )[list(RUN_KNOWN_COLUMNS)]
    keys = ["plan_id", "scenario_id"]
    if cells.empty:
        scenarios = known_by(cells, keys).rename(
            columns={"failed_cells": "failed", "known_cells": "known"}
        )[list(RUN_KNOWN_COLUMNS)]
        return KnownRuns(scenarios, environments)
    per_execution = cells.groupby([*keys, "execution_id"], dropna=False, sort=False).agg(
        known=("known", "all"), mark_id=("mark_id", "first"), ticket=("ticket", "first")
    )
    runs = per_execution.reset_index()
    scenarios = known_by(runs, keys).rename(
        columns={"failed_cells": "failed", "known_cells": "known"}
    )[list(RUN_KNOWN_COLUMNS)]
    return KnownRuns(scenarios.astype(RUN_KNOWN_COLUMNS), environments.astype(RUN_KNOWN_COLUMNS))


GROUP_KNOWN_COLUMNS: dict[str, str] = {
    "known": "int64",  # failed results of the group that are known
    "unresolved": "int64",
    "mark_id": "str",  # the mark covering most of them
    "ticket": "str",
}


def groups_with_known(
    groups: pd.DataFrame, results: pd.DataFrame, marks: pd.DataFrame
) -> pd.DataFrame:
    """Failure groups (`failure_groups.GROUP_COLUMNS`) with their failures split into known
    (covered by one of `marks`, those that apply) and unresolved (GROUP_KNOWN_COLUMNS added).
    `results` are those the groups were made of."""
    require_columns(groups, ("signature", "failures"), "known groups")
    failed = covered_failures(results, marks)
    covered = failed[failed["mark_id"].notna().to_numpy()]
    covered = covered.assign(signature=normalise_messages(covered["message"]).fillna(""))
    known = covered.groupby("signature").size()
    top = (
        covered.groupby(["signature", "mark_id", "ticket"], dropna=False, sort=False)
        .size()
        .rename("_n")
        .reset_index()
        .sort_values("_n", ascending=False, kind="stable")
        .drop_duplicates("signature")
        .set_index("signature")
    )
    counted = groups["signature"].map(known).fillna(0).astype("int64")
    return groups.assign(
        known=counted.to_numpy(),
        unresolved=(groups["failures"].astype("int64") - counted).to_numpy(),
        mark_id=groups["signature"].map(top["mark_id"]).astype("str").to_numpy(),
        ticket=groups["signature"].map(top["ticket"]).astype("str").to_numpy(),
    )


def compare_with_known(cells: pd.DataFrame, known: pd.DataFrame) -> pd.DataFrame:
    """The comparison's cells (`compare.COMPARE_COLUMNS`) with whether the after side's failure
    is known (`known`: `marks.known_cells` of the compared results) and the ticket of the mark
    covering it: `known` (bool) and `ticket` (str) added."""
    require_columns(cells, ("after_execution_id", "scenario_id", "env_key"), "known comparison")
    covered = known[known["known"].astype(bool)]
    tickets = {
        (int(e), int(s), str(k)): t
        for e, s, k, t in zip(
            covered["execution_id"],
            covered["scenario_id"],
            covered["env_key"],
            covered["ticket"],
            strict=True,
        )
        if not pd.isna(s)
    }
    keys = [
        None if pd.isna(s) else (int(e), int(s), str(k))
        for e, s, k in zip(
            cells["after_execution_id"], cells["scenario_id"], cells["env_key"], strict=True
        )
    ]
    return cells.assign(
        known=[key in tickets for key in keys],
        ticket=pd.Series(
            [tickets.get(key) if key in tickets else pd.NA for key in keys],
            index=cells.index,
            dtype="str",
        ),
    )
