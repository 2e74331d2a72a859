"""What a page says when a window's results must first be fetched from the service: how much,
before it starts (`need_text`), and what was fetched, once done (`fetched_text`)."""

from __future__ import annotations

from dashboard.data.fetch_jobs import FetchNeed
from dashboard.present.formatting import plural


def need_text(need: FetchNeed) -> str:
    """ "The history store does not hold the results of 2,000 of these executions yet: 12,400
    requests to the service, roughly 3 min. ..." """
    return (
        f"The history store does not hold the results of {plural(need.executions, 'execution')} "
        f"of this window yet: {plural(need.requests, 'request')} to the service, roughly "
        f"{rough_duration(need.seconds)}. What arrives is kept, so they are fetched only once: "
        "another page or viewer that needs them meanwhile waits for this fetch."
    )


def fetched_text(need: FetchNeed, seconds: float) -> str:
    """What the first visit fetched, said once it is done."""
    return (
        f"Fetched the results of {plural(need.executions, 'execution')} from the service "
        f"({plural(need.requests, 'request')}, {rough_duration(seconds)}) and kept them in the "
        "history store: they are not asked for again."
    )


def rough_duration(seconds: float) -> str:
    """A duration as said roughly: "1 s", "40 s", "3 min", "2 h"."""
    if seconds < 60:
        return f"{max(1, round(seconds))} s"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} min"
    return f"{round(seconds / 3600)} h"
