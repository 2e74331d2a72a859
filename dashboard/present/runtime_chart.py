"""The executions page's runtime chart: each execution's runtime over time, one line per plan,
or each plan's daily median when there are too many executions to draw one by one."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dashboard.analytics.executions import local_days
from dashboard.present.chart_data import Chart
from dashboard.present.chart_style import day_span, day_text, layout, literal, wall_day_column
from dashboard.present.colors import plan_color, plan_symbol
from dashboard.present.formatting import duration_unit, human_duration, plural, visible_text

WEBGL_POINTS = 2_000
"""Above this many points a line chart is drawn with WebGL."""
RUNTIME_POINT_LIMIT = 5_000
"""Above this many executions the runtime chart draws each plan's daily median instead of
every execution: light to send and draw, and readable (70,000 markers are a blob)."""


def runtime_trend(executions: pd.DataFrame, *, tz: str = "UTC") -> go.Figure:
    """Execution runtime over time, one line per plan, in the unit that suits the data; start
    times on the axis and in the hover are wall-clock times in `tz`.

    Executions with any result that has no verdict (still waiting or running, or a status this
    dashboard cannot read) are left out: a runtime so far would read as a sudden speed-up.
    Above `RUNTIME_POINT_LIMIT` executions, each point is a plan's median runtime on a calendar
    day in `tz`, its hover the 10th-90th percentile band and the count (`runtime_is_aggregated`
    says so).
    """
    return _trend(_timed(executions), tz=tz)


def _trend(timed: pd.DataFrame, *, tz: str) -> go.Figure:
    """`runtime_trend` of the executions `_timed` keeps."""
    seconds = timed["runtime_ms"].astype("float64") / 1000
    unit, per_unit = duration_unit(float(seconds.max()) if not seconds.empty else 0.0)
    if len(timed) > RUNTIME_POINT_LIMIT:
        fig = _runtime_per_day(timed.assign(seconds=seconds), unit, per_unit, tz=tz)
    else:
        fig = _runtime_points(timed.assign(seconds=seconds), per_unit, tz=tz)
    fig.update_xaxes(type="date", tickformat="%d %b")
    layout(fig, y_title=f"Runtime ({unit})", x_title=f"Start ({tz})")
    # Plan names are long and many: a legend at the side leaves the plot its height.
    fig.update_layout(legend={"orientation": "v", "x": 1.02, "y": 1, "yanchor": "top"})
    return fig


def runtime_is_aggregated(executions: pd.DataFrame) -> bool:
    """Whether `runtime_trend` draws daily medians per plan rather than each execution."""
    return int(_timed_rows(executions).sum()) > RUNTIME_POINT_LIMIT


def _timed_rows(executions: pd.DataFrame) -> pd.Series:
    """Which executions have a runtime to draw: finished, every result with a verdict, a start
    and a runtime."""
    unfinished = executions["results"] > executions["verdicts"]
    if "finished" in executions:  # a running execution's runtime so far is no runtime
        unfinished = unfinished | ~executions["finished"].astype("bool")
    return ~unfinished & executions["start"].notna() & executions["runtime_ms"].notna()


def _timed(executions: pd.DataFrame) -> pd.DataFrame:
    """The executions `_timed_rows` keeps, oldest first."""
    return executions[_timed_rows(executions)].sort_values("start")


def _runtime_points(timed: pd.DataFrame, per_unit: float, *, tz: str = "UTC") -> go.Figure:
    # Thousands of points: numpy arrays skip plotly's per-item checks (seconds saved on every
    # rerun), and WebGL draws them where SVG would stall the browser.
    trace = go.Scattergl if len(timed) > WEBGL_POINTS else go.Scatter
    fig = go.Figure()
    for plan, rows in timed.groupby("plan", dropna=False, sort=True):
        labels = np.column_stack(
            [
                ("#" + rows["execution_id"].astype("int64").astype(str)).to_numpy(dtype=object),
                rows["seconds"].map(human_duration).to_numpy(dtype=object),
            ]
        )
        plan_id = rows["plan_id"].iloc[0] if "plan_id" in rows else None
        color = plan_color(plan_id) if plan_id is not None else None
        fig.add_trace(
            trace(
                name=literal(plan),
                line_color=color,
                marker_color=color,
                marker_symbol=plan_symbol(plan_id),
                # Wall-clock times in `tz`, as the axis says (plotly draws naive times as given).
                x=rows["start"].dt.tz_convert(tz).dt.tz_localize(None).to_numpy(),
                y=(rows["seconds"] / per_unit).round(2).to_numpy(),
                mode="lines+markers",
                customdata=labels,
                hovertemplate=(
                    literal(plan) + " %{customdata[0]}<br>%{x|%d %b %H:%M}<br>%{customdata[1]}"
                    "<extra></extra>"
                ),
            )
        )
    return fig


def runtime_text(executions: pd.DataFrame, *, tz: str = "UTC") -> str:
    """What `runtime_trend` shows, and its longest point: "Runtime per execution of 5 plans,
    24 Oct - 23 Nov: longest 28 min 14 s, #295 of Checkout on 12 Nov." (daily medians when
    the chart draws those)."""
    return _text(_timed(executions), tz=tz)


def _text(timed: pd.DataFrame, *, tz: str) -> str:
    """`runtime_text` of the executions `_timed` keeps."""
    if timed.empty:
        return "Runtime per execution: no finished execution in this slice."
    plans = plural(timed["plan"].nunique(dropna=False), "plan")
    starts = timed["start"].dt.tz_convert(tz)
    span = day_span(starts)
    if len(timed) > RUNTIME_POINT_LIMIT:
        medians = (
            timed.assign(day=local_days(timed["start"], tz), seconds=timed["runtime_ms"] / 1000)
            .groupby(["plan", "day"], dropna=False)["seconds"]
            .median()
        )
        plan, day = medians.idxmax()
        return (
            f"Median runtime per plan and day of {plans}, {span}: highest "
            f"{human_duration(float(medians.max()))}, {visible_text(plan, one_line=True)} on "
            f"{day_text(day)}."
        )
    longest = timed.loc[timed["runtime_ms"].idxmax()]
    return (
        f"Runtime per execution of {plans}, {span}: longest "
        f"{human_duration(float(longest['runtime_ms']) / 1000)}, #{int(longest['execution_id'])} "
        f"of {visible_text(longest['plan'], one_line=True)} on "
        f"{day_text(starts.loc[longest.name])}."
    )


def _runtime_per_day(
    timed: pd.DataFrame, unit: str, per_unit: float, *, tz: str = "UTC"
) -> go.Figure:
    """One point per plan and calendar day in `tz`: the median runtime, the 10th-90th percentile
    and the count in its hover. Tens of thousands of executions become a few hundred points."""
    groups = timed.assign(day=wall_day_column(local_days(timed["start"], tz))).groupby(
        ["plan", "day"], dropna=False, sort=True
    )
    runtime = groups["seconds"]
    daily = pd.DataFrame(
        {
            "plan_id": groups["plan_id"].first(),
            "median": runtime.median(),
            "low": runtime.quantile(0.1),
            "high": runtime.quantile(0.9),
            "runs": runtime.size(),
        }
    ).reset_index()
    fig = go.Figure()
    for plan, rows in daily.groupby("plan", dropna=False, sort=True):
        plan_id = rows["plan_id"].iloc[0]
        color = plan_color(plan_id)
        labels = np.column_stack(
            [
                rows["median"].map(human_duration).to_numpy(dtype=object),
                rows["low"].map(human_duration).to_numpy(dtype=object),
                rows["high"].map(human_duration).to_numpy(dtype=object),
                rows["runs"].to_numpy(dtype=object),
            ]
        )
        fig.add_trace(
            go.Scatter(
                name=literal(plan),
                line_color=color,
                marker_color=color,
                marker_symbol=plan_symbol(plan_id),
                x=rows["day"].to_numpy(),
                y=(rows["median"] / per_unit).round(2).to_numpy(),
                mode="lines+markers",
                customdata=labels,
                hovertemplate=(
                    literal(plan) + "<br>%{x|%d %b %Y}: median %{customdata[0]}<br>"
                    "10th-90th percentile %{customdata[1]} to %{customdata[2]}<br>"
                    "%{customdata[3]} executions<extra></extra>"
                ),
            )
        )
    return fig


def runtime_trend_chart(executions: pd.DataFrame, *, tz: str = "UTC") -> Chart:
    """`runtime_trend` with its name, text alternative and table columns."""
    timed = _timed(executions)  # once for both: sorting 70,000 executions is not free
    return Chart(
        "Runtime per execution", _trend(timed, tz=tz), _text(timed, tz=tz), {"series": "Plan"}
    )
