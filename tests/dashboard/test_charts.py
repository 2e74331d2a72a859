"""Figure builders: trace types, fixed status colours, stacking, units, literal names."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from dashboard.analytics import executions as execution_analytics
from dashboard.analytics import results as result_analytics
from dashboard.analytics import verdicts
from dashboard.data import frames
from dashboard.present import charts, colors, results_charts, runtime_chart
from tests.dashboard import records


def executions_and_counts():
    executions = [
        records.execution(1, start_date="2026-11-18T09:00:00Z", result_summary={"SUCCESS": 4}),
        records.execution(
            2,
            start_date="2026-11-19T09:00:00Z",
            result_summary={"SUCCESS": 2, "FAILURE": 1, "Quarantined": 1},
            runtime=3_600_000,
        ),
        records.execution(
            3, start_date="2026-11-20T09:00:00Z", result_summary={"WAITING": 3}, runtime=2_000
        ),
    ]
    return frames.executions_frame(executions), frames.status_counts_frame(executions)


def test_status_per_execution_is_stacked_bars_in_fixed_colours() -> None:
    executions, counts = executions_and_counts()

    fig = charts.status_per_execution(counts, executions)

    assert isinstance(fig, go.Figure)
    assert fig.layout.barmode == "stack"
    assert {trace.type for trace in fig.data} == {"bar"}
    colours = {trace.name: trace.marker.color for trace in fig.data}
    assert colours == {
        "SUCCESS": colors.STATUS_COLORS["SUCCESS"],
        "FAILURE": colors.STATUS_COLORS["FAILURE"],
        "WAITING": colors.STATUS_COLORS["WAITING"],
        "Quarantined": colors.UNKNOWN_STATUS_COLOR,  # unknown: itself, in neutral grey
    }
    # Oldest execution on the left.
    assert list(fig.layout.xaxis.categoryarray) == ["#1", "#2", "#3"]


def test_status_per_day_stacks_daily_totals() -> None:
    _, counts = executions_and_counts()

    fig = charts.status_per_day(execution_analytics.status_counts_per_day(counts))

    assert fig.layout.barmode == "stack"
    success = next(trace for trace in fig.data if trace.name == "SUCCESS")
    assert list(success.y) == [4, 2]
    assert fig.layout.xaxis.type == "date"


def test_status_colours_are_case_insensitive_and_unknown_is_neutral() -> None:
    assert colors.status_color("failure") == colors.STATUS_COLORS["FAILURE"]
    assert colors.status_color("Brand-new state") == colors.UNKNOWN_STATUS_COLOR
    assert verdicts.ordered_statuses(["zeta", "ERROR", "SUCCESS", "alpha"]) == [
        "SUCCESS",
        "ERROR",
        "alpha",
        "zeta",
    ]


def test_runtime_trend_uses_human_units_and_leaves_running_executions_out() -> None:
    executions, _ = executions_and_counts()
    partly_running = frames.executions_frame(
        [records.execution(4, result_summary={"SUCCESS": 2, "WAITING": 1}, runtime=1_000)]
    )
    finished = frames.executions_frame(
        [
            records.execution(
                5,
                start_date="2026-11-19T12:00:00Z",
                result_summary={"SUCCESS": 1, "WARNING": 1},
                runtime=3_600_000,
            )
        ]
    )

    fig = runtime_chart.runtime_trend(pd.concat([executions, partly_running, finished]))

    assert [trace.type for trace in fig.data] == ["scatter"]
    (trace,) = fig.data
    assert fig.layout.yaxis.title.text == "Runtime (minutes)"  # longest is an hour
    # Executions 3 and 4 are still running; 2 has a status of unknown meaning (Quarantined).
    assert list(trace.y) == [2.08, 60.0]
    assert [row[0] for row in trace.customdata] == ["#1", "#5"]
    assert [row[1] for row in trace.customdata] == ["2 min 05 s", "1 h 00 min"]


def test_runtime_trend_of_many_executions_is_drawn_with_webgl() -> None:
    many = runtime_chart.WEBGL_POINTS + 1
    executions = frames.executions_frame(
        [
            records.execution(i, start_date=f"2026-11-{1 + i % 19:02d}T{i % 24:02d}:00:00Z")
            for i in range(1, many + 1)
        ]
    )

    fig = runtime_chart.runtime_trend(executions)

    (trace,) = fig.data
    assert trace.type == "scattergl"
    assert len(trace.y) == many
    assert trace.customdata[0][1] == "2 min 05 s"


def test_runtime_trend_has_one_line_per_plan() -> None:
    executions = frames.executions_frame(
        [records.execution(1, runtime=5_000), records.execution(2, plan_id=4, plan_name="Other")]
    )

    fig = runtime_chart.runtime_trend(executions)

    assert sorted(trace.name for trace in fig.data) == ["Checkout smoke", "Other"]
    assert fig.layout.yaxis.title.text == "Runtime (minutes)"


def test_pass_rate_trend_is_a_percentage_line() -> None:
    executions, _ = executions_and_counts()

    fig = charts.pass_rate_trend(execution_analytics.pass_rate_per_day(executions))

    (trace,) = fig.data
    assert trace.type == "scatter"
    # 2 of 3 on the 19th (an unknown status is no verdict); the 20th has only waiting results.
    assert list(trace.y) == [100.0, 66.7]
    assert list(fig.layout.yaxis.range) == [0, 105]


def test_level_breakdown_colours_each_level() -> None:
    results = frames.results_frame(
        [records.result(1, level="SUCCESS"), records.result(2, level="Odd")]
    )

    fig = results_charts.level_breakdown(result_analytics.level_breakdown(results))

    (trace,) = fig.data
    assert trace.type == "bar"
    assert trace.orientation == "h"
    assert list(trace.y) == ["SUCCESS", "Odd"]
    assert list(trace.marker.color) == [
        colors.STATUS_COLORS["SUCCESS"],
        colors.UNKNOWN_STATUS_COLOR,
    ]


def test_environment_matrix_is_a_heatmap_of_outcomes() -> None:
    linux = {"operating_system_clean_name": "Linux", "browser_type": "FIREFOX"}
    results = frames.results_frame(
        [records.result(1), records.result(2, level="FAILURE", environment=linux)]
    )

    fig = results_charts.environment_matrix(result_analytics.environment_matrix(results))

    (trace,) = fig.data
    assert trace.type == "heatmap"
    assert list(trace.x) == ["CHROME", "FIREFOX"]
    assert list(trace.y) == ["Linux", "Windows 10"]
    passed, failed = (
        result_analytics.OUTCOME_ORDER.index("all passed"),
        result_analytics.OUTCOME_ORDER.index("all failed"),
    )
    assert [list(row) for row in trace.z] == [[None, failed], [passed, None]]
    assert trace.text[0][1].startswith("0/1 passed")


def test_names_from_the_service_are_shown_literally_not_as_html() -> None:
    hostile = '<a href="javascript:alert(1)">click</a><b>x</b>'
    executions = frames.executions_frame([records.execution(1, plan_name=hostile)])
    results = frames.results_frame(
        [records.result(1, environment={"operating_system_clean_name": "<img src=x>"})]
    )

    figures = [
        charts.status_per_execution(frames.status_counts_frame([]), executions),
        runtime_chart.runtime_trend(executions),
        results_charts.environment_matrix(result_analytics.environment_matrix(results)),
    ]

    rendered = "".join(fig.to_json() for fig in figures)
    assert "<a href" not in rendered
    assert "<b>" not in rendered
    assert "<img" not in rendered
    assert "&lt;a href" in rendered
    assert "&lt;img src=x&gt;" in rendered


def test_every_chart_copes_with_no_data() -> None:
    executions = frames.executions_frame([])
    counts = frames.status_counts_frame([])
    results = frames.results_frame([])

    figures = [
        charts.status_per_execution(counts, executions),
        charts.status_per_day(execution_analytics.status_counts_per_day(counts)),
        runtime_chart.runtime_trend(executions),
        charts.pass_rate_trend(execution_analytics.pass_rate_per_day(executions)),
        results_charts.level_breakdown(result_analytics.level_breakdown(results)),
        results_charts.environment_matrix(result_analytics.environment_matrix(results)),
    ]

    for fig in figures:
        assert isinstance(fig.to_dict(), dict)


def test_runtime_trend_of_more_than_the_limit_draws_each_plans_daily_median() -> None:
    """Issue 10: tens of thousands of executions become one point per plan and day."""
    per_day = runtime_chart.RUNTIME_POINT_LIMIT // 2 + 1
    days = ["2026-11-01", "2026-11-02"]
    executions = frames.executions_frame(
        [
            records.execution(
                day * per_day + i + 1,
                start_date=f"{days[day]}T{i % 24:02d}:00:00Z",
                runtime=(i % 3 + 1) * 60_000,  # 1, 2 and 3 minutes in turn
            )
            for day in range(2)
            for i in range(per_day)
        ]
    )
    assert runtime_chart.runtime_is_aggregated(executions)

    fig = runtime_chart.runtime_trend(executions)

    (trace,) = fig.data
    assert trace.type == "scatter"
    assert len(trace.y) == 2  # one point per day
    assert list(trace.y) == [2.0, 2.0]  # the median, in minutes
    assert trace.customdata[0][3] == per_day
    assert "median" in trace.hovertemplate
    assert not runtime_chart.runtime_is_aggregated(
        executions.head(runtime_chart.RUNTIME_POINT_LIMIT)
    )


# -- the status chart above the bar limit: the window per plan (#10) ---------------------------


def plans_window() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Five executions of three plans, two of them named alike, with known counts:
    Alpha (plan 1): #1 SUCCESS 4; #2 SUCCESS 2, FAILURE 1, Quarantined 1.
    Beta (plan 2): #3 FAILURE 2, ERROR 1; #4 no results at all.
    Alpha (plan 3): #5 SUCCESS 5."""
    executions = [
        records.execution(1, plan_id=1, plan_name="Alpha", result_summary={"SUCCESS": 4}),
        records.execution(
            2,
            plan_id=1,
            plan_name="Alpha",
            result_summary={"SUCCESS": 2, "FAILURE": 1, "Quarantined": 1},
        ),
        records.execution(
            3, plan_id=2, plan_name="Beta", result_summary={"FAILURE": 2, "ERROR": 1}
        ),
        records.execution(4, plan_id=2, plan_name="Beta", result_summary={}),
        records.execution(5, plan_id=3, plan_name="Alpha", result_summary={"SUCCESS": 5}),
    ]
    return frames.executions_frame(executions), frames.status_counts_frame(executions)


