"""The Flaky scenarios page on the demo data and on a hand-built history: the planted flaky
scenario and the planted failure messages are found, and nothing else; W and the threshold
live in the URL; bad values get clear messages."""

from __future__ import annotations

import re
from typing import Any

from dashboard.analytics.failure_groups import Grouping, normalise_message
from dashboard.present.failure_groups import GROUPS_SHOWN
from sandbox.data import planted
from tests.dashboard import history_service as hand
from tests.dashboard.apptest import (
    FLAKY,
    assert_no_failure,
    captions,
    downloads,
    joined,
    notes,
    table_with,
)
from tests.dashboard.conftest import AppFactory


def unescaped(label: str) -> str:
    """An expander's label as read (its markdown escapes removed)."""
    return re.sub(r"\\(.)", r"\1", label)


def _flaky(at: Any) -> Any:
    return table_with(at, "Evidence", "Timeline")


def _groups(at: Any) -> Any:
    return table_with(at, "Message", "Failures")


def test_the_demo_shows_exactly_the_planted_flaky_scenario(app: AppFactory) -> None:
    at = app(FLAKY, tz="UTC")
    at.run()

    assert_no_failure(at)
    flaky = _flaky(at)
    assert set(zip(flaky["Plan"], flaky["Scenario"], strict=True)) == {
        ("Web Shop regression", planted.FLAKY_SCENARIO)
    }
    whole = flaky[flaky["Environment"] == "all environments"].iloc[0]
    # FLAKY_PATTERN is newest first; the page's timeline is oldest first.
    expected = planted.FLAKY_PATTERN[:20][::-1]
    assert whole["Evidence"] == "12 flips in 20 runs"
    assert whole["Timeline"] == expected.replace("P", "\u2714").replace("F", "\u2716")
    assert whole["Score"] == round(12 / 19, 2)
    assert set(flaky["History"]) == {f"scenario?plan=2&scenario={planted.FLAKY_SCENARIO}"}
    assert list(flaky["Score"]) == sorted(flaky["Score"], reverse=True)
    assert "each plan's last 20 finished executions" in captions(at)
    assert "results of" in captions(at)
    assert {"flaky.table.csv", "groups.table.csv"} <= set(downloads(at))


def _planted_failures() -> tuple[tuple[str, ...], set[int]]:
    """The demo's planted failure templates and failing scenarios, its broken and unresolved
    scenarios' (#37's evaluation cases, one template) among them where the demo plants them."""
    templates, failing = tuple(planted.FAILURE_TEMPLATES), set(planted.FAILING_SCENARIOS)
    broken = getattr(planted, "BROKEN_TEMPLATE", None)
    if broken is not None:
        templates, failing = (*templates, broken), failing | {planted.BROKEN_SCENARIO}
    unresolved = getattr(planted, "UNRESOLVED_SCENARIO", None)
    if unresolved is not None:
        failing |= {unresolved}
    return templates, failing


def test_the_demo_failure_groups_are_the_planted_templates(app: AppFactory) -> None:
    at = app(FLAKY, tz="UTC")
    at.run()

    groups = _groups(at)
    templates, failing = _planted_failures()
    expected = {normalise_message(t.format(n=30, m=2, hex="0x1f2e")) for t in templates}
    # The outage night (where the demo plants one) is no group: outages are left out.
    assert set(groups["Message"]) == expected
    scenarios = {int(s) for ids in groups["Scenario ids"] for s in ids.split(", ")}
    assert scenarios == failing
    # Per scenario (#38): each group is one template in one scenario.
    assert (groups["Scenarios"] == 1).all()
    assert len(groups) == len(set(zip(groups["Message"], groups["Scenario ids"], strict=True)))
    headlines = [unescaped(e.label) for e in at.expander if " failures in " in e.label]
    assert len(headlines) == min(len(groups), GROUPS_SHOWN)
    assert all("first seen" in h and re.search(r" in scenario \d+ on ", h) for h in headlines)
    # Each group says the verdicts of its failures, and each failure its own.
    assert all(v and v != "\u2013" for v in groups["Verdicts"])
    # Each group leads to its results: one row per failed result, with links to each.
    for position in range(len(headlines)):
        assert f"groups.{position}.csv" in downloads(at)
    results = [f.value for f in at.dataframe if "Results" in f.value.columns]
    assert sum(len(r) for r in results) == int(groups["Failures"].head(len(headlines)).sum())
    for frame in results:
        assert all(link.startswith("results?") for link in frame["Results"])
        assert all(link.startswith("scenario?") for link in frame["History"])


