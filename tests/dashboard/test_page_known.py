"""Marking from the pages, on the hand-built history (tests/dashboard/history_service.py): the
"Mark as known…" form on /flaky's failure groups turns their failures (and the flaky runs they
explain) from unresolved into known; a bad ticket is refused in a sentence with the form and
the page kept; the Known failures page lists the mark with its evidence and log and closes it;
a busy store shows the marks as last read, read-only, with one notice.

A mark is the gate's only input besides the service, so on a dashboard that serves a team (as
every dashboard here does: its connection is configured) only a signed-in viewer marks, under
the address they signed in with: the tests mark signed in as ann@example.com (AppTest's `user`,
as Streamlit reads it from its cookie). Without sign-in such a dashboard shows the marks
read-only, with one sentence saying why; one person's own dashboard (the demo, on loopback)
still marks under a typed name.

Each test keeps its stores in a folder of its own, so no mark outlives it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dashboard.analytics.failure_groups import normalise_message
from tests.dashboard import history_service as hand
from tests.dashboard.apptest import (
    COMPARE,
    ENVIRONMENTS,
    EXECUTIONS,
    FLAKY,
    HEALTH,
    RESULTS,
    SCENARIO,
    assert_no_failure,
    captions,
    metrics,
    notes,
    plain_notes,
    table_with,
)
from tests.dashboard.conftest import AppFactory
from tests.oidc_provider import auth_table
from tests.store.holder import holding

KNOWN = "app_pages/known.py"
ANN = "ann@example.com"
METADATA_URL = "https://id.example.com/.well-known/openid-configuration"
REDIRECT = "http://localhost:8501/oauth2callback"
TICKET = "https://jira.example.com/browse/SHOP-123"
TIMEOUT = normalise_message(hand.TIMEOUT_TEMPLATE.format(n=1200, hex="a1b2c3f0"))


def sign_in(at: AppTest, who: dict[str, Any] | None = None, **lists: Any) -> AppTest:
    """`at` with viewer sign-in configured (example.com admitted, then `lists`) and `who` signed
    in (default: Ann, her address verified; {} for nobody)."""
    at.secrets["auth"] = auth_table(METADATA_URL, REDIRECT)
    at.secrets["signin"] = {"allowed_domains": ["example.com"], **lists}
    who = {"email": ANN, "email_verified": True, "sub": "ann-1"} if who is None else who
    at.user = {"is_logged_in": True, **who} if who else {}
    return at


@pytest.fixture
def app(app: AppFactory) -> AppFactory:
    """The app under test with Ann signed in (see the module doc); `signed_in=False`: with no
    sign-in configured."""

    def make(page: str | None = None, *, signed_in: bool = True, **query: str) -> AppTest:
        at = app(page, **query)
        return sign_in(at) if signed_in else at

    return make


@pytest.fixture
def own_stores(app: AppFactory, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A store folder of this test's own (after `app`, which names the session's)."""
    folder = tmp_path / "stores"
    monkeypatch.setenv("QA_DASHBOARD_CACHE_DIR", str(folder))
    return folder


def groups(at: AppTest) -> Any:
    """Flaky's failure groups by message. Since #38 a group is one message in one scenario (the
    timeout is 15 failures in scenario 31 and 12 in scenario 34); a group mark covers its message
    in every scenario, so these tests count a message's failures over its scenarios."""
    table = table_with(at, "Message", "Failures")
    counts = [column for column in ("Failures", "Unresolved", "Known") if column in table]
    rest = [column for column in table.columns if column not in counts and column != "Message"]
    return table.groupby("Message", sort=False).agg(
        {**dict.fromkeys(counts, "sum"), **dict.fromkeys(rest, "first")}
    )


def mark(at: AppTest, place: str, what: str, *, ticket: str = TICKET) -> Any:
    """Save the "Mark as known…" form at `place` for its choice labelled `what`; the choices."""
    chosen = at.selectbox(key=f"mark.{place}.what")
    choices = list(chosen.options)
    chosen.set_value(choices.index(what))
    at.text_input(key=f"mark.{place}.ticket").input(ticket)
    at.button(key=f"FormSubmitter:mark.{place}-Save mark").click().run()
    return choices


def mark_timeout_group(at: AppTest, *, ticket: str = TICKET) -> None:
    what = at.selectbox(key="mark.groups.what")
    what.set_value(next(i for i, label in enumerate(what.options) if "TimeoutException" in label))
    at.text_input(key="mark.groups.ticket").input(ticket)
    at.text_input(key="mark.groups.owner").input("<b>QA</b> =1+1")
    at.button(key="FormSubmitter:mark.groups-Save mark").click().run()


