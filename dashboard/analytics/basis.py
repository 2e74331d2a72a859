"""What an analytic was computed from, so every figure can say so on the page.

A `Basis` holds numbers only; the presentation layer words them, e.g. "results of 212 of 230
executions; 18 still running" or "from 42 executions, 15 Nov - 22 Nov".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import pandas as pd

from dashboard.columns.shapes import require_columns


@dataclass(frozen=True)
class Basis:
    """The slice behind a result.

    executions: executions considered (in the window and scope).
    finished: of those, finished ones; running: still running (never a verdict).
    judged: finished ones with a verdict (pass or fail), the ones verdicts are drawn from.
    with_results: executions whose results were available to the analytic (None when it did
        not read results); results: the result rows it read (None likewise).
    start, end: the window asked for (None when the analytic has no window).
    first, last: start times of the earliest and latest execution actually counted.
    """

    executions: int
    finished: int
    running: int
    judged: int
    with_results: int | None = None
    results: int | None = None
    start: pd.Timestamp | None = None
    end: pd.Timestamp | None = None
    first: pd.Timestamp | None = None
    last: pd.Timestamp | None = None

    @property
    def without_results(self) -> int | None:
        """Executions considered whose results were not available (None if none were read)."""
        return None if self.with_results is None else self.executions - self.with_results


def execution_basis(
    executions: pd.DataFrame,
    *,
    start: pd.Timestamp | None = None,
    end: pd.Timestamp | None = None,
    results_of: Iterable[int] | None = None,
    results: int | None = None,
) -> Basis:
    """The basis of an analytic over `executions` (already narrowed to what it considered).

    `results_of` lists the execution ids whose results were read (only those among
    `executions` count toward `with_results`); `results` is how many result rows were read.
    """
    require_columns(executions, ("execution_id", "start", "finished"), "execution basis")
    finished = executions["finished"].fillna(False).astype(bool)
    judged = finished & _has_outcome(executions)
    with_results = None
    if results_of is not None:
        wanted = pd.Index(pd.unique(pd.Series(list(results_of), dtype="int64")))
        with_results = int(executions["execution_id"].isin(wanted).sum())
    starts = executions["start"].dropna()
    return Basis(
        executions=len(executions),
        finished=int(finished.sum()),
        running=int((~finished).sum()),
        judged=int(judged.sum()),
        with_results=with_results,
        results=results,
        start=start,
        end=end,
        first=starts.min() if len(starts) else None,
        last=starts.max() if len(starts) else None,
    )


def _has_outcome(executions: pd.DataFrame) -> pd.Series:
    if "verdicts" in executions.columns and "failed" in executions.columns:
        return (executions["failed"] > 0) | (executions["verdicts"] > 0)
    return pd.Series(True, index=executions.index)
