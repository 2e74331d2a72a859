"""Whether an execution's results hold what the service says of it: the one completeness rule.

The service counts an execution's results in its `result_summary` and lists their ids, but
serves them one (execution, scenario) pair at a time, and may answer a finished execution's
pair before its index lists every result (an empty answer for a failing scenario, #35). Results
short of the execution's own record must neither be judged (the quality gate) nor kept as final
(the history store, the sync, the pages' fetches): the next fetch asks the service again.

`shortfall` is the rule; every caller gives what it can rely on (`Expected`). The gate gives
the summary's failure and result counts and the listed ids of the one execution it judges. The
fetch paths give the failures counted only: they ask for the scenarios the plan lists now, so
the results of a scenario dropped from the plan since are counted by the summary and listed by
id, but never asked for, and a whole execution would be found short for ever.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass

import pandas as pd

from dashboard.analytics.outcomes import FAIL, level_outcomes


@dataclass(frozen=True)
class Expected:
    """What the service's own record of one execution says its results hold: the failures its
    summary counts, the results it counts (0: not checked) and the ids it lists (none: not
    checked)."""

    failed: int
    results: int = 0
    result_ids: tuple[int, ...] = ()


@dataclass(frozen=True)
class Shortfall:
    """What results lack of their execution's record: failures counted but not among them,
    listed ids not among them, results counted (when no ids are listed) not among them."""

    failures: int = 0
    absent_ids: tuple[int, ...] = ()
    uncounted: int = 0

    def text(self) -> str:
        """One clause ("1 failure counted by the service is not in its results")."""
        gaps: list[str] = []
        if self.failures:
            gaps.append(_not_in(self.failures, "failure", "counted"))
        absent = self.absent_ids
        if absent:
            shown = ", ".join(str(i) for i in absent[:5]) + (", ..." if len(absent) > 5 else "")
            ids = f"id{'s' if len(absent) != 1 else ''} {shown}"
            gaps.append(f"{_not_in(len(absent), 'result', 'listed')} ({ids})")
        elif self.uncounted:
            gaps.append(_not_in(self.uncounted, "result", "counted"))
        return "; ".join(gaps)


def shortfall(expected: Expected, fetched: pd.DataFrame) -> Shortfall | None:
    """What the `fetched` results of one execution (with `level` and `result_id`) lack of
    `expected`; None when they hold it all."""
    have_failed = int((level_outcomes(fetched["level"]) == FAIL).sum())
    fetched_ids = {int(i) for i in fetched["result_id"].dropna()}
    absent = tuple(sorted({int(i) for i in expected.result_ids} - fetched_ids))
    found = Shortfall(
        failures=max(expected.failed - have_failed, 0),
        absent_ids=absent,
        uncounted=0 if absent else max(expected.results - len(fetched_ids), 0),
    )
    return None if found == Shortfall() else found


def missing_evidence(
    *, failed: int, results: int, result_ids: Collection[int], fetched: pd.DataFrame
) -> str | None:
    """`shortfall` as a clause a CI log can show, None when nothing is missing: the summary's
    `failed` and `results` counts and the listed `result_ids` against the `fetched` results.
    The gate never judges on less: a failure the service counts but did not list (yet) would
    otherwise pass unseen."""
    expected = Expected(failed, results, tuple(int(i) for i in result_ids))
    found = shortfall(expected, fetched)
    return None if found is None else found.text()


def combined(shortfalls: Iterable[Shortfall]) -> Shortfall:
    """Several executions' shortfalls as one (what a page says of its window)."""
    failures, uncounted = 0, 0
    absent: list[int] = []
    for found in shortfalls:
        failures += found.failures
        absent += found.absent_ids
        uncounted += found.uncounted
    return Shortfall(failures, tuple(sorted(absent)), 0 if absent else uncounted)


def expected_failures(executions: pd.DataFrame) -> dict[int, Expected]:
    """What the fetch paths check of each finished execution among `executions` (with
    execution_id, finished and failed, as the pages' executions frame has them): the failures
    its summary counts."""
    done = executions[executions["finished"].fillna(False).astype(bool)]
    return {
        int(e): Expected(failed=int(n))
        for e, n in zip(done["execution_id"], done["failed"].fillna(0), strict=True)
    }


def _not_in(count: int, noun: str, how: str) -> str:
    many = count != 1
    return (
        f"{count} {noun}{'s' if many else ''} {how} by the service "
        f"{'are' if many else 'is'} not in its results"
    )
