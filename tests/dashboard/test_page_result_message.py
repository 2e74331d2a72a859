"""The whole message of a result is one click away on the results page: select its row, and it is
shown below the table literally, in a code block with a copy button."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from dashboard.present import tables
from tests.dashboard.apptest import RESULTS, assert_no_failure, captions
from tests.dashboard.conftest import AppFactory
from tests.dashboard.named_service import EXECUTION_ID, PLAN_ID, SCENARIOS, Names, serve_names

# Long, several lines, with markdown, a URL and markup: shown exactly as sent, never rendered.
MESSAGE = (
    "AssertionError: expected **Pay now** to be visible\n"
    "  at checkout.spec.ts:42 — see https://evil.example/reset <b>now</b>\n"
    + "  | " * 300
    + "\nEnd of trace."
)


@pytest.fixture
def service(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    with serve_names(Names(message=MESSAGE)) as running:
        monkeypatch.setenv("QA_DASHBOARD_BASE_URL", running.base_url)
        monkeypatch.setenv("QA_DASHBOARD_TOKEN", "sbx-message-service")
        monkeypatch.setenv("QA_DASHBOARD_COMPANY_ID", "7")
        yield running


def test_the_selected_results_whole_message_is_shown_literally(
    app: AppFactory, service: Any
) -> None:
    at = app(RESULTS, plan=str(PLAN_ID), execution=str(EXECUTION_ID), range="30d")
    at.run()
    assert_no_failure(at)
    assert not at.code
    assert "Select a result in the table to read its whole message" in captions(at)
    table = at.dataframe[0].value

    at.session_state["results.table"] = {"selection": {"rows": [0], "columns": [], "cells": []}}
    at.run()

    assert_no_failure(at)
    (code,) = at.code
    assert code.value == MESSAGE
    assert code.language in (None, "", "plaintext")
    first = table.iloc[0]
    assert f"Scenario {first['Scenario']} \u00b7 {first['Level']}" in captions(at)
    assert int(first["Scenario"]) in SCENARIOS


def test_a_result_message_is_found_by_position_and_nothing_for_no_row() -> None:
    import pandas as pd

    display = pd.DataFrame(
        {
            "Scenario": [3, 4],
            "Level": ["FAILURE", "SUCCESS"],
            "Message": ["boom\nline 2", None],
            "OS": ["Linux", None],
            "Browser": ["CHROME", None],
            "Version": ["134", None],
        }
    )

    first = tables.result_message(display, 0)
    assert first == tables.ResultMessage(
        "Scenario 3 \u00b7 FAILURE \u00b7 Linux \u00b7 CHROME \u00b7 134", "boom\nline 2"
    )
    assert tables.result_message(display, 1) == tables.ResultMessage(
        "Scenario 4 \u00b7 SUCCESS", ""
    )
    assert tables.result_message(display, None) is None
    assert tables.result_message(display, 5) is None


def test_a_result_message_carries_its_web_log_links_for_the_keyboard() -> None:
    """The detail under the results table offers the result's logs as real links (the table's
    link cells cannot be followed with the keyboard); a missing log is not offered."""
    import pandas as pd

    display = pd.DataFrame(
        {
            "Scenario": [3],
            "Level": ["FAILURE"],
            "Message": ["boom"],
            "OS": ["Linux"],
            "Browser": ["CHROME"],
            "Version": ["134"],
            "Node log": ["https://logs.example/3/node.log"],
            "Executor log": [None],
        }
    )

    detail = tables.result_message(display, 0)

    assert detail is not None
    assert detail.logs == (("Node log", "https://logs.example/3/node.log"),)
