"""The Plan health page, run with AppTest on the demo data (its clock: 20 Nov 2026, 18:00 UTC)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from api_client import ApiClient, Execution, ExecutionQuery
from dashboard.analytics.outages import OUTAGE_MIN_RESULTS, OUTAGE_SHARE
from sandbox import RunningSandbox
from tests.dashboard import history_service as hand
from tests.dashboard.apptest import (
    HEALTH,
    assert_no_failure,
    assert_red_first,
    captions,
    notes,
    table_with,
)
from tests.dashboard.conftest import AppFactory
from tests.dashboard.outage_history import OutageHistory, serve_outage_history
from tests.dashboard.test_page_outages import include_outages, serving


def likely_outage(execution: Execution) -> bool:
    """The outage rule (`analytics.outages`) on the service's summary of an execution."""
    summary = execution.result_summary
    verdicts = sum(summary.get(s, 0) for s in ("SUCCESS", "FAILURE", "ERROR", "WARNING"))
    failed = summary.get("FAILURE", 0) + summary.get("ERROR", 0)
    return verdicts >= OUTAGE_MIN_RESULTS and failed >= OUTAGE_SHARE * verdicts


@pytest.fixture
def demo_health(opened: dict[str, AppTest], app: AppFactory) -> AppTest:
    """The page on the demo, its days in Europe/Istanbul: run once, never changed."""
    if "demo" not in opened:
        at = app(HEALTH, tz="Europe/Istanbul")
        at.run()
        opened["demo"] = at
    return opened["demo"]


def test_one_row_per_plan_that_ran_with_rates_and_a_sparkline(
    demo_health: AppTest, sandbox: RunningSandbox, oracle: ApiClient
) -> None:
    now = sandbox.settings.now
    month = oracle.all_executions(ExecutionQuery(date_from=now - timedelta(days=30)))
    at = demo_health

    assert_no_failure(at)
    assert [t.value for t in at.title] == ["Plan health"]
    table = at.dataframe[0].value
    assert sorted(table["Id"]) == sorted({e.plan_id for e in month})
    # Likely outages are left out of the figures by default (the demo's outage night, plan 6).
    assert set(table["Executions 30 d"]) <= {
        sum(1 for e in month if e.plan_id == plan and not likely_outage(e)) for plan in table["Id"]
    }
    # One point per day with a verdict, numbers only (the sparkline cannot draw a gap).
    assert all(0 < len(series) <= 30 for series in table["Daily pass rate, 30 d"])
    assert all(
        isinstance(v, float) and 0 <= v <= 100
        for series in table["Daily pass rate, 30 d"]
        for v in series
    )
    assert all(0 <= r <= 100 for r in table["Pass rate 30 d"].dropna())
    caption = captions(at)
    assert f"From {sum(not likely_outage(e) for e in month):,} executions" in caption
    assert "Days are in Europe/Istanbul" in caption
    assert at.query_params == {"tz": "Europe/Istanbul"}


def test_a_project_narrows_the_plans_and_a_bad_zone_is_said(
    app: AppFactory, oracle: ApiClient
) -> None:
    plans = oracle.plans(active=False)
    project = plans[0].project_id
    at = app(HEALTH, project=str(project), tz="Mars/Base")

    at.run()

    assert_no_failure(at)
    in_project = {p.id for p in plans if p.project_id == project}
    assert set(at.dataframe[0].value["Id"]) <= in_project
    assert "is not a time zone like Europe/Istanbul" in notes(at, "warning")
    assert at.query_params == {"project": str(project)}


def test_failing_plans_come_first_and_the_caption_says_what_the_trend_compares(
    demo_health: AppTest,
) -> None:
    """Whatever the zone: the demo's page of the test above is read again."""
    at = demo_health

    assert_no_failure(at)
    assert_red_first(at)
    # What the caption says is tested on the view (tests/present/test_health_view.py).
    assert "Runtime trend: the median runtime of the last 3 days" in captions(at)


@pytest.fixture
def newest_is_an_outage(
    app: AppFactory, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[OutageHistory]:
    """The hand-built history whose plan 7's newest finished execution (1012) is the night the
    grid was down; 1011 before it failed 5 of 15 (after `app`)."""
    yield from serving(monkeypatch, tmp_path, serve_outage_history(hand.FINISHED - 1))


def test_a_plan_red_in_an_outage_says_so_in_now(
    app: AppFactory, newest_is_an_outage: OutageHistory
) -> None:
    """ "Now" reads the verdicts of the plan's latest finished execution (#37): left out, the
    outage is said after where the plan stands without it; included, it is what the plan is."""
    at = app(HEALTH, tz="UTC")
    at.run()

    assert_no_failure(at)
    now = table_with(at, "Known 30 d").set_index("Id").loc[hand.PLAN_ID, "Now"]
    assert now == "\u2716 failing (one running) \u00b7 then \u26a1 red only in an outage (left out)"

    include_outages(at, "health")

    now = table_with(at, "Known 30 d").set_index("Id").loc[hand.PLAN_ID, "Now"]
    assert now == "\u26a1 failing, in an outage (one running)"
    assert 'reads "failing, all known" in "Now"; one failed in an outage says so' in captions(at)
