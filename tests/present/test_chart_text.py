"""Every chart's text alternative (what it shows and its main finding) and its data as a table,
on hand-built data whose answer is known."""

from __future__ import annotations

from datetime import date

import pandas as pd
import plotly.graph_objects as go

from dashboard.analytics import compare
from dashboard.analytics.executions import status_counts_per_day
from dashboard.analytics.results import OUTCOME_ORDER
from dashboard.data import frames
from dashboard.present import analytics_charts, charts, results_charts, runtime_chart
from dashboard.present.chart_data import figure_table
from tests.dashboard import records


def day(text: str, tz: str = "UTC") -> pd.Timestamp:
    return pd.Timestamp(text, tz=tz)


def per_day(rates: dict[str, float | None]) -> pd.DataFrame:
    """`pass_rate_per_day`'s shape: one row per day, NaN on a day without a verdict."""
    return pd.DataFrame(
        {
            "day": [day(d) for d in rates],
            "executions": [3] * len(rates),
            "passed": [0] * len(rates),
            "verdicts": [0] * len(rates),
            "pass_rate": [float("nan") if r is None else r for r in rates.values()],
        }
    )


# -- the executions page -------------------------------------------------------------------------


def test_the_pass_rate_text_names_the_period_its_lowest_day_and_the_latest() -> None:
    rates = per_day(
        {"2026-10-24": 0.9, "2026-11-12": 0.71, "2026-11-13": None, "2026-11-23": 0.952}
    )

    text = charts.pass_rate_text(rates)

    assert text == (
        "Pass rate per day, 24 Oct \u2013 23 Nov: lowest 71.0 % on 12 Nov; latest 95.2 % on 23 Nov."
    )


def test_the_pass_rate_text_says_when_the_latest_day_is_the_lowest() -> None:
    rates = per_day({"2026-11-01": 1.0, "2026-11-20": 0.8})

    assert charts.pass_rate_text(rates) == (
        "Pass rate per day, 1 Nov \u2013 20 Nov: lowest on the latest day, 80.0 % on 20 Nov."
    )


def test_the_pass_rate_text_of_one_day_and_of_none() -> None:
    assert (
        charts.pass_rate_text(per_day({"2026-11-20": 1.0})) == "Pass rate per day, 20 Nov: 100.0 %."
    )
    assert charts.pass_rate_text(per_day({"2026-11-20": None})) == (
        "Pass rate per day: no day in this slice has a result with a verdict."
    )


def test_the_pass_rate_text_names_the_years_when_the_period_spans_two() -> None:
    rates = per_day({"2025-12-30": 0.5, "2026-01-02": 0.8})

    assert charts.pass_rate_text(rates).startswith(
        "Pass rate per day, 30 Dec 2025 \u2013 2 Jan 2026: lowest 50.0 % on 30 Dec"
    )


def three_executions() -> tuple[pd.DataFrame, pd.DataFrame]:
    """#1 Checkout: 4 passed; #2 Checkout: 2 passed, 3 failed, 1 error; #3 Basket: 1 failed."""
    runs = [
        records.execution(
            1,
            plan_id=7,
            plan_name="Checkout",
            start_date="2026-11-18T09:00:00Z",
            result_summary={"SUCCESS": 4},
        ),
        records.execution(
            2,
            plan_id=7,
            plan_name="Checkout",
            start_date="2026-11-19T09:00:00Z",
            result_summary={"SUCCESS": 2, "FAILURE": 3, "ERROR": 1},
            runtime=3_600_000,
        ),
        records.execution(
            3,
            plan_id=8,
            plan_name="Basket",
            start_date="2026-11-20T23:30:00Z",
            result_summary={"FAILURE": 1},
            runtime=60_000,
        ),
    ]
    return frames.executions_frame(runs), frames.status_counts_frame(runs)


def test_the_status_texts_name_where_most_results_failed() -> None:
    executions, counts = three_executions()

    assert charts.status_per_execution_text(counts, executions) == (
        "Results by status of 3 executions, 18 Nov \u2013 20 Nov: 11 results, 5 failed or "
        "broke; most in #2 of Checkout (4)."
    )
    # In Tokyo the last execution started on the 21st.
    assert "18 Nov \u2013 21 Nov" in charts.status_per_execution_text(
        counts, executions, tz="Asia/Tokyo"
    )
    assert charts.status_per_plan_text(counts, executions) == (
        "Results by status of 2 plans, 3 executions: 11 results, 5 failed or broke; most in "
        "Checkout (4 of 10)."
    )


