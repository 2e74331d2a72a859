"""The Group rules page on the hand-built history (tests/dashboard/history_service.py): a rule
is previewed on the failures of each plan's last 20 executions before it is saved ("This rule
would cover 27 failures in 2 groups.", as many as Flaky's timeout groups hold: one per
scenario, 15 in scenario 31 and 12 in scenario 34), saved only once
that preview was shown for exactly what the form holds, listed with its author (the signed-in
address) and removed (kept, with who removed it); an invalid or catastrophic pattern is refused
with RE2's reason and nothing is written; hostile text is shown as text; a team's dashboard
without sign-in previews rules but cannot save them.

Each test keeps its stores in a folder of its own, so no rule outlives it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from tests.dashboard import history_service as hand
from tests.dashboard.apptest import assert_no_failure, captions, notes, plain_notes, table_with
from tests.dashboard.conftest import AppFactory
from tests.dashboard.test_page_known import sign_in

RULES = "app_pages/rules.py"
ANN = "ann@example.com"
TIMEOUT_FAILURES = 27
"""The timeout group's failures in each plan's last 20 executions (Flaky's groups say so too:
tests/dashboard/test_page_known.py)."""


@pytest.fixture
def own_stores(app: AppFactory, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    folder = tmp_path / "stores"
    monkeypatch.setenv("QA_DASHBOARD_CACHE_DIR", str(folder))
    return folder


def page(app: AppFactory, *, signed_in: bool = True) -> AppTest:
    at = app(RULES, tz="UTC")
    if signed_in:
        sign_in(at)
    at.run()
    assert_no_failure(at)
    return at


def fill(at: AppTest, message: str, **fields: str) -> None:
    at.text_input(key="rules.form.message").input(message)
    for name, value in fields.items():
        at.text_input(key=f"rules.form.{name}").input(value)


def press(at: AppTest, button: str) -> None:
    at.button(key=f"FormSubmitter:rules.form-{button}").click().run()
    assert_no_failure(at)


def preview_text(at: AppTest) -> str:
    return "\n".join(str(t.value) for t in at.text)


def rules(at: AppTest) -> Any:
    """The rules' table, or None when the page lists none."""
    found = [f.value for f in at.dataframe if "Category or group" in f.value.columns]
    return found[0] if found else None


def test_a_rule_is_previewed_then_saved_listed_and_removed(
    app: AppFactory, hand_built: hand.HistoryService, own_stores: Path
) -> None:
    at = page(app)
    assert "0 rules in force." in captions(at)
    assert rules(at) is None

    fill(at, "TimeoutException")
    press(at, "Preview")
    shown = preview_text(at)
    assert f"This rule would cover {TIMEOUT_FAILURES} failures in 2 groups." in shown
    examples = table_with(at, "Message", "Environment")
    assert len(examples) == 5
    assert examples["Message"].str.contains("TimeoutException").all()
    assert rules(at) is None  # a preview writes nothing

    press(at, "Save rule")
    said = notes(at, "info")
    assert re.search(r"Saved rule [0-9a-f]{12}\. This rule would cover 27 failures", said), said
    listed = rules(at)
    assert listed[["Message pattern", "Action", "Category or group", "By"]].values.tolist() == [
        ["TimeoutException", "Category", "product bug", ANN]
    ]
    assert "1 rule in force." in captions(at)

    rule_id = listed["Rule"].iloc[0]
    at.button(key="FormSubmitter:rules.remove-Remove rule").click().run()
    assert_no_failure(at)
    assert f"Removed rule {rule_id}" in notes(at, "info")
    after = rules(at)
    assert after[["Rule", "Removed by"]].values.tolist() == [[rule_id, ANN]]
    assert "0 rules in force, 1 removed rule kept." in captions(at)


def test_a_changed_form_is_previewed_before_it_is_saved(
    app: AppFactory, hand_built: hand.HistoryService, own_stores: Path
) -> None:
    at = page(app)
    fill(at, "TimeoutException")
    press(at, "Preview")
    at.text_input(key="rules.form.message").input("NoSuchThing")
    at.text_input(key="rules.form.custom").input("<b>flaky grid</b> =1+1")
    at.selectbox(key="rules.form.category").set_value("custom")

    press(at, "Save rule")

    assert "This rule would cover no failure of the ones read." in preview_text(at)
    assert "Save rule again to save it." in captions(at)
    assert rules(at) is None
    press(at, "Save rule")
    listed = rules(at)
    # The team's text is a table cell: shown as typed, never as markup.
    assert listed["Category or group"].tolist() == ["<b>flaky grid</b> =1+1"]


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        ("(unclosed", "The message pattern cannot be used: missing ): (unclosed."),
        (r"(a)\1", "backreferences and lookarounds are not supported"),
        ("a{1000}{1000}", "The message pattern cannot be used"),
    ],
    ids=["invalid", "backreference", "too large"],
)
def test_a_pattern_re2_cannot_run_is_refused_with_its_reason(
    app: AppFactory, hand_built: hand.HistoryService, own_stores: Path, pattern: str, reason: str
) -> None:
    at = page(app)
    fill(at, pattern)
    press(at, "Preview")
    assert reason in plain_notes(at), plain_notes(at)
    press(at, "Save rule")
    assert reason in plain_notes(at)
    assert rules(at) is None


def test_without_sign_in_a_teams_dashboard_previews_rules_but_saves_none(
    app: AppFactory, hand_built: hand.HistoryService, own_stores: Path
) -> None:
    at = page(app, signed_in=False)
    assert "Rules are read-only here" in notes(at, "info")
    saves = [b for b in at.button if "Save rule" in str(b.label)]
    assert not saves
    fill(at, "TimeoutException")
    press(at, "Preview")
    assert f"would cover {TIMEOUT_FAILURES} failures" in preview_text(at)
