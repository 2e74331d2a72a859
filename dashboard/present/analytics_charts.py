"""Plotly builders of the scenario analytics pages: the flaky dot timeline, the scenario x
environment heat map, and one scenario's outcome and runtime timelines. Pure (no Streamlit),
with the status colours and symbols of every other chart; names pass through
`chart_style.literal`, so plotly never reads them as HTML. Each chart has its text alternative
beside it (`..._text`): what it shows and its main finding."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd
import plotly.graph_objects as go

from dashboard.analytics.environments import heatmap
from dashboard.analytics.outcomes import FAIL, PASS, WARN
from dashboard.present.chart_data import Chart
from dashboard.present.chart_style import day_span, day_text, layout, literal
from dashboard.present.colors import PLAN_SYMBOLS, STATUS_COLORS, UNKNOWN_STATUS_COLOR
from dashboard.present.formatting import human_duration, percent, plural, visible_text, weekday_time
from dashboard.present.outcome_marks import (
    BUCKET_COLORS,
    OUTCOME_WORDS,
    SEQUENCE_OUTCOMES,
    bucket_label,
    outcome_color,
)

# Marker shapes beside the colours, so an outcome reads without colour vision too.
_MARKERS = {PASS: "circle", FAIL: "x", WARN: "triangle-up", None: "circle-open"}
_ROW_HEIGHT = 34


def _word(outcome: str | None) -> str:
    return OUTCOME_WORDS.get(outcome, "no verdict") if outcome else "no verdict"


def flaky_timeline(
    rows: pd.DataFrame, positions: pd.DataFrame, labels: list[str], tz: str
) -> go.Figure:
    """One line of dots per listed row (`present.flaky.flaky_rows`), oldest execution on the
    left; `labels` names each row. A missing dot: not run in that execution."""
    fig = go.Figure()
    by_plan = {
        int(plan): group.sort_values("position")
        for plan, group in positions.groupby("plan_id", dropna=True)
    }
    points: dict[str | None, dict[str, list[object]]] = {}
    for label, plan, sequence in zip(labels, rows["plan_id"], rows["sequence"], strict=True):
        plan_positions = by_plan.get(int(plan))
        for index, char in enumerate(str(sequence)):
            if char == "." or plan_positions is None or index >= len(plan_positions):
                continue
            outcome = SEQUENCE_OUTCOMES.get(char)
            execution = plan_positions.iloc[index]
            bucket = points.setdefault(outcome, {"x": [], "y": [], "text": []})
            bucket["x"].append(index + 1)
            bucket["y"].append(literal(label))
            bucket["text"].append(
                f"#{int(execution['execution_id'])}, {_started(execution['start'], tz)}"
            )
    for outcome in (PASS, FAIL, WARN, None):
        if outcome not in points:
            continue
        data = points[outcome]
        fig.add_trace(
            go.Scatter(
                name=_word(outcome),
                x=data["x"],
                y=data["y"],
                mode="markers",
                marker={"color": outcome_color(outcome), "symbol": _MARKERS[outcome], "size": 11},
                customdata=data["text"],
                hovertemplate="%{y}<br>%{customdata}: " + _word(outcome) + "<extra></extra>",
            )
        )
    fig = layout(fig, y_title="", x_title="Execution of the plan's window (oldest to newest)")
    fig.update_yaxes(
        type="category",
        categoryorder="array",
        categoryarray=[literal(label) for label in reversed(labels)],
        rangemode="normal",
    )
    fig.update_layout(height=max(160, 80 + _ROW_HEIGHT * len(labels)))
    return fig


def environment_heatmap(matrix: pd.DataFrame) -> go.Figure:
    """Pass rate per scenario (rows) and environment (columns) of one plan; the counts behind
    each cell on hover. Red is 0 %, amber half, green 100 %; grey where it did not run."""
    grid = heatmap(matrix)
    counts = matrix.set_index(["scenario_id", "environment"])
    hover: list[list[str]] = []
    for scenario in grid.index:
        line = []
        for environment in grid.columns:
            key = (scenario, environment)
            if key in counts.index:
                row = counts.loc[key]
                line.append(
                    f"{int(row['passed'])} passed, {int(row['failed'])} failed, "
                    f"{int(row['warned'])} warnings, {int(row['no_verdict'])} no verdict "
                    f"in {int(row['executions'])} executions"
                )
            else:
                line.append("did not run here")
        hover.append(line)
    y = [f"Scenario {int(s)}" for s in grid.index]
    x = [literal(e) for e in grid.columns]
    fig = go.Figure(
        go.Heatmap(
            z=(grid.to_numpy(dtype="float64") * 100).round(1).tolist(),
            x=x,
            y=y,
            customdata=hover,
            zmin=0,
            zmax=100,
            colorscale=[
                [0.0, STATUS_COLORS["FAILURE"]],
                [0.5, STATUS_COLORS["WARNING"]],
                [1.0, STATUS_COLORS["SUCCESS"]],
            ],
            colorbar={"title": {"text": "Pass %"}},
            # The rate in the cell too, so it is read without telling colours apart.
            texttemplate="%{z:.0f}",
            xgap=2,
            ygap=2,
            hovertemplate="%{y} on %{x}<br>pass rate %{z:.1f} %<br>%{customdata}<extra></extra>",
            hoverongaps=False,
        )
    )
    fig = layout(fig, y_title="", x_title="Environment")
    fig.update_layout(
        height=max(220, 120 + _ROW_HEIGHT * len(y)), plot_bgcolor=UNKNOWN_STATUS_COLOR
    )
    fig.update_yaxes(autorange="reversed", rangemode="normal", type="category")
    fig.update_xaxes(type="category")
    return fig


def scenario_timeline(cells: pd.DataFrame, tz: str) -> go.Figure:
    """One row of dots per environment: the scenario's outcome in every execution."""
    fig = go.Figure()
    for outcome in (PASS, FAIL, WARN, None):
        rows = (
            cells[cells["outcome"].isna()]
            if outcome is None
            else cells[cells["outcome"] == outcome]
        )
        if rows.empty:
            continue
        text = [
            f"#{int(e)}, {weekday_time(s, tz)}"
            + (f"<br>{literal(m)[:160]}" if isinstance(m, str) else "")
            for e, s, m in zip(
                rows["execution_id"], rows["execution_start"], rows["message"], strict=True
            )
        ]
        fig.add_trace(
            go.Scatter(
                name=_word(outcome),
                x=rows["execution_start"].dt.tz_convert(tz).dt.tz_localize(None),
                y=[literal(e) for e in rows["environment"]],
                mode="markers",
                marker={"color": outcome_color(outcome), "symbol": _MARKERS[outcome], "size": 11},
                customdata=text,
                hovertemplate="%{y}<br>%{customdata}<extra></extra>",
            )
        )
    fig = layout(fig, y_title="", x_title=f"Execution start ({tz})")
    fig.update_yaxes(type="category", rangemode="normal")
    environments = cells["environment"].nunique()
    fig.update_layout(height=max(180, 100 + _ROW_HEIGHT * environments))
    return fig


