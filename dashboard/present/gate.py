"""The quality gate's verdict in words, for a CI log: one line that says pass or fail and why,
then the unresolved failures (at most `SHOWN`), each with a link to its evidence."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from dashboard.analytics.environment_names import with_environments
from dashboard.analytics.gate import GateRules, GateVerdict

SHOWN = 20
"""Unresolved failures listed one per line; the rest are counted."""
MESSAGE_WIDTH = 120


def verdict_lines(
    verdict: GateVerdict,
    *,
    plan: str,
    execution_id: int,
    rules: GateRules,
    results_link: str,
    scenario_link: Callable[[int], str],
) -> list[str]:
    """The verdict as lines of plain text (no colour codes: CI logs keep them as they are)."""
    split = verdict.split
    rate = verdict.pass_rate
    figures = (
        f"{split.unresolved} unresolved failure{'s' if split.unresolved != 1 else ''}, "
        f"{split.known} known; pass rate "
        + ("-" if rate is None else f"{rate:.2%}")
        + " without known failures"
        + f" ({split.passed} of {split.verdicts - split.known} verdicts)"
    )
    limits = f"at most {rules.max_unresolved} unresolved" + (
        "" if rules.min_pass_rate is None else f", at least {rules.min_pass_rate:.2%}"
    )
    head = "PASS" if verdict.passed else "FAIL"
    lines = [f"{head}: {plan}, execution {execution_id}: {figures} (the gate: {limits})."]
    if verdict.reasons:
        lines.append("Failed because: " + "; ".join(verdict.reasons) + ".")
    lines.append(f"Results: {results_link}")
    unresolved = verdict.unresolved
    if not unresolved.empty:
        lines.append("Unresolved failures:")
        shown = with_environments(unresolved.head(SHOWN))
        columns = (shown[c] for c in ("scenario_id", "environment", "level", "message"))
        for scenario, environment, level, message in zip(*columns, strict=True):
            text = "" if pd.isna(message) else " ".join(str(message).split())
            if len(text) > MESSAGE_WIDTH:
                text = text[: MESSAGE_WIDTH - 1] + "…"
            scenario_id = int(scenario)
            lines.append(
                f"- scenario {scenario_id} on {environment}: {level}"
                + (f": {text}" if text else "")
                + f" ({scenario_link(scenario_id)})"
            )
        if len(unresolved) > SHOWN:
            lines.append(f"- and {len(unresolved) - SHOWN} more (see the results page)")
    return lines
