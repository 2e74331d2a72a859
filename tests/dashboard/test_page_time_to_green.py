"""The Time to green page on a hand-built history of red stretches and on the demo: each plan's
time to green over 30 and 90 days and its trend, every red stretch with its links, how old
each failure group is, and the week's turns; what has no measure says "not enough data"."""

from __future__ import annotations

from typing import Any

import pandas as pd

from dashboard.ui.tables import NO_VALUE
from sandbox.data import planted
from tests.dashboard import red_history as red
from tests.dashboard.apptest import (
    HEALTH,
    TIME_TO_GREEN,
    assert_no_failure,
    captions,
    downloads,
    metrics,
    plain_notes,
    table_with,
)
from tests.dashboard.conftest import AppFactory
from tests.present.test_no_missing_cells import missing_cells


def _plans(at: Any) -> Any:
    return table_with(at, "Now", "Trend").set_index("Plan")


def _stretches(at: Any) -> Any:
    return table_with(at, "Red from", "How long")


def _groups(at: Any) -> Any:
    return table_with(at, "Age", "Executions hit")


def test_the_page_draws_the_view_s_figures_tables_and_links(
    app: AppFactory, red_built: red.RedHistory
) -> None:
    """What each figure and table holds is tested on the view (tests/present/
    test_time_to_green_view.py); here, that the page shows them, with the scope, the real links
    and each table's CSV."""
    at = app(TIME_TO_GREEN, tz="UTC")
    at.run()

    assert_no_failure(at)
    assert metrics(at) == {
        "Turned red, last 7 days": "2",
        "Back to green": "1",
        "Red now": "2 plans",
    }
    assert list(_plans(at).index) == ["Mobile smoke", "Checkout nightly", "API contract"]
    assert _plans(at).loc["Checkout nightly", "Time to green, 30 d"] == "5 h 00 min (2 stretches)"
    assert (
        "Red stretches that started (turned red) or ended (back to green) in the last 7 days"
        in captions(at)
    )
    # Failure groups are per scenario by default (#38): Mobile smoke's timeout in each of its
    # two scenarios is a group of its own (across scenarios, one of 6 failures).
    groups = _groups(at)
    timeout = groups[groups["Message"] == "TimeoutException: page not loaded after {n} s"]
    assert sorted(timeout["Scenario ids"]) == ["1", "2"]
    assert timeout["Executions hit"].tolist() == [3, 3]
    assert timeout["Failures"].tolist() == [3, 3]
    assert timeout["Category"].isna().all()  # no rule of the team: drawn as a dash

    at = app(TIME_TO_GREEN, tz="UTC", plan=str(red.CHECKOUT))
    at.run()

    assert_no_failure(at)
    stretches = _stretches(at)
    assert stretches["How long"].iloc[0].startswith("still red, 2 h ")
    newest = stretches.iloc[0]
    assert (
        newest["What changed"] == f"compare?plan={red.CHECKOUT}&before={red.GREEN}&after={red.RED}"
    )
    assert newest["First red"].startswith(f"results?plan={red.CHECKOUT}&execution={red.RED}&")
    # Still red: no green run yet; no cell on the page reads "None": a missing value is drawn
    # as the tables' placeholder, a dash.
    assert newest["Green again"] == "still red"
    assert pd.isna(newest["Green run"])
    for table in at.dataframe:
        assert table.proto.placeholder == NO_VALUE
        assert not missing_cells(table.value), missing_cells(table.value)
    assert stretches.iloc[1]["Green run"].startswith(f"results?plan={red.CHECKOUT}&execution=2132&")
    assert {"red.plans.csv", "red.stretches.csv", "red.groups.csv"} <= set(downloads(at))
    assert "From 15 executions of plan Checkout nightly" in captions(at)


def test_the_demo_s_red_plans_are_found_with_how_long(app: AppFactory) -> None:
    at = app(TIME_TO_GREEN, tz="UTC")
    at.run()

    assert_no_failure(at)
    plans = _plans(at)
    runs = planted.STILL_FAILING_RUNS
    assert (
        plans.loc["Web Shop cross-browser nightly", "Now"]
        == f"\u2716 red for 4 d 21 h ({runs} executions)"
    )
    assert plans.loc["Web Shop smoke", "Now"] == "\u2716 red for 1 h 00 min (1 execution)"
    # The fixed plan was red for its three failing days.
    assert plans.loc["Checkout smoke", "Time to green, 30 d"] == "3 d 00 h (1 stretch)"
    red_now = {name for name, now in plans["Now"].items() if now.startswith("\u2716")}
    # And the retired plan of #37's evaluation, whose broken scenario failed its last runs.
    assert red_now == {"Web Shop cross-browser nightly", "Web Shop smoke"} | (
        {"Web Shop regression (v1)"} if hasattr(planted, "BROKEN_PLAN") else set()
    )


def test_plan_health_says_how_long_plans_stay_red(
    app: AppFactory, red_built: red.RedHistory
) -> None:
    at = app(HEALTH, tz="UTC")
    at.run()

    assert_no_failure(at)
    assert "Turned red in the last 7 days: 2, back to green: 1." in plain_notes(
        at, "info"
    ) + "\n".join(str(t.value) for t in at.text)
    # Each row's figures are tested on the view (tests/present/test_health_view.py).
    shown = table_with(at, "Now", "Time to green, 30 d").set_index("Plan")
    assert set(shown.index) == {"Checkout nightly", "Mobile smoke", "API contract"}
    assert "health.red.csv" in downloads(at)


def test_the_demo_s_outage_night_is_no_red_stretch_unless_outages_are_included(
    app: AppFactory,
) -> None:
    """Plan 6's outage night, green before and after it, is left out by the triage's outage
    rule and said so; included, it is counted and shown apart (#37)."""
    at = app(TIME_TO_GREEN, tz="UTC")
    at.run()

    assert_no_failure(at)
    left_out = [c for c in captions(at).split("\n") if c.startswith("Left out: ")]
    assert len(left_out) == 1
    assert left_out[0].startswith("Left out: 1 red stretch made only of outages (Payment ")
    assert "Outage only" not in _stretches(at).columns

    at.query_params["outages"] = "true"
    at.run()

    assert_no_failure(at)
    stretches = _stretches(at)
    marked = stretches[stretches["Outage only"].notna()]
    assert list(marked["Plan"]) == ["Payment providers"]  # plan `planted.OUTAGE_PLAN`
    assert list(marked["Executions"]) == [1]
    assert "1 red stretch made only of outages, counted because outages are included" in (
        captions(at)
    )
