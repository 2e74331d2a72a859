"""The Failures page's view on hand-built histories: the period's executions and the failing
ones whose results are read, each failed result's one verdict with its evidence and the mark's
owner and ticket, the rows sorted those needing action first, the figures split by verdict, the
outages left out until included, the states filter, what cannot be judged, the caption, the
note when none is listed, and the table's key, rows sent and columns' looks."""

from __future__ import annotations

from datetime import UTC, datetime, time
from typing import Any

import pandas as pd

from dashboard.analytics import triage
from dashboard.analytics.failure_groups import Grouping
from dashboard.analytics.group_rules import CATEGORY, MERGE, team_rules
from dashboard.columns import marks as columns
from dashboard.data.store.group_rules import search_many, usable
from dashboard.present import failures_view as view_of
from dashboard.present.csv import to_csv
from dashboard.present.failures_view import FailuresView, PeriodRuns
from tests.analytics.frames import execution, executions, results, ts
from tests.analytics.test_failures import history, outcomes
from tests.analytics.triage_frames import (
    CHROME_LABEL,
    NO_MARKS,
    NOW,
    OUTAGE_ID,
    SAFARI_LABEL,
    WORLD,
    mark,
    marks,
    result_id,
    summaries,
    world_results,
)


def since(text: str) -> datetime:
    return ts(text).to_pydatetime()


def view(runs: PeriodRuns, *, only: tuple[str, ...] = (), **more: Any) -> FailuresView:
    read = outcomes()
    failing = read[read["execution_id"].isin(runs.failing["execution_id"])]
    verdicts = triage.failure_verdicts(
        view_of.triage_results(read, failing),
        runs.executions,
        NO_MARKS,
        now=ts("2025-06-07 12:00"),
        judged=runs.judged,
    )
    return view_of.failures_view(
        history(),
        read,
        history()[history()["finished"]],
        runs,
        failing,
        verdicts=verdicts,
        marks=NO_MARKS,
        include_outages=False,
        only=only,
        now=datetime(2025, 6, 7, 12, tzinfo=UTC),
        scope="",
        plan_names={1: "Smoke"},
        scenario_link=lambda plan, scenario: f"scenario?plan={plan}&scenario={scenario}",
        results_link=lambda execution_id, plan, started: f"results?execution={execution_id}",
        tz="UTC",
        **more,
    )


def test_the_period_s_failing_executions_are_the_ones_read() -> None:
    runs = view_of.period_runs(history(), None, start=since("2025-06-04 00:00"), end=None)

    assert (runs.start, runs.end) == (since("2025-06-04 00:00"), None)
    assert sorted(runs.failing["execution_id"]) == [4, 5, 6, 7, 21]


def test_a_custom_period_is_read_beside_the_lookback_each_execution_once() -> None:
    custom = executions(
        [execution(40, 3, "2025-01-02 10:00", "fail"), execution(6, 1, "2025-06-06 10:00", "fail")]
    )

    runs = view_of.period_runs(history(), custom, start=None, end=since("2025-01-02 23:59:59.999"))

    # No start: from the first; the end's last millisecond is in.
    assert (runs.start, runs.end) == (datetime(1970, 1, 1, tzinfo=UTC), since("2025-01-03"))
    assert runs.executions["execution_id"].is_unique
    assert set(runs.executions["execution_id"]) == {*history()["execution_id"], 40}
    assert list(runs.failing["execution_id"]) == [40]


