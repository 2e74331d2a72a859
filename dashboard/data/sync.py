"""Filling the history store from the service: what `python -m dashboard store sync` runs.

One sync, for a window of days back from now:

1. the company's plans (all of them, active or not) replace the stored ones: they list the
   scenarios each execution ran (an answer of no plans at all replaces nothing: the store keeps
   its plans and says so);
2. every execution that started in the window is listed (the list is always asked, so new and
   newly finished executions are found); the finished ones not stored yet are stored, running
   ones are not, and a stored one that comes back changed is kept and noted
   (`HistoryStore.add_executions`);
3. the (execution, scenario) pairs of stored executions in the window whose results are not
   stored yet are fetched through the fan-out and stored as they arrive, each execution's once
   they hold every failure its summary counts (`analytics.evidence`): a short answer (the
   service still indexing them) is not kept as final, and the next sync asks for it again.

Each step commits on its own, and every write is an upsert by id, so a sync that is killed or
fails half-way leaves a consistent store and the next one carries on where it stopped. One sync
of a store runs at a time, across processes (`HistoryStore.sync_lock`): a second one waits for
the first, then finds little left to do.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from api_client import ApiClient, ExecutionQuery
from dashboard.analytics.evidence import expected_failures
from dashboard.data.defaults import DEFAULT_DAYS as DEFAULT_DAYS
from dashboard.data.fanout_answer import FanOutCounts, PairFailure, PairSkipped
from dashboard.data.frames import executions_frame
from dashboard.data.results_fanout import DEFAULT_CONCURRENCY, fetch_results
from dashboard.data.store import HistoryStore
from dashboard.data.store.errors import StoreError
from dashboard.data.store.lease import SYNC_WAIT
from dashboard.data.store.records import execution_frames, execution_is_finished, plan_frames

SyncProgress = Callable[[str, int, int], None]
"""Called as `on_progress(stage, done, total)` in the caller's thread; stage is one of
"plans", "executions" (pages) and "results" (pairs)."""


@dataclass(frozen=True)
class SyncReport:
    """What one sync did: enough for a log line or a caption."""

    date_from: datetime
    plans: int  # plans stored
    executions: int  # executions listed in the window
    finished: int  # of them finished (stored)
    running: int  # of them still running (not stored)
    skipped_records: int  # plans and executions that did not fit the models
    pairs_missing: int  # pairs whose results were not stored before this sync
    results: FanOutCounts
    failures: tuple[PairFailure, ...] = ()
    skipped: tuple[PairSkipped, ...] = ()
    store_error: StoreError | None = None
    plans_kept: bool = False  # the service answered no plans; the stored ones were kept
    short: tuple[int, ...] = ()  # executions whose results lack a failure their summary counts


def sync_history(
    client: ApiClient,
    store: HistoryStore,
    *,
    days: int = DEFAULT_DAYS,
    now: datetime | None = None,
    max_concurrency: int = DEFAULT_CONCURRENCY,
    on_progress: SyncProgress | None = None,
    lock_wait: float = SYNC_WAIT,
    synced_by: str | None = None,
    reader: str | None = None,
) -> SyncReport:
    """Bring `store` up to date with the executions that started in the last `days` days.

    `now` is the end of the window's reckoning (the demo passes its own clock; default the
    wall clock). The window has no upper bound: anything newer is listed too. Raises the
    client's `ApiError` when plans or executions cannot be listed (nothing half-done is kept
    from that step) and `StoreError` when the store cannot be written (`StoreBusyError` when
    another sync of it holds the sync lock longer than `lock_wait` seconds); failed result
    pairs are reported in the answer, not raised. `synced_by` names who synced (a worker's name,
    never a credential); it is recorded with the time, so the dashboard can say how fresh the
    history is.
    """
    if days < 1:
        raise ValueError("days must be at least 1")
    with store.sync_lock(wait=lock_wait):
        return _sync(
            client,
            store,
            days=days,
            now=now,
            max_concurrency=max_concurrency,
            on_progress=on_progress,
            synced_by=synced_by,
            reader=reader,
        )


def _sync(
    client: ApiClient,
    store: HistoryStore,
    *,
    days: int,
    now: datetime | None,
    max_concurrency: int,
    on_progress: SyncProgress | None,
    synced_by: str | None,
    reader: str | None,
) -> SyncReport:
    started = datetime.now(UTC)
    date_from = (now or started) - timedelta(days=days)

    def report(stage: str) -> Callable[[int, int], None] | None:
        if on_progress is None:
            return None
        return lambda done, total: on_progress(stage, done, total)

    plans = client.plans(active=False)
    if on_progress:
        on_progress("plans", 1, 1)
    plan_count = store.replace_plans(plan_frames(plans))

    executions = client.all_executions(
        query=ExecutionQuery(date_from=date_from), on_progress=report("executions")
    )
    finished = [e for e in executions if execution_is_finished(e)]
    store.add_executions(execution_frames(finished))

    missing = store.missing_pairs(date_from=date_from)
    pairs = list(
        zip(missing["execution_id"].tolist(), missing["scenario_id"].tolist(), strict=True)
    )
    fanout = fetch_results(
        client,
        pairs,
        finished={e for e, _ in pairs},
        store=store,
        max_concurrency=max_concurrency,
        on_progress=report("results"),
        return_results=False,
        # What the service says of each execution just listed (one stored earlier and not
        # listed again is not checked).
        expected=expected_failures(executions_frame(finished)),
    )
    if fanout.store_error is None and reader is not None and fanout.counts.fetched > 0:
        store.add_reader(reader)
    if fanout.store_error is None:
        store.record(
            last_sync=started,
            last_sync_from=date_from,
            **({"last_sync_by": synced_by} if synced_by else {}),
        )
    return SyncReport(
        date_from=date_from,
        plans=plan_count,
        executions=len(executions),
        finished=len(finished),
        running=len(executions) - len(finished),
        skipped_records=len(plans.skipped) + len(executions.skipped),
        pairs_missing=len(pairs),
        results=fanout.counts,
        failures=fanout.failures,
        skipped=fanout.skipped,
        store_error=fanout.store_error,
        plans_kept=not plans and plan_count > 0,
        short=tuple(sorted(fanout.short)),
    )
