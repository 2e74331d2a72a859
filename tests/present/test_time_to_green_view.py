"""The Time to green view on the hand-built history of red stretches (tests/dashboard/
red_history.py, as frames, its clock on the hour): each plan's time to green over 30 and 90
days and its trend, every red stretch, how old each failure group is, and the week's turns;
what has no measure says "not enough data". The page's AppTests keep its wiring."""

from __future__ import annotations

from typing import Any

import pandas as pd

from dashboard.analytics.failure_groups import Grouping
from dashboard.analytics.group_rules import CATEGORY, MERGE, TeamRules, team_rules
from dashboard.data.store.group_rules import search_many, usable
from dashboard.present.csv import to_csv
from dashboard.present.time_to_green_view import (
    NO_PLAN,
    NONE_FAILED,
    TimeToGreenView,
    time_to_green_view,
)
from tests.analytics.frames import execution, executions, result, results, ts
from tests.dashboard import red_history as red

NOW = ts("2026-11-20 18:00")


def history() -> pd.DataFrame:
    """The red history's executions: 4 results each (2 on Mobile smoke), its failing cells
    failed."""
    rows = []
    for run in red.RUNS:
        cells = 2 if run.plan_id == red.MOBILE else 4
        rows.append(
            execution(
                run.id,
                run.plan_id,
                str(NOW - pd.Timedelta(hours=run.hours_ago)),
                "fail" if run.failed else "pass",
                results=cells,
                failed=len(red.failing_cells(run)),
                plan=red.PLANS[run.plan_id],
            )
        )
    return executions(rows)


def failed_results() -> pd.DataFrame:
    """The failed results of the history's failing runs, with their messages."""
    rows = []
    for run in red.RUNS:
        for scenario, env in sorted(red.failing_cells(run)):
            number = run.hours_ago % 7 + 2
            template = red.TIMEOUT if run.plan_id == red.MOBILE else red.ASSERTION
            rows.append(
                result(
                    run.id,
                    scenario,
                    "FAILURE",
                    plan_id=run.plan_id,
                    start=NOW - pd.Timedelta(hours=run.hours_ago) + pd.Timedelta(minutes=5),
                    message=template.format(
                        n=number * 10 if run.plan_id == red.MOBILE else number, m=1
                    ),
                    result_id=run.id * 100 + scenario * 10 + env % 10,
                )
            )
    return results(rows)


def view(frame: pd.DataFrame | None = None, *, plan: str | None = None) -> TimeToGreenView:
    return time_to_green_view(
        history() if frame is None else frame,
        now=NOW.to_pydatetime(),
        tz="UTC",
        project=None,
        plan=plan,
        results_link=lambda e, p, s: f"results?plan={p}&execution={e}",
        compare_link=lambda p, before, after: f"compare?plan={p}&before={before}&after={after}",
    )


def _plans(shown: TimeToGreenView) -> Any:
    return shown.plans.display.set_index("Plan")


def test_each_plan_s_time_to_green_its_trend_and_the_week() -> None:
    shown = view()

    assert dict(shown.kpis) == {
        "Turned red, last 7 days": "2",
        "Back to green": "1",
        "Red now": "2 plans",
    }
    plans = _plans(shown)
    checkout = plans.loc["Checkout nightly"].to_dict()
    # Red since 2 hours before the clock's hour.
    assert checkout.pop("Now") == "\u2716 red for 2 h 00 min (1 execution)"
    assert checkout == {
        "Time to green, 30 d": "5 h 00 min (2 stretches)",
        "Time to green, 90 d": "10 h 00 min (4 stretches)",
        "Trend": "\u221284 % (faster)",
        "Red stretches": 5,
        "Ever green": "yes",
    }
    # Never green: red for at least as long as its history, and no time to green at all.
    never = plans.loc["Mobile smoke"]
    assert never["Now"].startswith("\u2716 red for at least 4 d ")
    assert never["Now"].endswith("(3 executions)")
    assert (never["Time to green, 30 d"], never["Trend"]) == (
        "not enough data",
        "needs 4 red stretches that ended in 90 d, has 0",
    )
    assert never["Ever green"] == "no, never"
    api = plans.loc["API contract"]
    assert (api["Now"], api["Time to green, 30 d"], api["Trend"]) == (
        "\u2714 green",
        "10 h 00 min (1 stretch)",
        "needs 4 red stretches that ended in 90 d, has 1",
    )
    # Red plans first, longest red first.
    assert list(plans.index) == ["Mobile smoke", "Checkout nightly", "API contract"]
    assert shown.turns_caption.startswith(
        "Red stretches that started (turned red) or ended (back to green) in the last 7 days"
    )
    assert shown.no_plan is None
    assert shown.plans.columns["Now"].width == "medium"


def test_every_red_stretch_with_its_evidence() -> None:
    frame = history()
    shown = view(frame[frame["plan_id"] == red.CHECKOUT], plan="Checkout nightly")

    stretches = shown.stretches.display
    assert stretches["How long"].iloc[0] == "still red, 2 h 00 min"
    assert stretches["How long"].tolist()[1:] == [
        "6 h 00 min",
        "4 h 00 min",
        "14 h 00 min",
        "2 d 00 h",
    ]
    assert stretches["Executions"].tolist() == [1, 1, 1, 2, 1]
    newest = stretches.iloc[0]
    assert (
        newest["What changed"] == f"compare?plan={red.CHECKOUT}&before={red.GREEN}&after={red.RED}"
    )
    assert newest["First red"] == f"results?plan={red.CHECKOUT}&execution={red.RED}"
    assert pd.isna(newest["Green run"])  # still red: no green run yet (the table draws a dash)
    assert newest["Green again"] == "still red"
    assert stretches.iloc[1]["Green run"] == f"results?plan={red.CHECKOUT}&execution=2132"
    assert (shown.plans.key, shown.stretches.key) == ("red.plans", "red.stretches")
    assert "From 15 executions of plan Checkout nightly" in shown.plans_caption
    assert shown.stretches_caption.startswith("5 red stretches, newest first.")
    assert {name: c.text for name, c in shown.stretches.columns.items() if c.kind == "link"} == {
        "First red": "results",
        "What changed": "compare",
        "Green run": "results",
    }


