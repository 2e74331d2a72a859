"""Outages on the compare page, on hand-built frames with known answers: the default comparison
passes outages over and says which; a compared outage is found with its dominant failure group,
and its failures are counted apart from unresolved and known ones."""

from __future__ import annotations

from typing import Any

import pandas as pd

from dashboard.analytics.compare import (
    FIXED,
    NEW_FAILURE,
    STILL_FAILING,
    compare_executions,
    default_pair,
    failure_split,
    outage_sides,
    passed_over,
    with_outage_sides,
)
from dashboard.analytics.known_figures import compare_with_known
from dashboard.analytics.marks import known_cells
from dashboard.analytics.outages import CONFIRMED, LIKELY
from dashboard.columns import marks as columns
from dashboard.columns.marks import MARK_COLUMNS
from dashboard.columns.shapes import empty, typed_rows
from tests.analytics.frames import (
    CHROME,
    DESKTOP,
    FIREFOX,
    execution,
    executions,
    outage_night,
    result,
    results,
    ts,
)

NO_MARKS = empty(MARK_COLUMNS)
GRID = "UnreachableBrowserException: grid node {} did not answer"


def execution_mark(execution_id: int, kind: str) -> dict[str, Any]:
    return {
        "mark_id": f"m{execution_id}",
        "company_id": 1,
        "target": columns.EXECUTION,
        "execution_id": execution_id,
        "plan_id": 1,
        "kind": kind,
        "ticket": "https://status.example.com/incidents/42",
        "created_by": "ann",
        "created_at": ts("2026-11-24 09:00"),
        "updated_at": ts("2026-11-24 09:00"),
        "revision": 1,
    }


def marks(*rows: dict[str, Any]) -> pd.DataFrame:
    return typed_rows(list(rows), MARK_COLUMNS)


# -- the default pair -----------------------------------------------------------------------------


def test_the_default_pair_passes_outages_over_and_says_which() -> None:
    ex = executions(
        [*outage_night().to_dict("records"), execution(6, 1, "2026-11-24 08:00", "pass")]
    )

    assert default_pair(ex, 1) == (4, 6)
    assert default_pair(ex, 1, leave_out={4}) == (3, 6)
    assert passed_over(ex, 1, {4}, before=3) == [4]
    # Two outages in a row are both passed over, oldest first.
    assert default_pair(ex, 1, leave_out={3, 4}) == (2, 6)
    assert passed_over(ex, 1, {3, 4}, before=2) == [3, 4]
    # An outage older than the pair was not passed over.
    assert passed_over(ex, 1, {3}, before=4) == []
    assert default_pair(ex, 1, leave_out={1, 2, 3, 4}) is None
    assert passed_over(ex, 1, {3}, before=99) == []


# -- a compared outage ----------------------------------------------------------------------------


def two_runs() -> pd.DataFrame:
    """#2 then #3 (every result failed, 8 of 10 with the grid's message on three nodes)."""
    rows = []
    for scenario in range(1, 11):
        rows.append(result(2, scenario, "FAILURE" if scenario == 1 else "SUCCESS", CHROME))
        message = GRID.format(scenario % 3) if scenario <= 8 else f"AssertionError {scenario}"
        rows.append(result(3, scenario, "FAILURE", CHROME, message=message))
    return results(rows)


def test_a_compared_likely_outage_is_found_with_its_dominant_failure_group() -> None:
    sides = outage_sides(outage_night(), NO_MARKS, two_runs(), 2, 3)

    assert sides[["execution_id", "side", "state"]].values.tolist() == [[3, "after", LIKELY]]
    row = sides.iloc[0]
    assert (row["failed"], row["verdicts"]) == (10, 10)
    assert row["signature"] == "UnreachableBrowserException: grid node {n} did not answer"
    assert row["signature_failures"] == 8
    # Neither side an outage: nothing.
    assert outage_sides(outage_night(), NO_MARKS, two_runs(), 1, 2).empty


