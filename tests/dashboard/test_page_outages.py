"""Likely outages on the pages, on the hand-built history with one night the grid was down
(tests/dashboard/outage_history.py): execution 1011 (`LATE`), every one of its 15 results
failed with the grid's message.

Executions, plan health and environments leave it out of their figures by default, say so in a
caption, and count it once "Include outages" is on (`outages=true` in the link); the executions
table lists it either way, flagged in its Status. Compare passes it over by default and, when
it is compared, says so above the comparison and counts its failures apart. A mark whose target
has not failed since the early outage (`EARLY`) is closed in one click on /known.

Each test keeps its stores in a folder of its own, so no mark outlives it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.dashboard import history_service as hand
from tests.dashboard.apptest import (
    COMPARE,
    ENVIRONMENTS,
    EXECUTIONS,
    HEALTH,
    RESULTS,
    TIME_TO_GREEN,
    assert_no_failure,
    captions,
    metrics,
    notes,
    plain_notes,
    table_with,
)
from tests.dashboard.conftest import AppFactory
from tests.dashboard.outage_history import (
    EARLY,
    GRID_GROUP,
    OutageHistory,
    outage_execution,
    serve_outage_history,
)
from tests.dashboard.test_page_known import ANN, mark, sign_in

KNOWN = "app_pages/known.py"
OUTAGE = outage_execution(10)  # 1011
LEFT_OUT = (
    "1 likely outage (an execution where at least 80% of its 5 or more results failed, or one "
    'a viewer confirmed) left out of these figures and pass rates: "Include outages" counts it.'
)
COUNTED = (
    "1 outage (an execution where at least 80% of its 5 or more results failed, or one a "
    "viewer confirmed) counted in these figures."
)


def serving(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, history: AbstractContextManager[OutageHistory]
) -> Iterator[OutageHistory]:
    monkeypatch.setenv("QA_DASHBOARD_CACHE_DIR", str(tmp_path / "stores"))
    with history as service:
        monkeypatch.setenv("QA_DASHBOARD_BASE_URL", service.base_url)
        monkeypatch.setenv("QA_DASHBOARD_TOKEN", "outage-history-token")
        monkeypatch.setenv("QA_DASHBOARD_COMPANY_ID", "7")
        yield service


@pytest.fixture
def late(
    app: AppFactory, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[OutageHistory]:
    """The outage in execution 1011, the plan's newest finished but one (after `app`)."""
    yield from serving(monkeypatch, tmp_path, serve_outage_history())


