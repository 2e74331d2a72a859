"""Tables: a display frame on the page with a CSV download of exactly it."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from dashboard.columns.cells import EN_DASH
from dashboard.data.settings import process_environment
from dashboard.present.key_columns import table_anchor
from dashboard.present.tables import PreparedTable

NO_VALUE = EN_DASH
"""What a missing cell (None, NaN, NaT: a plan with no verdict in 7 days, a stretch with no
green run yet) shows: Streamlit's own placeholder is the word "None". A missing link is a dash
and no link; the CSV leaves the cell empty."""


def table(
    display: pd.DataFrame | PreparedTable,
    *,
    key: str,
    file_name: str,
    column_config: Mapping[str, Any] | None = None,
    selectable: bool = False,
    tz: str = "UTC",
    max_rows: int | None = None,
) -> int | None:
    """Show a display frame with a CSV download of exactly it; return the selected row, if any.

    Times are shown in `tz` (and written in it, with the zone in their CSV headers); a
    `PreparedTable` carries its own zone. With `max_rows`, only the first rows are sent to the
    browser (the page says so); the CSV still holds every row. The selected row is a position in
    `display` (Streamlit reports positions in the data it was given, whatever sorting the viewer
    applied in the browser). The table sits in a container named by `key` (`table_anchor`), by
    which the browser tests find it (`present.key_columns`). A missing value shows as a dash
    (`NO_VALUE`), never "None".
    """
    prepared = display if isinstance(display, PreparedTable) else PreparedTable.of(display, tz=tz)
    shown = prepared.display if max_rows is None else prepared.display.head(max_rows)
    config = dict(column_config or {})
    selected: int | None = None
    with st.container(key=table_anchor(key)):
        if selectable:
            event = st.dataframe(
                shown,
                key=key,
                hide_index=True,
                column_config=config,
                on_select="rerun",
                selection_mode="single-row",
                placeholder=NO_VALUE,
            )
            rows: Sequence[int] = event.selection.rows
            selected = rows[0] if rows else None
        else:
            st.dataframe(
                shown, key=key, hide_index=True, column_config=config, placeholder=NO_VALUE
            )
    links = link_columns(config)
    base_url = dashboard_address()
    st.download_button(
        "Download CSV",
        # Made on the first click, then kept with the table; its links absolute.
        data=lambda: prepared.csv(links=links, base_url=base_url),
        file_name=file_name,
        mime="text/csv",
        key=f"{key}.csv",
        icon=":material/download:",
        on_click="ignore",
    )
    return selected


def dashboard_address() -> str | None:
    """The address a CSV's links are made absolute against: the configured public address
    (`QA_DASHBOARD_PUBLIC_URL`, as a folder), else the page's as the viewer opened it."""
    configured = process_environment(os.environ)[0].public_url
    if configured:
        return configured if configured.endswith("/") else configured + "/"
    return st.context.url


def link_columns(config: Mapping[str, Any]) -> tuple[str, ...]:
    """The columns `config` shows as links (`st.column_config.LinkColumn`)."""
    return tuple(
        name
        for name, setting in config.items()
        if isinstance(setting, Mapping)
        and isinstance(setting.get("type_config"), Mapping)
        and setting["type_config"].get("type") == "link"
    )


# -- the looks of columns the pages share ---------------------------------------------------------
# Functions, not constants: Streamlit may amend a column's configuration when it shows a table.


def ident_column(**more: Any) -> Any:
    """An id (scenario, execution, plan): as written, without thousands separators."""
    return st.column_config.NumberColumn(format="%d", width="small", **more)


def link_column(text: str) -> Any:
    """A link shown as `text` ("history", "results", "node log")."""
    return st.column_config.LinkColumn(display_text=text)


def time_column(tz: str | None = None, *, with_year: bool = False) -> Any:
    """A moment, in `tz` (None: the table's own zone)."""
    return st.column_config.DatetimeColumn(
        format="D MMM YYYY, HH:mm" if with_year else "D MMM, HH:mm", timezone=tz
    )


def rate_column(**more: Any) -> Any:
    """A pass rate in percent."""
    return st.column_config.NumberColumn(format="%.1f %%", **more)


def wide_text_column() -> Any:
    """A message: the widest column, yet narrow enough that the links after it stay in view on
    a laptop (a longer message is cut with an ellipsis; its page shows it whole elsewhere or
    in its CSV)."""
    return st.column_config.TextColumn(width=MESSAGE_WIDTH_PX)


MESSAGE_WIDTH_PX = 300
