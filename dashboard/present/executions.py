"""The executions page's words: what each figure was computed from, said under it."""

from __future__ import annotations

import pandas as pd

from dashboard.analytics.outages import CONFIRMED
from dashboard.present import charts, runtime_chart, tables
from dashboard.present.formatting import plural, times_note
from dashboard.present.known import outages_caption as outages_rule_caption

OUTAGES_NAMED = 5
"""Outages named by id in the caption; more are counted."""


def no_executions_text(slice_text: str) -> str:
    return f"No executions match: {slice_text}. Widen the date range or clear a filter."


def figures_caption(slice_text: str, tz: str) -> str:
    return f"{slice_text}. {times_note(tz)}"


def outage_labels(found: pd.DataFrame) -> dict[int, str]:
    """How the table's Status flags each outage (`outages.outages`): "likely outage", or
    "outage" once a viewer confirmed it."""
    return {
        int(ident): "outage" if state == CONFIRMED else "likely outage"
        for ident, state in zip(found["execution_id"], found["state"], strict=True)
    }


def outages_caption(found: pd.DataFrame, *, included: bool) -> str | None:
    """How many outages the KPIs and charts leave out (or count), why, which, and that the
    table lists them all; None when the slice has none."""
    rule = outages_rule_caption(len(found), included=included)
    if rule is None:
        return None
    ids = [f"#{int(i)}" for i in found["execution_id"].head(OUTAGES_NAMED)]
    more = len(found) - len(ids)
    named = ", ".join(ids) + (f" and {more:,} more" if more > 0 else "")
    return (
        f"{rule} Outages here: {named}. The table lists every execution and names the outages "
        "in its Status."
    )


def left_out_text(left_out: int) -> str:
    """What a figure's caption adds when outages were left out of it ("" when none were)."""
    if not left_out:
        return ""
    them = "it" if left_out == 1 else "them"
    return f"; {plural(left_out, 'likely outage')} left out (Include outages counts {them})"


def status_caption(slice_text: str, left_out: int = 0) -> str:
    return (
        slice_text
        + left_out_text(left_out)
        + ". Colours are fixed per status; unknown statuses are grey."
    )


def per_plan_caption(executions: int, plans: int) -> str:
    """Why the status chart draws one bar per plan."""
    return (
        f"Over {charts.EXECUTION_BAR_LIMIT:,} executions, one bar per plan: the results of all "
        f"{plural(executions, 'execution')} of {plural(plans, 'plan')}, by status. Per day splits "
        "them by day."
    )


def runtime_caption(slice_text: str, *, aggregated: bool, left_out: int = 0) -> str:
    text = (
        slice_text
        + "; executions with results still running or unknown left out"
        + left_out_text(left_out)
    )
    if aggregated:
        text += (
            f". Over {runtime_chart.RUNTIME_POINT_LIMIT:,} executions, each point is a plan's "
            "median runtime on a day (its 10th-90th percentile and count on hover)"
        )
    return text + "."


def pass_rate_caption(slice_text: str, left_out: int = 0) -> str:
    return (
        slice_text
        + left_out_text(left_out)
        + "; only results with a verdict count (SUCCESS passes)."
    )


def table_caption(slice_text: str, rows: int) -> str:
    """What the table lists, and that only the newest rows are sent when there are many."""
    text = slice_text + ", newest first. Select one to open its results."
    if rows > tables.TABLE_ROW_LIMIT:
        text += (
            f" The newest {tables.TABLE_ROW_LIMIT:,} are shown; the CSV holds every one (narrow "
            "the filters to see others)."
        )
    return text
