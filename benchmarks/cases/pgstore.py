"""Case 8, the shared store on PostgreSQL: the flaky and heat-map pages of one plan over
30 days, with 10,000,000 results stored, read from PostgreSQL, not loaded whole.

- The server: `QA_BENCH_PG_URL` when set, else a throwaway cluster of Debian's binaries
  (tests/pg_server.py: a temporary folder, a free loopback port, stopped at the end). Without
  either the case is skipped and says why.
- The store: one schema made and migrated by `HistoryStore` (so with its indexes), then filled
  in the server by `INSERT ... SELECT` over `generate_series`: 20 plans of 12 scenarios on 2
  environments (24 results per execution), executions spread evenly over 90 days, one in ten
  results failing; then `ANALYZE`. Sending 10,000,000 rows from Python would time the fill,
  not the pages.
- Each page: the window's executions and results of one plan (`store.executions` and
  `store.results_in_window`, plan and time selected in SQL), then the same analytics the page
  runs (`flaky_scenarios`, `environment_report`); the query alone is a figure of its own.
- The same two pages with 1,000 marks in the store's ledger (issue #25), written through its
  own import (`HistoryStore.import_marks`, as `python -m dashboard known import` writes them)
  and read back by `HistoryStore.marks` on each visit as the pages read them: the marks that
  apply, the outages among the window's executions left out, then the page's analytics and its
  known failures (`known_cells`, with `known_runs` or `matrix_with_known`). The window's
  executions carry their status counts on a page (from the service); here they are counted
  from the window's results, inside the timing.
"""

from __future__ import annotations

import os
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

import pandas as pd

from benchmarks import data
from benchmarks.context import Run
from benchmarks.measure import Bound, CaseResult, Target, timed
from dashboard.analytics.environments import environment_report
from dashboard.analytics.flaky import flaky_scenarios
from dashboard.analytics.known_figures import known_runs, matrix_with_known
from dashboard.analytics.marks import applying, known_cells
from dashboard.analytics.outages import outages, without_outages
from dashboard.analytics.outcomes import level_ranks
from dashboard.columns.marks import MARK_COLUMNS
from dashboard.data.store import HistoryStore
from dashboard.data.store.pg_pool import close_pool
from dashboard.data.store.postgres import PostgresEngine
from tests.pg_server import PgServer, PgUnavailable, start_cluster

NAME = "pgstore"
TITLE = "8. Shared store (PostgreSQL)"
ENV_URL = "QA_BENCH_PG_URL"
PAGE = Target(Bound.VALUE_AT_MOST, 1.5, "< 1.5 s")
PLANS = 20
SCENARIOS = 12
ENVIRONMENTS = 2
DAYS = 90
SCHEMA = "history_bench_c1"
QUERY = "query: one plan's executions and results, 30 days"
MARKS = 1_000
COMPANY = 1


def run(run: Run) -> CaseResult:
    result = CaseResult(NAME, TITLE)
    url, server = _server()
    if url is None:
        result.status = "skipped"
        result.notes.append(f"No PostgreSQL server: {server}.")
        return result
    try:
        _measure(run, result, url)
    finally:
        close_pool(url)
        if isinstance(server, PgServer):
            server.stop()
    return result


def _server() -> tuple[str | None, PgServer | str | None]:
    """The URL of an empty database, and our own server to stop (or why there is none)."""
    given = os.environ.get(ENV_URL, "").strip()
    if given:
        return given, None
    try:
        server = start_cluster(Path(tempfile.mkdtemp(prefix="qa-bench-pg-")))
    except PgUnavailable as error:
        return None, str(error)
    return server.create_database(), server


