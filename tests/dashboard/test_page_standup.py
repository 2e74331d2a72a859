"""The Standup page on the demo data, whose planted cases (sandbox/data/planted.py) it must find:
exactly those, in their sections, with their evidence."""

from __future__ import annotations

import re

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


def test_newly_failing_scenarios_say_whose_results_they_were_built_on(app: AppFactory) -> None:
    """Issue 9: a section built on results says how many executions' results it had."""
    at = app(STANDUP, tz="UTC")

    at.run()

    assert_no_failure(at)
    assert re.search(r"Built on the results of [\d,]+ of [\d,]+ executions?", captions(at))
