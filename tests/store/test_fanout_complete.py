"""`fetch_results(complete=...)`: a finished execution's results are stored only once they are
whole, on both engines. A short answer (the service still writing them) is returned but not
kept as final, so the next fetch asks the service again (#35: the quality gate)."""

from __future__ import annotations

from api_client import Execution
from dashboard.data.results_fanout import fetch_results
from dashboard.data.store.records import execution_is_finished
from sandbox import RunningSandbox
from tests.store.conftest import ClientFactory, HistoryOpener, lead_of
from tests.store.test_fanout import history, pairs_of  # noqa: F401  (the module's fixture)


def test_an_execution_found_short_is_returned_but_not_stored_and_a_whole_one_is(
    live_sandbox: RunningSandbox,
    history: tuple[list[Execution], dict[int, list[int]]],  # noqa: F811
    client_for: ClientFactory,
    open_history: HistoryOpener,
) -> None:
    executions, scenarios = history
    execution = next(e for e in executions if execution_is_finished(e) and len(e.test_results) > 3)
    pairs = pairs_of(execution, scenarios)
    client, wire = client_for(live_sandbox, lead_of(live_sandbox))
    seen: list[int] = []

    def short(execution_id: int, results: object) -> bool:
        seen.append(execution_id)
        return False

    with open_history() as store:
        first = fetch_results(client, pairs, finished={execution.id}, store=store, complete=short)
        assert seen == [execution.id]
        assert first.counts.stored == 0
        assert len(first.results) > 0  # returned all the same
        assert store.stored_pairs(pairs).empty
        again = fetch_results(
            client, pairs, finished={execution.id}, store=store, complete=lambda e, r: True
        )
        assert again.counts.from_store == 0  # asked again, not read back
        assert again.counts.stored == len(pairs)
        assert len(store.stored_pairs(pairs)) == len(pairs)
    assert wire.sent["results"] == 2 * len(pairs)
