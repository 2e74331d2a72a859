"""DataFrame -> plotly Figure builders. Pure: no Streamlit, no I/O, so tests assert on figures.

Plotly renders a subset of HTML in labels and hover text (`<b>`, `<a href>`), so every name that
comes from the service passes through `_text` first and is shown literally.
"""

from __future__ import annotations

import html
from collections.abc import Iterable

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dashboard.analytics.executions import local_days
from dashboard.analytics.results import OUTCOME_ORDER
from dashboard.analytics.verdicts import ordered_statuses
from dashboard.present.colors import OUTCOME_COLORS, TREND_COLOR, plan_color, status_color
from dashboard.present.formatting import duration_unit, human_duration, visible_text

EXECUTION_BAR_LIMIT = 200
"""Most executions drawn as bars of their own; above it the status chart draws one bar per plan
over the whole window (`status_per_plan`) and the page says so."""
WEBGL_POINTS = 2_000
"""Above this many points a line chart is drawn with WebGL."""
RUNTIME_POINT_LIMIT = 5_000
"""Above this many executions the runtime chart draws each plan's daily median instead of
every execution: light to send and draw, and readable (70,000 markers are a blob)."""
_HEIGHT = 360


def _text(value: object) -> str:
    """A value as literal text for plotly: HTML-escaped, missing values as an en dash."""
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return "\u2013"
    return html.escape(visible_text(value), quote=False)


def _texts(values: Iterable[object]) -> list[str]:
    return [_text(v) for v in values]


def _layout(fig: go.Figure, *, y_title: str, x_title: str | None = None) -> go.Figure:
    fig.update_layout(
        height=_HEIGHT,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "x": 0, "traceorder": "normal"},
        hovermode="closest",
    )
    fig.update_yaxes(title_text=y_title, rangemode="tozero")
    if x_title is not None:
        fig.update_xaxes(title_text=x_title)
    return fig


def status_per_execution(
    status_counts: pd.DataFrame, executions: pd.DataFrame, *, tz: str = "UTC"
) -> go.Figure:
    """Stacked result counts per execution, oldest on the left, one colour per status; each
    bar's hover says its plan and start time in `tz`."""
    ordered = executions.sort_values(["start", "execution_id"], na_position="first")
    labels = {int(i): f"#{int(i)}" for i in ordered["execution_id"]}
    details = {
        int(row.execution_id): f"{_text(row.plan)}<br>{_when(row.start, tz)}"
        for row in ordered.itertuples(index=False)
    }
    categories = list(labels.values())
    fig = go.Figure()
    for status in ordered_statuses(status_counts["status"]):
        rows = status_counts[status_counts["status"] == status]
        ids = [int(i) for i in rows["execution_id"]]
        fig.add_trace(
            go.Bar(
                name=_text(status),
                x=[labels.get(i, f"#{i}") for i in ids],
                y=rows["count"].tolist(),
                marker_color=status_color(status),
                customdata=[details.get(i, "") for i in ids],
                hovertemplate="%{x} %{customdata}<br>" + _text(status) + ": %{y}<extra></extra>",
            )
        )
    fig.update_layout(barmode="stack")
    fig.update_xaxes(type="category", categoryorder="array", categoryarray=categories)
    return _layout(fig, y_title="Results", x_title="Execution (oldest to newest)")