def scenario_runtime(cells: pd.DataFrame, tz: str) -> go.Figure:
    """The scenario's runtime per execution, one line per environment (completed runs: passed
    or warned; a failure often stops early)."""
    fig = go.Figure()
    for position, (environment, rows) in enumerate(
        _completed(cells).groupby("environment", sort=True, observed=True)
    ):
        fig.add_trace(
            go.Scatter(
                name=literal(environment),
                # A shape per environment beside its colour (the legend shows both).
                marker_symbol=PLAN_SYMBOLS[position % len(PLAN_SYMBOLS)],
                x=rows["execution_start"].dt.tz_convert(tz).dt.tz_localize(None),
                y=rows["runtime_s"].astype("float64"),
                mode="lines+markers",
                customdata=[f"#{int(e)}" for e in rows["execution_id"]],
                hovertemplate="%{customdata}<br>%{y:.0f} s<extra>"
                + literal(environment)
                + "</extra>",
            )
        )
    return layout(fig, y_title="Runtime (s)", x_title=f"Execution start ({tz})")


def _completed(cells: pd.DataFrame) -> pd.DataFrame:
    """The runs whose runtime `scenario_runtime` draws: passed or warned, with a runtime."""
    return cells[cells["outcome"].isin([PASS, WARN]) & cells["runtime_s"].notna()]


