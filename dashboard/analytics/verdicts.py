"""The verdict rules: which statuses are a verdict, which pass, which fail. Defined once here.

The service's set of statuses is open (spec section 2.1 names only some): anything this module
does not know is neither a pass nor a failure, so it is left out of rates instead of lowering
them. Colours live in `dashboard.present.colors`; this module only decides.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

SUCCESS = "SUCCESS"

KNOWN_STATUSES: tuple[str, ...] = (
    "SUCCESS",
    "FAILURE",
    "ERROR",
    "WARNING",
    "WAITING",
    "PROCESSING",
    "REPORTING",
    "TERMINATING",
    "STOPPED",
    "UNEXECUTED",
)
"""Known statuses in the order a stacked chart or a summary lists them: verdicts first, then the
states of a test that has not (yet) produced a verdict."""

VERDICT_STATUSES: frozenset[str] = frozenset({"SUCCESS", "FAILURE", "ERROR", "WARNING"})
"""Statuses that are a test's verdict: the denominator of every pass rate. Everything else, known
(WAITING, PROCESSING, STOPPED, UNEXECUTED...) or not, says nothing about pass or fail yet, so it
is left out of pass rates rather than counted as a failure."""

PASSED_STATUSES: frozenset[str] = frozenset({SUCCESS})
"""Verdicts that count as passed. A WARNING is a verdict but not a pass: the test ran to the end
with something a QA lead should look at, so it lowers the pass rate without being a failure."""

FAILING_STATUSES: frozenset[str] = frozenset({"FAILURE", "ERROR"})
"""Statuses that count as a failed test (used for "failing plans")."""

RUNNING_STATUSES: frozenset[str] = frozenset({"WAITING", "PROCESSING", "REPORTING", "TERMINATING"})
"""Statuses of a test that is not over yet. An execution with any of them is still running: it
is never a verdict, never stored as history, and its results are always fetched fresh. Unknown
statuses are not counted as running (an execution that never finishes would never be kept)."""

FILTER_STATUSES: tuple[str, ...] = ("SUCCESS", "FAILURE", "ERROR", "WARNING", "WAITING")
"""The execution statuses the service's `status` filter accepts (README, decision 11); it
answers 400 to any other value, so the status picker offers these."""


def _norm(status: str) -> str:
    return status.strip().upper()


def ordered_statuses(statuses: Iterable[str]) -> list[str]:
    """Known statuses in their fixed order, then unknown ones alphabetically."""
    known_order = {name: i for i, name in enumerate(KNOWN_STATUSES)}
    unique = set(statuses)
    return sorted(unique, key=lambda s: (known_order.get(s.upper(), len(known_order)), s))


def is_failing(status: str) -> bool:
    return _norm(status) in FAILING_STATUSES


def has_verdict(status: str) -> bool:
    return _norm(status) in VERDICT_STATUSES


def is_passed(status: str) -> bool:
    return _norm(status) in PASSED_STATUSES


def is_running(status: str) -> bool:
    return _norm(status) in RUNNING_STATUSES


def outcome(status: str) -> str | None:
    """A result's outcome for cross-run analytics: "pass" (SUCCESS), "fail" (FAILURE, ERROR),
    "warn" (WARNING), or None (no verdict: waiting, running, stopped, unknown)."""
    norm = _norm(status)
    if norm in PASSED_STATUSES:
        return "pass"
    if norm in FAILING_STATUSES:
        return "fail"
    if norm in VERDICT_STATUSES:
        return "warn"
    return None


def pass_rate(passed: int, verdicts: int) -> float | None:
    """Passed out of results with a verdict; None when nothing has a verdict yet."""
    return passed / verdicts if verdicts else None


def execution_status(summary: Mapping[str, int]) -> str:
    """An execution's status from its `result_summary` (status name -> count). The rule, once:

    1. a running status (WAITING, PROCESSING, REPORTING, TERMINATING) if any result has one
       (the first of them in `KNOWN_STATUSES` order, so WAITING before PROCESSING);
    2. else ERROR if any result has it; 3. else FAILURE; 4. else WARNING; 5. else SUCCESS.

    Statuses are matched case-insensitively; zero (or negative) counts and unknown statuses are
    ignored, so a summary of only STOPPED or unknown results, or an empty one, says SUCCESS.
    That is why no rate reads `status`: a pass needs verdicts (`execution_outcome`).
    """
    present = {_norm(status) for status, count in summary.items() if count and count > 0}
    for status in KNOWN_STATUSES:
        if status in RUNNING_STATUSES and status in present:
            return status
    for status in ("ERROR", "FAILURE", "WARNING"):
        if status in present:
            return status
    return SUCCESS


def execution_finished(end: object, summary: Mapping[str, int]) -> bool:
    """Finished = it has an end time and no result in a running status. A missing end
    (None or NaT) means it is still going, whatever its results say so far."""
    if end is None or end != end:  # NaT and NaN are not equal to themselves
        return False
    return not any(
        _norm(status) in RUNNING_STATUSES
        for status, count in summary.items()
        if count and count > 0
    )


def execution_outcome(*, finished: bool, verdicts: int, failed: int) -> str | None:
    """An execution's verdict: "fail" when any result failed (FAILURE or ERROR), "pass" when it
    is finished, has verdicts and none failed, else None (running, or nothing with a verdict).
    A running execution is never a pass; a failure already seen stays a failure."""
    if failed > 0:
        return "fail"
    if finished and verdicts > 0:
        return "pass"
    return None