def plan_status_totals(status_counts: pd.DataFrame, executions: pd.DataFrame) -> pd.DataFrame:
    """Every execution's result counts summed per plan and status: columns `plan_id`, `plan`,
    `label` (the plan's name, with its id when two plans share a name), `status`, `count`
    (results) and `executions` (the plan's executions in `executions`, whatever their
    statuses). Plans by name, statuses in their fixed order. Counts of executions not in
    `executions` are left out; a plan without a name is an en dash.

    Vectorised: 70,000 executions and their counts are one merge and two group-bys."""
    plans = executions[["execution_id", "plan_id", "plan"]].copy()
    plans["plan"] = plans["plan"].fillna("\u2013").astype(str)
    plans["plan_id"] = plans["plan_id"].astype("Int64")
    runs = plans.groupby(["plan_id", "plan"], dropna=False, sort=False).size()
    counts = status_counts[["execution_id", "status", "count"]].merge(
        plans, on="execution_id", how="inner"
    )
    totals = (
        counts.groupby(["plan_id", "plan", "status"], dropna=False, sort=False)["count"]
        .sum()
        .reset_index()
    )
    totals["executions"] = [
        int(runs[(plan_id, plan)])
        for plan_id, plan in zip(totals["plan_id"], totals["plan"], strict=True)
    ]
    # The plan's name, and its id only where a name alone would merge two plans' bars.
    names = runs.reset_index()[["plan_id", "plan"]]
    shared = set(names.loc[names["plan"].duplicated(keep=False), "plan"])
    totals["label"] = [
        f"{plan} (plan {'?' if pd.isna(plan_id) else int(plan_id)})" if plan in shared else plan
        for plan_id, plan in zip(totals["plan_id"], totals["plan"], strict=True)
    ]
    order = {status: i for i, status in enumerate(ordered_statuses(totals["status"]))}
    totals = totals.assign(_order=totals["status"].map(order)).sort_values(
        ["label", "_order"], kind="stable"
    )
    columns = ["plan_id", "plan", "label", "status", "count", "executions"]
    return totals[columns].astype({"count": "int64", "executions": "int64"}).reset_index(drop=True)


def status_per_plan(status_counts: pd.DataFrame, executions: pd.DataFrame) -> go.Figure:
    """The window's results by status, one horizontal stacked bar per plan (the plans read top
    to bottom by name): what a chart of every execution becomes above `EXECUTION_BAR_LIMIT`,
    tens of bars however many executions. Each bar's hover says its plan, the status's
    results and the plan's executions."""
    totals = plan_status_totals(status_counts, executions)
    labels = list(dict.fromkeys(totals["label"]))
    fig = go.Figure()
    for status in ordered_statuses(totals["status"]):
        rows = totals[totals["status"] == status]
        fig.add_trace(
            go.Bar(
                name=_text(status),
                orientation="h",
                y=_texts(rows["label"]),
                x=rows["count"].tolist(),
                marker_color=status_color(status),
                customdata=rows["executions"].tolist(),
                hovertemplate=(
                    "%{y}<br>" + _text(status) + ": %{x} results<br>"
                    "%{customdata} executions<extra></extra>"
                ),
            )
        )
    fig.update_layout(barmode="stack")
    fig.update_yaxes(
        type="category", categoryorder="array", categoryarray=_texts(labels), autorange="reversed"
    )
    _layout(fig, y_title="Plan", x_title="Results")
    fig.update_yaxes(title_text=None)
    fig.update_xaxes(rangemode="tozero")
    fig.update_layout(height=max(_HEIGHT, 90 + 26 * len(labels)))
    return fig


def status_per_day(per_day: pd.DataFrame) -> go.Figure:
    """Stacked result counts per day (of `status_counts_per_day`, in its zone), one colour per
    status."""
    fig = go.Figure()
    for status in ordered_statuses(per_day["status"]):
        rows = per_day[per_day["status"] == status]
        fig.add_trace(
            go.Bar(
                name=_text(status),
                x=_wall_days(rows["day"]),
                y=rows["count"].tolist(),
                marker_color=status_color(status),
                hovertemplate="%{x|%d %b %Y}<br>" + _text(status) + ": %{y}<extra></extra>",
            )
        )
    fig.update_layout(barmode="stack")
    fig.update_xaxes(type="date", tickformat="%d %b")
    return _layout(fig, y_title="Results", x_title=f"Day ({_zone_of(per_day['day'])})")


