"""A bare Streamlit app, the floor under every opened link: a title and a small table (what
the Plans page draws), and with `?charts=N` N small plotly charts too (a stacked bar chart, a
line chart with a few traces and a line chart, in turn: the kinds the Executions page draws).
The pages case opens it in the same chromium as the dashboard, so "our page opened" can be set
beside what Streamlit and plotly themselves cost to open on this machine with the same number
of charts.

With `?content=NAME` it draws, instead, the very charts and table an Executions view drew,
written by the pages case to `$BARE_CONTENT_DIR/NAME/` (`figure-N.json`, plotly's JSON, and
`table.parquet`): the same content with nothing else of the dashboard (no sidebar, filters,
KPIs, captions, data loading or caching), so what Streamlit and plotly take to draw that content
can be told from what the dashboard adds.

Run by `streamlit run benchmarks/bare_app.py`; it reads no configuration and no other data.
"""

import os
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go
import plotly.io
import streamlit as st

DAYS = [f"2026-01-{day:02d}" for day in range(1, 31)]


def figure(number: int) -> go.Figure:
    """The `number`th chart (from 0): a stacked bar chart, a few lines, or one line."""
    kind = number % 3
    if kind == 0:
        plans = [f"Plan {i}" for i in range(1, 21)]
        return go.Figure(
            [
                go.Bar(name=status, y=plans, x=[(i * weight) % 17 + 1 for i in range(20)])
                for status, weight in (("passed", 7), ("failed", 3), ("stopped", 1))
            ],
            layout={"barmode": "stack", "height": 420},
        )
    if kind == 1:
        return go.Figure(
            [
                go.Scatter(name=f"Plan {trace}", x=DAYS, y=[(i * trace) % 11 for i in range(30)])
                for trace in range(1, 6)
            ],
            layout={"height": 420},
        )
    return go.Figure(go.Scatter(x=DAYS, y=[(i * 7) % 13 for i in range(30)]))


def draw_content(folder: Path) -> None:
    """An Executions view's charts and table as the page lays them out: the status chart,
    runtime and pass rate side by side, then the table."""
    status, runtime, rate = (
        plotly.io.read_json(folder / f"figure-{number}.json") for number in range(3)
    )
    st.plotly_chart(status, key="chart.status")
    left, right = st.columns([3, 2])
    left.plotly_chart(runtime, key="chart.runtime")
    right.plotly_chart(rate, key="chart.rate")
    st.dataframe(pd.read_parquet(folder / "table.parquet"), hide_index=True)


st.title("Hello")
content = st.query_params.get("content")
if content:
    draw_content(Path(os.environ["BARE_CONTENT_DIR"], Path(content).name))
else:
    st.dataframe(pd.DataFrame({"plan": [f"Plan {i}" for i in range(1, 11)], "runs": range(10)}))
    for number in range(int(st.query_params.get("charts", "0") or 0)):
        st.plotly_chart(figure(number), key=f"chart.{number}")
