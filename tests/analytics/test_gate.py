"""The gate's rule on hand-built results: unresolved failures against the allowance, known
failures left out of both the count and the pass rate, an outage mark covering a whole
execution, an expired mark covering nothing, and nothing with a verdict failing."""

from __future__ import annotations

import pytest

from dashboard.analytics.gate import GateRules, GateVerdict, gate_verdict, missing_evidence
from dashboard.analytics.triage import failure_verdicts
from dashboard.columns import marks as columns
from dashboard.present.gate import verdict_figures
from tests.analytics import triage_frames as world
from tests.analytics.frames import result, results, ts
from tests.analytics.test_marks import mark, marks

WORLD_RESULTS, WORLD_EXECUTIONS = world.world()

NOW = ts("2026-11-24 10:00")


def run(*levels: str) -> list[dict[str, object]]:
    return [result(9, 60 + i, level, message="boom" if level == "FAILURE" else None)
            for i, level in enumerate(levels)]  # fmt: skip


def test_unresolved_failures_fail_the_gate_and_known_ones_do_not() -> None:
    rows = results(run("SUCCESS", "FAILURE", "ERROR", "SUCCESS"))
    none = marks()
    verdict = gate_verdict(
        passed=2, verdicts=4, results=rows, marks=none, now=NOW, rules=GateRules()
    )
    assert not verdict.passed
    assert verdict.split.unresolved == 2
    assert list(verdict.unresolved["scenario_id"]) == [61, 62]
    assert gate_verdict(
        passed=2, verdicts=4, results=rows, marks=none, now=NOW, rules=GateRules(max_unresolved=2)
    ).passed

    known = marks(mark("m1", columns.SCENARIO, plan_id=1, scenario_id=61))
    verdict = gate_verdict(
        passed=2, verdicts=4, results=rows, marks=known, now=NOW, rules=GateRules()
    )
    assert verdict.split.known == 1
    assert list(verdict.unresolved["scenario_id"]) == [62]
    assert verdict.pass_rate == pytest.approx(2 / 3)


def test_an_outage_covers_the_execution_and_an_expired_mark_covers_nothing() -> None:
    rows = results(run("FAILURE", "FAILURE", "SUCCESS"))
    outage = marks(mark("o", columns.EXECUTION, kind=columns.OUTAGE, execution_id=9))
    verdict = gate_verdict(
        passed=1, verdicts=3, results=rows, marks=outage, now=NOW, rules=GateRules()
    )
    assert verdict.passed
    assert verdict.pass_rate == 1.0
    expired = marks(
        mark("e", columns.SCENARIO, plan_id=1, scenario_id=60, expires_on=ts("2026-11-23 00:00"))
    )
    verdict = gate_verdict(
        passed=1, verdicts=3, results=rows, marks=expired, now=NOW, rules=GateRules()
    )
    assert verdict.split.unresolved == 2


def test_the_least_pass_rate_and_an_execution_without_verdicts() -> None:
    rows = results(run(*["SUCCESS"] * 19, "FAILURE"))
    rules = GateRules(max_unresolved=1, min_pass_rate=0.95)
    assert gate_verdict(
        passed=19, verdicts=20, results=rows, marks=marks(), now=NOW, rules=rules
    ).passed
    strict = GateRules(max_unresolved=1, min_pass_rate=0.951)
    verdict = gate_verdict(
        passed=19, verdicts=20, results=rows, marks=marks(), now=NOW, rules=strict
    )
    assert verdict.reasons == ("pass rate 95.00% without known failures (at least 95.10% needed)",)
    stopped = results(run("STOPPED", "STOPPED"))
    verdict = gate_verdict(
        passed=0, verdicts=0, results=stopped, marks=marks(), now=NOW, rules=GateRules()
    )
    assert not verdict.passed
    assert verdict.reasons == ("no result had a verdict",)


def test_the_marks_applied_are_named_with_their_author_ticket_and_expiry() -> None:
    rows = results(run("FAILURE", "FAILURE", "SUCCESS"))
    known = marks(
        mark("m1", columns.SCENARIO, plan_id=1, scenario_id=60, expires_on=ts("2026-12-01")),
        mark("m2", columns.SCENARIO, plan_id=1, scenario_id=77),  # applies, covers nothing here
    )
    verdict = gate_verdict(
        passed=1, verdicts=3, results=rows, marks=known, now=NOW, rules=GateRules()
    )
    applied = verdict.applied
    assert list(applied["mark_id"]) == ["m1"]
    assert list(applied["created_by"]) == ["ann"]
    assert list(applied["ticket"]) == ["https://jira.example.com/browse/M1"]
    assert list(applied["expires_on"]) == [ts("2026-12-01")]
    assert list(applied["failures"]) == [1]


def test_a_mark_of_an_unknown_kind_or_of_a_kind_its_target_does_not_take_covers_nothing() -> None:
    rows = results(run("FAILURE", "FAILURE", "SUCCESS"))
    odd = marks(
        mark("bogus", columns.SCENARIO, plan_id=1, scenario_id=60, kind="wont_fix_ever"),
        # An outage is a whole execution's: on a scenario it is malformed, not a licence.
        mark("misfiled", columns.SCENARIO, plan_id=1, scenario_id=61, kind=columns.OUTAGE),
    )
    verdict = gate_verdict(
        passed=1, verdicts=3, results=rows, marks=odd, now=NOW, rules=GateRules()
    )
    assert verdict.split.known == 0
    assert verdict.split.unresolved == 2
    assert verdict.applied.empty
    assert verdict.ignored == {"malformed": 2}


