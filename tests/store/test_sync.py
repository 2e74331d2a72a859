"""A sync against the sandbox over real HTTP: what it stores is what the service serves."""

from __future__ import annotations

from api_client import ApiClient
from dashboard.data.store.records import execution_is_finished
from dashboard.data.sync import sync_history
from sandbox import RunningSandbox
from tests.store.conftest import ClientFactory, HistoryOpener, lead_of, secret_bytes


def test_a_sync_stores_the_finished_history_and_the_next_asks_for_no_results(
    live_sandbox: RunningSandbox, client_for: ClientFactory, open_history: HistoryOpener
) -> None:
    lead = lead_of(live_sandbox)
    with ApiClient(base_url=live_sandbox.base_url, token=lead.token, company_id=1) as oracle:
        executions = list(oracle.all_executions())
        plans = {p.id: p for p in oracle.plans(active=False)}
    finished = [e for e in executions if execution_is_finished(e)]
    stages: list[str] = []

    client, wire = client_for(live_sandbox, lead)
    with open_history() as store:
        report = sync_history(
            client,
            store,
            now=live_sandbox.settings.now,
            on_progress=lambda stage, done, total: stages.append(stage),
        )
        info = store.info()
        stored_ids = store.result_ids([e.id for e in finished])
        results = store.results([e.id for e in finished])
        stored_executions = store.executions()

    pairs = sum(len(plans[e.plan_id].scenarios) for e in finished if e.plan_id in plans)
    assert (report.executions, report.finished, report.running) == (
        len(executions),
        len(finished),
        2,
    )
    assert report.pairs_missing == pairs == wire.sent["results"]
    assert (report.results.stored, report.results.failed) == (pairs, 0)
    assert set(stages) == {"plans", "executions", "results"}
    assert (info.plans, info.executions, info.fetched_pairs) == (len(plans), len(finished), pairs)
    assert stored_executions["execution_id"].tolist() == [e.id for e in finished]  # newest first
    # Every finished execution's results are exactly the ids it lists.
    expected_ids = sorted(r for e in finished for r in e.test_results)
    assert sorted(stored_ids["result_id"]) == expected_ids
    assert sorted(results["result_id"]) == expected_ids
    assert info.results == len(expected_ids)
    assert info.last_sync is not None

    again, wire_again = client_for(live_sandbox, lead)
    with open_history() as store:
        second = sync_history(again, store, now=live_sandbox.settings.now)
        assert store.info().results == len(expected_ids)

    assert wire_again.sent["results"] == 0
    assert wire_again.sent["plans"] == 1
    assert wire_again.sent["executions"] >= 1
    assert second.pairs_missing == 0
    assert second.results.fetched == 0
    content = open_history.stored_bytes()
    assert all(secret not in content for secret in secret_bytes(live_sandbox))


def test_a_narrower_window_fetches_only_its_own_pairs(
    live_sandbox: RunningSandbox, client_for: ClientFactory, open_history: HistoryOpener
) -> None:
    client, wire = client_for(live_sandbox, lead_of(live_sandbox))
    with open_history() as store:
        narrow = sync_history(client, store, days=7, now=live_sandbox.settings.now)
        assert store.executions()["start"].min() >= narrow.date_from
        wide = sync_history(client, store, days=90, now=live_sandbox.settings.now)
        stored_pairs = store.info().fetched_pairs

    # The wide sync fetched only what the narrow one had not: together, each pair once.
    assert narrow.pairs_missing > 0
    assert wide.pairs_missing > narrow.pairs_missing
    assert narrow.pairs_missing + wide.pairs_missing == stored_pairs == wire.sent["results"]
