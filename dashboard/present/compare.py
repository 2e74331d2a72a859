"""Two executions side by side in words: each cell's bucket with its status symbol, both
outcomes, the runtime delta, and a summary ("2 new failures, 1 fixed, ...")."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import date

import pandas as pd

from dashboard.analytics.basis import Basis
from dashboard.analytics.compare import (
    BUCKETS,
    FIXED,
    NEW_FAILURE,
    STILL_FAILING,
    Comparison,
    failure_split,
    with_outage_sides,
)
from dashboard.analytics.environment_names import with_version
from dashboard.present.captions import describe_basis
from dashboard.present.formatting import human_duration, weekday_time
from dashboard.present.known import KNOWN_RULE, ticket_label
from dashboard.present.known import outage_line as known_outage_line
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


def _outcome(outcome: object, result_id: object, in_outage: bool = False) -> str:
    if pd.isna(result_id):
        return "\u2013 absent"
    return outcome_label(outcome) + (" (outage)" if in_outage else "")


def _outage_flags(cells: pd.DataFrame, side: str) -> list[bool]:
    """Whether each cell's `side` execution is an outage, when the cells say
    (`compare.with_outage_sides`)."""
    column = f"{side}_outage"
    if column not in cells.columns:
        return [False] * len(cells)
    return [bool(flag) for flag in cells[column]]


def compare_display(cells: pd.DataFrame, plan_id: int, scenario_link: ScenarioLink) -> pd.DataFrame:
    """The comparison table as shown and downloaded (`COLUMNS`), in bucket order."""
    if cells.empty:
        return pd.DataFrame({column: pd.Series(dtype="object") for column in COLUMNS})
    return pd.DataFrame(
        {
            "Scenario": cells["scenario_id"].astype("int64"),
            "Environment": _environments(cells),
            "Change": [bucket_label(b) for b in cells["bucket"]],
            "Before": [
                _outcome(o, r, x)
                for o, r, x in zip(
                    cells["before_outcome"],
                    cells["before_result_id"],
                    _outage_flags(cells, "before"),
                    strict=True,
                )
            ],
            "After": [
                _outcome(o, r, x)
                for o, r, x in zip(
                    cells["after_outcome"],
                    cells["after_result_id"],
                    _outage_flags(cells, "after"),
                    strict=True,
                )
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


def _environments(cells: pd.DataFrame) -> list[str]:
    """Each cell's environment with its browser's versions beside it: "CHROME / Windows 10
    (131)", "(130 -> 131)" where it moved between the two executions."""
    if "before_version" not in cells.columns:
        return [str(e) for e in cells["environment"]]
    return [
        with_version(e, None if pd.isna(b) else b, None if pd.isna(a) else a)
        for e, b, a in zip(
            cells["environment"], cells["before_version"], cells["after_version"], strict=True
        )
    ]


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
    rule (cells with `known`, `known_figures.compare_with_known`). With the outage sides
    (`compare.with_outage_sides`) and one of them an outage, each also says how many are in
    the outage, and how many fixed cells had failed in one: "New failures: 0 unresolved, 0
    known, 10 in the outage."."""
    if "after_outage" not in cells.columns:
        cells = with_outage_sides(cells, ())
    split = failure_split(cells).set_index("bucket")
    any_outage = bool(cells["before_outage"].any() or cells["after_outage"].any())
    parts = []
    for bucket, name in ((NEW_FAILURE, "New failures"), (STILL_FAILING, "Still failing")):
        row = split.loc[bucket]
        text = f"{name}: {int(row['unresolved']):,} unresolved, {int(row['known']):,} known"
        parts.append(text + (f", {int(row['outage']):,} in the outage." if any_outage else "."))
    fixed = split.loc[FIXED]
    if int(fixed["outage"]):
        parts.append(
            f"Fixed: {int(fixed['outage']):,} of {int(fixed['cells']):,} had failed in the "
            "outage before, so the fix is the outage ending."
        )
    rule = KNOWN_RULE
    if any_outage:
        rule += (
            " A failure in an outage is counted there, not as unresolved or known, whatever "
            "mark covers it."
        )
    return " ".join(parts) + " " + rule


def outage_line(row: Mapping[str, object], plan_names: Mapping[int, str], tz: str) -> str:
    """One compared execution that is an outage (`compare.outage_sides`), above the
    comparison: "After: Checkout, execution 1005 (Tue 24 Nov 02:00): likely outage, 15 of 15
    results failed, most with "...". Its failures are counted apart below."."""
    side = "Before" if row.get("side") == "before" else "After"
    return (
        f"{side}: {known_outage_line(row, plan_names, tz)}. Its failures are counted apart "
        "below, not as regressions; the default comparison passes outages over."
    )


def outage_lines(sides: pd.DataFrame, plan_names: Mapping[int, str], tz: str) -> list[str]:
    """`outage_line` of each compared execution that is an outage, before first."""
    return [outage_line(row, plan_names, tz) for row in sides.to_dict("records")]


def passed_over_text(passed: Sequence[int]) -> str | None:
    """Why the default pair is not the plan's latest two: the outages it passed over."""
    if not passed:
        return None
    named = ", ".join(f"#{i}" for i in passed)
    verb = "is a likely outage" if len(passed) == 1 else "are likely outages"
    return (
        f"{named} {verb}, newer than the executions compared: passed over by default, since an "
        "outage says nothing about what changed in the tests. Pick it in Before or After to "
        "compare it."
    )


def legend() -> str:
    """Every bucket with its symbol, most urgent first."""
    return "Change: " + ", ".join(bucket_label(bucket) for bucket in BUCKETS) + "."


def execution_label(
    execution_id: int, start: object, finished: bool, tz: str, outage: str | None = None
) -> str:
    """An execution in the Before/After pickers: "#5, Mon 7 Apr 09:12", "... (likely
    outage)"; a start the service did not give (start_date is optional) shows as "\u2013"
    rather than failing the page."""
    started = "\u2013" if start is None or pd.isna(start) else weekday_time(start, tz)
    return (
        f"#{execution_id}, {started}"
        + ("" if finished else " (running)")
        + (f" ({outage})" if outage else "")
    )


def execution_options(
    executions: pd.DataFrame, tz: str, outages: Mapping[int, str] | None = None
) -> dict[int, str]:
    """The Before/After pickers' choices: every execution of the lookback, newest first, each
    outage of `outages` (execution id -> "likely outage" or "outage") saying so."""
    flagged = outages or {}
    ordered = executions.sort_values(["start", "execution_id"], ascending=False, na_position="last")
    return {
        int(row.execution_id): execution_label(
            int(row.execution_id),
            row.start,
            bool(row.finished),
            tz,
            flagged.get(int(row.execution_id)),
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
