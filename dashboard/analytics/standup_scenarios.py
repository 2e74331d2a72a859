"""The standup's "Newly failing scenarios" rule: scenario x environment cells that fail in a
plan's latest judged execution and passed in the one before, or that passed on another version
of the same desktop browser there and fail on the new one (since #38 the same environment;
"started failing with FIREFOX 129; was 128": a new failure whose version moved,
`upgrades.upgraded`). It needs results, so the digest names the (before, after) pairs first
and the caller loads exactly those executions' results."""

from __future__ import annotations

import pandas as pd

from dashboard.analytics.compare import COMPARED_PAIR_COLUMNS, compare_pairs
from dashboard.analytics.outcomes import FAIL, PASS
from dashboard.analytics.upgrades import upgraded
from dashboard.columns.schemas import ENVIRONMENT_NAME
from dashboard.columns.shapes import require_columns, typed

PAIR_COLUMNS = COMPARED_PAIR_COLUMNS
"""Each plan's latest judged execution and the one before it, compared for newly failing
scenarios."""

NEWLY_FAILING_COLUMNS: dict[str, str] = {
    "plan_id": "Int64",
    "plan": "str",
    "execution_id": "int64",  # the latest judged execution, where it fails
    "previous_execution_id": "int64",  # where it passed
    "scenario_id": "Int64",
    **ENVIRONMENT_NAME,
    "result_id": "Int64",
    "message": "str",
    "previous_environment": "str",  # where it passed: the same, or another version of it
    "browser": "str",  # when its version moved: the browser,
    "version": "str",  # the version it fails on
    "previous_version": "str",  # and the one it passed on
}


def newly_failing_scenarios(pairs: pd.DataFrame, results: pd.DataFrame) -> pd.DataFrame:
    """Scenario x environment cells that fail in each pair's after-execution and passed in its
    before-execution. `results` should hold the results of both executions of every pair
    (extra rows are ignored). Columns `NEWLY_FAILING_COLUMNS`, by plan, scenario, environment."""
    require_columns(pairs, tuple(PAIR_COLUMNS), "newly failing scenarios")
    compared = compare_pairs(results, pairs)
    new = compared[(compared["before_outcome"] == PASS) & (compared["after_outcome"] == FAIL)]
    rows = _rows(new, previous=new["environment"])
    # An environment is keyed without its version (#38): an upgrade is a new failure here.
    moved = upgraded(new).to_numpy()
    for column, side in (("browser", "browser"), ("version", "after_version")):
        rows[column] = new[side].where(moved).to_numpy()
    rows["previous_version"] = new["before_version"].where(moved).to_numpy()
    rows = typed(rows, NEWLY_FAILING_COLUMNS)
    rows = rows.sort_values(["plan_id", "scenario_id", "environment"], kind="stable")
    return typed(rows, NEWLY_FAILING_COLUMNS)


def _rows(cells: pd.DataFrame, *, previous: pd.Series) -> pd.DataFrame:
    """Newly failing rows of compared cells; `previous`: where each passed before."""
    return pd.DataFrame(
        {
            "plan_id": cells["plan_id"],
            "plan": cells["plan"],
            "execution_id": cells["after_execution_id"],
            "previous_execution_id": cells["before_execution_id"],
            "scenario_id": cells["scenario_id"],
            "env_key": cells["env_key"],
            "environment": cells["environment"],
            "result_id": cells["after_result_id"],
            "message": cells["after_message"] if "after_message" in cells.columns else pd.NA,
            "previous_environment": previous,
            "browser": pd.NA,
            "version": pd.NA,
            "previous_version": pd.NA,
        }
    )
