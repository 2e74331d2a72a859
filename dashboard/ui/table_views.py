"""A view's table on the page: its columns' looks (`present.table_view`) as Streamlit's column
settings, and the table with its CSV download (`ui.tables.table`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

from dashboard.present.table_view import Column, TableView
from dashboard.ui import tables
from dashboard.ui.tables import ident_column, link_column, time_column, wide_text_column


def column_setting(column: Column) -> Any:
    """One column's look as Streamlit's column setting."""
    if column.kind == "ident":
        return ident_column()
    if column.kind == "link":
        return link_column(column.text)
    if column.kind == "time":
        return time_column(column.tz)
    if column.kind == "wide_text":
        return wide_text_column()
    if column.kind == "number":
        return st.column_config.NumberColumn(format=column.format, width=column.width)
    return st.column_config.TextColumn(width=column.width)


def column_settings(columns: Mapping[str, Column]) -> dict[str, Any]:
    # Made at each run: Streamlit may amend a column's setting when it shows a table.
    return {name: column_setting(column) for name, column in columns.items()}


def show(view: TableView, *, selectable: bool = False) -> int | None:
    """The table with its CSV download; the selected row, if any (`ui.tables.table`)."""
    # Through the module, so one patch of `tables.table` (the zone tests' CSV recorder) holds
    # whatever was imported first.
    return tables.table(
        view.display,
        key=view.key,
        file_name=view.file_name,
        column_config=column_settings(view.columns),
        selectable=selectable,
        tz=view.tz,
        max_rows=view.max_rows,
    )
