"""A team's rules for failure groups, on a hand-built set of failures with known answers:
categories (the oldest matching rule wins), merges that make one group of several and split a
group when scoped, scenario patterns that read names, environment patterns, previews in words,
and patterns RE2 cannot run in linear time refused with the reason."""

from __future__ import annotations

import re
from typing import Any

import pandas as pd
import pytest

from dashboard.analytics.environment_names import with_environments
from dashboard.analytics.group_rules import (
    ACTIONS,
    CATEGORIES,
    CATEGORY,
    MERGE,
    MatchingRule,
    RulePreview,
    apply_rules,
    preview,
    rules_from,
    search_each,
)
from dashboard.columns.shapes import typed_rows
from dashboard.data.store import group_rules as stored
from dashboard.data.store.group_rules import (
    RuleDraft,
    compiled,
    draft_problems,
    search_many,
    usable,
)

COLUMNS = {
    "result_id": "int64",
    "plan_id": "Int64",
    "scenario_id": "Int64",
    "level": "str",
    "message": "str",
    "os": "str",
    "browser": "str",
    "browser_version": "str",
    "device": "str",
    "mobile": "boolean",
}
CHROME = {"os": "Windows 10", "browser": "CHROME", "browser_version": "131", "device": "chrome"}
FIREFOX = {"os": "Linux", "browser": "FIREFOX", "browser_version": "120", "device": "firefox"}
TIMEOUT = "TimeoutException: after {n} ms"


def failure(
    result_id: int, plan: int, scenario: int, message: str | None, **more: Any
) -> dict[str, Any]:
    env = more.pop("env", CHROME)
    return {
        "result_id": result_id,
        "plan_id": plan,
        "scenario_id": scenario,
        "level": more.pop("level", "FAILURE"),
        "message": message,
        "mobile": False,
        **env,
    }


FAILURES = typed_rows(
    [
        failure(1, 7, 401, "TimeoutException: after 3000 ms"),
        failure(2, 7, 402, "TimeoutException: after 5000 ms", env=FIREFOX),
        failure(3, 8, 402, "TimeoutException: after 3000 ms"),
        failure(4, 7, 403, "Element #pay not found"),
        failure(5, 7, 403, "Element #buy not found", level="ERROR"),
        failure(6, 8, 404, "AssertionError: expected 3 got 4"),
        failure(7, 7, 401, "", level="SUCCESS"),  # passed: no rule sees it
        failure(8, 7, 405, None, level="ERROR"),
    ],
    COLUMNS,
)
NAMES = {403: "Pay by card", 404: "Cart totals"}


def rule(rule_id: str, message: str, action: str, label: str, **scope: Any) -> MatchingRule:
    return MatchingRule(
        rule_id=rule_id,
        message=compiled(message),
        action=action,
        label=label,
        scenario=compiled(scope["scenario"]) if "scenario" in scope else None,
        plan_id=scope.get("plan_id"),
        environment=compiled(scope["environment"]) if "environment" in scope else None,
    )


def by_result(ruled: pd.DataFrame, column: str) -> dict[int, Any]:
    return {
        int(r): (None if pd.isna(v) else v)
        for r, v in zip(ruled["result_id"], ruled[column], strict=True)
    }


def test_without_rules_each_failure_keeps_its_group_and_has_no_category() -> None:
    ruled = apply_rules([], FAILURES)

    assert ruled["result_id"].tolist() == [1, 2, 3, 4, 5, 6, 8]
    assert by_result(ruled, "group")[1] == TIMEOUT
    assert by_result(ruled, "group")[8] == ""  # the group of failures without a message
    assert ruled["category"].isna().all()


def test_a_category_rule_names_what_it_matches_and_the_oldest_rule_wins() -> None:
    rules = [
        rule("c", "Timeout", CATEGORY, "product bug", scenario="402", plan_id=8),
        rule("a", "(?i)timeout", CATEGORY, "infrastructure"),
        rule("x", "expected", CATEGORY, "Flaky assertion (team word)"),
    ]

    ruled = apply_rules(rules, FAILURES)

    assert by_result(ruled, "category") == {
        1: "infrastructure",
        2: "infrastructure",
        3: "product bug",  # the older, scoped rule came first
        4: None,
        5: None,
        6: "Flaky assertion (team word)",
        8: None,
    }
    assert by_result(ruled, "category_rule")[3] == "c"
    assert by_result(ruled, "group")[3] == TIMEOUT  # a category leaves the group as it was


def test_a_merge_rule_makes_one_group_of_several() -> None:
    ruled = apply_rules([rule("m", r"Element #\w+ not found", MERGE, "Missing elements")], FAILURES)

    assert by_result(ruled, "signature")[4] != by_result(ruled, "signature")[5]
    assert by_result(ruled, "group")[4] == by_result(ruled, "group")[5] == "rule:m"
    assert by_result(ruled, "group_label")[4] == "Missing elements"
    assert ruled["group"].nunique() == 4  # timeout, missing elements, assertion, no message


