"""Case 6, the history store: how fast it fills, and how fast the cross-run analytics answer
over 1,000,000 stored results.

- Sync over HTTP: `sync_history` (plans, the window's executions, then every missing pair
  through the fan-out, 8 in flight) from the 100,000-execution sandbox into an empty DuckDB
  file, for a short window; results stored per second of the whole sync.
- Store writes: the results of 1,000,000 results' worth of finished executions, written by
  `HistoryStore.add_results` in transactions of 100,000, as a sync writes them; results per
  second of the writes alone. These rows come from the sandbox's own derivation, parsed by the
  client (`benchmarks.data.fill_store`), not over HTTP: that would be ~570,000 requests.
- Analytics over that store: the 90 days of results read into pandas, then flaky scores, the
  environment report (the heat-map's matrix and its flags) and plan health, each on its own.
- The known-failure ledger's cost: the same three with 1,000 marks applied as the pages apply
  them (outages found, known failures told apart, the rates without them), beside each one
  without marks; the target is within 10 %.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import pandas as pd

from api_client import ApiClient
from benchmarks import data
from benchmarks.context import Run
from benchmarks.measure import Bound, CaseResult, Target, timed
from dashboard.analytics.environments import environment_report
from dashboard.analytics.flaky import flaky_scenarios
from dashboard.analytics.health import plan_health
from dashboard.analytics.known_figures import known_runs, matrix_with_known, plan_known_figures
from dashboard.analytics.marks import known_cells, known_per_execution
from dashboard.analytics.outages import outages
from dashboard.data import frames
from dashboard.data.store import open_store
from dashboard.data.sync import sync_history

NAME = "store"
TITLE = "6. History store"
LOCAL = Target(Bound.VALUE_AT_MOST, 1.5, "< 1.5 s (data local)")
READ = "read 90 days of results into pandas"
MARKS = 1_000
WITHIN_10 = Target(Bound.RATIO_AT_MOST, 1.10, "within 10 % of the same without marks")
FLAKY, REPORT, HEALTH = (
    "flaky scores (flaky_scenarios)",
    "environment report",
    "plan health (plan_health)",
)


def run(run: Run) -> CaseResult:
    size = run.size
    result = CaseResult(NAME, TITLE)
    _sync_over_http(run, result)

    path = run.folder("filled") / "history.duckdb"
    with open_store(path, idle=0) as store:
        filled = data.fill_store(
            store, run.demo(size.store_executions), results_wanted=size.store_results
        )
        result.figure("store writes (add_results only)", "results/s").runs.append(
            filled.results / filled.write_seconds
        )
        info = store.info()
        executions = frames.executions_frame(filled.executions)
        since = run.now - timedelta(days=90)
        read = result.figure(READ, "s", target=LOCAL)
        flaky = result.figure(FLAKY, "s", peer=READ, target=LOCAL)
        report = result.figure(REPORT, "s", peer=READ, target=LOCAL)
        health = result.figure(HEALTH, "s", peer=READ, target=LOCAL)
        with_marks = {
            name: result.figure(f"{name}, {MARKS:,} marks", "s", peer=name, target=WITHIN_10)
            for name in (FLAKY, REPORT, HEALTH)
        }
        rows = 0
        for _ in range(run.repeats()):
            seconds, results = timed(store.results_in_window, date_from=since)
            read.runs.append(seconds)
            rows = len(results)
            marks = data.ledger_marks(executions, results, MARKS)
            flaky.runs.append(timed(flaky_scenarios, executions, results)[0])
            report.runs.append(timed(environment_report, executions, results)[0])
            health.runs.append(timed(plan_health, executions, now=run.now)[0])
            with_marks[FLAKY].runs.append(timed(_flaky_marked, executions, results, marks)[0])
            with_marks[REPORT].runs.append(timed(_report_marked, executions, results, marks)[0])
            with_marks[HEALTH].runs.append(
                timed(_health_marked, executions, results, marks, run.now)[0]
            )
            del results
    if rows != filled.results:
        raise AssertionError(f"{filled.results:,} results stored, {rows:,} read back")
    size_mb = (info.size_bytes or 0) / 1e6
    result.notes.append(
        f"The filled store: {info.executions:,} finished executions, {info.results:,} results, "
        f"{info.fetched_pairs:,} pairs; {size_mb:.1f} MB on disk "
        f"({(info.bytes_per_result or 0):.0f} bytes per result). Flaky scores, the environment "
        f"report and plan health are given the {len(executions):,} executions' frame as the "
        "pages build it."
    )
    return result


def _flaky_marked(executions: pd.DataFrame, results: pd.DataFrame, marks: pd.DataFrame) -> None:
    """Flaky as its page computes it with marks: outages found, then the scores and the known
    runs beside them."""
    outages(executions, marks)
    flaky_scenarios(executions, results)
    known_runs(known_cells(results, marks))


def _report_marked(executions: pd.DataFrame, results: pd.DataFrame, marks: pd.DataFrame) -> None:
    outages(executions, marks)
    report = environment_report(executions, results)
    matrix_with_known(report.matrix, known_cells(results, marks))


def _health_marked(
    executions: pd.DataFrame, results: pd.DataFrame, marks: pd.DataFrame, now: datetime
) -> None:
    outages(executions, marks)
    plan_health(executions, now=now)
    plan_known_figures(executions, known_per_execution(results, marks), now=now)


def _sync_over_http(run: Run, result: CaseResult) -> None:
    sandbox = run.sandbox(executions=run.size.page_executions)
    lead = sandbox.lead
    figure = result.figure(f"sync over HTTP, last {run.size.sync_days} day(s)", "results/s")
    stored = pairs = 0
    for _ in range(run.repeats(slow=True)):
        path = run.folder("sync") / "history.duckdb"
        with (
            ApiClient(
                base_url=sandbox.base_url, token=lead.token, company_id=lead.company_id
            ) as client,
            open_store(path, idle=0) as store,
        ):
            seconds, report = timed(
                sync_history, client, store, days=run.size.sync_days, now=run.now
            )
            stored = store.info().results
        if report.failures:
            raise AssertionError(f"{len(report.failures)} pairs failed during the sync")
        pairs = report.results.fetched
        figure.runs.append(stored / seconds)
    result.notes.append(
        f"Each sync: {pairs:,} pairs fetched ({stored:,} results) from the "
        f"{run.size.page_executions:,}-execution sandbox with no latency, into an empty file."
    )
