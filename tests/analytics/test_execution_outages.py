"""The executions page's KPIs with likely outages left out, on hand-built frames with known
answers: an outage is counted among the executions and left out of every other figure."""

from __future__ import annotations

import pandas as pd
import pytest

from dashboard.analytics import executions as execution_analytics
from tests.analytics.frames import execution, executions, outage_night


def test_kpis_count_a_left_out_outage_and_leave_it_out_of_every_other_figure() -> None:
    kept = execution_analytics.execution_kpis(outage_night(), left_out={3})
    every = execution_analytics.execution_kpis(outage_night())

    assert every.executions == kept.executions == 5
    assert every.pass_rate == pytest.approx(36 / 50)  # 9 + 9 + 0 + 8 + 10
    assert kept.pass_rate == pytest.approx(36 / 40)
    assert every.median_runtime_s == 60.0
    assert kept.median_runtime_s == 60.0
    assert (every.failing_plans, kept.failing_plans) == (1, 1)
    # Plan 2's newest run an outage: failing with it, passing (its #5) without it.
    later = executions(
        [*outage_night().to_dict("records"), execution(6, 2, "2026-11-24 09:00", "fail", failed=10)]
    )
    assert execution_analytics.execution_kpis(later).failing_plans == 2
    assert execution_analytics.execution_kpis(later, left_out={6}).failing_plans == 1
    # The outage's short runtime pulls the median down only when it is counted.
    two = outage_night()[outage_night()["execution_id"].isin([2, 3])]
    assert execution_analytics.execution_kpis(two).median_runtime_s == 32.5
    assert execution_analytics.execution_kpis(two, left_out={3}).median_runtime_s == 60.0
    # Only the outage in the slice: counted, and no plan left to judge (the page shows a dash).
    alone = execution_analytics.execution_kpis(outage_night().iloc[[2]], left_out={3})
    assert (alone.executions, alone.failing_plans, alone.plans) == (1, 0, 0)
    assert (alone.pass_rate, alone.median_runtime_s) == (None, None)


def test_the_figures_frames_lose_the_left_out_executions_and_their_status_counts() -> None:
    counts = pd.DataFrame({"execution_id": [1, 3, 3, 5], "status": ["S", "F", "S", "S"]})

    kept, kept_counts = execution_analytics.without_executions(outage_night(), counts, {3})

    assert sorted(kept["execution_id"]) == [1, 2, 4, 5]
    assert kept_counts["execution_id"].tolist() == [1, 5]
    frame = outage_night()
    same, same_counts = execution_analytics.without_executions(frame, counts, frozenset())
    assert same is frame
    assert same_counts is counts
