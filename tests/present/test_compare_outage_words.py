"""Outages in the compare page's words: a compared outage is one line naming its dominant
failure group; the pickers and the passed-over note name outages; the split caption counts an
outage's failures apart and the table flags its cells."""

from __future__ import annotations

import pandas as pd

from dashboard.analytics.compare import compare_executions, with_outage_sides
from dashboard.analytics.known_figures import compare_with_known
from dashboard.analytics.marks import known_cells
from dashboard.analytics.outages import CONFIRMED, LIKELY
from dashboard.columns.marks import MARK_COLUMNS
from dashboard.columns.shapes import empty
from dashboard.present import compare as compare_view
from tests.analytics.frames import CHROME, DESKTOP, found_outages, result, results, ts


def test_a_compared_outage_is_one_line_naming_its_dominant_failure_group() -> None:
    sides = found_outages((1005, LIKELY)).assign(side="after")

    (line,) = compare_view.outage_lines(sides, {7: "Checkout"}, "UTC")

    assert line == (
        "After: Checkout, execution 1005 (Tue 24 Nov 02:00): likely outage, 38 of 40 results "
        'failed, most with "UnreachableBrowser: node {n} <b>"down"</b>". Its failures are '
        "counted apart below, not as regressions; the default comparison passes outages over."
    )
    (before,) = compare_view.outage_lines(
        found_outages((1004, CONFIRMED)).assign(side="before"), {}, "UTC"
    )
    assert before.startswith("Before: Plan 7, execution 1004 (Tue 24 Nov 02:00): outage, ")


def test_the_pickers_and_the_passed_over_note_name_the_outages() -> None:
    executions = pd.DataFrame(
        {
            "execution_id": [1, 2],
            "start": [ts("2026-11-23 08:00"), ts("2026-11-24 08:00")],
            "finished": [True, True],
        }
    )
    assert compare_view.execution_options(executions, "UTC", {2: "likely outage"}) == {
        2: "#2, Tue 24 Nov 08:00 (likely outage)",
        1: "#1, Mon 23 Nov 08:00",
    }
    assert compare_view.passed_over_text([]) is None
    assert compare_view.passed_over_text([3, 4]) == (
        "#3, #4 are likely outages, newer than the executions compared: passed over by default, "
        "since an outage says nothing about what changed in the tests. Pick it in Before or "
        "After to compare it."
    )


def compared(outage_ids: list[int]) -> pd.DataFrame:
    """#10 passes scenario 1 on two environments and fails scenario 2; #11 fails them all."""
    rows = [
        result(10, 1, "SUCCESS", CHROME),
        result(10, 1, "SUCCESS", DESKTOP),
        result(10, 2, "FAILURE", CHROME, message="Timeout"),
        result(11, 1, "FAILURE", CHROME, message="grid"),
        result(11, 1, "FAILURE", DESKTOP, message="grid"),
        result(11, 2, "FAILURE", CHROME, message="grid"),
    ]
    cells = compare_executions(results(rows), 10, 11).cells
    known = compare_with_known(cells, known_cells(results(rows), empty(MARK_COLUMNS)))
    return with_outage_sides(known, outage_ids)


def test_the_split_caption_counts_an_outage_apart_and_flags_its_cells() -> None:
    plain = compare_view.known_caption(compared([]))
    assert plain.startswith(
        "New failures: 2 unresolved, 0 known. Still failing: 1 unresolved, 0 known. Known"
    )
    assert "outage" not in plain

    after = compare_view.known_caption(compared([11]))
    assert after.startswith(
        "New failures: 0 unresolved, 0 known, 2 in the outage. "
        "Still failing: 0 unresolved, 0 known, 1 in the outage. Known"
    )
    assert after.endswith(
        "A failure in an outage is counted there, not as unresolved or "
        "known, whatever mark covers it."
    )

    display = compare_view.compare_display(compared([11]), 7, lambda p, s: f"{p}/{s}")
    assert set(display["After"]) == {"\u2716 failed (outage)"}
    assert "(outage)" not in " ".join(display["Before"])
