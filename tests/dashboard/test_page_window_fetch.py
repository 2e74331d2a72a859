"""A long window's first visit with nothing stored (#27): the results the history store lacks are
fetched once, kept, and said; a second visit, or another page whose window overlaps, asks for
none of them again. Requests are counted on the wire by a proxy in front of the hand-built
history (tests/dashboard/history_service.py): 12 finished executions of plan 7 (5 scenarios
each), 2 of plan 8 (1 scenario each) and one running execution, which no window holds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest

from tests.counting_proxy import CountingProxy, counting_proxy
from tests.dashboard import history_service as hand
from tests.dashboard.apptest import (
    ENVIRONMENTS,
    FLAKY,
    SCENARIO,
    TIME_TO_GREEN,
    assert_no_failure,
    captions,
    table_with,
)
from tests.dashboard.conftest import AppFactory

FINISHED_PAIRS = hand.FINISHED * len(hand.SCENARIOS) + len(hand.OTHER_EXECUTIONS)  # 62
FETCHED = (
    f"Fetched the results of {hand.FINISHED + len(hand.OTHER_EXECUTIONS)} executions from the "
    f"service ({FINISHED_PAIRS} requests, "
)
KEPT = "and kept them in the history store: they are not asked for again."


@pytest.fixture
def proxied(
    app: AppFactory, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[CountingProxy]:
    """The hand-built history behind a counting proxy, the dashboard pointed at the proxy with
    an empty store folder of its own."""
    with hand.serve_history() as service, counting_proxy(service.base_url) as proxy:
        monkeypatch.setenv("QA_DASHBOARD_BASE_URL", proxy.base_url)
        monkeypatch.setenv("QA_DASHBOARD_TOKEN", "hand-built-history-token")
        monkeypatch.setenv("QA_DASHBOARD_COMPANY_ID", "7")
        monkeypatch.setenv("QA_DASHBOARD_CACHE_DIR", str(tmp_path_factory.mktemp("stores")))
        yield proxy


def results_asked(proxy: CountingProxy) -> Counter[str]:
    return Counter(path.split("?")[0] for path in proxy.paths if "/api/results/" in path)


def test_the_first_visit_fetches_each_missing_result_once_and_says_so(
    app: AppFactory, proxied: CountingProxy
) -> None:
    at = app(FLAKY, tz="UTC")
    at.run()

    assert_no_failure(at)
    asked = results_asked(proxied)
    assert sum(asked.values()) == FINISHED_PAIRS
    assert set(asked.values()) == {1}  # every pair once
    shown = captions(at)
    assert FETCHED in shown
    assert KEPT in shown
    assert "results of 14 of 14 executions" in shown


def test_a_second_visit_and_an_overlapping_window_ask_for_nothing_again(
    app: AppFactory, proxied: CountingProxy
) -> None:
    first = app(FLAKY, tz="UTC")
    first.run()
    assert sum(results_asked(proxied).values()) == FINISHED_PAIRS

    # A restart forgets every cached frame (`app` clears them); the store keeps the results.
    visits = [
        app(FLAKY, tz="UTC"),
        app(ENVIRONMENTS, tz="UTC", plan=str(hand.PLAN_ID), window="8"),
        app(SCENARIO, tz="UTC", plan=str(hand.PLAN_ID), scenario=str(hand.FLAKY)),
    ]
    for at in visits:
        at.run()
        assert_no_failure(at)
        assert FETCHED not in captions(at)

    assert sum(results_asked(proxied).values()) == FINISHED_PAIRS
    assert "results of 8 of 8 executions" in captions(visits[1])
    assert len(table_with(visits[2], "Execution")) == hand.FINISHED * 3  # 3 environments a run


def test_a_rerun_of_a_fetched_window_says_nothing_more_and_asks_nothing(
    app: AppFactory, proxied: CountingProxy
) -> None:
    at = app(ENVIRONMENTS, tz="UTC", plan=str(hand.PLAN_ID))
    at.run()
    plan_pairs = hand.FINISHED * len(hand.SCENARIOS)  # plan 7's window only
    assert (
        f"Fetched the results of {hand.FINISHED} executions from the service ({plan_pairs} "
        "requests, " in captions(at)
    )

    at.query_params["window"] = "6"  # a narrower window: all of it stored already
    at.run()

    assert_no_failure(at)
    assert "Fetched the results" not in captions(at)
    assert sum(results_asked(proxied).values()) == plan_pairs


def test_time_to_green_fetches_the_failing_executions_into_the_store_once_and_says_so(
    app: AppFactory, proxied: CountingProxy
) -> None:
    """Its failure ages read every failing execution of 90 days: on a first visit that is the
    longest fetch of any page, so it goes through the store as the windows do."""
    at = app(TIME_TO_GREEN, tz="UTC")
    at.run()

    assert_no_failure(at)
    plan_pairs = hand.FINISHED * len(hand.SCENARIOS)  # every run of plan 7 fails on Safari
    asked = results_asked(proxied)
    assert sum(asked.values()) == plan_pairs
    assert set(asked.values()) == {1}
    shown = captions(at)
    assert (
        f"Fetched the results of {hand.FINISHED} executions from the service ({plan_pairs} "
        "requests, " in shown
    )
    assert KEPT in shown

    again = app(TIME_TO_GREEN, tz="UTC")  # a restart: the store keeps the results
    again.run()

    assert_no_failure(again)
    assert "Fetched the results" not in captions(again)
    assert sum(results_asked(proxied).values()) == plan_pairs
