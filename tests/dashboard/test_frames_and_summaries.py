"""Records -> frames (data), summaries (analytics), display tables and CSV (present)."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pandas as pd
import pandas.testing as pdt
import pytest

from dashboard.analytics import executions as execution_analytics
from dashboard.analytics import plans as plan_analytics
from dashboard.analytics import results as result_analytics
from dashboard.columns import cells
from dashboard.data import frames
from dashboard.present import csv as csv_export
from dashboard.present import formatting, tables
from tests.dashboard import records

# -- plans ------------------------------------------------------------------------------------


def test_plans_frame_builds_the_columns_the_table_needs() -> None:
    plans = [
        records.plan(3),
        records.plan(
            4,
            plan_name="App smoke",
            type="APPIUM",
            project_id=1,
            project_name="App",
            scenarios=[5],
            alerts=[],
            enabled=False,
            updated_at=None,
            updated_by=None,
        ),
    ]

    frame = frames.plans_frame(plans)

    expected = pd.DataFrame(
        {
            "plan_id": [4, 3],
            "plan": ["App smoke", "Checkout smoke"],
            "type": ["APPIUM", "SELENIUM"],
            "project_id": pd.array([1, 2], dtype="Int64"),
            "project": ["App", "Web shop"],
            "scenarios": [1, 3],
            "scenario_ids": [(5,), (21, 22, 23)],
            "enabled": pd.array([False, True], dtype="boolean"),
            "parallel_limit": pd.array([4, 4], dtype="Int64"),
            "retries": pd.array([1, 1], dtype="Int64"),
            "alerts": [0, 1],
            "created": pd.to_datetime(["2026-08-01T10:00:00Z"] * 2).as_unit("us"),
            "created_by": ["ada", "ada"],
            "updated": pd.to_datetime([None, "2026-11-01T07:00:00Z"], utc=True).as_unit("us"),
            "updated_by": [None, "grace"],
        }
    ).astype({"plan": "str", "type": "str", "project": "str", "created_by": "str"})
    expected = expected.astype({"updated_by": "str", "scenario_ids": "object"})
    pdt.assert_frame_equal(frame, expected)


def test_plans_frame_of_nothing_has_the_same_columns_and_types() -> None:
    empty = frames.plans_frame([])
    full = frames.plans_frame([records.plan()])
    assert empty.empty
    pdt.assert_series_equal(empty.dtypes, full.dtypes)


def test_project_and_plan_names_are_sorted_by_name_and_scoped_to_a_project() -> None:
    frame = frames.plans_frame(
        [
            records.plan(1, plan_name="Zeta", project_id=2, project_name="Web"),
            records.plan(2, plan_name="alpha", project_id=2, project_name="Web"),
            records.plan(3, plan_name="Mobile", project_id=1, project_name="App"),
            records.plan(4, plan_name=None, project_id=5, project_name=None),
        ]
    )

    assert plan_analytics.project_names(frame) == {1: "App", 5: "Project 5", 2: "Web"}
    assert plan_analytics.plan_names(frame, project_id=2) == {2: "alpha", 1: "Zeta"}
    assert list(plan_analytics.plan_names(frame)) == [2, 3, 4, 1]
    assert plan_analytics.plan_projects(frame) == {1: 2, 2: 2, 3: 1, 4: 5}
    assert plan_analytics.plan_scenarios(frame, 3) == (21, 22, 23)
    assert plan_analytics.plan_scenarios(frame, 99) is None


def test_plan_kpis_and_display_columns() -> None:
    frame = frames.plans_frame(
        [records.plan(1), records.plan(2, enabled=False, alerts=[], scenarios=[1])]
    )

    assert plan_analytics.plan_kpis(frame) == plan_analytics.PlanKpis(
        plans=2, enabled=1, scenarios=4, with_alerts=1
    )
    display = tables.plans_display(frame)
    assert list(display.columns) == [
        "Id",
        "Plan",
        "Type",
        "Project",
        "Scenarios",
        "Enabled",
        "Parallel limit",
        "Retries",
        "Alerts",
        "Created",
        "Created by",
        "Updated",
        "Updated by",
    ]
    assert "scenario_ids" not in display.columns


# -- executions -------------------------------------------------------------------------------


def test_executions_frame_computes_pass_rate_over_results_with_a_verdict() -> None:
    executions = [
        records.execution(1, result_summary={"SUCCESS": 3, "FAILURE": 1, "WAITING": 4}),
        records.execution(
            2,
            start_date="2026-11-21T08:00:00Z",
            result_summary={"WAITING": 5},  # still running: no pass rate yet
            runtime=None,
        ),
    ]

    frame = frames.executions_frame(executions)

    expected = pd.DataFrame(
        {
            "execution_id": [2, 1],
            "start": pd.to_datetime(["2026-11-21T08:00:00Z", "2026-11-20T09:15:00Z"]).as_unit("us"),
            "end": pd.to_datetime(["2026-11-20T09:17:05Z"] * 2).as_unit("us"),
            "plan_id": pd.array([3, 3], dtype="Int64"),
            "plan": ["Checkout smoke"] * 2,
            "project_id": pd.array([2, 2], dtype="Int64"),
            "project": ["Web shop"] * 2,
            "user": ["ada"] * 2,
            "runtime_ms": pd.array([None, 125_000], dtype="Int64"),
            "results": [5, 8],
            "verdicts": [0, 4],
            "passed": [0, 3],
            "failed": [0, 1],
            "pass_rate": [math.nan, 0.75],
            # Both still have waiting results: neither is finished, whatever its end says.
            "status": ["WAITING", "WAITING"],
            "finished": [False, False],
        }
    ).astype({"plan": "str", "project": "str", "user": "str"})
    pdt.assert_frame_equal(frame, expected)


def test_status_counts_keep_unknown_statuses_as_themselves() -> None:
    executions = [
        records.execution(1, result_summary={"SUCCESS": 2, "Reporting": 1}),
        records.execution(2, start_date="2026-11-20T23:00:00Z", result_summary={"ERROR": 1}),
        records.execution(3, start_date="2026-11-21T01:00:00Z", result_summary={"SUCCESS": 4}),
    ]

    long = frames.status_counts_frame(executions)
    per_day = execution_analytics.status_counts_per_day(long)

    pdt.assert_frame_equal(
        long,
        pd.DataFrame(
            {
                "execution_id": [1, 1, 2, 3],
                "start": pd.to_datetime(
                    ["2026-11-20T09:15:00Z"] * 2 + ["2026-11-20T23:00:00Z", "2026-11-21T01:00:00Z"]
                ).as_unit("us"),
                "status": ["Reporting", "SUCCESS", "ERROR", "SUCCESS"],
                "count": [1, 2, 1, 4],
            }
        ).astype({"status": "str"}),
    )
    pdt.assert_frame_equal(
        per_day,
        pd.DataFrame(
            {
                "day": pd.to_datetime(["2026-11-20"] * 3 + ["2026-11-21"], utc=True).as_unit("us"),
                "status": ["ERROR", "Reporting", "SUCCESS", "SUCCESS"],
                "count": [1, 1, 2, 4],
            }
        ).astype({"status": "str"}),
    )


def test_pass_rate_per_day_sums_the_days_results() -> None:
    frame = frames.executions_frame(
        [
            records.execution(1, result_summary={"SUCCESS": 3, "FAILURE": 1}),
            records.execution(2, result_summary={"SUCCESS": 1, "ERROR": 3}),
            records.execution(3, start_date="2026-11-21T10:00:00Z", result_summary={"WAITING": 2}),
        ]
    )

    pdt.assert_frame_equal(
        execution_analytics.pass_rate_per_day(frame),
        pd.DataFrame(
            {
                "day": pd.to_datetime(["2026-11-20", "2026-11-21"], utc=True).as_unit("us"),
                "executions": [2, 1],
                "passed": [4, 0],
                "verdicts": [8, 0],
                "pass_rate": [0.5, math.nan],
            }
        ),
    )


def test_execution_kpis_count_failing_plans_by_their_latest_execution() -> None:
    frame = frames.executions_frame(
        [
            # plan 3 failed before, passes now: not failing
            records.execution(1, start_date="2026-11-19T09:00:00Z"),
            records.execution(2, result_summary={"SUCCESS": 4}, runtime=60_000),
            # plan 4 fails now
            records.execution(3, plan_id=4, result_summary={"ERROR": 1}, runtime=30_000),
        ]
    )

    kpis = execution_analytics.execution_kpis(frame)

    assert kpis == execution_analytics.ExecutionKpis(
        executions=3, pass_rate=7 / 9, median_runtime_s=60.0, failing_plans=1, plans=2
    )


def test_execution_kpis_of_nothing() -> None:
    kpis = execution_analytics.execution_kpis(frames.executions_frame([]))
    assert kpis == execution_analytics.ExecutionKpis(0, None, None, 0, 0)


def test_executions_display_has_a_count_column_per_status_and_pass_rate_in_percent() -> None:
    executions = [
        records.execution(1, result_summary={"SUCCESS": 3, "FAILURE": 1}),
        records.execution(2, start_date="2026-11-21T00:00:00Z", result_summary={"Stopped": 2}),
    ]
    frame = frames.executions_frame(executions)

    display = tables.executions_display(frame, frames.status_counts_frame(executions))

    assert list(display.columns) == [
        "Id",
        "Status",
        "Start",
        "End",
        "Plan",
        "Project",
        "User",
        "Duration",
        "SUCCESS",
        "FAILURE",
        "Stopped",
        "Pass rate",
    ]
    assert display["Id"].tolist() == [2, 1]
    assert display["SUCCESS"].tolist() == [0, 3]
    assert display["Stopped"].tolist() == [2, 0]
    # A symbol beside each status name, so the status reads without colour.
    assert display["Status"].tolist() == ["\u25a0 Stopped", "\u2716 FAILURE"]
    assert display["Duration"].tolist() == ["2 min 05 s", "2 min 05 s"]
    # A stopped test has no verdict: it neither passes nor fails, so it has no pass rate.
    pdt.assert_series_equal(
        display["Pass rate"], pd.Series([math.nan, 75.0], name="Pass rate"), check_dtype=False
    )


def test_pass_rate_counts_known_verdicts_only_and_a_warning_is_not_a_pass() -> None:
    summary = {
        "SUCCESS": 2,
        "WARNING": 1,
        "FAILURE": 1,
        "STOPPED": 3,
        "UNEXECUTED": 1,
        "Quarantined": 2,
    }

    frame = frames.executions_frame([records.execution(1, result_summary=summary)])

    row = frame.iloc[0]
    assert (row["results"], row["verdicts"], row["passed"], row["failed"]) == (10, 4, 2, 1)
    assert row["pass_rate"] == 0.5
    assert execution_analytics.execution_kpis(frame).pass_rate == 0.5


def test_a_running_execution_is_counted_but_never_passes_nor_is_the_latest() -> None:
    """Issue 15: a plan whose newest execution is still running read "100 %"; it is judged on
    its latest finished execution, and the running one is counted as running."""
    frame = frames.executions_frame(
        [
            records.execution(1, start_date="2026-11-19T09:00:00Z", result_summary={"ERROR": 2}),
            records.execution(2, result_summary={"SUCCESS": 3, "WAITING": 2}),
        ]
    )

    kpis = execution_analytics.execution_kpis(frame)

    assert kpis.executions == 2
    assert kpis.running == 1
    assert kpis.pass_rate == 0.0  # the finished one's 0 of 2; the running one's 3 are no pass
    assert kpis.failing_plans == 1  # judged on the latest finished: red
    per_day = execution_analytics.pass_rate_per_day(frame)
    assert per_day["verdicts"].tolist() == [2, 0]
    assert per_day["executions"].tolist() == [1, 1]


def test_execution_row_and_its_status_counts() -> None:
    executions = [records.execution(1, result_summary={"WAITING": 1, "SUCCESS": 2, "Odd": 1})]
    frame = frames.executions_frame(executions)

    row = execution_analytics.execution_row(frame, 1)
    assert row is not None
    assert row["plan"] == "Checkout smoke"
    assert execution_analytics.execution_row(frame, 2) is None
    assert execution_analytics.execution_status_counts(
        frames.status_counts_frame(executions), 1
    ) == {
        "SUCCESS": 2,
        "WAITING": 1,
        "Odd": 1,
    }


def test_execution_header_reads_one_execution_of_the_frames() -> None:
    executions = [
        records.execution(1, result_summary={"WAITING": 1, "SUCCESS": 2, "FAILURE": 1}),
        records.execution(
            2, plan_id=None, plan_name=None, start_date=None, runtime=None, result_summary={}
        ),
    ]
    frame = frames.executions_frame(executions)
    counts = frames.status_counts_frame(executions)

    assert execution_analytics.execution_header(
        frame, counts, 1
    ) == execution_analytics.ExecutionHeader(
        execution_id=1,
        plan_id=3,
        plan="Checkout smoke",
        project="Web shop",
        user="ada",
        start=datetime(2026, 11, 20, 9, 15, tzinfo=UTC),
        end=datetime(2026, 11, 20, 9, 17, 5, tzinfo=UTC),
        runtime_s=125.0,
        results=4,
        failed=1,
        pass_rate=2 / 3,
        summary=(("SUCCESS", 2), ("FAILURE", 1), ("WAITING", 1)),
    )
    # A record with gaps still gives a header: missing values read as a dash or None.
    sparse = execution_analytics.execution_header(frame, counts, 2)
    assert sparse is not None
    assert (sparse.plan_id, sparse.plan, sparse.start, sparse.runtime_s) == (
        None,
        "\u2013",
        None,
        None,
    )
    assert (sparse.results, sparse.pass_rate, sparse.summary) == (0, None, ())
    assert execution_analytics.execution_header(frame, counts, 3) is None


def test_latest_executions_keeps_the_newest_and_their_counts() -> None:
    executions = [
        records.execution(i, start_date=f"2026-11-{10 + i}T09:00:00Z", result_summary={"ERROR": i})
        for i in range(1, 6)
    ]
    frame = frames.executions_frame(executions)
    counts = frames.status_counts_frame(executions)

    latest, latest_counts = execution_analytics.latest_executions(frame, counts, 2)

    assert latest["execution_id"].tolist() == [5, 4]
    assert sorted(latest_counts["execution_id"]) == [4, 5]
    everything, _ = execution_analytics.latest_executions(frame, counts, 200)
    pdt.assert_frame_equal(everything, frame)


def test_row_for_selection_ignores_positions_that_name_no_row() -> None:
    frame = frames.executions_frame([records.execution(1), records.execution(2)])

    assert cells.row_for_selection(frame, 1)["execution_id"] == 1  # newest first
    for stale in (None, 2, 99, -1):
        assert cells.row_for_selection(frame, stale) is None


# -- results ----------------------------------------------------------------------------------


def test_results_frame_never_holds_user_info_or_its_access_token() -> None:
    frame = frames.results_frame([records.result(1)])

    assert not any("user" in column for column in frame.columns)
    assert records.ACCESS_TOKEN not in frame.to_csv()
    assert records.ACCESS_TOKEN not in tables.results_display(frame).to_csv()


def test_results_frame_reads_the_environment_and_keeps_only_web_log_links() -> None:
    results = [
        records.result(1, level="FAILURE", message="Element #login not found"),
        records.result(
            2,
            scenario_id=22,
            node_log_path="javascript:alert(document.cookie)",
            executor_log_path="data:text/html,<script>alert(1)</script>",
            environment={
                "operating_system": "IOS",
                "operating_system_clean_name": None,
                "browser_type": "SAFARI",
                "environment_type": "IPHONE 8",
                "environment_version": "LATEST",
                "mobile": True,
            },
        ),
        records.result(3, scenario_id=23, environment=None, node_log_path=None),
    ]

    frame = frames.results_frame(results)

    assert frame["os"].tolist()[:2] == ["Windows 10", "IOS"]  # the readable name, else the code
    assert pd.isna(frame["os"].iloc[2])
    assert frame["mobile"].tolist()[:2] == [False, True]
    assert frame["node_log"].tolist()[0].startswith("https://")
    assert frame["node_log"].isna().tolist() == [False, True, True]
    assert frame["executor_log"].isna().tolist() == [False, True, False]
    assert frame["unlinked_logs"].iloc[1] == (
        "node: javascript:alert(document.cookie); "
        "executor: data:text/html,<script>alert(1)</script>"
    )


def test_results_display_puts_failures_first_and_shows_inert_paths_only_when_needed() -> None:
    safe = frames.results_frame(
        [records.result(1, scenario_id=21), records.result(2, scenario_id=22, level="ERROR")]
    )
    display = tables.results_display(safe)
    assert display["Scenario"].tolist() == [22, 21]
    assert display["Runtime"].tolist() == ["42 s", "42 s"]
    assert "Log paths (not web links)" not in display.columns

    unsafe = frames.results_frame([records.result(1, node_log_path="file:///etc/passwd")])
    assert "Log paths (not web links)" in tables.results_display(unsafe).columns


def test_level_breakdown_in_the_fixed_status_order() -> None:
    frame = frames.results_frame(
        [
            records.result(1, level="Unexecuted-ish"),
            records.result(2, level="FAILURE"),
            records.result(3, level="SUCCESS"),
            records.result(4, level="SUCCESS"),
        ]
    )

    pdt.assert_frame_equal(
        result_analytics.level_breakdown(frame),
        pd.DataFrame(
            {"level": ["SUCCESS", "FAILURE", "Unexecuted-ish"], "count": [2, 1, 1]}
        ).astype({"level": "str"}),
    )


def test_environment_matrix_gives_each_os_and_browser_an_outcome() -> None:
    linux = {"operating_system_clean_name": "Linux", "browser_type": "FIREFOX"}
    frame = frames.results_frame(
        [
            records.result(1, level="SUCCESS"),
            records.result(2, level="FAILURE"),
            records.result(3, level="FAILURE", environment=linux),
            records.result(4, level="WAITING", environment={"browser_type": "EDGE"}),
        ]
    )

    pdt.assert_frame_equal(
        result_analytics.environment_matrix(frame),
        pd.DataFrame(
            {
                "os": ["Linux", "Windows 10", "Windows 10"],
                "browser": ["FIREFOX", "CHROME", "EDGE"],
                "results": [1, 2, 1],
                "passed": [0, 1, 0],
                "failed": [1, 1, 0],
                "outcome": ["all failed", "some failed", "no verdict"],
            }
        ).astype({"os": "str", "browser": "str", "outcome": "str"}),
    )


def test_environment_matrix_and_levels_of_no_results_are_empty() -> None:
    empty = frames.results_frame([])
    assert result_analytics.environment_matrix(empty).empty
    assert result_analytics.level_breakdown(empty).empty


# -- shared -----------------------------------------------------------------------------------


def test_csv_is_exactly_the_display_frame() -> None:
    display = tables.plans_display(frames.plans_frame([records.plan(plan_name='A, "B"')]))

    data = csv_export.to_csv(display)

    roundtrip = pd.read_csv(pd.io.common.BytesIO(data))
    # Time columns name their zone in the file's header (issue 15): "Created (UTC)".
    times = {"Created", "Updated"}
    assert list(roundtrip.columns) == [
        csv_export.zoned_label(label, "UTC") if label in times else label
        for label in display.columns
    ]
    assert roundtrip["Plan"].tolist() == ['A, "B"']


def test_csv_disarms_text_a_spreadsheet_would_run_as_a_formula() -> None:
    hostile = ['=HYPERLINK("http://x")', "+1", "-2+3", "@SUM(A1)", "\tx", "\rx", "plain"]
    results = frames.results_frame(
        [
            records.result(i, scenario_id=20 + i, message=message)
            for i, message in enumerate(hostile)
        ]
    )
    display = tables.results_display(results)

    roundtrip = pd.read_csv(pd.io.common.BytesIO(csv_export.to_csv(display)))

    by_scenario = dict(zip(roundtrip["Scenario"], roundtrip["Message"], strict=True))
    assert [by_scenario[20 + i] for i in range(len(hostile))] == [
        '\'=HYPERLINK("http://x")',
        "'+1",
        "'-2+3",
        "'@SUM(A1)",
        "'\tx",
        "'\rx",
        "plain",
    ]
    # A lone CR is quoted, so it cannot split its row; numbers stay numbers; the table on the
    # page keeps the service's text as it is.
    assert len(roundtrip) == len(hostile)
    assert roundtrip["Scenario"].dtype == "int64"
    assert set(display["Message"]) == set(hostile)
    limited = frames.plans_frame([records.plan(plan_parallel_test_limit=-1)])
    assert "-1" in csv_export.to_csv(tables.plans_display(limited)).decode().split(",")


@pytest.mark.parametrize(
    ("value", "expected"),
    [(None, None), (pd.NA, None), (float("nan"), None), (7, 7), (pd.array([3], "Int64")[0], 3)],
)
def test_optional_int(value: object, expected: int | None) -> None:
    assert cells.optional_int(value) == expected


def test_cell_and_time_text() -> None:
    assert cells.cell_text(None) == "\u2013"
    assert cells.cell_text("x") == "x"
    assert formatting.utc_text(pd.Timestamp("2026-11-20T09:05:00Z")) == "20 Nov 2026, 09:05 UTC"
    assert formatting.utc_text(pd.NaT) == "\u2013"
    assert cells.runtime_seconds(1500) == 1.5
    assert cells.runtime_seconds(pd.NA) is None


def test_the_executions_view_makes_the_per_day_chart_only_when_asked() -> None:
    """A closed "Per day" tab costs nothing (#10): the view is made without its chart, which
    is made on first use and then kept."""
    from dashboard.present.executions_view import executions_view

    frame = frames.executions_frame(
        [records.execution(i, start_date=f"2026-11-{10 + i}T09:00:00Z") for i in (1, 2, 3)]
    )
    counts = frames.status_counts_frame(
        [records.execution(i, start_date=f"2026-11-{10 + i}T09:00:00Z") for i in (1, 2, 3)]
    )

    view = executions_view(frame, counts)

    assert not view.status_per_day.made
    assert not view.status_by_plan  # three executions: a bar each
    chart = view.status_per_day()
    assert view.status_per_day.made
    assert view.status_per_day() is chart
    assert sum(sum(trace.y) for trace in chart.figure.data) == 12  # 3 + 1 results, three days
