"""Slower scenarios across plans on a hand-built history: the scenario page's regression rule
over every scenario at once, ranked by change, with its evidence and its minimum of runs."""

from __future__ import annotations

import pandas as pd
import pytest

from dashboard.analytics.slower_scenarios import slower_scenarios
from tests.analytics.frames import CHROME, FIREFOX, execution, executions, result, results, ts

RUNS = 20


def history() -> pd.DataFrame:
    rows = [execution(i, 1, f"2025-05-{i:02d} 10:00") for i in range(1, RUNS + 1)]
    rows += [execution(100 + i, 2, f"2025-05-{i:02d} 11:00") for i in range(1, RUNS + 1)]
    rows.append(execution(99, 1, "2025-05-25 10:00", "running"))
    return executions(rows)


def timed(
    first: int,
    scenario: int,
    seconds: list[int],
    *,
    plan: int = 1,
    env: dict = CHROME,
    level: str = "SUCCESS",
) -> list[dict]:
    return [
        result(first + i, scenario, level, env, plan_id=plan, runtime_s=s)
        for i, s in enumerate(seconds)
    ]


def outcomes() -> pd.DataFrame:
    rows = []
    rows += timed(1, 1, [30] * 15 + [60] * 5)  # doubled: +100 %
    rows += timed(1, 1, [30] * 15 + [60] * 5, env=FIREFOX)  # the same on Firefox: one run each
    rows += timed(1, 2, [30] * 15 + [36] * 5)  # +20 %: under the threshold
    rows += timed(1, 3, [30] * 15 + [45] * 4 + [30])  # +50 % but its last run is back: median 45
    rows += timed(101, 4, [40] * 15 + [50] * 5, plan=2)  # +25 %: exactly at the threshold
    rows += timed(1, 5, [30] * 3 + [90] * 5)  # 3 earlier runs only: not enough to judge
    # Failures are not completed runs: a slow failure does not make a scenario slower.
    rows += timed(1, 6, [30] * 15) + timed(16, 6, [300] * 5, level="FAILURE")
    rows += timed(99, 1, [500])  # the running execution is no part of the window
    return results(rows)


def test_scenarios_clearly_slower_than_their_own_earlier_runs_ranked_by_change() -> None:
    found = slower_scenarios(history(), outcomes())

    rows = found.slower
    assert list(zip(rows["plan_id"], rows["scenario_id"], strict=True)) == [(1, 1), (1, 3), (2, 4)]
    first = rows.iloc[0]
    assert (first["recent_median_s"], first["earlier_median_s"]) == (60, 30)
    assert first["change"] == pytest.approx(1.0)
    assert (first["recent_runs"], first["earlier_runs"]) == (5, 15)
    assert first["latest_start"] == ts("2025-05-20 10:00")
    assert rows.iloc[2]["change"] == pytest.approx(0.25)
    # 1, 2, 3, 4 and 6 had enough runs; 5 had too few earlier ones.
    assert (found.judged, found.scenarios) == (5, 6)


def test_the_window_and_the_threshold_are_the_caller_s() -> None:
    # In the last 8 executions scenario 1 has only 3 earlier runs: not enough.
    narrow = slower_scenarios(history(), outcomes(), window=8)
    assert 1 not in set(narrow.slower["scenario_id"])
    strict = slower_scenarios(history(), outcomes(), threshold=0.6)
    assert list(strict.slower["scenario_id"]) == [1]


def test_no_completed_run_means_nothing_slower() -> None:
    found = slower_scenarios(history(), results([]))
    assert found.slower.empty
    assert (found.judged, found.scenarios) == (0, 0)