@pytest.fixture
def early(
    app: AppFactory, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[OutageHistory]:
    """The outage in execution 1002, older than every scenario's last 10 runs (after `app`)."""
    yield from serving(monkeypatch, tmp_path, serve_outage_history(EARLY))


def include_outages(at: AppTest, page: str) -> None:
    at.toggle(key=f"{page}.include_outages").set_value(True).run()
    assert_no_failure(at)
    assert at.query_params["outages"] == "true"


# -- executions -----------------------------------------------------------------------------------


def test_executions_leave_the_outage_out_of_kpis_and_charts_and_flag_it_in_the_table(
    app: AppFactory, late: OutageHistory
) -> None:
    at = app(EXECUTIONS, tz="UTC", plan=str(hand.PLAN_ID), range="7d")
    at.run()

    assert_no_failure(at)
    # 12 finished executions and the running one; the rate without 1011: 137 of 177 verdicts.
    assert metrics(at)["Executions"] == "13"
    assert metrics(at)["Pass rate"] == "77.4 %"
    shown = captions(at)
    assert LEFT_OUT + " Outages here: #1011. The table lists every execution" in shown
    assert "Failures in the finished executions: 40 unresolved, 0 known." in shown
    assert "1 likely outage left out (Include outages counts it); only results" in shown
    table = table_with(at, "Id", "Status").set_index("Id")
    assert len(table) == 13
    assert table.loc[OUTAGE, "Status"] == "\u2716 FAILURE (likely outage)"
    assert not table.drop(index=OUTAGE)["Status"].str.contains("outage").any()

    include_outages(at, "executions")

    # Every finished execution's verdicts: 137 of 192.
    assert metrics(at)["Pass rate"] == "71.4 %"
    assert metrics(at)["Executions"] == "13"
    shown = captions(at)
    assert COUNTED + " Outages here: #1011." in shown
    assert "Failures in the finished executions: 55 unresolved, 0 known." in shown
    assert "left out (Include outages" not in shown
    table = table_with(at, "Id", "Status").set_index("Id")
    assert table.loc[OUTAGE, "Status"] == "\u2716 FAILURE (likely outage)"  # still named


def test_a_bad_outages_value_is_said_and_the_outage_stays_left_out(
    app: AppFactory, late: OutageHistory
) -> None:
    at = app(EXECUTIONS, tz="UTC", plan=str(hand.PLAN_ID), range="7d", outages="maybe")
    at.run()

    assert_no_failure(at)
    assert (
        'The link\'s "outages" value "maybe" is not true or false, so "include outages" is off.'
        in notes(at)
    )
    assert metrics(at)["Pass rate"] == "77.4 %"
    assert at.toggle(key="executions.include_outages").value is False


# -- plan health and environments -----------------------------------------------------------------


def test_plan_health_leaves_the_outage_out_until_it_is_included(
    app: AppFactory, late: OutageHistory
) -> None:
    at = app(HEALTH, tz="UTC")
    at.run()

    assert_no_failure(at)
    assert LEFT_OUT in captions(at)
    row = table_with(at, "Known 30 d").set_index("Id").loc[hand.PLAN_ID]
    columns = ["Pass rate 30 d", "Executions 30 d", "Unresolved 30 d"]
    assert row[columns].tolist() == [77.4, 12, 40]
    # How long plans stay red leaves it out too: 12 finished of plan 7, 2 of plan 8, 1 running.
    assert red_caption(at).startswith("From 14 executions, ")

    include_outages(at, "health")

    assert COUNTED in captions(at)
    row = table_with(at, "Known 30 d").set_index("Id").loc[hand.PLAN_ID]
    # One execution more, its 15 failures more, 15 verdicts none of which passed.
    assert row[columns].tolist() == [71.4, 13, 55]
    assert red_caption(at).startswith("From 15 executions, ")


def red_caption(at: AppTest) -> str:
    """The caption of plan health's "How long plans stay red"."""
    return next(c for c in captions(at).split("\n") if "Plans red now, or with a red stretch" in c)


def test_environments_leave_the_outage_out_until_it_is_included(
    app: AppFactory, late: OutageHistory
) -> None:
    at = app(ENVIRONMENTS, tz="UTC", plan=str(hand.PLAN_ID))
    at.run()

    assert_no_failure(at)
    assert LEFT_OUT in captions(at)
    assert "From 11 executions of plan Hand-built plan" in captions(at)
    matrix = table_with(at, "Pass rate", "Known").set_index(["Scenario", "Environment"])
    chrome = (hand.SLOWING, "CHROME / Windows 10")  # passes in every run but the outage
    assert matrix.loc[chrome, ["Pass rate", "Failed", "Executions"]].tolist() == [100.0, 0, 11]
    assert int(matrix["Failed"].sum()) == 40

    include_outages(at, "environments")

    assert COUNTED in captions(at)
    assert "From 12 executions of plan Hand-built plan" in captions(at)
    matrix = table_with(at, "Pass rate", "Known").set_index(["Scenario", "Environment"])
    assert matrix.loc[chrome, ["Pass rate", "Failed", "Executions"]].tolist() == [91.7, 1, 12]
    assert int(matrix["Failed"].sum()) == 55  # each of the outage's 15 cells failed once more


# -- compare --------------------------------------------------------------------------------------


def test_compare_passes_the_outage_over_by_default_and_says_why(
    app: AppFactory, late: OutageHistory
) -> None:
    at = app(COMPARE, tz="UTC", plan=str(hand.PLAN_ID))
    at.run()

    assert_no_failure(at)
    latest = hand.RUNNING_EXECUTION - 1  # 1012
    assert (at.query_params["before"], at.query_params["after"]) == (str(OUTAGE - 1), str(latest))
    assert plain_notes(at, "info").startswith(
        "#1011 is a likely outage, newer than the executions compared: passed over by default"
    )
    assert plain_notes(at, "warning") == ""  # neither side is an outage
    labels = at.selectbox(key="compare.after").options
    assert [label for label in labels if "outage" in label] == [
        next(label for label in labels if label.startswith("#1011, ")),
    ]
    assert labels[[label.split(",")[0] for label in labels].index("#1011")].endswith(
        "(likely outage)"
    )
    assert "New failures: 3 unresolved, 0 known. Still failing: 5 unresolved, 0 known." in (
        captions(at)
    )


def test_an_outage_compared_after_is_said_above_and_its_failures_counted_apart(
    app: AppFactory, late: OutageHistory
) -> None:
    at = app(
        COMPARE,
        tz="UTC",
        plan=str(hand.PLAN_ID),
        before=str(OUTAGE - 1),
        after=str(OUTAGE),
        changes="false",
    )
    at.run()

    assert_no_failure(at)
    banner = plain_notes(at, "warning")
    assert banner.startswith(f"After: {hand.PLAN_NAME}, execution 1011 (")
    assert f'likely outage, 15 of 15 results failed, most with "{GRID_GROUP}".' in banner
    assert "\n" not in banner  # one line
    assert plain_notes(at, "info") == ""  # not the default pair: nothing passed over
    # 1010 failed 5 cells (32 on Safari, 34 everywhere, 35 on Firefox 129); 1011 all 15.
    assert metrics(at)["New failures"] == "10"  # the tiles count every cell
    assert metrics(at)["Still failing"] == "5"
    assert (
        "New failures: 0 unresolved, 0 known, 10 in the outage. "
        "Still failing: 0 unresolved, 0 known, 5 in the outage." in captions(at)
    )
    shown = table_with(at, "Change", "After")
    assert set(shown["After"]) == {"\u2716 failed (outage)"}
    assert not shown["Before"].str.contains("outage").any()


def test_an_outage_compared_before_makes_its_fixes_the_outage_ending(
    app: AppFactory, late: OutageHistory
) -> None:
    at = app(
        COMPARE,
        tz="UTC",
        plan=str(hand.PLAN_ID),
        before=str(OUTAGE),
        after=str(OUTAGE + 1),
    )
    at.run()

    assert_no_failure(at)
    assert plain_notes(at, "warning").startswith(f"Before: {hand.PLAN_NAME}, execution 1011 (")
    # 1012 fails 8 of the 15 cells that all failed in 1011: 7 fixed, 8 still failing.
    assert metrics(at)["Fixed"] == "7"
    shown = captions(at)
    assert "Still failing: 8 unresolved, 0 known, 0 in the outage." in shown
    assert "Fixed: 7 of 7 had failed in the outage before, so the fix is the outage ending." in (
        shown
    )


# -- known failures: closed in one click when it looks fixed ---------------------------------------


def test_a_mark_that_looks_fixed_is_closed_in_one_click_and_logged(
    app: AppFactory, early: OutageHistory
) -> None:
    """Marked from the early outage's results: scenario 33 on Chrome failed only there (its
    last 10 runs passed), scenario 32 on Safari fails in every run. A team's dashboard (its
    connection is configured): Ann signs in to mark and close."""
    at = sign_in(app(RESULTS, tz="UTC", execution=str(outage_execution(EARLY))))
    at.run()
    assert_no_failure(at)
    mark(at, "results", f"Scenario {hand.SLOWING} of {hand.PLAN_NAME} on CHROME / Windows 10")
    mark(at, "results", f"Scenario {hand.SPECIFIC} of {hand.PLAN_NAME} on {hand.SAFARI_LABEL}")
    assert_no_failure(at)

    at.switch_page(KNOWN)
    at.query_params.update(tz="UTC")
    at.run()
    assert_no_failure(at)
    marks = table_with(at, "Mark", "State").set_index("Target")
    fixed_target = f"scenario {hand.SLOWING} of {hand.PLAN_NAME} on CHROME / Windows 10"
    failing_target = f"scenario {hand.SPECIFIC} of {hand.PLAN_NAME} on {hand.SAFARI_LABEL}"
    since = late_runs_since(early)
    assert marks.loc[fixed_target, "State"] == "Open (looks fixed)"
    assert marks.loc[fixed_target, "Evidence"] == f"0 failures in the last 10 runs since {since}"
    assert marks.loc[failing_target, "State"] == "Open"
    buttons = [b.label for b in at.button if b.label.startswith("Close")]
    assert sorted(buttons) == ["Close", "Close: looks fixed"]
    fixed_id = marks.loc[fixed_target, "Mark"]

    clicked_at = datetime.now(UTC)
    next(b for b in at.button if b.label == "Close: looks fixed").click().run()

    assert_no_failure(at)
    assert f"Closed mark {fixed_id}: it is kept, and no longer applies." in plain_notes(at, "info")
    still_open = table_with(at, "Mark", "State")
    assert still_open["Target"].tolist() == [failing_target]  # the open marks are listed
    at.query_params["marks"] = "closed"
    at.run()
    closed = table_with(at, "Mark", "State")
    assert closed[["Target", "State", "Closed by"]].values.tolist() == [
        [fixed_target, "Closed", ANN]
    ]
    assert pd.Timestamp(closed["Closed"].iloc[0]) >= pd.Timestamp(clicked_at).floor("s")
    (log,) = [f.value for f in at.dataframe if "What" in f.value.columns]
    assert log["#"].tolist() == [1, 2]
    last = log.iloc[-1]
    assert last["Who"] == ANN
    assert pd.Timestamp(last["When"]) >= pd.Timestamp(clicked_at).floor("s")
    assert f"looks fixed: 0 failures in the last 10 runs since {since}" in last["What"]


def late_runs_since(service: OutageHistory) -> str:
    """The day of the oldest of the last 10 runs ("26 Nov"): the third finished execution."""
    start: Any = service.start(hand.FINISHED - 10)
    return f"{start.day} {start:%b}"


def test_time_to_green_leaves_the_outage_out_of_its_failure_ages_until_it_is_included(
    app: AppFactory, late: OutageHistory
) -> None:
    at = app(TIME_TO_GREEN, tz="UTC")
    at.run()

    assert_no_failure(at)
    assert LEFT_OUT in captions(at)
    assert GRID_GROUP not in table_with(at, "Message", "First seen")["Message"].tolist()

    include_outages(at, "time-to-green")

    assert COUNTED in captions(at)
    assert GRID_GROUP in table_with(at, "Message", "First seen")["Message"].tolist()
