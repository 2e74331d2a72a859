"""The standup, its chat digest and the Known failures page call a scenario by the team's name
(#38) where they show its id: the newly failing table gains a Name beside the Scenario id (and
its CSV the name), the chat says "Add to basket (7, owner ana@example.com)" as the alerts do,
the marking form offers "Add to basket (7) of Checkout", and a scenario's mark reads "Add to
basket (7) of Checkout". Unnamed scenarios read as before; a hostile name stays text."""

from __future__ import annotations

import re

import pandas as pd

from dashboard.analytics.group_rules import TeamRules
from dashboard.analytics.outages import OUTAGE_COLUMNS
from dashboard.columns import marks as columns
from dashboard.columns.marks import MARK_COLUMNS
from dashboard.columns.shapes import empty, typed_rows
from dashboard.data.store.types import SCENARIO_NAME_COLUMNS
from dashboard.present.formatting import WORD_JOINER
from dashboard.present.known import MarkFilter
from dashboard.present.known_view import known_view
from dashboard.present.standup_view import StandupView, standup_needs, standup_view
from tests.analytics.test_marks import NOW as MARKS_NOW
from tests.analytics.test_marks import clean_runs, marks
from tests.analytics.test_marks import mark as known_mark
from tests.analytics.test_standup_triage import mark
from tests.present.test_digest import link_for, read_results, small_history
from tests.present.test_known_view import log
from tests.present.test_standup_view import NAMES as PLAN_NAMES
from tests.present.test_standup_view import NOW, WINDOW, fanout, no_marks

HOSTILE = "<b>x</b> @channel [a](http://e)"


def names(*rows: tuple[int, str, str | None]) -> pd.DataFrame:
    return typed_rows(
        [{"scenario_id": s, "name": n, "owner": o, "tags": None} for s, n, o in rows],
        SCENARIO_NAME_COLUMNS,
    )


BASKET = names((7, "Add to basket", "ana@example.com"))


def view_of(
    named: pd.DataFrame | None,
    marked: pd.DataFrame | None = None,
    *,
    read: pd.DataFrame | None = None,
    rules: TeamRules | None = None,
) -> StandupView:
    """The standup of the small history (`test_digest`), its results `read` (the digest's by
    default), with these scenario names, marks and team rules."""
    needs = standup_needs(
        small_history(),
        no_marks() if marked is None else marked,
        window=WINDOW,
        now=NOW.to_pydatetime(),
    )
    return standup_view(
        needs,
        fanout(read_results() if read is None else read),
        link_for=link_for,
        plan_names=PLAN_NAMES,
        scenario_link=lambda plan, scenario: f"scenario?plan={plan}&scenario={scenario}",
        names=named,
        rules=rules,
    )


def unescaped(markdown: str) -> str:
    return re.sub(r"\\(.)", r"\1", markdown).replace(WORD_JOINER, "")


def newly(view: StandupView) -> pd.DataFrame:
    return next(s.section.rows for s in view.sections if s.title == "Newly failing scenarios")


def test_a_newly_failing_scenario_shows_its_name_beside_its_id() -> None:
    view = view_of(BASKET)

    rows = newly(view)
    assert rows["Scenario"].tolist() == [7, 7]
    assert rows["Name"].tolist() == ["Add to basket", "Add to basket"]
    # After the history link, as on the other pages: the key columns keep their place.
    assert list(rows.columns).index("Name") == list(rows.columns).index("History") + 1
    details = view.items[view.items["Section"] == "Newly failing scenarios"]["Details"]
    assert all(d.startswith("Scenario: 7; ") for d in details)
    assert all("; Name: Add to basket" in d for d in details)
    labels = [choice.label for choice in view.mark_choices]
    assert any(label.startswith("Add to basket (7) of Checkout *smoke* on ") for label in labels)
    assert "Add to basket (7) of Checkout *smoke*" in labels


def test_without_names_the_standup_reads_as_before() -> None:
    for view in (view_of(None), view_of(names())):
        assert "Name" not in newly(view).columns
        assert any(c.label.startswith("Scenario 7 of Checkout") for c in view.mark_choices)
        assert ": scenario 7 on " in view.chat(link_for)


def test_the_chat_names_a_newly_failing_scenario_and_its_owner_as_the_alerts_do() -> None:
    text = view_of(BASKET).chat(link_for)

    (line,) = [line for line in text.splitlines() if "Add to basket" in line]
    assert "Add to basket (7, owner ana@\u2060example\u2060.com) on " in line
    assert unescaped(line).startswith("- Checkout *smoke*: Add to basket (7, owner ana@example")


def test_a_hostile_name_is_inert_text_on_the_standup_and_in_the_chat() -> None:
    view = view_of(names((7, HOSTILE, None)))

    assert newly(view)["Name"].tolist() == [HOSTILE, HOSTILE]  # shown as text by the table
    text = view.chat(link_for)
    (line,) = [line for line in text.splitlines() if "channel" in line]
    assert "<b>" not in line
    assert "@channel" not in line
    assert "[a](" not in line
    assert "http://e" not in line
    assert f"{HOSTILE} (7) on " in unescaped(line)


def test_a_scenarios_mark_expiring_soon_is_named_on_the_standup_and_in_the_chat() -> None:
    expiring = typed_rows(
        [mark("SHOP-9", columns.SCENARIO, plan_id=2, scenario_id=3, expires_on=NOW.normalize())],
        MARK_COLUMNS,
    )
    view = view_of(names((3, "Search works", None)), expiring)

    (line,) = [line for line in view.folded_lines if line.startswith("Marks expiring soon")]
    assert "(Search works (3) of Search)" in line
    assert "(Search works (3) of Search)" in unescaped(view.chat(link_for))


def test_the_known_failures_page_names_a_scenarios_mark() -> None:
    shown = known_view(
        marks(known_mark("fixed", columns.SCENARIO, plan_id=1, scenario_id=1)),
        log("fixed"),
        clean_runs(12, fail_at=1),
        empty(OUTAGE_COLUMNS),
        now=MARKS_NOW.to_pydatetime(),
        tz="UTC",
        mark_filter=MarkFilter.ALL,
        plan_names={1: "Checkout"},
        names=names((1, "Login works", "ana@example.com")),
    )

    assert shown.table.display["Target"].tolist() == ["Login works (1) of Checkout"]
    (detail,) = shown.details
    assert detail.heading == "FIXED \u00b7 Known issue \u00b7 Login works (1) of Checkout (Open)"
