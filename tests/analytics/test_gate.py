"""The gate's rule on hand-built results: unresolved failures against the allowance, known
failures left out of both the count and the pass rate, an outage mark covering a whole
execution, an expired mark covering nothing, and nothing with a verdict failing."""

from __future__ import annotations

import pytest

from dashboard.analytics.gate import GateRules, gate_verdict
from dashboard.columns import marks as columns
from tests.analytics.frames import result, results, ts
from tests.analytics.test_marks import mark, marks

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