def _measure(run: Run, result: CaseResult, url: str) -> None:
    executions = max(run.size.pg_results // (SCENARIOS * ENVIRONMENTS), PLANS)
    store = HistoryStore.on(PostgresEngine(url, SCHEMA), idle=0)
    started = time.perf_counter()
    _fill(store, executions, run)
    fill_seconds = time.perf_counter() - started
    info = store.info()
    since = run.now - timedelta(days=30)
    plan = 7
    query = result.figure(QUERY, "s", target=PAGE)
    flaky = result.figure("flaky page of one plan, 30 days", "s", target=PAGE)
    heat = result.figure("heat-map page of one plan, 30 days", "s", target=PAGE)
    rows = 0

    def window() -> tuple[pd.DataFrame, pd.DataFrame]:
        frame = store.executions(plan_id=plan, date_from=since).assign(finished=True)
        return frame, store.results_in_window(plan_id=plan, date_from=since)

    for _ in range(run.repeats()):
        seconds, (chosen, results) = timed(window)
        query.runs.append(seconds)
        rows = len(results)
        flaky.runs.append(timed(lambda: flaky_scenarios(*window()))[0])
        heat.runs.append(timed(lambda: environment_report(*window()))[0])
        del chosen, results

    marks_seconds = _write_marks(store, run, plan, since)
    marked = f"{MARKS:,} marks in the ledger"
    flaky_marked = result.figure(f"flaky page of one plan, 30 days, {marked}", "s", target=PAGE)
    heat_marked = result.figure(f"heat-map page of one plan, 30 days, {marked}", "s", target=PAGE)
    now = pd.Timestamp(run.now)
    known = applied = 0

    def marked_window() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
        """What a page reads with the ledger: the marks that apply, the window's executions
        less its outages, and its results."""
        marks = applying(store.marks(COMPANY), now)
        frame = store.executions(plan_id=plan, date_from=since).assign(finished=True)
        results = store.results_in_window(plan_id=plan, date_from=since)
        frame = _with_counts(frame, results)
        kept = without_outages(frame, outages(frame, marks))
        return kept, results, marks

    def flaky_page() -> int:
        kept, results, marks = marked_window()
        flaky_scenarios(kept, results)
        cells = known_cells(results, marks)
        known_runs(cells)
        return len(marks)

    def heat_page() -> int:
        kept, results, marks = marked_window()
        report = environment_report(kept, results)
        cells = known_cells(results, marks)
        matrix_with_known(report.matrix, cells)
        return int(cells["known"].sum())

    for _ in range(run.repeats()):
        seconds, applied = timed(flaky_page)
        flaky_marked.runs.append(seconds)
        seconds, known = timed(heat_page)
        heat_marked.runs.append(seconds)
    store.close()
    if info.results != executions * SCENARIOS * ENVIRONMENTS:
        raise AssertionError(f"{info.results:,} results stored, {executions:,} executions made")
    result.notes.append(
        f"The store: {info.results:,} results of {info.executions:,} executions "
        f"({PLANS} plans x {SCENARIOS} scenarios x {ENVIRONMENTS} environments, {DAYS} days), "
        f"{(info.size_bytes or 0) / 1e9:.2f} GB with its indexes, filled in the server in "
        f"{fill_seconds:.0f} s. One plan's 30 days: {rows:,} results read. Each page's figure "
        "includes its queries (the window's executions and results) and its analytics."
    )
    result.notes.append(
        f"The ledger: {MARKS:,} open marks of company {COMPANY} (a quarter each: failure "
        "groups, scenarios, scenarios on an environment, outages of the plan's executions), "
        f"imported in {marks_seconds:.1f} s; {applied:,} applied on each visit, and {known:,} of "
        "the plan's failed cells known. Each page with marks also reads them "
        "(`HistoryStore.marks`), finds the outages and leaves them out, and tells the known "
        "failures apart; the window's status counts are counted from its results."
    )


def _write_marks(store: HistoryStore, run: Run, plan: int, since: datetime) -> float:
    """`MARKS` marks over what the store holds (`benchmarks.data.ledger_marks`: the plan's
    executions of the window, the failures of the last day of every plan), written through the
    ledger's import; returns how long the import took."""
    day = store.results_in_window(date_from=run.now - timedelta(days=1))
    executions = store.executions(plan_id=plan, date_from=since)
    marks = data.ledger_marks(executions, day, MARKS)
    # New marks to the ledger (no ids of their own: the import gives each one, as for a
    # tracker's), otherwise as made.
    records = [
        {name: value for name, value in row.items() if name != "mark_id" and not pd.isna(value)}
        for row in marks[list(MARK_COLUMNS)].to_dict("records")
    ]
    started = time.perf_counter()
    report = store.import_marks(COMPANY, records, by="benchmark", now=run.now)
    if report.added != MARKS:
        raise AssertionError(f"{report.added:,} marks imported of {MARKS:,}")
    return time.perf_counter() - started


def _with_counts(executions: pd.DataFrame, results: pd.DataFrame) -> pd.DataFrame:
    """`executions` with the status counts a page's executions carry (results with a verdict,
    failed), counted from their `results`."""
    ranks = level_ranks(results["level"])
    counts = (
        pd.DataFrame(
            {"execution_id": results["execution_id"], "verdicts": ranks > 0, "failed": ranks == 3}
        )
        .groupby("execution_id")[["verdicts", "failed"]]
        .sum()
    )
    return executions.assign(
        verdicts=executions["execution_id"].map(counts["verdicts"]).fillna(0).astype("int64"),
        failed=executions["execution_id"].map(counts["failed"]).fillna(0).astype("int64"),
    )


def _fill(store: HistoryStore, executions: int, run: Run) -> None:
    """`executions` finished executions over the last 90 days and their results, made in the
    server (the migrations' indexes are in place, as in a real store)."""
    start = run.now - timedelta(days=DAYS)
    params = {
        "n": executions,
        "start": start,
        "span": DAYS * 86_400.0,
        "plans": PLANS,
        "scenarios": SCENARIOS,
        "environments": ENVIRONMENTS,
    }
    with store._lease() as db:  # the store's own connection, its schema on the search path
        with db.transaction():
            db.execute(
                "INSERT INTO executions (execution_id, start_at, end_at, plan_id, plan_name, "
                "project_id, project_name, username, runtime_ms) "
                "SELECT g, CAST(:start AS TIMESTAMPTZ) + (g * :span / :n) * INTERVAL '1 second', "
                "CAST(:start AS TIMESTAMPTZ) + (g * :span / :n + 600) * INTERVAL '1 second', "
                "g % :plans + 1, 'plan ' || (g % :plans + 1), g % 4 + 1, 'project', 'bench', "
                "600000 FROM generate_series(1, CAST(:n AS BIGINT)) AS g",
                params,
            )
            db.execute(
                "INSERT INTO results (result_id, execution_id, plan_id, project_id, "
                "scenario_id, level, runtime_s, start_at, environment_id, os, browser, "
                "browser_version, device, mobile, resolution, message) "
                "SELECT e.execution_id * 100 + k, e.execution_id, e.plan_id, e.project_id, "
                "e.plan_id * 1000 + k % :scenarios, "
                "CASE WHEN random() < 0.1 THEN 'FAILURE' ELSE 'SUCCESS' END, 30, "
                "e.start_at + k * INTERVAL '10 seconds', k / :scenarios + 1, 'LINUX', "
                "CASE WHEN k / :scenarios = 0 THEN 'CHROME' ELSE 'FIREFOX' END, 'LATEST', "
                "'desktop', FALSE, '1920x1080', NULL "
                "FROM executions AS e, "
                "generate_series(0, :scenarios * :environments - 1) AS k",
                params,
            )
        db.execute("ANALYZE")
