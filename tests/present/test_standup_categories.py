"""The standup says the category the team's rules give a newly failing scenario's failures
(#38): each row of its Newly failing table in a Category column (and so its CSV line), each line
of its chat digest at the end ("; category: infrastructure, product bug", most failures first,
as the alerts word them). A scenario no rule reaches has none; without rules, or with rules that
give none, the standup is the one it was (no column, the same chat text byte for byte)."""

from __future__ import annotations

import re
from typing import Any

import pandas as pd

from dashboard.analytics.group_rules import CATEGORY, NO_RULES, TeamRules, team_rules
from dashboard.analytics.standup import standup_digest, with_newly_failing
from dashboard.analytics.windows import standup_window
from dashboard.data.store.group_rules import search_many, usable
from dashboard.present.digest import digest_markdown
from dashboard.present.formatting import WORD_JOINER
from dashboard.present.standup_view import StandupView
from tests.analytics.frames import CHROME, DESKTOP, IPHONE, result, results
from tests.present.test_digest import link_for, small_history
from tests.present.test_standup_known_names import names
from tests.present.test_standup_known_names import view_of as standup_of
from tests.present.test_standup_view import NOW

NEWLY = "Newly failing scenarios"
GRID_LOST = "TimeoutError: grid node lost"


def rules(*rows: tuple[str, str, str], **scope: Any) -> TeamRules:
    """Category rules in force, in this order (the oldest matching rule wins)."""
    stored = pd.DataFrame(
        [
            {
                "rule_id": rule_id,
                "message_pattern": pattern,
                "action": CATEGORY,
                "label": label,
                "removed_at": None,
                **scope,
            }
            for rule_id, pattern, label in rows
        ]
    )
    return team_rules(stored, usable, search_many)


TEAM = rules(
    ("infra", "^TimeoutError", "infrastructure"),
    ("bug", "^AssertionError", "product bug"),
)


def read_results() -> pd.DataFrame:
    """Checkout's execution 1 passed scenarios 7 (three environments) and 9; execution 2 failed
    them: 7 lost its grid node on Safari and Chrome and found a wrong total on the iPhone, 9
    counted the wrong number of items (a message no rule reads). Search's scenario 8 failed
    in both of its executions: still failing, not newly."""
    return results(
        [
            result(1, 7, "SUCCESS", DESKTOP, result_id=1),
            result(1, 7, "SUCCESS", CHROME, result_id=2),
            result(1, 7, "SUCCESS", IPHONE, result_id=3),
            result(1, 9, "SUCCESS", CHROME, result_id=4),
            result(2, 7, "FAILURE", DESKTOP, message=GRID_LOST, result_id=11),
            result(2, 7, "ERROR", CHROME, message=GRID_LOST, result_id=12),
            result(2, 7, "FAILURE", IPHONE, message="AssertionError: total is 0", result_id=13),
            result(2, 9, "FAILURE", CHROME, message="Expected 3 items, found 2", result_id=14),
            result(4, 8, "FAILURE", CHROME, plan_id=2, message=GRID_LOST, result_id=21),
            result(5, 8, "FAILURE", CHROME, plan_id=2, message=GRID_LOST, result_id=22),
        ]
    )


def view_of(team: TeamRules | None, named: pd.DataFrame | None = None) -> StandupView:
    return standup_of(named, read=read_results(), rules=team)


def newly(view: StandupView) -> pd.DataFrame:
    return next(s.section.rows for s in view.sections if s.title == NEWLY)


def newly_lines(text: str) -> list[str]:
    lines = text.splitlines()
    start = lines.index(f"**{NEWLY}**") + 1
    return lines[start : lines.index("", start)]


def unescaped(markdown: str) -> str:
    return re.sub(r"\\(.)", r"\1", markdown).replace(WORD_JOINER, "")


def test_each_newly_failing_row_says_its_failures_category_and_a_row_no_rule_reaches_none() -> None:
    view = view_of(TEAM)

    rows = newly(view)
    # By plan, scenario and environment; each row its own failure's category.
    assert rows["Scenario"].tolist() == [7, 7, 7, 9]
    assert rows["Environment"].tolist() == [
        "CHROME / Windows 11",
        "IPHONE 8 / iOS",
        "SAFARI / macOS",
        "CHROME / Windows 11",
    ]
    assert rows["Category"].tolist() == ["infrastructure", "product bug", "infrastructure", ""]
    # After the history link; the version move still at the right end of the normal view;
    # presenter mode leaves both out (its large type holds four or five columns a section).
    section = next(s for s in view.sections if s.title == NEWLY)
    assert section.columns[-2:] == ["Category", "What changed"]
    assert "Category" not in section.presenter_columns
    # Only the newly failing section has one.
    assert all("Category" not in s.section.rows.columns for s in view.sections if s.title != NEWLY)


