"""`python -m dashboard verdicts --evaluate` end to end on the embedded demo (the command line
run in this process as `python -m dashboard` would run it: `tests.cli.in_process`).

The figures it prints are checked against the ground truth read straight from the demo's data
(`sandbox.data.ground_truth` over the sandbox's own store, not the dashboard's loaders): each
label's planted count, and its labelled and correct counts from the misses it reports. Bad
usage is refused with a sentence and exit 2, before any sandbox starts.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from typing import Any

import pytest

from dashboard.analytics.triage import PRECEDENCE
from sandbox import SandboxSettings
from sandbox.data import ground_truth, planted
from sandbox.data.generator import build_database
from sandbox.store import DemoStore
from tests.cli.conftest import Cli
from tests.cli.in_process import run_cli
from tests.sandbox import planted_analysis as analysis

TARGET_PRECISION, TARGET_RECALL = 0.9, 0.8


@pytest.fixture(scope="module")
def planted_counts() -> Counter[str | None]:
    """Per label, the failed results of company 1 planted with it (None: none planted)."""
    settings = SandboxSettings()
    connection = sqlite3.connect(":memory:", check_same_thread=False)
    build_database(connection, settings)
    store = DemoStore(connection, settings)
    try:
        runs = analysis.load_runs(store, planted.COMPANY_ID, 0)
    finally:
        store.close()
    now_ms = int(settings.now.timestamp() * 1000)
    rules = ground_truth.rules(
        [ground_truth.Execution(run.id, run.plan_id, run.start_ms) for run in runs], now_ms
    )
    return Counter(
        ground_truth.label_of(rules, run.plan_id, run.id, r.scenario_id, r.environment_id)
        for run in runs
        for r in run.results
        if r.outcome == analysis.FAIL
    )


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    work = tmp_path_factory.mktemp("work")
    done = run_cli(
        ["verdicts", "--evaluate", "--format", "json"],
        env={"QA_DASHBOARD_CACHE_DIR": str(tmp_path_factory.mktemp("cache"))},
        cwd=work,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "embedded demo sandbox" in done.stderr
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def test_every_label_is_measured_once_in_precedence_order(evaluated: dict[str, Any]) -> None:
    assert [row["label"] for row in evaluated["labels"]] == list(PRECEDENCE)
    assert evaluated["failed_results"] > 0
    assert evaluated["executions"] > evaluated["failed_results"] // 10


def test_the_figures_are_those_of_the_ground_truth(
    evaluated: dict[str, Any], planted_counts: Counter[str | None]
) -> None:
    misses = evaluated["misses"]
    assert evaluated["failed_results"] == sum(planted_counts.values())
    for row in evaluated["labels"]:
        label = row["label"]
        planted_here = planted_counts[label]
        missed = sum(1 for m in misses if m["planted"] == label)
        wrongly = sum(1 for m in misses if m["labelled"] == label)
        assert row["planted"] == planted_here, label
        assert row["correct"] == planted_here - missed, label
        assert row["labelled"] == row["correct"] + wrongly, label
        expected_precision = row["correct"] / row["labelled"] if row["labelled"] else None
        expected_recall = row["correct"] / planted_here if planted_here else None
        assert row["precision"] == pytest.approx(expected_precision), label
        assert row["recall"] == pytest.approx(expected_recall), label


def test_every_planted_label_meets_the_target(evaluated: dict[str, Any]) -> None:
    """Issue #37's target, on the demo: precision at least 0.9 and recall at least 0.8."""
    scored = {row["label"]: row for row in evaluated["labels"]}
    for label in ground_truth.PLANTED_LABELS:
        row = scored[label]
        assert row["planted"] > 0, label
        assert row["precision"] >= TARGET_PRECISION, (label, evaluated["misses"])
        assert row["recall"] >= TARGET_RECALL, (label, evaluated["misses"])
    # A label no case is planted for (none today) is not measured: a dash in the table.
    for label in set(PRECEDENCE) - set(ground_truth.PLANTED_LABELS):
        assert scored[label]["planted"] == 0
        assert scored[label]["recall"] is None


def test_the_table_is_the_same_figures(cli: Cli, evaluated: dict[str, Any]) -> None:
    done = cli("verdicts", "--evaluate")

    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    header = "| label | planted | labelled | correct | precision | recall |"
    rows = lines[lines.index(header) + 2 : lines.index(header) + 2 + len(PRECEDENCE)]
    for line, row in zip(rows, evaluated["labels"], strict=True):
        cells = [cell.strip() for cell in line.strip("|").split("|")]

        def ratio(value: float | None) -> str:
            return "-" if value is None else f"{value:.2f}"

        assert cells == [
            row["label"],
            str(row["planted"]),
            str(row["labelled"]),
            str(row["correct"]),
            ratio(row["precision"]),
            ratio(row["recall"]),
        ]


@pytest.mark.parametrize(
    ("args", "env", "sentence"),
    [
        (("--evaluate", "--format", "xml"), {}, "the format is text or json, got 'xml'"),
        ((), {}, "nothing to do: verdicts has one action for now, --evaluate"),
        (
            ("--evaluate",),
            {"QA_DASHBOARD_DEMO_EXECUTIONS": "100000"},
            "a demo of 100,000 executions does not hold the evaluation's planted cases",
        ),
        (("--evaluate", "--plan", "3"), {}, "No such option: --plan"),
    ],
)
def test_bad_usage_is_refused_with_a_sentence(
    cli: Cli, args: tuple[str, ...], env: dict[str, str], sentence: str
) -> None:
    done = cli("verdicts", *args, env=env)

    assert done.returncode == 2
    assert done.stdout == ""
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("error: ")
    assert sentence in last
    assert "Traceback" not in done.stderr
    assert "embedded demo sandbox" not in done.stderr  # refused before any sandbox started
