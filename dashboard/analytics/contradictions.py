"""Data that contradicts itself: values no run can have, and a summary its own results deny.

A service with a bug (or a hostile one) can send a negative runtime, a start date a year ahead,
an end before its start, or a `result_summary` that disagrees with the results it returns. The
pages show such data, but never as if it were true: these pure functions find it (which kind,
which records), `without_impossible_runtimes` turns the impossible values into unknowns, and
`dashboard.present.messages.describe_contradictions` words the finding. One bad record never
hides the others.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

import pandas as pd

from dashboard.analytics.verdicts import is_running, ordered_statuses
from dashboard.columns.schemas import UTC_TIME

CLOCK_SLACK = timedelta(minutes=15)
"""How far ahead of `now` a date may be before it is "in the future": clocks drift."""


class Kind(StrEnum):
    """What is impossible about a record."""

    NEGATIVE_RUNTIME = "negative_runtime"
    FUTURE_START = "future_start"
    FUTURE_END = "future_end"
    END_BEFORE_START = "end_before_start"


@dataclass(frozen=True)
class Contradiction:
    """Records (by id, in the frame's order, each once) with one kind of impossible value."""

    kind: Kind
    ids: tuple[int, ...]


def execution_contradictions(
    executions: pd.DataFrame, *, now: datetime
) -> tuple[Contradiction, ...]:
    """The impossible values among executions (`data.frames.executions_frame`'s columns
    execution_id, start, end, runtime_ms), kinds in `Kind`'s order, empty kinds left out."""
    if executions.empty:
        return ()
    limit = pd.Timestamp(now) + CLOCK_SLACK
    start, end = executions["start"], executions["end"]
    checks = {
        Kind.NEGATIVE_RUNTIME: _numbers(executions["runtime_ms"]) < 0,
        Kind.FUTURE_START: start.notna() & (start > limit),
        Kind.FUTURE_END: end.notna() & (end > limit),
        Kind.END_BEFORE_START: start.notna() & end.notna() & (end < start),
    }
    return _found(executions["execution_id"], checks)


def result_contradictions(results: pd.DataFrame, *, now: datetime) -> tuple[Contradiction, ...]:
    """The impossible values among one execution's results (`results_frame`'s columns), by
    scenario id: a negative runtime, a start in the future."""
    if results.empty:
        return ()
    limit = pd.Timestamp(now) + CLOCK_SLACK
    start = results["start"]
    checks = {
        Kind.NEGATIVE_RUNTIME: _numbers(results["runtime_s"]) < 0,
        Kind.FUTURE_START: start.notna() & (start > limit),
    }
    return _found(results["scenario_id"], checks)


def without_impossible_runtimes(frame: pd.DataFrame, column: str) -> pd.DataFrame:
    """`frame` with its negative runtimes in `column` made unknown (NA): no chart, median or
    table shows a duration no run can have. The frame is returned as is when none is negative."""
    negative = _numbers(frame[column]) < 0
    if not negative.any():
        return frame
    return frame.assign(**{column: frame[column].mask(negative)})


@dataclass(frozen=True)
class SummaryDisagreement:
    """An execution's `result_summary` (claimed) against the results the service returned, as
    (status, count) pairs in the fixed status order."""

    claimed: tuple[tuple[str, int], ...]
    returned: tuple[tuple[str, int], ...]

    @property
    def claimed_total(self) -> int:
        return sum(count for _, count in self.claimed)

    @property
    def returned_total(self) -> int:
        return sum(count for _, count in self.returned)


def summary_disagreement(
    summary: Iterable[tuple[str, int]], results: pd.DataFrame
) -> SummaryDisagreement | None:
    """Whether the results of an execution deny its summary; None when they agree.

    Only meaningful when every result was returned (the caller skips partial loads). A summary
    with a running status is not compared: the results move on while the summary was read.
    Statuses compare case-insensitively; a result without a level counts as "UNKNOWN".
    """
    claimed = _counts((status.strip().upper(), int(n)) for status, n in summary if n)
    if any(is_running(status) for status in claimed):
        return None
    levels = results["level"].fillna("UNKNOWN").astype(str).str.strip().str.upper()
    returned = _counts((level, 1) for level in levels)
    if claimed == returned:
        return None
    return SummaryDisagreement(_pairs(claimed), _pairs(returned))


def _numbers(column: pd.Series) -> pd.Series:
    return pd.to_numeric(column, errors="coerce").fillna(0)


def _found(ids: pd.Series, checks: dict[Kind, pd.Series]) -> tuple[Contradiction, ...]:
    found = []
    for kind, mask in checks.items():
        hit = ids[mask.fillna(False).astype(bool)]
        if not hit.empty:
            found.append(Contradiction(kind, tuple(dict.fromkeys(int(i) for i in hit.dropna()))))
    return tuple(found)


def _counts(pairs: Iterable[tuple[str, int]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for status, n in pairs:
        counts[status] = counts.get(status, 0) + n
    return counts


def _pairs(counts: dict[str, int]) -> tuple[tuple[str, int], ...]:
    return tuple((status, counts[status]) for status in ordered_statuses(counts))


def one_execution_contradictions(
    execution_id: int,
    *,
    start: datetime | None,
    end: datetime | None,
    runtime_s: float | None,
    now: datetime,
) -> tuple[Contradiction, ...]:
    """`execution_contradictions` for one execution known by its header's values."""
    frame = pd.DataFrame(
        {
            "execution_id": [execution_id],
            "start": pd.Series([start], dtype=UTC_TIME),
            "end": pd.Series([end], dtype=UTC_TIME),
            "runtime_ms": [None if runtime_s is None else runtime_s * 1000],
        }
    )
    return execution_contradictions(frame, now=now)


def possible_runtime(seconds: float | None) -> float | None:
    """A runtime as shown: a negative one is unknown (None)."""
    return None if seconds is None or seconds < 0 else seconds
