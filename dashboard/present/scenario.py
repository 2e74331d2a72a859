"""One scenario's history in words: the per-execution, per-environment table with its messages
and log links, and whether it became clearly slower."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import pandas as pd

from dashboard.analytics.history import RuntimeRegression, ScenarioHistory
from dashboard.present.formatting import human_duration, plural
from dashboard.present.outcome_marks import outcome_label

ResultsLink = Callable[[int, int | None, datetime | None], str]


def regression_text(overall: RuntimeRegression, recent: int, min_earlier: int) -> str:
    """The runtime verdict as a sentence (only completed runs, passed or warned, count)."""
    if not overall.enough_runs:
        return (
            f"Not enough completed runs to judge its runtime: {overall.recent_runs} recent and "
            f"{overall.earlier_runs} earlier (it takes {recent} recent and {min_earlier} earlier)."
        )
    change = overall.change or 0.0
    medians = (
        f"the median of its last {overall.recent_runs} completed runs is "
        f"{human_duration(overall.recent_median_s)}, against "
        f"{human_duration(overall.earlier_median_s)} over the "
        f"{plural(overall.earlier_runs, 'run')} before ({change * 100:+.0f} %)"
    )
    if overall.regressed:
        return f"Runtime regression: {medians}."
    return f"No runtime regression: {medians}."


def scenario_options(scenarios: tuple[int, ...] | None, retired: int | None) -> dict[int, str]:
    """The scenario picker's choices: the plan's scenarios, and `retired`, a scenario it no
    longer lists that the link names (its past runs are shown)."""
    listed = {s: f"Scenario {s}" for s in scenarios or ()}
    if retired is not None:
        listed[retired] = f"Scenario {retired} (no longer in the plan)"
    return listed


def history_display(history: ScenarioHistory, results_link: ResultsLink) -> pd.DataFrame:
    """Every cell of the scenario, newest execution first (times stay instants)."""
    cells = history.cells.iloc[::-1]
    return pd.DataFrame(
        {
            "Started": cells["execution_start"],
            "Execution": cells["execution_id"].astype("int64"),
            "Environment": cells["environment"].astype("str"),
            "Outcome": [outcome_label(o) for o in cells["outcome"]],
            "Level": cells["level"],
            "Runtime (s)": cells["runtime_s"],
            "Retries": (cells["results"] - 1).astype("int64"),
            "Message": cells["message"],
            "Node log": cells["node_log"],
            "Executor log": cells["executor_log"],
            "Results": [
                results_link(int(e), history.plan_id, _instant(s))
                for e, s in zip(cells["execution_id"], cells["execution_start"], strict=True)
            ],
        }
    ).reset_index(drop=True)


def regression_display(by_environment: pd.DataFrame) -> pd.DataFrame:
    """Per environment: recent and earlier medians of completed runs and the change."""
    return pd.DataFrame(
        {
            "Environment": by_environment["environment"].astype("str"),
            "Recent median (s)": by_environment["recent_median_s"].round(1),
            "Earlier median (s)": by_environment["earlier_median_s"].round(1),
            "Change": [
                "\u2013" if pd.isna(c) else f"{c * 100:+.0f} %" for c in by_environment["change"]
            ],
            "Recent runs": by_environment["recent_runs"].astype("int64"),
            "Earlier runs": by_environment["earlier_runs"].astype("int64"),
            "Regressed": by_environment["regressed"].astype("bool"),
        }
    ).reset_index(drop=True)


def _instant(value: object) -> datetime | None:
    """A start cell as the aware datetime a results link carries (None when unknown)."""
    return None if value is None or pd.isna(value) else pd.Timestamp(value).to_pydatetime()


def outcomes_caption(basis_text: str) -> str:
    return basis_text + ". One row per environment, one dot per execution."
