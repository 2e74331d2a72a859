"""A short answer is not kept as final by the sync or a page's fetch job (#35), on both engines.

The service (tests/short_history.py) counts a failure of execution 1005 in its summary, but
answers the failing pair empty on the first ask (still indexing it) and whole on the second.
The first sync or job stores every other execution and nothing of 1005; the next one asks for
1005 again and stores it whole. The rule is `analytics.evidence`, the quality gate's own."""

from __future__ import annotations

from collections.abc import Iterator

import pandas as pd
import pytest
from pydantic import SecretStr

from api_client import ApiClient
from dashboard.analytics.evidence import Expected
from dashboard.data.fetch_jobs import FetchJob, store_run
from dashboard.data.results_fanout import fetch_results
from dashboard.data.sync import sync_history
from tests.dashboard import history_service as hand
from tests.short_history import SHORT_EXECUTION, LaggingService, serve_lagging
from tests.store.conftest import HistoryOpener

PAIRS = [(e, s) for e in hand.execution_ids() for s in hand.SCENARIOS]
SHORT_PAIRS = [(SHORT_EXECUTION, s) for s in hand.SCENARIOS]


@pytest.fixture
def lagging() -> Iterator[tuple[LaggingService, ApiClient]]:
    with (
        serve_lagging() as service,
        ApiClient(base_url=service.base_url, token=SecretStr("t"), company_id=7) as client,
    ):
        yield service, client


def stored(store: object, pairs: list[tuple[int, int]]) -> set[tuple[int, int]]:
    found = store.stored_pairs(pairs)  # type: ignore[attr-defined]
    return set(zip(found["execution_id"], found["scenario_id"], strict=True))


def failures_of(results: pd.DataFrame, execution_id: int) -> int:
    mine = results[results["execution_id"] == execution_id]
    return int((mine["level"] == "FAILURE").sum())


def test_a_sync_keeps_nothing_of_a_short_execution_and_stores_it_whole_next_time(
    lagging: tuple[LaggingService, ApiClient], open_history: HistoryOpener
) -> None:
    service, client = lagging
    with open_history() as store:
        first = sync_history(client, store)
        assert first.short == (SHORT_EXECUTION,)
        assert stored(store, SHORT_PAIRS) == set()  # nothing of it is final
        assert stored(store, PAIRS) == set(PAIRS) - set(SHORT_PAIRS)  # the rest is

        service.hidden.clear()  # the service lists it now
        service.asked.clear()
        second = sync_history(client, store)
        assert second.short == ()
        assert sorted(p for p in service.asked if p[0] in hand.execution_ids()) == SHORT_PAIRS
        assert stored(store, SHORT_PAIRS) == set(SHORT_PAIRS)
        counted = _summary_failures(service, SHORT_EXECUTION)
        assert failures_of(store.results([SHORT_EXECUTION]), SHORT_EXECUTION) == counted

        service.asked.clear()
        third = sync_history(client, store)
        assert third.pairs_missing == 0
        assert service.asked == []


def test_a_page_s_fetch_job_keeps_nothing_of_a_short_execution(
    lagging: tuple[LaggingService, ApiClient], open_history: HistoryOpener
) -> None:
    service, client = lagging
    finished = hand.execution_ids()
    expected = {e: Expected(failed=_summary_failures(service, e)) for e in finished}
    with open_history() as store:
        run = store_run(client, store, reader="a-fingerprint", finished=finished, expected=expected)
        run(FetchJob(frozenset(PAIRS), len(PAIRS)), PAIRS)
        assert stored(store, SHORT_PAIRS) == set()
        assert stored(store, PAIRS) == set(PAIRS) - set(SHORT_PAIRS)

        # The page's own fan-out asks for it again: shown short, said short, not kept.
        page = fetch_results(
            client, PAIRS, finished=finished, store=store, reader="a-fingerprint", expected=expected
        )
        assert set(page.short) == {SHORT_EXECUTION}
        assert page.short[SHORT_EXECUTION].text() == (
            "1 failure counted by the service is not in its results"
        )
        assert page.counts.executions_incomplete == 1
        assert (page.results["execution_id"] == SHORT_EXECUTION).any()  # shown all the same
        counted = expected[SHORT_EXECUTION].failed
        assert failures_of(page.results, SHORT_EXECUTION) == counted - 1
        assert stored(store, SHORT_PAIRS) == set()

        service.hidden.clear()
        again = fetch_results(
            client, PAIRS, finished=finished, store=store, reader="a-fingerprint", expected=expected
        )
        assert again.short == {}
        assert again.counts.from_store == len(PAIRS) - len(SHORT_PAIRS)
        assert failures_of(again.results, SHORT_EXECUTION) == counted
        assert stored(store, SHORT_PAIRS) == set(SHORT_PAIRS)


def _summary_failures(service: LaggingService, execution_id: int) -> int:
    summary = service.execution(execution_id)["result_summary"]
    return int(summary.get("FAILURE", 0))