def test_a_failure_group_marked_on_flaky_turns_its_failures_known(
    app: AppFactory, hand_built: hand.HistoryService, own_stores: Path
) -> None:
    at = app(FLAKY, tz="UTC")
    at.run()
    assert_no_failure(at)
    before = groups(at)
    assert before.loc[TIMEOUT, ["Failures", "Unresolved", "Known"]].tolist() == [27, 27, 0]
    flaky = table_with(at, "Evidence", "Timeline")
    whole = flaky[flaky["Environment"] == "all environments"].iloc[0]
    assert (whole["Unresolved"], whole["Known"]) == (5, 0)

    mark_timeout_group(at)

    assert_no_failure(at)
    after = groups(at)
    assert after.loc[TIMEOUT, ["Failures", "Unresolved", "Known", "Mark"]].tolist() == [
        27,
        0,
        27,
        "SHOP-123",
    ]
    assert after.iloc[1][["Known", "Mark"]].tolist() == [0, ""]  # the other group
    flaky = table_with(at, "Evidence", "Timeline")
    whole = flaky[flaky["Environment"] == "all environments"].iloc[0]
    # Scenario 31's five failed runs all failed with the timeout: all known; the score stays.
    assert (whole["Unresolved"], whole["Known"], whole["Mark"]) == (0, 5, "SHOP-123")
    assert whole["Evidence"] == "7 flips in 12 runs"
    assert "Marked Failures" in plain_notes(at, "info")
    assert "nothing on the service" in plain_notes(at, "info")
    assert "27 of the 45 failures are known (marked), 18 unresolved." in captions(at)


def test_a_bad_ticket_is_refused_in_a_sentence_and_nothing_else_is_lost(
    app: AppFactory, hand_built: hand.HistoryService, own_stores: Path
) -> None:
    at = app(FLAKY, tz="UTC", window="12")
    at.run()
    shown_before = table_with(at, "Evidence", "Timeline").to_dict()

    mark_timeout_group(at, ticket="javascript:alert(document.cookie)")

    assert_no_failure(at)
    assert "The ticket must be a web link starting with http:// or https://" in notes(at)
    assert groups(at).loc[TIMEOUT, "Known"] == 0
    assert table_with(at, "Evidence", "Timeline").to_dict() == shown_before
    assert at.text_input(key="mark.groups.ticket").value == "javascript:alert(document.cookie)"
    assert at.query_params["window"] == "12"
    # Nothing reached the store.
    at.switch_page(KNOWN).run()
    assert table_with(at, "Mark", "State").empty


def test_the_known_failures_page_lists_closes_and_keeps_the_mark(
    app: AppFactory, hand_built: hand.HistoryService, own_stores: Path
) -> None:
    at = app(FLAKY, tz="UTC")
    at.run()
    mark_timeout_group(at)

    at.switch_page(KNOWN)
    at.query_params.update(tz="UTC")
    at.run()
    assert_no_failure(at)
    marks = table_with(at, "Mark", "State")
    assert len(marks) == 1
    row = marks.iloc[0]
    assert row["State"] == "Open"
    assert row["Kind"] == "Known issue"
    assert row["Ticket"] == TICKET
    assert row["Owner"] == "<b>QA</b> =1+1"  # text, as typed
    assert row["By"] == ANN
    assert row["Target"].startswith('failures "TimeoutException')
    # Scenario 34 fails with the timeout in the newest executions: not fixed.
    assert row["Evidence"].startswith("failed in ")
    logs = [f.value for f in at.dataframe if "What" in f.value.columns]
    assert logs[0]["What"].iloc[0].startswith("known issue: failure group")

    close = next(b for b in at.button if b.label == "Close")
    close.click().run()

    assert_no_failure(at)
    assert table_with(at, "Mark", "State").empty  # the default filter lists open marks
    # Said once, above the list the closed mark has left.
    assert plain_notes(at, "info").count("it is kept, and no longer applies") == 1
    at.query_params["marks"] = "closed"
    at.run()
    closed = table_with(at, "Mark", "State").iloc[0]
    assert closed["State"] == "Closed"
    assert closed["Closed by"] == ANN  # the signed-in address, never typed
    at.switch_page(FLAKY).run()
    assert groups(at).loc[TIMEOUT, ["Unresolved", "Known"]].tolist() == [27, 0]


