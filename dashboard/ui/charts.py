"""A chart on the page with its text alternative and its data a click away.

Screen readers announce the chart by its text alternative (Streamlit's `alt`: the chart's
container becomes a labelled figure). Under it, an expander named after the chart opens the
same sentence for every viewer and the chart's data as a table with its CSV download. The table
is built and sent only once the expander is opened (it reruns the page), so a chart nobody asks
about costs nothing more.
"""

from __future__ import annotations

import streamlit as st

from dashboard.present.chart_data import Chart
from dashboard.ui import notices
from dashboard.ui.tables import table


def chart(shown: Chart, *, key: str, file_name: str) -> None:
    """Draw `shown`, then the expander that holds its data."""
    st.plotly_chart(shown.figure, key=key, alt=shown.alt)
    data = st.expander(
        f"{shown.name}: the data",
        key=f"{key}.data.open",
        on_change="rerun",
        icon=":material/table_view:",
    )
    if data.open:
        with data:
            notices.caption(shown.alt)
            table(shown.table(), key=f"{key}.data", file_name=file_name)
