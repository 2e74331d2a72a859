"""An alert's words: a title and one or two Markdown lines that end with the link to its
evidence (given by the caller, which knows the dashboard's pages).

Every name, message and ticket goes through `chat_text`, the digest's own rule: a plan called
"<!channel>" or "[Checkout](https://evil.example)" mentions and links nobody, and a direction
mark shows as the pages show it. A ticket is a link only to a web address (`chat_link`).
"""

from __future__ import annotations

from dashboard.analytics.alerts import BROKEN, EXPIRING, FLAKY, GREEN, LOOKS_FIXED, RED, Change
from dashboard.present.formatting import chat_link, chat_text


def _plan(change: Change) -> str:
    name = f" “{chat_text(change.plan)}”" if change.plan else ""
    return f"plan {change.plan_id}{name}"


def _words(text: str | None) -> str:
    return "" if text is None else chat_text(text)


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
        return f"Known failure expires tomorrow: {_words(change.target)}"
    if change.kind == LOOKS_FIXED:
        return f"Known failure looks fixed: {_words(change.target)}"
    raise ValueError(f"unknown kind of change: {change.kind!r}")


def alert_body(change: Change, link: str | None) -> str:
    """The message's Markdown: what changed, the numbers behind it, the link to its evidence."""
    started = "" if change.start is None else f" (started {change.start:%Y-%m-%d %H:%M} UTC)"
    detail = _words(change.detail)
    if change.kind == RED:
        text = (
            f"Execution {change.execution_id}{started} failed after execution "
            f"{change.previous_execution_id} passed: {detail}."
        )
    elif change.kind == GREEN:
        text = (
            f"Execution {change.execution_id}{started} passed after execution "
            f"{change.previous_execution_id} failed."
        )
    elif change.kind in (BROKEN, FLAKY):
        text = (
            f"Scenario {change.scenario_id} is {change.kind} as of execution "
            f"{change.execution_id}{started}: {detail}."
        )
    else:
        words = _words(change.ticket)
        ticket = f" Ticket: {chat_link(words, change.ticket, relative=False)}." if words else ""
        action = "Extend it or close it." if change.kind == EXPIRING else "Close it if it is fixed."
        text = f"The mark on {_words(change.target)}: {detail}.{ticket} {action}"
    return text + (f"\n\n{chat_link('See the evidence', link)}" if link else "")
