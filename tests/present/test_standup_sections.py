"""The standup page's sections: fixed order and titles, at most five shown, links, the CSV."""

from __future__ import annotations

import dataclasses
import re

import pandas as pd

from dashboard.analytics.standup import NEWLY_FAILING_COLUMNS, standup_digest
from dashboard.analytics.windows import standup_window
from dashboard.present import standup
from dashboard.present.key_columns import KEY_COLUMNS, section_key
from dashboard.present.standup import (
    PRESENTER_LEAVES_OUT,
    SHOWN_PER_SECTION,
    column_order,
    items_csv_frame,
    sections,
)
from tests.analytics.frames import execution, executions, ts
from tests.present.test_digest import NOW, link_for, small_history


def test_five_sections_in_their_order_with_an_empty_text_each() -> None:
    digest = standup_digest(small_history(), standup_window(NOW, tz="Europe/Berlin"))

    every = sections(digest, link_for)

    assert [s.title for s in every] == [
        "Turned red",
        "Fixed",
        "Still failing",
        "Newly failing scenarios",
        "Slower",
    ]
    by_title = {s.title: s for s in every}
    assert by_title["Turned red"].rows["Plan"].tolist() == ["Checkout *smoke*"]
    assert by_title["Turned red"].rows["Evidence"].tolist() == [
        "https://dash.example/executions?id=2"
    ]
    assert by_title["Fixed"].rows.empty
    assert by_title["Fixed"].empty_text == "Nothing fixed"
    assert by_title["Still failing"].rows["Plan"].tolist() == ["Search"]
    assert by_title["Still failing"].rows["Executions"].tolist() == [2]
    assert by_title["Slower"].rows["Slower by"].tolist() == ["+58 %"]
    # Results were not given: the section says it was not computed, rather than "nothing".
    assert not by_title["Newly failing scenarios"].computed


def test_plan_and_evidence_lead_and_presenter_mode_leaves_out_what_a_tv_can_spare() -> None:
    digest = standup_digest(small_history(), standup_window(NOW, tz="Europe/Berlin"))
    by_title = {s.title: s for s in sections(digest, link_for, scenario_link=lambda p, s: "h")}

    for title, section in by_title.items():
        shown = column_order(section)
        assert shown[:2] == ["Plan", "Evidence"], title
        assert sorted(shown) == sorted(section.rows.columns), title  # every column, once
        presented = column_order(section, present=True)
        left_out = set(PRESENTER_LEAVES_OUT.get(title, ()))
        # names columns the section has (a category only when a team rule gives one)
        assert left_out - {"Category"} <= set(shown), title
        left_out &= set(shown)
        assert presented == [c for c in shown if c not in left_out], title
    assert column_order(by_title["Turned red"], present=True) == ["Plan", "Evidence", "Failed in"]
    assert column_order(by_title["Still failing"], present=True) == [
        "Plan",
        "Evidence",
        "Red since",
        "Executions",
    ]


def test_more_than_five_items_collapse_into_and_n_more() -> None:
    rows = []
    for plan in range(1, 9):  # eight plans that passed, then failed in the window
        rows.append(execution(plan * 10, plan, "2025-04-04 10:00", "pass", plan=f"Plan {plan}"))
        rows.append(execution(plan * 10 + 1, plan, "2025-04-07 08:00", "fail", plan=f"P{plan}"))
    digest = standup_digest(executions(rows), standup_window(ts("2025-04-07 10:00")))

    red = sections(digest, link_for)[0]

    assert len(red.rows) == 8
    assert len(red.shown) == SHOWN_PER_SECTION
    assert red.more == 3


def test_the_csv_lists_every_item_with_its_section_and_link() -> None:
    digest = standup_digest(small_history(), standup_window(NOW, tz="Europe/Berlin"))

    frame = items_csv_frame(sections(digest, link_for))

    assert list(frame.columns) == ["Section", "Plan", "Details", "Link"]
    assert frame["Section"].tolist() == ["Turned red", "Still failing", "Slower"]
    assert frame["Link"].iloc[0] == "https://dash.example/executions?id=2"


def test_a_newly_failing_row_without_a_plan_id_has_no_history_link_and_keeps_the_rest() -> None:
    digest = standup_digest(small_history(), standup_window(NOW, tz="Europe/Berlin"))
    # Hand-built: one row of a known plan, one whose execution named no plan (the service may
    # leave planId out); the second can have no history page, but it is still listed.
    newly = pd.DataFrame(
        {
            "plan_id": [1, None],
            "plan": ["Checkout *smoke*", "Nightly"],
            "execution_id": [2, 7],
            "previous_execution_id": [1, 6],
            "scenario_id": [31, 32],
            "env_key": ["chrome", "safari"],
            "environment": ["CHROME 130 / Linux", "SAFARI 17 / macOS"],
            "result_id": [501, 502],
            "message": ["timeout", None],
            "previous_environment": ["CHROME 130 / Linux", "SAFARI 17 / macOS"],
            "browser": [None, None],
            "version": [None, None],
            "previous_version": [None, None],
        }
    ).astype(NEWLY_FAILING_COLUMNS)
    digest = dataclasses.replace(digest, newly_failing=newly)

    rows = {
        s.title: s
        for s in sections(digest, link_for, scenario_link=lambda p, s: f"scenario?plan={p}&s={s}")
    }["Newly failing scenarios"].rows

    # No link: a missing value (the table shows an empty cell, the CSV an empty field).
    assert rows["History"].iloc[0] == "scenario?plan=1&s=31"
    assert pd.isna(rows["History"].iloc[1])
    assert rows["Plan"].tolist() == ["Checkout *smoke*", "Nightly"]
    assert rows["Scenario"].tolist() == [31, 32]
    assert rows["Evidence"].tolist() == [
        "https://dash.example/executions?id=2",
        "https://dash.example/executions?id=7",
    ]


def test_a_pass_rate_change_that_rounds_to_nothing_is_neither_coloured_nor_an_arrow() -> None:
    assert standup.rate_change(0.00004) == standup.RateChange(
        "0.0 pts", delta_color="off", delta_arrow="off"
    )
    assert standup.rate_change(-0.0004) == standup.RateChange(
        "0.0 pts", delta_color="off", delta_arrow="off"
    )
    assert standup.rate_change(0.025) == standup.RateChange("+2.5 pts")
    assert standup.rate_change(-0.1) == standup.RateChange("-10.0 pts")
    assert standup.rate_change(None) == standup.RateChange(None)


def test_the_normal_view_puts_the_columns_a_lead_needs_first() -> None:
    """What `present.key_columns` names comes before what a narrow screen can spare."""
    digest = standup_digest(small_history(), standup_window(NOW, tz="Europe/Berlin"))
    by_title = {s.title: s for s in sections(digest, link_for, scenario_link=lambda p, s: "h")}

    for title, section in by_title.items():
        needed = KEY_COLUMNS["standup"][section_key(title)]
        shown = column_order(section)
        assert set(shown[: len(needed)]) == set(needed), title
    assert column_order(by_title["Turned red"])[-1] == "Passed in"


def test_an_execution_of_the_last_six_days_is_named_by_its_weekday() -> None:
    digest = standup_digest(small_history(), standup_window(NOW, tz="Europe/Berlin"))
    by_title = {s.title: s for s in sections(digest, link_for)}
    latest = by_title["Still failing"].rows["Latest"].iloc[0]
    assert re.fullmatch(r"#\d+, (Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d\d:\d\d", latest), latest
