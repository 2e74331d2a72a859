"""The plans page's words: what the table lists, and where its verdict columns come from."""

from __future__ import annotations

from datetime import date

from dashboard.present.formatting import describe_slice, times_note


def plans_caption(
    count: int, *, active_only: bool, project: str | None, today: date, tz: str
) -> str:
    """ "12 active plans in project Web. Select a plan to open its executions. Times are UTC." """
    kind = "active " if active_only else ""
    scope = f"in project {project}" if project else "in every project"
    return (
        describe_slice(count, f"{kind}plan", None, None, today=today)
        + f" {scope}. Select a plan to open its executions. {times_note(tz)}"
    )


def states_caption(executions: int) -> str:
    """Where the Now, Latest finished and Same since columns come from."""
    return (
        "Now, Latest finished and Same since come from the last 30 days of executions "
        f"({executions:,}): a plan is judged on its latest finished execution; a running one is "
        "not a verdict. Same since is the first execution of the current run of passes or "
        "failures within those 30 days."
    )


def no_plans_text(*, active_only: bool) -> str:
    """What to do when no plan matches the filters."""
    return "No plans match these filters." + (
        " Turn off *Active plans only* to include disabled ones." if active_only else ""
    )
