"""The standup's "Newly failing scenarios" rule: scenario x environment cells that fail in a
plan's latest judged execution and passed in the one before. It needs results, so the digest
names the (before, after) pairs first and the caller loads exactly those executions' results."""

from __future__ import annotations

import pandas as pd

from dashboard.analytics.compare import COMPARED_PAIR_COLUMNS, compare_pairs
from dashboard.analytics.outcomes import FAIL, PASS
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
}


def newly_failing_scenarios(pairs: pd.DataFrame, results: pd.DataFrame) -> pd.DataFrame:
    """Scenario x environment cells that fail in each pair's after-execution and passed in its
    before-execution. `results` should hold the results of both executions of every pair
    (extra rows are ignored). Columns `NEWLY_FAILING_COLUMNS`, by plan, scenario, environment."""
    require_columns(pairs, tuple(PAIR_COLUMNS), "newly failing scenarios")
    compared = compare_pairs(results, pairs)
    new = compared[(compared["before_outcome"] == PASS) & (compared["after_outcome"] == FAIL)]
    rows = pd.DataFrame(
        {
            "plan_id": new["plan_id"],
            "plan": new["plan"],
            "execution_id": new["after_execution_id"],
            "previous_execution_id": new["before_execution_id"],
            "scenario_id": new["scenario_id"],
            "env_key": new["env_key"],
            "environment": new["environment"],
            "result_id": new["after_result_id"],
            "message": new["after_message"] if "after_message" in new.columns else pd.NA,
        }
    )
    rows = rows.sort_values(["plan_id", "scenario_id", "environment"], kind="stable")
    return typed(rows, NEWLY_FAILING_COLUMNS)
