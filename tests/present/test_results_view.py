"""The Execution results page's view: its header's parts, and what it says when no result came,
without Streamlit."""

from __future__ import annotations

from datetime import UTC, datetime

import pandas as pd

from dashboard.analytics.executions import ExecutionHeader
from dashboard.data.live import ResultsData
from dashboard.present import results_view as views
from dashboard.present.kpis import Kpi

NOW = datetime(2026, 11, 20, 18, tzinfo=UTC)
HEADER = ExecutionHeader(
    execution_id=900,
    plan_id=None,
    plan="Checkout",
    project="Web",
    user="ada",
    start=datetime(2026, 11, 20, 9, 15, tzinfo=UTC),
    end=datetime(2026, 11, 20, 9, 17, 5, tzinfo=UTC),
    runtime_s=125.0,
    results=4,
    failed=1,
    pass_rate=0.75,
    summary=(("SUCCESS", 3), ("FAILURE", 1)),
)


def test_the_header_says_who_ran_what_and_its_figures() -> None:
    top = views.header_view(HEADER, tz="UTC", now=NOW)

    assert top.line.startswith("Plan: Checkout · Project: Web · Started by: ada · Ran: ")
    assert [kpi.label for kpi in top.kpis] == ["Duration", "Results", "Failed", "Pass rate"]
    assert top.kpis[1:3] == (Kpi("Results", "4"), Kpi("Failed", "1"))
    assert top.summary == "Summary: SUCCESS 3, FAILURE 1"
    assert top.finished
    assert top.notes == ()


def test_an_execution_without_a_plan_has_no_scenarios_to_ask_for() -> None:
    assert views.scenarios_of(pd.DataFrame(), HEADER) == ()


def test_no_results_leave_only_the_notes() -> None:
    from dashboard.columns.schemas import RESULT_COLUMNS
    from dashboard.columns.shapes import empty

    view = views.results_view(
        ResultsData(empty(RESULT_COLUMNS), scenarios=3),
        HEADER,
        pd.DataFrame(),
        finished=True,
        tz="UTC",
        now=NOW,
        source="demo",
        scenario_link=str,
    )

    assert view.shown is None
    assert view.failures == ()
    assert view.notes == ()
