"""Message normalisation and failure groups."""

from __future__ import annotations

import pandas as pd
import pytest

from dashboard.analytics.failure_groups import (
    GROUP_COLUMNS,
    Grouping,
    failure_groups,
    normalise_message,
    normalise_messages,
    with_groups,
)
from dashboard.analytics.group_rules import (
    CATEGORY,
    MERGE,
    MatchingRule,
    RulePreview,
    TeamRules,
    apply_rules,
    grouped,
    preview,
    rules_note,
    team_rules,
)
from dashboard.data.store.group_rules import compiled, search_many, usable
from tests.analytics.frames import CHROME, DESKTOP, IPHONE, execution, executions, result, results


@pytest.mark.parametrize(
    ("message", "signature"),
    [
        (
            "SessionNotCreatedException: device did not respond within 30s",
            "SessionNotCreatedException: device did not respond within {n}s",
        ),
        ("Expected 3 items but found 12", "Expected {n} items but found {n}"),
        ("took 2.5 s (limit 1.75 s)", "took {n} s (limit {n} s)"),
        ('Element "#login-button" not found', 'Element "{…}" not found'),
        ("Text 'Welcome, Ann' missing", "Text '{…}' missing"),
        ("Session didn't start", "Session didn't start"),  # an apostrophe is not a quote
        (
            "Session 3f2b8c1e-9d4a-4b6e-8f00-1a2b3c4d5e6f expired",
            "Session {id} expired",
        ),
        ("Order 98765432 rejected", "Order {id} rejected"),
        ("Segfault at 0x7ffde4a1", "Segfault at {hex}"),
        ("Token a3f9c2e17b4d expired", "Token {hex} expired"),
        ("Failed on WIN10 with Galaxy_Note20 v1.2", "Failed on WIN10 with Galaxy_Note20 v1.2"),
        ("Line  1\n\tcolumn 7", "Line {n} column {n}"),
        ("  deadbeef  ", "deadbeef"),  # a word, not a hash (no digits)
    ],
)
def test_normalisation(message: str, signature: str) -> None:
    assert normalise_message(message) == signature


def test_normalising_a_column_keeps_missing_messages_missing() -> None:
    out = normalise_messages(pd.Series(["a 1", None, "a 2"], dtype="str"))
    assert out.iloc[0] == "a {n}"
    assert pd.isna(out.iloc[1])
    assert out.iloc[2] == "a {n}"


def window_results() -> tuple[pd.DataFrame, pd.DataFrame]:
    ex = executions(
        [execution(i, 1, f"2025-04-0{i} 10:00", "fail") for i in range(1, 5)]
        + [execution(9, 1, "2025-03-01 10:00", "fail")]
    )
    timeout = "SessionNotCreatedException: device did not respond within {}s"
    rows = [
        result(1, 1, "ERROR", IPHONE, message=timeout.format(30), start="2025-04-01 10:05"),
        result(2, 2, "ERROR", IPHONE, message=timeout.format(45), start="2025-04-02 10:05"),
        result(3, 2, "FAILURE", CHROME, message=timeout.format(60), start="2025-04-03 10:05"),
        result(4, 3, "ERROR", IPHONE, message=timeout.format(30), start="2025-04-04 10:05"),
        result(
            2, 4, "FAILURE", DESKTOP, message='Element "#buy" not found', start="2025-04-02 10:06"
        ),
        result(
            3, 5, "FAILURE", DESKTOP, message='Element "#pay" not found', start="2025-04-03 10:06"
        ),
        result(3, 6, "FAILURE", CHROME, message=None, start="2025-04-03 10:07"),
        result(4, 1, "SUCCESS", IPHONE, message="All good 1", start="2025-04-04 10:07"),
        result(4, 7, "WARNING", IPHONE, message="Slow 5s", start="2025-04-04 10:07"),
        result(8, 1, "ERROR", IPHONE, message=timeout.format(1), start="2025-04-08 10:05"),
    ]
    return ex[ex["execution_id"] != 9], results(rows)


