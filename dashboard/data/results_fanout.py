"""Results of many (execution, scenario) pairs: from the store when kept, else from the service.

The service serves results one pair per request, so a page over many executions needs many
requests. `fetch_results` asks the history store first (a stored pair needs no request), fetches
the rest several at a time over the client's one connection pool (the client retries each
request as `api_client.retry` decides), stores the pairs of finished executions as they arrive,
and returns every result as one frame. A pair that fails is reported with its typed `ApiError`
and the others are kept; a pair of a running execution is fetched but never stored, so it is
fetched fresh next time.

Errors that no other pair would escape (the token refused, the authority to read results
missing, the company unknown) stop the fan-out at once: what was fetched is stored, and the
error is raised for the caller to word, instead of being met once per pair. What it answers
(`FanOut`, its counts, failed and skipped pairs) is defined in `fanout_answer`.

A caller that knows what an execution should hold passes it: `expected` (the service's own
record of each execution, judged by the one completeness rule, `analytics.evidence`: the pages'
fetches, the fetch jobs, the sync) or `complete` (the quality gate's own check). The pairs of a
finished execution are then stored only once all of them are in and the execution is found
whole (its stored and fetched results together); a short one is returned (its shortfall in
`FanOut.short`) but not kept, so the next fetch asks the service again. A service that answers
a finished execution's pair before it lists all its results (an empty answer for a failing
scenario, #35) would otherwise have that answer kept as final, and every later fetch would read
it back. Each execution is settled as soon as its last pair is answered, so a long fetch still
stores as it goes.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field

import pandas as pd

from api_client import (
    ApiClient,
    ApiError,
    AuthenticationError,
    CompanyNotFoundError,
    ExecutionNotFoundError,
    PermissionDeniedError,
    ProgressCallback,
    ResultRecord,
    ScenarioNotFoundError,
)
from dashboard.analytics.evidence import Expected, Shortfall, shortfall
from dashboard.columns.schemas import RESULT_HISTORY_COLUMNS
from dashboard.columns.shapes import empty
from dashboard.data.defaults import DEFAULT_CONCURRENCY as DEFAULT_CONCURRENCY
from dashboard.data.defaults import MAX_CONCURRENCY as MAX_CONCURRENCY
from dashboard.data.fanout_answer import FanOut, FanOutCounts, PairFailure, PairSkipped
from dashboard.data.pairs import Pair
from dashboard.data.store import HistoryStore
from dashboard.data.store.errors import StoreError
from dashboard.data.store.records import results_frame

_LOG = logging.getLogger(__name__)
# DEFAULT_CONCURRENCY (`data.defaults`, where the command line's help reads it): requests in
# flight at once, enough to hide latency (8 reached 6.2x a sequential loop at 50 ms, 16 reached
# 8.3x: benchmarks/RESULTS.md), well within httpx's pool (100), and few enough not to look like
# a burst to the service.

FLUSH_SECONDS = 2.0
"""Fetched pairs are written to the store at least this often, each batch in one transaction,
so an interrupted fan-out keeps what it fetched and the store is held only briefly."""

FLUSH_PAIRS = 500

FRAME_PAIRS = 500
"""Pairs kept (not stored) are framed this many at a time: a pandas frame costs milliseconds
however few its rows, so one frame per pair cost more of the caller's thread than the requests
(1.5 s for 500 pairs of two results, against 5 ms for one frame of 1,000 results)."""

FATAL_ERRORS: tuple[type[ApiError], ...] = (
    AuthenticationError,
    PermissionDeniedError,
    CompanyNotFoundError,
)
"""Errors every other pair would meet too: they end the fan-out instead of repeating."""


Check = Callable[[int, pd.DataFrame], Shortfall | None]
"""What a finished execution's results (stored and fetched together) lack; None: whole."""


@dataclass
class _Progress:
    """The fan-out's working state, kept in the caller's thread only."""

    store: HistoryStore | None
    keep_results: bool
    store_error: StoreError | None = None
    frames: list[pd.DataFrame] = field(default_factory=list)
    to_store: list[tuple[Pair, Sequence[ResultRecord]]] = field(default_factory=list)
    to_frame: list[tuple[Pair, Sequence[ResultRecord]]] = field(default_factory=list)
    check: Check | None = None  # finished pairs wait in `held` until found whole by it
    held: dict[int, list[tuple[Pair, Sequence[ResultRecord]]]] = field(default_factory=dict)
    unanswered: dict[int, int] = field(default_factory=dict)  # held executions' pairs to come
    ready: list[int] = field(default_factory=list)  # held executions whose pairs are all in
    wanted_of: dict[int, list[Pair]] = field(default_factory=dict)
    short: dict[int, Shortfall] = field(default_factory=dict)
    available: set[Pair] = field(default_factory=set)
    failures: list[PairFailure] = field(default_factory=list)
    skipped: list[PairSkipped] = field(default_factory=list)
    fetched: int = 0
    stored: int = 0
    last_flush: float = field(default_factory=time.monotonic)