def test_a_busy_store_shows_the_marks_as_last_read_with_one_notice(
    app: AppFactory, hand_built: hand.HistoryService, own_stores: Path
) -> None:
    at = app(FLAKY, tz="UTC")
    at.run()
    mark_timeout_group(at)
    (store,) = own_stores.glob("*.duckdb")

    with holding(store):  # once the page's store has let go of the file (idle)
        # Refresh reads the marks again: the store is busy now.
        next(b for b in at.button if b.label == "Refresh data").click().run()
        assert_no_failure(at)
        said = plain_notes(at, "info")
        assert said.count("marks are shown as last read") == 1
        assert groups(at).loc[TIMEOUT, "Known"] == 27
        popover = at.get("popover")[0]
        assert popover.proto.popover.disabled


def test_a_scenario_marked_on_its_environment_is_known_in_the_environments_matrix(
    app: AppFactory, hand_built: hand.HistoryService, own_stores: Path
) -> None:
    """Scenario 32 fails in every run on Safari only: marked there, its 12 failed cells are
    known, its other cells and scenarios are untouched, and the pass rate without known
    failures has no verdict left."""
    at = app(ENVIRONMENTS, tz="UTC", plan=str(hand.PLAN_ID))
    at.run()
    assert_no_failure(at)
    matrix = table_with(at, "Pass rate", "Known").set_index(["Scenario", "Environment"])
    assert matrix.loc[
        (hand.SPECIFIC, hand.SAFARI_LABEL), ["Failed", "Unresolved", "Known"]
    ].tolist() == [12, 12, 0]
    failed_before = int(matrix["Failed"].sum())

    wanted = f"Scenario {hand.SPECIFIC} of {hand.PLAN_NAME} on {hand.SAFARI_LABEL}"
    mark(at, "environments", wanted, ticket="https://jira.example.com/browse/WEB-9")

    assert_no_failure(at)
    matrix = table_with(at, "Pass rate", "Known").set_index(["Scenario", "Environment"])
    safari = matrix.loc[(hand.SPECIFIC, hand.SAFARI_LABEL)]
    assert safari[["Failed", "Unresolved", "Known", "Mark"]].tolist() == [12, 0, 12, "WEB-9"]
    assert safari["Pass rate"] == 0
    assert pd.isna(safari["Pass rate without known"])
    others = matrix.drop(index=(hand.SPECIFIC, hand.SAFARI_LABEL))
    assert (others["Known"] == 0).all()
    assert int(matrix["Unresolved"].sum()) == failed_before - 12
    assert f"12 of the {failed_before} failures are known (marked)" in captions(at)


def test_plan_health_shows_known_and_unresolved_failures_and_the_rate_without_known(
    app: AppFactory, hand_built: hand.HistoryService, own_stores: Path
) -> None:
    at = app(HEALTH, tz="UTC")
    at.run()
    assert_no_failure(at)
    before = table_with(at, "Known 30 d").set_index("Id").loc[hand.PLAN_ID]
    assert before["Known 30 d"] == 0
    assert before["30 d without known"] == before["Pass rate 30 d"]
    failed = int(before["Unresolved 30 d"])
    assert failed >= 27

    at.switch_page(FLAKY).run()
    mark_timeout_group(at)
    at.switch_page(HEALTH).run()

    assert_no_failure(at)
    after = table_with(at, "Known 30 d").set_index("Id").loc[hand.PLAN_ID]
    # The timeout's 27 failures are all in plan 7's executions of the last 30 days.
    assert after[["Unresolved 30 d", "Known 30 d"]].tolist() == [failed - 27, 27]
    assert after["Pass rate 30 d"] == before["Pass rate 30 d"]  # the raw rate is kept
    assert after["30 d without known"] > after["Pass rate 30 d"]
    assert "27 of the" in captions(at)
    assert "Counted in the finished executions of the last 30 days." in captions(at)

    # The known counts are kept between reruns for the marks that applied: closing the mark
    # counts its failures as unresolved again at once.
    at.switch_page(KNOWN).run()
    next(b for b in at.button if b.label == "Close").click().run()
    at.switch_page(HEALTH).run()
    closed = table_with(at, "Known 30 d").set_index("Id").loc[hand.PLAN_ID]
    assert closed[["Unresolved 30 d", "Known 30 d"]].tolist() == [failed, 0]
    assert closed["30 d without known"] == closed["Pass rate 30 d"]