def test_every_failed_result_of_the_period_with_its_state_and_the_figures() -> None:
    shown = view(view_of.period_runs(history(), None, start=since("2025-06-04"), end=None))

    table = shown.table.display
    # Those that need action first, the newest first: scenario 10 failed twice in execution 6.
    scenarios = [None if pd.isna(s) else int(s) for s in table["Scenario"]]
    assert list(
        zip(table["Verdict"], scenarios, table["State"], table["Results"], strict=True)
    ) == [
        ("\u2716 unresolved", 10, "\u2716 failing", "results?execution=6"),
        ("\u2716 unresolved", 10, "\u2716 failing", "results?execution=6"),
        ("\u2716 unresolved", 12, "? not enough data", "results?execution=6"),
        ("\u2716 unresolved", 10, "\u2716 failing", "results?execution=4"),
        ("\u2731 new", 12, "? not enough data", "results?execution=4"),
        # Execution 7 still runs; execution 5's results were not read, nor 21's second failure.
        ("\u22ef results incomplete", 10, "\u2716 failing", "results?execution=7"),
        ("\u22ef results incomplete", None, "\u2013", "results?execution=5"),
        ("\u22ef results incomplete", 30, "? not enough data", "results?execution=21"),
        ("\u21c4 flaky", 11, "\u21c4 flaky", "results?execution=6"),
    ]
    assert table["Evidence"].iloc[0] == "failed 4 of its 5 runs since 1 Jun"
    assert table["Failing since"].iloc[0] == "Mon 2 Jun 10:00 (4 in a row)"
    assert table["History"].iloc[0] == "scenario?plan=1&scenario=10"
    # The 8 failed results read, and execution 5's row for the failures it lacks.
    assert shown.figures == {
        "Needs action": "5",
        "New since standup": "0",
        "Known": "0",
        "In a likely outage": "0",
        "Failed results": "9",
        # Per scenario (#38): the message in scenarios 10, 11, 12 (plan 1) and 30 (plan 2);
        # no message in execution 7's scenario 10 and in execution 5's lacking row.
        "Failure groups": "6",
    }
    assert len(shown.found.rows) == 8
    assert shown.none_note is None
    assert shown.shown_caption is None
    assert shown.caption.startswith("From 5 executions, 4 Jun")
    assert "judged over its plan's last 20 finished executions" in shown.caption


def test_a_state_with_no_failure_is_said_and_counts_nothing() -> None:
    shown = view(
        view_of.period_runs(history(), None, start=since("2025-06-04"), end=None),
        only=("broken",),
    )

    assert shown.table.empty
    assert set(shown.figures.values()) == {"0"}
    assert shown.none_note == "No result of a scenario that is broken failed in these executions."
    # The period's failures are all there, whatever the states listed.
    assert len(shown.found.rows) == 8


def test_the_table_s_key_rows_sent_and_columns_looks() -> None:
    table = view(view_of.period_runs(history(), None, start=since("2025-06-04"), end=None)).table

    assert (table.key, table.file_name, table.tz, table.max_rows) == (
        "failures.table",
        "failures.csv",
        "UTC",
        2_000,
    )
    assert {name: look.kind for name, look in table.columns.items()} == {
        "Evidence": "text",
        "Ticket": "link",
        "Started": "time",
        "Scenario": "ident",
        "Failure group": "text",
        "Category": "text",
        "Message": "wide_text",
        "Results": "link",
        "History": "link",
        "Node log": "link",
        "Executor log": "link",
    }
    assert table.columns["Failure group"].width == "medium"


# -- the verdicts, on the triage world (tests/analytics/triage_frames.py) ------------------------

WORLD_RUNS = 10
"""The world's 10 daily executions (1-10) and its outage night (11), all of them failing."""


def world_view(
    the_marks: pd.DataFrame = NO_MARKS,
    *,
    include_outages: bool = False,
    only: tuple[str, ...] = (),
    standup_at: time | None = None,
    scenarios: dict[int, dict[str, str]] | None = None,
    **summary_options: Any,
) -> FailuresView:
    """The Failures page's view of the world since 10 Nov, judged as the page judges it."""
    rows = world_results(scenarios or WORLD, outage=scenarios is None)
    read, runs_of = results(rows), summaries(rows, **summary_options)
    runs = view_of.period_runs(runs_of, None, start=since("2026-11-10"), end=None)
    failing = read[read["execution_id"].isin(runs.failing["execution_id"])]
    verdicts = triage.failure_verdicts(
        view_of.triage_results(read, failing), runs_of, the_marks, now=NOW, judged=runs.judged
    )
    return view_of.failures_view(
        runs_of,
        read,
        runs_of[runs_of["finished"]],
        runs,
        failing,
        verdicts=verdicts,
        marks=the_marks,
        include_outages=include_outages,
        only=only,
        now=NOW.to_pydatetime(),
        standup_at=standup_at,
        scope="",
        plan_names={1: "Shop"},
        scenario_link=lambda plan, scenario: f"scenario?plan={plan}&scenario={scenario}",
        results_link=lambda execution_id, plan, started: f"results?execution={execution_id}",
        tz="UTC",
    )


def verdict_of(shown: FailuresView, execution_id: int, scenario_id: int, env: str) -> Any:
    """The table's row of one failed result of the world."""
    table = shown.table.display
    ids = shown.rows["result_id"]
    (position,) = ids.index[ids == result_id(execution_id, scenario_id, env)]
    return table.iloc[position]