def labels_for(rows: pd.DataFrame, plan_names: Mapping[int, str]) -> list[str]:
    """Row labels of the flaky timeline: "Plan · Scenario 4 · all environments"."""
    out = []
    for plan, scenario, environment in zip(
        rows["plan_id"], rows["scenario_id"], rows["environment"], strict=True
    ):
        name = plan_names.get(int(plan)) or f"Plan {int(plan)}"
        where = "all environments" if environment is None or pd.isna(environment) else environment
        out.append(f"{name} \u00b7 Scenario {int(scenario)} \u00b7 {where}")
    return out


def bucket_counts(counts: tuple[tuple[str, int], ...]) -> go.Figure:
    """Cells per comparison bucket, most urgent first, in the buckets' status colours."""
    shown = [(bucket, n) for bucket, n in counts if n]
    fig = go.Figure(
        go.Bar(
            x=[n for _, n in shown],
            y=[bucket_label(bucket) for bucket, _ in shown],
            orientation="h",
            marker_color=[BUCKET_COLORS.get(bucket, UNKNOWN_STATUS_COLOR) for bucket, _ in shown],
            hovertemplate="%{y}: %{x}<extra></extra>",
        )
    )
    fig = layout(fig, y_title="", x_title="Scenario x environment cells")
    fig.update_yaxes(autorange="reversed", type="category", rangemode="normal")
    fig.update_layout(height=max(160, 70 + 30 * len(shown)), showlegend=False)
    return fig


def _started(stamp: object, tz: str) -> str:
    """A start time, or "\u2013" when the service gave none (start_date is optional)."""
    return "\u2013" if stamp is None or pd.isna(stamp) else weekday_time(stamp, tz)


# -- text alternatives ----------------------------------------------------------------------------


def _name(value: object) -> str:
    return visible_text(value, one_line=True)


def flaky_timeline_text(rows: pd.DataFrame, labels: list[str]) -> str:
    """What `flaky_timeline` shows: "Outcomes of 3 flaky scenarios, execution by execution:
    most flips in Checkout · Scenario 4 · all environments (12 in 20 runs)." """
    if rows.empty:
        return "Outcomes of flaky scenarios: none is flaky."
    flips = rows["flips"].astype("int64").reset_index(drop=True)
    most = int(flips.idxmax())
    runs = int(rows["runs"].iloc[most])
    return (
        f"Outcomes of {plural(len(rows), 'flaky scenario')}, execution by execution: most flips "
        f"in {_name(labels[most])} ({int(flips.iloc[most])} in {plural(runs, 'run')})."
    )


def environment_heatmap_text(matrix: pd.DataFrame) -> str:
    """What `environment_heatmap` shows: "Pass rate of 12 scenarios on 4 environments: lowest
    0.0 % for scenario 8 on SAFARI 18 / macOS; 40 of 48 at 100 %." """
    rated = matrix.dropna(subset=["pass_rate"])
    scenarios = plural(matrix["scenario_id"].nunique(), "scenario")
    environments = plural(matrix["environment"].nunique(), "environment")
    head = f"Pass rate of {scenarios} on {environments}"
    if rated.empty:
        return f"{head}: no result with a verdict."
    lowest = rated.loc[rated["pass_rate"].idxmin()]
    perfect = int((rated["pass_rate"] >= 1).sum())
    return (
        f"{head}: lowest {percent(lowest['pass_rate'])} for scenario "
        f"{int(lowest['scenario_id'])} on {_name(lowest['environment'])}; {perfect} of "
        f"{len(rated)} at 100 %."
    )


