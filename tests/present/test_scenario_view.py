"""The scenario page's words and pictures: too few runs said right, no "None" cell, and runtime
lines that coincide still told apart."""

from __future__ import annotations

import pandas as pd

from dashboard.analytics.history import RuntimeRegression, scenario_history
from dashboard.present import analytics_charts
from dashboard.present import scenario as scenario_view
from dashboard.present.csv import to_csv
from tests.analytics.frames import CHROME, DESKTOP, execution, executions, result, results

FIREFOX = {**CHROME, "browser": "FIREFOX", "browser_version": "140", "device": "firefox"}


def history(count: int) -> pd.DataFrame:
    return executions([execution(i, 1, f"2025-03-{i:02d} 10:00") for i in range(1, count + 1)])


def test_too_few_runs_are_said_as_what_there_is_and_what_it_takes() -> None:
    """Its five oldest runs are not "5 recent and 0 earlier": they are all there is."""
    five = RuntimeRegression(5, 0, 30.0, None, None, False, False)
    none = RuntimeRegression(0, 0, None, None, None, False, False)

    assert scenario_view.regression_text(five, 5, 5) == (
        "Not enough completed runs to judge its runtime: it has 5 completed runs here, and it "
        "takes 10 (its last 5 against at least 5 before them)."
    )
    assert scenario_view.regression_text(none, 5, 5).startswith(
        "Not enough completed runs to judge its runtime: it has no completed run here"
    )
    assert "recent and" not in scenario_view.regression_text(five, 5, 5)


def test_no_cell_reads_none_and_the_csv_keeps_seconds() -> None:
    rows = [
        result(1, 7, "SUCCESS", CHROME, start="2025-03-01 10:05", runtime_s=None),
        result(2, 7, "FAILURE", CHROME, start="2025-03-02 10:05", message="boom"),
        result(3, 7, "SUCCESS", CHROME, start="2025-03-03 10:05", runtime_s=45),
    ]
    found = scenario_history(history(3), results(rows), 1, 7)

    table = scenario_view.history_display(found, lambda e, p, s: f"results?execution={e}")
    regressions = scenario_view.regression_display(found.by_environment)

    for frame in (table, regressions):
        shown = frame.drop(columns=["Started", "Node log", "Executor log"], errors="ignore")
        assert not shown.isna().any().any(), frame  # a missing value shows as "None"
        assert "None" not in shown.astype(str).to_numpy()
    assert list(table["Message"]) == ["", "boom", ""]  # newest first
    assert list(table["Runtime"]) == ["45 s", "30 s", "\u2013"]
    assert regressions.loc[0, "Earlier median"] == "\u2013"  # no run before the recent ones
    csv = to_csv(table).decode("utf-8-sig").splitlines()
    assert "Runtime (s)" in csv[0].split(",")
    # What a lead reads first comes first: the links before the level and the runtime.
    assert list(table.columns)[:7] == [
        "Started",
        "Execution",
        "Environment",
        "Outcome",
        "Message",
        "Node log",
        "Results",
    ]


def test_identical_runtime_lines_do_not_hide_one_another() -> None:
    """Three environments taking exactly the same time: each line is narrower than the one
    drawn before it and dashed its own way, each marker a smaller open ring."""
    rows = [
        result(i, 7, "SUCCESS", env, start=f"2025-03-{i:02d} 10:05", runtime_s=40)
        for i in range(1, 6)
        for env in (CHROME, FIREFOX, DESKTOP)
    ]
    found = scenario_history(history(5), results(rows), 1, 7)

    figure = analytics_charts.scenario_runtime(found.cells, "UTC")

    traces = list(figure.data)
    assert len(traces) == 3
    assert [list(t.y) for t in traces] == [[40.0] * 5] * 3  # the very same line, three times
    widths = [t.line.width for t in traces]
    sizes = [t.marker.size for t in traces]
    assert widths == sorted(widths, reverse=True)
    assert len(set(widths)) == 3
    assert sizes == sorted(sizes, reverse=True)
    assert len(set(sizes)) == 3
    assert len({t.line.dash for t in traces}) == 3
    assert len({t.marker.symbol for t in traces}) == 3
    assert all(str(t.marker.symbol).endswith("-open") for t in traces)
