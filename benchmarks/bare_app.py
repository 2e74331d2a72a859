"""A bare Streamlit app, the floor under every opened link: a title and a small table (what
the Plans page draws), and with `?chart=1` one small plotly chart too. The pages case opens it
in the same chromium as the dashboard, so "our Plans page opened" can be set beside what
Streamlit itself costs to open on this machine.

Run by `streamlit run benchmarks/bare_app.py`; it reads no configuration and no data.
"""

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

st.title("Hello")
st.dataframe(pd.DataFrame({"plan": [f"Plan {i}" for i in range(1, 11)], "runs": range(10)}))
if st.query_params.get("chart"):
    st.plotly_chart(go.Figure(go.Bar(x=["a", "b", "c"], y=[3, 1, 2])), key="chart")
