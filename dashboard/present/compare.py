"""Two executions side by side in words: each cell's bucket with its status symbol, both
outcomes, the runtime delta, and a summary ("2 new failures, 1 fixed, ...")."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from dashboard.analytics.compare import BUCKETS, NEW_FAILURE, Comparison
from dashboard.present.formatting import human_duration, weekday_time
from dashboard.present.outcome_marks import bucket_label, outcome_label

ScenarioLink = Callable[[int, int], str]
MINUS = "\u2212"
_PLURALS = {NEW_FAILURE: "new failures"}

COLUMNS = (
    "Scenario",
    "Environment",
    "Change",
    "Before",
    "After",
    "Runtime before (s)",
    "Runtime after (s)",
    "Runtime change (s)",
    "Message after",
    "Message before",
    "History",
)


def signed_duration(seconds: float | None) -> str:
    """ "+57 s", "\u22123 min 05 s", "no change"; an en dash when unknown."""
    if seconds is None or pd.isna(seconds):
        return "\u2013"
    if seconds == 0:
        return "no change"
    sign = "+" if seconds > 0 else MINUS
    return sign + human_duration(abs(float(seconds)))


def counts_text(comparison: Comparison) -> str:
    """Every bucket with cells in it, most urgent first: "1 new failure, 12 still passing"."""
    parts = [
        f"{n:,} {_PLURALS.get(bucket, bucket) if n != 1 else bucket}"
        for bucket, n in comparison.counts
        if n
    ]
    return ", ".join(parts) if parts else "no results on either side"


def runtime_text(comparison: Comparison) -> str:
    """ "Runtime 12 min 03 s before, 13 min 00 s after (+57 s)"."""
    before, after = comparison.before_runtime_ms, comparison.after_runtime_ms
    if before is None or after is None:
        return "Runtime: not known for both executions"
    delta = comparison.runtime_delta_ms or 0
    return (
        f"Runtime {human_duration(before / 1000)} before, {human_duration(after / 1000)} after "
        f"({signed_duration(delta / 1000)})"
    )


def _outcome(outcome: object, result_id: object) -> str:
    return "\u2013 absent" if pd.isna(result_id) else outcome_label(outcome)


def compare_display(cells: pd.DataFrame, plan_id: int, scenario_link: ScenarioLink) -> pd.DataFrame:
    """The comparison table as shown and downloaded (`COLUMNS`), in bucket order."""
    if cells.empty:
        return pd.DataFrame({column: pd.Series(dtype="object") for column in COLUMNS})
    return pd.DataFrame(
        {
            "Scenario": cells["scenario_id"].astype("int64"),
            "Environment": cells["environment"].astype("str"),
            "Change": [bucket_label(b) for b in cells["bucket"]],
            "Before": [
                _outcome(o, r)
                for o, r in zip(cells["before_outcome"], cells["before_result_id"], strict=True)
            ],
            "After": [
                _outcome(o, r)
                for o, r in zip(cells["after_outcome"], cells["after_result_id"], strict=True)
            ],
            "Runtime before (s)": cells["before_runtime_s"],
            "Runtime after (s)": cells["after_runtime_s"],
            "Runtime change (s)": cells["runtime_delta_s"],
            "Message after": cells["after_message"],
            "Message before": cells["before_message"],
            "History": [scenario_link(plan_id, int(s)) for s in cells["scenario_id"]],
        }
    ).reset_index(drop=True)


def legend() -> str:
    """Every bucket with its symbol, most urgent first."""
    return "Change: " + ", ".join(bucket_label(bucket) for bucket in BUCKETS) + "."


def execution_label(execution_id: int, start: object, finished: bool, tz: str) -> str:
    """An execution in the Before/After pickers: "#5, Mon 7 Apr 09:12"; a start the service
    did not give (start_date is optional) shows as "\u2013" rather than failing the page."""
    started = "\u2013" if start is None or pd.isna(start) else weekday_time(start, tz)
    return f"#{execution_id}, {started}" + ("" if finished else " (running)")