def test_plan_status_totals_sum_each_plans_results_by_status() -> None:
    executions, counts = plans_window()

    totals = charts.plan_status_totals(counts, executions)

    rows = [
        (row.label, row.status, row.count, row.executions) for row in totals.itertuples(index=False)
    ]
    assert rows == [
        ("Alpha (plan 1)", "SUCCESS", 6, 2),
        ("Alpha (plan 1)", "FAILURE", 1, 2),
        ("Alpha (plan 1)", "Quarantined", 1, 2),
        ("Alpha (plan 3)", "SUCCESS", 5, 1),
        ("Beta", "FAILURE", 2, 2),  # the execution without results still counts as one
        ("Beta", "ERROR", 1, 2),
    ]


def test_plan_status_totals_leave_out_counts_of_executions_not_in_the_slice() -> None:
    executions, counts = plans_window()
    only_beta = executions[executions["plan"] == "Beta"]

    totals = charts.plan_status_totals(counts, only_beta)

    assert totals["label"].tolist() == ["Beta", "Beta"]  # no id: no other plan shares it here
    assert totals["count"].sum() == 3


def test_status_per_plan_is_one_stacked_bar_per_plan_in_fixed_colours() -> None:
    executions, counts = plans_window()

    fig = charts.status_per_plan(counts, executions)

    assert fig.layout.barmode == "stack"
    assert list(fig.layout.yaxis.categoryarray) == ["Alpha (plan 1)", "Alpha (plan 3)", "Beta"]
    drawn = {
        trace.name: dict(zip(trace.y, trace.x, strict=True))
        for trace in fig.data
        if trace.orientation == "h"
    }
    assert drawn == {
        "SUCCESS": {"Alpha (plan 1)": 6, "Alpha (plan 3)": 5},
        "FAILURE": {"Alpha (plan 1)": 1, "Beta": 2},
        "ERROR": {"Beta": 1},
        "Quarantined": {"Alpha (plan 1)": 1},
    }
    colours = {trace.name: trace.marker.color for trace in fig.data}
    assert colours["FAILURE"] == colors.STATUS_COLORS["FAILURE"]
    assert colours["Quarantined"] == colors.UNKNOWN_STATUS_COLOR
    beta_failures = next(t for t in fig.data if t.name == "FAILURE")
    assert list(beta_failures.customdata) == [2, 2]  # executions of each bar's plan


