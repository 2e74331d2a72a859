"""How a cell's outcome and a comparison's bucket look: the status colours and symbols of
`colors.py`, so a pass, a failure or a warning reads the same on every page and chart.

A cell's outcome (`analytics.outcomes`) is a verdict drawn from result statuses: "pass" looks
like SUCCESS, "fail" like FAILURE, "warn" like WARNING, no verdict like an unknown status.
"""

from __future__ import annotations

from dashboard.analytics import compare
from dashboard.analytics.outcomes import FAIL, PASS, WARN
from dashboard.present.colors import (
    STATUS_COLORS,
    STATUS_SYMBOLS,
    UNKNOWN_STATUS_COLOR,
    UNKNOWN_STATUS_SYMBOL,
)

NOT_RUN_SYMBOL = "\u00b7"  # middle dot: the scenario did not run in that execution
NOT_RUN_COLOR = "#d0d0d0"

OUTCOME_SYMBOLS: dict[str, str] = {
    PASS: STATUS_SYMBOLS["SUCCESS"],
    FAIL: STATUS_SYMBOLS["FAILURE"],
    WARN: STATUS_SYMBOLS["WARNING"],
}
OUTCOME_COLORS: dict[str, str] = {
    PASS: STATUS_COLORS["SUCCESS"],
    FAIL: STATUS_COLORS["FAILURE"],
    WARN: STATUS_COLORS["WARNING"],
}
OUTCOME_WORDS: dict[str, str] = {PASS: "passed", FAIL: "failed", WARN: "warning"}
NO_VERDICT_WORD = "no verdict"

# The characters of a flaky sequence (`analytics.flaky`): P pass, F fail, W warning,
# N no verdict, "." not run in that execution.
SEQUENCE_OUTCOMES: dict[str, str | None] = {"P": PASS, "F": FAIL, "W": WARN, "N": None}


def _key(outcome: object) -> str:
    """An outcome as a lookup key: "" for no verdict (None, pandas' NA)."""
    return outcome if isinstance(outcome, str) else ""


def outcome_symbol(outcome: object) -> str:
    return OUTCOME_SYMBOLS.get(_key(outcome), UNKNOWN_STATUS_SYMBOL)


def outcome_color(outcome: object) -> str:
    return OUTCOME_COLORS.get(_key(outcome), UNKNOWN_STATUS_COLOR)


def outcome_label(outcome: object) -> str:
    """ "\u2714 passed", "\u2716 failed", "\u25b2 warning", "? no verdict"."""
    return f"{outcome_symbol(outcome)} {OUTCOME_WORDS.get(_key(outcome), NO_VERDICT_WORD)}"


def sequence_symbols(sequence: str) -> str:
    """A flaky sequence as symbols, oldest first: "\u2714\u2716\u00b7\u2714"."""
    return "".join(
        NOT_RUN_SYMBOL if char == "." else outcome_symbol(SEQUENCE_OUTCOMES.get(char))
        for char in sequence
    )


BUCKET_SYMBOLS: dict[str, str] = {
    compare.NEW_FAILURE: STATUS_SYMBOLS["FAILURE"],
    compare.FIXED: STATUS_SYMBOLS["SUCCESS"],
    compare.STILL_FAILING: STATUS_SYMBOLS["FAILURE"],
    compare.STILL_PASSING: STATUS_SYMBOLS["SUCCESS"],
    compare.MISSING_BEFORE: STATUS_SYMBOLS["UNEXECUTED"],
    compare.MISSING_AFTER: STATUS_SYMBOLS["UNEXECUTED"],
    compare.NO_VERDICT: UNKNOWN_STATUS_SYMBOL,
}
BUCKET_COLORS: dict[str, str] = {
    compare.NEW_FAILURE: STATUS_COLORS["FAILURE"],
    compare.FIXED: STATUS_COLORS["SUCCESS"],
    compare.STILL_FAILING: STATUS_COLORS["ERROR"],
    compare.STILL_PASSING: STATUS_COLORS["SUCCESS"],
    compare.MISSING_BEFORE: STATUS_COLORS["UNEXECUTED"],
    compare.MISSING_AFTER: STATUS_COLORS["UNEXECUTED"],
    compare.NO_VERDICT: UNKNOWN_STATUS_COLOR,
}


def bucket_label(bucket: str) -> str:
    """A comparison bucket as "\u2716 new failure"."""
    return f"{BUCKET_SYMBOLS.get(bucket, UNKNOWN_STATUS_SYMBOL)} {bucket}"
