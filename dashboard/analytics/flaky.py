"""Flaky scenarios: flips between pass and fail over each plan's last W finished executions.

For one scenario on one environment, its *sequence* is its cell outcome (`outcomes.py`) in each
of the plan's last `window` finished executions, oldest first. Only passes and failures are
*runs*; warnings, non-verdicts and executions where it did not run are shown in the sequence
but are not runs. *Flips* are changes between pass and fail from one run to the next, and the
*score* is flips / (runs - 1). A row is flagged when score >= `threshold` and runs >=
`min_runs` and at least two flips; below `min_runs` it is "not enough runs" (`enough_runs`
false), never flaky.

What is not flaky, by construction: a scenario that broke once and stayed broken and one that
was fixed (a single flip is never flaky, whatever its score), and one that fails in every run
on one environment and passes on the others (each environment is steady, 0 flips: that is
environment-specific, see `environments.py`).

Scenario level. The scenario's outcome in an execution is its strongest cell outcome across
environments (a failure anywhere is a failure), so an environment that always fails makes
every execution a failure, not a flip. That alone would still flip when such an environment
is only tested in some executions, so a scenario is flagged when

- one of its environments is flagged (`reason` "environment"), or
- its own sequence meets the rule and none of its environments is *consistently failing*
  (at least `CONSISTENT_MIN_RUNS` runs, all failures) (`reason` "scenario").

Sequence characters: P pass, F fail, W warning, N no verdict, "." not run in that execution.
Rows are ordered most flaky first: score, then flips, then runs (descending), then plan,
scenario and environment (ascending), so ties always come out the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from dashboard.analytics.basis import Basis, execution_basis
from dashboard.analytics.outcomes import outcome_ranks, result_cells
from dashboard.columns.schemas import (
    ENVIRONMENT,
    PLAN_SCENARIO,
    SCENARIO_ON_ENVIRONMENT,
    UTC_TIME,
)
from dashboard.columns.shapes import require_columns, typed

DEFAULT_WINDOW = 20
"""W: each plan's last W finished executions, the window of the flaky, environments and
scenario pages unless a link names another."""
DEFAULT_THRESHOLD = 0.2
"""The flaky score at or above which a scenario is flagged."""
MIN_RUNS = 5
CONSISTENT_MIN_RUNS = 2

_CHARS = np.array(["N", "W", "P", "F"], dtype="<U1")  # by outcome rank
_PASS_RANK, _FAIL_RANK = 2, 3

_EVIDENCE: dict[str, str] = {
    "runs": "int64",
    "passes": "int64",
    "fails": "int64",
    "flips": "int64",
    "score": "float64",  # flips / (runs - 1); NaN below 2 runs
    "enough_runs": "bool",
    "flagged": "bool",
    "sequence": "str",  # one character per execution, oldest first
}

ENVIRONMENT_COLUMNS: dict[str, str] = {**SCENARIO_ON_ENVIRONMENT, **_EVIDENCE}

SCENARIO_COLUMNS: dict[str, str] = {
    **PLAN_SCENARIO,
    **_EVIDENCE,
    "reason": "str",  # "environment" / "scenario" when flagged, else missing
    "environments": "int64",  # environments it ran on
    "flaky_environments": "int64",
    "consistently_failing_environments": "int64",
    "worst_environment": "str",  # label of its most flaky environment
    "worst_environment_score": "float64",
    "top_score": "float64",  # max(score, worst_environment_score): what the order uses
}

_RESULT_INPUT = (
    "result_id",
    "execution_id",
    "plan_id",
    "scenario_id",
    "level",
    *ENVIRONMENT,
)

CELL_COLUMNS = (
    "execution_id",
    "plan_id",
    "scenario_id",
    "env_key",
    "environment",
    "outcome",
    "results",
    "result_id",
)
"""The columns of `outcomes.result_cells(..., details=False)`: what the analysis reads of the
cells, and what `Flakiness.cells` holds."""

POSITION_COLUMNS: dict[str, str] = {
    "plan_id": "Int64",
    "position": "int64",  # 0 = oldest of the plan's considered executions
    "execution_id": "int64",
    "start": UTC_TIME,
}


@dataclass(frozen=True, eq=False)
class Flakiness:
    """environments: `ENVIRONMENT_COLUMNS`, one row per plan x scenario x environment.
    scenarios: `SCENARIO_COLUMNS`, one row per plan x scenario.
    positions: `POSITION_COLUMNS`, the execution behind each character of a sequence.
    basis: the executions considered; with_results counts those that had results.
    cells: the window's cells the sequences were read from (`outcomes.result_cells` of the
    window's results, without details: `CELL_COLUMNS`), for an analysis of the same window
    that needs them too (`states`' environment-specific rule)."""

    environments: pd.DataFrame
    scenarios: pd.DataFrame
    positions: pd.DataFrame
    basis: Basis
    window: int
    threshold: float
    min_runs: int
    cells: pd.DataFrame

    def flagged_scenarios(self) -> pd.DataFrame:
        return self.scenarios[self.scenarios["flagged"]].reset_index(drop=True)

    def flagged_environments(self) -> pd.DataFrame:
        return self.environments[self.environments["flagged"]].reset_index(drop=True)


def last_finished(executions: pd.DataFrame, window: int = DEFAULT_WINDOW) -> pd.DataFrame:
    """Each plan's last `window` finished executions with their position, oldest first
    (`POSITION_COLUMNS`)."""
    require_columns(executions, ("execution_id", "start", "plan_id", "finished"), "flaky")
    if window < 2:
        raise ValueError(f"the flaky window needs at least 2 executions, got {window}")
    # Only the columns the window needs are sorted: 70,000 executions' every column cost more
    # than the window's whole analysis.
    narrow = executions[["execution_id", "start", "plan_id", "finished"]]
    done = narrow[narrow["finished"].fillna(False).astype(bool)]
    # A missing start counts as the oldest run, as in plan_state.plan_states.
    done = done[done["plan_id"].notna()].sort_values(
        ["plan_id", "start", "execution_id"], kind="stable", na_position="first"
    )
    back = done.groupby("plan_id").cumcount(ascending=False)
    kept = done[back < window]
    kept = kept.assign(position=kept.groupby("plan_id").cumcount())
    return typed(kept, POSITION_COLUMNS)


def flaky_scenarios(
    executions: pd.DataFrame,
    results: pd.DataFrame,
    *,
    window: int = DEFAULT_WINDOW,
    threshold: float = DEFAULT_THRESHOLD,
    min_runs: int = MIN_RUNS,
    cells: pd.DataFrame | None = None,
) -> Flakiness:
    """Flakiness of every scenario, and of every scenario on every environment, in `results`
    over each plan's last `window` finished executions in `executions`.

    `cells`: `outcomes.result_cells` of `results` (with or without details; of any results
    that hold the window's), when the caller has them: only the window's are read, and they
    are not computed again. The answer is the same as without them."""
    if not 0 < threshold <= 1:
        raise ValueError(f"the flaky threshold is a share in (0, 1], got {threshold}")
    if min_runs < 2:
        raise ValueError(f"a flaky verdict needs at least 2 runs, got {min_runs}")
    positions = last_finished(executions, window)
    require_columns(results, ("execution_id",), "flaky")
    narrow = results[[c for c in _RESULT_INPUT if c in results.columns]]
    chosen = narrow[narrow["execution_id"].isin(positions["execution_id"])]
    if cells is None:
        window_cells = result_cells(chosen, details=False)
    else:
        require_columns(cells, CELL_COLUMNS, "flaky cells")
        in_window = cells["execution_id"].isin(positions["execution_id"]).to_numpy(dtype=bool)
        window_cells = cells.loc[in_window, list(CELL_COLUMNS)].reset_index(drop=True)
    cells = window_cells.drop(columns="plan_id")
    placed = positions[["execution_id", "plan_id", "position"]].assign(
        _width=positions.groupby("plan_id")["position"].transform("size").astype("int64")
    )
    cells = cells.merge(placed, on="execution_id", how="inner")
    cells["_rank"] = outcome_ranks(cells["outcome"])

    env_keys = ["plan_id", "scenario_id", "env_key", "environment"]
    env_rows = _evidence(cells, env_keys, window, threshold, min_runs)
    env_rows = _ordered(env_rows, ["plan_id", "scenario_id", "environment"])

    per_execution = cells.groupby(
        ["plan_id", "scenario_id", "position", "_width"], dropna=False, as_index=False
    )["_rank"].max()
    scen = _evidence(per_execution, ["plan_id", "scenario_id"], window, threshold, min_runs)
    scen = _scenario_flags(scen, env_rows)

    considered = executions[executions["execution_id"].isin(positions["execution_id"])]
    basis = execution_basis(considered, results_of=chosen["execution_id"], results=len(chosen))
    return Flakiness(
        environments=typed(env_rows, ENVIRONMENT_COLUMNS),
        scenarios=typed(scen, SCENARIO_COLUMNS),
        positions=positions,
        basis=basis,
        window=window,
        threshold=threshold,
        min_runs=min_runs,
        cells=window_cells,
    )


def _evidence(
    cells: pd.DataFrame, keys: list[str], window: int, threshold: float, min_runs: int
) -> pd.DataFrame:
    """Runs, flips and the sequence per key from rows with position, _width and _rank."""
    if cells.empty:
        return pd.DataFrame(columns=[*keys, *_EVIDENCE])
    unsorted_code = cells.groupby(keys, dropna=False, sort=False).ngroup().to_numpy()
    order = np.lexsort((cells["position"].to_numpy(), unsorted_code))  # by key, then position
    code = unsorted_code[order]
    rank = cells["_rank"].to_numpy()[order]
    position = cells["position"].to_numpy()[order]
    is_pass = rank == _PASS_RANK
    is_fail = rank == _FAIL_RANK
    run = is_pass | is_fail
    run_code, run_fail = code[run], is_fail[run]
    flip = np.zeros(len(run_code), dtype=bool)
    flip[1:] = (run_code[1:] == run_code[:-1]) & (run_fail[1:] != run_fail[:-1])
    groups = int(code.max()) + 1
    runs = np.bincount(run_code, minlength=groups)
    flips = np.bincount(run_code[flip], minlength=groups)
    fails = np.bincount(code[is_fail], minlength=groups)
    passes = np.bincount(code[is_pass], minlength=groups)

    first = np.ones(len(code), dtype=bool)
    first[1:] = code[1:] != code[:-1]
    out = cells[keys].take(order[first]).reset_index(drop=True)
    widths = cells["_width"].to_numpy()[order][first]
    # Right-aligned: the newest execution is the last character; a plan with fewer than
    # `window` executions has blanks in front, stripped below.
    before_plan = np.arange(window)[None, :] < window - widths[:, None]
    matrix = np.where(before_plan, " ", ".").astype("<U1")
    chars = _CHARS[rank]
    column = window - widths[code] + position
    matrix[code, column] = chars
    sequences = matrix.view(f"<U{window}").ravel()
    out["sequence"] = pd.Series(sequences, dtype="str").str.lstrip(" ")
    out["runs"] = runs
    out["passes"] = passes
    out["fails"] = fails
    out["flips"] = flips
    with np.errstate(divide="ignore", invalid="ignore"):
        out["score"] = np.where(runs >= 2, flips / np.maximum(runs - 1, 1), np.nan)
    out["enough_runs"] = out["runs"] >= min_runs
    # One flip is a change of state (it broke, or it was fixed), never flakiness, even when
    # few runs put its score at the threshold (1 flip in 6 runs is 0.2).
    out["flagged"] = out["enough_runs"] & (out["flips"] >= 2) & (out["score"] >= threshold - 1e-12)
    return out


def _ordered(rows: pd.DataFrame, ties: list[str]) -> pd.DataFrame:
    if rows.empty:
        return rows
    sort_score = rows["score"].fillna(-1.0)
    return (
        rows.assign(_s=sort_score)
        .sort_values(
            ["_s", "flips", "runs", *ties],
            ascending=[False, False, False, *([True] * len(ties))],
            kind="stable",
            na_position="last",
        )
        .drop(columns="_s")
    )


def _scenario_flags(scen: pd.DataFrame, env_rows: pd.DataFrame) -> pd.DataFrame:
    if scen.empty:
        return pd.DataFrame(columns=list(SCENARIO_COLUMNS))
    own = scen["flagged"]
    keys = ["plan_id", "scenario_id"]
    env = env_rows.assign(
        _consistent=(env_rows["runs"] >= CONSISTENT_MIN_RUNS)
        & (env_rows["fails"] == env_rows["runs"]),
        _score=env_rows["score"].fillna(-1.0),
    )
    per = env.groupby(keys, dropna=False).agg(
        environments=("env_key", "size"),
        flaky_environments=("flagged", "sum"),
        consistently_failing_environments=("_consistent", "sum"),
    )
    worst = env.sort_values(
        ["_score", "flips", "runs", "environment"],
        ascending=[False, False, False, True],
        kind="stable",
    ).drop_duplicates(keys)
    per = per.join(
        worst.set_index(keys)[["environment", "score"]].rename(
            columns={"environment": "worst_environment", "score": "worst_environment_score"}
        )
    )
    scen = scen.join(per, on=keys)
    by_env = scen["flaky_environments"] > 0
    by_scenario = own & (scen["consistently_failing_environments"] == 0)
    scen["flagged"] = by_env | by_scenario
    reason = pd.Series(pd.NA, index=scen.index, dtype="str")
    reason[by_scenario] = "scenario"
    reason[by_env] = "environment"
    scen["reason"] = reason
    scen["top_score"] = np.fmax(
        scen["score"].to_numpy(dtype="float64"),
        scen["worst_environment_score"].to_numpy(dtype="float64"),
    )
    return (
        scen.assign(_s=scen["top_score"].fillna(-1.0))
        .sort_values(
            ["flagged", "_s", "flips", "runs", "plan_id", "scenario_id"],
            ascending=[False, False, False, False, True, True],
            kind="stable",
        )
        .drop(columns="_s")
    )
