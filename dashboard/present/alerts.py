"""An alert's words: a title and one or two Markdown lines that end with the link to its
evidence (given by the caller, which knows the dashboard's pages)."""

from __future__ import annotations

from dashboard.analytics.alerts import BROKEN, EXPIRING, FLAKY, GREEN, LOOKS_FIXED, RED, Change


def _plan(change: Change) -> str:
    name = f" “{change.plan}”" if change.plan else ""
    return f"plan {change.plan_id}{name}"


def alert_title(change: Change) -> str:
    if change.kind == RED:
        return f"Red: {_plan(change)} failed"
    if change.kind == GREEN:
        return f"Green again: {_plan(change)} passed"
    if change.kind == BROKEN:
        return f"Broken: scenario {change.scenario_id} of {_plan(change)}"
    if change.kind == FLAKY:
        return f"Flaky: scenario {change.scenario_id} of {_plan(change)}"
    if change.kind == EXPIRING:
        return f"Known failure expires tomorrow: {change.target}"
    if change.kind == LOOKS_FIXED:
        return f"Known failure looks fixed: {change.target}"
    raise ValueError(f"unknown kind of change: {change.kind!r}")


def alert_body(change: Change, link: str | None) -> str:
    """The message's Markdown: what changed, the numbers behind it, the link to its evidence."""
    started = "" if change.start is None else f" (started {change.start:%Y-%m-%d %H:%M} UTC)"
    if change.kind == RED:
        text = (
            f"Execution {change.execution_id}{started} failed after execution "
            f"{change.previous_execution_id} passed: {change.detail}."
        )
    elif change.kind == GREEN:
        text = (
            f"Execution {change.execution_id}{started} passed after execution "
            f"{change.previous_execution_id} failed."
        )
    elif change.kind in (BROKEN, FLAKY):
        text = (
            f"Scenario {change.scenario_id} is {change.kind} as of execution "
            f"{change.execution_id}{started}: {change.detail}."
        )
    else:
        ticket = f" Ticket: {change.ticket}." if change.ticket else ""
        action = "Extend it or close it." if change.kind == EXPIRING else "Close it if it is fixed."
        text = f"The mark on {change.target}: {change.detail}.{ticket} {action}"
    return text + (f"\n\n[See the evidence]({link})" if link else "")
