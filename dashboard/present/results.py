"""The execution results page's words: the execution's header line, and what the table and
charts were computed from."""

from __future__ import annotations

from dashboard.analytics.executions import ExecutionHeader
from dashboard.present.formatting import plural, times_note, visible_text, zone_text


def header_line(header: ExecutionHeader, tz: str) -> str:
    """ "Plan: Checkout · Project: Web · Started by: ada · Ran: ... to ..." (the names are the
    service's: plain text, each on one line)."""
    facts = [
        ("Plan", header.plan),
        ("Project", header.project),
        ("Started by", header.user),
        ("Ran", f"{zone_text(header.start, tz)} to {zone_text(header.end, tz)}"),
    ]
    return " · ".join(f"{label}: {visible_text(value, one_line=True)}" for label, value in facts)


def summary_caption(header: ExecutionHeader) -> str:
    """The service's own count per status: "Summary: SUCCESS 12, FAILURE 2"."""
    return "Summary: " + ", ".join(f"{status} {n}" for status, n in header.summary)


def slice_text(results: int, *, scenarios: int, failed: int) -> str:
    """ "40 results from 11 of 12 scenarios" (a scenario whose request failed has none)."""
    return (
        f"{plural(results, 'result')} from {scenarios - failed} of {plural(scenarios, 'scenario')}"
    )


def table_caption(slice_text: str, source: str, tz: str) -> str:
    """What the table shows, where its results came from (`captions.describe_results_source`)."""
    source_text = f"{source} " if source else ""
    return f"{slice_text}. {source_text}Log links open in a new tab. {times_note(tz)}"


def page_title(execution: int | None) -> str:
    return "Execution results" if execution is None else f"Execution #{execution}"


def environments_caption(slice_text: str) -> str:
    return slice_text + ", by operating system and browser"
