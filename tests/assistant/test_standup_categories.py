"""The assistant's standup says the categories the team's rules give newly failing scenarios'
failures, as the page's CSV does (#38): the same `standup_view`, given the store's rules and
names. On the demo sandbox (its standup has newly failing scenarios), the rules held by the
test (the store's reading of them is tested with the store)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from dashboard.analytics.group_rules import NO_RULES, TeamRules
from dashboard.assistant.history import Reading
from sandbox import RunningSandbox
from tests.assistant.conftest import ask_here, rows
from tests.group_rules import EVERY_MESSAGE

NEWLY = "Newly failing scenarios"


def _standup(env: dict[str, str], rules: TeamRules, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setattr(Reading, "group_rules", lambda self: rules)
    (answer,) = ask_here(env, [("standup", {"detail": "full"})], dashboard_url=None)
    return rows(answer)


def test_newly_failing_items_carry_the_rules_category_and_nothing_else_changes(
    live_sandbox: RunningSandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lead = live_sandbox.users[0]
    env = {k: v for k, v in os.environ.items() if not k.startswith("QA_DASHBOARD_")}
    env.update(
        QA_DASHBOARD_BASE_URL=live_sandbox.base_url,
        QA_DASHBOARD_TOKEN=lead.token,
        QA_DASHBOARD_COMPANY_ID=str(lead.company_id),
        QA_DASHBOARD_CACHE_DIR=str(tmp_path / "stores"),
    )

    plain = _standup(env, NO_RULES, monkeypatch)
    ruled = _standup(env, EVERY_MESSAGE, monkeypatch)

    newly = [row for row in ruled if row["Section"] == NEWLY]
    assert newly, "the demo's standup has newly failing scenarios"
    with_message = [row for row in newly if "Message: " in row["Details"]]
    assert with_message
    assert all("Category: to investigate" in row["Details"] for row in with_message)
    assert not any("Category:" in row["Details"] for row in plain)
    # Nothing but the category: the same items, in the same order, the same links.
    assert [(r["Section"], r["Plan"], r["Link"]) for r in ruled] == [
        (r["Section"], r["Plan"], r["Link"]) for r in plain
    ]
    unruled = [
        "; ".join(p for p in r["Details"].split("; ") if not p.startswith("Category: "))
        for r in ruled
    ]
    assert unruled == [r["Details"] for r in plain]
