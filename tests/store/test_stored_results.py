"""The results page's data read from the store: what the service would have answered, exactly,
and no answer at all (None) unless every pair of the execution is stored."""

from __future__ import annotations

import pandas as pd

from api_client import ApiClient
from dashboard.data import live, stored_results
from dashboard.data.history_frames import execution_is_finished
from dashboard.data.sync import sync_history
from sandbox import RunningSandbox
from tests.store.conftest import ClientFactory, HistoryOpener, lead_of


def test_a_synced_execution_reads_as_the_service_serves_it_and_the_sync_says_who(
    live_sandbox: RunningSandbox, client_for: ClientFactory, open_history: HistoryOpener
) -> None:
    lead = lead_of(live_sandbox)
    with ApiClient(base_url=live_sandbox.base_url, token=lead.token, company_id=1) as oracle:
        plans = {p.id: p for p in oracle.plans(active=False)}
        finished = [
            e for e in oracle.all_executions() if execution_is_finished(e) and e.plan_id in plans
        ][:5]
        expected = {
            e.id: live.load_execution_results(
                oracle,
                execution_id=e.id,
                scenario_ids=plans[e.plan_id].scenarios,  # type: ignore[index]
            )
            for e in finished
        }
    client, _ = client_for(live_sandbox, lead)

    with open_history() as store:
        before = stored_results.execution_results(
            store,
            execution_id=finished[0].id,
            scenario_ids=plans[finished[0].plan_id].scenarios,  # type: ignore[index]
        )
        sync_history(client, store, now=live_sandbox.settings.now, synced_by="the test worker")
        read = {
            e.id: stored_results.execution_results(
                store,
                execution_id=e.id,
                scenario_ids=plans[e.plan_id].scenarios,  # type: ignore[index]
            )
            for e in finished
        }
        unknown_pair = stored_results.execution_results(
            store, execution_id=finished[0].id, scenario_ids=[*range(90_000, 90_002)]
        )
        meta = store.meta()

    assert before is None, "nothing stored yet: the page asks the service"
    assert unknown_pair is None, "a pair the store has not fetched: the page asks the service"
    for execution_id, want in expected.items():
        got = read[execution_id]
        assert got is not None
        assert got.scenarios == want.scenarios
        assert not got.failures
        pd.testing.assert_frame_equal(got.results, want.results)
    assert meta["last_sync_by"] == "the test worker"
    assert meta["last_sync"]
