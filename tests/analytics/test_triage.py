"""One verdict per failed result (`analytics.triage`) on hand-built worlds with known answers:
each label, each rule of the precedence, and the bad inputs that must be said, never crash and
never pass in silence. The world is `triage_frames.WORLD` (its table says what each scenario
does), on a fixed clock."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from dashboard.analytics import outages as outage_rules
from dashboard.analytics import states, triage
from dashboard.columns import marks as columns
from tests.analytics.frames import CHROME, result, results, ts
from tests.analytics.triage_frames import (
    CHROME_LABEL,
    NO_MARKS,
    NOW,
    OUTAGE_ID,
    SAFARI_LABEL,
    WORLD,
    day,
    mark,
    marks,
    result_id,
    summaries,
    world,
    world_results,
)


def verdicts(
    scenarios: dict[int, dict[str, str]] = WORLD,
    the_marks: pd.DataFrame = NO_MARKS,
    *,
    outage: bool = True,
    **options: Any,
) -> pd.DataFrame:
    found_results, found_executions = world(scenarios, outage=outage)
    return triage.failure_verdicts(found_results, found_executions, the_marks, now=NOW, **options)


def row(frame: pd.DataFrame, execution_id: int, scenario_id: int, env: str = "chrome") -> Any:
    """The verdict of one failed result of the world."""
    chosen = frame[frame["result_id"] == result_id(execution_id, scenario_id, env)]
    assert len(chosen) == 1, f"no single verdict for {execution_id}/{scenario_id}/{env}"
    return chosen.iloc[0]


def labels_of(frame: pd.DataFrame, scenario_id: int) -> set[str]:
    return set(frame.loc[frame["scenario_id"] == scenario_id, "label"])


@pytest.fixture(scope="module")
def plain() -> pd.DataFrame:
    return verdicts()


# -- one test per label --------------------------------------------------------------------------


def test_one_row_per_failed_result_and_every_label_of_the_world(plain: pd.DataFrame) -> None:
    found_results, _ = world()
    failed = found_results[found_results["level"].isin(["FAILURE", "ERROR"])]
    assert sorted(plain["result_id"]) == sorted(failed["result_id"])
    assert triage.label_counts(plain) == {
        triage.INCOMPLETE: 0,
        triage.OUTAGE: 13,
        triage.KNOWN: 0,
        triage.FLAKY: 5,
        triage.RECOVERING: 18,
        triage.ENVIRONMENT_SPECIFIC: 20,
        triage.BROKEN: 20,
        triage.NEW: 2,
        triage.UNRESOLVED: 2,
    }


def test_outage_names_the_night_its_share_and_its_message(plain: pd.DataFrame) -> None:
    night = plain[plain["execution_id"] == OUTAGE_ID]
    assert set(night["label"]) == {triage.OUTAGE}
    first = night.iloc[0]
    assert first["outage"] == outage_rules.LIKELY
    assert first["outage_start"] == ts("2026-11-15 02:00")
    assert (first["outage_failed"], first["outage_verdicts"]) == (13, 14)
    assert first["outage_share"] == pytest.approx(13 / 14)
    assert first["outage_signature"] == "UnreachableBrowser: grid down"
    assert first["outage_signature_failures"] == 13


def test_the_outage_is_left_out_of_the_states_and_of_what_is_new(plain: pd.DataFrame) -> None:
    # Scenario 1 failed on CHROME in the outage, then on day 10: still its first failure.
    latest = row(plain, 10, 1)
    assert latest["label"] == triage.NEW
    assert (latest["earlier_runs"], latest["earlier_environment_runs"]) == (9, 9)
    # Scenario 3's flips are its own 9 in 10 runs, not the outage's.
    assert row(plain, 10, 3)["flips"] == 9


def test_known_names_its_mark_ticket_owner_and_last_day() -> None:
    the_marks = marks(
        mark("shop-1", columns.SCENARIO, plan_id=1, scenario_id=2, expires_on=ts("2026-11-30"))
    )
    found = verdicts(the_marks=the_marks)
    known = row(found, 4, 2, "safari")
    assert known["label"] == triage.KNOWN
    assert known["mark_id"] == "shop-1"
    assert known["mark_kind"] == columns.KNOWN_ISSUE
    assert known["ticket"] == "https://jira.example.com/browse/SHOP-1"
    assert known["owner"] == "ann"
    assert known["until"] == ts("2026-11-30")
    assert known["scenario_state"] == states.BROKEN  # the state stays in the row's data


def test_new_is_the_first_failure_of_a_scenario_on_an_environment(plain: pd.DataFrame) -> None:
    first = row(plain, 8, 7)
    assert first["label"] == triage.NEW
    assert (first["earlier_runs"], first["earlier_environment_runs"]) == (7, 7)


def test_a_new_browser_version_fails_new() -> None:
    envs = {"chrome": CHROME, "chrome135": {**CHROME, "browser_version": "135"}}
    rows = world_results(
        {1: {"chrome": "PPPPPPPPP.", "chrome135": ".........F"}}, outage=False, envs=envs
    )
    found = triage.failure_verdicts(results(rows), summaries(rows), NO_MARKS, now=NOW)
    (verdict,) = found.itertuples()
    assert verdict.label == triage.NEW
    assert verdict.environment == "CHROME / Windows 11"
    # #38: Chrome 135 is the same environment as 134, on which it ran 9 times before.
    assert (verdict.earlier_runs, verdict.earlier_environment_runs) == (9, 9)


def test_unresolved_after_the_first_failure(plain: pd.DataFrame) -> None:
    for execution_id in (9, 10):
        verdict = row(plain, execution_id, 7)
        assert verdict["label"] == triage.UNRESOLVED
        assert (verdict["failed_runs"], verdict["runs"]) == (3, 10)
        assert verdict["since"] == ts(day(0))


def test_broken_counts_its_last_n_runs(plain: pd.DataFrame) -> None:
    verdict = row(plain, 6, 2)
    assert verdict["label"] == triage.BROKEN
    assert (verdict["failed_runs"], verdict["runs"], verdict["since"]) == (10, 10, ts(day(0)))
    shorter = verdicts(rules=states.StateRules(broken_runs=4))
    assert row(shorter, 6, 2)["since"] == ts(day(6))  # the first of its last 4 runs


def test_flaky_on_its_environment(plain: pd.DataFrame) -> None:
    verdict = row(plain, 4, 3)
    assert verdict["label"] == triage.FLAKY
    assert (verdict["flips"], verdict["runs"], verdict["failed_runs"]) == (9, 10, 5)
    assert verdict["evidence_environment"] == CHROME_LABEL


def test_environment_specific_on_the_failing_environment_only(plain: pd.DataFrame) -> None:
    verdict = row(plain, 3, 4, "safari")
    assert verdict["label"] == triage.ENVIRONMENT_SPECIFIC
    assert (verdict["failed_runs"], verdict["runs"], verdict["since"]) == (10, 10, ts(day(0)))
    assert verdict["evidence_environment"] == SAFARI_LABEL
    assert (verdict["elsewhere_passed"], verdict["elsewhere_runs"]) == (10, 10)


def test_recovering_when_the_latest_run_passed(plain: pd.DataFrame) -> None:
    verdict = row(plain, 9, 5, "safari")
    assert verdict["label"] == triage.RECOVERING
    assert verdict["clean_runs"] == 1
    assert verdict["passed_at"] == ts(day(9))


# -- one test per rule of the precedence ---------------------------------------------------------


def test_the_precedence_is_every_label_once() -> None:
    assert len(set(triage.PRECEDENCE)) == len(triage.PRECEDENCE) == 9
    assert triage.PRECEDENCE[0] == triage.INCOMPLETE
    assert triage.PRECEDENCE[-1] == triage.UNRESOLVED


def test_incomplete_beats_outage() -> None:
    rows = world_results(WORLD)
    found = triage.failure_verdicts(
        results(rows), summaries(rows, extra_failed={OUTAGE_ID: 1}), NO_MARKS, now=NOW
    )
    night = found[found["execution_id"] == OUTAGE_ID]
    assert set(night["label"]) == {triage.INCOMPLETE}
    assert set(night["incomplete"]) == {triage.SHORT}


def test_outage_beats_known() -> None:
    the_marks = marks(
        mark("grid", columns.FAILURE_GROUP, signature="UnreachableBrowser: grid down"),
        mark("s2", columns.SCENARIO, plan_id=1, scenario_id=2),
    )
    found = verdicts(the_marks=the_marks)
    assert set(found.loc[found["execution_id"] == OUTAGE_ID, "label"]) == {triage.OUTAGE}
    assert row(found, 5, 2)["label"] == triage.KNOWN


def test_a_confirmed_outage_names_its_mark() -> None:
    the_marks = marks(mark("down-7", columns.EXECUTION, kind=columns.OUTAGE, execution_id=7))
    found = verdicts(the_marks=the_marks)
    verdict = row(found, 7, 2)
    assert verdict["label"] == triage.OUTAGE
    assert verdict["outage"] == outage_rules.CONFIRMED
    assert (verdict["mark_id"], verdict["mark_kind"]) == ("down-7", columns.OUTAGE)


def test_a_dismissed_outage_counts_like_any_execution() -> None:
    the_marks = marks(
        mark("no", columns.EXECUTION, kind=columns.NOT_AN_OUTAGE, execution_id=OUTAGE_ID)
    )
    found = verdicts(the_marks=the_marks)
    assert triage.OUTAGE not in set(found["label"])
    assert row(found, OUTAGE_ID, 2)["label"] == triage.BROKEN
    # Its failure makes scenario 1 flip: P P P P P F(night) P P P P F.
    assert labels_of(found, 1) == {triage.FLAKY}


def test_known_beats_recovering() -> None:
    found = verdicts(the_marks=marks(mark("s5", columns.SCENARIO, plan_id=1, scenario_id=5)))
    assert labels_of(found[found["execution_id"] != OUTAGE_ID], 5) == {triage.KNOWN}


def test_an_expired_mark_no_longer_makes_known() -> None:
    gone = mark("s2", columns.SCENARIO, plan_id=1, scenario_id=2, expires_on=ts("2026-11-19"))
    assert row(verdicts(the_marks=marks(gone)), 5, 2)["label"] == triage.BROKEN
    today = {**gone, "expires_on": ts("2026-11-20")}  # its last day: it applies until midnight
    assert row(verdicts(the_marks=marks(today)), 5, 2)["label"] == triage.KNOWN


def test_a_closed_mark_no_longer_makes_known() -> None:
    closed = mark(
        "s2", columns.SCENARIO, plan_id=1, scenario_id=2, closed_at=ts("2026-11-19"), closed_by="b"
    )
    assert row(verdicts(the_marks=marks(closed)), 5, 2)["label"] == triage.BROKEN


def test_flaky_beats_recovering() -> None:
    found = verdicts({3: {"chrome": "FPFPFPFPFP", "safari": "PPPPPPPPPP"}})
    assert labels_of(found[found["execution_id"] != OUTAGE_ID], 3) == {triage.FLAKY}


def test_a_passing_latest_run_beats_broken(plain: pd.DataFrame) -> None:
    verdict = row(plain, 3, 5)
    assert verdict["scenario_state"] == states.BROKEN  # 9 of its last 10 runs failed
    assert verdict["label"] == triage.RECOVERING


def test_a_pass_elsewhere_is_not_recovering_while_its_environment_still_fails() -> None:
    # Scenario 1's latest run (day 10) is SAFARI's pass; CHROME, where it failed, did not run.
    found = verdicts({1: {"chrome": "FFFFFFFFF.", "safari": ".........P"}}, outage=False)
    assert labels_of(found, 1) == {triage.BROKEN}


def test_environment_specific_beats_broken(plain: pd.DataFrame) -> None:
    verdict = row(plain, 2, 4, "safari")  # every run of the scenario failed (on SAFARI)
    assert verdict["label"] == triage.ENVIRONMENT_SPECIFIC


def test_broken_beats_new() -> None:
    found = verdicts({2: {"chrome": "PFFFFFFFFF", "safari": "PFFFFFFFFF"}}, outage=False)
    first = row(found, 2, 2)
    assert first["label"] == triage.BROKEN  # its first failure, but 9 of its last 10 runs failed


def test_new_needs_an_earlier_run() -> None:
    found = verdicts({1: {"chrome": "F........."}}, outage=False)
    (verdict,) = found.itertuples()
    assert verdict.label == triage.UNRESOLVED
    assert verdict.scenario_state == states.NOT_ENOUGH_DATA


def test_a_failure_of_a_scenario_the_state_window_does_not_hold_is_unresolved() -> None:
    found = verdicts(
        {1: {"chrome": "F........."}, 2: {"chrome": "PPPPPPPPPP"}},
        outage=False,
        rules=states.StateRules(window=3),
    )
    (verdict,) = found.itertuples()
    assert verdict.label == triage.UNRESOLVED
    assert pd.isna(verdict.scenario_state)
    assert pd.isna(verdict.runs)


# -- bad input -----------------------------------------------------------------------------------


def test_an_execution_still_running() -> None:
    rows = world_results({1: {"chrome": "PPPPPPPPPF"}}, outage=False)
    found = triage.failure_verdicts(results(rows), summaries(rows, running=[10]), NO_MARKS, now=NOW)
    (verdict,) = found.itertuples()
    assert (verdict.label, verdict.incomplete) == (triage.INCOMPLETE, triage.RUNNING)


def test_a_result_still_waiting_makes_its_execution_running() -> None:
    rows = world_results({1: {"chrome": "PPPPPPPPPF"}}, outage=False)
    rows.append(result(10, 2, "WAITING", CHROME, start=day(9), result_id=9))
    found = triage.failure_verdicts(results(rows), summaries(rows), NO_MARKS, now=NOW)
    assert list(found["incomplete"]) == [triage.RUNNING]


def test_a_summary_counting_more_failures_than_the_results_hold() -> None:
    rows = world_results({1: {"chrome": "PPPPPPPPPF", "safari": "PPPPPPPPPP"}}, outage=False)
    found = triage.failure_verdicts(
        results(rows), summaries(rows, extra_failed={10: 2, 4: 3}), NO_MARKS, now=NOW
    )
    short = found.set_index("execution_id")
    assert short.loc[10, "incomplete"] == triage.SHORT
    assert short.loc[10, "missing_failures"] == 2
    # Execution 4 holds no failure at all: one row of its own says what it lacks.
    assert pd.isna(short.loc[4, "result_id"])
    assert (short.loc[4, "label"], short.loc[4, "missing_failures"]) == (triage.INCOMPLETE, 3)


def test_an_execution_judged_without_any_result() -> None:
    rows = world_results({1: {"chrome": "PPPPPPPPPP"}}, outage=False)
    found = triage.failure_verdicts(
        results(rows), summaries(rows, extra_failed={7: 1}), NO_MARKS, now=NOW, judged=[7]
    )
    assert list(found["execution_id"]) == [7]
    assert list(found["incomplete"]) == [triage.SHORT]


def test_a_result_of_an_unknown_status() -> None:
    rows = world_results({1: {"chrome": "PPPPPPPPP?"}}, outage=False)
    found = triage.failure_verdicts(results(rows), summaries(rows), NO_MARKS, now=NOW)
    (verdict,) = found.itertuples()
    assert (verdict.label, verdict.incomplete, verdict.level) == (
        triage.INCOMPLETE,
        triage.UNKNOWN_STATUS,
        "BLOCKED",
    )


def test_a_result_of_an_execution_not_given() -> None:
    rows = world_results({1: {"chrome": "PPPPPPPPPF"}}, outage=False)
    given = summaries(rows)
    found = triage.failure_verdicts(
        results(rows), given[given["execution_id"] != 10], NO_MARKS, now=NOW
    )
    assert list(found["incomplete"]) == [triage.UNKNOWN_EXECUTION]


@pytest.mark.parametrize(
    "unreadable",
    [
        {"target": columns.SCENARIO, "kind": "muted"},
        {"target": "test_case", "kind": columns.KNOWN_ISSUE},
        {"target": columns.EXECUTION, "kind": columns.KNOWN_ISSUE, "execution_id": 6},
    ],
    ids=["unknown kind", "unknown target", "kind not of its target"],
)
def test_a_mark_that_cannot_be_read_names_its_failures(unreadable: dict[str, Any]) -> None:
    bad = mark("odd", unreadable.pop("target"), plan_id=1, scenario_id=2, **unreadable)
    found = verdicts(the_marks=marks(bad), outage=False)
    verdict = row(found, 6, 2)
    assert (verdict["label"], verdict["incomplete"]) == (triage.INCOMPLETE, triage.UNREADABLE_MARK)
    assert (verdict["mark_id"], verdict["mark_kind"]) == ("odd", bad["kind"])
    assert row(found, 6, 6)["label"] == triage.ENVIRONMENT_SPECIFIC  # another scenario: as before


def test_an_unreadable_mark_that_names_nothing_or_has_expired_changes_nothing(
    plain: pd.DataFrame,
) -> None:
    the_marks = marks(
        mark("blank", "test_case"),
        mark(
            "old",
            columns.SCENARIO,
            kind="muted",
            plan_id=1,
            scenario_id=2,
            expires_on=ts("2026-11-01"),
        ),
    )
    found = verdicts(the_marks=the_marks)
    pd.testing.assert_series_equal(found["label"], plain["label"])


def test_nothing_to_judge_is_an_empty_frame_of_the_columns() -> None:
    found_results, found_executions = world({})
    found = triage.failure_verdicts(found_results, found_executions, NO_MARKS, now=NOW)
    assert found.empty
    assert list(found.columns) == list(triage.TRIAGE_COLUMNS)