def test_a_scoped_merge_rule_splits_a_group() -> None:
    ruled = apply_rules([rule("p8", "Timeout", MERGE, "Plan 8 timeouts", plan_id=8)], FAILURES)

    groups = by_result(ruled, "group")
    assert (groups[1], groups[2], groups[3]) == (TIMEOUT, TIMEOUT, "rule:p8")


def test_a_scenario_pattern_reads_the_id_and_the_name() -> None:
    by_name = rule("n", ".*", CATEGORY, "payments", scenario="(?i)card")
    by_id = rule("i", ".*", CATEGORY, "cart", scenario="^404$")

    ruled = apply_rules([by_name, by_id], FAILURES, names=NAMES)

    assert {r for r, c in by_result(ruled, "category").items() if c} == {4, 5, 6}
    assert apply_rules([by_name], FAILURES)["category"].isna().all()  # no names, no match


def test_an_environment_pattern_reads_the_environment_label() -> None:
    ruled = apply_rules(
        [rule("f", "Timeout", CATEGORY, "infrastructure", environment="^FIREFOX")], FAILURES
    )

    assert {r for r, c in by_result(ruled, "category").items() if c} == {2}


def test_an_environment_pattern_reads_a_frame_s_own_environment_labels_alike() -> None:
    """The Failures page's rows carry their environment's label already; a rule on it
    answers as on the environment's parts."""
    firefox = rule("f", "Timeout", CATEGORY, "infrastructure", environment="^FIREFOX / Linux$")

    from_parts = apply_rules([firefox], FAILURES)
    from_labels = apply_rules([firefox], with_environments(FAILURES))

    assert {r for r, c in by_result(from_parts, "category").items() if c} == {2}
    assert by_result(from_labels, "category") == by_result(from_parts, "category")


def test_a_missing_message_and_an_empty_one_are_one_message_to_a_rule() -> None:
    frame = pd.concat(
        [FAILURES, typed_rows([failure(9, 8, 406, "", level="FAILURE")], COLUMNS)],
        ignore_index=True,
    )

    ruled = apply_rules([rule("e", "^$", CATEGORY, "no message")], frame)

    assert {r for r, c in by_result(ruled, "category").items() if c} == {8, 9}
    assert by_result(ruled, "signature")[8] == by_result(ruled, "signature")[9] == ""


def test_a_page_s_own_groups_are_kept_when_given() -> None:
    frame = FAILURES.assign(group_key=[f"g{s}" for s in FAILURES["scenario_id"]])

    ruled = apply_rules([], frame, group_column="group_key")

    assert by_result(ruled, "group")[2] == "g402"


def test_a_preview_counts_failures_and_groups_in_words() -> None:
    found = preview(rule("p", "(?i)not found|timeout", CATEGORY, "x"), FAILURES)

    assert found == RulePreview(failures=5, groups=3)
    assert found.sentence == "This rule would cover 5 failures in 3 groups."
    assert RulePreview(1, 1).sentence == "This rule would cover 1 failure in 1 group."
    assert preview(rule("n", "nothing like this", CATEGORY, "x"), FAILURES).failures == 0


def test_stored_rules_in_force_are_compiled_in_order_and_removed_ones_left_out() -> None:
    frame = pd.DataFrame(
        [
            {
                "rule_id": "r1",
                "message_pattern": "a",
                "scenario_pattern": None,
                "plan_id": 7,
                "environment_pattern": None,
                "action": CATEGORY,
                "label": "x",
                "removed_at": None,
            },
            {
                "rule_id": "r2",
                "message_pattern": "b",
                "scenario_pattern": None,
                "plan_id": None,
                "environment_pattern": None,
                "action": MERGE,
                "label": "y",
                "removed_at": pd.Timestamp("2026-11-01", tz="UTC"),
            },
            {
                "rule_id": "r3",
                "message_pattern": r"(a)\1",
                "scenario_pattern": None,
                "plan_id": None,
                "environment_pattern": None,
                "action": CATEGORY,
                "label": "z",
                "removed_at": None,
            },
            {
                "rule_id": "r4",
                "message_pattern": "c",
                "scenario_pattern": "d",
                "plan_id": None,
                "environment_pattern": "e",
                "action": MERGE,
                "label": "w",
                "removed_at": None,
            },
        ]
    )

    rules = rules_from(frame, usable)

    assert [r.rule_id for r in rules] == ["r1", "r4"]  # r3's pattern RE2 cannot run: left out
    assert rules[0].plan_id == 7
    assert rules[1].scenario is not None
    assert rules[1].environment is not None