def test_status_per_plan_shows_names_literally() -> None:
    executions, counts = plans_window()
    executions = executions.assign(plan="<b>Shop</b>")

    fig = charts.status_per_plan(counts, executions)

    labels = list(fig.layout.yaxis.categoryarray)
    assert all("<b>" not in label for label in labels)
    assert all(label.startswith("&lt;b&gt;Shop&lt;/b&gt; (plan ") for label in labels)


def test_status_per_plan_stays_small_at_70000_executions() -> None:
    """70,000 executions of 20 plans, each with three statuses: 20 bars, each status's results
    summed, whatever the window's size."""
    n, plans = 70_000, 20
    ids = pd.Series(range(1, n + 1), dtype="int64")
    start = pd.Timestamp("2026-08-25", tz="UTC") + pd.to_timedelta(ids * 111, unit="s")
    executions = pd.DataFrame(
        {
            "execution_id": ids,
            "start": start,
            "plan_id": pd.array((ids % plans) + 1, dtype="Int64"),
            "plan": "Plan " + ((ids % plans) + 1).astype(str).str.zfill(2),
        }
    )
    counts = pd.DataFrame(
        {
            "execution_id": ids.repeat(3).to_numpy(),
            "start": start.repeat(3).to_numpy(),
            "status": ["SUCCESS", "FAILURE", "ERROR"] * n,
            "count": [3, 1, 1] * n,
        }
    )

    fig = charts.status_per_plan(counts, executions)

    assert len(fig.data) == 3
    assert all(len(trace.x) == plans for trace in fig.data)
    success = next(trace for trace in fig.data if trace.name == "SUCCESS")
    assert sum(success.x) == 3 * n
    assert set(success.customdata) == {n // plans}
    # Kilobytes to send, where 70,000 bars of their own would be megabytes.
    assert len(fig.to_json()) < 20_000
