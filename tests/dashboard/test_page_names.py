"""Names from the service are text, everywhere: never markdown (so never a link), and nothing in
them reorders or hides what is shown. Against a small service on loopback that sends such names.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from typing import Any

import pytest

from dashboard.present.formatting import INVISIBLE_MARKER, WORD_JOINER
from tests.dashboard import standup_history
from tests.dashboard.apptest import (
    EXECUTIONS,
    HEALTH,
    PLANS,
    RESULTS,
    STANDUP,
    assert_no_failure,
    everything_shown,
)
from tests.dashboard.conftest import AppFactory
from tests.dashboard.named_service import EXECUTION_ID, PLAN_ID, NamedService, Names, serve_names

LINKS = Names(
    plan="https://evil.example/login",
    project="www.evil-shop.example",
    user="phish@evil.example",
    message="Reset at https://evil.example/reset",
    statuses=("SUCCESS", "https://evil.example/s"),
)
# "evil<RLO>exe.txt" reads "eviltxt.exe"; a zero-width space hides inside "admin".
REORDERING = Names(
    plan="evil\u202eexe.txt",
    project="Shop\u2066\u2069\u200f",
    user="ad\u200bmin\ufeff",
    message="see \u202dlog\u202c",
    statuses=("SUCCESS", "FAIL\u200dURE"),
)
INVISIBLE = "\u202e\u2066\u2069\u200f\u200b\ufeff\u202d\u202c\u200d"

# Elements that show their text as text: plain text, grids, widget options, plotly (escaped).
PLAIN_TYPES = {"text", "dataframe", "selectbox", "plotly_chart"}
VIEWS = {
    "plans": (PLANS, {"active": "false", "project": "2"}),
    "executions": (EXECUTIONS, {"plan": str(PLAN_ID), "range": "30d"}),
    "results": (RESULTS, {"plan": str(PLAN_ID), "execution": str(EXECUTION_ID)}),
}


@pytest.fixture
def named(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Serve the given names and point the dashboard at them, as an operator would."""
    running: list[Any] = []

    def serve(names: Names) -> NamedService:
        context = serve_names(names)
        service = context.__enter__()
        running.append(context)
        monkeypatch.setenv("QA_DASHBOARD_BASE_URL", service.base_url)
        monkeypatch.setenv("QA_DASHBOARD_TOKEN", "sbx-named-service-token")
        monkeypatch.setenv("QA_DASHBOARD_COMPANY_ID", "7")
        return service

    yield serve
    for context in running:
        context.__exit__(None, None, None)


def elements_holding(at: Any, needle: str) -> list[tuple[str, str]]:
    """(element type, what it sends) of every element whose message holds `needle`."""
    found: list[tuple[str, str]] = []

    def walk(node: Any) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None and needle in str(proto) and not getattr(node, "children", None):
            found.append((str(getattr(node, "type", "?")), str(proto)[:300]))
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at.main)
    walk(at.sidebar)
    return found


@pytest.mark.parametrize("view", list(VIEWS))
def test_a_url_in_a_name_is_plain_text_never_markdown(
    app: AppFactory, named: Any, view: str
) -> None:
    named(LINKS)
    page, query = VIEWS[view]
    at = app(page, **query)

    at.run()

    assert_no_failure(at)
    holding = elements_holding(at, "evil")
    assert holding, "the page shows none of the service's names"
    assert {kind for kind, _ in holding} <= PLAIN_TYPES, holding
    shown_as_text = "\n".join(str(t.value) for t in at.main.text)
    if view == "results":
        assert (
            "Plan: https://evil.example/login · Project: www.evil-shop.example · "
            "Started by: phish@evil.example · Ran: "
        ) in shown_as_text
        assert "Summary: SUCCESS 1, https://evil.example/s 1" in shown_as_text
    elif view == "executions":
        assert "1 execution of plan https://evil.example/login, " in shown_as_text
    else:
        assert "in project www.evil-shop.example" in shown_as_text
    # Plotly renders <a href> in labels: every name reaches a chart HTML-escaped.
    for kind, sent in holding:
        if kind == "plotly_chart":
            assert "<a" not in sent


