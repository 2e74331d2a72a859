"""The execution results page's words: the execution's header line, and what the table and
charts were computed from."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from dashboard.analytics.executions import ExecutionHeader
from dashboard.analytics.outages import CONFIRMED
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


def outage_line(verdict: Mapping[str, object]) -> str:
    """An outage execution said at the top, from one of its outage verdicts: "likely outage:
    95 % of the run failed with one message: UnreachableBrowser: grid down"."""
    kind = "confirmed outage" if verdict.get("outage") == CONFIRMED else "likely outage"
    share, failed = verdict.get("outage_share"), verdict.get("outage_failed")
    text = kind
    if _given(share):
        text += f": {float(share) * 100:.0f} % of the run failed"  # type: ignore[arg-type]
    message, alike = verdict.get("outage_signature"), verdict.get("outage_signature_failures")
    if _given(message) and str(message) and _given(alike):
        same, of = int(alike), int(failed) if _given(failed) else 0  # type: ignore[call-overload]
        with_one = " with one message" if same >= of else f", {same} of {of} with one message"
        text += f"{with_one}: {visible_text(message, one_line=True)}"
    return (
        text + ". Its failures are labelled outage; the trend pages leave it out unless "
        "outages are included."
    )


def _given(value: object) -> bool:
    return value is not None and not bool(pd.isna(value))
