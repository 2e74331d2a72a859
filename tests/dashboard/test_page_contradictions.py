"""Data that contradicts itself is flagged on the page (how many, which records), and the rest of
the page is shown as usual. Against a small service on loopback that sends such data."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest

from tests.dashboard.apptest import EXECUTIONS, RESULTS, assert_no_failure, metrics, plain_notes
from tests.dashboard.conftest import AppFactory
from tests.dashboard.named_service import EXECUTION_ID, PLAN_ID, Names, serve_names

CONTRADICTS = "the service's data contradicts itself"


@pytest.fixture
def serve(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    running: list[Any] = []

    def start(names: Names) -> None:
        context = serve_names(names)
        service = context.__enter__()
        running.append(context)
        monkeypatch.setenv("QA_DASHBOARD_BASE_URL", service.base_url)
        monkeypatch.setenv("QA_DASHBOARD_TOKEN", "sbx-contradicting-service")
        monkeypatch.setenv("QA_DASHBOARD_COMPANY_ID", "7")

    yield start
    for context in running:
        context.__exit__(None, None, None)


def results_page(app: AppFactory) -> Any:
    at = app(RESULTS, plan=str(PLAN_ID), execution=str(EXECUTION_ID), range="30d")
    at.run()
    assert_no_failure(at)
    return at


def test_consistent_data_is_not_flagged(app: AppFactory, serve: Any) -> None:
    serve(Names())

    for at in (results_page(app), app(EXECUTIONS, range="30d").run()):
        assert CONTRADICTS not in plain_notes(at)
        assert "disagrees" not in plain_notes(at)


def test_a_summary_its_results_deny_is_flagged_and_both_are_shown(
    app: AppFactory, serve: Any
) -> None:
    # "Results 1, pass rate 100 %" while the service returns two results, one a failure.
    serve(Names(summary=(("SUCCESS", 1),)))

    at = results_page(app)

    note = plain_notes(at)
    assert (
        "The service's summary of this execution disagrees with the results it returned: the "
        "summary counts 1 result (SUCCESS 1), the service returned 2 (SUCCESS 1, FAILURE 1)."
    ) in note
    assert metrics(at)["Results"] == "1"  # the tiles still say what the summary says
    assert len(at.dataframe[0].value) == 2  # and the table every result


def test_a_negative_runtime_and_an_end_before_the_start_are_flagged_on_the_results_page(
    app: AppFactory, serve: Any
) -> None:
    serve(Names(runtime_ms=-90_000, ends_after=-timedelta(minutes=5), result_runtime=-7))

    at = results_page(app)

    note = plain_notes(at)
    assert f"1 execution has a negative runtime (#{EXECUTION_ID}), shown as unknown: " in note
    assert f"1 execution has an end before its start (#{EXECUTION_ID})" in note
    assert "2 scenarios have a negative runtime (#21, #22), shown as unknown" in note
    assert metrics(at)["Duration"] == "\u2013"
    table = at.dataframe[0].value
    assert list(table["Runtime"]) == ["\u2013", "\u2013"]
    assert len(table) == 2


def test_a_start_in_the_future_is_flagged_on_the_executions_page(
    app: AppFactory, serve: Any
) -> None:
    serve(Names(starts_in=timedelta(days=400), runtime_ms=-1))

    at = app(EXECUTIONS, range="30d")
    at.run()

    assert_no_failure(at)
    note = plain_notes(at)
    assert f"1 execution has a start date in the future (#{EXECUTION_ID})" in note
    assert f"1 execution has an end date in the future (#{EXECUTION_ID})" in note
    assert f"1 execution has a negative runtime (#{EXECUTION_ID}), shown as unknown" in note
    table = at.dataframe[0].value
    assert list(table["Id"]) == [EXECUTION_ID]  # the execution itself is still listed
    assert metrics(at)["Median duration"] == "\u2013"