def test_each_failed_result_reads_its_one_verdict_and_evidence() -> None:
    shown = world_view()

    assert verdict_of(shown, 10, 1, "chrome")[["Verdict", "Evidence"]].tolist() == [
        "\u2731 new",
        f"first failure on {CHROME_LABEL}, after 9 runs there without one",
    ]
    assert verdict_of(shown, 10, 7, "chrome")[["Verdict", "Evidence"]].tolist() == [
        "\u2716 unresolved",
        "failed 3 of its 10 runs since 10 Nov",
    ]
    assert verdict_of(shown, 10, 4, "safari")[["Verdict", "Evidence"]].tolist() == [
        "\u25d0 environment-specific",
        f"fails only on {SAFARI_LABEL}: 10 of 10 runs since 10 Nov; passes elsewhere in 10 of "
        "10 runs",
    ]
    assert verdict_of(shown, 10, 2, "chrome")["Verdict"] == "\u2716 broken"
    assert verdict_of(shown, 10, 3, "chrome")["Verdict"] == "\u21c4 flaky"
    # No mark: no owner, no ticket.
    assert shown.table.display[["Owner", "Ticket"]].isna().all().all()


def test_a_just_fixed_scenario_reads_recovering_never_broken() -> None:
    shown = world_view()

    # Scenario 5 failed 9 of its last 10 runs and passed the 10th: its failures' verdict, and
    # its state as the States page reads it, say recovering.
    row = verdict_of(shown, 9, 5, "chrome")
    assert row["State"] == "\u2197 recovering"
    assert row["Verdict"] == "\u2197 recovering"
    assert (
        row["Evidence"] == "passes now: its last run passed on 19 Nov, after failing 9 of 10 runs"
    )
    fives = shown.table.display[shown.rows["scenario_id"] == 5]
    assert set(fives["Verdict"]) == {"\u2197 recovering"}


def test_the_figures_split_the_rows_listed_by_verdict() -> None:
    shown = world_view()

    # 67 failed results without the outage's 13: 2 unresolved, 2 new, 20 broken, 20
    # environment-specific need action; 5 flaky and 18 recovering do not.
    assert shown.figures == {
        "Needs action": "44",
        "New since standup": "0",
        "Known": "0",
        "In a likely outage": "13 left out",
        "Failed results": "67",
        "Failure groups": "7",  # one message in 7 scenarios: a group each (#38)
    }
    assert shown.split == (
        "Of 67 failed results: 44 need action (2 unresolved, 2 new, 20 broken, 20 "
        "environment-specific), 5 flaky, 18 recovering."
    )
    assert set(shown.figure_help) == set(shown.figures)
    assert "unresolved, new, broken, environment-specific" in shown.figure_help["Needs action"]


def test_new_since_the_standup_counts_from_the_standup_s_window() -> None:
    # Friday 20 Nov 10:00: the standup looks back to Thursday 19 Nov 09:30, after execution 10
    # (19 Nov 08:00) started; a 07:00 standup looks back to before it: scenario 1's new failure.
    assert world_view().figures["New since standup"] == "0"
    assert world_view(standup_at=time(7, 0)).figures["New since standup"] == "1"
    assert "Thu 19 Nov 07:00" in world_view(standup_at=time(7, 0)).figure_help["New since standup"]


def test_rows_needing_action_come_first_then_the_newest() -> None:
    shown = world_view(include_outages=True)

    labels = shown.rows["label"].tolist()
    # Each verdict's rows together, in the view's order.
    blocks = [label for position, label in enumerate(labels) if labels.index(label) == position]
    assert blocks == [
        triage.UNRESOLVED,
        triage.NEW,
        triage.BROKEN,
        triage.ENVIRONMENT_SPECIFIC,
        triage.FLAKY,
        triage.RECOVERING,
        triage.OUTAGE,
    ]
    assert list(shown.rows["execution_id"][:4]) == [10, 9, 10, 8]  # unresolved, then new
    broken = shown.rows[shown.rows["label"] == triage.BROKEN]
    assert broken["execution_start"].is_monotonic_decreasing
    assert shown.table.display["Verdict"].iloc[0] == "\u2716 unresolved"


def test_outages_are_left_out_and_counted_until_included() -> None:
    left = world_view()
    assert OUTAGE_ID not in set(left.rows["execution_id"])
    assert left.outages_caption == (
        '13 failed results in a likely outage left out: "Include outages" lists them.'
    )

    shown = world_view(include_outages=True)
    night = shown.table.display[shown.rows["execution_id"] == OUTAGE_ID]
    assert len(night) == 13
    assert set(night["Verdict"]) == {"\u26a1 outage"}
    assert set(night["Evidence"]) == {
        "in the likely outage of 15 Nov 02:00: 93 % of the run failed with one message"
    }
    assert shown.figures["In a likely outage"] == "13"
    assert shown.figures["Failed results"] == "80"
    assert shown.figures["Needs action"] == "44"
    assert shown.outages_caption == (
        "13 failed results in a likely outage listed and counted, labelled outage."
    )


