"""The figures of the Executions page computed by its view, on a hand-built window: the status
chart per execution or per plan, the per-day chart, the table's newest rows and the captions
that say so. Moved here from the page's AppTests, which keep the wiring (#36)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pandas as pd
import pytest

from dashboard.data import frames
from dashboard.present import charts, tables
from dashboard.present import executions_view as views
from dashboard.present.chart_data import Chart
from tests.dashboard import records

NOW = datetime(2026, 11, 20, 18, tzinfo=UTC)
SLICE = "5 executions, 16 Nov - 20 Nov"


def _window() -> views.ExecutionsSlice:
    """Five finished executions of two plans over three days, newest first (as loaded)."""
    runs = [
        records.execution(
            5,
            plan_id=2,
            plan_name="Beta",
            start_date="2026-11-20T09:00:00Z",
            result_summary={"SUCCESS": 1, "WARNING": 1},
        ),
        records.execution(
            4,
            plan_id=1,
            plan_name="Alpha",
            start_date="2026-11-19T10:00:00Z",
            result_summary={"SUCCESS": 2, "ERROR": 1},
        ),
        records.execution(
            3,
            plan_id=2,
            plan_name="Beta",
            start_date="2026-11-19T09:00:00Z",
            result_summary={"SUCCESS": 2, "FAILURE": 2},
        ),
        records.execution(
            2,
            plan_id=1,
            plan_name="Alpha",
            start_date="2026-11-18T10:00:00Z",
            result_summary={"FAILURE": 3},
        ),
        records.execution(
            1,
            plan_id=1,
            plan_name="Alpha",
            start_date="2026-11-18T09:00:00Z",
            result_summary={"SUCCESS": 4},
        ),
    ]
    data = views.ExecutionsData(
        frames.executions_frame(runs), frames.status_counts_frame(runs), skipped=()
    )
    return views.executions_slice(data, (), now=NOW)


def _view() -> views.ExecutionsView:
    window = _window()
    return views.executions_view(window.executions, window.status_counts)


def _words(view: views.ExecutionsView) -> views.ExecutionsWords:
    return views.executions_words(
        view, SLICE, tz="UTC", outages=pd.DataFrame(), included=False, left_out=0
    )


def _spec(chart: Chart) -> dict[str, Any]:
    return json.loads(chart.figure.to_json())


def _status_columns_total(table: pd.DataFrame) -> int:
    """Every result of the table's rows: its status columns, from Duration to Pass rate."""
    statuses = table.columns[table.columns.get_loc("Duration") + 1 : -1]
    return int(table[statuses].fillna(0).to_numpy().sum())


def test_above_the_bar_limit_the_status_chart_sums_the_window_per_plan_and_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The chart shows every execution of the window, one bar per plan, instead of "the
    latest 200"."""
    monkeypatch.setattr(charts, "EXECUTION_BAR_LIMIT", 2)

    view = _view()

    total = view.kpis.executions
    assert total == 5
    table = view.table.display
    assert len(table) == total  # the table (and its CSV) keeps every execution
    plans = sorted(set(table["Plan"]))
    assert plans == ["Alpha", "Beta"]
    assert view.status_by_plan
    assert view.plans_drawn == len(plans)
    assert f"the results of all {total} executions of {len(plans)} plans, by status" in (
        _words(view).per_plan or ""
    )
    words = _words(view)
    assert "Latest" not in "\n".join((*words.figures, words.status, words.per_plan or ""))
    per_plan = _spec(view.status_chart)
    assert per_plan["layout"]["yaxis"]["categoryarray"] == plans
    # Every result of every execution of the window is in a plan's bar.
    assert sum(sum(trace["x"]) for trace in per_plan["data"]) == _status_columns_total(table)
    assert _status_columns_total(table) == 16  # 2 + 3 + 4 + 3 + 4 results
    for plan in plans:
        drawn = sum(
            x
            for trace in per_plan["data"]
            for y, x in zip(trace["y"], trace["x"], strict=True)
            if y == plan
        )
        assert drawn == _status_columns_total(table[table["Plan"] == plan])
    assert not view.status_per_day.made  # its tab is closed: not built, not sent
    assert view.status_tab == "Per plan"


def test_up_to_the_bar_limit_each_execution_is_a_bar() -> None:
    view = _view()

    total = view.kpis.executions
    assert 0 < total <= charts.EXECUTION_BAR_LIMIT
    assert not view.status_by_plan
    assert _words(view).per_plan is None
    shown = _spec(view.status_chart)["layout"]["xaxis"]["categoryarray"]
    assert sorted(shown) == sorted(f"#{i}" for i in view.table.display["Id"])
    assert view.status_tab == "Per execution"


def test_the_per_day_chart_counts_every_execution() -> None:
    view = _view()

    per_day = _spec(view.status_per_day())

    drawn = sum(sum(trace["y"]) for trace in per_day["data"])
    assert drawn == _status_columns_total(view.table.display)  # every execution, every day
    assert view.status_per_day.made


def test_a_long_table_sends_its_newest_rows_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tables, "TABLE_ROW_LIMIT", 3)

    view = _view()

    shown = view.table.display
    assert len(shown) == 3
    assert list(shown["Id"]) == [5, 4, 3]  # the newest
    assert list(shown["Start"]) == sorted(shown["Start"], reverse=True)
    assert len(view.table) == 5  # the CSV holds every one
    assert "The newest 3 are shown; the CSV holds every one" in _words(view).table
