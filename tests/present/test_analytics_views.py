"""The words, tables and charts of the scenario analytics pages, on hand-built frames with known
answers: "5 flips in 20 runs", the dot timeline, the environment sentences, the comparison's
buckets and runtime delta, failure group headlines, the runtime verdict, and the colours and
symbols every other page uses."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from dashboard.analytics.compare import compare_executions
from dashboard.analytics.environments import environment_report
from dashboard.analytics.failure_groups import failure_groups
from dashboard.analytics.flaky import flaky_scenarios
from dashboard.analytics.history import RuntimeRegression, scenario_history
from dashboard.present import analytics_charts, outcome_marks
from dashboard.present import compare as compare_view
from dashboard.present import environments as env_view
from dashboard.present import failure_groups as groups_view
from dashboard.present import flaky as flaky_view
from dashboard.present import scenario as scenario_view
from dashboard.present.colors import STATUS_COLORS, STATUS_SYMBOLS
from dashboard.present.csv import to_csv
from tests.analytics.frames import CHROME, DESKTOP, execution, executions, result, results

LEVEL = {"P": "SUCCESS", "F": "FAILURE"}
FLAKY = "PFPPFPPFFP"  # 6 flips in 10 runs


def history(count: int = 10) -> pd.DataFrame:
    return executions([execution(i, 1, f"2025-03-{i:02d} 10:00") for i in range(1, count + 1)])


def runs(scenario: int, env: dict, pattern: str, **extra: object) -> list[dict]:
    return [
        result(
            i + 1,
            scenario,
            LEVEL[ch],
            env,
            start=f"2025-03-{i + 1:02d} 10:05",
            message=f"Timeout after {30 + i}s in session 0x{i:04x}" if ch == "F" else None,
            **extra,  # type: ignore[arg-type]
        )
        for i, ch in enumerate(pattern)
    ]


def link(plan: int, scenario: int) -> str:
    return f"scenario?plan={plan}&scenario={scenario}"


def test_the_flaky_table_words_the_evidence_and_links_each_scenario() -> None:
    rows = runs(4, CHROME, FLAKY) + runs(4, DESKTOP, "P" * 10) + runs(5, CHROME, "P" * 5 + "F" * 5)
    flakiness = flaky_scenarios(history(), results(rows))

    display = flaky_view.flaky_display(flakiness, {1: "Smoke"}, link)

    assert list(display.columns) == list(flaky_view.COLUMNS)
    assert list(display["Environment"]) == ["all environments", "CHROME / Windows 11"]
    assert set(display["Scenario"]) == {4}  # 5 broke once: one flip is never flaky
    assert list(display["Evidence"]) == ["6 flips in 10 runs"] * 2
    assert (
        display["Timeline"].iloc[0]
        == "\u2714\u2716\u2714\u2714\u2716\u2714\u2714\u2716\u2716\u2714"
    )
    assert display["Failed"].iloc[0] == "4 of 10 runs"
    assert display["Why"].iloc[0] == "flips on CHROME / Windows 11 (score 0.67)"
    assert set(display["History"]) == {"scenario?plan=1&scenario=4"}
    assert display["Score"].iloc[0] == pytest.approx(0.67)
    assert to_csv(display).decode("utf-8-sig").splitlines()[0].startswith("Plan,Scenario,")


def test_words_for_flips_and_the_rule() -> None:
    assert flaky_view.evidence_text(1, 1) == "1 flip in 1 run"
    assert flaky_view.evidence_text(5, 20) == "5 flips in 20 runs"
    rule = flaky_view.rule_text(20, 0.2, 5)
    assert "last 20 finished executions" in rule
    assert "0.2 or more with at least 5 runs" in rule
    assert "environment-specific" in rule


def test_a_sequence_reads_with_the_status_symbols() -> None:
    assert outcome_marks.sequence_symbols("PFW.N") == (
        f"{STATUS_SYMBOLS['SUCCESS']}{STATUS_SYMBOLS['FAILURE']}{STATUS_SYMBOLS['WARNING']}"
        f"{outcome_marks.NOT_RUN_SYMBOL}?"
    )
    assert outcome_marks.outcome_color("fail") == STATUS_COLORS["FAILURE"]
    assert outcome_marks.outcome_label(None) == "? no verdict"
    assert outcome_marks.bucket_label("new failure") == "\u2716 new failure"


def test_the_flaky_timeline_draws_one_dot_per_run_in_the_status_colours() -> None:
    flakiness = flaky_scenarios(history(), results(runs(4, CHROME, FLAKY)))
    rows = flaky_view.flaky_rows(flakiness)
    labels = analytics_charts.labels_for(rows, {1: "Smoke"})
    figure = analytics_charts.flaky_timeline(rows, flakiness.positions, labels, "UTC")

    traces = {trace.name: trace for trace in figure.data}
    assert set(traces) == {"passed", "failed"}
    assert traces["failed"].marker.color == STATUS_COLORS["FAILURE"]
    assert len(traces["failed"].x) == 2 * FLAKY.count("F")  # the scenario and its environment
    assert labels[0] == "Smoke \u00b7 Scenario 4 \u00b7 all environments"
    assert traces["failed"].customdata[0].startswith("#2, ")


def test_environment_sentences_and_the_heat_map() -> None:
    rows = runs(2, DESKTOP, "F" * 6) + runs(2, CHROME, "P" * 6)
    report = environment_report(history(6), results(rows))

    specific = env_view.specific_display(report.specific, link)
    assert list(specific["Finding"]) == [
        "fails on SAFARI / macOS in 6 of 6 runs, passes elsewhere (6 of 6 runs on 1 environment)"
    ]
    assert list(specific["History"]) == ["scenario?plan=1&scenario=2"]
    figure = json.loads(analytics_charts.environment_heatmap(report.matrix).to_json())
    heat = figure["data"][0]
    assert heat["x"] == ["CHROME / Windows 11", "SAFARI / macOS"]
    assert heat["z"] == [[100.0, 0.0]]
    assert heat["customdata"][0][1] == (
        "0 passed, 6 failed, 0 warnings, 0 no verdict in 6 executions"
    )
    matrix = env_view.matrix_display(report.matrix, link)
    assert list(matrix["Pass rate"]) == [100.0, 0.0]


def test_a_version_change_reads_as_a_sentence() -> None:
    old = {**CHROME, "browser_version": "133"}
    rows = runs(3, old, "PPP") + [
        result(i, 3, "FAILURE", CHROME, start=f"2025-03-{i:02d} 10:05") for i in (4, 5, 6)
    ]
    report = environment_report(history(6), results(rows))

    display = env_view.version_display(report.version_changes)
    assert list(display["Finding"]) == [
        "failures started with CHROME / Windows 11 (133 -> 134): 1 scenario, 3 of 3 runs "
        "failed; they passed 3 of 3 runs on 133"
    ]


def test_the_comparison_in_words() -> None:
    execs = history(2)
    rows = [
        result(1, 1, "SUCCESS", CHROME, runtime_s=30),
        result(2, 1, "FAILURE", CHROME, runtime_s=42, message="boom"),
        result(1, 2, "FAILURE", CHROME),
        result(2, 2, "SUCCESS", CHROME),
        result(1, 3, "SUCCESS", CHROME),
        result(2, 3, "SUCCESS", CHROME),
        result(1, 4, "SUCCESS", CHROME),
    ]
    comparison = compare_executions(results(rows), 1, 2, executions=execs)

    assert compare_view.counts_text(comparison) == (
        "1 new failure, 1 fixed, 1 missing after, 1 still passing"
    )
    assert (
        compare_view.runtime_text(comparison)
        == "Runtime 1 min 00 s before, 1 min 00 s after (no change)"
    )
    display = compare_view.compare_display(comparison.cells, 1, link)
    first = display.iloc[0]
    assert (first["Change"], first["Before"], first["After"]) == (
        "\u2716 new failure",
        "\u2714 passed",
        "\u2716 failed",
    )
    assert (first["Runtime change (s)"], first["Message after"]) == (12, "boom")
    missing = display[display["Scenario"] == 4].iloc[0]
    assert missing["After"] == "\u2013 absent"
    assert compare_view.signed_duration(-65) == "\u22121 min 05 s"
    bars = analytics_charts.bucket_counts(comparison.counts).data[0]
    assert list(bars.y) == [
        "\u2716 new failure",
        "\u2714 fixed",
        "\u25cb missing after",
        "\u2714 still passing",
    ]
    assert list(bars.marker.color)[:2] == [STATUS_COLORS["FAILURE"], STATUS_COLORS["SUCCESS"]]
    assert compare_view.signed_duration(None) == "\u2013"


def test_failure_group_headlines_and_their_results() -> None:
    rows = runs(4, CHROME, FLAKY) + runs(4, DESKTOP, FLAKY)
    frame = results(rows)
    grouped = failure_groups(history(), frame)

    group = grouped.groups.iloc[0]
    assert groups_view.headline(group, "UTC") == (
        "Timeout after {n}s in session {hex} - 8 failures in scenario 4 on 2 environments, "
        "first seen Sun 2 Mar"
    )
    shown = groups_view.group_results_display(
        frame,
        group["result_ids"],
        plan_names={1: "Smoke"},
        scenario_link=link,
        results_link=lambda e, p, s: f"results?execution={e}&plan={p}&at={s:%d}",
        execution_starts=dict(zip(history()["execution_id"], history()["start"], strict=True)),
    )
    assert len(shown) == 8
    assert shown["Results"].iloc[0] == "results?execution=9&plan=1&at=09"
    assert set(shown["History"]) == {"scenario?plan=1&scenario=4"}


def test_the_runtime_verdict_in_words() -> None:
    rows = [
        result(i, 7, "SUCCESS", CHROME, runtime_s=30 if i <= 5 else 60, start=f"2025-03-{i:02d}")
        for i in range(1, 11)
    ]
    found = scenario_history(history(), results(rows), 1, 7)
    text = scenario_view.regression_text(found.overall, 5, 5)
    assert text == (
        "Runtime regression: the median of its last 5 completed runs is 1 min 00 s, against "
        "30 s over the 5 runs before (+100 %)."
    )
    short = RuntimeRegression(2, 0, 30.0, None, None, False, False)
    assert scenario_view.regression_text(short, 5, 5).startswith("Not enough completed runs")
    table = scenario_view.history_display(found, lambda e, p, s: f"results?execution={e}")
    assert list(table["Execution"])[:2] == [10, 9]  # newest first
    assert set(table["Outcome"]) == {"\u2714 passed"}
    figure = analytics_charts.scenario_timeline(found.cells, "Europe/Istanbul")
    assert [trace.name for trace in figure.data] == ["passed"]
    assert figure.layout.xaxis.title.text == "Execution start (Europe/Istanbul)"
