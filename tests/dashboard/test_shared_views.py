"""Viewers of the same data share the work (#39): two sessions opening a page on the same data
and parameters get the one view computed by whoever asked first (`ui.shared_views`, through
`cache.built`); a viewer whose parameters differ gets a view of their own, never another's.

Each test opens two sessions (AppTest runs, as two browsers would) on the demo sandbox and
counts the calls of the page's pure view functions. The clock is held at one moment: a
configured service's "now" is the wall clock, which the views are keyed on by the minute.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dashboard.data import cache_connection
from dashboard.data.store import access as store_access
from dashboard.ui import session, shared_views
from tests.dashboard.apptest import FAILURES, HEALTH, STANDUP, TIME_TO_GREEN, assert_no_failure
from tests.dashboard.conftest import AppFactory, Connect

ITEM_COLUMNS = ["Section", "Plan", "Details", "Link"]


class Counted:
    """A function that counts its calls and returns what the real one returns."""

    def __init__(self, real: Callable[..., Any]) -> None:
        self.real = real
        self.calls = 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return self.real(*args, **kwargs)


@pytest.fixture
def held_clock(monkeypatch: pytest.MonkeyPatch) -> datetime:
    """Every session's "now" held at the moment the test starts, and the access check's clock
    with it: cached data is keyed by the check's 15-minute slot, so a test crossing a slot's
    end would otherwise load the data again and see a second computation."""
    moment = datetime.now(UTC)
    monkeypatch.setattr(session, "now", lambda connection: moment)
    held = store_access.AccessChecks(cache_connection._ask_service, clock=moment.timestamp)
    monkeypatch.setattr(cache_connection, "STORE_ACCESS", held)
    return moment


def standup_items(at: AppTest) -> pd.DataFrame:
    """Every item of the standup's sections (its CSV table)."""
    found = [d.value for d in at.dataframe if list(d.value.columns) == ITEM_COLUMNS]
    assert len(found) == 1
    return found[0]


def test_two_viewers_of_the_standup_share_one_computation(
    app: AppFactory, connect: Connect, held_clock: datetime, monkeypatch: pytest.MonkeyPatch
) -> None:
    connect()
    needs = Counted(shared_views.standup_needs)
    view = Counted(shared_views.standup_view)
    monkeypatch.setattr(shared_views, "standup_needs", needs)
    monkeypatch.setattr(shared_views, "standup_view", view)
    first, second = app(STANDUP, tz="UTC"), app(STANDUP, tz="UTC")

    first.run()
    second.run()

    assert_no_failure(first)
    assert_no_failure(second)
    assert (needs.calls, view.calls) == (1, 1)
    pd.testing.assert_frame_equal(standup_items(first), standup_items(second))


def test_a_viewer_with_other_parameters_gets_a_view_of_their_own(
    app: AppFactory, connect: Connect, held_clock: datetime, monkeypatch: pytest.MonkeyPatch
) -> None:
    connect()
    view = Counted(shared_views.standup_view)
    monkeypatch.setattr(shared_views, "standup_view", view)
    alone = app(STANDUP, tz="UTC", outages="true")
    alone.run()
    expected = standup_items(alone)
    first, second = app(STANDUP, tz="UTC"), app(STANDUP, tz="UTC", outages="true")

    first.run()
    second.run()

    assert_no_failure(second)
    # Alone (its caches cleared since), then each viewer: including outages is another view.
    assert view.calls == 3
    pd.testing.assert_frame_equal(standup_items(second), expected)


def test_two_viewers_of_time_to_green_share_one_computation(
    app: AppFactory, connect: Connect, held_clock: datetime, monkeypatch: pytest.MonkeyPatch
) -> None:
    connect()
    view = Counted(shared_views.time_to_green_view)
    monkeypatch.setattr(shared_views, "time_to_green_view", view)
    first, second = app(TIME_TO_GREEN, tz="UTC"), app(TIME_TO_GREEN, tz="UTC")

    first.run()
    second.run()

    assert_no_failure(first)
    assert_no_failure(second)
    assert view.calls == 1
    assert [m.value for m in first.metric] == [m.value for m in second.metric]
    assert len(first.dataframe) == len(second.dataframe)
    for mine, theirs in zip(first.dataframe, second.dataframe, strict=True):
        pd.testing.assert_frame_equal(mine.value, theirs.value)


def test_two_viewers_of_failures_share_one_computation(
    app: AppFactory, connect: Connect, held_clock: datetime, monkeypatch: pytest.MonkeyPatch
) -> None:
    connect()
    view = Counted(shared_views.failures_view)
    monkeypatch.setattr(shared_views, "failures_view", view)
    first, second = app(FAILURES, tz="UTC"), app(FAILURES, tz="UTC")
    other = app(FAILURES, tz="UTC", range="30d")

    first.run()
    second.run()
    other.run()

    assert_no_failure(first)
    assert_no_failure(second)
    assert_no_failure(other)
    assert view.calls == 2  # the two viewers of 7 days once, the one of 30 days once more
    for mine, theirs in zip(first.dataframe, second.dataframe, strict=True):
        pd.testing.assert_frame_equal(mine.value, theirs.value)


def test_two_viewers_of_plan_health_share_one_computation(
    app: AppFactory, connect: Connect, held_clock: datetime, monkeypatch: pytest.MonkeyPatch
) -> None:
    connect()
    view = Counted(shared_views.health_view)
    monkeypatch.setattr(shared_views, "health_view", view)
    first, second = app(HEALTH, tz="UTC"), app(HEALTH, tz="UTC")
    other = app(HEALTH, tz="Europe/Istanbul")

    first.run()
    second.run()
    other.run()

    for at in (first, second, other):
        assert_no_failure(at)
    assert view.calls == 2  # the two viewers in UTC once, the one in Istanbul's days once more
    assert [m.value for m in first.metric] == [m.value for m in second.metric]
    assert len(first.dataframe) == len(second.dataframe) > 0
    for mine, theirs in zip(first.dataframe, second.dataframe, strict=True):
        pd.testing.assert_frame_equal(mine.value, theirs.value)
