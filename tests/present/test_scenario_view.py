"""The scenario page's words and pictures: too few runs said right, no "None" cell, and runtime
lines that coincide still told apart; its whole view (`present.scenario_view`) from frames."""

from __future__ import annotations

from datetime import date

import pandas as pd

from dashboard.analytics.history import RuntimeRegression, scenario_history
from dashboard.columns.marks import MARK_COLUMNS
from dashboard.columns.shapes import empty
from dashboard.present import analytics_charts
from dashboard.present import scenario as scenario_view
from dashboard.present import scenario_view as page_view
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


def _page_view(rows: list[dict[str, object]], runs: int = 12) -> page_view.ScenarioView:
    found = history(runs)
    return page_view.scenario_view(
        found,
        found,
        results(rows),
        empty(MARK_COLUMNS),
        plan=1,
        scenario=7,
        plan_name="Checkout",
        window=20,
        tz="UTC",
        today=date(2025, 3, 31),
        results_link=lambda e, p, s: f"results?plan={p}&execution={e}",
    )


def _slowing() -> list[dict[str, object]]:
    """Scenario 7 passes on Chrome, 30 s a run, then 60 s in the last 5 of 12; it fails twice
    on Safari."""
    rows: list[dict[str, object]] = [
        result(i, 7, "SUCCESS", CHROME, start=f"2025-03-{i:02d} 10:05", runtime_s=30 + 30 * (i > 7))
        for i in range(1, 13)
    ]
    rows += [
        result(i, 7, "FAILURE", DESKTOP, start=f"2025-03-{i:02d} 10:05", message=f"boom {i}")
        for i in (3, 9)
    ]
    return rows


def test_the_page_view_tables_the_history_with_its_links_and_says_the_regression() -> None:
    view = _page_view(_slowing())

    assert not view.empty
    assert "its last 20 finished executions" in view.basis
    assert view.outcomes_caption == view.basis + ". One row per environment, one dot per execution."
    table = view.table.display
    assert table["Execution"].nunique() == 12
    assert set(table["Outcome"]) == {"\u2714 passed", "\u2716 failed"}
    assert all(link.startswith("results?plan=1&execution=") for link in table["Results"])
    assert (view.table.key, view.table.file_name) == ("scenario.table", "plan-1-scenario-7.csv")
    assert view.table.columns["Results"].kind == "link"
    assert view.table.columns["Started"].tz == "UTC"
    assert view.regression.how == "warning"
    (said,) = view.regression.texts
    assert said.startswith("Runtime regression: ")
    assert "the median of its last 5 completed runs is 1 min 00 s, against 30 s" in said
    assert (view.timeline.key, view.runtime.key) == ("scenario.timeline", "scenario.runtime")
    assert view.regressions.file_name == "plan-1-scenario-7-runtime.csv"
    assert view.known is not None
    assert view.known.caption.startswith("0 of the 2 failures are known (marked), 2 unresolved.")
    assert list(view.known.to_mark["execution_id"]) == [3]  # one failure per environment
    assert len(view.known.signatures) == 2


def test_the_page_view_of_a_steady_scenario_says_so_in_a_caption_and_offers_nothing_to_mark() -> (
    None
):
    rows = [
        result(i, 7, "SUCCESS", CHROME, start=f"2025-03-{i:02d} 10:05", runtime_s=30)
        for i in range(1, 13)
    ]
    view = _page_view(rows)

    assert view.regression.how == "caption"
    assert view.regression.texts[0].startswith("No runtime regression: ")
    assert view.known is None


def test_the_page_view_of_a_scenario_without_results_is_empty() -> None:
    view = _page_view([result(1, 8, "SUCCESS", CHROME, start="2025-03-01 10:05")], runs=3)

    assert view.empty
    assert view.table.display.empty