def test_a_known_row_names_its_mark_s_owner_and_ticket() -> None:
    the_marks = marks(
        mark("shop-1", columns.SCENARIO, plan_id=1, scenario_id=2, expires_on=ts("2026-11-30"))
    )
    shown = world_view(the_marks)

    row = verdict_of(shown, 10, 2, "safari")
    assert row[["Verdict", "Evidence", "Owner", "Ticket"]].tolist() == [
        "\u25c6 known",
        "known: SHOP-1, owner ann, until 30 Nov",
        "ann",
        "https://jira.example.com/browse/SHOP-1",
    ]
    assert shown.figures["Known"] == "20"
    assert shown.figures["Needs action"] == "24"
    # Known rows come after the rows that need action.
    assert shown.rows["label"].tolist().index(triage.KNOWN) > max(
        position
        for position, label in enumerate(shown.rows["label"])
        if label in view_of.NEEDS_ACTION
    )


def test_the_states_filter_keeps_working_beside_the_verdicts() -> None:
    shown = world_view(only=("broken", "environment-specific"))

    # The states (outages left out, a passing latest run first) call scenario 2 broken and
    # scenarios 4 and 6 environment-specific; scenario 5, which passes now, is neither.
    assert dict(shown.rows.groupby("scenario_id")["label"].agg(set)) == {
        2: {triage.BROKEN},
        4: {triage.ENVIRONMENT_SPECIFIC},
        6: {triage.ENVIRONMENT_SPECIFIC},
    }
    assert shown.figures["Failed results"] == "40"
    # The outage night's failures of those scenarios: 2 each of scenarios 2 and 6, and 1 of
    # scenario 4 (its CHROME run passed that night).
    assert shown.outages_caption == (
        '5 failed results in a likely outage left out: "Include outages" lists them.'
    )
    assert world_view(only=("recovering",)).figures["Failed results"] == "18"


def test_a_row_that_cannot_be_judged_says_why_and_the_rest_is_listed() -> None:
    # Execution 4's summary counts 3 failures its results do not hold; execution 10 still runs.
    shown = world_view(
        scenarios={1: {"chrome": "PPPPPPPPPF"}, 2: {"chrome": "PPPPPPPPFF"}},
        extra_failed={4: 3},
        running=[10],
    )

    table = shown.table.display
    incomplete = table[table["Verdict"] == "\u22ef results incomplete"]
    assert sorted(incomplete["Evidence"]) == [
        "results incomplete: 3 failures counted by the service are not in its results",
        "results incomplete: execution 10 is still running",
        "results incomplete: execution 10 is still running",
    ]
    lacking = shown.rows[shown.rows["result_id"].isna()]
    assert list(lacking["execution_id"]) == [4]
    assert table.loc[lacking.index[0], "Results"] == "results?execution=4"
    assert pd.isna(table.loc[lacking.index[0], "History"])
    # Scenario 2's first failure, in execution 9, is judged as ever.
    assert verdict_of(shown, 9, 2, "chrome")["Verdict"] == "\u2731 new"
    assert shown.figures["Failed results"] == "4"


def test_the_csv_carries_the_verdict_its_evidence_owner_and_ticket() -> None:
    table = world_view().table

    assert list(table.display.columns[:8]) == [
        "Verdict",
        "Plan",
        "Scenario",
        "Environment",
        "Evidence",
        "State",
        "Owner",
        "Ticket",
    ]
    assert table.columns["Ticket"].kind == "link"
    assert table.columns["Evidence"].kind == "text"


