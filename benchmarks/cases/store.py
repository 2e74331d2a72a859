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
- The known-failure ledger's cost (issue #25: within 10 % of the same pages without marks):
  the analytics of the standup, plan health, flaky and environments pages as each page runs
  them (`app_pages/*.py`): outages found among the executions it reads and left out, its own
  figures, then the known failures told apart and the rates without them, once with the
  company's ledger empty and once with 1,000 open marks. Each page is given what it reads as
  it reads it (the executions of its query; the results of its window, or of the executions
  it needs, picked out of the 90 days beforehand, as the page's cache holds them), and runs
  once untimed first (its first visit: the reads cached, and the failure signatures, which
  `normalise_message` keeps per distinct message). Plan health's known counts are kept as its
  page keeps them (`cache.built`, keyed by its failed executions and the marks' revisions): a
  run after the first makes the key and reads the counts.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from datetime import timedelta

import pandas as pd

from api_client import ApiClient
from benchmarks import data
from benchmarks.context import Run
from benchmarks.measure import Bound, CaseResult, Target, timed
from dashboard.analytics.environments import environment_report
from dashboard.analytics.failure_groups import failure_groups
from dashboard.analytics.flaky import DEFAULT_WINDOW, flaky_scenarios, last_finished
from dashboard.analytics.health import plan_health
from dashboard.analytics.known_figures import (
    groups_with_known,
    known_runs,
    matrix_with_known,
    plan_known_figures,
)
from dashboard.analytics.marks import applying, known_cells, known_per_execution, marks_key
from dashboard.analytics.outages import outages, without_outages
from dashboard.analytics.standup import (
    history_start,
    standup_digest,
    turned_red_changes,
    with_newly_failing,
)
from dashboard.analytics.standup_triage import standup_triage, standup_verdicts
from dashboard.analytics.windows import standup_window
from dashboard.columns.marks import MARK_COLUMNS
from dashboard.columns.shapes import empty
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
PAGES = ("standup", "plan health", "flaky", "environments (one plan)")
PAIRS_PER_REPEAT = 3  # a page's run with and without marks, timed in pairs: the ratio is the figure


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
        rows = 0
        results = pd.DataFrame()
        for _ in range(run.repeats()):
            seconds, results = timed(store.results_in_window, date_from=since)
            read.runs.append(seconds)
            rows = len(results)
            flaky.runs.append(timed(flaky_scenarios, executions, results)[0])
            report.runs.append(timed(environment_report, executions, results)[0])
            health.runs.append(timed(plan_health, executions, now=run.now)[0])
        _ledger_cost(run, result, executions, results)
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


def _ledger_cost(
    run: Run, result: CaseResult, executions: pd.DataFrame, results: pd.DataFrame
) -> None:
    """Each page's analytics with the ledger empty and with `MARKS` marks, given its reads."""
    marks = data.ledger_marks(executions, results, MARKS)
    ledgers = {"no marks": empty(MARK_COLUMNS), f"{MARKS:,} marks": marks}
    pages = _pages(executions, results, pd.Timestamp(run.now))
    first: dict[str, list[str]] = {}
    pairs = run.repeats() * PAIRS_PER_REPEAT
    for page in PAGES:
        plain = result.figure(f"{page} page's analytics, no marks", "s")
        marked = result.figure(
            f"{page} page's analytics, {MARKS:,} marks", "s", peer=plain.name, target=WITHIN_10
        )
        page_run = pages[page]
        for words, ledger in ledgers.items():
            # The first visit: its reads are picked out (the page's cache), not counted.
            seconds = timed(page_run, ledger)[0]
            first.setdefault(page, []).append(f"{words} {seconds * 1000:,.0f} ms")
        # Each pair runs one after the other, so that a shared machine's swings fall on both.
        for _ in range(pairs):
            for ledger, figure in zip(ledgers.values(), (plain, marked), strict=True):
                figure.runs.append(timed(page_run, ledger)[0])
    result.notes.append(
        f"The ledger's cost: {MARKS:,} open marks over what the results hold (a quarter each: "
        "failure groups, of every plan or of one, scenarios, scenarios on an environment, "
        "outages of executions). Each page's analytics run as its script runs them, with its "
        "reads (executions of its query, results of its window) given as its cache gives them, "
        f"{pairs} times each way, without and with marks one after the other; the first visit "
        "of each, not counted: "
        + "; ".join(f"{page} ({', '.join(times)})" for page, times in first.items())
        + "."
    )


PageRun = Callable[[pd.DataFrame], object]


def _pages(
    executions: pd.DataFrame, results: pd.DataFrame, now: pd.Timestamp
) -> dict[str, PageRun]:
    """Each page's analytics as a function of the company's ledger (`app_pages/standup.py`,
    `health.py`, `flaky.py`, `environments.py`; the marks that apply now are found as
    `ui.triage.triage_of` finds them), over the executions its query reads."""
    reads = _Reads(results)
    counted: dict[tuple[object, ...], pd.Series] = {}
    lookback = executions[executions["start"] >= now - pd.Timedelta(days=90)]
    last_30 = executions[executions["start"] >= now - pd.Timedelta(days=30)]
    window = standup_window(now)
    standup_executions = executions[executions["start"] >= history_start(window)]
    busiest = int(lookback["plan_id"].value_counts().index[0])
    one_plan = lookback[lookback["plan_id"] == busiest]

    def standup(ledger: pd.DataFrame) -> object:
        found = outages(standup_executions, applying(ledger, now))
        digest = standup_digest(without_outages(standup_executions, found), window)
        read = reads.of(digest.results_needed)
        digest = with_newly_failing(digest, read)
        turned_red_changes(digest, standup_executions, read, None)
        in_window = found[window.contains(found["start"]).fillna(False).to_numpy()]
        # The one verdict per failed result the standup folds by (the page caches it per input).
        judged = read["execution_id"].dropna().astype("int64").unique().tolist()
        verdicts = standup_verdicts(read, standup_executions, ledger, now, judged=judged)
        return standup_triage(digest, verdicts, ledger, now, outages=in_window)

    def health(ledger: pd.DataFrame) -> object:
        marks = applying(ledger, now)
        found = outages(last_30, marks)
        kept = without_outages(last_30, found)
        plan_health(kept, now=now, tz="UTC")
        known = pd.Series(dtype="int64")
        if not marks.empty:  # `ui.triage.known_per_execution`: read only when a mark applies,
            # and counted once per failed executions and marks (its `cache.built` key, made
            # at every run as the page makes it)
            failed = kept[kept["finished"] & (kept["failed"] > 0)]
            ids = failed["execution_id"]
            key = (
                hashlib.sha256(ids.to_numpy(dtype="int64").tobytes()).hexdigest(),
                marks_key(marks),
            )
            known = counted.get(key)
            if known is None:
                known = counted[key] = known_per_execution(reads.of(ids), marks)
        return plan_known_figures(kept, known, now=now)

    def window_of(scoped: pd.DataFrame, marks: pd.DataFrame) -> tuple[pd.DataFrame, ...]:
        """`analytics_input.load_window`: outages left out, then each plan's last W."""
        kept = without_outages(scoped, outages(scoped, marks))
        chosen = kept[
            kept["execution_id"].isin(last_finished(kept, DEFAULT_WINDOW)["execution_id"])
        ]
        return kept, chosen, reads.of(chosen["execution_id"])

    def flaky(ledger: pd.DataFrame) -> object:
        marks = applying(ledger, now)
        kept, chosen, read = window_of(lookback, marks)
        cells = known_cells(read, marks)
        flaky_scenarios(kept, read)
        known_runs(cells)
        grouped = failure_groups(chosen, read)
        return groups_with_known(grouped.groups, read, marks)

    def environments(ledger: pd.DataFrame) -> object:
        marks = applying(ledger, now)
        _, chosen, read = window_of(one_plan, marks)
        report = environment_report(chosen, read)
        return matrix_with_known(report.matrix, known_cells(read, marks))

    return dict(zip(PAGES, (standup, health, flaky, environments), strict=True))


class _Reads:
    """The results of a set of executions, as the page's cache gives them: picked out of the 90
    days the first time a set is asked for, then the same frame again."""

    def __init__(self, results: pd.DataFrame) -> None:
        self._results = results
        self._kept: dict[frozenset[int], pd.DataFrame] = {}

    def of(self, ids: Iterable[int]) -> pd.DataFrame:
        key = frozenset(int(i) for i in ids)
        if key not in self._kept:
            self._kept[key] = self._results[self._results["execution_id"].isin(key)]
        return self._kept[key]


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
