"""The Plan health view on the hand-built history of red stretches (tests/dashboard/
red_history.py, as frames): its captions, its table's columns and their looks, what is known
told apart, and how long plans stay red over its 30 days. The page's AppTests keep its wiring
(and check its rows against the service's demo)."""

from __future__ import annotations

import pandas as pd

from dashboard.present.health_view import HealthView, health_view
from tests.dashboard import red_history as red
from tests.present.test_time_to_green_view import NOW, history


def view(frame: pd.DataFrame | None = None, *, tz: str = "UTC") -> HealthView:
    return health_view(
        history() if frame is None else frame,
        now=NOW.to_pydatetime(),
        tz=tz,
        project=None,
        plan_names=red.PLANS,
    )


def test_plan_health_says_how_long_plans_stay_red() -> None:
    shown = view()

    assert shown.red_turns == "Turned red in the last 7 days: 2, back to green: 1."
    rows = shown.red_table.display.set_index("Plan")
    assert rows.loc["Checkout nightly", "Time to green, 30 d"] == "5 h 00 min (2 stretches)"
    assert rows.loc["Mobile smoke", "Time to green, 30 d"] == "not enough data"
    assert (shown.red_table.key, shown.red_table.file_name) == (
        "health.red",
        "plan-health-time-to-green.csv",
    )
    assert "Plans red now, or with a red stretch that ended in the last 30 days" in (
        shown.red_caption
    )


def test_the_caption_says_what_the_trend_compares_and_the_zone() -> None:
    shown = view(tz="Europe/Istanbul")

    assert shown.no_plan_ran is None
    assert (
        "Runtime trend: the median runtime of the last 3 days against that of the 14 days "
        "before them" in shown.caption
    )
    assert "Days are in Europe/Istanbul" in shown.caption


def test_the_table_tells_known_failures_apart_and_each_look_names_a_column() -> None:
    shown = view()
    # Plan 21's failed results in the red execution are known; none elsewhere.
    known = pd.Series({red.RED: 1}, dtype="int64")

    table = shown.with_known(known)

    display = table.table.display.set_index("Plan")
    assert display.index[-1] == "API contract"  # failing plans first
    assert display.loc["Checkout nightly", "Known 30 d"] == 1
    assert display.loc["Mobile smoke", "Known 30 d"] == 0
    assert table.caption.startswith("1 of the ")
    assert table.caption.endswith("Counted in the finished executions of the last 30 days.")
    looks = {**table.table.columns, **table.rate_help}
    assert set(looks) | {table.sparkline[0]} <= set(table.table.display.columns)
    assert table.table.columns["Latest finished"].tz == "UTC"
    assert table.table.columns["Pass rate 7 d"].format == "%.1f %%"
    assert (table.table.key, table.table.file_name) == ("health.table", "plan-health.csv")


def test_no_plan_ran_is_all_it_says() -> None:
    shown = view(history().head(0))

    assert shown.no_plan_ran is not None
    assert shown.no_plan_ran.endswith(": no plan ran.")
