"""No table cell reads "None" (#39). Streamlit draws a missing value (None, NaN, NaT) as the
table's placeholder, which `ui.tables.table` sets to a dash (`NO_VALUE`; Streamlit's own is the
word "None"); a view's display frame may hold missing values, but never text that reads as
nothing ("None", "nan", "NaT": a value turned into text before it was found missing), nor a
sparkline's list with a gap. Each view is driven on hand-built data where the values are
missing: a stretch still red (no green run, no end), a plan never green (no last green), a
scenario absent on one side (no message, no runtime), a plan with no verdict in the last 7
days, failures without logs."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date

import pandas as pd

from dashboard.columns.marks import MARK_COLUMNS
from dashboard.columns.schemas import PLAN_COLUMNS
from dashboard.columns.shapes import empty
from dashboard.present import compare_view
from dashboard.present.table_view import TableView
from tests.analytics.frames import CHROME, found_outages, result, results
from tests.dashboard import red_history as red
from tests.present import test_compare_view as compare
from tests.present import test_failures_view as failures
from tests.present import test_health_view as health
from tests.present import test_time_to_green_view as time_to_green
from tests.present.test_time_to_green_view import NOW

WORDS_OF_NOTHING = {"None", "none", "nan", "NaN", "NaT", "<NA>", "[]"}


def missing_cells(frame: pd.DataFrame) -> list[tuple[object, str, object]]:
    """(row, column, value) of each cell a viewer would read as "None" (or "nan", "NaT") even
    with the placeholder: text saying nothing, or a list with a gap."""
    found = []
    for column in frame.columns:
        for row, value in frame[column].items():
            if isinstance(value, list | tuple):
                bad = any(v is None or pd.isna(v) for v in value)
            else:
                bad = isinstance(value, str) and value.strip() in WORDS_OF_NOTHING
            if bad:
                found.append((row, str(column), value))
    return found


def _tables() -> Iterator[tuple[str, TableView]]:
    ttg = time_to_green.view()
    yield "time to green: plans", ttg.plans
    yield "time to green: stretches", ttg.stretches
    yield (
        "time to green: failure ages",
        ttg.failure_ages(time_to_green.failed_results()).table,
    )
    # API contract's executions moved 20 days back: no verdict, no runtime in the last days.
    frame = time_to_green.history()
    old = frame.assign(
        start=frame["start"].where(frame["plan_id"] != red.API, NOW - pd.Timedelta(days=20))
    )
    shown = health.view(old)
    yield "plan health", shown.with_known(pd.Series(dtype="int64")).table
    yield "plan health: red", shown.red_table
    yield "compare (all cells)", compare._view(only_changes=False).table
    yield "compare (absent, no runtime)", _compare_with_gaps().table
    runs = failures.view_of.period_runs(failures.history(), None, start=None, end=None)
    yield "failures", failures.view(runs).table


def _compare_with_gaps() -> compare.CompareView:
    """Scenario 12 ran only before (absent after); scenario 13 failed after with no runtime
    and no message."""
    runs, found = compare._history()
    extra = results(
        [
            result(1, 12, "SUCCESS", CHROME, start="2025-03-30 08:00"),
            result(1, 13, "SUCCESS", CHROME, start="2025-03-30 08:00", runtime_s=None),
            result(2, 13, "FAILURE", CHROME, start="2025-03-31 08:00", runtime_s=None),
        ]
    )
    return compare_view.compare_view(
        compare_view.pair_choice(runs, compare.PLAN, found_outages()),
        pd.concat([found, extra], ignore_index=True),
        empty(MARK_COLUMNS),
        plans=empty(PLAN_COLUMNS),
        plan_names={compare.PLAN: "Checkout"},
        plan_name="Checkout",
        before=1,
        after=2,
        only_changes=False,
        tz="UTC",
        today=date(2025, 3, 31),
        scenario_link=lambda p, s: f"scenario?plan={p}&scenario={s}",
    )


def test_no_table_cell_reads_none() -> None:
    shown = {name: missing_cells(table.display) for name, table in _tables()}

    assert {name: cells for name, cells in shown.items() if cells} == {}


def test_the_sweep_sees_text_that_reads_as_nothing() -> None:
    frame = pd.DataFrame({"a": ["None", "x"], "b": ["nan", "1"], "c": [[1.0, None], [2.0]]})
    assert [(r, c) for r, c, _ in missing_cells(frame)] == [(0, "a"), (0, "b"), (0, "c")]
    assert missing_cells(pd.DataFrame({"d": [None], "e": [float("nan")]})) == []


def test_still_red_is_a_sentence_and_each_time_stays_a_time_in_the_file() -> None:
    stretches = time_to_green.view().stretches.display
    still = stretches[stretches["How long"].str.startswith("still red")]

    assert set(still["Green again"]) == {"still red"}
    assert stretches["Green again"].str.match(r"^(still red|\w{3} \d{1,2} \w{3} \d\d:\d\d)$").all()
