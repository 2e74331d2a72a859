"""No credential ever reaches the page, a table, a CSV or the URL; the form stays in the session."""

from __future__ import annotations

import pytest

from api_client import ApiClient
from sandbox import RunningSandbox
from sandbox.auth import USER_INFO_ACCESS_TOKEN_PREFIX, bearer_token, user_info_access_token
from sandbox.data.catalog import PEOPLE
from tests.dashboard.apptest import (
    EXECUTIONS,
    PLANS,
    RESULTS,
    STANDUP,
    assert_no_failure,
    captions,
    everything_shown,
    joined,
)
from tests.dashboard.conftest import AppFactory, Connect


@pytest.fixture(scope="module")
def credentials(sandbox: RunningSandbox) -> list[str]:
    """Every bearer token and every user_info access token the sandbox knows."""
    seed = sandbox.settings.seed
    return [bearer_token(seed, p.username) for p in PEOPLE] + [
        user_info_access_token(seed, p.username) for p in PEOPLE
    ]


def assert_no_credentials(shown: str, credentials: list[str]) -> None:
    assert USER_INFO_ACCESS_TOKEN_PREFIX not in shown
    for secret in credentials:
        assert secret not in shown


@pytest.mark.parametrize("configured", [False, True], ids=["demo", "environment"])
def test_no_token_on_any_page(
    app: AppFactory, connect: Connect, oracle: ApiClient, credentials: list[str], configured: bool
) -> None:
    if configured:
        connect()
    execution = next(e for e in oracle.all_executions() if e.result_summary)
    views = [
        (PLANS, {"active": "false"}),
        (EXECUTIONS, {"range": "90d"}),
        (RESULTS, {"execution": str(execution.id), "plan": str(execution.plan_id)}),
    ]

    for page, query in views:
        at = app(page, **query)
        at.run()
        assert_no_failure(at)
        assert at.dataframe, f"{page} showed no table"
        assert_no_credentials(everything_shown(at), credentials)


def test_a_token_pasted_in_the_form_lives_in_the_session_only(
    app: AppFactory, sandbox: RunningSandbox, credentials: list[str]
) -> None:
    lead = sandbox.users[0]
    at = app()
    at.run()
    assert "Demo data" in joined(at.sidebar.markdown)

    base_url, token, company_id, _email = at.sidebar.text_input
    base_url.input(sandbox.base_url)
    token.input(lead.token)
    company_id.input(str(lead.company_id))
    at.sidebar.form_submit_button[0].click().run()

    assert_no_failure(at)
    assert f"Live: {sandbox.base_url.removeprefix('http://')}" in joined(at.sidebar.markdown)
    assert "sidebar form" in joined(at.sidebar.caption)
    assert at.dataframe
    assert all(not field.value for field in at.sidebar.text_input)  # the form was emptied
    assert lead.token not in repr(at.session_state.to_dict())
    assert_no_credentials(everything_shown(at), credentials)

    # Found by its label: "Clear stored history" now sits beside Refresh, before the form.
    next(b for b in at.sidebar.button if b.label == "Disconnect").click().run()
    assert "Demo data" in joined(at.sidebar.markdown)


def test_a_half_configured_connection_is_reported_not_used(
    app: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QA_DASHBOARD_TOKEN", "sbx-not-a-real-token")
    at = app()

    at.run()

    assert not at.exception
    assert "base URL is missing" in joined(at.sidebar.warning)
    assert "Demo data" in joined(at.sidebar.markdown)
    assert "sbx-not-a-real-token" not in everything_shown(at)


@pytest.mark.parametrize("form", [False, True])
def test_a_refused_token_is_one_message_with_advice_for_this_configuration(
    app: AppFactory, sandbox: RunningSandbox, monkeypatch: pytest.MonkeyPatch, form: bool
) -> None:
    """The standup loads the plan list and the window's executions: a refused token fails
    both, and is said once, pointing where this dashboard's token is set, the sidebar's form
    only when it is offered; the badge does not say "Live"."""
    monkeypatch.setenv("QA_DASHBOARD_BASE_URL", sandbox.base_url)
    monkeypatch.setenv("QA_DASHBOARD_TOKEN", "a-token-nobody-has")
    monkeypatch.setenv("QA_DASHBOARD_COMPANY_ID", "1")
    monkeypatch.setenv("QA_DASHBOARD_ALLOW_CONNECTION_FORM", "true" if form else "false")
    at = app(STANDUP, tz="UTC")

    at.run()

    assert not at.exception
    assert len(at.error) == 1, [e.value for e in at.error]
    message = at.error[0].value
    assert "did not accept the token" in message
    assert "QA_DASHBOARD\\_TOKEN" in message or "QA_DASHBOARD_TOKEN" in message
    assert ("Connect to a service" in message) is form
    assert not [line for line in captions(at).splitlines() if line.startswith("Stored history")]
    badges = joined(at.sidebar.markdown)
    assert f"Token refused: {sandbox.base_url.removeprefix('http://')}" in badges
    assert "Live" not in badges