def test_the_rule_is_explained_and_w_and_the_threshold_are_in_the_url(app: AppFactory) -> None:
    at = app(FLAKY, tz="UTC", window="10", threshold="0.5")
    at.run()

    assert_no_failure(at)
    rule = joined(at.markdown)
    assert "last 10 finished executions" in rule
    assert "flips / (runs" in rule
    assert "0.5 or more" in rule
    assert at.number_input(key="flaky.window").value == 10
    assert at.number_input(key="flaky.threshold").value == 0.5
    assert dict(at.query_params) == {"tz": "UTC", "window": "10", "threshold": "0.5"}
    assert "each plan's last 10 finished executions" in captions(at)

    at.number_input(key="flaky.threshold").set_value(0.95).run()
    assert at.query_params["threshold"] == "0.95"
    assert _flaky(at).empty
    assert "No scenario is flaky at a threshold of 0.95" in notes(at, "info")


def test_bad_parameters_are_named_and_the_defaults_used(app: AppFactory) -> None:
    at = app(FLAKY, tz="UTC", window="3", threshold="1.5", plan="999")
    at.run()

    assert_no_failure(at)
    warning = notes(at)
    assert '"window" value "3" is not a whole number of executions from 5 to 200' in warning
    assert '"threshold" value "1.5" is not a share from 0.01 to 1' in warning
    assert "Plan 999 is not one of this company's plans" in warning
    assert dict(at.query_params) == {"tz": "UTC"}
    assert set(_flaky(at)["Scenario"]) == {planted.FLAKY_SCENARIO}


def test_the_hand_built_history_shows_its_flaky_scenario_and_nothing_else(
    app: AppFactory, hand_built: hand.HistoryService
) -> None:
    at = app(FLAKY, tz="UTC")
    at.run()

    assert_no_failure(at)
    flaky = _flaky(at)
    # 34 broke once (1 flip in 6 runs on Firefox 129 is 0.2: still not flaky); 32 and 35 fail
    # on one environment only; 33 only slows down.
    assert set(flaky["Scenario"]) == {hand.FLAKY}
    whole = flaky[flaky["Environment"] == "all environments"].iloc[0]
    assert whole["Evidence"] == "7 flips in 12 runs"
    assert whole["Timeline"] == hand.FLAKY_PATTERN.replace("P", "\u2714").replace("F", "\u2716")
    assert whole["Failed"] == "5 of 12 runs"
    # Firefox 128 and 129 are one environment (#38): its timeline holds all 12 runs.
    firefox = flaky[flaky["Environment"] == "FIREFOX / Linux"].iloc[0]
    assert firefox["Timeline"] == whole["Timeline"]
    # Plan 7's 12 and plan 8's 2; the running execution is no part of the window, and the
    # caption says so.
    assert "From 14 executions" in captions(at)
    assert "results of 14 of 14 executions" in captions(at)
    assert "1 execution still running is not counted" in captions(at)


