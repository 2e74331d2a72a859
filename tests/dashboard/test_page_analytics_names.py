"""Names and messages from the service on the scenario analytics pages are text, never markdown
or HTML, and nothing in them reorders or hides what is shown (the named service of
test_page_names, whose plan, project and failure message are a URL or hide characters)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from dashboard.present.formatting import INVISIBLE_MARKER, WORD_JOINER
from tests.dashboard.apptest import (
    COMPARE,
    ENVIRONMENTS,
    FLAKY,
    SCENARIO,
    assert_no_failure,
    everything_shown,
)
from tests.dashboard.conftest import AppFactory
from tests.dashboard.named_service import PLAN_ID, SCENARIOS, Names, serve_names
from tests.dashboard.test_page_names import INVISIBLE, LINKS, PLAIN_TYPES, REORDERING
from tests.dashboard.test_page_names import elements_holding as holding_elements

VIEWS = {
    "flaky": (FLAKY, {}),
    "environments": (ENVIRONMENTS, {"plan": str(PLAN_ID)}),
    "compare": (COMPARE, {"plan": str(PLAN_ID)}),
    "scenario": (SCENARIO, {"plan": str(PLAN_ID), "scenario": str(SCENARIOS[0])}),
}


@pytest.fixture
def serve(app: AppFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Serve names and point the dashboard at them (after `app`, which clears the connection)."""
    contexts: list[Any] = []

    def start(names: Names) -> None:
        context = serve_names(names)
        service = context.__enter__()
        contexts.append(context)
        monkeypatch.setenv("QA_DASHBOARD_BASE_URL", service.base_url)
        monkeypatch.setenv("QA_DASHBOARD_TOKEN", "sbx-named-service-token")
        monkeypatch.setenv("QA_DASHBOARD_COMPANY_ID", "7")

    yield start
    for context in contexts:
        context.__exit__(None, None, None)


@pytest.mark.parametrize("view", list(VIEWS))
def test_a_url_in_a_name_or_message_is_plain_text(app: AppFactory, serve: Any, view: str) -> None:
    serve(LINKS)
    page, query = VIEWS[view]
    at = app(page, tz="UTC", **query)

    at.run()

    assert_no_failure(at)
    holding = holding_elements(at, "evil")
    assert holding, "the page shows none of the service's names"
    for kind, sent in holding:
        if kind == "expander":  # a failure group's headline: markdown, every mark escaped
            assert "https://" not in sent
        else:
            assert kind in PLAIN_TYPES, (kind, sent)
        if kind == "plotly_chart":
            assert "<a" not in sent


@pytest.mark.parametrize("view", list(VIEWS))
def test_hidden_characters_are_shown_as_a_marker(app: AppFactory, serve: Any, view: str) -> None:
    serve(REORDERING)
    page, query = VIEWS[view]
    at = app(page, tz="UTC", **query)

    at.run()

    assert_no_failure(at)
    shown = everything_shown(at) + "\n".join(e.label for e in at.expander)
    for character in INVISIBLE:
        assert character not in shown, f"U+{ord(character):04X} reached the page"
    assert INVISIBLE_MARKER in shown


def test_a_failure_groups_headline_shows_a_hostile_message_literally(
    app: AppFactory, serve: Any
) -> None:
    serve(Names(message="Reset at [here](https://evil.example/reset) **now** <b>x</b>"))
    at = app(FLAKY, tz="UTC")

    at.run()

    assert_no_failure(at)
    labels = [e.label for e in at.expander if "failures in" in e.label or "failure in" in e.label]
    assert len(labels) == 1
    label = labels[0]
    for raw in ("[here](", "**now**", "<b>", "https://"):
        assert raw not in label, label
    # Escaped, and joined invisibly where Markdown would still see a bare link.
    assert (
        r"Reset at \[here\]\(https\:" + WORD_JOINER + r"\/\/evil\.example\/reset\) \*\*now\*\*"
    ) in label
