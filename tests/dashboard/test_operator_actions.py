"""Destructive actions are the operator's: a dashboard an operator configured (its connection,
or a shared store URL) offers no viewer *Clear stored history*; one person's local dashboard
(the demo, the sidebar form) keeps it; Refresh never takes anything out of the store.

Real parts: the sandbox on loopback, real DuckDB files, a real PostgreSQL database for the
store URL. The same on a running dashboard process: tests/browser/test_operator_actions.py.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime

import pytest
from pydantic import SecretStr
from streamlit.testing.v1 import AppTest

from api_client import ApiClient
from dashboard.analytics.verdicts import execution_finished
from dashboard.data import cache, store
from dashboard.data.connection import Connection, resolve
from sandbox import DemoUser, RunningSandbox
from tests.dashboard.apptest import RESULTS, assert_no_failure, captions
from tests.dashboard.conftest import AppFactory, Connect, user
from tests.dashboard.test_page_viewers import connect_with_form

CLEAR = "history.clear.confirm"


def clear_offered(at: AppTest) -> bool:
    return any(button.key == CLEAR for button in at.sidebar.button)


def configured() -> Connection:
    connection = resolve(session=None, secrets={}, env=os.environ).connection
    assert connection is not None
    return connection


def finished_link(running: RunningSandbox, who: DemoUser) -> dict[str, str]:
    """The results page of a finished execution of `who`'s company."""
    with ApiClient(base_url=running.base_url, token=who.token, company_id=who.company_id) as c:
        plans = {p.id for p in c.plans(active=False)}
        execution = next(
            e
            for e in c.all_executions()
            if e.plan_id in plans and execution_finished(e.end_date, e.result_summary)
        )
    return {"execution": str(execution.id), "plan": str(execution.plan_id)}


@pytest.mark.parametrize("where", ["environment", "secrets"])
def test_a_dashboard_with_a_configured_connection_offers_viewers_no_clear(
    app: AppFactory, sandbox: RunningSandbox, connect: Connect, where: str
) -> None:
    lead = user(sandbox)
    at = app()
    if where == "environment":
        connect()
    else:
        at.secrets["service"] = {
            "base_url": sandbox.base_url,
            "token": lead.token,
            "company_id": lead.company_id,
        }
    at.run()

    assert_no_failure(at)
    assert "Live:" in "\n".join(str(m.value) for m in at.sidebar.markdown)
    assert not clear_offered(at)
    assert "Clear stored history" not in repr(at.sidebar)


def test_a_dashboard_with_a_store_url_offers_no_clear_even_on_the_demo(
    app: AppFactory, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    at = app()
    at.run()
    assert clear_offered(at), "the control: the demo alone keeps the button"

    monkeypatch.setenv("QA_DASHBOARD_STORE_URL", pg_url)
    at = app()
    at.run()

    assert_no_failure(at)
    assert not clear_offered(at)


def test_local_use_keeps_the_button_and_it_clears_that_connections_store(
    app: AppFactory, sandbox: RunningSandbox
) -> None:
    """No configuration at all: the sidebar form's connection is one person's local use."""
    lead = user(sandbox)
    at = app()
    at.run()
    connect_with_form(at, sandbox.base_url, lead.token, str(lead.company_id))
    at.switch_page(RESULTS)
    at.query_params.update(finished_link(sandbox, lead))
    at.run()
    assert at.dataframe
    assert clear_offered(at)
    session = Connection(
        base_url=sandbox.base_url,
        token=SecretStr(lead.token),
        company_id=lead.company_id,
        source="session",
    )
    kept = cache.history_store(session)
    assert kept is not None
    assert kept.info().results > 0

    at.sidebar.button(key=CLEAR).click().run()

    assert_no_failure(at)
    assert "Stored history cleared (" in captions(at.sidebar)
    assert kept.info().results == 0


def test_refresh_keeps_what_the_store_holds_for_everyone(
    app: AppFactory, sandbox: RunningSandbox, connect: Connect
) -> None:
    lead = connect()
    with store.open_for(configured(), secrets={}, env=os.environ) as kept:
        kept.record(last_sync=datetime.now(UTC), last_sync_by="the worker on qa-1")
    at = app(RESULTS, **finished_link(sandbox, lead))
    at.run()
    assert at.dataframe
    held = cache.history_store(configured())
    assert held is not None
    before = (held.info(), held.meta())
    assert before[0].results > 0

    next(b for b in at.sidebar.button if b.label == "Refresh data").click().run()

    assert_no_failure(at)
    again = cache.history_store(configured())
    assert again is not None
    after = (again.info(), again.meta())
    assert (after[0].results, after[0].executions, after[0].fetched_pairs) == (
        before[0].results,
        before[0].executions,
        before[0].fetched_pairs,
    )
    assert after[1] == before[1]
    assert "History synced just now by the worker on qa-1." in captions(at.sidebar)
