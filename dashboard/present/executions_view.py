"""Everything the executions page draws from one slice of executions, built in one go.

The page asks `cache.built` for this once per input (its query, the statuses it narrows to and
when the data was loaded), so a rerun that changed nothing (a click elsewhere, the same view
opened again) redraws from what is already made instead of recomputing KPIs, figures, the
display table and its CSV from 70,000 rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import plotly.graph_objects as go

from dashboard.analytics import executions as execution_analytics
from dashboard.present import charts, tables


@dataclass(frozen=True)
class ExecutionsView:
    kpis: execution_analytics.ExecutionKpis
    latest_drawn: int  # executions drawn in the per-execution chart (the newest)
    status_per_execution: go.Figure
    status_per_day: go.Figure
    runtime: go.Figure
    runtime_aggregated: bool  # the runtime chart draws daily medians per plan
    pass_rate: go.Figure
    table: tables.PreparedTable


def executions_view(
    executions: pd.DataFrame, status_counts: pd.DataFrame, *, tz: str = "UTC"
) -> ExecutionsView:
    latest, latest_counts = execution_analytics.latest_executions(
        executions, status_counts, charts.EXECUTION_BAR_LIMIT
    )
    return ExecutionsView(
        kpis=execution_analytics.execution_kpis(executions),
        latest_drawn=len(latest),
        status_per_execution=charts.status_per_execution(latest_counts, latest, tz=tz),
        # Charts count and show days and times in the viewer's zone, as the tables do.
        status_per_day=charts.status_per_day(
            execution_analytics.status_counts_per_day(status_counts, tz=tz)
        ),
        runtime=charts.runtime_trend(executions, tz=tz),
        runtime_aggregated=charts.runtime_is_aggregated(executions),
        pass_rate=charts.pass_rate_trend(execution_analytics.pass_rate_per_day(executions, tz=tz)),
        # The newest rows only are built for the page (executions come newest first); the
        # whole table only if its CSV is asked for.
        table=tables.PreparedTable(
            lambda rows: tables.executions_display(
                executions if rows is None else executions.head(rows), status_counts
            ),
            rows=len(executions),
            shown_rows=tables.TABLE_ROW_LIMIT,
            tz=tz,
        ),
    )
