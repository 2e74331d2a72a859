"""One scenario's history and its runtime regression flag."""

from __future__ import annotations

import pandas as pd
import pytest

from dashboard.analytics.history import HISTORY_COLUMNS, scenario_history
from dashboard.analytics.windows import custom_window
from tests.analytics.frames import CHROME, DESKTOP, execution, executions, result, results, ts


def history() -> tuple[pd.DataFrame, pd.DataFrame]:
    ex = [execution(i, 1, f"2025-03-{i:02d} 10:00") for i in range(1, 16)]
    ex.append(execution(16, 1, "2025-03-16 10:00", "running"))
    ex.append(execution(17, 2, "2025-03-16 10:00"))
    rows = []
    for i in range(1, 16):
        rows.append(result(i, 5, "SUCCESS", DESKTOP, runtime_s=30))
        if i == 11:
            rows.append(result(i, 5, "FAILURE", CHROME, runtime_s=2, message="Timed out"))
        else:
            rows.append(result(i, 5, "SUCCESS", CHROME, runtime_s=30 if i <= 10 else 45))
        rows.append(result(i, 6, "SUCCESS", CHROME, runtime_s=90))  # another scenario
    rows.append(result(16, 5, "WAITING", CHROME, runtime_s=None))
    rows.append(result(17, 5, "FAILURE", CHROME, plan_id=2))  # another plan
    return executions(ex), results(rows)


def test_one_row_per_execution_and_environment_oldest_first() -> None:
    ex, res = history()
    story = scenario_history(ex, res, 1, 5)
    cells = story.cells
    assert list(cells.columns) == list(HISTORY_COLUMNS)
    assert len(cells) == 15 * 2 + 1
    assert cells["execution_id"].iloc[0] == 1
    assert cells["execution_id"].iloc[-1] == 16
    assert cells["environment"].iloc[:2].tolist() == [
        "CHROME / Windows 11",
        "SAFARI / macOS",
    ]
    failure = cells[cells["outcome"] == "fail"].iloc[0]
    assert failure["execution_id"] == 11
    assert failure["message"] == "Timed out"
    assert failure["node_log"].startswith("https://")
    assert failure["execution_start"] == ts("2025-03-11 10:00")
    assert pd.isna(cells["outcome"].iloc[-1])  # still waiting: no verdict


def test_a_clear_slowdown_is_flagged_per_environment_and_overall() -> None:
    ex, res = history()
    story = scenario_history(ex, res, 1, 5)
    envs = story.by_environment.set_index("environment")
    chrome = envs.loc["CHROME / Windows 11"]
    assert (chrome["recent_runs"], chrome["earlier_runs"]) == (5, 9)  # the failure is left out
    assert (chrome["recent_median_s"], chrome["earlier_median_s"]) == (45, 30)
    assert chrome["change"] == pytest.approx(0.5)
    assert bool(chrome["regressed"])
    assert not bool(envs.loc["SAFARI / macOS", "regressed"])
    assert story.by_environment["environment"].iloc[0] == "CHROME / Windows 11"
    overall = story.overall
    assert (overall.recent_median_s, overall.earlier_median_s) == (37.5, 30)
    assert overall.change == pytest.approx(0.25)  # exactly the threshold counts
    assert overall.regressed


def test_too_few_earlier_runs_is_not_a_regression() -> None:
    ex, res = history()
    window = custom_window(ts("2025-03-08 00:00"), ts("2025-03-17 00:00"))
    story = scenario_history(ex, res, 1, 5, window=window)
    chrome = story.by_environment.set_index("environment").loc["CHROME / Windows 11"]
    assert (chrome["recent_runs"], chrome["earlier_runs"]) == (5, 2)
    assert not bool(chrome["enough_runs"])
    assert not bool(chrome["regressed"])
    assert story.basis.executions == 9
    assert story.basis.running == 1
    assert story.basis.with_results == 9
    assert story.basis.start == window.start


def test_a_scenario_without_results() -> None:
    ex, res = history()
    story = scenario_history(ex, res, 1, 99)
    assert story.cells.empty
    assert story.by_environment.empty
    assert not story.overall.regressed
    assert story.overall.change is None
    assert story.basis.with_results == 0