def test_the_hand_built_failure_groups(app: AppFactory, hand_built: hand.HistoryService) -> None:
    at = app(FLAKY, tz="UTC")
    at.run()

    timeout = normalise_message(hand.TIMEOUT_TEMPLATE.format(n=1200, hex="a1b2c3f0"))
    assertion = normalise_message(hand.ASSERTION_TEMPLATE.format(n=3, m=1))
    # Per scenario (#38): one group per message and scenario.
    groups = _groups(at).set_index(["Message", "Scenario ids"])
    assert set(groups.index) == {
        (timeout, "31"),
        (timeout, "34"),
        (assertion, "32"),
        (assertion, "35"),
    }
    # 31 fails in 5 executions on 3 environments (15), 34 in 4 (12); 32 on Safari 12, 35 on
    # Firefox 129 6.
    assert groups["Failures"].to_dict() == {
        (timeout, "31"): 15,
        (timeout, "34"): 12,
        (assertion, "32"): 12,
        (assertion, "35"): 6,
    }
    assert groups.loc[(assertion, "35"), "On"] == "FIREFOX / Linux"
    labels = [unescaped(e.label) for e in at.expander if " failures in " in e.label]
    # Chrome, Safari and Firefox (128 and 129 are one environment, #38).
    assert labels[0].startswith(timeout + " - 15 failures in scenario 31 on 3 environments")


def test_the_groups_across_scenarios_are_one_choice_away_and_in_the_link(
    app: AppFactory, hand_built: hand.HistoryService
) -> None:
    timeout = normalise_message(hand.TIMEOUT_TEMPLATE.format(n=1200, hex="a1b2c3f0"))
    assertion = normalise_message(hand.ASSERTION_TEMPLATE.format(n=3, m=1))
    at = app(FLAKY, tz="UTC")
    at.run()
    assert len(_groups(at)) == 4  # per scenario

    at.segmented_control(key="flaky.grouping").set_value(Grouping.ACROSS).run()

    assert_no_failure(at)
    assert at.query_params["groups"] == "across"
    across = _groups(at).set_index("Message")
    assert (across.loc[timeout, "Failures"], across.loc[timeout, "Scenarios"]) == (27, 2)
    assert (across.loc[assertion, "Failures"], across.loc[assertion, "Scenarios"]) == (18, 2)
    assert across.loc[assertion, "On"] == "FIREFOX / Linux; SAFARI / macOS"
    assert "whatever the scenario (across scenarios)" in captions(at)


def test_a_plan_narrows_the_page_to_its_scenarios(app: AppFactory) -> None:
    at = app(FLAKY, tz="UTC", plan=str(planted.STILL_FAILING_PLAN))
    at.run()

    assert_no_failure(at)
    # Plan 3's scenario 5 fails on Safari in every run: environment-specific, not flaky.
    assert _flaky(at).empty
    assert "From 20 executions of plan Web Shop cross-browser nightly" in captions(at)
    assert at.query_params["plan"] == str(planted.STILL_FAILING_PLAN)

    at.query_params["plan"] = str(planted.SCENARIO_CASES_PLAN)
    at.run()
    assert set(_flaky(at)["Scenario"]) == {planted.FLAKY_SCENARIO}


def test_a_low_threshold_in_the_link_is_what_the_widget_and_the_analytics_use(
    app: AppFactory,
) -> None:
    # The reader and the widget share THRESHOLD_BOUNDS: a threshold the link may hold is one
    # the widget can show, so the widget, the rule, the analytics and the URL agree.
    at = app(FLAKY, tz="UTC", threshold="0.01")
    at.run()

    assert_no_failure(at)
    assert at.number_input(key="flaky.threshold").value == 0.01
    assert "0.01 or more" in joined(at.markdown)
    assert at.query_params["threshold"] == "0.01"
    assert not notes(at)
    # At 0.01 every scenario with one flip is listed: more than the 0.2 default shows.
    assert len(_flaky(at)) > 2

    at.number_input(key="flaky.threshold").set_value(0.5).run()
    assert at.query_params["threshold"] == "0.5"
    assert "0.5 or more" in joined(at.markdown)


def test_a_threshold_below_the_widget_s_lowest_gets_a_message_and_the_default(
    app: AppFactory,
) -> None:
    at = app(FLAKY, tz="UTC", threshold="0.005")
    at.run()

    assert_no_failure(at)
    assert '"threshold" value "0.005" is not a share from 0.01 to 1' in notes(at)
    assert at.number_input(key="flaky.threshold").value == 0.2
    assert "0.2 or more" in joined(at.markdown)
    assert dict(at.query_params) == {"tz": "UTC"}
