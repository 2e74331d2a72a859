"""The Standup page on the demo data, whose planted cases (sandbox/data/planted.py) it must find:
exactly those, in their sections, with their evidence."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from api_client import ApiClient, ExecutionQuery
from api_client.models import Execution
from sandbox import RunningSandbox
from sandbox.data import planted
from tests.dashboard import red_history
from tests.dashboard import standup_history as history_service
from tests.dashboard.apptest import STANDUP, assert_no_failure, captions, metrics
from tests.dashboard.conftest import AppFactory


def test_the_sections_come_in_order_and_say_when_they_are_empty(app: AppFactory) -> None:
    at = app(STANDUP, tz="UTC")

    at.run()

    assert_no_failure(at)
    assert [s.value for s in at.header] == [
        "Turned red",
        "Fixed",
        "Still failing",
        "Newly failing scenarios",
        "Slower",
    ]
    assert "A plan is judged on its latest finished execution" in captions(at)
    assert at.query_params == {"tz": "UTC"}


# -- what the page finds ----------------------------------------------------------------------

ITEM_COLUMNS = ["Section", "Plan", "Details", "Link"]


def items(at: AppTest) -> pd.DataFrame:
    """Every item of every section (the page's CSV table), whatever the sections show."""
    found = [d.value for d in at.dataframe if list(d.value.columns) == ITEM_COLUMNS]
    assert len(found) == 1, "the page shows its items table once"
    return found[0]


def section(at: AppTest, title: str) -> pd.DataFrame:
    every = items(at)
    return every[every["Section"] == title].reset_index(drop=True)


def section_tables(at: AppTest) -> list[pd.DataFrame]:
    """The sections' own tables, in page order (an empty section shows a note instead)."""
    return [d.value for d in at.dataframe if "Evidence" in d.value.columns]


def latest_finished(client: ApiClient, plan_id: int, until: datetime) -> Execution:
    """The plan's newest execution that has ended and has no WAITING result."""
    runs = client.all_executions(
        ExecutionQuery(plan_id=plan_id, date_from=until - timedelta(days=30))
    )
    done = [e for e in runs if e.end_date is not None and not e.result_summary.get("WAITING")]
    return max(done, key=lambda e: e.start_date)


def test_the_demo_shows_exactly_its_planted_cases_with_their_evidence(
    app: AppFactory, oracle: ApiClient, sandbox: RunningSandbox
) -> None:
    now = sandbox.settings.now
    names = {p.id: p.plan_name for p in oracle.plans(active=False)}
    at = app(STANDUP, tz="UTC")

    at.run()

    assert_no_failure(at)
    every = items(at)
    planted_plans = {
        "Turned red": [planted.TURNED_RED_PLAN],
        "Fixed": [planted.FIXED_PLAN],
        "Still failing": [planted.STILL_FAILING_PLAN],
        "Newly failing scenarios": [planted.TURNED_RED_PLAN]
        * len(planted.PLAN_ENVIRONMENTS[planted.TURNED_RED_PLAN]),
        "Slower": [planted.SLOWER_PLAN],
    }
    for title, plan_ids in planted_plans.items():
        assert list(section(at, title)["Plan"]) == [names[i] for i in plan_ids], title
    assert len(every) == sum(len(ids) for ids in planted_plans.values())
    # The steady green plans and the plan of scenario cases are in no section.
    quiet = {*planted.STEADY_GREEN_PLANS, planted.SCENARIO_CASES_PLAN}
    assert not set(every["Plan"]) & {names[i] for i in quiet}

    # Each item links to its evidence: the execution that decided it, or the plan's executions.
    red = latest_finished(oracle, planted.TURNED_RED_PLAN, now)
    fixed = latest_finished(oracle, planted.FIXED_PLAN, now)
    still = latest_finished(oracle, planted.STILL_FAILING_PLAN, now)
    assert section(at, "Turned red")["Link"].tolist() == [f"results?execution={red.id}"]
    assert section(at, "Fixed")["Link"].tolist() == [f"results?execution={fixed.id}"]
    assert section(at, "Still failing")["Link"].tolist() == [f"results?execution={still.id}"]
    newly = section(at, "Newly failing scenarios")
    assert set(newly["Link"]) == {f"results?execution={red.id}"}
    assert all(f"Scenario: {planted.TURNED_RED_SCENARIO};" in d for d in newly["Details"])
    assert section(at, "Slower")["Link"].tolist() == [
        f"executions?plan={planted.SLOWER_PLAN}&range=30d"
    ]
    # The sections' own tables say the same, with the same links.
    tables = section_tables(at)
    assert [len(t) for t in tables] == [1, 1, 1, 3, 1]
    assert [link for t in tables for link in t["Evidence"]] == every["Link"].tolist()

    # Running plans are judged on their latest finished execution, and named as running.
    running = next(c for c in captions(at).splitlines() if c.startswith("Running now"))
    for plan_id in planted.RUNNING_PLANS:
        assert names[plan_id] in running
    turned = section(at, "Turned red")["Details"][0]
    assert re.search(r"Now running: #\d+ running; What changed: ", turned)
    # Plan 1's failing execution ran where the one before did, started by another member.
    assert "What changed: same environments; " in turned


def test_the_chat_digest_lists_the_planted_items_with_their_links(
    app: AppFactory, oracle: ApiClient, sandbox: RunningSandbox
) -> None:
    names = {p.id: p.plan_name for p in oracle.plans(active=False)}
    red = latest_finished(oracle, planted.TURNED_RED_PLAN, sandbox.settings.now)
    at = app(STANDUP, tz="UTC")

    at.run()

    digest = at.code[0].value
    headings = [line for line in digest.splitlines() if line.startswith("**")]
    assert headings[1:] == [
        "**Turned red**",
        "**Fixed**",
        "**Still failing**",
        "**Newly failing scenarios**",
        "**Slower**",
    ]
    bullets = [line for line in digest.splitlines() if line.startswith("- ")]
    assert len(bullets) == 5  # one line per item; the three environments share one line
    for plan_id in (
        planted.TURNED_RED_PLAN,
        planted.FIXED_PLAN,
        planted.STILL_FAILING_PLAN,
        planted.SLOWER_PLAN,
    ):
        assert f"[{names[plan_id]}](executions?plan={plan_id}&range=30d)" in digest
    assert f"[execution {red.id}](results?execution={red.id})" in digest
    for plan_id in planted.STEADY_GREEN_PLANS:
        assert not any(names[plan_id] in line for line in bullets)


# -- the same page on a history built by hand -------------------------------------------------


def test_a_hand_built_history_shows_exactly_its_cases(
    app: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    with history_service.serve_history() as service:
        for name, value in history_service.dashboard_env(service).items():
            monkeypatch.setenv(name, value)
        at = app(STANDUP, **history_service.VIEW)

        at.run()

    assert_no_failure(at)
    # What each item says is the view's (tests/present/test_standup_view.py); here, that the
    # page shows each section's plan with its link.
    plans = history_service.PLANS
    shown = {
        "Turned red": (history_service.TURNED_RED, history_service.TURNED_RED_EXECUTION),
        "Fixed": (history_service.FIXED, history_service.FIXED_EXECUTION),
        "Still failing": (history_service.STILL_FAILING, history_service.STILL_FAILING_EXECUTION),
        "Newly failing scenarios": (
            history_service.TURNED_RED,
            history_service.TURNED_RED_EXECUTION,
        ),
    }
    for title, (plan_id, execution_id) in shown.items():
        assert section(at, title)[["Plan", "Link"]].values.tolist() == [
            [plans[plan_id], f"results?execution={execution_id}"]
        ], title
    slower = section(at, "Slower")
    assert slower["Plan"].tolist() == [plans[history_service.SLOWER]]
    assert slower["Link"].tolist() == [f"executions?plan={history_service.SLOWER}&range=30d"]
    assert len(items(at)) == 5
    running = next(c for c in captions(at).splitlines() if c.startswith("Running now"))
    assert running.endswith(plans[history_service.STEADY])
    assert metrics(at)["Executions"] == "9"  # started 3-4 March, the running one included


def test_newly_failing_scenarios_link_to_their_history(app: AppFactory) -> None:
    at = app(STANDUP, tz="UTC")

    at.run()

    newly = next(f.value for f in at.dataframe if {"Scenario", "History"} <= set(f.value.columns))
    assert set(newly["Scenario"]) == {planted.TURNED_RED_SCENARIO}
    assert set(newly["History"]) == {
        f"scenario?plan={planted.TURNED_RED_PLAN}&scenario={planted.TURNED_RED_SCENARIO}"
    }


def test_newly_failing_scenarios_say_whose_results_they_were_built_on(app: AppFactory) -> None:
    """A section built on results says how many executions' results it had."""
    at = app(STANDUP, tz="UTC")

    at.run()

    assert_no_failure(at)
    assert re.search(r"Built on the results of [\d,]+ of [\d,]+ executions?", captions(at))


def test_a_plan_that_turned_red_says_what_changed(
    app: AppFactory, red_built: red_history.RedHistory
) -> None:
    today = red_built.now.date()
    at = app(
        STANDUP,
        range="custom",
        **{"from": (today - timedelta(days=1)).isoformat(), "to": today.isoformat()},
        tz="UTC",
    )
    at.run()

    assert_no_failure(at)
    turned = next(t for t in section_tables(at) if "Failed in" in t.columns)
    change = turned.set_index("Plan").loc["Checkout nightly", "What changed"]
    assert change.startswith("FIREFOX 129 / Linux, was 128; plan settings changed ")
    assert change.endswith(" by carol; started by bob (alice before)")
    newly = next(t for t in section_tables(at) if "Scenario" in t.columns)
    moved = newly[newly["Plan"] == "Checkout nightly"].iloc[0]
    # #38: the same environment on a new version; the section says it started with the upgrade.
    assert (moved["Scenario"], moved["Environment"]) == (1, "FIREFOX / Linux")
    assert moved["What changed"] == "started failing with FIREFOX 129; was 128"
    assert "1 new failure started with a browser upgrade." in captions(at)
    assert "What changed: FIREFOX 129 / Linux, was 128" in section(at, "Turned red")["Details"][0]
