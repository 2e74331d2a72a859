"""Results the history store lacks, fetched into it once per process, whoever asks for them.

A long analytics window visited for the first time needs thousands of requests (the service
serves one execution-and-scenario pair per request). Fetched inside a page's run, a rerun (a
viewer changing a widget mid-fetch) abandons the requests and the next run asks again, and two
viewers, or two pages with overlapping windows, each ask for the same pairs. Here the pairs of
finished executions that a store lacks are fetched by a job in a thread of its own, written to
the store as they arrive, and shared: a page whose pairs some job is fetching already waits for
it, and only pairs no job holds start a new one. The page then reads them from the store like any
stored pair (`results_fanout.fetch_results`), and is given the pairs a job could not fetch, so it
does not ask for them again at once.

Jobs are filed per connection data key (`cache_connection.data_key`: a hash, never the token),
so one token's job never hands another token anything; what the store gives a reader is still
decided by the fan-out's reader check. `FetchNeed` is what a page says before it waits: how many
executions, about how many requests, and roughly how long (at the pace this process last saw the
connection's service answer, else `ASSUMED_PER_SECOND`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field

from api_client import ApiClient, ApiError
from dashboard.analytics.evidence import Expected
from dashboard.data.fanout_answer import PairFailure
from dashboard.data.pairs import Pair
from dashboard.data.results_fanout import DEFAULT_CONCURRENCY, fetch_results
from dashboard.data.store import HistoryStore
from dashboard.data.store.errors import StoreError

_LOG = logging.getLogger(__name__)

CHUNK_PAIRS = 1_000
"""Pairs a job fetches per fan-out (whole executions: one larger is a chunk of its own):
between two, it stops when the store could not take the last (nothing more would be kept) or
the service refused it."""

ASSUMED_PER_SECOND = 60.0
"""Requests a second assumed before this process has seen the service answer a job: 16 in
flight (`results_fanout.DEFAULT_CONCURRENCY`) answered in about a quarter of a second each."""

COMPLETE_WINDOWS = 256
"""Windows remembered as wholly stored (the most recently used)."""


@dataclass(frozen=True)
class FetchNeed:
    """What a window must fetch before it can be shown: the pairs of finished executions the
    history store lacks (`requests`), of how many executions, and roughly how long."""

    executions: int
    requests: int
    seconds: float


@dataclass(eq=False)
class FetchJob:
    """One job: its pairs, how far it is, and what it met (read from any thread)."""

    pairs: frozenset[Pair]
    total: int
    started: float = field(default_factory=time.monotonic)
    done: int = 0
    failures: tuple[PairFailure, ...] = ()
    error: ApiError | None = None  # the service refused: the page says so
    ended: threading.Event = field(default_factory=threading.Event)

    def wait(self, timeout: float) -> bool:
        return self.ended.wait(timeout)


@dataclass(frozen=True)
class Waiting:
    """The jobs a page waits for, and the need it was told (the pairs it lacked)."""

    jobs: tuple[FetchJob, ...]
    need: FetchNeed

    @property
    def ended(self) -> bool:
        return all(job.ended.is_set() for job in self.jobs)

    def progress(self) -> tuple[int, int, float]:
        """(requests done, requests in all, seconds since the first job started)."""
        done = sum(job.done for job in self.jobs)
        total = sum(job.total for job in self.jobs)
        started = min((job.started for job in self.jobs), default=time.monotonic())
        return done, total, time.monotonic() - started

    def failures(self) -> tuple[PairFailure, ...]:
        return tuple(failure for job in self.jobs for failure in job.failures)

    def error(self) -> ApiError | None:
        return next((job.error for job in self.jobs if job.error is not None), None)


Runner = Callable[[FetchJob, Sequence[Pair]], None]


class FetchJobs:
    """The jobs of this process, per connection data key (thread-safe)."""

    def __init__(self, *, assumed_per_second: float = ASSUMED_PER_SECOND) -> None:
        self._assumed = assumed_per_second
        self._lock = threading.Lock()
        self._running: dict[str, list[FetchJob]] = {}
        self._pace: dict[str, float] = {}  # requests a second of the key's last job
        self._complete: OrderedDict[str, None] = OrderedDict()

    def need(self, key: str, missing: Sequence[Pair]) -> FetchNeed:
        """What fetching `missing` (pairs the store lacks) takes, as a page says it."""
        with self._lock:
            pace = self._pace.get(key, self._assumed)
        executions = len({execution for execution, _ in missing})
        return FetchNeed(executions, len(missing), len(missing) / max(pace, 1e-6))

    def fetch(self, key: str, missing: Sequence[Pair], run: Runner) -> Waiting:
        """Have `missing` fetched: the running jobs of `key` that hold some of them are joined,
        and the pairs none holds become a new job, run by `run(job, pairs)` in a thread of its
        own. The page waits for what is returned."""
        need = self.need(key, missing)
        with self._lock:
            running = self._running.setdefault(key, [])
            joined = [job for job in running if not job.pairs.isdisjoint(missing)]
            held = frozenset().union(*(job.pairs for job in joined))
            new = [pair for pair in dict.fromkeys(missing) if pair not in held]
            if new:
                job = FetchJob(frozenset(new), len(new))
                running.append(job)
                joined.append(job)
                threading.Thread(
                    target=self._run, args=(key, job, new, run), name="fetch-job", daemon=True
                ).start()
        return Waiting(tuple(joined), need)

    def running(self, key: str) -> int:
        """How many jobs of `key` are running (for tests and the docs' claims)."""
        with self._lock:
            return len(self._running.get(key, ()))

    def known_complete(self, window: str) -> bool:
        """Whether `window` (a data key and a digest of its pairs) was found wholly stored: a
        rerun then does not ask the store again."""
        with self._lock:
            if window in self._complete:
                self._complete.move_to_end(window)
                return True
        return False

    def note_complete(self, window: str) -> None:
        with self._lock:
            self._complete[window] = None
            while len(self._complete) > COMPLETE_WINDOWS:
                self._complete.popitem(last=False)

    def forget(self) -> None:
        """Forget paces, complete windows and running jobs (those running finish on their
        own, unwatched)."""
        with self._lock:
            self._running = {}
            self._pace = {}
            self._complete = OrderedDict()

    def _run(self, key: str, job: FetchJob, pairs: Sequence[Pair], run: Runner) -> None:
        try:
            run(job, pairs)
        except Exception:  # a job's end must be seen; the page fetches what is left
            _LOG.exception("a results fetch job failed")
        finally:
            elapsed = time.monotonic() - job.started
            with self._lock:
                kept = [j for j in self._running.get(key, ()) if j is not job]
                if kept:
                    self._running[key] = kept
                else:
                    self._running.pop(key, None)
                if job.done >= 50 and elapsed > 0:
                    self._pace[key] = job.done / elapsed
            job.ended.set()


def store_run(
    client: ApiClient,
    store: HistoryStore,
    *,
    reader: str,
    finished: Collection[int],
    expected: Mapping[int, Expected] | None = None,
) -> Runner:
    """A job's work: `pairs` fetched into `store`, `CHUNK_PAIRS` at a time, for `reader` (a
    connection's fingerprint: the first chunk's first pair proves it may read results, as a
    page's fan-out does). It stops at a refusal (kept as the job's `error`) or when the store
    can no longer take what is fetched (the page then fetches what is left as without a store).
    `expected` (the service's record of each execution) keeps an execution found short of it
    out of the store (`results_fanout.fetch_results`): the page's fan-out asks for it again.
    """

    def run(job: FetchJob, pairs: Sequence[Pair]) -> None:
        failures: list[PairFailure] = []
        # A reader the store does not know yet proves itself on one execution (its first pair
        # asked for first) before the rest is asked for: were it refused, nothing fetched for
        # it would be kept.
        for chunk in execution_chunks(pairs, first_alone=not _proved(store, reader)):
            base = job.done

            def note(done: int, _total: int, base: int = base) -> None:
                job.done = base + done

            try:
                answer = fetch_results(
                    client,
                    chunk,
                    finished=finished,
                    store=store,
                    max_concurrency=DEFAULT_CONCURRENCY,
                    on_progress=note,
                    return_results=False,
                    reader=reader,
                    expected=expected,
                )
            except ApiError as error:
                job.error = error
                break
            failures += answer.failures
            job.failures = tuple(failures)
            if answer.store_error is not None or not _proved(store, reader):
                break

    return run


def execution_chunks(pairs: Sequence[Pair], *, first_alone: bool) -> list[list[Pair]]:
    """`pairs` in chunks of about `CHUNK_PAIRS`, never splitting an execution's pairs (an
    execution is judged whole or short on all of them together); with `first_alone`, the
    first execution is a chunk of its own."""
    chunks: list[list[Pair]] = []
    current: list[Pair] = []
    for pair in pairs:
        boundary = not current or current[-1][0] != pair[0]
        if boundary and current and (len(current) >= CHUNK_PAIRS or (first_alone and not chunks)):
            chunks.append(current)
            current = []
        current.append(pair)
    if current:
        chunks.append(current)
    return chunks


def _proved(store: HistoryStore, reader: str) -> bool:
    """Whether the store now knows `reader` (else nothing fetched for it is kept)."""
    try:
        return store.knows_reader(reader)
    except StoreError:
        return False


JOBS = FetchJobs()
"""This process's jobs, shared by its sessions."""