def test_compare_tells_known_failures_after_from_unresolved_ones(
    app: AppFactory, hand_built: hand.HistoryService, own_stores: Path
) -> None:
    """The latest two executions of plan 7: the flaky scenario newly fails with the timeout on
    3 environments; 34 (timeout, 3 environments), 32 and 35 (assertions) still fail."""
    at = app(COMPARE, tz="UTC", plan=str(hand.PLAN_ID), changes="false")
    at.run()
    assert_no_failure(at)
    assert "New failures: 3 unresolved, 0 known. Still failing: 5 unresolved, 0 known." in (
        captions(at)
    )

    at.switch_page(FLAKY).run()
    mark_timeout_group(at)
    at.switch_page(COMPARE)
    at.query_params.update(tz="UTC", plan=str(hand.PLAN_ID), changes="false")
    at.run()

    assert_no_failure(at)
    assert "New failures: 0 unresolved, 3 known. Still failing: 2 unresolved, 3 known." in (
        captions(at)
    )
    shown = table_with(at, "Change", "Mark")
    timeout = shown["Message after"].fillna("").str.startswith("TimeoutException")
    assert timeout.sum() == 6
    assert set(shown.loc[timeout, "Mark"]) == {"SHOP-123"}
    assert set(shown.loc[~timeout, "Mark"]) == {""}
    assert metrics(at)["Still failing"] == "5"  # the counts keep every failure


def test_the_executions_figures_count_known_failures_apart_and_rate_without_them(
    app: AppFactory, hand_built: hand.HistoryService, own_stores: Path
) -> None:
    at = app(EXECUTIONS, tz="UTC", plan=str(hand.PLAN_ID), range="7d")
    at.run()
    assert_no_failure(at)
    before = re.search(
        r"Failures in the finished executions: ([\d,]+) unresolved, 0 known\. Pass rate "
        r"without known failures ([\d.]+) % \(with them \2 %\)",
        captions(at),
    )
    assert before is not None, captions(at)
    failed = int(before.group(1))

    at.switch_page(FLAKY).run()
    mark_timeout_group(at)
    at.switch_page(EXECUTIONS)
    at.query_params.update(tz="UTC", plan=str(hand.PLAN_ID), range="7d")
    at.run()

    assert_no_failure(at)
    after = re.search(
        r"Failures in the finished executions: ([\d,]+) unresolved, 27 known\. Pass rate "
        r"without known failures ([\d.]+) % \(with them ([\d.]+) %\)",
        captions(at),
    )
    assert after is not None, captions(at)
    assert int(after.group(1)) == failed - 27
    assert after.group(3) == before.group(2)  # the raw rate is kept
    assert float(after.group(2)) > float(after.group(3))


def test_a_failed_result_is_marked_from_the_results_page(
    app: AppFactory, hand_built: hand.HistoryService, own_stores: Path
) -> None:
    latest = hand.RUNNING_EXECUTION - 1
    at = app(RESULTS, tz="UTC", execution=str(latest))
    at.run()
    assert_no_failure(at)
    before = re.search(r"0 of the (\d+) failures are known \(marked\)", captions(at))
    assert before is not None, captions(at)

    wanted = f"Scenario {hand.SPECIFIC} of {hand.PLAN_NAME} on {hand.SAFARI_LABEL}"
    choices = mark(at, "results", wanted, ticket="https://jira.example.com/browse/WEB-9")

    assert_no_failure(at)
    assert f"1 of the {before.group(1)} failures are known (marked)" in captions(at)
    assert 'Failures "AssertionError: expected {n} rows but found {n}" in every plan' in choices


def test_a_scenario_is_marked_from_its_history_and_its_failures_turn_known(
    app: AppFactory, hand_built: hand.HistoryService, own_stores: Path
) -> None:
    """Scenario 34 fails with the timeout on every environment from its 9th run on."""
    at = app(SCENARIO, tz="UTC", plan=str(hand.PLAN_ID), scenario=str(hand.BROKEN))
    at.run()
    assert_no_failure(at)
    before = re.search(r"0 of the (\d+) failures are known \(marked\)", captions(at))
    assert before is not None, captions(at)

    mark(at, "scenario", f"Scenario {hand.BROKEN} of {hand.PLAN_NAME}")

    assert_no_failure(at)
    failures = before.group(1)
    assert f"{failures} of the {failures} failures are known (marked)" in captions(at)