# -- patterns: refused with the reason, and matched in linear time ---------------------------------


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        (r"(a+)+\1", "invalid escape sequence"),  # a backreference: exponential in a backtracker
        (r"(?=timeout)", "invalid perl operator"),  # a lookaround
        (r"\pL{1000}\pL{1000}\pL{1000}", "pattern too large"),
        (r"((a{100}){100}){100}", "invalid repetition size"),
        (r"Timeout (", "missing )"),
        ("", "empty"),
    ],
)
def test_a_pattern_re2_cannot_run_is_refused_with_the_reason(pattern: str, reason: str) -> None:
    problems = draft_problems(RuleDraft(message=pattern, label="infrastructure"), by="ann")

    assert len(problems) == 1
    assert reason in problems[0]
    assert problems[0].startswith("The message pattern")


def test_a_catastrophic_pattern_for_a_backtracker_runs_in_linear_time_here() -> None:
    # Python's re takes about 2**n steps for (a+)+$ on n a's and a mismatch; RE2 guarantees
    # time linear in the text, so this finishes whatever n is (no clock asserted: the guarantee
    # is the engine's, and the pattern is RE2's).
    pattern = r"(a+)+$"
    assert draft_problems(RuleDraft(message=pattern, label="x"), by="ann") == []
    evil = rule("e", pattern, CATEGORY, "x")
    assert type(evil.message).__module__.startswith("re2")
    frame = typed_rows([failure(1, 7, 1, "a" * 50_000 + "!")], COLUMNS)

    assert apply_rules([evil], frame)["category"].isna().all()
    assert re.compile(pattern).pattern == pattern  # the same pattern Python's re would hang on


def test_a_rule_needs_its_label_a_known_action_and_an_author() -> None:
    problems = draft_problems(RuleDraft(message="x", label=" ", action="delete"), by="")

    assert "A rule gives a category or merges groups, not 'delete'." in problems
    assert "Give the rule its category." in problems
    assert any("who you are" in p for p in problems)
    merge = RuleDraft(message="x", label="", action=MERGE)
    assert draft_problems(merge, by="ann") == ["Give the rule its name of the merged group."]


def test_the_store_and_the_analytics_name_the_same_actions_and_categories() -> None:
    assert stored.ACTIONS == ACTIONS
    assert stored.CATEGORIES == CATEGORIES
    assert stored.category_word("Product-Bug") == "product bug"
    assert stored.category_word("  Needs  triage ") == "Needs triage"


# -- many rules at once: RE2 sets give the answers pattern-by-pattern search gives --------------


class Unbuildable:
    """A compiled pattern whose text no RE2 set takes: the set falls back to one by one."""

    pattern = "("

    def search(self, text: str) -> object | None:
        return text if "needle" in text else None


def test_searching_many_patterns_at_once_answers_as_one_by_one() -> None:
    patterns = [compiled(p) for p in ("(?i)timeout", "^Element", "not found$", "é", "x{2,}")]
    texts = ["TimeoutException", "Element #pay not found", "", "café", "xx and xxx", "plain"]

    expected = search_each(patterns, texts)

    assert search_many(patterns, texts) == expected == [[0], [1, 2], [], [3], [4], []]
    mixed = [Unbuildable(), *patterns]
    assert search_many(mixed, ["a needle", "timeout"]) == [[0], [1]]


def test_more_patterns_than_one_set_holds_answer_as_one_by_one() -> None:
    """Past `SET_SIZE` patterns the search goes on in a second set: positions count on."""
    from dashboard.data.store.group_rules import SET_SIZE

    patterns = [compiled(f"^code {n}$") for n in range(SET_SIZE + 5)]
    texts = ["code 0", f"code {SET_SIZE - 1}", f"code {SET_SIZE}", f"code {SET_SIZE + 4}", "x"]

    assert search_many(patterns, texts) == search_each(patterns, texts)
    assert search_many(patterns, texts) == [[0], [SET_SIZE - 1], [SET_SIZE], [SET_SIZE + 4], []]


def test_rules_applied_through_sets_decide_as_rules_applied_one_by_one() -> None:
    rules = [
        rule("c", "Timeout", CATEGORY, "product bug", scenario="402", plan_id=8),
        rule("a", "(?i)timeout", CATEGORY, "infrastructure"),
        rule("m", r"Element #\w+ not found", MERGE, "Missing elements"),
        rule("f", "Timeout", MERGE, "Firefox timeouts", environment="^FIREFOX"),
    ]

    one_by_one = apply_rules(rules, FAILURES, names=NAMES)
    at_once = apply_rules(rules, FAILURES, names=NAMES, search_many=search_many)

    pd.testing.assert_frame_equal(at_once, one_by_one)
    assert by_result(at_once, "group")[2] == "rule:f"
