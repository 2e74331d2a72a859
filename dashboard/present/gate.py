"""The quality gate's verdict in words, for a CI log: one line that says pass or fail and why,
then the unresolved failures (at most `SHOWN`), each with a link to its evidence, then every
mark that let a failure through (who made it, its ticket, until when).

A CI system reads commands from the start of a log line (`::error::`, `##vso[`), so every text
that came from the service or a person (plan names, environments, levels, messages, authors,
tickets) passes through `formatting.visible_text(..., one_line=True)`: it stays inside its own
line, with no control or bidirectional characters.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from dashboard.analytics.environment_names import with_environments
from dashboard.analytics.gate import (
    LINE_INCOMPLETE,
    LINE_KNOWN,
    LINE_OUTAGE,
    LINE_OUTAGE_LET_THROUGH,
    LINE_UNRESOLVED,
    UNENDING,
    UNKNOWN_KIND,
    UNSIGNED,
    GateRules,
    GateVerdict,
)
from dashboard.present.formatting import visible_text

SHOWN = 20
"""Unresolved failures listed one per line; the rest are counted."""
MESSAGE_WIDTH = 120

IGNORED_BECAUSE = {
    UNKNOWN_KIND: "malformed (a kind or target this gate does not know, or a field missing)",
    UNSIGNED: "without an author (--signed-marks-only)",
    UNENDING: "without an expiry (--require-mark-expiry)",
}


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
        verdict_figures(verdict)
        + "; pass rate "
        + ("-" if rate is None else f"{rate:.2%}")
        + " without known failures"
        + f" ({split.passed} of {split.verdicts - split.known} verdicts)"
    )
    limits = f"at most {rules.max_unresolved} unresolved" + (
        "" if rules.min_pass_rate is None else f", at least {rules.min_pass_rate:.2%}"
    )
    head = "PASS" if verdict.passed else "FAIL"
    lines = [f"{head}: {_inert(plan)}, execution {execution_id}: {figures} (the gate: {limits})."]
    if verdict.reasons:
        lines.append("Failed because: " + "; ".join(verdict.reasons) + ".")
    lines.append(f"Results: {_inert(results_link)}")
    unresolved = verdict.unresolved
    if not unresolved.empty:
        lines.append("Unresolved failures:")
        shown = with_environments(unresolved.head(SHOWN))
        columns = (shown[c] for c in ("scenario_id", "environment", "level", "message"))
        for scenario, environment, level, message in zip(*columns, strict=True):
            text = "" if pd.isna(message) else _inert(message, width=MESSAGE_WIDTH)
            scenario_id = int(scenario)
            lines.append(
                f"- scenario {scenario_id} on {_inert(environment)}: {_inert(level)}"
                + (f": {text}" if text else "")
                + f" ({_inert(scenario_link(scenario_id))})"
            )
        if len(unresolved) > SHOWN:
            lines.append(f"- and {len(unresolved) - SHOWN} more (see the results page)")
    lines += mark_lines(verdict)
    return lines


def verdict_figures(verdict: GateVerdict) -> str:
    """The failures by their triage verdict, as the line says them: "3 unresolved (1 new,
    2 broken); 17 in a likely outage, 2 known" (a count of nothing left out, but known)."""
    counts = verdict.line_counts
    labels = verdict.unresolved_labels
    unresolved = f"{counts[LINE_UNRESOLVED]} {LINE_UNRESOLVED}"
    if set(labels) - {LINE_UNRESOLVED}:
        unresolved += " (" + ", ".join(f"{n} {label}" for label, n in labels.items()) + ")"
    apart = [f"{counts[name]} {name}" for name in (LINE_OUTAGE, LINE_INCOMPLETE) if counts[name]]
    if counts[LINE_OUTAGE_LET_THROUGH]:
        apart[0] += f" ({counts[LINE_OUTAGE_LET_THROUGH]} {LINE_OUTAGE_LET_THROUGH})"
    return f"{unresolved}; " + ", ".join([*apart, f"{counts[LINE_KNOWN]} {LINE_KNOWN}"])


def mark_lines(verdict: GateVerdict) -> list[str]:
    """Every mark the verdict applied, one line each ("- mark 3f2a (known_issue) by ann, ticket
    https://..., until 2026-12-01: 2 failures"), and the marks it did not use, counted by why."""
    lines: list[str] = []
    applied = verdict.applied
    if not applied.empty:
        lines.append(f"Marks applied ({len(applied)}):")
        for mark_id, kind, author, ticket, until, failures in zip(
            *(applied[c] for c in applied.columns), strict=True
        ):
            by = "no author" if _blank(author) else f"by {_inert(author)}"
            filed = "no ticket" if _blank(ticket) else f"ticket {_inert(ticket)}"
            ends = "no expiry" if pd.isna(until) else f"until {until:%Y-%m-%d}"
            lines.append(
                f"- mark {_inert(mark_id)} ({_inert(kind)}) {by}, {filed}, {ends}: "
                f"{failures} failure{'s' if failures != 1 else ''}"
            )
    if verdict.ignored:
        counted = "; ".join(
            f"{n} {IGNORED_BECAUSE.get(why, why)}" for why, n in verdict.ignored.items()
        )
        lines.append(f"Marks not used: {counted}.")
    return lines


def _blank(value: object) -> bool:
    return value is None or bool(pd.isna(value)) or not str(value).strip()


def _inert(value: object, *, width: int | None = None) -> str:
    """`value` as inert text inside one line of a CI log, cut to `width` characters if given."""
    text = visible_text(value, one_line=True)
    return text if width is None or len(text) <= width else text[: width - 1] + "…"
