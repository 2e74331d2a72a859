"""Scenario states and Flaky read the one verdict per failed result (#37): on the hand-built
world of `triage_frames` (an outage night, a known mark, a just-fixed scenario, a flaky, a
broken, two environment-specific and two new ones), the States view and the Flaky view give
each planted scenario the label `failure_verdicts` gives it, fed as their pages feed them:
each plan's last W finished executions without the outages, and the verdicts of that window
over the whole lookback (`ui.triage.verdicts_of`'s inputs)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from datetime import date

import pandas as pd
import pytest

from dashboard.analytics import states, triage
from dashboard.analytics.failure_groups import Grouping
from dashboard.analytics.flaky import last_finished
from dashboard.analytics.marks import applying
from dashboard.analytics.outages import outages
from dashboard.columns import marks as mark_columns
from dashboard.present import flaky_view, states_view
from dashboard.present.flaky_view import FlakyPage
from dashboard.present.states_view import StatesView
from dashboard.present.triage import LABEL_TEXT, evidence_line
from tests.analytics.frames import ts
from tests.analytics.triage_frames import (
    CHROME_LABEL,
    NOW,
    OUTAGE_ID,
    WORLD,
    mark,
    marks,
    world,
)

KNOWN_SCENARIO = 6
THE_MARKS = marks(
    mark(
        "shop-6",
        mark_columns.SCENARIO,
        plan_id=1,
        scenario_id=KNOWN_SCENARIO,
        expires_on=ts("2026-11-30"),
    )
)
PLANTED = {
    1: triage.NEW,
    2: triage.BROKEN,
    3: triage.FLAKY,
    4: triage.ENVIRONMENT_SPECIFIC,
    5: triage.RECOVERING,  # states' rule 4 alone says broken: 9 of its last 10 runs failed
    KNOWN_SCENARIO: triage.KNOWN,
    7: triage.UNRESOLVED,
}
"""The label of each planted scenario's latest failure, as `failure_verdicts` gives it."""

STATE_OF_LABEL = {
    triage.FLAKY: {states.FLAKY},
    triage.RECOVERING: {states.RECOVERING, states.PASSING},
    triage.ENVIRONMENT_SPECIFIC: {states.ENVIRONMENT_SPECIFIC},
    triage.BROKEN: {states.BROKEN},
    triage.NEW: {states.FAILING, states.NOT_ENOUGH_DATA},
    triage.UNRESOLVED: {states.FAILING, states.NOT_ENOUGH_DATA},
}
"""The states a scenario may be in when its latest failure has a label that is a state's."""


World = Mapping[int, Mapping[str, str]]
Inputs = tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]
_MADE: dict[tuple[object, ...], Inputs] = {}


def inputs(
    rules: states.StateRules, the_marks: pd.DataFrame = THE_MARKS, scenarios: World = WORLD
) -> Inputs:
    """(the window's executions, its results, the verdicts, every verdict of the world) as the
    pages read them: the outages found among every execution and left out of the window. Made
    once per rules and marks (nothing here changes them)."""
    key = (rules, tuple(the_marks["mark_id"]), tuple(the_marks["owner"]), repr(scenarios))
    if key not in _MADE:
        _MADE[key] = _inputs(rules, the_marks, scenarios)
    return _MADE[key]


def _inputs(rules: states.StateRules, the_marks: pd.DataFrame, scenarios: World) -> Inputs:
    results, executions = world(scenarios)
    found = outages(executions, applying(the_marks, NOW), results)
    assert set(found["execution_id"]) == {OUTAGE_ID}
    kept = executions[~executions["execution_id"].isin(states_view.left_out(found))]
    window = last_finished(kept, rules.window)["execution_id"]
    window_results = results[results["execution_id"].isin(window)]
    verdicts = triage.failure_verdicts(
        window_results,
        executions,
        the_marks,
        now=NOW,
        rules=rules,
        judged=states_view.judged(kept, rules),
    )
    every = triage.failure_verdicts(results, executions, the_marks, now=NOW, rules=rules)
    return kept, window_results, verdicts, every


def latest_labels(verdicts: pd.DataFrame) -> dict[int, str]:
    """Each scenario's latest failure's label, outages left aside (of one execution's
    failures, the first of the precedence)."""
    rank = {label: i for i, label in enumerate(triage.PRECEDENCE)}
    rows = verdicts[verdicts["label"] != triage.OUTAGE]
    rows = rows.assign(_rank=rows["label"].map(rank)).sort_values(
        ["start", "execution_id", "_rank"], ascending=[False, False, True], kind="stable"
    )
    first = rows.drop_duplicates("scenario_id")
    return dict(zip(first["scenario_id"].astype(int), first["label"], strict=True))


def states_of(rules: states.StateRules, the_marks: pd.DataFrame = THE_MARKS) -> StatesView:
    kept, window_results, verdicts, _ = inputs(rules, the_marks)
    return states_view.states_view(
        kept,
        window_results,
        rules,
        rules,
        only=(),
        today=date(2026, 11, 20),
        scope="of plan Shop",
        plan_names={1: "Shop"},
        scenario_link=lambda plan, scenario: f"scenario?plan={plan}&scenario={scenario}",
        verdicts=verdicts,
        outages=1,
    )