def test_a_signed_in_viewer_marks_under_their_address_without_typing_a_name(
    app: AppFactory, hand_built: hand.HistoryService, own_stores: Path
) -> None:
    at = app(FLAKY, tz="UTC")
    at.run()
    assert not [t for t in at.text_input if t.key == "mark.groups.name"]
    assert f"Marked as {ANN}." in captions(at)

    mark_timeout_group(at)

    assert_no_failure(at)
    at.switch_page(KNOWN)
    at.query_params.update(tz="UTC")
    at.run()
    assert table_with(at, "Mark", "State").iloc[0]["By"] == ANN


MARKING = ("Mark as known…", "Confirm or dismiss…", "Change…", "Close", "Close: looks fixed")


def offered(at: AppTest) -> list[tuple[str, bool]]:
    """The marking controls drawn (a popover when usable, a button when not; Close is always a
    button): each one's label and whether it is enabled."""
    drawn = [(str(b.label), not b.disabled) for b in at.button]
    drawn += [(str(p.proto.popover.label), not p.proto.popover.disabled) for p in at.get("popover")]
    return sorted(item for item in drawn if item[0] in MARKING)


def test_a_teams_dashboard_without_sign_in_shows_the_marks_and_changes_none(
    app: AppFactory, hand_built: hand.HistoryService, own_stores: Path
) -> None:
    """The hostile review: anyone who reached a team's dashboard could close the mark that kept
    the gate green, or add one under "lead@example.com". Without sign-in nobody may."""
    signed = app(FLAKY, tz="UTC")
    signed.run()
    mark_timeout_group(signed)
    assert_no_failure(signed)

    at = app(FLAKY, signed_in=False, tz="UTC")
    at.run()
    assert_no_failure(at)
    assert groups(at).loc[TIMEOUT, "Known"] == 27  # the mark is read, and counts
    assert not [t for t in at.text_input if str(t.key).startswith("mark.")]  # no form at all
    assert not [w for w in at.selectbox if str(w.key).startswith("mark.")]
    assert offered(at) == [("Mark as known…", False)]

    at.switch_page(KNOWN)
    at.query_params.update(tz="UTC")
    at.run()
    assert_no_failure(at)
    assert len(table_with(at, "Mark", "State")) == 1
    assert (
        "Marks are read-only here: this dashboard serves a team and nobody signs in to it, so a "
        "mark could not truthfully say who made it." in plain_notes(at, "info")
    )
    assert not [t for t in at.text_input if str(t.key).endswith(".name")]
    assert offered(at) == [("Change…", False), ("Close", False)]


def test_a_viewer_off_the_markers_list_reads_why_and_changes_nothing(
    app: AppFactory, hand_built: hand.HistoryService, own_stores: Path
) -> None:
    signed = app(FLAKY, tz="UTC")
    signed.run()
    mark_timeout_group(signed)

    at = sign_in(
        app(KNOWN, signed_in=False, tz="UTC"),
        {"email": "bob@example.com", "email_verified": True, "sub": "bob-2"},
        markers=[ANN],
    )
    at.run()
    assert_no_failure(at)
    assert (
        "Marks are read-only for bob@example.com: only this dashboard's markers may mark, "
        "change or close them. Ask its operator to add you to markers." in plain_notes(at, "info")
    )
    assert offered(at) == [("Change…", False), ("Close", False)]

    ann = sign_in(app(KNOWN, signed_in=False, tz="UTC"), markers=[ANN])
    ann.run()
    assert offered(ann) == [("Change…", True), ("Close", True)]


def test_one_persons_demo_on_loopback_marks_under_a_typed_name_and_not_beyond(
    app: AppFactory, own_stores: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`make run` on the demo serves this machine only (127.0.0.1): its one viewer types a name.
    The same demo listening on a LAN address serves whoever reaches it: read-only."""
    from streamlit import config

    before = config.get_option("server.address")
    try:
        config.set_option("server.address", "127.0.0.1")
        mine = app(FLAKY, signed_in=False, tz="UTC")
        mine.run()
        assert_no_failure(mine)
        assert offered(mine) == [("Mark as known…", True)]
        assert [t for t in mine.text_input if t.key == "mark.groups.name"]

        config.set_option("server.address", "192.0.2.10")  # a LAN address
        everyone = app(FLAKY, signed_in=False, tz="UTC")
        everyone.run()
        assert_no_failure(everyone)
        assert offered(everyone) == [("Mark as known…", False)]
        assert not [t for t in everyone.text_input if t.key == "mark.groups.name"]
    finally:
        config.set_option("server.address", before)