def test_a_confirmed_outage_is_found_whatever_its_share_and_a_dismissed_one_is_not() -> None:
    confirmed = outage_sides(
        outage_night(), marks(execution_mark(4, columns.OUTAGE)), two_runs(), 4, 3
    )
    assert confirmed[["execution_id", "side", "state"]].values.tolist() == [
        [4, "before", CONFIRMED],
        [3, "after", LIKELY],
    ]
    assert confirmed.iloc[0]["ticket"] == "https://status.example.com/incidents/42"
    dismissed = outage_sides(
        outage_night(), marks(execution_mark(3, columns.NOT_AN_OUTAGE)), two_runs(), 2, 3
    )
    assert dismissed.empty


def three_ways() -> pd.DataFrame:
    """#10 before, #11 after, on three environments of scenarios 1-3:
    1: passes before, fails after everywhere (3 new failures);
    2: fails before and after on Chrome (still failing), fails before on Safari and passes
       after (fixed); 3: passes on both sides (still passing)."""
    rows = []
    for env in (CHROME, DESKTOP, FIREFOX):
        rows.append(result(10, 1, "SUCCESS", env))
        rows.append(result(11, 1, "FAILURE", env, message="Timeout after 30 s"))
        rows.append(result(10, 3, "SUCCESS", env))
        rows.append(result(11, 3, "SUCCESS", env))
    rows.append(result(10, 2, "FAILURE", CHROME, message="Timeout after 30 s"))
    rows.append(result(11, 2, "FAILURE", CHROME, message="Timeout after 30 s"))
    rows.append(result(10, 2, "FAILURE", DESKTOP, message="Timeout after 30 s"))
    rows.append(result(11, 2, "SUCCESS", DESKTOP))
    return results(rows)


def split(outage_ids: set[int], mark_rows: tuple[dict[str, Any], ...] = ()) -> pd.DataFrame:
    found = three_ways()
    cells = compare_executions(found, 10, 11).cells
    known = compare_with_known(cells, known_cells(found, marks(*mark_rows)))
    return failure_split(with_outage_sides(known, outage_ids)).set_index("bucket")


def scenario_mark(scenario_id: int) -> dict[str, Any]:
    return {
        **execution_mark(0, columns.KNOWN_ISSUE),
        "mark_id": f"s{scenario_id}",
        "target": columns.SCENARIO,
        "execution_id": None,
        "scenario_id": scenario_id,
    }


def test_failures_are_split_into_unresolved_known_and_in_the_outage() -> None:
    columns_ = ["cells", "unresolved", "known", "outage"]

    nothing = split(set())
    assert nothing.loc[NEW_FAILURE, columns_].tolist() == [3, 3, 0, 0]
    assert nothing.loc[STILL_FAILING, columns_].tolist() == [1, 1, 0, 0]
    assert nothing.loc[FIXED, columns_].tolist() == [1, 1, 0, 0]

    marked = split(set(), (scenario_mark(1),))
    assert marked.loc[NEW_FAILURE, columns_].tolist() == [3, 0, 3, 0]

    # The after side an outage: every failure after is counted there, marked or not.
    after = split({11}, (scenario_mark(1),))
    assert after.loc[NEW_FAILURE, columns_].tolist() == [3, 0, 0, 3]
    assert after.loc[STILL_FAILING, columns_].tolist() == [1, 0, 0, 1]
    assert after.loc[FIXED, "outage"] == 0

    # The before side an outage: its failures that passed after are the outage ending.
    before = split({10})
    assert before.loc[FIXED, columns_].tolist() == [1, 0, 0, 1]
    assert before.loc[NEW_FAILURE, columns_].tolist() == [3, 3, 0, 0]


def test_each_cell_says_which_of_its_sides_was_an_outage() -> None:
    cells = with_outage_sides(compare_executions(three_ways(), 10, 11).cells, [11])

    assert not cells["before_outage"].any()
    assert cells["after_outage"].all()
    assert len(cells) == 8  # scenario 2 ran on two environments