def test_failures_of_the_window_grouped_by_signature_across_scenarios() -> None:
    ex, res = window_results()
    report = failure_groups(ex, res, grouping=Grouping.ACROSS)
    groups = report.groups
    assert list(groups.columns) == list(GROUP_COLUMNS)
    assert groups["signature"].tolist() == [
        "SessionNotCreatedException: device did not respond within {n}s",
        'Element "{…}" not found',
        "",
    ]
    timeout = groups.iloc[0]
    assert (timeout["failures"], timeout["scenarios"], timeout["environments"]) == (4, 3, 2)
    assert (timeout["executions"], timeout["plans"]) == (4, 1)
    assert timeout["first_seen"] == pd.Timestamp("2025-04-01 10:05", tz="UTC")
    assert timeout["last_seen"] == pd.Timestamp("2025-04-04 10:05", tz="UTC")
    assert timeout["sample_message"].endswith("within 30s")  # the latest one
    assert timeout["scenario_ids"] == (1, 2, 3)
    assert timeout["environment_labels"] == ("CHROME / Windows 11", "IPHONE 8 / iOS")
    assert timeout["execution_ids"] == (1, 2, 3, 4)
    assert len(timeout["result_ids"]) == 4
    assert list(timeout["result_ids"]) == sorted(timeout["result_ids"])
    assert groups.iloc[2]["failures"] == 1
    assert groups["label"].tolist() == groups["signature"].tolist() == groups["group"].tolist()
    assert groups["category"].isna().all()  # no rule, no category
    assert pd.isna(timeout["scenario_id"])
    assert timeout["plan_id"] == 1
    assert report.basis.executions == 4
    assert report.basis.with_results == 4
    assert report.basis.results == 9  # execution 8 is not in the window


def test_no_failures() -> None:
    ex, res = window_results()
    calm = failure_groups(ex, res[res["level"] == "SUCCESS"])
    assert calm.groups.empty
    assert list(calm.groups.columns) == list(GROUP_COLUMNS)


def test_by_default_a_group_is_one_message_in_one_scenario() -> None:
    """The timeout of the window is in scenarios 1, 2 and 3: three problems, three groups,
    each with its own first seen; the element messages are two scenarios' too."""
    ex, res = window_results()
    groups = failure_groups(ex, res).groups

    timeout = "SessionNotCreatedException: device did not respond within {n}s"
    assert list(groups.columns) == list(GROUP_COLUMNS)
    assert len(groups) == 6
    assert (groups["scenarios"] == 1).all()
    assert (groups["plans"] == 1).all()
    of = groups.set_index(["signature", "scenario_id"])
    assert of.loc[(timeout, 2), "failures"] == 2  # executions 2 and 3, on two environments
    assert of.loc[(timeout, 2), "environments"] == 2
    assert of.loc[(timeout, 1), "first_seen"] == pd.Timestamp("2025-04-01 10:05", tz="UTC")
    assert of.loc[(timeout, 3), "first_seen"] == pd.Timestamp("2025-04-04 10:05", tz="UTC")
    assert of.loc[(timeout, 3), "environment_labels"] == ("IPHONE 8 / iOS",)
    assert of.loc[('Element "{…}" not found', 4), "failures"] == 1
    assert set(groups["plan_id"]) == {1}
    assert groups["failures"].sum() == 7  # every failure in exactly one group
    assert groups.iloc[0]["signature"] == timeout  # the largest first