def test_the_standup_csv_says_each_newly_failing_items_category() -> None:
    items = view_of(TEAM).items
    details = items.loc[items["Section"] == NEWLY, "Details"].tolist()

    assert [d.endswith("; Category: infrastructure") for d in details] == [
        True,
        False,
        True,
        False,
    ]
    assert details[1].endswith("; Message: AssertionError: total is 0; Category: product bug")
    assert details[3].endswith("; Message: Expected 3 items, found 2")  # none: nothing said


def test_the_chat_line_says_a_scenarios_categories_most_failures_first_as_the_alerts_do() -> None:
    lines = newly_lines(view_of(TEAM).chat(link_for))

    e = "https://dash.example/executions?id="
    assert lines == [
        "- Checkout \\*smoke\\*: scenario 7 on CHROME / Windows 11, IPHONE 8 / iOS, "
        f"SAFARI / macOS ([execution 2]({e}2)): new; category: infrastructure, product bug",
        f"- Checkout \\*smoke\\*: scenario 9 on CHROME / Windows 11 ([execution 2]({e}2)): new",
    ]


def test_a_rule_on_a_scenarios_name_reads_the_teams_names() -> None:
    by_name = rules(("flow", ".", "checkout flow"), scenario_pattern="^Add to basket$")

    view = view_of(by_name, names((9, "Add to basket", None)))

    assert newly(view)["Category"].tolist() == ["", "", "", "checkout flow"]
    assert newly_lines(view.chat(link_for))[1].endswith("): new; category: checkout flow")


def test_without_rules_or_with_none_that_applies_the_standup_is_unchanged() -> None:
    before = view_of(None)
    for team in (NO_RULES, rules(("never", "^Segfault", "product bug"))):
        view = view_of(team)
        assert "Category" not in newly(view).columns
        pd.testing.assert_frame_equal(newly(view), newly(before))
        pd.testing.assert_frame_equal(view.items, before.items)
        assert view.chat(link_for) == before.chat(link_for)
        assert view.chat(link_for, limit=1) == before.chat(link_for, limit=1)


def test_a_hostile_category_is_inert_text_in_the_chat_and_plain_text_in_the_table() -> None:
    hostile = "<b>x</b> @channel [a](http://e)"
    view = view_of(rules(("odd", "^Expected", hostile)))

    assert newly(view)["Category"].tolist() == ["", "", "", hostile]
    line = newly_lines(view.chat(link_for))[1]
    assert "<b>" not in line
    assert "@channel" not in line
    assert "[a](" not in line
    assert "http://e" not in line
    assert unescaped(line).endswith(f"): new; category: {hostile}")


def test_the_digest_line_ends_with_the_categories_it_is_given() -> None:
    digest = with_newly_failing(
        standup_digest(small_history(), standup_window(NOW, tz="Europe/Berlin")),
        read_results(),
    )

    plain = newly_lines(digest_markdown(digest))
    said = newly_lines(digest_markdown(digest, categories={(2, 9): "automation bug"}))

    assert said == [plain[0], plain[1] + "; category: automation bug"]
    assert plain[1] == "- Checkout \\*smoke\\*: scenario 9 on CHROME / Windows 11 (execution 2)"
    assert digest_markdown(digest, categories={}) == digest_markdown(digest)


def test_a_rule_this_version_cannot_use_is_left_out_and_said_under_the_section() -> None:
    team = rules(
        ("bad", "(x)\\1", "never"),  # RE2 cannot run a backreference: left out, said
        ("infra", "^TimeoutError", "infrastructure"),
    )

    view = view_of(team)

    section = next(s for s in view.sections if s.title == NEWLY)
    assert section.caption is not None
    assert section.caption.endswith(
        "1 rule of the team left out here: a pattern that cannot be used by this version "
        "(python -m dashboard rules list shows them)."
    )
    assert newly(view)["Category"].tolist() == ["infrastructure", "", "infrastructure", ""]
    plain = next(s for s in view_of(TEAM).sections if s.title == NEWLY)
    assert plain.caption is not None
    assert "left out" not in plain.caption
