"""A mark frame holding a row no face should apply (a kind or a target this program does not
know, a field its target needs missing, no time it was made): `applying` leaves it out and
`covering_marks` never names it, so neither the pages, the alerts nor the gate count it."""

from __future__ import annotations

from typing import Any

import pytest

from dashboard.analytics import marks as analytics
from dashboard.columns import marks as columns
from tests.analytics.test_marks import NOW, mark, marks, window_results

MALFORMED: dict[str, dict[str, Any]] = {
    "unknown kind": {"kind": "bogus"},
    "a failure's kind on an execution": {
        "target": columns.EXECUTION,
        "execution_id": 31,
        "scenario_id": None,
        "kind": columns.KNOWN_ISSUE,
    },
    "an outage's kind on a scenario": {"kind": columns.OUTAGE},
    "unknown target": {"target": "planet"},
    "no scenario": {"scenario_id": None},
    "no time made": {"created_at": None},
}


@pytest.mark.parametrize("fields", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_mark_neither_applies_nor_covers(fields: dict[str, Any]) -> None:
    shape = {"target": columns.SCENARIO, "plan_id": 1, "scenario_id": 2, **fields}
    bad = mark("bad", shape.pop("target"), **shape)
    good = mark("good", columns.SCENARIO, plan_id=1, scenario_id=1)
    frame = marks(bad, good)

    assert analytics.applying(frame, NOW)["mark_id"].tolist() == ["good"]
    assert not analytics.well_formed(frame)[0]
    assert analytics.well_formed(frame)[1]
    named = set(analytics.covering_marks(window_results(), frame)["mark_id"].dropna())
    assert named == {"good"}
    assert analytics.mark_states(frame, NOW)["applies"].tolist() == [False, True]
