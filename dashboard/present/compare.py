"""Two executions side by side in words: each cell's bucket with its status symbol, both
outcomes, the runtime delta, and a summary ("2 new failures, 1 fixed, ...")."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

import pandas as pd

from dashboard.analytics.basis import Basis
from dashboard.analytics.compare import BUCKETS, NEW_FAILURE, STILL_FAILING, Comparison
from dashboard.present.captions import describe_basis
from dashboard.present.formatting import human_duration, weekday_time
from dashboard.present.known import KNOWN_RULE, ticket_label
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
    "History",
    "Message after",
    "Runtime change (s)",
    "Runtime before (s)",
    "Runtime after (s)",
    "Message before",
)
"""The comparison table's columns: what changed and its history link first, in view on a
laptop (`present.key_columns`); the runtimes and the message before a scroll away."""


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
            "History": [scenario_link(plan_id, int(s)) for s in cells["scenario_id"]],
            "Message after": cells["after_message"],
            "Runtime change (s)": cells["runtime_delta_s"],
            "Runtime before (s)": cells["before_runtime_s"],
            "Runtime after (s)": cells["after_runtime_s"],
            "Message before": cells["before_message"],
            **_mark_column(cells),
        }
    ).reset_index(drop=True)


def _mark_column(cells: pd.DataFrame) -> dict[str, list[str]]:
    """Mark: the ticket of the mark that covers the after side's failure, when the cells say
    (`known_figures.compare_with_known`)."""
    if "known" not in cells.columns:
        return {}
    return {
        "Mark": [
            (ticket_label(t) or "known") if k else ""
            for k, t in zip(cells["known"], cells["ticket"], strict=True)
        ]
    }


def known_caption(cells: pd.DataFrame) -> str:
    """ "New failures: 2 unresolved, 1 known. Still failing: 0 unresolved, 3 known." and the
    rule (cells with `known`, `known_figures.compare_with_known`)."""
    parts = []
    for bucket, name in ((NEW_FAILURE, "New failures"), (STILL_FAILING, "Still failing")):
        chosen = cells[cells["bucket"] == bucket]
        known = int(chosen["known"].sum())
        parts.append(f"{name}: {len(chosen) - known:,} unresolved, {known:,} known.")
    return " ".join(parts) + " " + KNOWN_RULE


def legend() -> str:
    """Every bucket with its symbol, most urgent first."""
    return "Change: " + ", ".join(bucket_label(bucket) for bucket in BUCKETS) + "."


def execution_label(execution_id: int, start: object, finished: bool, tz: str) -> str:
    """An execution in the Before/After pickers: "#5, Mon 7 Apr 09:12"; a start the service
    did not give (start_date is optional) shows as "\u2013" rather than failing the page."""
    started = "\u2013" if start is None or pd.isna(start) else weekday_time(start, tz)
    return f"#{execution_id}, {started}" + ("" if finished else " (running)")


def execution_options(executions: pd.DataFrame, tz: str) -> dict[int, str]:
    """The Before/After pickers' choices: every execution of the lookback, newest first."""
    ordered = executions.sort_values(["start", "execution_id"], ascending=False, na_position="last")
    return {
        int(row.execution_id): execution_label(
            int(row.execution_id), row.start, bool(row.finished), tz
        )
        for row in ordered.itertuples(index=False)
    }


def basis_caption(basis: Basis, *, today: date, scope: str, before: int, after: int) -> str:
    """What the comparison was computed from: "From 2 executions of plan Checkout, ...: #5
    before, #9 after."."""
    return describe_basis(basis, today=today, scope=scope) + f": #{before} before, #{after} after."


def summary_caption(comparison: Comparison) -> str:
    """ "1 new failure, 12 still passing. Runtime 12 min 03 s before, ..." """
    return counts_text(comparison) + ". " + runtime_text(comparison)


def runtime_change(comparison: Comparison) -> str:
    """The runtime tile: "+57 s", "no change", or an en dash when unknown."""
    delta = comparison.runtime_delta_ms
    return signed_duration(None if delta is None else delta / 1000)


def fewer_than_two_text(plan_name: str, lookback: str) -> str:
    return (
        f"Plan {plan_name} has fewer than two finished executions in the {lookback}: pick two "
        "executions."
    )