def fetch_results(
    client: ApiClient,
    pairs: Iterable[tuple[int, int]],
    *,
    finished: Collection[int],
    store: HistoryStore | None = None,
    max_concurrency: int = DEFAULT_CONCURRENCY,
    on_progress: ProgressCallback | None = None,
    return_results: bool = True,
    reader: str | None = None,
    failed: Collection[PairFailure] = (),
    complete: Callable[[int, pd.DataFrame], bool] | None = None,
    expected: Mapping[int, Expected] | None = None,
) -> FanOut:
    """The results of every (execution_id, scenario_id) pair in `pairs`.

    `finished` holds the ids of the finished executions (see
    `store.records.finished_execution_ids`): only their pairs are read from and written to
    `store`. Pairs already stored are not fetched. The rest are fetched `max_concurrency` at a
    time; `on_progress(done, total)` reports each one in the caller's thread. With
    `return_results=False` (a sync), nothing is kept in memory and `results` is empty.

    A store that cannot be used (busy, unreadable) does not stop the fan-out: everything is
    fetched, nothing is kept, and `store_error` says why. Raises the first error of
    `FATAL_ERRORS` after storing what was fetched before it.

    `reader` (a connection's fingerprint) guards the store: the store is per service and
    company, and a token of that company may lack the authority to read results. A reader the
    store has not seen read results is given none of them until one pair fetched for it from
    the service proves it may (`HistoryStore.knows_reader`); the service's refusal is raised
    as usual. Without `reader` (a sync, run by the operator) the store is trusted.

    `failed` are pairs whose request failed just now (a fetch job's, `fetch_jobs`): they are
    not asked for again, and are reported as failed.

    `expected` (what the service's own record says of each execution, by id) has the fetched
    pairs of a finished execution stored only when every pair of it was had and its results,
    stored and fetched together, hold what `analytics.evidence.shortfall` checks; otherwise
    they are returned but not stored, so they are fetched again next time, and the execution's
    shortfall is in `FanOut.short`. An execution `expected` does not name is not checked.
    `complete(execution_id, results)` does the same with the caller's own yes or no.
    """
    if not 1 <= max_concurrency <= MAX_CONCURRENCY:
        raise ValueError(f"max_concurrency must be between 1 and {MAX_CONCURRENCY}")
    if complete is not None and expected is not None:
        raise ValueError("give complete or expected, not both")
    wanted: list[Pair] = list(dict.fromkeys((int(e), int(s)) for e, s in pairs))
    done_ids = frozenset(int(e) for e in finished)
    state = _Progress(store=store, keep_results=return_results, check=_check(complete, expected))
    given_up = {(f.execution_id, f.scenario_id): f for f in failed}
    state.failures += [given_up[p] for p in wanted if p in given_up]
    wanted_now = [p for p in wanted if p not in given_up]

    stored_pairs: set[Pair] = set()
    proved: list[Pair] = []
    try:
        candidates = [p for p in wanted_now if p[0] in done_ids]
        if store is not None and reader is not None and candidates:
            proved = _prove_reader(client, state, reader, candidates[0], done_ids)
        if state.store is not None:
            stored_pairs = _read_stored(state, [p for p in candidates if p not in proved])
        to_fetch = [p for p in wanted_now if p not in stored_pairs and p not in proved]
        state.available |= stored_pairs
        if state.check is not None:
            for pair in wanted_now:
                state.wanted_of.setdefault(pair[0], []).append(pair)
            for pair in to_fetch:
                if pair[0] in done_ids:
                    state.unanswered[pair[0]] = state.unanswered.get(pair[0], 0) + 1
        _fetch_all(client, to_fetch, done_ids, state, max_concurrency, on_progress)
        if state.check is not None:
            state.ready = list(state.held)
            _settle_ready(state)
    finally:
        _flush(state)
        _frame_kept(state)

    results = pd.concat(state.frames, ignore_index=True) if state.frames else None
    if results is None or results.empty:
        results = empty(RESULT_HISTORY_COLUMNS)
    else:
        results = results.sort_values(
            ["execution_id", "scenario_id", "result_id"], kind="stable", ignore_index=True
        )
    return FanOut(
        results=results,
        counts=_counts(wanted, done_ids, stored_pairs, state),
        failures=tuple(state.failures),
        skipped=tuple(state.skipped),
        store_error=state.store_error,
        short=dict(state.short),
    )


