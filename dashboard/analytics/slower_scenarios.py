"""Slower scenarios: every scenario whose recent runs are clearly slower than its own earlier
ones, across plans, ranked by how much.

The rule is the scenario page's runtime regression (`history.py`), applied to every scenario of
each plan's last W finished executions at once: only completed runs count (passed or warned,
with a runtime); per execution, the median runtime across its environments; the median of the
last `recent` (5) such runs against the median of the runs before them in the window (at least
`min_earlier`, 5), listed when at least `threshold` (+25 %) slower.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from dashboard.analytics import flaky
from dashboard.analytics.basis import Basis, execution_basis
from dashboard.analytics.history import MIN_EARLIER, RECENT, THRESHOLD, runtime_regressions
from dashboard.analytics.outcomes import PASS, WARN, result_cells
from dashboard.columns.schemas import PLAN_SCENARIO, UTC_TIME
from dashboard.columns.shapes import require_columns, typed

SLOWER_SCENARIO_COLUMNS: dict[str, str] = {
    **PLAN_SCENARIO,
    "recent_runs": "int64",
    "earlier_runs": "int64",
    "recent_median_s": "float64",
    "earlier_median_s": "float64",
    "change": "float64",  # recent / earlier - 1: 0.5 is +50 %
    "latest_start": UTC_TIME,  # its latest completed run
}


@dataclass(frozen=True, eq=False)
class SlowerScenarios:
    """slower: `SLOWER_SCENARIO_COLUMNS`, the scenarios that regressed, most slowed first.
    judged: scenarios with enough completed runs to judge; scenarios: with any completed run.
    basis: the window's executions, and which had results."""

    slower: pd.DataFrame
    judged: int
    scenarios: int
    basis: Basis
    window: int
    recent: int
    min_earlier: int
    threshold: float


def slower_scenarios(
    executions: pd.DataFrame,
    results: pd.DataFrame,
    *,
    window: int = flaky.DEFAULT_WINDOW,
    recent: int = RECENT,
    min_earlier: int = MIN_EARLIER,
    threshold: float = THRESHOLD,
) -> SlowerScenarios:
    """Scenarios of `results` clearly slower over each plan's last `window` finished executions
    of `executions` (module docstring)."""
    require_columns(results, ("execution_id", "runtime_s"), "slower scenarios")
    positions = flaky.last_finished(executions, window)
    chosen = results[results["execution_id"].isin(positions["execution_id"])]
    considered = executions[executions["execution_id"].isin(positions["execution_id"])]
    basis = execution_basis(considered, results_of=chosen["execution_id"], results=len(chosen))
    cells = result_cells(chosen)
    completed = cells[cells["outcome"].isin([PASS, WARN]) & cells["runtime_s"].notna()]
    keys = ["plan_id", "scenario_id"]
    per_execution = completed.groupby([*keys, "execution_id"], as_index=False)["runtime_s"].median()
    per_execution["execution_start"] = per_execution["execution_id"].map(
        positions.set_index("execution_id")["start"]
    )
    table = runtime_regressions(per_execution, keys, recent, min_earlier, threshold)

    def done(rows: pd.DataFrame) -> SlowerScenarios:
        return SlowerScenarios(
            slower=typed(rows, SLOWER_SCENARIO_COLUMNS),
            judged=int(table["enough_runs"].sum()) if len(table) else 0,
            scenarios=len(table),
            basis=basis,
            window=window,
            recent=recent,
            min_earlier=min_earlier,
            threshold=threshold,
        )

    if table.empty:
        return done(pd.DataFrame())
    latest = per_execution.groupby(keys)["execution_start"].max()
    slower = table[table["regressed"]].join(latest.rename("latest_start"), on=keys)
    slower = slower.sort_values(
        ["change", "plan_id", "scenario_id"], ascending=[False, True, True], kind="stable"
    )
    return done(slower)