def test_failure_groups_say_how_old_they_are() -> None:
    shown = view()
    assert sorted(shown.failing["execution_id"]) == sorted(r.id for r in red.RUNS if r.failed)

    ages = shown.failure_ages(failed_results(), grouping=Grouping.ACROSS)

    groups = ages.table.display.set_index("Message")
    assertion = groups.loc["AssertionError: expected {n} rows but found {n}"]
    assert (assertion["Executions hit"], assertion["Plans"]) == (7, 2)
    assert assertion["Age"] in ("61 d 23 h", "62 d 00 h")  # 62 days less 5 min
    timeout = groups.loc["TimeoutException: page not loaded after {n} s"]
    # First seen in its plan's oldest execution: it may be older.
    assert timeout["Age"].startswith("at least 4 d ")
    assert (timeout["Executions hit"], timeout["Failures"]) == (3, 6)
    assert ages.none_failed is None
    assert ages.table.key == "red.groups"


ASSERTION = "AssertionError: expected {n} rows but found {n}"


def test_by_default_each_group_is_one_scenario_s_with_its_own_age() -> None:
    """Across scenarios the assertion is one group 62 days old over 7 executions of two
    plans; per scenario (the default) it is three problems, each with its own age."""
    ages = view().failure_ages(failed_results())

    groups = ages.table.display
    assertion = groups[groups["Message"] == ASSERTION]
    assert len(assertion) == 3
    assert (assertion["Scenarios"] == 1).all()
    assert (assertion["Plans"] == 1).all()
    assert assertion["Executions hit"].tolist() == [5, 1, 1]
    assert assertion["Age"].iloc[0] in ("61 d 23 h", "62 d 00 h")
    assert assertion["Age"].iloc[1] == "1 h 55 min"  # the newest problem reads its own age
    assert groups["Failures"].sum() == 13
    assert "in one scenario of a plan" in ages.caption


def _rules(*rows: tuple[str, str, str, str]) -> TeamRules:
    stored = pd.DataFrame(
        [
            {"rule_id": i, "message_pattern": m, "action": a, "label": label, "removed_at": None}
            for i, m, a, label in rows
        ]
    )
    return team_rules(stored, usable, search_many)


def test_the_team_s_rules_merge_groups_and_name_their_category_in_the_table_and_csv() -> None:
    rules = _rules(
        ("m", "^TimeoutException", MERGE, "Mobile page timeouts"),
        ("c", "AssertionError", CATEGORY, "product bug"),
        ("bad", "(x)\\1", CATEGORY, "never"),  # RE2 cannot run it: left out, said
    )

    ages = view().failure_ages(failed_results(), rules)

    groups = ages.table.display
    assert list(groups.columns)[:6] == [
        "Message",
        "Age",
        "First seen",
        "Last seen",
        "Executions hit",
        "Category",
    ]
    merged = groups[groups["Message"] == "Mobile page timeouts"].iloc[0]
    assert (merged["Failures"], merged["Scenarios"], merged["Scenario ids"]) == (6, 2, "1, 2")
    assert pd.isna(merged["Category"])  # merged, but no category rule: a dash
    assert set(groups.loc[groups["Message"] == ASSERTION, "Category"]) == {"product bug"}
    assert "1 rule of the team left out here" in ages.caption
    csv = to_csv(ages.table.display, tz="UTC").decode("utf-8-sig").splitlines()
    assert csv[0].split(",")[5] == "Category"
    timeout_row = next(line for line in csv if line.startswith("Mobile page timeouts"))
    assert timeout_row.split(",")[5] == ""  # no category: an empty cell
    assert any(line.split(",")[5] == "product bug" for line in csv[1:])


def test_nothing_to_measure_is_said_in_a_note() -> None:
    shown = view(history().head(0))

    assert shown.no_plan == NO_PLAN
    assert shown.plans.display.empty
    assert shown.failure_ages(failed_results().head(0)).none_failed == NONE_FAILED


def test_the_trend_is_worded_from_four_stretches_within_the_last_30_days() -> None:
    """The demo's case: a plan red four times in three weeks, nothing older, has a trend (the
    newer two stretches, 2 h and 4 h, against the older two, 8 h and 12 h: 3 h against 10 h)."""
    rows = []
    for n, (days_ago, hours) in enumerate([(20, 8), (15, 12), (10, 2), (5, 4)]):
        green = NOW - pd.Timedelta(days=days_ago)
        rows += [
            execution(10 * n + 1, 9, str(green - pd.Timedelta(hours=hours + 1)), "pass"),
            execution(10 * n + 2, 9, str(green - pd.Timedelta(hours=hours)), "fail"),
            execution(10 * n + 3, 9, str(green), "pass"),
        ]
    plans = _plans(view(executions(rows)))

    assert plans.loc["Plan 9", "Trend"] == "\u221270 % (faster)"