def flaky_of(
    rules: states.StateRules,
    the_marks: pd.DataFrame = THE_MARKS,
    *,
    include: bool = False,
    scenarios: World = WORLD,
    grouping: Grouping = Grouping.SCENARIO,
) -> FlakyPage:
    kept, window_results, verdicts, _ = inputs(rules, the_marks, scenarios)
    analysed = kept[kept["execution_id"].isin(window_results["execution_id"])]
    grouped = None
    if include:  # the page's second window, with the outage, for the groups only
        results, executions = world(scenarios)
        ids = last_finished(executions, rules.window)["execution_id"]
        grouped = (
            executions[executions["execution_id"].isin(ids)],
            results[results["execution_id"].isin(ids)],
        )
        both = flaky_view.verdict_results(window_results, grouped[1])
        verdicts = triage.failure_verdicts(
            both,
            executions,
            the_marks,
            now=NOW,
            rules=rules,
            judged=flaky_view.judged(grouped[0]),
        )
    return flaky_view.flaky_page(
        analysed,
        window_results,
        kept,
        applying(the_marks, NOW),
        counts=None,
        window=rules.window,
        threshold=rules.threshold,
        today=date(2026, 11, 20),
        scope="of plan Shop",
        plan=1,
        plan_names={1: "Shop"},
        tz="UTC",
        scenario_link=lambda plan, scenario: f"scenario?plan={plan}&scenario={scenario}",
        results_link=lambda execution, plan, started: f"results?execution={execution}",
        verdicts=verdicts,
        grouped_window=grouped,
        outages=(1, include),
        grouping=grouping,
    )


def by_scenario(view: StatesView) -> pd.DataFrame:
    return view.table.display.set_index("Scenario")


STATE_TEXT = {text: state for state, text in states_view.states_words.STATE_LABELS.items()}
LABEL_OF_TEXT = {text: label for label, text in LABEL_TEXT.items()}


# -- scenario states -----------------------------------------------------------------------------


def test_every_planted_scenario_reads_its_verdict_on_the_states_page() -> None:
    rules = states.StateRules()
    _, _, _, every = inputs(rules)
    assert latest_labels(every) == PLANTED  # the world's answer, from the analytic alone

    shown = by_scenario(states_of(rules))
    assert {s: LABEL_OF_TEXT[t] for s, t in shown["Verdict"].items()} == PLANTED
    assert {s: STATE_TEXT[t] for s, t in shown["State"].items()} == {
        1: states.FAILING,
        2: states.BROKEN,
        3: states.FLAKY,
        4: states.ENVIRONMENT_SPECIFIC,
        5: states.RECOVERING,
        KNOWN_SCENARIO: states.ENVIRONMENT_SPECIFIC,
        7: states.FAILING,
    }


def test_the_just_fixed_scenario_is_recovering_and_never_broken() -> None:
    view = states_of(states.StateRules())
    fixed = by_scenario(view).loc[5]
    assert fixed["State"] == "\u2197 recovering"
    assert fixed["Verdict"] == "\u2197 recovering"
    assert fixed["Verdict evidence"] == (
        "passes now: its last run passed on 19 Nov, after failing 9 of 10 runs"
    )
    assert fixed["Why"].startswith("passed its last 1 run after failing")
    # The counts are the rows': one broken (scenario 2), none for the just-fixed one.
    assert "1 flaky, 1 broken, 2 environment-specific, 1 recovering, 2 failing." in view.caption
    assert "Their latest failures: 1 known, 1 flaky, 1 recovering, 1 environment-specific, 1 " in (
        view.caption
    )


def test_a_known_scenario_reads_known_with_its_ticket_owner_and_last_day() -> None:
    known = by_scenario(states_of(states.StateRules())).loc[KNOWN_SCENARIO]
    assert known["Verdict"] == "\u25c6 known"
    assert known["Verdict evidence"] == "known: SHOP-6, owner ann, until 30 Nov"


def test_the_outage_night_is_never_counted_in_the_states() -> None:
    view = states_of(states.StateRules())
    flaky = by_scenario(view).loc[3]
    assert flaky["Why"].startswith("9 flips in 9 chances over the last 10 runs")
    assert view.outages_caption is not None
    assert view.outages_caption.startswith("1 likely outage")
    assert "left out of the states" in view.outages_caption


@pytest.mark.parametrize("window", [5, 10, 20])
def test_each_state_agrees_with_its_scenario_s_latest_verdict(window: int) -> None:
    # At W = 5 an outage night counted would make flips of every scenario it failed.
    rules = states.StateRules(window=window)
    _, _, verdicts, _ = inputs(rules)
    expected = latest_labels(verdicts)
    shown = by_scenario(states_of(rules))
    for scenario, row in shown.iterrows():
        label = LABEL_OF_TEXT.get(row["Verdict"])
        assert label == expected.get(int(scenario)), scenario
        if label in STATE_OF_LABEL:
            assert STATE_TEXT[row["State"]] in STATE_OF_LABEL[label], (scenario, label)
        if STATE_TEXT[row["State"]] == states.BROKEN:
            assert label in {triage.BROKEN, triage.KNOWN}, scenario


