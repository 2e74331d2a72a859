"""A window's results the history store lacks, fetched into it before a page reads them: the
page says how much first, shows progress while it waits, and says what was fetched once done.

The fetch is a job of the process (`data.fetch_jobs`), not of the page's run: a rerun (a widget
changed mid-fetch) stops only the waiting, and the next run waits for the same job; another
page or viewer whose window overlaps waits for it too, and only pairs no job holds are asked
for. Without a usable store (withheld, busy, read-only) nothing is done here, and the page's own
fan-out fetches as before.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

import streamlit as st

from dashboard.analytics.evidence import Expected
from dashboard.data import cache, fetch_jobs
from dashboard.data.cache_connection import data_key
from dashboard.data.connection import Connection
from dashboard.data.fanout_answer import PairFailure
from dashboard.data.pairs import Pair
from dashboard.data.store.errors import StoreError
from dashboard.present import fetching
from dashboard.ui import notices

POLL_SECONDS = 0.25
"""How often the bar is brought up to date while a page waits for a job."""


def fetched_first(
    connection: Connection,
    pairs: Sequence[Pair],
    finished: Sequence[int],
    *,
    expected: Mapping[int, Expected] | None = None,
) -> tuple[PairFailure, ...]:
    """Make sure the finished executions' pairs among `pairs` are in the history store,
    fetching those it lacks (said first, with progress); the pairs that could not be fetched,
    for the page's fan-out to report without asking again. Raises the service's refusal.
    An execution whose results lack what `expected` says of it is not stored
    (`fetch_jobs.store_run`): the page's fan-out asks for it again and says it is short."""
    done = frozenset(int(e) for e in finished)
    candidates = [pair for pair in pairs if pair[0] in done]
    if not candidates:
        return ()
    key = data_key(connection)
    window = f"{key}:{hashlib.sha256(repr(candidates).encode()).hexdigest()}"
    if fetch_jobs.JOBS.known_complete(window):
        return ()
    store = cache.history_store(connection)
    if store is None or store.read_only:
        return ()
    try:
        found = store.stored_pairs(candidates)
    except StoreError:
        return ()  # the page's fan-out fetches, and says why nothing is kept
    stored = set(zip(found["execution_id"].tolist(), found["scenario_id"].tolist(), strict=True))
    missing = [pair for pair in candidates if pair not in stored]
    if not missing:
        fetch_jobs.JOBS.note_complete(window)
        return ()
    run = fetch_jobs.store_run(
        cache.client(connection),
        store,
        reader=connection.fingerprint,
        finished=done,
        expected=expected,
    )
    said = st.empty()
    said.info(fetching.need_text(fetch_jobs.JOBS.need(key, missing)))
    waiting = fetch_jobs.JOBS.fetch(key, missing, run)
    _wait(waiting)
    error = waiting.error()
    if error is not None:
        said.empty()
        raise error
    seconds = waiting.progress()[2]
    with said.container():
        notices.caption(fetching.fetched_text(waiting.need, seconds))
    return waiting.failures()


def _wait(waiting: fetch_jobs.Waiting) -> None:
    """Wait for the jobs, the bar saying how far they are. A rerun requested meanwhile ends
    the wait at the bar's next update (the jobs go on)."""
    bar = st.progress(0.0)
    executions = waiting.need.executions
    try:
        while True:
            done, total, elapsed = waiting.progress()
            bar.progress(
                min(done / max(total, 1), 1.0),
                text=cache.fetch_progress_text(executions, done, total, elapsed=elapsed, kept=True),
            )
            if waiting.ended:
                return
            next(job for job in waiting.jobs if not job.ended.is_set()).wait(POLL_SECONDS)
    finally:
        bar.empty()