def _check(
    complete: Callable[[int, pd.DataFrame], bool] | None,
    expected: Mapping[int, Expected] | None,
) -> Check | None:
    if expected is not None:
        told = expected

        def by_record(execution_id: int, results: pd.DataFrame) -> Shortfall | None:
            wanted = told.get(execution_id)
            return None if wanted is None else shortfall(wanted, results)

        return by_record
    if complete is not None:
        judge = complete
        return lambda execution_id, results: None if judge(execution_id, results) else Shortfall()
    return None


def _prove_reader(
    client: ApiClient, state: _Progress, reader: str, pair: Pair, done_ids: frozenset[int]
) -> list[Pair]:
    """Make sure `reader` may read results before the store gives it any: a reader the store
    knows needs no request; another has `pair` fetched for it first (returned: it needs no
    second request), and is remembered once the service answered it as one allowed to read
    results (its results, or "no such execution or scenario", which the service checks only
    after the authority). A refusal (`FATAL_ERRORS`) is raised; any other failure leaves the
    store unused for this fan-out."""
    assert state.store is not None
    try:
        if state.store.knows_reader(reader):
            return []
    except StoreError as error:
        _give_up_store(state, error)
        return []
    _fetch_all(client, [pair], done_ids, state, 1, None)
    allowed = pair in state.available or any(
        isinstance(f.error, (ExecutionNotFoundError, ScenarioNotFoundError)) for f in state.failures
    )
    if not allowed:
        state.store = None  # not proved: nothing stored is given to it, nothing kept from it
        return [pair]
    try:
        state.store.add_reader(reader)
    except StoreError as error:
        _give_up_store(state, error)
    return [pair]


def _read_stored(state: _Progress, candidates: list[Pair]) -> set[Pair]:
    """The stored pairs among `candidates`, their results added to the answer."""
    if not candidates or state.store is None:
        return set()
    try:
        found = state.store.stored_pairs(candidates)
        stored = set(
            zip(found["execution_id"].tolist(), found["scenario_id"].tolist(), strict=True)
        )
        if stored and state.keep_results:
            state.frames.append(state.store.results_of_pairs(sorted(stored)))
    except StoreError as error:
        _give_up_store(state, error)
        return set()
    return stored


def _fetch_all(
    client: ApiClient,
    to_fetch: list[Pair],
    done_ids: frozenset[int],
    state: _Progress,
    max_concurrency: int,
    on_progress: ProgressCallback | None,
) -> None:
    total = len(to_fetch)
    if on_progress:
        on_progress(0, total)
    if not to_fetch:
        return
    queue = iter(to_fetch)
    done = 0
    pool = ThreadPoolExecutor(max_workers=min(max_concurrency, total))
    pending: dict[Future[Sequence[ResultRecord]], Pair] = {}
    abandon = threading.Event()
    completed = False

    def submit_next() -> None:
        pair = next(queue, None)
        if pair is not None:
            pending[pool.submit(client.test_result_records, *pair, stop=abandon)] = pair

    try:
        # A window of requests in flight, not one future per pair: a stop leaves little behind.
        for _ in range(max_concurrency * 2):
            submit_next()
        while pending:
            finished_now, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished_now:
                pair = pending.pop(future)
                try:
                    records = future.result()
                except FATAL_ERRORS:
                    raise
                except ApiError as error:
                    state.failures.append(PairFailure(pair[0], pair[1], error))
                else:
                    _take(state, pair, records, finished=pair[0] in done_ids)
                _answered(state, pair[0])
                done += 1
                submit_next()
                if on_progress:
                    on_progress(done, total)
            if (
                len(state.to_store) + sum(map(len, state.held.values())) >= FLUSH_PAIRS
                or time.monotonic() - state.last_flush >= FLUSH_SECONDS
            ):
                _settle_ready(state)
                _flush(state)
        completed = True
    finally:
        # On a stop (a signal, a page's rerun, a refusal), requests not yet started are
        # dropped and those in flight end at their next chunk; nobody waits for them, as a
        # service that drips or goes silent would hold each one up to the client's deadline.
        if not completed:
            abandon.set()
        pool.shutdown(wait=completed, cancel_futures=True)


