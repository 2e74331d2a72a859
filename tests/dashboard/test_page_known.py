"""Marking from the pages, on the hand-built history (tests/dashboard/history_service.py): the
"Mark as known…" form on /flaky's failure groups turns their failures (and the flaky runs they
explain) from unresolved into known; a bad ticket is refused in a sentence with the form and
the page kept; the Known failures page lists the mark with its evidence and log and closes it;
a busy store shows the marks as last read, read-only, with one notice.

Each test keeps its stores in a folder of its own, so no mark outlives it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.analytics.failure_groups import normalise_message
from tests.dashboard import history_service as hand
from tests.dashboard.apptest import (
    FLAKY,
    assert_no_failure,
    captions,
    notes,
    plain_notes,
    table_with,
)
from tests.dashboard.conftest import AppFactory
from tests.store.holder import holding

KNOWN = "app_pages/known.py"
TICKET = "https://jira.example.com/browse/SHOP-123"
TIMEOUT = normalise_message(hand.TIMEOUT_TEMPLATE.format(n=1200, hex="a1b2c3f0"))


@pytest.fixture
def own_stores(app: AppFactory, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A store folder of this test's own (after `app`, which names the session's)."""
    folder = tmp_path / "stores"
    monkeypatch.setenv("QA_DASHBOARD_CACHE_DIR", str(folder))
    return folder


def groups(at: AppTest) -> Any:
    return table_with(at, "Message", "Failures").set_index("Message")


def mark_timeout_group(at: AppTest, *, ticket: str = TICKET, name: str = "Ann") -> None:
    what = at.selectbox(key="mark.groups.what")
    what.set_value(next(i for i, label in enumerate(what.options) if "TimeoutException" in label))
    at.text_input(key="mark.groups.ticket").input(ticket)
    at.text_input(key="mark.groups.owner").input("<b>QA</b> =1+1")
    at.text_input(key="mark.groups.name").input(name)
    at.button(key="FormSubmitter:mark.groups-Save mark").click().run()


def test_a_failure_group_marked_on_flaky_turns_its_failures_known(
    app: AppFactory, hand_built: hand.HistoryService, own_stores: Path
) -> None:
    at = app(FLAKY, tz="UTC")
    at.run()
    assert_no_failure(at)
    before = groups(at)
    assert before.loc[TIMEOUT, ["Failures", "Unresolved", "Known"]].tolist() == [27, 27, 0]
    flaky = table_with(at, "Evidence", "Timeline")
    whole = flaky[flaky["Environment"] == "all environments"].iloc[0]
    assert (whole["Unresolved"], whole["Known"]) == (5, 0)

    mark_timeout_group(at)

    assert_no_failure(at)
    after = groups(at)
    assert after.loc[TIMEOUT, ["Failures", "Unresolved", "Known", "Mark"]].tolist() == [
        27,
        0,
        27,
        "SHOP-123",
    ]
    assert after.iloc[1][["Known", "Mark"]].tolist() == [0, ""]  # the other group
    flaky = table_with(at, "Evidence", "Timeline")
    whole = flaky[flaky["Environment"] == "all environments"].iloc[0]
    # Scenario 31's five failed runs all failed with the timeout: all known; the score stays.
    assert (whole["Unresolved"], whole["Known"], whole["Mark"]) == (0, 5, "SHOP-123")
    assert whole["Evidence"] == "7 flips in 12 runs"
    assert "Marked Failures" in plain_notes(at, "info")
    assert "nothing on the service" in plain_notes(at, "info")
    assert "27 of the 45 failures are known (marked), 18 unresolved." in captions(at)


def test_a_bad_ticket_is_refused_in_a_sentence_and_nothing_else_is_lost(
    app: AppFactory, hand_built: hand.HistoryService, own_stores: Path
) -> None:
    at = app(FLAKY, tz="UTC", window="12")
    at.run()
    shown_before = table_with(at, "Evidence", "Timeline").to_dict()

    mark_timeout_group(at, ticket="javascript:alert(document.cookie)")

    assert_no_failure(at)
    assert "The ticket must be a web link starting with http:// or https://" in notes(at)
    assert groups(at).loc[TIMEOUT, "Known"] == 0
    assert table_with(at, "Evidence", "Timeline").to_dict() == shown_before
    assert at.text_input(key="mark.groups.ticket").value == "javascript:alert(document.cookie)"
    assert at.query_params["window"] == "12"
    # Nothing reached the store.
    at.switch_page(KNOWN).run()
    assert table_with(at, "Mark", "State").empty


def test_the_known_failures_page_lists_closes_and_keeps_the_mark(
    app: AppFactory, hand_built: hand.HistoryService, own_stores: Path
) -> None:
    at = app(FLAKY, tz="UTC")
    at.run()
    mark_timeout_group(at)

    at.switch_page(KNOWN)
    at.query_params.update(tz="UTC")
    at.run()
    assert_no_failure(at)
    marks = table_with(at, "Mark", "State")
    assert len(marks) == 1
    row = marks.iloc[0]
    assert row["State"] == "Open"
    assert row["Kind"] == "Known issue"
    assert row["Ticket"] == TICKET
    assert row["Owner"] == "<b>QA</b> =1+1"  # text, as typed
    assert row["By"] == "Ann"
    assert row["Target"].startswith('failures "TimeoutException')
    # Scenario 34 fails with the timeout in the newest executions: not fixed.
    assert row["Evidence"].startswith("failed in ")
    logs = [f.value for f in at.dataframe if "What" in f.value.columns]
    assert logs[0]["What"].iloc[0].startswith("known issue: failure group")

    close = next(b for b in at.button if b.label == "Close")
    close.click().run()

    assert_no_failure(at)
    assert table_with(at, "Mark", "State").empty  # the default filter lists open marks
    at.query_params["marks"] = "closed"
    at.run()
    closed = table_with(at, "Mark", "State").iloc[0]
    assert closed["State"] == "Closed"
    assert closed["Closed by"] == "Ann"  # the name typed once in this session
    at.switch_page(FLAKY).run()
    assert groups(at).loc[TIMEOUT, ["Unresolved", "Known"]].tolist() == [27, 0]


def test_a_busy_store_shows_the_marks_as_last_read_with_one_notice(
    app: AppFactory, hand_built: hand.HistoryService, own_stores: Path
) -> None:
    at = app(FLAKY, tz="UTC")
    at.run()
    mark_timeout_group(at)
    (store,) = own_stores.glob("*.duckdb")

    with holding(store):  # once the page's store has let go of the file (idle)
        # Refresh reads the marks again: the store is busy now.
        next(b for b in at.button if b.label == "Refresh data").click().run()
        assert_no_failure(at)
        said = plain_notes(at, "info")
        assert said.count("marks are shown as last read") == 1
        assert groups(at).loc[TIMEOUT, "Known"] == 27
        popover = at.get("popover")[0]
        assert popover.proto.popover.disabled