# -- flaky ---------------------------------------------------------------------------------------


def test_flaky_lists_only_the_scenario_its_verdicts_call_flaky() -> None:
    rules = states.StateRules()
    shown = flaky_of(rules).table.display
    assert set(shown["Scenario"]) == {3}
    assert set(shown["Verdict"]) == {"\u21c4 flaky"}
    _, _, verdicts, _ = inputs(rules)
    latest = verdicts[(verdicts["scenario_id"] == 3)].iloc[-1]
    assert latest["label"] == triage.FLAKY
    assert set(shown["Verdict evidence"]) == {evidence_line(latest.to_dict())}
    assert set(shown["Verdict evidence"]) == {f"9 flips in 10 runs on {CHROME_LABEL} since 10 Nov"}


@pytest.mark.parametrize("window", [5, 10, 20])
def test_every_scenario_flaky_lists_is_flaky_in_the_verdicts(window: int) -> None:
    rules = states.StateRules(window=window)
    _, _, verdicts, _ = inputs(rules)
    flaky_in_verdicts = set(verdicts.loc[verdicts["label"] == triage.FLAKY, "scenario_id"])
    shown = flaky_of(rules).table.display
    assert set(shown["Scenario"]) == {int(s) for s in flaky_in_verdicts}
    assert set(shown["Verdict"]) <= {"\u21c4 flaky"}


def test_a_known_flaky_scenario_says_why_it_is_not_judged_flaky() -> None:
    the_marks = marks(
        mark("shop-3", mark_columns.SCENARIO, plan_id=1, scenario_id=3, owner="bob"),
    )
    shown = flaky_of(states.StateRules(), the_marks).table.display
    assert set(shown["Scenario"]) == {3}  # it still flips: the score is the score
    assert set(shown["Verdict"]) == {"\u25c6 known"}
    assert set(shown["Verdict evidence"]) == {"known: SHOP-3, owner bob"}


def test_the_failure_groups_carry_the_verdicts_of_their_failures() -> None:
    rules = states.StateRules()
    shown = flaky_of(rules, grouping=Grouping.ACROSS)
    assert shown.groups_table is not None
    groups = shown.groups_table.display.set_index("Message")
    # Every failure of the window is "AssertionError: scenario {n}" once its number is stripped.
    assert list(groups.index) == ["AssertionError: scenario {n}"]  # the outage is not counted
    _, _, verdicts, _ = inputs(rules)
    labels = verdicts["label"].value_counts()
    assert groups["Verdicts"].iloc[0] == ", ".join(
        f"{int(labels[label])} {label}" for label in triage.PRECEDENCE if label in labels
    )
    assert groups["Verdicts"].iloc[0] == (
        "10 known, 5 flaky, 18 recovering, 10 environment-specific, 20 broken, 2 new, 2 unresolved"
    )
    for _, table in shown.group_sections:
        assert "Verdict" in table.display.columns
    assert "1 likely outage" in shown.window_caption
    # Per scenario (the default), the same verdicts split over one group per scenario.
    per_scenario = flaky_of(rules).groups_table
    assert per_scenario is not None
    assert set(per_scenario.display["Message"]) == {"AssertionError: scenario {n}"}
    assert len(per_scenario.display) == verdicts["scenario_id"].nunique()
    tallied = Counter[str]()
    for tally in per_scenario.display["Verdicts"]:
        for part in tally.split(", "):
            count, label = part.split(" ", 1)
            tallied[label] += int(count)
    assert tallied == Counter({label: int(n) for label, n in labels.items()})


def test_included_outages_are_grouped_as_outage_and_never_scored() -> None:
    rules = states.StateRules()
    left_out = flaky_of(rules, grouping=Grouping.ACROSS)
    included = flaky_of(rules, include=True, grouping=Grouping.ACROSS)
    pd.testing.assert_frame_equal(left_out.table.display, included.table.display)
    assert included.groups_table is not None
    groups = included.groups_table.display.set_index("Message")
    assert groups.loc["UnreachableBrowser: grid down", "Verdicts"] == "13 outage"
    assert "never counted in the scores" in included.window_caption


def test_an_included_outage_is_no_flaky_row_s_latest_failure() -> None:
    # Scenario 3 flips until 14 Nov and passes since; the outage night (15 Nov) is its latest
    # failure. Included, the outage is grouped, but the row still reads its flaky verdict.
    scenarios = {**WORLD, 3: {"chrome": "FPFPFPPPPP", "safari": "PPPPPPPPPP"}}
    shown = flaky_of(states.StateRules(), include=True, scenarios=scenarios).table.display
    assert set(shown["Scenario"]) == {3}
    assert set(shown["Verdict"]) == {"\u21c4 flaky"}
    assert set(shown["Verdict evidence"]) == {f"5 flips in 10 runs on {CHROME_LABEL} since 10 Nov"}


def test_the_world_holds_every_planted_case() -> None:
    assert set(WORLD) | {KNOWN_SCENARIO} == set(PLANTED)
