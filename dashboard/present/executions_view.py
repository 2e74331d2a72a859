"""Everything the executions page draws from one slice of executions, built in one go.

The page asks `cache.built` for this once per input (its query, the statuses it narrows to and
when the data was loaded), so a rerun that changed nothing (a click elsewhere, the same view
opened again) redraws from what is already made instead of recomputing KPIs, figures, the
display table and its CSV from 70,000 rows. What only a closed tab shows (the per-day status
chart) is made the first time that tab is opened, then kept with the rest.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

import pandas as pd

from dashboard.analytics import executions as execution_analytics
from dashboard.present import charts, runtime_chart, tables
from dashboard.present.chart_data import Chart

T = TypeVar("T")


class Deferred(Generic[T]):
    """A part of a view made when first asked for, then kept. The view is shared between
    reruns and viewers (`cache.built`), so two asking at once make it once."""

    def __init__(self, make: Callable[[], T]) -> None:
        self._make: Callable[[], T] | None = make
        self._value: T | None = None
        self._lock = threading.Lock()

    @property
    def made(self) -> bool:
        return self._make is None

    def __call__(self) -> T:
        with self._lock:
            if self._make is not None:
                self._value, self._make = self._make(), None
            return self._value  # type: ignore[return-value]


@dataclass(frozen=True)
class ExecutionsView:
    kpis: execution_analytics.ExecutionKpis
    # Above `charts.EXECUTION_BAR_LIMIT` executions the status chart draws one bar per plan
    # (the whole period) instead of one per execution.
    status_by_plan: bool
    plans_drawn: int  # bars of the per-plan chart (0 when it draws executions)
    status_chart: Chart
    status_per_day: Deferred[Chart]
    runtime: Chart
    runtime_aggregated: bool  # the runtime chart draws daily medians per plan
    pass_rate: Chart
    table: tables.PreparedTable


def executions_view(
    executions: pd.DataFrame,
    status_counts: pd.DataFrame,
    *,
    tz: str = "UTC",
    outages: Mapping[int, str] | None = None,
    left_out: Collection[int] = frozenset(),
) -> ExecutionsView:
    """The page's KPIs, charts and table. `outages` (execution id -> "likely outage" or
    "outage") are flagged in the table's Status, which lists every execution; `left_out` (the
    outages the viewer has not included) are counted among the executions and left out of the
    other KPIs and of every chart."""
    table_rows, table_counts = executions, status_counts
    executions, status_counts = execution_analytics.without_executions(
        executions, status_counts, left_out
    )
    by_plan = len(executions) > charts.EXECUTION_BAR_LIMIT
    status_chart = (
        charts.status_per_plan_chart(status_counts, executions)
        if by_plan
        else charts.status_per_execution_chart(status_counts, executions, tz=tz)
    )
    return ExecutionsView(
        kpis=execution_analytics.execution_kpis(table_rows, left_out=left_out),
        status_by_plan=by_plan,
        plans_drawn=len(status_chart.figure.layout.yaxis.categoryarray or ()) if by_plan else 0,
        status_chart=status_chart,
        # Charts count and show days and times in the viewer's zone, as the tables do.
        status_per_day=Deferred(
            lambda: charts.status_per_day_chart(
                execution_analytics.status_counts_per_day(status_counts, tz=tz)
            )
        ),
        runtime=runtime_chart.runtime_trend_chart(executions, tz=tz),
        runtime_aggregated=runtime_chart.runtime_is_aggregated(executions),
        pass_rate=charts.pass_rate_chart(execution_analytics.pass_rate_per_day(executions, tz=tz)),
        # The newest rows only are built for the page (executions come newest first); the
        # whole table only if its CSV is asked for.
        table=tables.PreparedTable(
            lambda rows: tables.executions_display(
                table_rows if rows is None else table_rows.head(rows),
                table_counts,
                outages=outages,
            ),
            rows=len(table_rows),
            shown_rows=tables.TABLE_ROW_LIMIT,
            tz=tz,
        ),
    )
