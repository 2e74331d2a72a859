"""The Execution results page's parts that are Streamlit only: the way back to the executions
(or there, when no execution is named), what is known of its failures and the form to mark one,
and the levels and environments charts side by side."""

from __future__ import annotations

from datetime import datetime

import streamlit as st

from dashboard.data.cache_history import Ledger
from dashboard.data.connection import Connection
from dashboard.present.results_view import ResultsShown
from dashboard.state import routes
from dashboard.state.params import ViewState
from dashboard.ui import marking, notices, table_views, tables, url_filters, view_parts


def execution_or_back(state: ViewState) -> int:
    """The execution `state` names, under a link back to the executions it was opened from;
    when it names none, a pointer to the executions page, and the page stops."""
    if state.execution is None:
        st.info("No execution is selected. Pick one in the executions table.")
        url_filters.page_link(
            routes.EXECUTIONS, None, label="Go to executions", icon=":material/arrow_back:"
        )
        st.stop()
    url_filters.page_link(
        routes.EXECUTIONS,
        state.with_changes(execution=None, execution_start=None),
        label="Back to executions",
        icon=":material/arrow_back:",
    )
    return state.execution


def results_table(shown: ResultsShown) -> int | None:
    """The results table with its CSV download; the selected row, if any. Drawn through
    `ui.tables.table` by its module (as `table_views.show` would draw it), so what patches that
    one drawer sees this table too, whatever was imported first."""
    view = shown.table
    return tables.table(
        view.display,
        key=view.key,
        file_name=view.file_name,
        column_config=table_views.column_settings(view.columns),
        selectable=True,
        tz=view.tz,
        max_rows=view.max_rows,
    )


def known_failures(
    shown: ResultsShown,
    ledger: Ledger,
    *,
    connection: Connection,
    now: datetime,
    plan_id: int | None,
) -> None:
    """What the team knows about the execution's failures, and marking one from here (nothing
    when none failed)."""
    if shown.known_caption is None:
        return
    notices.caption(shown.known_caption)
    marking.mark_failures(
        "results",
        shown.failed,
        shown.plan_names,
        ledger=ledger,
        connection=connection,
        now=now,
        signatures=shown.failed["signature"],
        plan_id=plan_id,
    )


def charts(shown: ResultsShown) -> None:
    """The results' levels, and their environments (operating system x browser)."""
    left, right = st.columns([1, 2])
    with left:
        st.header("Levels", divider="gray")
        notices.caption(shown.slice_text)
        view_parts.chart(shown.levels)
    with right:
        st.header("Environments", divider="gray")
        notices.caption(shown.environments_caption)
        view_parts.chart(shown.environments)
