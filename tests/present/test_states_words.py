"""The words of the new analytics: each state's evidence, durations that are bounds, trends,
what changed between two executions; what has no measure reads "not enough data"."""

from __future__ import annotations

import pandas as pd

from dashboard.analytics import states, what_changed
from dashboard.analytics.states import StateRules
from dashboard.present import states as states_view
from dashboard.present import time_to_green as red_view
from dashboard.present import what_changed as changes_view

RULES = StateRules(threshold=0.3)


def row(**values: object) -> pd.Series:
    base: dict[str, object] = {
        "runs": 20,
        "fails": 0,
        "flips": 0,
        "flaky_reason": None,
        "clean_runs": 20,
        "trailing_fails": 0,
        "last_runs": 10,
        "last_fails": 0,
    }
    return pd.Series(base | values)


def test_each_state_says_why_in_numbers() -> None:
    flaky = row(state=states.FLAKY, flips=6, flaky_reason="scenario")
    assert states_view.evidence(flaky, RULES) == (
        "6 flips in 19 chances over the last 20 runs; threshold 0.30; at least 5 runs"
    )
    on_one = row(
        state=states.FLAKY,
        flaky_reason="environment",
        flaky_environment="FIREFOX 128 / Linux",
        environment_flips=4,
        environment_runs=6,
    )
    assert states_view.evidence(on_one, RULES) == (
        "on FIREFOX 128 / Linux: 4 flips in 5 chances over its last 6 runs; threshold 0.30; "
        "at least 5 runs"
    )
    broken = row(state=states.BROKEN, last_fails=10, fails=11)
    assert states_view.evidence(broken, RULES) == (
        "failed 10 of its last 10 runs; broken at 90% of the last 10; at least 5 runs"
    )
    one = row(state=states.NOT_ENOUGH_DATA, runs=1)
    assert states_view.evidence(one, RULES) == "1 run in the window; at least 5 needed"
    assert states_view.state_label(None) == "\u2013"


def test_durations_trends_and_bounds() -> None:
    assert red_view.duration_text(pd.Timedelta(hours=5)) == "5 h 00 min"
    assert red_view.duration_text(pd.Timedelta(days=3), bound=True) == "at least 3 d 00 h"
    assert red_view.duration_text(pd.NaT) == "not enough data"
    assert red_view.trend_text(-0.4) == "\u221240 % (faster)"
    assert red_view.trend_text(0.25) == "+25 % (slower)"
    assert red_view.trend_text(0.001) == "no change"
    assert red_view.trend_text(float("nan"), has=1) == (
        "needs 4 red stretches that ended in 90 d, has 1"
    )


def env(change: str, green: tuple[str, ...], red: tuple[str, ...], **more: object) -> pd.Series:
    return pd.Series(
        {"browser": "FIREFOX", "os": "Linux", "green_versions": green, "red_versions": red}
        | {"change": change}
        | more
    )


def test_environment_changes_read_as_testers_say_them() -> None:
    assert changes_view.environment_text(env(what_changed.MOVED, ("128",), ("129",))) == (
        "FIREFOX 129 / Linux, was 128"
    )
    assert changes_view.environment_text(env(what_changed.NEW, (), ("129",))) == (
        "FIREFOX 129 / Linux new"
    )
    assert changes_view.environment_text(env(what_changed.GONE, ("128",), ())) == (
        "FIREFOX 128 / Linux gone"
    )
    # A version not known is not enough data, never compared.
    assert changes_view.environment_text(env(what_changed.UNKNOWN_VERSION, (), ("129",))) == (
        "FIREFOX / Linux: version not known (not enough data)"
    )
    assert changes_view.version_move_text("FIREFOX", "129", "128") == (
        "started failing with FIREFOX 129; was 128"
    )


def test_who_started_it_and_the_plan_s_settings() -> None:
    pair = pd.Series(
        {
            "green_user": "alice",
            "red_user": "bob",
            "settings": what_changed.CHANGED,
            "plan_updated": pd.Timestamp("2026-11-17 10:05", tz="UTC"),
            "plan_updated_by": "carol",
        }
    )
    assert changes_view.starter_text(pair) == "started by bob (alice before)"
    assert (
        changes_view.settings_text(pair, "UTC") == "plan settings changed Tue 17 Nov 10:05 by carol"
    )
    same = pair.copy()
    same["red_user"] = "alice"
    assert changes_view.starter_text(same) == "started by alice, as before"
    unknown = pair.copy()
    unknown["settings"] = what_changed.UNKNOWN
    assert changes_view.settings_text(unknown, "UTC") == "plan settings: not known"


def test_the_preview_sets_the_new_settings_beside_the_applied_ones() -> None:
    now = dict.fromkeys(states.STATES, 0) | {states.FAILING: 2, states.PASSING: 5}
    then = now | {states.FAILING: 1, states.BROKEN: 1}
    preview = states_view.preview_display(now, then).set_index("Scenarios")

    assert list(preview.index) == ["now", "with the new settings", "change"]
    assert preview.loc["change", "\u2716 broken"] == "+1"
    assert preview.loc["change", "\u2716 failing"] == "\u22121"
    assert preview.loc["change", "\u2714 passing"] == "no change"
    assert list(states_view.preview_display(now, None)["Scenarios"]) == ["now"]
