"""A view's KPIs (`present.kpis`) on the page: one bordered metric each, side by side."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from dashboard.present.kpis import Kpi


def kpi_row(kpis: Sequence[Kpi]) -> None:
    """`kpis` in one row of as many columns; a delta is a grey note, not a trend."""
    for column, kpi in zip(st.columns(len(kpis)), kpis, strict=True):
        column.metric(
            kpi.label, kpi.value, delta=kpi.delta, delta_color="off", help=kpi.help, border=True
        )
