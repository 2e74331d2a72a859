"""The quality gate's rule: does one finished execution pass, for a CI pipeline to go on?

An execution passes when both hold:

- its *unresolved* failures (failed results no applying mark covers, `analytics.marks`) are at
  most `max_unresolved` (0 by default): a known failure never fails the gate;
- when `min_pass_rate` is given, its pass rate *without known failures* (passed out of its
  verdicts once known failures are left out, `marks.KnownSplit`) is at least that share.

An execution in which nothing had a verdict (every result stopped or waiting) fails: nothing
was shown to work. Whether the execution is finished is the caller's business (the gate waits
for it); the rule judges the counts and results it is given.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from dashboard.analytics import marks as mark_rules
from dashboard.analytics.outcomes import FAIL, level_outcomes


@dataclass(frozen=True)
class GateRules:
    max_unresolved: int = 0
    min_pass_rate: float | None = None  # a share in [0, 1], or None: not checked

    def __post_init__(self) -> None:
        if self.max_unresolved < 0:
            raise ValueError("max_unresolved must be 0 or more")
        if self.min_pass_rate is not None and not 0 <= self.min_pass_rate <= 1:
            raise ValueError("min_pass_rate is a share between 0 and 1")


@dataclass(frozen=True)
class GateVerdict:
    passed: bool
    split: mark_rules.KnownSplit
    unresolved: pd.DataFrame = field(repr=False)
    """The unresolved failed results (the result columns given), in scenario order."""
    reasons: tuple[str, ...]
    """Why it failed, one short clause each (empty when it passed)."""

    @property
    def pass_rate(self) -> float | None:
        return self.split.pass_rate_without_known


def gate_verdict(
    *,
    passed: int,
    verdicts: int,
    results: pd.DataFrame,
    marks: pd.DataFrame,
    now: object,
    rules: GateRules,
) -> GateVerdict:
    """The verdict on one execution: its counts (`passed` of `verdicts`, as its summary says),
    its `results` (the columns `marks.covering_marks` reads, plus result_id and start) and the
    company's `marks` (every one: those that apply at `now` are used)."""
    failed_mask = (level_outcomes(results["level"]) == FAIL).to_numpy()
    if marks.empty or not failed_mask.any():
        known_mask = pd.Series(False, index=results.index)
    else:
        applying = mark_rules.applying(marks, now)
        known_mask = mark_rules.covering_marks(results, applying)["mark_id"].notna()
    known_mask = known_mask.to_numpy() & failed_mask
    failed = int(failed_mask.sum())
    split = mark_rules.KnownSplit(
        failed=failed, known=int(known_mask.sum()), passed=passed, verdicts=verdicts
    )
    unresolved = results[failed_mask & ~known_mask].sort_values(
        ["scenario_id", "result_id"], kind="stable"
    )
    reasons: list[str] = []
    if verdicts == 0:
        reasons.append("no result had a verdict")
    if split.unresolved > rules.max_unresolved:
        reasons.append(
            f"{split.unresolved} unresolved failure{'s' if split.unresolved != 1 else ''} "
            f"(at most {rules.max_unresolved} allowed)"
        )
    rate = split.pass_rate_without_known
    floor = rules.min_pass_rate
    if floor is not None and verdicts > 0 and (rate is None or rate < floor - 1e-12):
        shown = "-" if rate is None else f"{rate:.2%}"
        reasons.append(f"pass rate {shown} without known failures (at least {floor:.2%} needed)")
    return GateVerdict(
        passed=not reasons, split=split, unresolved=unresolved, reasons=tuple(reasons)
    )
