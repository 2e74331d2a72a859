"""A chart with what stands in for it: its text alternative (what it shows and its main
finding, from the chart module's `..._text` function) and its data as a table, one row per mark,
shown with a CSV download under the chart (`dashboard.ui.charts`).

Read from the figure itself, so the table holds exactly what the chart shows, whichever chart
it is. Columns are named after the chart's axes (or the names given), and a trace's name is its
series (a status, a plan, an outcome). Plotly's text is HTML-escaped by `chart_style.literal`;
the table shows it as the words it stands for.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
import plotly.graph_objects as go

_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)


@dataclass(frozen=True)
class Chart:
    """A figure, its name ("Pass rate per day"), its text alternative, and the names of its
    table's columns where the axes do not say (`figure_table`'s keyword arguments)."""

    name: str
    figure: go.Figure
    alt: str
    columns: Mapping[str, str] = field(default_factory=dict)

    def table(self) -> pd.DataFrame:
        """What the chart draws, as a table (`figure_table`)."""
        return figure_table(self.figure, **self.columns)


def _words(value: object) -> object:
    """Plotly text as plain words: line breaks as commas, entities unescaped."""
    if isinstance(value, str):
        return html.unescape(_BREAK.sub(", ", value))
    return value


def _values(values: Any) -> list[object]:
    if values is None:
        return []
    return [_words(v) for v in (values.tolist() if hasattr(values, "tolist") else list(values))]


def _axis_title(fig: go.Figure, trace: Any, letter: str) -> str | None:
    name = getattr(trace, f"{letter}axis", None) or letter
    axis = fig.layout[f"{letter}axis{name[1:]}"]
    return axis.title.text if axis is not None and axis.title is not None else None


def figure_table(
    fig: go.Figure,
    *,
    series: str = "Series",
    x: str | None = None,
    y: str | None = None,
    value: str | None = None,
    text: str | None = None,
) -> pd.DataFrame:
    """One row per mark of every trace of `fig`.

    Columns: `series` (the trace's name, when the chart has several), then the category or time
    axis before the measured one (a horizontal bar's y first), each named `x`/`y` or after its
    axis title; a heat map's cells as rows of (y, x), with `value` (its z; by default the colour
    bar's title, left out when there is none) and `text` (the text drawn in the cell, when
    named).
    """
    named = series if len(fig.data) > 1 else None  # one line needs no series column
    frames = [_trace_rows(fig, trace, named, x, y, value, text) for trace in fig.data]
    frames = [frame for frame in frames if not frame.empty]
    if not frames:
        return pd.DataFrame()
    table = pd.concat(frames, ignore_index=True).dropna(axis="columns", how="all")
    for column in table.columns:
        times = table[column]
        # Days (midnights) read as days, not as "2026-11-01 00:00:00".
        if pd.api.types.is_datetime64_any_dtype(times) and (times.dt.normalize() == times).all():
            table[column] = times.dt.date
    return table


def _trace_rows(
    fig: go.Figure,
    trace: Any,
    series: str | None,
    x: str | None,
    y: str | None,
    value: str | None,
    text: str | None,
) -> pd.DataFrame:
    x_name = x or _axis_title(fig, trace, "x") or "x"
    y_name = y or _axis_title(fig, trace, "y") or "y"
    if trace.type == "heatmap":
        return _heatmap_rows(trace, x_name, y_name, value, text)
    xs, ys = _values(trace.x), _values(trace.y)
    if not xs and not ys:
        return pd.DataFrame()
    columns: dict[str, Sequence[object]] = {}
    if series is not None and trace.name:
        columns[series] = [_words(trace.name)] * max(len(xs), len(ys))
    pairs = [(y_name, ys), (x_name, xs)]
    if getattr(trace, "orientation", None) != "h":
        pairs.reverse()
    columns.update(pairs)
    return pd.DataFrame(columns)


def _heatmap_rows(
    trace: Any, x_name: str, y_name: str, value: str | None, text: str | None
) -> pd.DataFrame:
    xs, ys = _values(trace.x), _values(trace.y)
    z = [list(row) for row in (trace.z or [])]
    cells = [list(row) for row in (trace.text or [])]
    colorbar = trace.colorbar.title.text if trace.colorbar and trace.colorbar.title else None
    value_name = value or (colorbar if trace.showscale is not False else None)
    rows = []
    for r, row_label in enumerate(ys):
        for c, column_label in enumerate(xs):
            shade = z[r][c] if r < len(z) and c < len(z[r]) else None
            words = _words(cells[r][c]) if r < len(cells) and c < len(cells[r]) else None
            if (shade is None or pd.isna(shade)) and not words:
                continue  # an empty cell: nothing drawn there
            cell: dict[str, object] = {y_name: row_label, x_name: column_label}
            if value_name is not None:
                cell[value_name] = shade
            if text is not None:
                cell[text] = words
            rows.append(cell)
    return pd.DataFrame(rows)
