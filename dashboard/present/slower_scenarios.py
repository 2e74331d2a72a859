"""The slower scenarios page's words: the rule, each scenario's evidence ("median of its last 5
completed runs 1 min 00 s against 30 s over the 15 before"), and the table."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import pandas as pd

from dashboard.analytics.slower_scenarios import SlowerScenarios
from dashboard.present.formatting import human_duration, plural

ScenarioLink = Callable[[int, int], str]

COLUMNS = ("Plan", "Scenario", "Slower by", "History", "Evidence", "Latest run")


def rule_text(found: SlowerScenarios) -> str:
    """The rule, with its settings."""
    return (
        f"Per scenario, over its plan's last {found.window} finished executions: only completed "
        "runs count (passed or warned, with a runtime: a failure often stops early); per "
        "execution, the median runtime across its environments. Listed when the median of its "
        f"last {found.recent} runs is at least {found.threshold:.0%} above the median of the runs "
        f"before them, with at least {found.min_earlier} of those: the scenario page's runtime "
        "regression, over every scenario at once. Most slowed first."
    )


def evidence_text(row: pd.Series) -> str:
    """ "median of its last 5 completed runs 1 min 00 s against 30 s over the 15 before"."""
    return (
        f"median of its last {plural(int(row['recent_runs']), 'completed run')} "
        f"{human_duration(float(row['recent_median_s']))} against "
        f"{human_duration(float(row['earlier_median_s']))} over the "
        f"{int(row['earlier_runs'])} before"
    )


def change_text(change: float) -> str:
    return f"+{change * 100:.0f} %"


def _plan(plan_names: Mapping[int, str], plan_id: object) -> str:
    name = plan_names.get(int(plan_id))  # type: ignore[call-overload]
    return name if name else f"Plan {int(plan_id)}"  # type: ignore[call-overload]


def slower_display(
    found: SlowerScenarios, plan_names: Mapping[int, str], scenario_link: ScenarioLink
) -> pd.DataFrame:
    """The table as shown and downloaded (`COLUMNS`), most slowed first."""
    rows = found.slower
    if rows.empty:
        return pd.DataFrame({column: pd.Series(dtype="object") for column in COLUMNS})
    return pd.DataFrame(
        {
            "Plan": [_plan(plan_names, p) for p in rows["plan_id"]],
            "Scenario": rows["scenario_id"].astype("int64").to_numpy(),
            "Slower by": [change_text(float(c)) for c in rows["change"]],
            "History": [
                scenario_link(int(p), int(s))
                for p, s in zip(rows["plan_id"], rows["scenario_id"], strict=True)
            ],
            "Evidence": [evidence_text(row) for _, row in rows.iterrows()],
            "Latest run": rows["latest_start"].to_numpy(),
        }
    )


def judged_text(found: SlowerScenarios) -> str:
    """ "12 of 40 scenarios had enough completed runs to judge (5 recent and 5 before)."."""
    return (
        f"{found.judged:,} of {plural(found.scenarios, 'scenario')} with completed runs had "
        f"enough to judge ({found.recent} recent and at least {found.min_earlier} before); the "
        "others are not enough data, never slower."
    )


def none_text(found: SlowerScenarios) -> str:
    return (
        f"No scenario is {found.threshold:.0%} or more slower than its own earlier runs over "
        "these executions."
    )
