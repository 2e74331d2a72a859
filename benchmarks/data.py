"""Demo records in bulk, as the service would send them: JSON bytes of executions and results,
and a history store filled the way a sync fills it.

The records come from the sandbox's own database and derivation (`sandbox.store.DemoStore`),
serialised exactly as its routes serialise them (`model_dump(mode="json")`), so the client's
parsing sees the service's shapes. Going through HTTP instead would cost one request per
(execution, scenario) pair: about 570,000 requests for 1,000,000 results.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pandas as pd

from api_client import (
    Execution,
    ExecutionRecord,
    Operation,
    ResultRecord,
    TestPlan,
    TestResult,
)
from api_client.parsing import record_dicts_from_json, records_from_json
from benchmarks.measure import timed
from dashboard.data.store import HistoryStore
from dashboard.data.store.records import (
    execution_frames,
    execution_is_finished,
    plan_frames,
    results_frame,
)
from sandbox.store import DemoStore, ExecutionCriteria

LOG_ROOT = "http://127.0.0.1:8000/storage"  # where the demo's log links point; never fetched
COMPANIES = (1, 2)
LEAD_COMPANY = 1
BATCH = 5_000  # executions read from the demo database at a time
STORE_BATCH_RESULTS = 100_000  # results per store transaction while filling


def as_json(records: list[Any]) -> bytes:
    """A JSON array of sandbox records, as the routes send them."""
    return json.dumps([record.model_dump(mode="json") for record in records]).encode()


def execution_records(demo: DemoStore, company_id: int) -> Iterator[Any]:
    """Every execution of a company, newest first (the sandbox's `ExecutionRecord`s)."""
    criteria = ExecutionCriteria(company_id=company_id)
    total, _ = demo.find_executions(criteria, 0, 1)
    for offset in range(0, total, BATCH):
        _, page = demo.find_executions(criteria, offset, BATCH)
        yield from page


def executions_json(demo: DemoStore, count: int) -> tuple[bytes, int]:
    """Up to `count` executions of every company as one JSON array, and how many it holds."""
    records: list[Any] = []
    for company_id in COMPANIES:
        for record in execution_records(demo, company_id):
            if len(records) >= count:
                break
            records.append(record)
    return as_json(records), len(records)


def result_records(
    demo: DemoStore, company_id: int = LEAD_COMPANY
) -> Iterator[tuple[Execution, list[Any]]]:
    """(execution, its result records) for each finished execution, newest first: only a
    finished execution's results are stored."""
    for record in execution_records(demo, company_id):
        execution = Execution.model_validate(record.model_dump(mode="json"))
        kept = demo.execution(execution.id) if execution_is_finished(execution) else None
        if kept is not None:
            yield execution, demo.execution_results(kept, LOG_ROOT)


def results_json(demo: DemoStore, count: int) -> tuple[bytes, int]:
    """At least `count` results (whole executions) of finished runs as one JSON array."""
    records: list[Any] = []
    for _, results in result_records(demo):
        records += results
        if len(records) >= count:
            break
    records = records[:count]
    return as_json(records), len(records)


def parse_executions(body: bytes) -> list[Execution]:
    """The client's own parsing of an executions list (`api_client.parsing`)."""
    return list(records_from_json(Execution, body, operation=Operation.EXECUTIONS, strict=False))


def parse_results(body: bytes) -> list[TestResult]:
    return list(records_from_json(TestResult, body, operation=Operation.TEST_RESULTS, strict=False))


def parse_execution_records(body: bytes) -> list[ExecutionRecord]:
    """The client's parsing of an executions list into records (`api_client.records`): what
    the walk gives the pages' frames."""
    return list(
        record_dicts_from_json(Execution, body, operation=Operation.EXECUTIONS, strict=False)
    )


def parse_result_records(body: bytes) -> list[ResultRecord]:
    """The client's parsing of a results list into records: what the fan-out frames."""
    return list(
        record_dicts_from_json(TestResult, body, operation=Operation.TEST_RESULTS, strict=False)
    )


@dataclass(frozen=True)
class Filled:
    """A store filled from the demo: what it holds and how long its writes took."""

    executions: list[Execution]  # the finished executions stored, as the client models them
    results: int
    pairs: int
    write_seconds: float  # time inside `add_results` only (frames built outside it)


def fill_store(store: HistoryStore, demo: DemoStore, *, results_wanted: int) -> Filled:
    """The lead company's plans, finished executions and their results (newest executions first,
    until at least `results_wanted` results), written as a sync writes them: client models ->
    history frames -> the store's upserts, `STORE_BATCH_RESULTS` results per transaction."""
    plans = records_from_json(
        TestPlan,
        as_json(demo.plans(LEAD_COMPANY, None, active_only=False)),
        operation=Operation.PLANS,
        strict=False,
    )
    scenarios = {plan.id: plan.scenarios for plan in plans}
    store.replace_plans(plan_frames(plans))

    executions: list[Execution] = []
    batch: list[Any] = []
    owners: list[tuple[int, int]] = []
    counts: list[tuple[int, int, int]] = []
    stored = pairs = 0
    writing = 0.0

    def flush() -> None:
        nonlocal batch, owners, counts, stored, pairs, writing
        if not counts:
            return
        parsed = parse_results(as_json(batch))
        frame = results_frame(
            parsed,
            execution_ids=[e for e, _ in owners],
            scenario_ids=[s for _, s in owners],
        )
        marked = pd.DataFrame(counts, columns=["execution_id", "scenario_id", "result_count"])
        seconds, _ = timed(lambda: store.add_results(frame, marked))
        writing += seconds
        stored += len(parsed)
        pairs += len(counts)
        batch, owners, counts = [], [], []

    for execution, results in result_records(demo):
        executions.append(execution)
        for scenario_id in scenarios.get(execution.plan_id or -1, []):
            own = [r for r in results if r.scenario_id == scenario_id]
            batch += own
            owners += [(execution.id, scenario_id)] * len(own)
            counts.append((execution.id, scenario_id, len(own)))
        if len(batch) >= STORE_BATCH_RESULTS:
            flush()
        if stored + len(batch) >= results_wanted:
            break
    flush()
    for offset in range(0, len(executions), BATCH * 4):
        store.add_executions(execution_frames(executions[offset : offset + BATCH * 4]))
    return Filled(executions=executions, results=stored, pairs=pairs, write_seconds=writing)


def ledger_marks(executions: pd.DataFrame, results: pd.DataFrame, count: int) -> pd.DataFrame:
    """`count` open marks over what the results hold, a quarter of each target: failure groups
    of their failed results' messages (every plan, then one plan each), scenarios, scenarios on
    an environment, and executions (outages). Targets repeat when there are fewer than asked;
    the ticket and dates are alike, so only the targets vary the cost."""
    from dashboard.analytics.environment_names import with_environments
    from dashboard.analytics.failure_groups import normalise_messages
    from dashboard.analytics.outcomes import FAIL, level_outcomes
    from dashboard.columns import marks as columns
    from dashboard.columns.shapes import typed_rows

    failed = results[(level_outcomes(results["level"]) == FAIL).to_numpy()].head(200_000)
    named = with_environments(failed)
    signatures = list(dict.fromkeys(normalise_messages(named["message"]).dropna())) or ["none"]
    cells = list(
        dict.fromkeys(
            (int(p), int(s), str(e))
            for p, s, e in zip(
                named["plan_id"], named["scenario_id"], named["environment"], strict=True
            )
            if not pd.isna(p) and not pd.isna(s)
        )
    ) or [(1, 1, "none")]
    ids = [int(e) for e in executions["execution_id"]] or [1]
    now = pd.Timestamp("2026-01-01", tz="UTC")
    rows = []
    for n in range(count):
        kind, k = n % 4, n // 4
        plan, scenario, environment = cells[k % len(cells)]
        target: dict[str, Any] = (
            {
                "target": columns.FAILURE_GROUP,
                "signature": signatures[k % len(signatures)],
                "plan_id": plan if k % 2 else None,
            },
            {"target": columns.SCENARIO, "plan_id": plan, "scenario_id": scenario},
            {
                "target": columns.SCENARIO_ENVIRONMENT,
                "plan_id": plan,
                "scenario_id": scenario,
                "environment": environment,
            },
            {"target": columns.EXECUTION, "execution_id": ids[k % len(ids)]},
        )[kind]
        rows.append(
            {
                "mark_id": f"bench-{n}",
                "company_id": 1,
                "kind": columns.OUTAGE if kind == 3 else columns.KNOWN_ISSUE,
                "ticket": f"https://tracker.example/browse/QA-{n}",
                "created_by": "benchmark",
                "created_at": now,
                "updated_at": now,
                "revision": 1,
                **target,
            }
        )
    return typed_rows(rows, columns.MARK_COLUMNS)