def test_the_status_per_day_text_names_the_day_with_most_failures() -> None:
    _, counts = three_executions()

    assert charts.status_per_day_text(status_counts_per_day(counts)) == (
        "Results by status per day, 18 Nov \u2013 20 Nov: 11 results, 5 failed or broke; "
        "most on 19 Nov (4)."
    )


def test_a_status_text_without_failures_says_none_failed() -> None:
    executions, counts = three_executions()
    passed = executions[executions["execution_id"] == 1]

    assert charts.status_per_execution_text(counts, passed).endswith(
        "18 Nov: 4 results, 0 failed or broke; none failed."
    )


def test_the_runtime_text_names_the_longest_run() -> None:
    executions, _ = three_executions()

    assert runtime_chart.runtime_text(executions) == (
        "Runtime per execution of 2 plans, 18 Nov \u2013 20 Nov: longest 1 h 00 min, #2 of "
        "Checkout on 19 Nov."
    )


# -- the results page ----------------------------------------------------------------------------


def test_the_level_text_counts_each_level() -> None:
    levels = pd.DataFrame({"level": ["SUCCESS", "FAILURE", "ERROR"], "count": [40, 3, 1]})

    assert results_charts.level_text(levels) == "Results by level: 40 SUCCESS, 3 FAILURE, 1 ERROR."
    assert results_charts.level_text(levels.iloc[0:0]) == "Results by level: no results."


def test_the_environment_matrix_text_names_what_failed_and_counts_what_passed() -> None:
    matrix = pd.DataFrame(
        {
            "os": ["macOS", "Linux", "Linux", "Windows 11", "Windows 11"],
            "browser": ["SAFARI", "CHROME", "FIREFOX", "CHROME", "EDGE"],
            "results": [4, 4, 4, 4, 4],
            "passed": [0, 3, 4, 4, 4],
            "failed": [4, 1, 0, 0, 0],
            "outcome": ["all failed", "some failed", "all passed", "all passed", "all passed"],
        }
    )

    assert set(results_charts.FINDING_ORDER) == set(OUTCOME_ORDER)
    assert results_charts.environment_matrix_text(matrix) == (
        "Outcome on 5 operating system and browser pairs: all failed on SAFARI / macOS; "
        "some failed on CHROME / Linux; all passed on 3."
    )


# -- the scenario analytics pages ------------------------------------------------------------------


def test_the_flaky_timeline_text_names_the_scenario_that_flips_most() -> None:
    rows = pd.DataFrame({"flips": [3, 12, 5], "runs": [20, 20, 18]})
    labels = [
        "Checkout \u00b7 Scenario 1",
        "Checkout \u00b7 Scenario 4",
        "Basket \u00b7 Scenario 2",
    ]

    assert analytics_charts.flaky_timeline_text(rows, labels) == (
        "Outcomes of 3 flaky scenarios, execution by execution: most flips in "
        "Checkout \u00b7 Scenario 4 (12 in 20 runs)."
    )


def test_the_heat_map_text_names_the_lowest_cell() -> None:
    matrix = pd.DataFrame(
        {
            "scenario_id": [1, 1, 8, 8],
            "environment": ["CHROME / Linux", "SAFARI 18 / macOS"] * 2,
            "pass_rate": [1.0, 1.0, 1.0, 0.0],
        }
    )

    assert analytics_charts.environment_heatmap_text(matrix) == (
        "Pass rate of 2 scenarios on 2 environments: lowest 0.0 % for scenario 8 on "
        "SAFARI 18 / macOS; 3 of 4 at 100 %."
    )


def cells() -> pd.DataFrame:
    """One scenario in three executions on two environments; #3 failed on FIREFOX."""
    return pd.DataFrame(
        {
            "execution_id": [1, 1, 2, 2, 3, 3],
            "execution_start": [day("2026-11-18 09:00")] * 2
            + [day("2026-11-19 09:00")] * 2
            + [day("2026-11-20 14:00")] * 2,
            "environment": ["CHROME / Linux", "FIREFOX / Linux"] * 3,
            "outcome": ["pass", "pass", "pass", "warn", "pass", "fail"],
            "runtime_s": pd.array([40, 42, 41, 95, 43, 10], dtype="Int64"),
        }
    )


