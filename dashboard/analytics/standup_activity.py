"""Activity in a window: how many executions started, and how their finished ones did. The
standup compares this window's with the previous window's of equal length."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from dashboard.analytics.outcomes import FAIL, PASS, execution_outcomes
from dashboard.analytics.windows import Window
from dashboard.columns.shapes import require_columns


@dataclass(frozen=True)
class Activity:
    """Executions that started in a window, and how their finished ones did."""

    executions: int
    finished: int
    running: int
    passed: int  # finished executions that passed
    failed: int  # finished executions that failed
    no_verdict: int  # finished executions without a verdict
    results_passed: int
    results_with_verdict: int

    @property
    def pass_rate(self) -> float | None:
        """Passed results of finished executions over their results with a verdict."""
        if not self.results_with_verdict:
            return None
        return self.results_passed / self.results_with_verdict


def activity(executions: pd.DataFrame, window: Window) -> Activity:
    """Executions that started in `window` (needs start, finished, verdicts, passed, failed)."""
    require_columns(
        executions, ("start", "finished", "verdicts", "passed", "failed"), "window activity"
    )
    inside = executions[window.contains(executions["start"])]
    finished = inside["finished"].fillna(False).astype(bool)
    outcomes = execution_outcomes(inside)[finished]
    done = inside[finished]
    return Activity(
        executions=len(inside),
        finished=int(finished.sum()),
        running=int((~finished).sum()),
        passed=int((outcomes == PASS).sum()),
        failed=int((outcomes == FAIL).sum()),
        no_verdict=int(outcomes.isna().sum()),
        results_passed=int(done["passed"].sum()),
        results_with_verdict=int(done["verdicts"].sum()),
    )
