"""The executions page's result charts: results by status (per execution, per plan, per day)
and the pass rate per day. DataFrame -> plotly Figure builders; pure (no Streamlit, no I/O), so
tests assert on figures. Each chart has its text alternative beside it (`..._text`): what it
shows and its main finding, in one sentence. Names from the service pass through
`chart_style.literal`. The runtime chart is `runtime_chart`'s; the results page's charts are
`results_charts`'.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from dashboard.analytics.verdicts import is_failing, ordered_statuses
from dashboard.present.chart_data import Chart
from dashboard.present.chart_style import (
    HEIGHT,
    day_span,
    day_text,
    layout,
    literal,
    literals,
    wall_days,
    when,
    zone_of,
)
from dashboard.present.colors import TREND_COLOR, status_color, status_pattern
from dashboard.present.formatting import percent, plural, visible_text

EXECUTION_BAR_LIMIT = 200
"""Most executions drawn as bars of their own; above it the status chart draws one bar per plan
over the whole period (`status_per_plan`) and the page says so."""


def status_per_execution(
    status_counts: pd.DataFrame, executions: pd.DataFrame, *, tz: str = "UTC"
) -> go.Figure:
    """Stacked result counts per execution, oldest on the left, one colour per status; each
    bar's hover says its plan and start time in `tz`."""
    ordered = executions.sort_values(["start", "execution_id"], na_position="first")
    labels = {int(i): f"#{int(i)}" for i in ordered["execution_id"]}
    details = {
        int(row.execution_id): f"{literal(row.plan)}<br>{when(row.start, tz)}"
        for row in ordered.itertuples(index=False)
    }
    categories = list(labels.values())
    fig = go.Figure()
    for status in ordered_statuses(status_counts["status"]):
        rows = status_counts[status_counts["status"] == status]
        ids = [int(i) for i in rows["execution_id"]]
        fig.add_trace(
            go.Bar(
                name=literal(status),
                x=[labels.get(i, f"#{i}") for i in ids],
                y=rows["count"].tolist(),
                marker_color=status_color(status),
                marker_pattern=status_pattern(status),
                customdata=[details.get(i, "") for i in ids],
                hovertemplate="%{x} %{customdata}<br>" + literal(status) + ": %{y}<extra></extra>",
            )
        )
    fig.update_layout(barmode="stack")
    fig.update_xaxes(type="category", categoryorder="array", categoryarray=categories)
    return layout(fig, y_title="Results", x_title="Execution (oldest to newest)")


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
    """The period's results by status, one horizontal stacked bar per plan (the plans read top
    to bottom by name): what a chart of every execution becomes above `EXECUTION_BAR_LIMIT`,
    tens of bars however many executions. Each bar's hover says its plan, the status's
    results and the plan's executions."""
    return _status_per_plan(plan_status_totals(status_counts, executions))


def _status_per_plan(totals: pd.DataFrame) -> go.Figure:
    """`status_per_plan` of its `plan_status_totals`."""
    labels = list(dict.fromkeys(totals["label"]))
    fig = go.Figure()
    for status in ordered_statuses(totals["status"]):
        rows = totals[totals["status"] == status]
        fig.add_trace(
            go.Bar(
                name=literal(status),
                orientation="h",
                y=literals(rows["label"]),
                x=rows["count"].tolist(),
                marker_color=status_color(status),
                marker_pattern=status_pattern(status),
                customdata=rows["executions"].tolist(),
                hovertemplate=(
                    "%{y}<br>" + literal(status) + ": %{x} results<br>"
                    "%{customdata} executions<extra></extra>"
                ),
            )
        )
    fig.update_layout(barmode="stack")
    fig.update_yaxes(
        type="category", categoryorder="array", categoryarray=literals(labels), autorange="reversed"
    )
    layout(fig, y_title="Plan", x_title="Results")
    fig.update_yaxes(title_text=None)
    fig.update_xaxes(rangemode="tozero")
    fig.update_layout(height=max(HEIGHT, 90 + 26 * len(labels)))
    return fig


def status_per_day(per_day: pd.DataFrame) -> go.Figure:
    """Stacked result counts per day (of `status_counts_per_day`, in its zone), one colour per
    status."""
    fig = go.Figure()
    for status in ordered_statuses(per_day["status"]):
        rows = per_day[per_day["status"] == status]
        fig.add_trace(
            go.Bar(
                name=literal(status),
                x=wall_days(rows["day"]),
                y=rows["count"].tolist(),
                marker_color=status_color(status),
                marker_pattern=status_pattern(status),
                hovertemplate="%{x|%d %b %Y}<br>" + literal(status) + ": %{y}<extra></extra>",
            )
        )
    fig.update_layout(barmode="stack")
    fig.update_xaxes(type="date", tickformat="%d %b")
    return layout(fig, y_title="Results", x_title=f"Day ({zone_of(per_day['day'])})")


