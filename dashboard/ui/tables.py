"""Tables: a display frame on the page with a CSV download of exactly it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from dashboard.present.csv import to_csv
from dashboard.present.formatting import in_zone, visible_frame


def table(
    display: pd.DataFrame,
    *,
    key: str,
    file_name: str,
    column_config: Mapping[str, Any] | None = None,
    selectable: bool = False,
    tz: str = "UTC",
) -> int | None:
    """Show a display frame with a CSV download of exactly it; return the selected row, if any.

    The selected row is a position in `display` (Streamlit reports positions in the data it
    was given, whatever sorting the viewer applied in the browser). Times are shown in `tz`
    (and written in it, with the zone in their CSV headers).
    """
    # Names from the service cannot reorder or hide text, on the page or in the file.
    display = visible_frame(in_zone(display, tz))
    config = dict(column_config or {})
    selected: int | None = None
    if selectable:
        event = st.dataframe(
            display,
            key=key,
            hide_index=True,
            column_config=config,
            on_select="rerun",
            selection_mode="single-row",
        )
        rows: Sequence[int] = event.selection.rows
        selected = rows[0] if rows else None
    else:
        st.dataframe(display, key=key, hide_index=True, column_config=config)
    st.download_button(
        "Download CSV",
        data=to_csv(display, tz=tz),
        file_name=file_name,
        mime="text/csv",
        key=f"{key}.csv",
        icon=":material/download:",
        on_click="ignore",
    )
    return selected
