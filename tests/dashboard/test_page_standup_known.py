"""The standup with marks, on the hand-built standup history (tests/dashboard/standup_history.py):
marking the cell that turned Login smoke red as known takes the plan out of Turned red and the
cell out of Newly failing, and puts one line with its ticket under the known block, in the
items' CSV and in the chat digest; closing the mark brings everything back.

Each test keeps its stores in a folder of its own, so no mark outlives it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from tests.dashboard import outage_history
from tests.dashboard import standup_history as history
from tests.dashboard.apptest import STANDUP, assert_no_failure, everything_shown, notes
from tests.dashboard.conftest import AppFactory
from tests.dashboard.test_page_known import sign_in
from tests.dashboard.test_page_standup import items, section

KNOWN = "app_pages/known.py"
TICKET = "https://jira.example.com/browse/SHOP-123"
LOGIN = history.PLANS[history.TURNED_RED]
SEARCH = history.PLANS[history.STILL_FAILING]


@pytest.fixture
def standup(app: AppFactory, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[AppTest]:
    """The standup of 3-4 March on the hand-built history, with a store folder of its own."""
    monkeypatch.setenv("QA_DASHBOARD_CACHE_DIR", str(tmp_path / "stores"))
    with history.serve_history() as service:
        monkeypatch.setenv("QA_DASHBOARD_BASE_URL", service.base_url)
        monkeypatch.setenv("QA_DASHBOARD_TOKEN", "hand-built-history-token")
        monkeypatch.setenv("QA_DASHBOARD_COMPANY_ID", "7")
        # A team's dashboard (its connection is configured): only a signed-in viewer marks.
        yield sign_in(
            app(
                STANDUP,
                range="custom",
                **{"from": history.WINDOW_FROM, "to": history.WINDOW_TO},
                tz="UTC",
            )
        )


def mark(at: AppTest, what: str, *, ticket: str = TICKET) -> None:
    """Mark the standup's choice whose label starts with `what`."""
    choice = at.selectbox(key="mark.standup.what")
    choice.set_value(next(i for i, label in enumerate(choice.options) if label.startswith(what)))
    at.text_input(key="mark.standup.ticket").input(ticket)
    at.button(key="FormSubmitter:mark.standup-Save mark").click().run()


def chat(at: AppTest) -> str:
    return str(at.code[0].value)


FOLDS = {"expander", "popover", "status", "tab"}


def in_view(at: AppTest) -> list[str]:
    """Each line of plain text (`st.text`) on the page that is read without opening anything:
    none inside an expander, a popover, a status or a tab."""
    lines: list[str] = []

    def walk(node: Any, folded: bool) -> None:
        kind = getattr(node, "type", "")
        folded = folded or kind in FOLDS
        if kind == "text" and not folded:
            lines.extend(str(node.value).splitlines())
        for child in getattr(node, "children", {}).values():
            walk(child, folded)

    walk(at.main, False)
    return lines


def test_a_marked_cell_leaves_turned_red_and_newly_failing_as_one_known_line(
    standup: AppTest,
) -> None:
    at = standup
    at.run()
    assert_no_failure(at)
    assert section(at, "Turned red")["Plan"].tolist() == [LOGIN]
    assert section(at, "Newly failing scenarios")["Plan"].tolist() == [LOGIN]
    assert section(at, "Known").empty
    assert "Known failures and outages: none" in in_view(at)

    mark(at, f"Scenario 1 of {LOGIN} on ")

    assert_no_failure(at)
    assert section(at, "Turned red").empty
    assert section(at, "Newly failing scenarios").empty
    # Search regression's failure is not covered: it stays where it was.
    assert section(at, "Still failing")["Plan"].tolist() == [SEARCH]
    known = section(at, "Known")
    assert known[["Details", "Link"]].to_dict("list") == {
        "Details": [f"{LOGIN}: 1 scenario known \u2014 SHOP-123"],
        "Link": [TICKET],
    }
    assert "Known: 1 mark, 1 scenario" in in_view(at)
    assert f"Known: {LOGIN}: 1 scenario known \u2014 SHOP-123" in in_view(at)
    assert f"Known: {LOGIN}: 1 scenario known \u2014 SHOP-123" in everything_shown(at)
    assert "Marked Scenario 1 of Login smoke on" in everything_shown(at)
    digest = chat(at)
    assert "**Known**" in digest
    assert f"- [{LOGIN}: 1 scenario known \u2014 SHOP-123]({TICKET})" in digest
    assert "**Turned red**\n- _Nothing turned red_" in digest


