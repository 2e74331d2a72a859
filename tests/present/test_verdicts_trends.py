"""The trend and run pages read the one verdict per failed result (`analytics.triage`): Scenario
history's label now, Execution results' outage line and labels, Plan health's "Now" and Time to
green's outage stretches, each on `triage_frames`' hand-built world with known answers."""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd
import pytest

from dashboard.analytics import triage
from dashboard.analytics.executions import ExecutionHeader
from dashboard.analytics.marks import applying
from dashboard.analytics.outages import outages, without_outages
from dashboard.data.live import ResultsData
from dashboard.present import results_view, scenario_view
from dashboard.present.health_view import health_view
from dashboard.present.time_to_green_view import TimeToGreenView, time_to_green_view
from tests.analytics.frames import results
from tests.analytics.triage_frames import (
    CHROME_LABEL,
    NO_MARKS,
    NOW,
    OUTAGE_ID,
    SAFARI_LABEL,
    WORLD,
    mark,
    marks,
    summaries,
    world,
    world_results,
)

PASSES_BUT_IN_THE_OUTAGE = {8: {"chrome": "PPPPPPPPPP", "safari": "PPPPPPPPPP"}}


def judged(
    scenarios: dict[int, dict[str, str]] = WORLD, the_marks: pd.DataFrame = NO_MARKS
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(verdicts, results, executions) of a world, outage night included."""
    found, executions = world(scenarios)
    return triage.failure_verdicts(found, executions, the_marks, now=NOW), found, executions


# -- Scenario history: its label now, with its evidence -------------------------------------


@pytest.mark.parametrize(
    ("scenario", "label", "evidence"),
    [
        (1, triage.NEW, f"first failure on {CHROME_LABEL}, after 9 runs there without one"),
        (2, triage.BROKEN, "failed 10 of its last 10 runs since 10 Nov"),
        (3, triage.FLAKY, f"9 flips in 10 runs on {CHROME_LABEL} since 10 Nov"),
        (4, triage.ENVIRONMENT_SPECIFIC, f"fails only on {SAFARI_LABEL}: 10 of 10 runs"),
        (5, triage.RECOVERING, "passes now: its last run passed on 19 Nov"),
        (6, triage.ENVIRONMENT_SPECIFIC, f"fails only on {CHROME_LABEL}: 10 of 10 runs"),
        (7, triage.UNRESOLVED, "failed 3 of its 10 runs since 10 Nov"),
    ],
)
def test_the_scenario_says_the_verdict_of_its_latest_failure(
    scenario: int, label: str, evidence: str
) -> None:
    verdicts, results, _ = judged()

    now = scenario_view.current_label(verdicts, results, plan=1, scenario=scenario, tz="UTC")

    assert now.label == label
    assert now.text is not None
    assert now.text.startswith("Now: ")
    assert evidence in now.text


def test_a_just_fixed_scenario_is_recovering_not_broken() -> None:
    """Scenario 5 failed 9 of its last 10 runs and passed the 10th: `states` says broken."""
    verdicts, results, _ = judged()

    now = scenario_view.current_label(verdicts, results, plan=1, scenario=5, tz="UTC")

    assert now.label == triage.RECOVERING
    assert now.text is not None
    assert "broken" not in now.text


def test_a_scenario_that_failed_only_in_the_outage_is_passing_and_says_the_outage() -> None:
    verdicts, results, _ = judged({**WORLD, **PASSES_BUT_IN_THE_OUTAGE})

    now = scenario_view.current_label(verdicts, results, plan=1, scenario=8, tz="UTC")

    assert now.label == "passing"
    assert now.text == (
        "Now: \u2714 passing \u2014 no failure in its 10 runs of the window but in an outage "
        "(in the likely outage of 15 Nov 02:00: 94 % of the run failed with one message)"
    )


def test_a_known_failure_says_its_mark() -> None:
    known = marks(mark("shop-123", "scenario", plan_id=1, scenario_id=2))
    verdicts, results, _ = judged(the_marks=known)

    now = scenario_view.current_label(verdicts, results, plan=1, scenario=2, tz="UTC")

    assert now.label == triage.KNOWN
    assert now.text is not None
    assert "known: SHOP-123, owner ann" in now.text


def test_a_scenario_without_a_run_says_nothing() -> None:
    verdicts, results, _ = judged()

    now = scenario_view.current_label(verdicts, results, plan=1, scenario=99, tz="UTC")

    assert now.text is None


# -- Execution results: a likely outage said at the top, each failed row's label ------------


def header_of(executions: pd.DataFrame, execution_id: int) -> ExecutionHeader:
    row = executions[executions["execution_id"] == execution_id].iloc[0]
    failed, results = int(row["failed"]), int(row["results"])
    return ExecutionHeader(
        execution_id=execution_id,
        plan_id=1,
        plan="Web Shop",
        project="Web",
        user="ada",
        start=row["start"].to_pydatetime(),
        end=row["start"].to_pydatetime(),
        runtime_s=60.0,
        results=results,
        failed=failed,
        pass_rate=(results - failed) / results,
        summary=(("SUCCESS", results - failed), ("FAILURE", failed)),
    )


def results_page(execution_id: int, the_marks: pd.DataFrame = NO_MARKS) -> results_view.ResultsView:
    """The results page's view of one execution of the world, judged as the page judges it."""
    found, executions = world()
    header = header_of(executions, execution_id)
    own = found[found["execution_id"] == execution_id]
    window = (
        SimpleNamespace(results=found, executions=executions)
        if results_view.wants_window(header, the_marks, finished=True)
        else None
    )
    given, listed = results_view.verdict_input(header, own, finished=True, window=window)
    verdicts = triage.failure_verdicts(given, listed, the_marks, now=NOW, judged=[execution_id])
    return results_view.results_view(
        ResultsData(own.reset_index(drop=True), scenarios=7),
        header,
        the_marks,
        finished=True,
        tz="UTC",
        now=NOW,
        source="demo",
        scenario_link=str,
        verdicts=verdicts,
    )


def test_an_outage_execution_says_so_at_the_top_with_its_one_message() -> None:
    view = results_page(OUTAGE_ID)

    assert view.outage == (
        "likely outage: 93 % of the run failed with one message: UnreachableBrowser: grid "
        "down. Its failures are labelled outage; the trend pages leave it out unless outages "
        "are included."
    )
    assert view.shown is not None
    table = view.shown.table.display
    failed = table[table["Level"] == "FAILURE"]
    assert set(failed["Verdict"]) == {"\u26a1 outage"}
    assert table.loc[table["Level"] == "SUCCESS", "Verdict"].isna().all()


def test_an_outage_needs_no_window_and_an_ordinary_failure_does() -> None:
    _, executions = world()

    assert not results_view.wants_window(header_of(executions, OUTAGE_ID), NO_MARKS, finished=True)
    assert results_view.wants_window(header_of(executions, 10), NO_MARKS, finished=True)
    assert not results_view.wants_window(header_of(executions, 10), NO_MARKS, finished=False)


def test_each_failed_row_shows_its_verdict_beside_its_level() -> None:
    """Execution 10 (19 Nov): scenario 1 new on CHROME, 2 broken, 3 flaky on CHROME, 4
    environment-specific on SAFARI, 6 on CHROME, 7 unresolved; scenario 5 passed."""
    view = results_page(10)

    assert view.outage is None
    assert view.shown is not None
    table = view.shown.table.display
    assert list(table.columns[:3]) == ["Scenario", "Level", "Verdict"]
    failed = table[table["Level"] == "FAILURE"]
    assert sorted(zip(failed["Scenario"], failed["Verdict"], strict=True)) == [
        (1, "\u2731 new"),
        (2, "\u2716 broken"),
        (2, "\u2716 broken"),
        (3, "\u21c4 flaky"),
        (4, "\u25d0 environment-specific"),
        (6, "\u25d0 environment-specific"),
        (7, "\u2716 unresolved"),
    ]
    assert table.loc[table["Level"] == "SUCCESS", "Verdict"].isna().all()


def test_a_known_failure_reads_known_on_its_row() -> None:
    known = marks(mark("shop-123", "scenario", plan_id=1, scenario_id=2))

    table = results_page(10, known).shown.table.display  # type: ignore[union-attr]

    assert set(table.loc[table["Scenario"] == 2, "Verdict"]) == {"\u25c6 known"}


# -- Plan health: "Now" as the verdicts of each plan's latest finished execution -------------

GREEN = {s: {"chrome": "PPPPPPPPPP", "safari": "PPPPPPPPPP"} for s in (1, 2, 3)}
LAST_NIGHT = {OUTAGE_ID: "2026-11-19 20:00"}  # the outage after the world's last day


def health_now(
    scenarios: dict[int, dict[str, str]] = WORLD,
    the_marks: pd.DataFrame = NO_MARKS,
    *,
    include_outages: bool = False,
    starts: dict[int, str] | None = None,
) -> str:
    """The one plan's "Now" on Plan health, wired as the page wires it."""
    rows = world_results(scenarios)
    found, every = results(rows), summaries(rows, starts=starts)
    current = applying(the_marks, NOW)
    left_out = outages(every, current)
    executions = every if include_outages else without_outages(every, left_out)
    view = health_view(executions, now=NOW.to_pydatetime(), tz="UTC", project=None, plan_names={})
    latest = view.latest_failing(marks=current, include_outages=include_outages)
    verdicts = triage.failure_verdicts(
        found[found["execution_id"].isin(latest["execution_id"])], every, the_marks, now=NOW
    )
    table = view.with_known(pd.Series(dtype="int64"), verdicts, left_out, included=include_outages)
    return str(table.table.display["Now"].iloc[0])


def test_a_plan_whose_every_latest_failure_is_known_reads_so() -> None:
    every_failing = (1, 2, 3, 4, 6, 7)  # execution 10's failing scenarios
    known = marks(*(mark(f"m{s}", "scenario", plan_id=1, scenario_id=s) for s in every_failing))
    some = marks(mark("m2", "scenario", plan_id=1, scenario_id=2))

    assert health_now(the_marks=known) == "\u25c6 failing, all known"
    assert health_now(the_marks=some) == "\u2716 failing"
    assert health_now() == "\u2716 failing"


def test_a_plan_red_only_in_an_outage_reads_so() -> None:
    """Green every day, then the grid went down last night."""
    assert health_now(GREEN, starts=LAST_NIGHT) == (
        "\u2714 passing \u00b7 then \u26a1 red only in an outage (left out)"
    )
    assert health_now(GREEN, starts=LAST_NIGHT, include_outages=True) == (
        "\u26a1 failing, in an outage"
    )


def test_an_outage_before_the_latest_run_changes_nothing() -> None:
    assert health_now(GREEN) == "\u2714 passing"
    assert health_now(GREEN, include_outages=True) == "\u2714 passing"


# -- Time to green: a red stretch made only of outages, by the triage's outage rule ----------


def green_view(
    scenarios: dict[int, dict[str, str]] = GREEN, *, include_outages: bool = False
) -> TimeToGreenView:
    """Time to green on a world, wired as the page wires it (`triage_of`'s outages)."""
    every = summaries(world_results(scenarios))
    found = outages(every, applying(NO_MARKS, NOW))
    return time_to_green_view(
        every if include_outages else without_outages(every, found),
        now=NOW.to_pydatetime(),
        tz="UTC",
        project=None,
        plan=None,
        results_link=lambda e, p, s: f"results?execution={e}",
        compare_link=lambda p, before, after: f"compare?before={before}&after={after}",
        every=every,
        outages=found,
        included=include_outages,
    )


def test_a_stretch_made_only_of_an_outage_is_no_red_stretch_and_the_caption_says_so() -> None:
    """Green every day but the night of 15 Nov, when the grid was down."""
    view = green_view()

    assert view.found.stretches.empty
    assert view.kpis[0][1] == "0"  # turned red in the last 7 days
    assert view.outages_caption is not None
    assert view.outages_caption.startswith("Left out: 1 red stretch made only of outages (")
    assert "15 Nov" in view.outages_caption


def test_included_a_stretch_made_only_of_an_outage_is_counted_and_shown_apart() -> None:
    view = green_view(include_outages=True)

    table = view.stretches.display
    assert len(table) == 1
    assert list(table["Outage only"]) == ["\u26a1 outage only"]
    assert list(table["Executions"]) == [1]
    assert view.outages_caption == (
        "1 red stretch made only of outages, counted because outages are included: Outage "
        "only marks it."
    )


def test_a_stretch_with_failures_besides_the_outage_stays_a_red_stretch() -> None:
    """In the world every execution fails something (scenario 2 is broken)."""
    for include in (False, True):
        view = green_view(WORLD, include_outages=include)

        assert len(view.found.stretches) == 1
        assert view.outages_caption is None
        assert "Outage only" not in view.stretches.display.columns
