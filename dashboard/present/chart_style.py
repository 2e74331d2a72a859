"""The look every chart shares, and the literal text it shows.

Plotly renders a subset of HTML in labels and hover text (`<b>`, `<a href>`), so every name that
comes from the service passes through `literal` first and is shown literally.
"""

from __future__ import annotations

import html
from collections.abc import Iterable

import pandas as pd
import plotly.graph_objects as go

from dashboard.present.formatting import format_day, format_span, visible_text

HEIGHT = 360


def literal(value: object) -> str:
    """A value as literal text for plotly: HTML-escaped, missing values as an en dash."""
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return "\u2013"
    return html.escape(visible_text(value), quote=False)


def literals(values: Iterable[object]) -> list[str]:
    return [literal(v) for v in values]


def layout(fig: go.Figure, *, y_title: str, x_title: str | None = None) -> go.Figure:
    fig.update_layout(
        height=HEIGHT,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "x": 0, "traceorder": "normal"},
        hovermode="closest",
    )
    fig.update_yaxes(title_text=y_title, rangemode="tozero")
    if x_title is not None:
        fig.update_xaxes(title_text=x_title)
    return fig


def when(value: object, tz: str = "UTC") -> str:
    if value is None or pd.isna(value):
        return "no start time"
    stamp = pd.Timestamp(value)
    stamp = (stamp.tz_localize("UTC") if stamp.tzinfo is None else stamp).tz_convert(tz)
    return f"{stamp:%d %b %Y %H:%M} {tz}"


def wall_days(days: pd.Series) -> list[pd.Timestamp]:
    """Days (aware first instants) as naive wall-clock midnights: plotly draws a naive time as
    given, so a Tokyo day sits on its own date, not on the UTC instant it begins at."""
    if isinstance(days.dtype, pd.DatetimeTZDtype):
        days = days.dt.tz_localize(None)
    return days.tolist()


def wall_day_column(days: pd.Series) -> pd.Series:
    """`wall_days` as a column (no `Timestamp` made per row: for grouping tens of thousands)."""
    if isinstance(days.dtype, pd.DatetimeTZDtype):
        return days.dt.tz_localize(None)
    return days


def zone_of(days: pd.Series) -> str:
    """The zone a column of days is counted in ("UTC" for naive ones)."""
    dtype = days.dtype
    return str(dtype.tz) if isinstance(dtype, pd.DatetimeTZDtype) else "UTC"


# -- the words of a chart's text alternative ------------------------------------------------------


def day_text(day: object) -> str:
    """A day of a chart ("12 Nov"), from a day's first instant or a wall-clock midnight."""
    return format_day(pd.Timestamp(day))


def day_span(days: pd.Series) -> str:
    """The days a chart covers: "24 Oct \u2013 23 Nov" (years only when it spans two)."""
    first, last = pd.Timestamp(days.min()), pd.Timestamp(days.max())
    return format_span(first, last, today=last.date())
