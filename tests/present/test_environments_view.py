"""The Environments page's view, from hand-built frames: each section's caption, findings and
table with its columns' looks, and the heat map with its known failures, without Streamlit."""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd

from dashboard.columns.marks import MARK_COLUMNS
from dashboard.columns.shapes import empty
from dashboard.present import environments_view
from dashboard.present.environments_view import EnvironmentsView
from dashboard.present.view_parts import note
from tests.analytics.frames import CHROME, DESKTOP, FIREFOX, execution, executions, result
from tests.analytics.frames import results as results_frame

PLAN = 1
RUNS = 8
NEW_FROM = 5  # Firefox on Linux moves from 128 to 129 at this run
FIREFOX_NEW = {**FIREFOX, "browser_version": "129"}
SAFARI_LABEL = "SAFARI / macOS"
FIREFOX_LABEL = "FIREFOX / Linux"  # on 128, then 129: one environment (#38)
FIREFOX_NEW_LABEL = "FIREFOX / Linux (128 -> 129)"


def _window() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Scenario 5 fails on Safari in every run and passes elsewhere; scenario 6 fails on
    Firefox 129 in every run since the move and passed on 128; scenario 4 always passes."""
    runs = executions(
        [execution(i, PLAN, f"2025-03-{i:02d} 08:00", "fail") for i in range(1, RUNS + 1)]
    )
    rows: list[dict[str, Any]] = []
    for i in range(1, RUNS + 1):
        start = f"2025-03-{i:02d} 08:00"
        firefox = FIREFOX_NEW if i >= NEW_FROM else FIREFOX
        for env in (CHROME, DESKTOP, firefox):
            rows.append(result(i, 4, "SUCCESS", env, start=start))
            rows.append(result(i, 5, "FAILURE" if env is DESKTOP else "SUCCESS", env, start=start))
            fails = env is FIREFOX_NEW
            rows.append(result(i, 6, "FAILURE" if fails else "SUCCESS", env, start=start))
    return runs, results_frame(rows)


def _view(runs: pd.DataFrame, found: pd.DataFrame) -> EnvironmentsView:
    return environments_view.environments_view(
        runs,
        runs,
        found,
        empty(MARK_COLUMNS),
        plan=PLAN,
        plan_name="Checkout",
        window=20,
        tz="UTC",
        today=date(2025, 3, 31),
        scenario_link=lambda p, s: f"scenario?plan={p}&scenario={s}",
    )


def test_the_findings_are_said_and_tabled_with_their_history_links() -> None:
    view = _view(*_window())

    assert "its last 20 finished executions" in view.specific_caption
    specific = view.specific_table.display
    # Scenario 6 failed on Firefox in 4 of its 8 runs (every run on 129): not concentrated on
    # the environment, which is one over both versions (#38); it is a version change below.
    assert list(zip(specific["Scenario"], specific["Environment"], strict=True)) == [
        (5, SAFARI_LABEL),
    ]
    assert specific["Finding"].iloc[0] == (
        f"fails on {SAFARI_LABEL} in {RUNS} of {RUNS} runs, passes elsewhere (16 of 16 runs on 2 "
        "environments)"
    )
    assert view.specific.how == "plain"
    assert view.specific.texts[0] == f"Scenario 5 {specific['Finding'].iloc[0]}"
    assert specific["History"].iloc[0] == f"scenario?plan={PLAN}&scenario=5"
    assert view.specific_table.file_name == f"plan-{PLAN}-environment-specific.csv"
    assert {n: c.kind for n, c in view.specific_table.columns.items()} == {
        "Scenario": "ident",
        "History": "link",
    }
    versions = view.versions_table.display
    assert list(versions["Environment"]) == [FIREFOX_NEW_LABEL]
    assert list(versions["Scenarios"]) == ["6"]
    assert (
        versions["Finding"]
        .iloc[0]
        .startswith(f"failures started with {FIREFOX_NEW_LABEL}: 1 scenario, 4 of 4 runs")
    )
    assert list(versions["Previous"]) == ["128"]
    assert not view.versions  # there are version changes: no note
    assert view.versions_table.columns["First seen"].tz == "UTC"


def test_the_heat_map_counts_each_cell_and_offers_the_failed_ones_to_mark() -> None:
    view = _view(*_window())

    assert view.matrix is not None
    assert not view.no_results
    assert view.matrix.heatmap.key == "environments.heatmap"
    table = view.matrix.table.display
    cell = table[(table["Scenario"] == 5) & (table["Environment"] == SAFARI_LABEL)].iloc[0]
    assert (cell["Passed"], cell["Failed"], cell["Pass rate"]) == (0, RUNS, 0.0)
    firefox = table[(table["Scenario"] == 6) & (table["Environment"] == FIREFOX_LABEL)].iloc[0]
    assert (firefox["Passed"], firefox["Failed"], firefox["Versions"]) == (4, 4, "(128 -> 129)")
    assert len(table) == 9  # 3 scenarios x 3 environments: no row per version
    assert view.matrix.known.startswith("0 of the 12 failures are known (marked), 12 unresolved.")
    assert sorted(view.matrix.to_mark["scenario_id"]) == [5, 6]
    assert view.matrix.table.columns["Pass rate"].format == "%.1f %%"


def test_a_window_without_findings_or_results_says_so() -> None:
    runs, found = _window()
    passing = _view(runs, found[found["scenario_id"] == 4])

    assert passing.specific == note(environments_view.NO_SPECIFIC, severity="info")
    assert passing.specific_table.display.empty
    assert passing.versions.texts == (environments_view.NO_VERSION_CHANGE,)
    nothing = _view(runs, found.iloc[0:0])
    assert nothing.matrix is None
    assert nothing.no_results.texts == (environments_view.NO_RESULTS,)