@pytest.mark.parametrize("view", list(VIEWS))
def test_bidi_controls_and_zero_width_characters_are_shown_as_a_marker(
    app: AppFactory, named: Any, view: str
) -> None:
    named(REORDERING)
    page, query = VIEWS[view]
    at = app(page, **query)

    at.run()

    assert_no_failure(at)
    shown = everything_shown(at)
    for character in INVISIBLE:
        assert character not in shown, f"U+{ord(character):04X} reached the page"
    assert INVISIBLE_MARKER in shown
    if view == "results":
        header = "\n".join(str(t.value) for t in at.main.text)
        assert f"Plan: evil{INVISIBLE_MARKER}exe.txt" in header
        assert f"Started by: ad{INVISIBLE_MARKER}min{INVISIBLE_MARKER}" in header
        table = at.dataframe[0].value
        assert set(table["Message"]) == {f"see {INVISIBLE_MARKER}log{INVISIBLE_MARKER}"}
    if view == "executions":
        table = at.dataframe[0].value
        assert f"FAIL{INVISIBLE_MARKER}URE" in table.columns
        assert set(table["Plan"]) == {f"evil{INVISIBLE_MARKER}exe.txt"}


def test_plan_health_shows_names_as_text(app: AppFactory, named: Any) -> None:
    named(dataclasses.replace(REORDERING, project=LINKS.project, plan=LINKS.plan))
    at = app(HEALTH, tz="UTC")

    at.run()

    assert_no_failure(at)
    holding = elements_holding(at, "evil")
    assert holding, "the page shows none of the service's names"
    assert {kind for kind, _ in holding} <= PLAIN_TYPES, holding
    assert set(at.dataframe[0].value["Plan"]) == {LINKS.plan}
    shown = everything_shown(at)
    assert not [c for c in INVISIBLE if c in shown]


# Plans of the hand-built standup history named to mention a channel, link elsewhere or reorder
# the line: one in each section of the standup page and of its chat digest (all but the slower
# plan's whatever the window: the slower rule needs three of its runs inside it).
CHAT_HOSTILE = {
    standup_history.TURNED_RED: "@channel https://evil.example/login",
    standup_history.FIXED: "www.evil.example \u202eexe.txt",
    standup_history.STILL_FAILING: "<!here> phish@evil.example",
    standup_history.SLOWER: "@everyone",
    standup_history.STEADY: "@all evil.example/reset",  # running: named whatever the window
}


def test_standup_and_its_chat_digest_show_names_as_text_mentioning_nobody(
    app: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    with standup_history.serve_history(names=CHAT_HOSTILE) as service:
        for name, value in standup_history.dashboard_env(service).items():
            monkeypatch.setenv(name, value)
        at = app(STANDUP, **standup_history.VIEW)

        at.run()

    assert_no_failure(at)
    sections = [f.value for f in at.dataframe if "Plan" in f.value.columns]
    plans = {name for frame in sections for name in frame["Plan"]}
    assert "@channel https://evil.example/login" in plans  # a table cell is plain text
    assert f"www.evil.example {INVISIBLE_MARKER}exe.txt" in plans
    assert "\u202e" not in everything_shown(at)
    (chat,) = [code.value for code in at.code]
    read = re.sub(r"\\(.)", r"\1", chat).replace(WORD_JOINER, "")
    assert "[@channel https://evil.example/login](executions?plan=" in read
    assert f"[www.evil.example {INVISIBLE_MARKER}exe.txt](executions?plan=" in read
    for unbroken in ("@channel", "@here", "@all", "@everyone", "<!here>", "https://", "evil.ex"):
        assert unbroken not in chat, unbroken
    assert "\u202e" not in chat