def _take(state: _Progress, pair: Pair, records: Sequence[ResultRecord], *, finished: bool) -> None:
    state.fetched += 1
    skipped = tuple(getattr(records, "skipped", ()))
    if skipped:
        state.skipped.append(PairSkipped(pair[0], pair[1], skipped))
    else:
        state.available.add(pair)
    if finished and not skipped and state.check is not None:
        state.held.setdefault(pair[0], []).append((pair, records))
    elif finished and not skipped and state.store is not None:
        state.to_store.append((pair, records))
    elif state.keep_results and records:
        state.to_frame.append((pair, records))
        if len(state.to_frame) >= FRAME_PAIRS:
            _frame_kept(state)


def _answered(state: _Progress, execution_id: int) -> None:
    """Count a held execution's pair as answered; once its last one is, it is ready."""
    left = state.unanswered.get(execution_id)
    if left is None:
        return
    if left > 1:
        state.unanswered[execution_id] = left - 1
        return
    del state.unanswered[execution_id]
    if execution_id in state.held:
        state.ready.append(execution_id)


def _settle_ready(state: _Progress) -> None:
    """Judge each ready execution by `state.check` on its stored and fetched results together
    (the stored ones read in one query for all of them): a whole one's pairs are stored, a
    short one's returned only (its shortfall kept), one with a pair not had returned only."""
    ready, state.ready = list(dict.fromkeys(state.ready)), []
    batches = {e: state.held.pop(e) for e in ready if e in state.held}
    if not batches:
        return
    assert state.check is not None
    stored = empty(RESULT_HISTORY_COLUMNS)
    if state.store is not None:
        try:
            stored = state.store.results(sorted(batches))
        except StoreError as error:
            _give_up_store(state, error)
    stored_of = {int(e): frame for e, frame in stored.groupby("execution_id", sort=False)}
    for execution_id, batch in batches.items():
        had = all(p in state.available for p in state.wanted_of.get(execution_id, ()))
        fetched = _frame_of(batch)
        kept = stored_of.get(execution_id)
        if kept is not None:  # a pair both stored and fetched counts once
            kept = kept[~kept["result_id"].isin(fetched["result_id"])]
            fetched = pd.concat([kept, fetched], ignore_index=True)
        gap = state.check(execution_id, fetched) if had else None
        if gap is not None:
            state.short[execution_id] = gap
        if had and gap is None and state.store is not None:
            state.to_store += batch
        elif state.keep_results:
            state.to_frame += batch


def _frame_kept(state: _Progress) -> None:
    """Frame the kept (not stored) pairs gathered so far, in one frame."""
    batch, state.to_frame = state.to_frame, []
    if batch:
        state.frames.append(_frame_of(batch))


def _flush(state: _Progress) -> None:
    """Write the finished pairs fetched since the last flush, in one transaction."""
    batch, state.to_store = state.to_store, []
    state.last_flush = time.monotonic()
    if not batch:
        return
    frame = _frame_of(batch)
    if state.keep_results:
        state.frames.append(frame)
    if state.store is None:
        return
    counts = pd.DataFrame(
        {
            "execution_id": [pair[0] for pair, _ in batch],
            "scenario_id": [pair[1] for pair, _ in batch],
            "result_count": [len(records) for _, records in batch],
        }
    )
    try:
        state.stored += state.store.add_results(frame, counts)
    except StoreError as error:
        _give_up_store(state, error)


def _give_up_store(state: _Progress, error: StoreError) -> None:
    _LOG.warning("history store not used for these results: %s", error)
    state.store_error = error
    state.store = None


def _frame_of(batch: list[tuple[Pair, Sequence[ResultRecord]]]) -> pd.DataFrame:
    results = [r for _, records in batch for r in records]
    return results_frame(
        results,
        execution_ids=[pair[0] for pair, records in batch for _ in records],
        scenario_ids=[pair[1] for pair, records in batch for _ in records],
    )


def _counts(
    wanted: list[Pair], done_ids: frozenset[int], stored_pairs: set[Pair], state: _Progress
) -> FanOutCounts:
    by_execution: dict[int, bool] = {}
    for pair in wanted:
        by_execution[pair[0]] = by_execution.get(pair[0], True) and pair in state.available
    running = sum(1 for e in by_execution if e not in done_ids)
    complete = sum(
        1 for e, ok in by_execution.items() if e in done_ids and ok and e not in state.short
    )
    return FanOutCounts(
        pairs=len(wanted),
        from_store=len(stored_pairs),
        fetched=state.fetched,
        stored=state.stored,
        failed=len(state.failures),
        executions=len(by_execution),
        executions_complete=complete,
        executions_running=running,
        executions_incomplete=len(by_execution) - running - complete,
    )
