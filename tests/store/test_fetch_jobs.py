"""Fetch jobs (`dashboard.data.fetch_jobs`): a window's missing results fetched into the store
once per process, whoever asks. Requests are counted on the wire, at a loopback service with the
hand-built history (tests/dashboard/history_service.py) that holds every results request until
the test lets it go, so "asked again while the first fetch is under way" is a fact, not a race.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import pytest

from api_client import ApiClient, AuthenticationError, ScenarioNotFoundError
from dashboard.data.fetch_jobs import FetchJobs, FetchNeed, Waiting, store_run
from dashboard.data.results_fanout import fetch_results
from dashboard.data.store import HistoryStore
from dashboard.present.fetching import fetched_text, need_text
from tests.dashboard import history_service as hand
from tests.loopback_service import serve_json
from tests.store.conftest import HistoryOpener

Pair = tuple[int, int]
KEY = "connection-data-key"
READER = "fingerprint-of-the-test-connection"


@dataclass
class GatedService:
    """The hand-built history; each results request is counted, then held until `release`."""

    base_url: str = ""
    history: hand.HistoryService = field(default_factory=hand.HistoryService)
    asked: Counter[Pair] = field(default_factory=Counter)
    release: threading.Event = field(default_factory=threading.Event)
    arrived: threading.Event = field(default_factory=threading.Event)
    refuse: bool = False
    missing_scenario: Pair | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answer(self, target: str) -> tuple[int, Any]:
        path = urlsplit(target).path
        if not path.startswith("/api/results/execution/"):
            return self.history.answer(target)
        pieces = path.split("/")
        pair = (int(pieces[4]), int(pieces[6]))
        with self.lock:
            self.asked[pair] += 1
        self.arrived.set()
        self.release.wait()  # until the test lets it go (or the service stops)
        if self.refuse:
            return 401, {"error": "UNAUTHORIZED", "message": "token refused"}
        if pair == self.missing_scenario:
            return 404, {"error": "TEST_SCENARIO_NOT_FOUND", "message": "no such scenario"}
        return self.history.answer(target)


@contextmanager
def gated() -> Iterator[GatedService]:
    service = GatedService()
    with serve_json(service.answer, name="gated-history") as base_url:
        service.base_url = base_url
        try:
            yield service
        finally:
            service.release.set()  # no request is left held when the server stops


@pytest.fixture
def service() -> Iterator[GatedService]:
    with gated() as running:
        yield running


@pytest.fixture
def client(service: GatedService) -> Iterator[ApiClient]:
    with ApiClient(base_url=service.base_url, token="hand-built", company_id=7) as api:
        yield api


def pairs_of(executions: range) -> list[Pair]:
    return [(e, s) for e in executions for s in hand.SCENARIOS]


def finished() -> frozenset[int]:
    return frozenset(hand.execution_ids())


def ended(waiting: Waiting) -> bool:
    """Each job ends: waited for as a state, with no deadline of its own (pytest-timeout's)."""
    return all(job.ended.wait() for job in waiting.jobs)


def stored(store: HistoryStore, pairs: list[Pair]) -> int:
    return len(store.stored_pairs(pairs))


def test_the_need_is_said_in_executions_requests_and_a_rough_time() -> None:
    jobs = FetchJobs(assumed_per_second=60.0)
    # The hand-built plan's 12 finished executions (5 scenarios each) and plan 8's two (1 each).
    missing = [*pairs_of(range(1001, 1013)), (2001, 36), (2002, 36)]

    need = jobs.need(KEY, missing)

    assert need == FetchNeed(executions=14, requests=62, seconds=62 / 60)
    assert need_text(need) == (
        "The history store does not hold the results of 14 executions of this window yet: "
        "62 requests to the service, roughly 1 s. What arrives is kept, so they are fetched "
        "only once: another page or viewer that needs them meanwhile waits for this fetch."
    )
    assert "roughly 3 min" in need_text(FetchNeed(2_000, 12_400, 12_400 / 60))
    assert "roughly 2 h" in need_text(FetchNeed(20_000, 500_000, 500_000 / 60))
    assert fetched_text(need, 4.2) == (
        "Fetched the results of 14 executions from the service (62 requests, 4 s) and kept "
        "them in the history store: they are not asked for again."
    )


def test_overlapping_windows_asked_for_mid_fetch_fetch_each_pair_once(
    open_history: HistoryOpener, service: GatedService, client: ApiClient
) -> None:
    jobs = FetchJobs()
    first = pairs_of(range(1001, 1007))  # executions 1001-1006
    second = pairs_of(range(1004, 1013))  # 1004-1012: 1004-1006 overlap
    with open_history() as store:
        run = store_run(client, store, reader=READER, finished=finished())
        one = jobs.fetch(KEY, first, run)
        assert service.arrived.wait()  # the first job is under way, held
        again = jobs.fetch(KEY, first, run)  # a rerun of the same window, mid-fetch
        other = jobs.fetch(KEY, second, run)  # another page's overlapping window
        assert again.jobs == one.jobs  # joined: no new job
        assert other.need.requests == len(second)  # what the page says it waits for
        assert [job.total for job in other.jobs] == [len(first), len(second) - 15]
        assert jobs.running(KEY) == 2

        service.release.set()
        assert ended(one)
        assert ended(other)

        everything = sorted(set(first) | set(second))
        assert set(service.asked) == set(everything)
        assert set(service.asked.values()) == {1}  # each pair asked for once
        assert stored(store, everything) == len(everything)
        assert jobs.running(KEY) == 0

        # The pages then read the window from the store: nothing more is asked.
        answer = fetch_results(client, everything, finished=finished(), store=store, reader=READER)
        assert answer.counts.from_store == len(everything)
        assert sum(service.asked.values()) == len(everything)
        assert len(answer.results) == sum(len(service.history.results(e, s)) for e, s in everything)


def test_a_pair_a_job_could_not_fetch_is_not_asked_again_by_the_page(
    open_history: HistoryOpener, service: GatedService, client: ApiClient
) -> None:
    jobs = FetchJobs()
    window = pairs_of(range(1001, 1004))
    service.missing_scenario = (1002, hand.BROKEN)
    service.release.set()
    with open_history() as store:
        waiting = jobs.fetch(
            KEY, window, store_run(client, store, reader=READER, finished=finished())
        )
        assert ended(waiting)
        failures = waiting.failures()
        assert [(f.execution_id, f.scenario_id) for f in failures] == [(1002, hand.BROKEN)]
        assert isinstance(failures[0].error, ScenarioNotFoundError)

        answer = fetch_results(
            client, window, finished=finished(), store=store, reader=READER, failed=failures
        )

        assert service.asked[(1002, hand.BROKEN)] == 1
        assert sum(service.asked.values()) == len(window)
        assert answer.counts.failed == 1
        assert answer.counts.from_store == len(window) - 1
        assert answer.counts.executions_incomplete == 1


def test_a_refused_token_ends_the_job_with_the_refusal_and_keeps_nothing(
    open_history: HistoryOpener, service: GatedService, client: ApiClient
) -> None:
    jobs = FetchJobs()
    window = pairs_of(range(1001, 1013))
    service.refuse = True
    service.release.set()
    with open_history() as store:
        waiting = jobs.fetch(
            KEY, window, store_run(client, store, reader=READER, finished=finished())
        )
        assert ended(waiting)

        assert isinstance(waiting.error(), AuthenticationError)
        assert sum(service.asked.values()) == 1  # the reader's proof, refused: nothing more
        assert stored(store, window) == 0
        assert not store.knows_reader(READER)
        assert jobs.running(KEY) == 0
