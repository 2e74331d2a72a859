"""The execution results page's charts: results by level, and outcomes by operating system and
browser. Each has its text alternative beside it (`..._text`)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from dashboard.analytics.results import OUTCOME_ORDER
from dashboard.present.chart_data import Chart
from dashboard.present.chart_style import literals
from dashboard.present.colors import OUTCOME_COLORS, status_color
from dashboard.present.formatting import plural, visible_text

ENVIRONMENTS_NAMED = 3
"""The most environments a text alternative names for each outcome."""
FINDING_ORDER = ("all failed", "some failed", "no verdict", "all passed")
"""The outcomes in the order a text alternative says them: the worst first."""


def level_breakdown(levels: pd.DataFrame) -> go.Figure:
    """How many results have each level, one bar per level in the status colours."""
    fig = go.Figure(
        go.Bar(
            x=levels["count"].tolist(),
            y=literals(levels["level"]),
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
            x=literals(browsers),
            y=literals(oses),
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


def level_text(levels: pd.DataFrame) -> str:
    """What `level_breakdown` shows: "Results by level: 40 SUCCESS, 3 FAILURE, 1 ERROR." """
    if levels.empty:
        return "Results by level: no results."
    counts = ", ".join(
        f"{int(n):,} {visible_text(level, one_line=True)}"
        for level, n in zip(levels["level"], levels["count"], strict=True)
    )
    return f"Results by level: {counts}."


def environment_matrix_text(matrix: pd.DataFrame) -> str:
    """What `environment_matrix` shows: "Outcome on 6 operating system and browser pairs: all
    failed on SAFARI / macOS; some failed on CHROME / Linux; all passed on 4." """
    if matrix.empty:
        return "Outcome per operating system and browser: no results."
    parts = []
    for outcome in FINDING_ORDER:
        rows = matrix[matrix["outcome"] == outcome]
        if rows.empty:
            continue
        if outcome == "all passed":
            parts.append(f"all passed on {len(rows)}")
            continue
        names = [
            f"{visible_text(b, one_line=True)} / {visible_text(o, one_line=True)}"
            for o, b in zip(rows["os"], rows["browser"], strict=True)
        ]
        more = len(names) - ENVIRONMENTS_NAMED
        named = ", ".join(names[:ENVIRONMENTS_NAMED]) + (f" and {more} more" if more > 0 else "")
        parts.append(f"{outcome} on {named}")
    pairs = plural(len(matrix), "operating system and browser pair")
    return f"Outcome on {pairs}: {'; '.join(parts)}."


def level_chart(levels: pd.DataFrame) -> Chart:
    return Chart(
        "Results by level",
        level_breakdown(levels),
        level_text(levels),
        {"x": "Results", "y": "Level"},
    )


def environment_matrix_chart(matrix: pd.DataFrame) -> Chart:
    return Chart(
        "Outcome per operating system and browser",
        environment_matrix(matrix),
        environment_matrix_text(matrix),
        {"x": "Browser", "y": "Operating system", "text": "Outcome"},
    )