def scenario_timeline_text(cells: pd.DataFrame, tz: str) -> str:
    """What `scenario_timeline` shows: "Outcome in 20 executions on 3 environments: 5 failed,
    the latest in #123 on CHROME / Linux, Fri 20 Nov 14:00." """
    executions = plural(cells["execution_id"].nunique(), "execution")
    environments = plural(cells["environment"].nunique(), "environment")
    head = f"Outcome in {executions} on {environments}"
    failed = cells[cells["outcome"] == FAIL]
    if failed.empty:
        return f"{head}: none failed."
    latest = failed.sort_values(["execution_start", "execution_id"]).iloc[-1]
    return (
        f"{head}: {len(failed):,} failed, the latest in #{int(latest['execution_id'])} on "
        f"{_name(latest['environment'])}, {_started(latest['execution_start'], tz)}."
    )


def scenario_runtime_text(cells: pd.DataFrame, tz: str) -> str:
    """What `scenario_runtime` shows: "Runtime of 18 completed runs on 3 environments, 24 Oct
    - 23 Nov: longest 1 min 35 s on CHROME / Linux in #123 on 12 Nov." """
    done = _completed(cells)
    if done.empty:
        return "Runtime of the scenario's completed runs: none passed or warned in this window."
    runs = plural(len(done), "completed run")
    environments = plural(done["environment"].nunique(), "environment")
    starts = done["execution_start"].dt.tz_convert(tz)
    longest = done.loc[done["runtime_s"].astype("float64").idxmax()]
    return (
        f"Runtime of {runs} on {environments}, {day_span(starts)}: longest "
        f"{human_duration(float(longest['runtime_s']))} on {_name(longest['environment'])} in "
        f"#{int(longest['execution_id'])} on {day_text(starts.loc[longest.name])}."
    )


def bucket_counts_text(counts: tuple[tuple[str, int], ...]) -> str:
    """What `bucket_counts` shows: "Scenario x environment cells by change: 3 new failure,
    2 fixed, 40 still passing." (in the chart's order, most urgent first)."""
    shown = [f"{n:,} {bucket}" for bucket, n in counts if n]
    if not shown:
        return "Scenario x environment cells by change: none."
    return f"Scenario x environment cells by change: {', '.join(shown)}."


# -- each chart with its name, text alternative and table columns --------------------------------


def flaky_timeline_chart(
    rows: pd.DataFrame, positions: pd.DataFrame, labels: list[str], tz: str
) -> Chart:
    return Chart(
        "Outcomes of the flaky scenarios",
        flaky_timeline(rows, positions, labels, tz),
        flaky_timeline_text(rows, labels),
        {"series": "Outcome", "y": "Scenario"},
    )


def environment_heatmap_chart(matrix: pd.DataFrame) -> Chart:
    return Chart(
        "Pass rate by scenario and environment",
        environment_heatmap(matrix),
        environment_heatmap_text(matrix),
        {"y": "Scenario"},
    )


def scenario_runtime_chart(cells: pd.DataFrame, tz: str) -> Chart:
    return Chart(
        "Runtime per execution",
        scenario_runtime(cells, tz),
        scenario_runtime_text(cells, tz),
        {"series": "Environment"},
    )


def scenario_timeline_chart(cells: pd.DataFrame, tz: str) -> Chart:
    return Chart(
        "Outcome per execution",
        scenario_timeline(cells, tz),
        scenario_timeline_text(cells, tz),
        {"series": "Outcome", "y": "Environment"},
    )


def bucket_counts_chart(counts: tuple[tuple[str, int], ...]) -> Chart:
    return Chart(
        "Cells by change",
        bucket_counts(counts),
        bucket_counts_text(counts),
        {"y": "Change"},
    )