def runtime_trend(executions: pd.DataFrame, *, tz: str = "UTC") -> go.Figure:
    """Execution runtime over time, one line per plan, in the unit that suits the data; start
    times on the axis and in the hover are wall-clock times in `tz`.

    Executions with any result that has no verdict (still waiting or running, or a status this
    dashboard cannot read) are left out: a runtime so far would read as a sudden speed-up.
    Above `RUNTIME_POINT_LIMIT` executions, each point is a plan's median runtime on a calendar
    day in `tz`, its hover the 10th-90th percentile band and the count (`runtime_is_aggregated`
    says so).
    """
    timed = _timed(executions)
    seconds = timed["runtime_ms"].astype("float64") / 1000
    unit, per_unit = duration_unit(float(seconds.max()) if not seconds.empty else 0.0)
    if len(timed) > RUNTIME_POINT_LIMIT:
        fig = _runtime_per_day(timed.assign(seconds=seconds), unit, per_unit, tz=tz)
    else:
        fig = _runtime_points(timed.assign(seconds=seconds), per_unit, tz=tz)
    fig.update_xaxes(type="date", tickformat="%d %b")
    _layout(fig, y_title=f"Runtime ({unit})", x_title=f"Start ({tz})")
    # Plan names are long and many: a legend at the side leaves the plot its height.
    fig.update_layout(legend={"orientation": "v", "x": 1.02, "y": 1, "yanchor": "top"})
    return fig


def runtime_is_aggregated(executions: pd.DataFrame) -> bool:
    """Whether `runtime_trend` draws daily medians per plan rather than each execution."""
    return len(_timed(executions)) > RUNTIME_POINT_LIMIT


def _timed(executions: pd.DataFrame) -> pd.DataFrame:
    unfinished = executions["results"] > executions["verdicts"]
    if "finished" in executions:  # a running execution's runtime so far is no runtime
        unfinished = unfinished | ~executions["finished"].astype("bool")
    return executions[~unfinished].dropna(subset=["start", "runtime_ms"]).sort_values("start")


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
        color = plan_color(rows["plan_id"].iloc[0]) if "plan_id" in rows else None
        fig.add_trace(
            trace(
                name=_text(plan),
                line_color=color,
                marker_color=color,
                # Wall-clock times in `tz`, as the axis says (plotly draws naive times as given).
                x=rows["start"].dt.tz_convert(tz).dt.tz_localize(None).to_numpy(),
                y=(rows["seconds"] / per_unit).round(2).to_numpy(),
                mode="lines+markers",
                customdata=labels,
                hovertemplate=(
                    _text(plan) + " %{customdata[0]}<br>%{x|%d %b %H:%M}<br>%{customdata[1]}"
                    "<extra></extra>"
                ),
            )
        )
    return fig


def _runtime_per_day(
    timed: pd.DataFrame, unit: str, per_unit: float, *, tz: str = "UTC"
) -> go.Figure:
    """One point per plan and calendar day in `tz`: the median runtime, the 10th-90th percentile
    and the count in its hover. Tens of thousands of executions become a few hundred points."""
    groups = timed.assign(day=_wall_days(local_days(timed["start"], tz))).groupby(
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
        color = plan_color(rows["plan_id"].iloc[0])
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
                name=_text(plan),
                line_color=color,
                marker_color=color,
                x=rows["day"].to_numpy(),
                y=(rows["median"] / per_unit).round(2).to_numpy(),
                mode="lines+markers",
                customdata=labels,
                hovertemplate=(
                    _text(plan) + "<br>%{x|%d %b %Y}: median %{customdata[0]}<br>"
                    "10th-90th percentile %{customdata[1]} to %{customdata[2]}<br>"
                    "%{customdata[3]} executions<extra></extra>"
                ),
            )
        )
    return fig


