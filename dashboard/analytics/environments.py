"""Environment-specific failures: the scenario x environment matrix of a window, scenarios whose
failures concentrate on some environments, and failures that started with a version change.

Counts are over cells (`outcomes.result_cells`: one scenario on one environment in one
execution), so a retried test counts once per execution. *Runs* are cells that passed or
failed; a warning or no verdict is counted but is not a run.

Environment-specific (per plan and scenario): an environment is *failing* when the scenario
failed in at least `fail_share` (80 %) of its runs there, with at least `min_runs` (3) runs. The
scenario is flagged on that environment when its other, non-failing environments together
passed in at least `pass_share` (80 %) of their runs, with at least `min_runs` runs: "fails on
SAFARI 17 / macOS in 20 of 20 runs, passes elsewhere". A scenario failing everywhere is
broken, not environment-specific, and is not flagged.

Environments are keyed without their browser version (`environment_names`): a matrix row is
the scenario on an OS and browser over every version it ran on, which `versions` names
("(130 -> 131)": the version of its oldest and newest execution in the window).

Version change (desktop only; a phone's environment has no browser version): for each plan,
scenario, OS and browser, versions are ordered by when they were first seen. A scenario is
flagged on a version when it failed there in >= `fail_share` of >= `min_runs` runs and passed
in >= `pass_share` of >= `min_runs` runs on the version seen just before. Flags are gathered
per (plan, OS, browser, previous version, new version) with the scenarios they concern.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from dashboard.analytics.basis import Basis, execution_basis
from dashboard.analytics.environment_names import (
    ENVIRONMENT_COLUMNS,
    version_text,
)
from dashboard.analytics.outcomes import outcome_ranks, result_cells
from dashboard.columns.schemas import SCENARIO_ON_ENVIRONMENT, UTC_TIME
from dashboard.columns.shapes import require_columns, typed

FAIL_SHARE = 0.8
PASS_SHARE = 0.8
MIN_RUNS = 3

MATRIX_COLUMNS: dict[str, str] = {
    **SCENARIO_ON_ENVIRONMENT,
    "executions": "int64",  # cells: executions with a result here
    "runs": "int64",  # passed + failed
    "passed": "int64",
    "failed": "int64",
    "warned": "int64",
    "no_verdict": "int64",
    "pass_rate": "float64",  # passed / (passed + failed + warned); NaN with no verdict
    "fail_share": "float64",  # failed / runs; NaN with no runs
    "versions": "str",  # "(131)", "(130 -> 131)": its oldest and newest version; "" on a phone
}

SPECIFIC_COLUMNS: dict[str, str] = {
    **SCENARIO_ON_ENVIRONMENT,
    "failed": "int64",
    "runs": "int64",
    "fail_share": "float64",
    "elsewhere_passed": "int64",
    "elsewhere_runs": "int64",
    "elsewhere_pass_share": "float64",
    "elsewhere_environments": "int64",
    "failing_environments": "int64",  # environments of this scenario that are failing
}

VERSION_CHANGE_COLUMNS: dict[str, str] = {
    "plan_id": "Int64",
    "os": "str",
    "browser": "str",
    "previous_version": "str",
    "version": "str",
    "environment": "str",  # its label, "CHROME / Windows 10" (the versions are beside it)
    "previous_environment": "str",  # the same label (kept for callers of before #38)
    "scenarios": "int64",  # scenarios that passed before and fail now
    "scenario_ids": "object",  # tuple of them, ascending
    "failed": "int64",  # their failures on the new version
    "runs": "int64",  # their runs on the new version
    "previous_passed": "int64",
    "previous_runs": "int64",
    "first_seen": UTC_TIME,  # first result on the new version
}


_RESULT_INPUT = (
    "result_id",
    "execution_id",
    "plan_id",
    "scenario_id",
    "level",
    "start",
    *ENVIRONMENT_COLUMNS,
)


@dataclass(frozen=True, eq=False)
class EnvironmentReport:
    """matrix: `MATRIX_COLUMNS`; specific: `SPECIFIC_COLUMNS`; version_changes:
    `VERSION_CHANGE_COLUMNS`; basis: the executions given and how many had results."""

    matrix: pd.DataFrame
    specific: pd.DataFrame
    version_changes: pd.DataFrame
    basis: Basis


def environment_report(
    executions: pd.DataFrame,
    results: pd.DataFrame,
    *,
    fail_share: float = FAIL_SHARE,
    pass_share: float = PASS_SHARE,
    min_runs: int = MIN_RUNS,
) -> EnvironmentReport:
    """Everything of the module for the window's `executions` and their `results`."""
    require_columns(executions, ("execution_id", "start", "finished"), "environment report")
    require_columns(results, ("execution_id",), "environment report")
    narrow = results[[c for c in _RESULT_INPUT if c in results.columns]]
    own = narrow[narrow["execution_id"].isin(executions["execution_id"])]
    cells = result_cells(own)
    matrix = environment_matrix(cells=cells)
    return EnvironmentReport(
        matrix=matrix,
        specific=environment_specific(
            matrix, fail_share=fail_share, pass_share=pass_share, min_runs=min_runs
        ),
        version_changes=version_changes(
            cells=cells, fail_share=fail_share, pass_share=pass_share, min_runs=min_runs
        ),
        basis=execution_basis(executions, results_of=own["execution_id"], results=len(own)),
    )


