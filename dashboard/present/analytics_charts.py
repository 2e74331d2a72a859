"""Plotly builders of the scenario analytics pages: the flaky dot timeline, the scenario x
environment heat map, and one scenario's outcome and runtime timelines. Pure (no Streamlit),
with the status colours and symbols of every other chart; names pass through
`chart_style.literal`, so plotly never reads them as HTML."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd
import plotly.graph_objects as go

from dashboard.analytics.environments import heatmap
from dashboard.analytics.outcomes import FAIL, PASS, WARN
from dashboard.present.chart_style import layout, literal
from dashboard.present.colors import STATUS_COLORS, UNKNOWN_STATUS_COLOR
from dashboard.present.formatting import weekday_time
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
    done = cells[cells["outcome"].isin([PASS, WARN]) & cells["runtime_s"].notna()]
    fig = go.Figure()
    for environment, rows in done.groupby("environment", sort=True, observed=True):
        fig.add_trace(
            go.Scatter(
                name=literal(environment),
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