def test_a_mark_for_the_whole_scenario_takes_a_still_failing_plan_out(standup: AppTest) -> None:
    at = standup
    at.run()

    mark(at, f"Scenario 2 of {SEARCH}", ticket="https://tracker.example.com/issues/77")

    assert_no_failure(at)
    assert section(at, "Still failing").empty
    assert section(at, "Turned red")["Plan"].tolist() == [LOGIN]  # not covered
    assert section(at, "Known")["Details"].tolist() == [f"{SEARCH}: 1 scenario known \u2014 77"]


def test_a_bad_ticket_is_refused_and_the_sections_are_kept(standup: AppTest) -> None:
    at = standup
    at.run()
    before = items(at).to_dict()

    mark(at, f"Scenario 1 of {LOGIN} on ", ticket="data:text/html,<script>alert(1)</script>")

    assert_no_failure(at)
    assert "The ticket must be a web link starting with http:// or https://" in notes(at)
    assert items(at).to_dict() == before
    assert at.text_input(key="mark.standup.ticket").value.startswith("data:")


def test_closing_the_mark_brings_the_plan_back(standup: AppTest) -> None:
    at = standup
    at.run()
    mark(at, f"Scenario 1 of {LOGIN} on ")
    assert section(at, "Turned red").empty

    at.switch_page(KNOWN)
    at.query_params.update(tz="UTC")
    at.run()
    next(b for b in at.button if b.label == "Close").click().run()
    assert_no_failure(at)
    at.switch_page(STANDUP)
    at.query_params.update(
        range="custom", tz="UTC", **{"from": history.WINDOW_FROM, "to": history.WINDOW_TO}
    )
    at.run()

    assert_no_failure(at)
    assert section(at, "Turned red")["Plan"].tolist() == [LOGIN]
    assert section(at, "Newly failing scenarios")["Plan"].tolist() == [LOGIN]
    assert section(at, "Known").empty


def test_a_likely_outage_is_one_line_named_with_its_dominant_failure_message(
    app: AppFactory, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """On the hand-built history with the grid down in execution 1011 (three hours ago, inside
    the standup's window): the outage is one line in view, named with the message all 15 of its
    failures share (read from the verdicts of its results), and the same line is in the chat
    digest."""
    with outage_history.serve_outage_history() as service:
        monkeypatch.setenv("QA_DASHBOARD_CACHE_DIR", str(tmp_path / "stores"))
        monkeypatch.setenv("QA_DASHBOARD_BASE_URL", service.base_url)
        monkeypatch.setenv("QA_DASHBOARD_TOKEN", "hand-built-history-token")
        monkeypatch.setenv("QA_DASHBOARD_COMPANY_ID", "7")
        at = app(STANDUP, tz="UTC")
        at.run()
        assert_no_failure(at)
        night = outage_history.outage_execution(outage_history.LATE)
        lines = [line for line in in_view(at) if "likely outage" in line]
        assert len(lines) == 1, in_view(at)
        assert f"execution {night}" in lines[0]
        assert "15 of 15 results failed, most with" in lines[0]
        assert "UnreachableBrowserException: no node of the grid answered" in lines[0]
        said = [line for line in chat(at).splitlines() if "likely outage" in line]
        assert len(said) == 1
        assert "most with" in said[0]