def test_the_scenario_timeline_text_names_the_latest_failure() -> None:
    assert analytics_charts.scenario_timeline_text(cells(), "UTC") == (
        "Outcome in 3 executions on 2 environments: 1 failed, the latest in #3 on "
        "FIREFOX / Linux, Fri 20 Nov 14:00."
    )
    passing = cells()[cells()["outcome"] != "fail"]
    assert analytics_charts.scenario_timeline_text(passing, "UTC").endswith(": none failed.")


def test_the_scenario_runtime_text_names_the_longest_completed_run() -> None:
    # The failed run (10 s) is no completed run; the warned one (95 s) is the longest.
    assert analytics_charts.scenario_runtime_text(cells(), "UTC") == (
        "Runtime of 5 completed runs on 2 environments, 18 Nov \u2013 20 Nov: longest 1 min 35 s "
        "on FIREFOX / Linux in #2 on 19 Nov."
    )


def test_the_comparison_text_counts_each_change() -> None:
    counts = ((compare.NEW_FAILURE, 3), (compare.FIXED, 0), (compare.STILL_PASSING, 40))

    assert analytics_charts.bucket_counts_text(counts) == (
        "Scenario x environment cells by change: 3 new failure, 40 still passing."
    )


# -- the chart's data as a table ------------------------------------------------------------------


def test_a_charts_table_has_a_row_per_mark_named_after_its_axes() -> None:
    executions, counts = three_executions()
    shown = charts.status_per_execution_chart(counts, executions)

    table = shown.table()

    assert shown.alt == charts.status_per_execution_text(counts, executions)

    assert list(table.columns) == ["Status", "Execution", "Results"]
    assert table.to_dict("records") == [
        {"Status": "SUCCESS", "Execution": "#1", "Results": 4},
        {"Status": "SUCCESS", "Execution": "#2", "Results": 2},
        {"Status": "FAILURE", "Execution": "#2", "Results": 3},
        {"Status": "FAILURE", "Execution": "#3", "Results": 1},
        {"Status": "ERROR", "Execution": "#2", "Results": 1},
    ]


def test_a_horizontal_bars_table_puts_the_category_first_and_shows_names_as_written() -> None:
    fig = go.Figure(
        [
            go.Bar(x=[3, 1], y=["A &amp; B", "C"], orientation="h", name="FAILURE"),
            go.Bar(x=[5], y=["C"], orientation="h", name="SUCCESS"),
        ]
    )
    fig.update_xaxes(title_text="Results")

    table = figure_table(fig, series="Status", y="Plan")

    assert table.to_dict("records") == [
        {"Status": "FAILURE", "Plan": "A & B", "Results": 3},
        {"Status": "FAILURE", "Plan": "C", "Results": 1},
        {"Status": "SUCCESS", "Plan": "C", "Results": 5},
    ]


def test_a_heat_maps_table_has_a_row_per_drawn_cell() -> None:
    fig = go.Figure(
        go.Heatmap(
            z=[[100.0, None], [50.0, 0.0]],
            x=["CHROME", "SAFARI"],
            y=["Scenario 1", "Scenario 8"],
            text=[["4/4 passed<br>all passed", ""], ["2/4 passed<br>some failed", "x"]],
            colorbar={"title": {"text": "Pass %"}},
        )
    )

    with_value = figure_table(fig, y="Scenario", x="Environment")
    with_text = figure_table(fig, y="Scenario", x="Environment", text="Outcome")

    assert with_value.to_dict("records") == [
        {"Scenario": "Scenario 1", "Environment": "CHROME", "Pass %": 100.0},
        {"Scenario": "Scenario 8", "Environment": "CHROME", "Pass %": 50.0},
        {"Scenario": "Scenario 8", "Environment": "SAFARI", "Pass %": 0.0},
    ]
    assert with_text["Outcome"].tolist() == [
        "4/4 passed, all passed",
        "2/4 passed, some failed",
        "x",
    ]


def test_a_one_line_charts_table_has_no_series_column_and_its_days_are_days() -> None:
    fig = charts.pass_rate_trend(per_day({"2026-11-01": 1.0, "2026-11-02": 0.5}))

    table = figure_table(fig)

    assert list(table.columns) == ["Day (UTC)", "Pass rate"]
    assert table["Day (UTC)"].tolist() == [date(2026, 11, 1), date(2026, 11, 2)]
    assert table["Pass rate"].tolist() == [100.0, 50.0]


def test_an_empty_chart_has_an_empty_table() -> None:
    assert figure_table(go.Figure()).empty