def test_the_table_s_links_are_the_ones_made_row_by_row() -> None:
    """The Results and History links are made once per distinct execution and (plan, scenario),
    not per row: on a hand-built frame with repeats, a missing plan, a missing start and a
    missing scenario, every link is the text the row-by-row construction gives."""
    from dashboard.present.failures import failures_display
    from dashboard.state import links

    start = pd.Timestamp("2026-11-20 17:00", tz="UTC")
    keys = [  # execution, plan, start, scenario
        (11, 2, start, 4),
        (11, 2, start, 4),
        (11, 2, start, 7),
        (12, 2, start + pd.Timedelta(hours=12), 4),
        (13, None, start, 4),
        (13, None, start, 5),
        (14, 3, pd.NaT, None),
        (14, 3, pd.NaT, 5),
        (11, 2, start, 4),
    ]
    n = len(keys)
    rows = pd.DataFrame(
        {
            "label": [triage.UNRESOLVED] * n,
            "evidence": ["evidence"] * n,
            "owner": [None] * n,
            "ticket": [None] * n,
            "execution_id": pd.array([k[0] for k in keys], dtype="Int64"),
            "plan_id": pd.array([k[1] for k in keys], dtype="Int64"),
            "plan": ["Plan"] * n,
            "execution_start": pd.Series([k[2] for k in keys], dtype="datetime64[ns, UTC]"),
            "scenario_id": pd.array([k[3] for k in keys], dtype="Int64"),
            "environment": ["CHROME / Windows 11"] * n,
            "state": ["failing"] * n,
            "failing_since": [None] * n,
            "failing_since_is_bound": [False] * n,
            "failures_in_a_row": [1] * n,
            "signature": ["AssertionError"] * n,
            "message": ["AssertionError"] * n,
            "node_log": [None] * n,
            "executor_log": [None] * n,
        }
    )
    calls: list[tuple[object, ...]] = []

    def results_link(e: int, p: int | None, s: datetime | None) -> str:
        calls.append(("results", e, p, s))
        return links.results_link(e, plan_id=p, started=s)

    def scenario_link(p: int, s: int) -> str:
        calls.append(("history", p, s))
        return links.scenario_link(p, s)

    shown = failures_display(
        rows, plan_names={}, scenario_link=scenario_link, results_link=results_link, tz="UTC"
    )

    row_by_row_results = [
        links.results_link(int(e), plan_id=None if pd.isna(p) else int(p), started=s)
        for e, p, s in zip(
            rows["execution_id"], rows["plan_id"], rows["execution_start"], strict=True
        )
    ]
    row_by_row_history = [
        None if pd.isna(p) or pd.isna(s) else links.scenario_link(int(p), int(s))
        for p, s in zip(rows["plan_id"], rows["scenario_id"], strict=True)
    ]
    # As the table holds them (pandas reads a missing link as its missing value).
    expected = pd.DataFrame({"Results": row_by_row_results, "History": row_by_row_history})
    pd.testing.assert_frame_equal(shown[["Results", "History"]], expected)
    assert shown["History"].isna().tolist() == [p is None for p in row_by_row_history]
    assert shown["Results"].iloc[0] == shown["Results"].iloc[-1]
    assert "execution=14" in shown["Results"].iloc[6]
    # One link per distinct execution (11, 12, 13, 14) and per distinct (plan, scenario) with
    # both known ((2, 4), (2, 7), (3, 5)).
    assert sum(call[0] == "results" for call in calls) == 4
    assert sum(call[0] == "history" for call in calls) == 3


def test_the_team_s_rules_name_each_row_s_group_and_category_and_the_groups_are_counted() -> None:
    """Plan 2's scenario 30 merged by a rule into "Contract drift", the rest of the message a
    product bug; across scenarios the message is one group, the merged one another."""
    stored = pd.DataFrame(
        [
            {
                "rule_id": "m30",
                "message_pattern": ".",
                "scenario_pattern": "^30$",
                "action": MERGE,
                "label": "Contract drift",
                "removed_at": None,
            },
            {
                "rule_id": "c",
                "message_pattern": ".",
                "action": CATEGORY,
                "label": "product bug",
                "removed_at": None,
            },
        ]
    )
    rules = team_rules(stored, usable, search_many)
    runs = view_of.period_runs(history(), None, start=since("2025-06-04"), end=None)

    shown = view(runs, rules=rules)
    across = view(runs, rules=rules, grouping=Grouping.ACROSS)

    table = shown.table.display
    assert table.columns.get_loc("Category") == table.columns.get_loc("Failure group") + 1
    of_scenario = table.set_index("Scenario", drop=False)
    assert of_scenario.loc[30, "Failure group"] == "Contract drift"
    assert of_scenario.loc[30, "Category"] == "product bug"
    messaged = table[table["Message"].notna() & (table["Message"] != "")]
    assert set(messaged["Category"]) == {"product bug"}
    assert table["Category"].isna().sum() == len(table) - len(messaged)  # no message: none
    # Per scenario: the message in 10, 11, 12, Contract drift, no message in 10 and in 5's row.
    assert shown.figures["Failure groups"] == "6"
    assert across.figures["Failure groups"] == "3"  # the message, Contract drift, no message
    lines = to_csv(table, tz="UTC").decode("utf-8-sig").splitlines()
    header = lines[0].split(",")
    assert "Category" in header
