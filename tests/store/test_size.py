"""How big the history store grows, and how fast the pages' queries stay, on a large history.

The store is filled the way a sync fills it (client models -> history frames -> the store's
upserts), but the results come straight from the sandbox's own derivation instead of one HTTP
request per pair, so a large history takes minutes rather than an hour. It prints the figures
`docs/history-store.md` quotes ("How big it grows"); they are not asserted (only a generous bound).

    QA_STORE_MEASURE_EXECUTIONS=100000 .venv/bin/pytest -m slow -s tests/store/test_size.py
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from api_client import Execution, TestPlan, TestResult
from dashboard.data.store import HistoryStore, open_store
from dashboard.data.store.records import (
    execution_frames,
    execution_is_finished,
    plan_frames,
    results_frame,
)
from sandbox import SandboxSettings
from sandbox.store import DemoStore, ExecutionCriteria

EXECUTIONS = int(os.environ.get("QA_STORE_MEASURE_EXECUTIONS", "20000"))
BATCH_RESULTS = 100_000


def fill(path: Path, settings: SandboxSettings, company_id: int = 1) -> tuple[int, float]:
    """The company's finished history in a store at `path`; (results, seconds spent storing)."""
    demo = DemoStore.open(settings)
    try:
        plans = [
            TestPlan.model_validate(p.model_dump(mode="json"))
            for p in demo.plans(company_id, None, active_only=False)
        ]
        scenarios = {p.id: p.scenarios for p in plans}
        criteria = ExecutionCriteria(company_id=company_id)
        total, _ = demo.find_executions(criteria, 0, 1)
        executions: list[Execution] = []
        for offset in range(0, total, 5000):
            _, page = demo.find_executions(criteria, offset, 5000)
            executions += [Execution.model_validate(r.model_dump(mode="json")) for r in page]
        finished = [e for e in executions if execution_is_finished(e)]

        storing = 0.0
        stored = 0
        with open_store(path) as store:
            store.replace_plans(plan_frames(plans))
            store.add_executions(execution_frames(finished))
            results: list[TestResult] = []
            owners: list[tuple[int, int]] = []
            counts: list[tuple[int, int, int]] = []
            for number, execution in enumerate(finished, 1):
                kept = demo.execution(execution.id)
                assert kept is not None
                assert execution.plan_id is not None
                for scenario_id in scenarios[execution.plan_id]:
                    got = [
                        TestResult.model_validate(r.model_dump(mode="json"))
                        for r in demo.results(kept, scenario_id, "http://127.0.0.1/storage")
                    ]
                    results += got
                    owners += [(execution.id, scenario_id)] * len(got)
                    counts.append((execution.id, scenario_id, len(got)))
                if len(results) >= BATCH_RESULTS or number == len(finished):
                    started = time.perf_counter()
                    frame = results_frame(
                        results,
                        execution_ids=[e for e, _ in owners],
                        scenario_ids=[s for _, s in owners],
                    )
                    pairs = pd.DataFrame(
                        counts, columns=["execution_id", "scenario_id", "result_count"]
                    )
                    store.add_results(frame, pairs)
                    storing += time.perf_counter() - started
                    stored += len(results)
                    results, owners, counts = [], [], []
        assert stored == sum(len(e.test_results) for e in finished)
        return stored, storing
    finally:
        demo.close()


def timed(label: str, action: Callable[[], Any], runs: int = 5) -> Any:
    times = []
    answer = None
    for _ in range(runs):
        started = time.perf_counter()
        answer = action()
        times.append((time.perf_counter() - started) * 1000)
    rows = len(answer) if hasattr(answer, "__len__") else ""
    print(f"  {label:<40} median {statistics.median(times):8.1f} ms  rows {rows}")
    return answer


@pytest.mark.slow
def test_bytes_per_stored_result_and_query_times(tmp_path: Path) -> None:
    settings = SandboxSettings(executions=EXECUTIONS)
    path = tmp_path / "history.duckdb"
    results, storing = fill(path, settings)

    store = HistoryStore.open(path, idle=0)
    info = store.info()
    assert info.results == results
    assert info.bytes_per_result is not None
    print(
        f"\n{EXECUTIONS:,} executions in the sandbox; company 1's store: "
        f"{info.executions:,} finished executions, {info.results:,} results, "
        f"{info.fetched_pairs:,} pairs; {info.size_bytes:,} bytes = "
        f"{info.bytes_per_result:.0f} bytes per result; frames + upserts {storing:.1f} s"
    )
    now = settings.now
    with store.held():
        executions = timed(
            "executions, last 30 days", lambda: store.executions(date_from=now - timedelta(days=30))
        )
        plan = int(executions["plan_id"].mode()[0])
        window = timed(
            "results, last 30 days, one plan",
            lambda: store.results_in_window(date_from=now - timedelta(days=30), plan_id=plan),
        )
        scenario = int(window["scenario_id"].mode()[0])
        timed(
            "one scenario of one plan, 90 days",
            lambda: store.scenario_results(
                plan_id=plan, scenario_id=scenario, date_from=now - timedelta(days=90)
            ),
        )
        one = int(executions["execution_id"].iloc[0])
        timed("results of one execution", lambda: store.results([one]))
        timed("missing pairs, 90 days", lambda: store.missing_pairs(), runs=3)
    assert info.bytes_per_result < 1000, "a generous bound: about 150 bytes were measured"
