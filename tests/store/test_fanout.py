"""The results fan-out over real HTTP against the sandbox, requests counted on the wire."""

from __future__ import annotations

import dataclasses
import pickle
import threading
from collections.abc import Iterator

import httpx
import pandas as pd
import pandas.testing as pdt
import pytest

from api_client import ApiClient, Execution, PermissionDeniedError, ScenarioNotFoundError
from dashboard.data import results_fanout
from dashboard.data.fanout_answer import FanOut
from dashboard.data.results_fanout import fetch_results
from dashboard.data.store import HistoryStore
from dashboard.data.store.records import execution_is_finished, results_frame
from sandbox import Authority, FaultSettings, RunningSandbox, serve_in_thread
from tests.store.conftest import QUICK_RETRIES, ClientFactory, HistoryOpener, lacking, lead_of

Pair = tuple[int, int]


@pytest.fixture(scope="module")
def history(live_sandbox: RunningSandbox) -> tuple[list[Execution], dict[int, list[int]]]:
    """Company 1's executions and each plan's scenarios, asked once."""
    lead = lead_of(live_sandbox)
    with ApiClient(base_url=live_sandbox.base_url, token=lead.token, company_id=1) as client:
        executions = list(client.all_executions())
        scenarios = {plan.id: list(plan.scenarios) for plan in client.plans(active=False)}
    return executions, scenarios


def pairs_of(execution: Execution, scenarios: dict[int, list[int]]) -> list[Pair]:
    assert execution.plan_id is not None
    return [(execution.id, s) for s in scenarios[execution.plan_id]]


def expected_frame(client: ApiClient, pairs: list[Pair]) -> pd.DataFrame:
    """What the service serves for `pairs`, built the same way, one request per pair."""
    results, execution_ids, scenario_ids = [], [], []
    for execution_id, scenario_id in pairs:
        got = client.test_results(execution_id, scenario_id)
        results.extend(got)
        execution_ids += [execution_id] * len(got)
        scenario_ids += [scenario_id] * len(got)
    frame = results_frame(results, execution_ids=execution_ids, scenario_ids=scenario_ids)
    return frame.sort_values(["execution_id", "scenario_id", "result_id"], ignore_index=True)


@pytest.fixture
def fresh_store(open_history: HistoryOpener) -> Iterator[HistoryStore]:
    with open_history() as store:
        yield store


def test_a_finished_execution_is_fetched_once_even_after_a_restart(
    live_sandbox: RunningSandbox,
    history: tuple[list[Execution], dict[int, list[int]]],
    client_for: ClientFactory,
    open_history: HistoryOpener,
) -> None:
    executions, scenarios = history
    execution = next(e for e in executions if execution_is_finished(e) and len(e.test_results) > 3)
    pairs = pairs_of(execution, scenarios)
    lead = lead_of(live_sandbox)

    client, wire = client_for(live_sandbox, lead)
    with open_history() as store:
        first = fetch_results(client, pairs, finished={execution.id}, store=store)
    assert wire.sent["results"] == len(pairs)
    assert (first.counts.fetched, first.counts.stored, first.counts.from_store) == (
        len(pairs),
        len(pairs),
        0,
    )
    assert sorted(first.results["result_id"]) == sorted(execution.test_results)
    pdt.assert_frame_equal(first.results, expected_frame(client, pairs))

    # A restart: a new process would open the file again with a new client.
    again, wire_again = client_for(live_sandbox, lead)
    with open_history() as reopened:
        second = fetch_results(again, pairs, finished={execution.id}, store=reopened)

    assert wire_again.sent["results"] == 0
    assert (second.counts.from_store, second.counts.fetched) == (len(pairs), 0)
    assert (second.counts.executions, second.counts.executions_complete) == (1, 1)
    pdt.assert_frame_equal(second.results, first.results)


def test_a_running_execution_is_fetched_every_time_and_never_stored(
    live_sandbox: RunningSandbox,
    history: tuple[list[Execution], dict[int, list[int]]],
    client_for: ClientFactory,
    fresh_store: HistoryStore,
) -> None:
    executions, scenarios = history
    running = next(e for e in executions if not execution_is_finished(e))
    assert "WAITING" in running.result_summary
    pairs = pairs_of(running, scenarios)
    client, wire = client_for(live_sandbox, lead_of(live_sandbox))

    outcomes = [fetch_results(client, pairs, finished=set(), store=fresh_store) for _ in range(2)]

    assert wire.sent["results"] == 2 * len(pairs)
    assert all(o.counts.stored == 0 and o.counts.executions_running == 1 for o in outcomes)
    assert len(outcomes[1].results) == len(running.test_results)
    assert "WAITING" in set(outcomes[1].results["level"])
    assert fresh_store.info().results == 0
    assert fresh_store.stored_pairs(pairs).empty


