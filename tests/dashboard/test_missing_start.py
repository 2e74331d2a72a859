"""An execution without a start time (start_date is optional in the API) must not break the
analytics: it shows as a dash, links leave the start out, and it counts as the oldest run."""

from __future__ import annotations

import pandas as pd

from dashboard.analytics.flaky import last_finished
from dashboard.present.compare import execution_label
from dashboard.state.links import results_link


def test_results_link_without_a_start_leaves_it_out() -> None:
    link = results_link(7, plan_id=3, started=pd.NaT)
    assert "execution=7" in link
    assert "started" not in link


def test_compare_picker_label_shows_a_dash_for_a_missing_start() -> None:
    assert execution_label(7, pd.NaT, True, "UTC") == "#7, \u2013"
    assert execution_label(8, pd.NaT, False, "UTC") == "#8, \u2013 (running)"


def test_a_missing_start_is_the_oldest_run() -> None:
    executions = pd.DataFrame(
        {
            "execution_id": [1, 2, 3],
            "start": pd.to_datetime([None, "2026-11-01T10:00Z", "2026-11-02T10:00Z"], utc=True),
            "plan_id": [5, 5, 5],
            "finished": [True, True, True],
        }
    )
    kept = last_finished(executions, window=2)
    # The start-less execution is the oldest, so a window of 2 keeps the two dated ones.
    assert sorted(int(i) for i in kept["execution_id"]) == [2, 3]
