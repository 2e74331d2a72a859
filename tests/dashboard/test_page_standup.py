"""The Standup page on the demo data, whose planted cases (sandbox/data/planted.py) it must find:
exactly those, in their sections, with their evidence."""

from __future__ import annotations

from sandbox.data import planted
from tests.dashboard.apptest import STANDUP, assert_no_failure, captions
from tests.dashboard.conftest import AppFactory


def test_the_sections_come_in_order_and_say_when_they_are_empty(app: AppFactory) -> None:
    at = app(STANDUP, tz="UTC")

    at.run()

    assert_no_failure(at)
    assert [s.value for s in at.subheader] == [
        "Turned red",
        "Fixed",
        "Still failing",
        "Newly failing scenarios",
        "Slower",
    ]
    assert "A plan is judged on its latest finished execution" in captions(at)
    assert at.query_params == {"tz": "UTC"}


def test_newly_failing_scenarios_link_to_their_history(app: AppFactory) -> None:
    at = app(STANDUP, tz="UTC")

    at.run()

    newly = next(f.value for f in at.dataframe if {"Scenario", "History"} <= set(f.value.columns))
    assert set(newly["Scenario"]) == {planted.TURNED_RED_SCENARIO}
    assert set(newly["History"]) == {
        f"scenario?plan={planted.TURNED_RED_PLAN}&scenario={planted.TURNED_RED_SCENARIO}"
    }