@pytest.mark.parametrize("frame_pairs", [1, 3, results_fanout.FRAME_PAIRS])
def test_results_kept_without_a_store_are_the_same_whatever_the_framing_batch(
    live_sandbox: RunningSandbox,
    history: tuple[list[Execution], dict[int, list[int]]],
    client_for: ClientFactory,
    monkeypatch: pytest.MonkeyPatch,
    frame_pairs: int,
) -> None:
    # Pairs that are not stored are framed several at a time (one frame per pair cost more
    # than the requests); the batch must not change a single cell, nor lose a pair.
    executions, scenarios = history
    chosen = [e for e in executions if len(e.test_results) > 1][:4]
    pairs = [pair for execution in chosen for pair in pairs_of(execution, scenarios)]
    assert len(pairs) > 3
    monkeypatch.setattr(results_fanout, "FRAME_PAIRS", frame_pairs)
    client, wire = client_for(live_sandbox, lead_of(live_sandbox))

    answer = fetch_results(client, pairs, finished=set(), store=None, max_concurrency=4)

    assert wire.sent["results"] == len(pairs)
    assert answer.counts.fetched == len(pairs)
    pdt.assert_frame_equal(answer.results, expected_frame(client, pairs))


def test_a_failed_pair_is_reported_typed_and_the_rest_are_stored(
    live_sandbox: RunningSandbox,
    history: tuple[list[Execution], dict[int, list[int]]],
    client_for: ClientFactory,
    fresh_store: HistoryStore,
) -> None:
    executions, scenarios = history
    finished = [e for e in executions if execution_is_finished(e)][:3]
    pairs = [p for e in finished for p in pairs_of(e, scenarios)]
    broken = (finished[0].id, 987_654)  # no such scenario: 404 TEST_SCENARIO_NOT_FOUND
    client, wire = client_for(live_sandbox, lead_of(live_sandbox))

    outcome = fetch_results(
        client, [*pairs, broken], finished={e.id for e in finished}, store=fresh_store
    )

    assert len(outcome.failures) == 1
    failure = outcome.failures[0]
    assert (failure.execution_id, failure.scenario_id) == broken
    assert isinstance(failure.error, ScenarioNotFoundError)
    assert failure.error.status_code == 404
    assert (outcome.counts.stored, outcome.counts.failed) == (len(pairs), 1)
    assert (outcome.counts.executions_complete, outcome.counts.executions_incomplete) == (2, 1)
    assert fresh_store.info().fetched_pairs == len(pairs)

    # A failure survives a cache that pickles (st.cache_data), typed as it was.
    copy = pickle.loads(pickle.dumps(outcome))  # noqa: S301 - our own bytes
    assert isinstance(copy, FanOut)
    assert isinstance(copy.failures[0].error, ScenarioNotFoundError)
    assert copy.failures[0].error.code == "TEST_SCENARIO_NOT_FOUND"
    pdt.assert_frame_equal(copy.results, outcome.results)

    # Only the failed pair is asked again.
    before = wire.sent["results"]
    fetch_results(client, [*pairs, broken], finished={e.id for e in finished}, store=fresh_store)
    assert wire.sent["results"] - before == 1


def test_a_token_without_the_authority_stops_at_once(
    live_sandbox: RunningSandbox,
    history: tuple[list[Execution], dict[int, list[int]]],
    client_for: ClientFactory,
    fresh_store: HistoryStore,
) -> None:
    executions, scenarios = history
    finished = [e for e in executions if execution_is_finished(e)][:30]
    pairs = [p for e in finished for p in pairs_of(e, scenarios)]
    client, wire = client_for(live_sandbox, lacking(live_sandbox, Authority.TEST_RESULT_VIEW))

    with pytest.raises(PermissionDeniedError) as raised:
        fetch_results(
            client, pairs, finished={e.id for e in finished}, store=fresh_store, max_concurrency=4
        )

    assert raised.value.missing_authority == "TEST_RESULT_VIEW"
    assert len(pairs) > 100
    assert wire.sent["results"] <= 4 * 2 + 4, "stopped, rather than one refusal per pair"
    assert fresh_store.info().fetched_pairs == 0


