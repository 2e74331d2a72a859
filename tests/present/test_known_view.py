"""The Known failures view on hand-built marks: what the filter keeps, each listed mark's
heading, lines and log, which close button it offers (in one click when it looks fixed) and
what that writes, the marks past the listed ones, and the outages to confirm. The page's
AppTests (tests/dashboard/test_page_known.py) keep its marking."""

from __future__ import annotations

import pandas as pd

from dashboard.analytics.outages import OUTAGE_COLUMNS
from dashboard.columns import marks as columns
from dashboard.columns.marks import MARK_LOG_COLUMNS
from dashboard.columns.shapes import empty, typed_rows
from dashboard.present.known import MarkFilter
from dashboard.present.known_view import DETAILED, TICKET_TEXT, KnownView, known_view
from tests.analytics.frames import ts
from tests.analytics.test_marks import NOW, clean_runs, mark, marks

FIXED = mark("fixed", columns.SCENARIO, plan_id=1, scenario_id=1)
CLOSED = mark(
    "gone", columns.SCENARIO, plan_id=1, scenario_id=2, closed_at=ts("2026-11-20"), closed_by="bo"
)


def log(*mark_ids: str) -> pd.DataFrame:
    rows = [
        {
            "mark_id": m,
            "revision": 1,
            "at": ts("2026-11-01 09:00"),
            "actor": "ann",
            "action": columns.CREATED,
            "what": "made",
        }
        for m in mark_ids
    ]
    return typed_rows(rows, MARK_LOG_COLUMNS)


def view(frame: pd.DataFrame, chosen: MarkFilter = MarkFilter.ALL) -> KnownView:
    return known_view(
        frame,
        log(*frame["mark_id"]),
        clean_runs(12, fail_at=1),  # the fixed mark's scenario: clean in its last 10 runs
        empty(OUTAGE_COLUMNS),
        now=NOW.to_pydatetime(),
        tz="UTC",
        mark_filter=chosen,
        plan_names={1: "Checkout"},
    )


def test_a_mark_that_looks_fixed_is_closed_in_one_click_and_a_closed_one_not_at_all() -> None:
    shown = view(marks(FIXED, CLOSED))

    assert shown.filter_caption == "2 of the company's 2 marks: of every state."
    assert shown.table.display["Mark"].tolist() == ["fixed", "gone"]
    assert shown.table.columns["Ticket"].text == TICKET_TEXT
    fixed, gone = shown.details
    assert fixed.heading == "FIXED \u00b7 Known issue \u00b7 scenario 1 of Checkout (Open)"
    assert (fixed.open, fixed.close_label) == (True, "Close: looks fixed")
    assert fixed.close_reason == "looks fixed: 0 failures in the last 10 runs since 15 Nov"
    assert "Lately: 0 failures in the last 10 runs since 15 Nov" in fixed.lines
    assert fixed.log.display["Who"].tolist() == ["ann"]
    assert (fixed.log.key, fixed.log.file_name) == ("known.log.0", "mark-fixed-log.csv")
    assert not gone.open
    assert gone.lines[-1].startswith("Closed by bo, ")
    assert shown.more_caption is None
    assert shown.outage_choices == []
    assert shown.outage_lines == ()
    assert shown.outages_caption.startswith("No likely outage in the last 90 days")


def test_the_filter_keeps_its_marks_and_only_the_first_are_listed() -> None:
    many = marks(
        *(mark(f"m{i:02d}", columns.SCENARIO, plan_id=1, scenario_id=3) for i in range(40)),
        CLOSED,
    )

    shown = view(many, MarkFilter.OPEN)

    assert len(shown.table.display) == 40
    assert len(shown.details) == DETAILED
    assert shown.more_caption == (
        f"The first {DETAILED} of these 40 marks are listed with their log; the table and its "
        "CSV hold every one."
    )
    assert view(many, MarkFilter.CLOSED).table.display["Mark"].tolist() == ["gone"]
