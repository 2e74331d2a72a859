"""Times in the viewer's zone on every page: chosen once, kept in the URL, said on the page and
in the CSV headers; durations as numbers of seconds in the CSV."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from api_client import ApiClient
from tests.dashboard.apptest import (
    EXECUTIONS,
    PLANS,
    RESULTS,
    assert_no_failure,
    captions,
    joined,
)
from tests.dashboard.conftest import AppFactory, Connect

ISTANBUL = "Europe/Istanbul"
TOKYO = "Asia/Tokyo"

Files = Callable[[], list[list[str]]]


@pytest.fixture
def last_csv(monkeypatch: pytest.MonkeyPatch) -> Files:
    """The rows of the last CSV a table offered for download (the bytes its button would carry:
    the CSV is made on the first click, so it is asked for here)."""
    from dashboard.present.tables import PreparedTable
    from dashboard.ui import tables

    made: list[bytes] = []
    real = tables.table

    def recording(display: Any, **kwargs: Any) -> Any:
        if not isinstance(display, PreparedTable):
            display = PreparedTable.of(display, tz=kwargs.get("tz", "UTC"))
        made.append(display.csv())
        return real(display, **kwargs)

    monkeypatch.setattr(tables, "table", recording)

    def rows() -> list[list[str]]:
        assert made, "no table offered a CSV"
        return list(csv.reader(io.StringIO(made[-1].decode("utf-8-sig"))))

    return rows


def column(rows: list[list[str]], label: str) -> list[str]:
    index = rows[0].index(label)
    return [row[index] for row in rows[1:]]


def test_the_executions_page_shows_and_writes_times_in_the_linked_zone(
    app: AppFactory, connect: Connect, oracle: ApiClient, last_csv: Files
) -> None:
    connect()  # the service the oracle reads
    at = app(EXECUTIONS, range="30d", tz=ISTANBUL)
    at.run()

    assert_no_failure(at)
    assert f"Times are {ISTANBUL}." in captions(at)
    assert at.sidebar.selectbox(key="executions.tz").value == ISTANBUL
    table = at.dataframe[0].value
    assert str(table["Start"].dt.tz) == ISTANBUL
    rows = last_csv()
    header = rows[0]
    assert f"Start ({ISTANBUL})" in header
    assert f"End ({ISTANBUL})" in header
    assert "Duration (s)" in header
    assert "Start" not in header
    assert "Duration" not in header
    # Each row's start is that execution's instant written in Istanbul time, and its duration
    # the service's runtime in seconds, as a number.
    by_id = {e.id: e for e in oracle.all_executions()}
    ids = [int(i) for i in column(rows, "Id")]
    starts = column(rows, f"Start ({ISTANBUL})")
    seconds = column(rows, "Duration (s)")
    for execution_id, start, duration in zip(ids, starts, seconds, strict=True):
        execution = by_id[execution_id]
        assert datetime.fromisoformat(start) == execution.start_date
        assert start.endswith("+03:00")
        if execution.runtime is not None and duration:
            assert float(duration) == execution.runtime / 1000


def test_the_browsers_zone_is_the_default_and_said(app: AppFactory, last_csv: Files) -> None:
    at = app(PLANS)
    at.context = {"timezone": TOKYO}
    at.run()

    assert_no_failure(at)
    assert f"Times are {TOKYO}." in captions(at)
    assert "tz" not in at.query_params  # the browser's zone needs no parameter
    assert f"Created ({TOKYO})" in last_csv()[0]


def test_a_zone_chosen_once_holds_on_every_page_and_in_its_url(app: AppFactory) -> None:
    at = app(PLANS)
    at.run()
    assert "Times are UTC." in captions(at)

    at.sidebar.selectbox(key="plans.tz").select(ISTANBUL).run()
    assert at.query_params["tz"] == ISTANBUL
    assert f"Times are {ISTANBUL}." in captions(at)

    # The sidebar's navigation opens a page with no query parameters.
    at.query_params.clear()
    at.switch_page(EXECUTIONS).run()
    assert_no_failure(at)
    assert at.query_params["tz"] == ISTANBUL
    assert f"Times are {ISTANBUL}." in captions(at)

    # Back to the browser's zone: the choice is forgotten on every page.
    at.sidebar.selectbox(key="executions.tz").select(None).run()
    assert "tz" not in at.query_params
    at.query_params.clear()
    at.switch_page(PLANS).run()
    assert "tz" not in at.query_params
    assert "Times are UTC." in captions(at)


def test_the_results_page_says_its_zone_in_the_header_and_its_csv(
    app: AppFactory, connect: Connect, oracle: ApiClient, last_csv: Files
) -> None:
    connect()  # the service the oracle reads
    plans = {plan.id: plan for plan in oracle.plans(active=False)}
    execution = next(
        e
        for e in oracle.all_executions()
        if e.plan_id in plans and e.end_date and "WAITING" not in e.result_summary
    )
    at = app(RESULTS, execution=str(execution.id), plan=str(execution.plan_id), tz=ISTANBUL)
    at.run()

    assert_no_failure(at)
    local = execution.start_date.astimezone(ZoneInfo(ISTANBUL)) if execution.start_date else None
    assert local is not None
    assert f"Ran: {local.day} {local:%b %Y, %H:%M} {ISTANBUL} to " in joined(at.main.text)
    assert f"Times are {ISTANBUL}." in captions(at)
    rows = last_csv()
    assert "Runtime (s)" in rows[0]
    results = [
        r for s in plans[execution.plan_id].scenarios for r in oracle.test_results(execution.id, s)
    ]  # type: ignore[index]
    written = sorted(float(v) for v in column(rows, "Runtime (s)") if v)
    assert written == sorted(float(r.runtime) for r in results if r.runtime is not None)


def test_the_executions_charts_count_days_in_the_linked_zone(
    app: AppFactory, connect: Connect
) -> None:
    """A run at 16:00 UTC is on the next day in Tokyo: the day charts bucket it there, as the
    table (in Tokyo time) does, and no caption says the charts are UTC."""
    connect()
    # The per-day chart is built when its tab is open. Outages included: the table lists every
    # execution, and the charts then count them too (the demo plants an outage night).
    at = app(
        EXECUTIONS,
        tz=TOKYO,
        chart="day",
        outages="true",
        range="custom",
        **{"from": "2026-11-13", "to": "2026-11-20"},
    )
    at.run()

    assert_no_failure(at)
    assert "UTC" not in captions(at)
    figures = [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]
    per_day = next(f for f in figures if f["layout"]["xaxis"]["title"]["text"] == f"Day ({TOKYO})")
    drawn: dict[str, int] = {}
    for trace in per_day["data"]:
        for day, count in zip(trace["x"], trace["y"], strict=True):
            drawn[day[:10]] = drawn.get(day[:10], 0) + count
    # The table's starts are Tokyo times; its status columns run from after Duration to before
    # Pass rate. Each Tokyo date's results are that day's bar.
    table = at.dataframe[0].value
    assert str(table["Start"].dt.tz) == TOKYO
    statuses = table.columns[table.columns.get_loc("Duration") + 1 : -1]
    results = table[statuses].fillna(0).to_numpy().sum(axis=1)
    expected: dict[str, int] = {}
    for start, count in zip(table["Start"], results, strict=True):
        expected[start.strftime("%Y-%m-%d")] = expected.get(start.strftime("%Y-%m-%d"), 0) + count
    expected = {day: int(count) for day, count in expected.items() if count}
    assert drawn == expected
    # Some runs of the week are on another day in Tokyo than in UTC, so the buckets differ.
    moved = [s for s in table["Start"] if s.date() != s.tz_convert("UTC").date()]
    assert moved
    # The custom range is Tokyo's 13-20 Nov too (the evening of 20 Nov UTC, the morning of the
    # 21st in Tokyo, is outside it), and every one of its days is drawn.
    assert sorted(drawn) == [f"2026-11-{day}" for day in range(13, 21)]
    titles = {f["layout"]["xaxis"]["title"]["text"] for f in figures}
    assert f"Start ({TOKYO})" in titles
    assert not any("UTC" in title for title in titles)