def pass_rate_trend(per_day: pd.DataFrame) -> go.Figure:
    """Daily pass rate (passed results / results with a verdict), 0-100 %."""
    rows = per_day.dropna(subset=["pass_rate"])
    fig = go.Figure(
        go.Scatter(
            name="Pass rate",
            x=wall_days(rows["day"]),
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
    return layout(fig, y_title="Pass rate", x_title=f"Day ({zone_of(per_day['day'])})")


# -- text alternatives ----------------------------------------------------------------------------


def _failures(counts: pd.DataFrame) -> pd.DataFrame:
    """The rows of failing statuses (FAILURE, ERROR) of a frame of status counts."""
    return counts[counts["status"].map(is_failing).astype("bool")]


def _totals(counts: pd.DataFrame) -> str:
    failed = int(_failures(counts)["count"].sum())
    return f"{plural(int(counts['count'].sum()), 'result')}, {failed:,} failed or broke"


def status_per_execution_text(
    status_counts: pd.DataFrame, executions: pd.DataFrame, *, tz: str = "UTC"
) -> str:
    """What `status_per_execution` shows: "Results by status of 42 executions, 24 Oct - 23
    Nov: 1,234 results, 56 failed or broke; most in #295 of Checkout (12)."""
    head = f"Results by status of {plural(len(executions), 'execution')}"
    starts = executions["start"].dropna()
    if not starts.empty:
        head += f", {day_span(starts.dt.tz_convert(tz))}"
    shown = status_counts[status_counts["execution_id"].isin(executions["execution_id"])]
    per_execution = _failures(shown).groupby("execution_id")["count"].sum()
    if per_execution.empty or per_execution.max() == 0:
        return f"{head}: {_totals(shown)}; none failed."
    worst = int(per_execution.idxmax())
    plan = executions.loc[executions["execution_id"] == worst, "plan"].iloc[0]
    return (
        f"{head}: {_totals(shown)}; most in #{worst} of {visible_text(plan, one_line=True)} "
        f"({int(per_execution.max()):,})."
    )


def status_per_plan_text(status_counts: pd.DataFrame, executions: pd.DataFrame) -> str:
    """What `status_per_plan` shows: "Results by status of 12 plans, 70,000 executions:
    1,234,000 results, 5,600 failed or broke; most in Checkout (1,200 of 40,000)."""
    return _status_per_plan_text(plan_status_totals(status_counts, executions), len(executions))


def _status_per_plan_text(totals: pd.DataFrame, executions: int) -> str:
    """`status_per_plan_text` of its `plan_status_totals` over `executions` executions."""
    plans = totals["label"].nunique()
    head = f"Results by status of {plural(plans, 'plan')}, {plural(executions, 'execution')}"
    per_plan = _failures(totals).groupby("label")["count"].sum()
    if per_plan.empty or per_plan.max() == 0:
        return f"{head}: {_totals(totals)}; none failed."
    worst = str(per_plan.idxmax())
    of_worst = int(totals.loc[totals["label"] == worst, "count"].sum())
    return (
        f"{head}: {_totals(totals)}; most in {visible_text(worst, one_line=True)} "
        f"({int(per_plan.max()):,} of {of_worst:,})."
    )


def status_per_day_text(per_day: pd.DataFrame) -> str:
    """What `status_per_day` shows: "Results by status per day, 24 Oct - 23 Nov: 1,234
    results, 56 failed or broke; most on 12 Nov (20)."""
    if per_day.empty:
        return "Results by status per day: no results in this slice."
    head = f"Results by status per day, {day_span(per_day['day'])}"
    per = _failures(per_day).groupby("day")["count"].sum()
    if per.empty or per.max() == 0:
        return f"{head}: {_totals(per_day)}; none failed."
    return f"{head}: {_totals(per_day)}; most on {day_text(per.idxmax())} ({int(per.max()):,})."


def pass_rate_text(per_day: pd.DataFrame) -> str:
    """What `pass_rate_trend` shows: "Pass rate per day, 24 Oct - 23 Nov: lowest 71.0 % on
    12 Nov; latest 95.2 % on 23 Nov." (the first lowest day when several tie)."""
    rated = per_day.dropna(subset=["pass_rate"]).sort_values("day")
    if rated.empty:
        return "Pass rate per day: no day in this slice has a result with a verdict."
    head = f"Pass rate per day, {day_span(rated['day'])}"
    if len(rated) == 1:
        only = rated.iloc[0]
        return f"{head}: {percent(only['pass_rate'])}."
    lowest = rated.loc[rated["pass_rate"].idxmin()]
    latest = rated.iloc[-1]
    if lowest["day"] == latest["day"]:
        return f"{head}: lowest on the latest day, {percent(latest['pass_rate'])} on " + (
            f"{day_text(latest['day'])}."
        )
    return (
        f"{head}: lowest {percent(lowest['pass_rate'])} on {day_text(lowest['day'])}; "
        f"latest {percent(latest['pass_rate'])} on {day_text(latest['day'])}."
    )


# -- each chart with its name, text alternative and table columns --------------------------------


def status_per_execution_chart(
    status_counts: pd.DataFrame, executions: pd.DataFrame, *, tz: str = "UTC"
) -> Chart:
    return Chart(
        "Results by status per execution",
        status_per_execution(status_counts, executions, tz=tz),
        status_per_execution_text(status_counts, executions, tz=tz),
        {"series": "Status", "x": "Execution"},
    )


def status_per_plan_chart(status_counts: pd.DataFrame, executions: pd.DataFrame) -> Chart:
    totals = plan_status_totals(status_counts, executions)  # once for both
    return Chart(
        "Results by status per plan",
        _status_per_plan(totals),
        _status_per_plan_text(totals, len(executions)),
        {"series": "Status"},
    )


def status_per_day_chart(per_day: pd.DataFrame) -> Chart:
    return Chart(
        "Results by status per day",
        status_per_day(per_day),
        status_per_day_text(per_day),
        {"series": "Status"},
    )


def pass_rate_chart(per_day: pd.DataFrame) -> Chart:
    return Chart("Pass rate per day", pass_rate_trend(per_day), pass_rate_text(per_day))
