"""The executions page's words: what each figure was computed from, said under it."""

from __future__ import annotations

from dashboard.present import charts, runtime_chart, tables
from dashboard.present.formatting import plural, times_note


def no_executions_text(slice_text: str) -> str:
    return f"No executions match: {slice_text}. Widen the date range or clear a filter."


def figures_caption(slice_text: str, tz: str) -> str:
    return f"{slice_text}. {times_note(tz)}"


def status_caption(slice_text: str) -> str:
    return slice_text + ". Colours are fixed per status; unknown statuses are grey."


def per_plan_caption(executions: int, plans: int) -> str:
    """Why the status chart draws one bar per plan."""
    return (
        f"Over {charts.EXECUTION_BAR_LIMIT:,} executions, one bar per plan: the results of all "
        f"{plural(executions, 'execution')} of {plural(plans, 'plan')}, by status. Per day splits "
        "them by day."
    )


def runtime_caption(slice_text: str, *, aggregated: bool) -> str:
    text = slice_text + "; executions with results still running or unknown left out"
    if aggregated:
        text += (
            f". Over {runtime_chart.RUNTIME_POINT_LIMIT:,} executions, each point is a plan's "
            "median runtime on a day (its 10th-90th percentile and count on hover)"
        )
    return text + "."


def pass_rate_caption(slice_text: str) -> str:
    return slice_text + "; only results with a verdict count (SUCCESS passes)."


def table_caption(slice_text: str, rows: int) -> str:
    """What the table lists, and that only the newest rows are sent when there are many."""
    text = slice_text + ", newest first. Select one to open its results."
    if rows > tables.TABLE_ROW_LIMIT:
        text += (
            f" The newest {tables.TABLE_ROW_LIMIT:,} are shown; the CSV holds every one (narrow "
            "the filters to see others)."
        )
    return text