def _counted(cells: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    rank = outcome_ranks(cells["outcome"])
    marks = cells[keys].assign(
        executions=1,
        passed=(rank == 2).astype("int64"),
        failed=(rank == 3).astype("int64"),
        warned=(rank == 1).astype("int64"),
        no_verdict=(rank == 0).astype("int64"),
    )
    counts = marks.groupby(keys, dropna=False, observed=True, as_index=False).sum()
    counts["runs"] = counts["passed"] + counts["failed"]
    with np.errstate(divide="ignore", invalid="ignore"):
        verdicts = counts["runs"] + counts["warned"]
        counts["pass_rate"] = counts["passed"] / verdicts.where(verdicts > 0)
        counts["fail_share"] = counts["failed"] / counts["runs"].where(counts["runs"] > 0)
    return counts


def environment_matrix(
    results: pd.DataFrame | None = None, *, cells: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Long-form scenario x environment matrix (`MATRIX_COLUMNS`), by plan, scenario and
    environment label. Give `results` (a results-history frame) or ready `cells`."""
    if cells is None:
        if results is None:
            raise TypeError("environment_matrix needs results or cells")
        cells = result_cells(results)
    keys = ["plan_id", "scenario_id", "env_key", "environment"]
    counts = _counted(cells, keys)
    counts["versions"] = _versions(cells, keys, counts)
    counts = counts.sort_values(["plan_id", "scenario_id", "environment"], kind="stable")
    return typed(counts, MATRIX_COLUMNS)


def _versions(cells: pd.DataFrame, keys: list[str], counts: pd.DataFrame) -> list[str]:
    """Per row of `counts`: the browser version of its oldest and newest execution among
    `cells` (`environment_names.version_text`), "" where none is known."""
    if "browser_version" not in cells.columns or counts.empty:
        return [""] * len(counts)
    known = cells[cells["browser_version"].notna() & ~cells["mobile"].fillna(False).astype(bool)]
    if known.empty:
        return [""] * len(counts)
    ordered = known[[*keys, "execution_id", "browser_version"]].sort_values(
        "execution_id", kind="stable"
    )
    grouped = ordered.groupby(keys, dropna=False, observed=True, sort=False)["browser_version"]
    ends = pd.DataFrame({"first": grouped.first(), "last": grouped.last()})
    at = pd.MultiIndex.from_frame(counts[keys])
    ends = ends.reindex(at)
    return [
        version_text(None if pd.isna(a) else a, None if pd.isna(b) else b)
        for a, b in zip(ends["first"], ends["last"], strict=True)
    ]


def heatmap(matrix: pd.DataFrame, value: str = "pass_rate") -> pd.DataFrame:
    """The matrix of one plan as a grid: rows scenario ids, columns environment labels (sorted),
    cells `value` (NaN where the scenario did not run on that environment)."""
    require_columns(matrix, ("plan_id", "scenario_id", "environment", value), "heat map")
    if matrix["plan_id"].nunique() > 1:
        raise ValueError("a heat map shows one plan: narrow the matrix to a plan first")
    grid = matrix.pivot_table(
        index="scenario_id", columns="environment", values=value, aggfunc="first", dropna=False
    )
    return grid.reindex(columns=sorted(grid.columns))


def environment_specific(
    matrix: pd.DataFrame,
    *,
    fail_share: float = FAIL_SHARE,
    pass_share: float = PASS_SHARE,
    min_runs: int = MIN_RUNS,
) -> pd.DataFrame:
    """Scenario x environment pairs where the scenario's failures concentrate (module
    docstring). Columns `SPECIFIC_COLUMNS`, most concentrated first."""
    _check(fail_share, pass_share, min_runs)
    require_columns(
        matrix,
        ("plan_id", "scenario_id", "env_key", "environment", "runs", "passed", "failed"),
        "environment-specific failures",
    )
    keys = ["plan_id", "scenario_id"]
    rows = matrix.assign(
        _failing=(matrix["runs"] >= min_runs)
        & (matrix["failed"] >= fail_share * matrix["runs"] - 1e-9)
    )
    healthy = rows[~rows["_failing"]]
    elsewhere = healthy.groupby(keys, dropna=False).agg(
        elsewhere_passed=("passed", "sum"),
        elsewhere_runs=("runs", "sum"),
        elsewhere_environments=("env_key", "size"),
    )
    failing = rows[rows["_failing"]].join(elsewhere, on=keys)
    failing["failing_environments"] = failing.groupby(keys, dropna=False)["env_key"].transform(
        "size"
    )
    for column in ("elsewhere_passed", "elsewhere_runs", "elsewhere_environments"):
        failing[column] = failing[column].fillna(0).astype("int64")
    with np.errstate(divide="ignore", invalid="ignore"):
        failing["elsewhere_pass_share"] = failing["elsewhere_passed"] / failing[
            "elsewhere_runs"
        ].where(failing["elsewhere_runs"] > 0)
    flagged = failing[
        (failing["elsewhere_runs"] >= min_runs)
        & (failing["elsewhere_passed"] >= pass_share * failing["elsewhere_runs"] - 1e-9)
    ]
    flagged = flagged.sort_values(
        ["fail_share", "runs", "plan_id", "scenario_id", "environment"],
        ascending=[False, False, True, True, True],
        kind="stable",
    )
    return typed(flagged, SPECIFIC_COLUMNS)


def version_changes(
    results: pd.DataFrame | None = None,
    *,
    cells: pd.DataFrame | None = None,
    fail_share: float = FAIL_SHARE,
    pass_share: float = PASS_SHARE,
    min_runs: int = MIN_RUNS,
) -> pd.DataFrame:
    """Desktop environments whose failures started with a new browser version (module
    docstring). Columns `VERSION_CHANGE_COLUMNS`, newest change first."""
    _check(fail_share, pass_share, min_runs)
    if cells is None:
        if results is None:
            raise TypeError("version_changes needs results or cells")
        cells = result_cells(results)
    desktop = cells[
        ~cells["mobile"].fillna(False).astype(bool)
        & cells["browser"].notna()
        & cells["browser_version"].notna()
    ]
    if desktop.empty:  # phones only, or no versions: nothing to compare
        return typed(pd.DataFrame(), VERSION_CHANGE_COLUMNS)
    if "start" not in desktop.columns:
        desktop = desktop.assign(start=pd.NaT)
    # Count per environment key (categorical, cheap), then name its parts from a small table.
    # Count per environment (categorical, cheap) and version, then name its parts from a small
    # table: the key has no version, so each version of a browser is counted apart here.
    per = ["plan_id", "scenario_id", "env_key", "browser_version"]
    counts = _counted(desktop, per)
    seen = desktop.groupby(per, dropna=False, observed=True).agg(
        first_seen=("start", "min"), first_execution=("execution_id", "min")
    )
    counts = counts.join(seen, on=per)
    # Plain strings on both sides: a categorical mapped through a categorical index can
    # pair the wrong rows.
    parts = desktop.drop_duplicates("env_key")
    keys_text = parts["env_key"].astype("str").tolist()
    for column in ("os", "browser", "environment"):
        lookup = dict(zip(keys_text, parts[column].astype("str").tolist(), strict=True))
        counts[column] = counts["env_key"].astype("str").map(lookup).astype("str")
    counts["browser_version"] = counts["browser_version"].astype("str")
    keys = ["plan_id", "scenario_id", "os", "browser"]
    counts = counts.sort_values([*keys, "first_seen", "first_execution"], kind="stable")
    before = counts.groupby(keys, dropna=False).shift(1)
    counts["previous_version"] = before["browser_version"]
    counts["previous_passed"] = before["passed"]
    counts["previous_runs"] = before["runs"]
    changed = counts[
        counts["previous_version"].notna()
        & (counts["runs"] >= min_runs)
        & (counts["failed"] >= fail_share * counts["runs"] - 1e-9)
        & (counts["previous_runs"] >= min_runs)
        & (counts["previous_passed"] >= pass_share * counts["previous_runs"] - 1e-9)
    ]
    if changed.empty:
        return typed(changed, VERSION_CHANGE_COLUMNS)
    group = ["plan_id", "os", "browser", "environment", "previous_version", "browser_version"]
    merged = (
        changed.sort_values("scenario_id", kind="stable")
        .groupby(group, dropna=False, as_index=False)
        .agg(
            scenarios=("scenario_id", "size"),
            scenario_ids=("scenario_id", lambda ids: tuple(int(i) for i in ids)),
            failed=("failed", "sum"),
            runs=("runs", "sum"),
            previous_passed=("previous_passed", "sum"),
            previous_runs=("previous_runs", "sum"),
            first_seen=("first_seen", "min"),
        )
        .rename(columns={"browser_version": "version"})
    )
    merged["previous_environment"] = merged["environment"]  # the same one, another version
    merged = merged.sort_values(
        ["first_seen", "plan_id", "environment"], ascending=[False, True, True], kind="stable"
    )
    return typed(merged, VERSION_CHANGE_COLUMNS)


def _check(fail_share: float, pass_share: float, min_runs: int) -> None:
    if not (0 < fail_share <= 1 and 0 < pass_share <= 1):
        raise ValueError("shares are fractions in (0, 1]")
    if min_runs < 1:
        raise ValueError(f"at least one run is needed, got min_runs={min_runs}")