def test_progress_is_reported_in_the_callers_thread(
    live_sandbox: RunningSandbox,
    history: tuple[list[Execution], dict[int, list[int]]],
    client_for: ClientFactory,
) -> None:
    executions, scenarios = history
    finished = [e for e in executions if execution_is_finished(e)][:5]
    pairs = [p for e in finished for p in pairs_of(e, scenarios)]
    client, _ = client_for(live_sandbox, lead_of(live_sandbox))
    calls: list[tuple[int, int, int]] = []

    outcome = fetch_results(
        client,
        pairs,
        finished={e.id for e in finished},
        on_progress=lambda done, total: calls.append((done, total, threading.get_ident())),
    )

    assert {thread for _, _, thread in calls} == {threading.get_ident()}
    assert [done for done, _, _ in calls] == list(range(len(pairs) + 1))
    assert {total for _, total, _ in calls} == {len(pairs)}
    # Without a store everything is fetched and returned, nothing kept.
    assert (outcome.counts.fetched, outcome.counts.stored) == (len(pairs), 0)
    assert sorted(outcome.results["result_id"]) == sorted(
        r for e in finished for r in e.test_results
    )


def test_bad_arguments_are_refused_before_any_request(
    live_sandbox: RunningSandbox, client_for: ClientFactory
) -> None:
    client, wire = client_for(live_sandbox, lead_of(live_sandbox))
    with pytest.raises(ValueError, match="max_concurrency"):
        fetch_results(client, [(1, 1)], finished=set(), max_concurrency=0)
    empty = fetch_results(client, [], finished=set())
    assert empty.results.empty
    assert empty.counts.pairs == 0
    assert wire.sent["results"] == 0


FAULTS = FaultSettings(
    seed=99,
    error_rate=0.08,
    error_statuses=(500, 502, 503),
    rate_limit_rate=0.03,
    retry_after_seconds=0,
    slow_rate=0.02,
    slow_seconds=20.0,  # five times the client's timeout below: load cannot blur the two
    drop_rate=0.03,
    truncated_rate=0.03,
    malformed_record_rate=0.03,
)


@pytest.fixture(scope="module")
def faulty_sandbox(live_sandbox: RunningSandbox) -> Iterator[RunningSandbox]:
    # Log links carry the serving origin; the faulty sandbox names the healthy one's, so the
    # results of the two compare record for record.
    origin = httpx.URL(live_sandbox.base_url)
    settings = dataclasses.replace(
        live_sandbox.settings,
        faults=FAULTS,
        public_base_url=f"{origin.scheme}://{origin.netloc.decode()}",
    )
    with serve_in_thread(settings) as running:
        yield running


def test_through_faults_every_pair_is_stored_exactly_once(
    live_sandbox: RunningSandbox,
    faulty_sandbox: RunningSandbox,
    history: tuple[list[Execution], dict[int, list[int]]],
    client_for: ClientFactory,
    fresh_store: HistoryStore,
) -> None:
    executions, scenarios = history
    finished = [e for e in executions if execution_is_finished(e)][:60]
    pairs = [p for e in finished for p in pairs_of(e, scenarios)]
    done = {e.id for e in finished}
    shaky, wire = client_for(
        faulty_sandbox, lead_of(faulty_sandbox), timeout=4.0, retry_policy=QUICK_RETRIES
    )

    runs = []
    for _ in range(6):  # a pair with a malformed record is left for the next run
        runs.append(fetch_results(shaky, pairs, finished=done, store=fresh_store))
        if not runs[-1].skipped and not runs[-1].failures:
            break

    assert runs[0].skipped, "malformed answers were met and not stored"
    assert not runs[-1].skipped
    assert not runs[-1].failures
    assert sum(r.counts.stored for r in runs) == len(pairs), "each pair stored exactly once"
    assert wire.sent["results"] > len(pairs), "faults were met and retried"
    healthy, _ = client_for(live_sandbox, lead_of(live_sandbox))
    stored = fresh_store.results_of_pairs(pairs)
    pdt.assert_frame_equal(stored, expected_frame(healthy, pairs))
    assert stored["result_id"].is_unique
    assert sorted(map(tuple, fresh_store.stored_pairs(pairs).to_numpy().tolist())) == sorted(pairs)