def pass_rate_trend(per_day: pd.DataFrame) -> go.Figure:
    """Daily pass rate (passed results / results with a verdict), 0-100 %."""
    rows = per_day.dropna(subset=["pass_rate"])
    fig = go.Figure(
        go.Scatter(
            name="Pass rate",
            x=_wall_days(rows["day"]),
            y=(rows["pass_rate"] * 100).round(1).tolist(),
            mode="lines+markers",
            line_color=TREND_COLOR,
            customdata=rows[["passed", "verdicts", "executions"]].to_numpy().tolist(),
            hovertemplate=(
                "%{x|%d %b %Y}<br>%{y:.1f} % passed<br>"
                "%{customdata[0]} of %{customdata[1]} results with a verdict, "
                "%{customdata[2]} executions"
                "<extra></extra>"
            ),
        )
    )
    fig.update_xaxes(type="date", tickformat="%d %b")
    fig.update_yaxes(range=[0, 105], ticksuffix=" %")
    return _layout(fig, y_title="Pass rate", x_title=f"Day ({_zone_of(per_day['day'])})")


def level_breakdown(levels: pd.DataFrame) -> go.Figure:
    """How many results have each level, one bar per level in the status colours."""
    fig = go.Figure(
        go.Bar(
            x=levels["count"].tolist(),
            y=_texts(levels["level"]),
            orientation="h",
            marker_color=[status_color(str(level)) for level in levels["level"]],
            hovertemplate="%{y}: %{x}<extra></extra>",
        )
    )
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_layout(height=max(160, 60 + 40 * len(levels)), showlegend=False)
    fig.update_layout(margin={"l": 10, "r": 10, "t": 10, "b": 10})
    fig.update_xaxes(title_text="Results", rangemode="tozero")
    return fig


def environment_matrix(matrix: pd.DataFrame) -> go.Figure:
    """OS x browser heatmap coloured by outcome, each cell labelled "passed/results"."""
    oses = sorted(matrix["os"].unique().tolist())
    browsers = sorted(matrix["browser"].unique().tolist())
    code = {outcome: i for i, outcome in enumerate(OUTCOME_ORDER)}
    z: list[list[float | None]] = [[None] * len(browsers) for _ in oses]
    text: list[list[str]] = [[""] * len(browsers) for _ in oses]
    for row in matrix.itertuples(index=False):
        r, c = oses.index(row.os), browsers.index(row.browser)
        z[r][c] = code.get(str(row.outcome), code["no verdict"])
        text[r][c] = f"{row.passed}/{row.results} passed<br>{row.outcome}"
    # A stepped colour scale: each outcome code gets exactly its own colour.
    n = len(OUTCOME_ORDER)
    scale: list[list[float | str]] = []
    for i, outcome in enumerate(OUTCOME_ORDER):
        scale += [[i / n, OUTCOME_COLORS[outcome]], [(i + 1) / n, OUTCOME_COLORS[outcome]]]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=_texts(browsers),
            y=_texts(oses),
            text=text,
            texttemplate="%{text}",
            hovertemplate="%{y} / %{x}<br>%{text}<extra></extra>",
            colorscale=scale,
            zmin=-0.5,
            zmax=n - 0.5,
            showscale=False,
            xgap=3,
            ygap=3,
        )
    )
    fig.update_xaxes(type="category", side="top")
    fig.update_yaxes(type="category", autorange="reversed")
    fig.update_layout(
        height=max(200, 90 + 55 * len(oses)), margin={"l": 10, "r": 10, "t": 40, "b": 10}
    )
    return fig


def _when(value: object, tz: str = "UTC") -> str:
    if value is None or pd.isna(value):
        return "no start time"
    stamp = pd.Timestamp(value)
    stamp = (stamp.tz_localize("UTC") if stamp.tzinfo is None else stamp).tz_convert(tz)
    return f"{stamp:%d %b %Y %H:%M} {tz}"


def _wall_days(days: pd.Series) -> list[pd.Timestamp]:
    """Days (aware first instants) as naive wall-clock midnights: plotly draws a naive time as
    given, so a Tokyo day sits on its own date, not on the UTC instant it begins at."""
    if isinstance(days.dtype, pd.DatetimeTZDtype):
        days = days.dt.tz_localize(None)
    return days.tolist()


def _zone_of(days: pd.Series) -> str:
    """The zone a column of days is counted in ("UTC" for naive ones)."""
    dtype = days.dtype
    return str(dtype.tz) if isinstance(dtype, pd.DatetimeTZDtype) else "UTC"