def test_the_same_message_in_three_scenarios_is_three_groups_and_one_across() -> None:
    """Six failures of one message in three scenarios of two plans: over-merged across, one
    group "first seen" at the oldest; per scenario, each its own age."""
    ex = executions([execution(i, 1 + i % 2, f"2025-04-0{i} 10:00", "fail") for i in range(1, 7)])
    message = "NoSuchElementException: #checkout-{} missing"
    rows = [
        result(
            i,
            s,
            "FAILURE",
            CHROME,
            plan_id=1 + i % 2,
            message=message.format(i),
            start=f"2025-04-0{i} 10:05",
        )
        for i, s in [(1, 10), (2, 20), (3, 10), (4, 20), (5, 30), (6, 20)]
    ]
    res = results(rows)

    per_scenario = failure_groups(ex, res).groups
    across = failure_groups(ex, res, grouping=Grouping.ACROSS).groups

    assert len(across) == 1
    assert across.iloc[0]["scenario_ids"] == (10, 20, 30)
    assert across.iloc[0]["first_seen"] == pd.Timestamp("2025-04-01 10:05", tz="UTC")
    assert len(per_scenario) == 3
    firsts = dict(zip(per_scenario["scenario_id"], per_scenario["first_seen"], strict=True))
    assert firsts == {
        10: pd.Timestamp("2025-04-01 10:05", tz="UTC"),
        20: pd.Timestamp("2025-04-02 10:05", tz="UTC"),
        30: pd.Timestamp("2025-04-05 10:05", tz="UTC"),
    }
    assert per_scenario["failures"].tolist() == [3, 2, 1]
    assert dict(zip(per_scenario["scenario_id"], per_scenario["plan_id"], strict=True)) == {
        10: 2,
        20: 1,
        30: 2,
    }


def _rule(rule_id: str, message: str, action: str, label: str, **scope: object) -> MatchingRule:
    return MatchingRule(
        rule_id=rule_id,
        message=compiled(message),
        action=action,
        label=label,
        scenario=compiled(str(scope["scenario"])) if "scenario" in scope else None,
        plan_id=scope.get("plan_id"),  # type: ignore[arg-type]
    )


def _team(*rules: MatchingRule) -> TeamRules:
    return TeamRules(tuple(rules), search_many=search_many)


def test_a_merge_rule_makes_one_group_of_its_failures_whatever_their_scenario() -> None:
    """The two element messages (scenarios 4 and 5) merged by the team's rule: one group named
    by the rule; the timeouts stay per scenario."""
    ex, res = window_results()
    merge = _rule("m1", r"Element .* not found", MERGE, "Missing elements")

    groups = grouped(ex, res, _team(merge)).groups

    assert len(groups) == 5  # 3 timeouts, the merged pair, no message
    missing = groups[groups["group"] == "rule:m1"].iloc[0]
    assert missing["label"] == "Missing elements"
    assert (missing["failures"], missing["scenarios"]) == (2, 2)
    assert missing["scenario_ids"] == (4, 5)
    assert pd.isna(missing["scenario_id"])
    across = grouped(ex, res, _team(merge), grouping=Grouping.ACROSS).groups
    assert across["label"].tolist() == [
        "SessionNotCreatedException: device did not respond within {n}s",
        "Missing elements",
        "",
    ]


def test_a_scoped_merge_rule_splits_a_group_across_scenarios() -> None:
    """Across scenarios, the timeout is one group of 4; a merge rule for scenario 1 only takes
    its failure out into a group of its own."""
    ex, res = window_results()
    split = _rule("s1", "SessionNotCreated", MERGE, "Scenario 1 device timeouts", scenario="^1$")

    groups = grouped(ex, res, _team(split), grouping=Grouping.ACROSS).groups

    of = groups.set_index("label")
    assert of.loc["Scenario 1 device timeouts", "failures"] == 1
    assert of.loc["SessionNotCreatedException: device did not respond within {n}s", "failures"] == 3


