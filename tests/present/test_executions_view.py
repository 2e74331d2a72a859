"""The Executions page's view: the slice narrowed to its statuses, the KPIs as shown and the
captions around the figures, without Streamlit."""

from __future__ import annotations

from datetime import UTC, datetime

import pandas as pd

from dashboard.analytics.outages import LIKELY
from dashboard.data import frames
from dashboard.data.live import ExecutionsData
from dashboard.present import executions_view as views
from dashboard.present.kpis import Kpi
from tests.analytics.frames import found_outages
from tests.dashboard import records

NOW = datetime(2026, 11, 20, 18, tzinfo=UTC)


def _data() -> ExecutionsData:
    runs = [
        records.execution(1, start_date="2026-11-18T09:00:00Z", result_summary={"SUCCESS": 4}),
        records.execution(
            2, start_date="2026-11-19T09:00:00Z", result_summary={"SUCCESS": 2, "FAILURE": 2}
        ),
        records.execution(3, start_date="2026-11-20T09:00:00Z", runtime=-5),
    ]
    return ExecutionsData(
        frames.executions_frame(runs), frames.status_counts_frame(runs), skipped=()
    )


def test_the_slice_keeps_the_chosen_statuses_and_says_what_cannot_be() -> None:
    every = views.executions_slice(_data(), (), now=NOW)
    failed = views.executions_slice(_data(), ("FAILURE",), now=NOW)

    assert sorted(every.executions["execution_id"]) == [1, 2, 3]
    assert sorted(failed.executions["execution_id"]) == [2, 3]
    # A negative runtime is said, and unknown in what the page draws.
    assert every.contradictions == (
        "1 execution has a negative runtime (#3), shown as unknown: the service's data "
        "contradicts itself.",
    )
    runtime = every.executions.set_index("execution_id")["runtime_ms"]
    assert pd.isna(runtime[3])
    assert every.data_notes == ()


def test_the_kpis_and_the_tabs_as_the_page_shows_them() -> None:
    loaded = views.executions_slice(_data(), (), now=NOW)

    view = views.executions_view(loaded.executions, loaded.status_counts)

    assert view.kpi_row[0] == Kpi("Executions", "3")
    assert [kpi.label for kpi in view.kpi_row] == [
        "Executions",
        "Pass rate",
        "Median duration",
        "Failing plans",
    ]
    assert view.status_tab == "Per execution"


def test_the_captions_say_the_slice_and_the_outages_left_out() -> None:
    loaded = views.executions_slice(_data(), (), now=NOW)
    view = views.executions_view(loaded.executions, loaded.status_counts, left_out={2})

    words = views.executions_words(
        view,
        "3 executions, 18 Nov - 20 Nov",
        tz="UTC",
        outages=found_outages((2, LIKELY)),
        included=False,
        left_out=1,
    )

    assert words.figures[0] == "3 executions, 18 Nov - 20 Nov. Times are UTC."
    assert "Outages here: #2." in words.figures[1]
    assert words.status.startswith(
        "3 executions, 18 Nov - 20 Nov; 1 likely outage left out (Include outages counts it)."
    )
    assert words.per_plan is None
    assert (
        words.table
        == "3 executions, 18 Nov - 20 Nov, newest first. Select one to open its results."
    )
