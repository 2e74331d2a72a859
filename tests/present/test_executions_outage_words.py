"""Outages in the executions page's words: the table's Status names an outage in text; the
captions say how many were left out, why and which."""

from __future__ import annotations

from dashboard.analytics.outages import CONFIRMED, LIKELY
from dashboard.data import frames
from dashboard.present import executions as words
from dashboard.present import tables
from tests.analytics.frames import found_outages
from tests.dashboard import records


def test_the_executions_table_names_each_outage_in_its_status() -> None:
    executions = [
        records.execution(1, result_summary={"FAILURE": 10}),
        records.execution(2, start_date="2026-11-21T00:00:00Z", result_summary={"FAILURE": 9}),
        records.execution(3, start_date="2026-11-22T00:00:00Z", result_summary={"SUCCESS": 9}),
    ]
    labels = words.outage_labels(found_outages((1, LIKELY), (2, CONFIRMED)))
    assert labels == {1: "likely outage", 2: "outage"}

    display = tables.executions_display(
        frames.executions_frame(executions), frames.status_counts_frame(executions), outages=labels
    ).set_index("Id")

    assert display["Status"].to_dict() == {
        1: "\u2716 FAILURE (likely outage)",
        2: "\u2716 FAILURE (outage)",
        3: "\u2714 SUCCESS",
    }


def test_the_outages_caption_says_how_many_why_and_which() -> None:
    assert words.outages_caption(found_outages(), included=False) is None
    left_out = words.outages_caption(found_outages((9, LIKELY)), included=False)
    assert left_out == (
        "1 likely outage (an execution where at least 80% of its 5 or more results failed, or "
        'one a viewer confirmed) left out of these figures and pass rates: "Include outages" '
        "counts it. Outages here: #9. The table lists every execution and names the outages "
        "in its Status."
    )
    many = words.outages_caption(found_outages(*((i, LIKELY) for i in range(1, 8))), included=True)
    assert many is not None
    assert many.startswith("7 outages (")
    assert "counted in these figures. Outages here: #1, #2, #3, #4, #5 and 2 more." in many


def test_each_figure_caption_says_when_outages_were_left_out() -> None:
    assert words.pass_rate_caption("12 executions", 0) == (
        "12 executions; only results with a verdict count (SUCCESS passes)."
    )
    assert words.pass_rate_caption("12 executions", 2) == (
        "12 executions; 2 likely outages left out (Include outages counts them); only results "
        "with a verdict count (SUCCESS passes)."
    )
    assert "; 1 likely outage left out (Include outages" in words.status_caption("x", 1)
    assert words.runtime_caption("x", aggregated=False, left_out=1).endswith(
        "unknown left out; 1 likely outage left out (Include outages counts it)."
    )