def test_categories_name_each_group_most_failures_first() -> None:
    ex, res = window_results()
    rules = _team(
        _rule("c1", "SessionNotCreated", CATEGORY, "infrastructure", scenario="^2$"),
        _rule("c2", "SessionNotCreated|not found", CATEGORY, "product bug"),
    )

    per_scenario = grouped(ex, res, rules).groups
    across = grouped(ex, res, rules, grouping=Grouping.ACROSS).groups

    timeout = "SessionNotCreatedException: device did not respond within {n}s"
    by_scenario = per_scenario[per_scenario["signature"] == timeout].set_index("scenario_id")
    assert by_scenario.loc[2, "category"] == "infrastructure"  # the oldest rule wins
    assert by_scenario.loc[1, "category"] == "product bug"
    of = across.set_index("signature")
    # 2 of its 4 failures are infrastructure, 2 a product bug: both named, ties by name.
    assert of.loc[timeout, "category"] == "infrastructure, product bug"
    assert of.loc['Element "{…}" not found', "category"] == "product bug"
    assert pd.isna(of.loc["", "category"])


def test_categories_of_most_failures_come_first_whatever_their_name() -> None:
    ex, res = window_results()
    rules = _team(
        _rule("c1", "SessionNotCreated", CATEGORY, "product bug", scenario="^1$"),
        _rule("c2", "SessionNotCreated", CATEGORY, "automation bug"),
    )

    across = grouped(ex, res, rules, grouping=Grouping.ACROSS).groups

    of = across.set_index("signature")
    timeout = "SessionNotCreatedException: device did not respond within {n}s"
    assert of.loc[timeout, "category"] == "automation bug, product bug"  # 3 of 4, then 1
    assert pd.isna(of.loc['Element "{…}" not found', "category"])


def test_each_failure_gets_its_own_rules_answer_whatever_the_order_given() -> None:
    """The Failures page's rows come in its own order; a page's groups in the order the rules
    were applied: either way each failure gets the answer for its own result id."""
    _, res = window_results()
    failed = res[res["level"].isin(["FAILURE", "ERROR"]) & res["execution_id"].isin([1, 2, 3, 4])]
    ruled = apply_rules([_rule("m1", r"Element .* not found", MERGE, "Missing elements")], failed)
    merged = set(failed.loc[failed["message"].str.contains("not found", na=False), "result_id"])

    for given in (ruled, ruled.iloc[::-1].reset_index(drop=True), ruled.iloc[1:]):
        out = with_groups(failed, given)
        groups = dict(zip(out["result_id"], out["group"], strict=True))
        assert {r for r, g in groups.items() if g == "rule:m1"} == merged
        kept = out[~out["result_id"].isin(merged)]
        assert (kept["group"] == kept["signature"]).all()
        assert out.loc[out["result_id"].isin(merged), "group_label"].eq("Missing elements").all()


def test_a_stored_rule_this_version_cannot_compile_is_left_out_and_counted() -> None:
    stored = pd.DataFrame(
        [
            {
                "rule_id": "ok",
                "message_pattern": "Element",
                "action": CATEGORY,
                "label": "automation bug",
                "removed_at": None,
            },
            {
                "rule_id": "bad",
                "message_pattern": "(a)\\1",
                "action": CATEGORY,
                "label": "product bug",
                "removed_at": None,
            },
        ]
    )

    rules = team_rules(stored, usable)

    assert rules.key == ("ok",)
    assert rules.left_out == 1
    assert rules_note(rules) is not None
    assert rules_note(rules).startswith("1 rule of the team")
    ex, res = window_results()
    groups = grouped(ex, res, rules).groups
    assert set(groups["category"].dropna()) == {"automation bug"}


def test_a_preview_counts_the_pages_groups() -> None:
    _ex, res = window_results()
    timeouts = _rule("p", "SessionNotCreated", CATEGORY, "x")

    # Execution 8's too: a preview reads every failure it is given.
    assert preview(timeouts, res, grouping=Grouping.SCENARIO) == RulePreview(5, 3)
    assert preview(timeouts, res, grouping=Grouping.ACROSS) == RulePreview(5, 1)
