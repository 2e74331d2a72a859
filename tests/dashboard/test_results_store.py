"""The results page reads through the history store (#9) and finds an execution by id (#15).

Requests are counted at the sandbox (its own access log, `service_requests`): what went over the
wire. A restart is a real one: each visit runs the app in a new Python process (AppTest in a
child), pointed at the same sandbox and the same store folder.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import SecretStr
from streamlit.testing.v1 import AppTest

from api_client import ApiClient, Execution, TestPlan
from dashboard.analytics.verdicts import execution_finished
from dashboard.data import cache
from dashboard.data.connection import Connection
from sandbox import RunningSandbox
from tests.dashboard.apptest import RESULTS, assert_no_failure, captions, joined, notes
from tests.dashboard.conftest import APP, AppFactory, Connect, Requests, user
from tests.dashboard.test_page_viewers import connect_with_form
from tests.waiting import PATIENT_S

REPO = Path(__file__).resolve().parents[2]

VISIT = """
import json, sys
from streamlit.testing.v1 import AppTest
at = AppTest.from_file(sys.argv[1], default_timeout=float(sys.argv[3]))
at.secrets["tests"] = "isolated from local secrets"
at.run()
at.switch_page("app_pages/execution_results.py")
at.query_params.update(json.loads(sys.argv[2]))
at.run()
print(json.dumps({
    "exception": [str(e.value) for e in at.exception],
    "errors": [str(e.value) for e in at.error],
    "titles": [t.value for t in at.title],
    "rows": len(at.dataframe[0].value) if at.dataframe else None,
    "scenarios": sorted(int(s) for s in at.dataframe[0].value["Scenario"]) if at.dataframe else [],
}))
"""


def visit_in_new_process(
    sandbox: RunningSandbox, cache_dir: Path, who_token: str, **query: str
) -> dict[str, object]:
    """Open the results page once in a fresh Python process (a restarted dashboard)."""
    lead = user(sandbox)
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("QA_DASHBOARD_")},
        "QA_DASHBOARD_BASE_URL": sandbox.base_url,
        "QA_DASHBOARD_TOKEN": who_token,
        "QA_DASHBOARD_COMPANY_ID": str(lead.company_id),
        "QA_DASHBOARD_CACHE_DIR": str(cache_dir),
    }
    done = subprocess.run(
        # No limit of its own on the run (pytest-timeout ends a hang); each page run has a
        # generous one, as AppTest requires.
        [sys.executable, "-c", VISIT, str(APP), json.dumps(query), str(PATIENT_S)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    shown: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    assert not shown["exception"], shown
    return shown


def results_requests(requests: list[str]) -> list[str]:
    return [r for r in requests if "/api/results/" in r]


@pytest.fixture(scope="module")
def plans_by_id(oracle: ApiClient) -> dict[int, TestPlan]:
    return {plan.id: plan for plan in oracle.plans(active=False)}


@pytest.fixture(scope="module")
def finished(oracle: ApiClient, plans_by_id: dict[int, TestPlan]) -> tuple[Execution, TestPlan]:
    execution = next(
        e
        for e in oracle.all_executions()
        if e.plan_id in plans_by_id
        and execution_finished(e.end_date, e.result_summary)
        and len(plans_by_id[e.plan_id].scenarios) > 1  # type: ignore[index]
    )
    return execution, plans_by_id[execution.plan_id]  # type: ignore[index]


@pytest.fixture(scope="module")
def running(oracle: ApiClient, plans_by_id: dict[int, TestPlan]) -> tuple[Execution, TestPlan]:
    execution = next(
        e
        for e in oracle.all_executions()
        if e.plan_id in plans_by_id and not execution_finished(e.end_date, e.result_summary)
    )
    return execution, plans_by_id[execution.plan_id]  # type: ignore[index]


@pytest.fixture(scope="module")
def oldest(oracle: ApiClient, plans_by_id: dict[int, TestPlan]) -> tuple[Execution, TestPlan]:
    """A finished execution far outside the default 7-day window (the oldest one)."""
    execution = next(
        e
        for e in reversed(oracle.all_executions())
        if e.plan_id in plans_by_id and execution_finished(e.end_date, e.result_summary)
    )
    return execution, plans_by_id[execution.plan_id]  # type: ignore[index]


def test_a_finished_execution_opened_again_after_a_restart_sends_no_results_request(
    sandbox: RunningSandbox,
    service_requests: Requests,
    tmp_path: Path,
    finished: tuple[Execution, TestPlan],
) -> None:
    execution, plan = finished
    token = user(sandbox).token
    link = {"execution": str(execution.id), "plan": str(plan.id)}

    service_requests()
    first = visit_in_new_process(sandbox, tmp_path, token, **link)
    on_first = results_requests(service_requests())
    again = visit_in_new_process(sandbox, tmp_path, token, **link)
    on_again = results_requests(service_requests())

    assert first["titles"] == [f"Execution #{execution.id}"]
    assert len(on_first) == len(plan.scenarios)  # one request per scenario, each once
    assert on_again == []
    assert again["rows"] == first["rows"] == sum(execution.result_summary.values())
    assert again["scenarios"] == first["scenarios"]


def test_a_running_execution_is_fetched_again_after_a_restart(
    sandbox: RunningSandbox,
    service_requests: Requests,
    tmp_path: Path,
    running: tuple[Execution, TestPlan],
) -> None:
    execution, plan = running
    token = user(sandbox).token
    link = {"execution": str(execution.id), "plan": str(plan.id)}

    service_requests()
    visit_in_new_process(sandbox, tmp_path, token, **link)
    on_first = results_requests(service_requests())
    again = visit_in_new_process(sandbox, tmp_path, token, **link)
    on_again = results_requests(service_requests())

    assert len(on_first) >= len(plan.scenarios)
    assert len(on_again) >= len(plan.scenarios)  # never stored: asked for afresh
    assert again["rows"]


def test_stored_results_are_not_shown_to_a_token_that_may_not_read_results(
    app: AppFactory,
    connect: Connect,
    sandbox: RunningSandbox,
    service_requests: Requests,
    finished: tuple[Execution, TestPlan],
) -> None:
    """The store is per service and company; a token of that company lacking TEST_RESULT_VIEW
    gets the service's refusal, not what another user's visit stored."""
    execution, plan = finished
    connect()
    lead_view = app(RESULTS, execution=str(execution.id), plan=str(plan.id))
    lead_view.run()
    assert lead_view.dataframe  # the lead's visit filled the store
    connect(who=user(sandbox, lacking="TEST_RESULT_VIEW"))
    denied = app(RESULTS, execution=str(execution.id), plan=str(plan.id))
    service_requests()

    denied.run()

    assert "TEST_RESULT_VIEW" in joined(denied.error)
    assert not denied.dataframe
    assert len(results_requests(service_requests())) == 1  # asked once, refused


def test_a_link_to_an_old_execution_opens_whatever_the_window(
    app: AppFactory,
    connect: Connect,
    sandbox: RunningSandbox,
    service_requests: Requests,
    tmp_path: Path,
    oldest: tuple[Execution, TestPlan],
) -> None:
    """`/results?execution=N` (no plan, no start) for an execution months older than the
    default 7 days: found by its id through the service, then in the store after a restart."""
    execution, plan = oldest
    connect()
    at = app(RESULTS, execution=str(execution.id))

    at.run()

    assert_no_failure(at)
    assert [t.value for t in at.title] == [f"Execution #{execution.id}"]
    assert f"Plan: {plan.plan_name}" in joined(at.main.text)
    assert len(at.dataframe[0].value) == sum(execution.result_summary.values())
    assert "was not found" not in captions(at)

    # After a restart, the store knows it: no results request, and no walk of the history.
    token = user(sandbox).token
    visit_in_new_process(sandbox, tmp_path, token, execution=str(execution.id))
    service_requests()
    again = visit_in_new_process(sandbox, tmp_path, token, execution=str(execution.id))
    sent = service_requests()

    assert again["titles"] == [f"Execution #{execution.id}"]
    assert again["rows"] == sum(execution.result_summary.values())
    assert results_requests(sent) == []
    # The store's access check asks for one execution (page=1&size=1, issue 16); every other
    # executions request is the link's own 7-day window.
    walks = [r for r in sent if "/api/executions/" in r and not r.endswith("?page=1&size=1")]
    assert all("from=" in r for r in walks), walks


def test_an_unknown_execution_without_plan_or_start_is_unknown_to_the_service(
    app: AppFactory, connect: Connect
) -> None:
    connect()
    at = app(RESULTS, execution="987654321")

    at.run()

    assert not at.exception
    assert not at.dataframe
    assert "The service has no execution 987654321" in notes(at)


def test_clear_stored_history_empties_this_connections_store_only(
    app: AppFactory,
    sandbox: RunningSandbox,
) -> None:
    """Through the sidebar form of a dashboard without configuration: the one kind of dashboard
    that offers *Clear stored history* (`store.operators`)."""

    def opened_as(who_company: int) -> AppTest:
        """Open a finished execution of the company as its lead: its store keeps the results."""
        who = user(sandbox, company_id=who_company)
        with ApiClient(base_url=sandbox.base_url, token=who.token, company_id=who_company) as c:
            plans = {p.id for p in c.plans(active=False)}
            execution = next(
                e
                for e in c.all_executions()
                if e.plan_id in plans and execution_finished(e.end_date, e.result_summary)
            )
        at = app(RESULTS, execution=str(execution.id), plan=str(execution.plan_id))
        at.run()
        connect_with_form(at, sandbox.base_url, who.token, str(who_company))
        assert at.dataframe
        return at

    def held(company: int) -> int:
        who = user(sandbox, company_id=company)
        connection = Connection(
            base_url=sandbox.base_url,
            token=SecretStr(who.token),
            company_id=company,
            source="session",
        )
        kept = cache.history_store(connection)
        assert kept is not None
        return kept.info().results

    opened_as(2)
    other_company = held(2)
    at = opened_as(1)
    assert held(1) > 0
    assert other_company > 0

    at.sidebar.button(key="history.clear.confirm").click().run()

    assert_no_failure(at)
    assert "Stored history cleared (" in "\n".join(c.value for c in at.sidebar.caption)
    assert held(1) == 0
    assert held(2) == other_company  # the other connection's store is untouched