def test_the_gate_can_be_told_to_use_only_signed_marks_with_an_expiry() -> None:
    rows = results(run("FAILURE", "FAILURE", "SUCCESS"))
    both = marks(
        mark("unsigned", columns.SCENARIO, plan_id=1, scenario_id=60, created_by=None,
             expires_on=ts("2026-12-01")),
        mark("forever", columns.SCENARIO, plan_id=1, scenario_id=61),
    )  # fmt: skip
    lenient = gate_verdict(
        passed=1, verdicts=3, results=rows, marks=both, now=NOW, rules=GateRules()
    )
    assert lenient.passed
    signed = gate_verdict(
        passed=1,
        verdicts=3,
        results=rows,
        marks=both,
        now=NOW,
        rules=GateRules(signed_marks_only=True),
    )
    assert list(signed.unresolved["scenario_id"]) == [60]
    assert signed.ignored == {"without an author": 1}
    expiring = gate_verdict(
        passed=1,
        verdicts=3,
        results=rows,
        marks=both,
        now=NOW,
        rules=GateRules(signed_marks_only=True, require_mark_expiry=True),
    )
    assert expiring.split.known == 0
    assert expiring.ignored == {"without an author": 1, "without an expiry": 1}


def test_results_short_of_what_the_summary_counts_are_named_as_missing_evidence() -> None:
    rows = results([result(9, 60, "SUCCESS", result_id=901), result(9, 61, "FAILURE",
                    result_id=902)])  # fmt: skip
    assert missing_evidence(failed=1, results=2, result_ids=[901, 902], fetched=rows) is None
    assert missing_evidence(failed=2, results=2, result_ids=[901, 902], fetched=rows) == (
        "1 failure counted by the service is not in its results"
    )
    only_pass = rows[rows["result_id"] == 901]
    assert missing_evidence(failed=1, results=2, result_ids=[901, 902], fetched=only_pass) == (
        "1 failure counted by the service is not in its results; "
        "1 result listed by the service is not in its results (id 902)"
    )
    assert missing_evidence(failed=0, results=3, result_ids=[], fetched=rows) == (
        "1 result counted by the service is not in its results"
    )


# -- the gate reads the one triage verdict (#37), on the hand-built world of triage_frames ----


def judged(execution_id: int, marks_given: object = None, *, history: bool = True) -> GateVerdict:
    own = WORLD_RESULTS[WORLD_RESULTS["execution_id"] == execution_id]
    row = WORLD_EXECUTIONS[WORLD_EXECUTIONS["execution_id"] == execution_id].iloc[0]
    return gate_verdict(
        passed=int(row["passed"]),
        verdicts=int(row["verdicts"]),
        results=own,
        marks=world.NO_MARKS if marks_given is None else marks_given,
        now=world.NOW,
        rules=GateRules(),
        executions=WORLD_EXECUTIONS if history else None,
        history=WORLD_RESULTS if history else None,
    )


def test_the_verdict_line_counts_each_failure_by_its_one_label() -> None:
    verdict = judged(10)
    assert not verdict.passed
    assert verdict_figures(verdict) == (
        "7 unresolved (1 flaky, 2 environment-specific, 2 broken, 1 new, 1 unresolved); 0 known"
    )
    # The same labels as the triage itself gives the execution's failures.
    found = failure_verdicts(
        WORLD_RESULTS, WORLD_EXECUTIONS, world.NO_MARKS, now=world.NOW, judged=[10]
    )
    mine = verdict.verdicts
    assert mine is not None
    assert dict(zip(mine["result_id"], mine["label"], strict=True)) == dict(
        zip(found["result_id"], found["label"], strict=True)
    )
    # Without the history the labels that read earlier runs cannot hold: all unresolved.
    assert verdict_figures(judged(10, history=False)) == "7 unresolved; 0 known"


def test_a_known_mark_lets_its_failures_through_and_the_line_says_known() -> None:
    known = world.marks(world.mark("m2", columns.SCENARIO, plan_id=1, scenario_id=2))
    verdict = judged(10, known)
    assert verdict_figures(verdict) == (
        "5 unresolved (1 flaky, 2 environment-specific, 1 new, 1 unresolved); 2 known"
    )
    assert verdict.reasons == ("5 unresolved failures (at most 0 allowed)",)
    assert list(verdict.applied["mark_id"]) == ["m2"]


def test_a_likely_outage_is_named_apart_and_still_fails_unless_a_mark_confirms_it() -> None:
    verdict = judged(world.OUTAGE_ID)
    assert not verdict.passed
    assert verdict_figures(verdict) == "0 unresolved; 13 in a likely outage, 0 known"
    assert verdict.reasons == (
        "13 failures no mark lets through (0 unresolved, 13 in a likely outage) "
        "(at most 0 allowed)",
    )
    confirmed = world.marks(
        world.mark("o", columns.EXECUTION, kind=columns.OUTAGE, execution_id=world.OUTAGE_ID)
    )
    verdict = judged(world.OUTAGE_ID, confirmed)
    assert verdict.passed
    assert list(verdict.applied["mark_id"]) == ["o"]


def test_a_failure_labelled_incomplete_is_never_let_through() -> None:
    # A malformed mark names scenario 2; a good one covers it too: the failure cannot be told
    # known (the team wrote something this program cannot read about it), so it fails.
    both = world.marks(
        world.mark("bad", columns.SCENARIO, plan_id=1, scenario_id=2, kind="wont_fix_ever"),
        world.mark("m2", columns.SCENARIO, plan_id=1, scenario_id=2),
    )
    verdict = judged(10, both)
    assert verdict.line_counts == {
        "unresolved": 5,
        "in a likely outage": 0,
        "of them let through by a mark": 0,
        "incomplete": 2,
        "known": 0,
    }
    assert verdict.split.known == 0
    assert verdict.applied.empty
    assert verdict.ignored == {"malformed": 1}
