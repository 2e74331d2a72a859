"""Rules for failure groups in the history store, on a DuckDB file and on PostgreSQL alike:
kept per company with author and time, oldest first, removed but kept with who removed them,
refused with the reason (nothing written), and kept by `clear`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pandas as pd
import pytest

from dashboard.analytics.group_rules import rules_from
from dashboard.data.store import HistoryStore
from dashboard.data.store.group_rules import MERGE, RuleDraft, RuleRefused, usable

NOW = datetime(2026, 11, 24, 9, 30, tzinfo=UTC)
LATER = NOW + timedelta(minutes=5)


def test_rules_are_kept_per_company_with_author_and_time_oldest_first(store: HistoryStore) -> None:
    second = store.add_group_rule(
        1,
        RuleDraft(
            r"Element #\w+ not found", "Missing elements", MERGE, scenario="(?i)card", plan_id=7
        ),
        by="bob",
        now=LATER,
    )
    first = store.add_group_rule(
        1, RuleDraft("(?i)timeout", "infrastructure", environment="^FIREFOX"), by="ann", now=NOW
    )
    store.add_group_rule(2, RuleDraft("x", "other company"), by="cy", now=NOW)

    rules = store.group_rules(1)
    assert rules["rule_id"].tolist() == [first, second]
    assert rules["created_by"].tolist() == ["ann", "bob"]
    assert rules["created_at"].tolist() == [pd.Timestamp(NOW), pd.Timestamp(LATER)]
    assert rules["action"].tolist() == ["category", "merge"]
    assert rules["label"].tolist() == ["infrastructure", "Missing elements"]
    assert rules.loc[1, "scenario_pattern"] == "(?i)card"
    assert rules.loc[1, "plan_id"] == 7
    assert rules.loc[0, "environment_pattern"] == "^FIREFOX"
    assert pd.isna(rules.loc[0, "plan_id"])
    assert [r.rule_id for r in rules_from(rules, usable)] == [first, second]
    assert store.group_rules(2)["label"].tolist() == ["other company"]


def test_a_removed_rule_stops_applying_and_is_kept_with_who_removed_it(store: HistoryStore) -> None:
    rule_id = store.add_group_rule(1, RuleDraft("timeout", "infrastructure"), by="ann", now=NOW)

    store.remove_group_rule(1, rule_id, by="bob", now=LATER)

    assert store.group_rules(1).empty
    every = store.group_rules(1, removed=True)
    assert (every.loc[0, "removed_by"], every.loc[0, "removed_at"]) == ("bob", pd.Timestamp(LATER))
    with pytest.raises(RuleRefused, match="no rule"):
        store.remove_group_rule(1, rule_id, by="bob")
    with pytest.raises(RuleRefused, match="no rule"):
        store.remove_group_rule(2, rule_id, by="bob")  # another company's


def test_a_rule_re2_cannot_run_is_refused_with_the_reason_and_nothing_written(
    store: HistoryStore,
) -> None:
    with pytest.raises(RuleRefused) as refused:
        store.add_group_rule(1, RuleDraft(r"(a+)+\1", "x", scenario="(?=x)"), by="ann")

    assert (
        "The message pattern cannot be used: invalid escape sequence" in refused.value.problems[0]
    )
    assert "The scenario pattern cannot be used: invalid perl operator" in refused.value.problems[1]
    assert store.group_rules(1, removed=True).empty


def test_clear_keeps_the_rules(store: HistoryStore) -> None:
    store.add_group_rule(1, RuleDraft("timeout", "infrastructure"), by="ann", now=NOW)
    store.clear()
    assert store.group_rules(1)["label"].tolist() == ["infrastructure"]
