"""Viewer sign-in on the pages (AppTest): with an `[auth]` table every page asks for sign-in
first and loads nothing until then; a viewer off the lists reads one sentence and nothing else;
the sidebar names who is signed in; *Only mine* and *Clear stored history* follow the identity;
without `[auth]` nothing changes.

AppTest does not run the browser's side of a sign-in (the redirects through the provider): the
signed-in identity is set as Streamlit would read it from its cookie (`AppTest.user`). The
whole journey in chromium: tests/browser/test_signin.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from streamlit.testing.v1 import AppTest

from dashboard.data import cache
from sandbox import RunningSandbox
from tests.browser.harness import free_port
from tests.dashboard.apptest import (
    EXECUTIONS,
    RESULTS,
    assert_no_failure,
    captions,
    everything_shown,
    notes,
    plain_notes,
)
from tests.dashboard.conftest import AppFactory, Connect, Requests, user
from tests.oidc_provider import (
    CLIENT_SECRET,
    COOKIE_SECRET,
    OidcProvider,
    auth_table,
    dripping_provider,
)

REDIRECT = "http://localhost:8501/oauth2callback"
WEEK = {"range": "7d"}


@pytest.fixture(scope="module")
def provider(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OidcProvider]:
    from tests.oidc_provider import running_provider

    with running_provider(tmp_path_factory.mktemp("oidc") / "provider.log") as running:
        yield running


def with_sign_in(
    at: AppTest, metadata_url: str, *, who: dict[str, Any] | None = None, **lists: Any
) -> AppTest:
    """`at` with sign-in configured (`lists` for [signin], default: example.com admitted) and
    `who` signed in (None: nobody)."""
    at.secrets["auth"] = auth_table(metadata_url, REDIRECT)
    at.secrets["signin"] = lists or {"allowed_domains": ["example.com"]}
    at.user = {"is_logged_in": True, **who} if who is not None else {}
    cache.clear_all()
    return at


def signed_in(email: str) -> dict[str, Any]:
    return {"email": email, "email_verified": True, "name": email.partition("@")[0]}


def nothing_of_the_dashboard(at: AppTest) -> None:
    """No sidebar, no page: no table, chart, metric or control of the dashboard."""
    assert not at.sidebar.children, repr(at.sidebar)
    assert not at.dataframe
    assert not at.metric
    assert not at.get("plotly_chart")
    assert not at.selectbox
    assert not at.toggle
    shown = everything_shown(at)
    assert "Demo data" not in shown
    assert "Live:" not in shown


def test_a_viewer_who_is_not_signed_in_sees_the_sign_in_page_and_nothing_is_loaded(
    app: AppFactory, connect: Connect, provider: OidcProvider, service_requests: Requests
) -> None:
    connect()
    for page in (None, EXECUTIONS, RESULTS):
        at = with_sign_in(app(), provider.metadata_url)
        at.run()
        if page is not None:
            at.switch_page(page)
            at.query_params.update({"execution": "7", "plan": "3"})
            at.run()

        assert_no_failure(at)
        assert [t.value for t in at.title] == ["Sign in to the QA dashboard"]
        assert [b.label for b in at.button] == ["Sign in"]
        nothing_of_the_dashboard(at)
    assert service_requests() == [], "nothing was asked of the service before sign-in"


def test_an_admitted_viewer_sees_the_dashboard_and_who_is_signed_in(
    app: AppFactory, connect: Connect, provider: OidcProvider
) -> None:
    connect()
    at = with_sign_in(app(), provider.metadata_url, who=signed_in("Ada@Example.com"))
    at.run()

    assert_no_failure(at)
    assert at.dataframe, "the plans page is shown"
    assert "Signed in as ada@example.com" in captions(at.sidebar)
    assert [b.label for b in at.sidebar.button if b.key == "signin.out"] == ["Sign out"]
    assert "Sign in to the QA dashboard" not in everything_shown(at)


@pytest.mark.parametrize(
    ("who", "sentence"),
    [
        (
            signed_in("eve@other.org"),
            "eve@other.org may not see this dashboard: ask its operator to add your address, or "
            "sign out and use another account.",
        ),
        (
            {"email": "ada@example.com", "email_verified": False},
            "The sign-in service has not verified ada@example.com, so this dashboard cannot let "
            "you in: verify the address with it, or sign out and use another account.",
        ),
        (
            {"name": "Ada"},
            "The sign-in service did not tell this dashboard your e-mail address, so it cannot "
            "let you in: sign out and use an account that has one.",
        ),
    ],
)
def test_a_viewer_off_the_lists_gets_one_sentence_and_nothing_else(
    app: AppFactory,
    connect: Connect,
    provider: OidcProvider,
    service_requests: Requests,
    who: dict[str, Any],
    sentence: str,
) -> None:
    connect()
    at = with_sign_in(app(), provider.metadata_url, who=who)
    at.run()
    at.switch_page(EXECUTIONS)
    at.run()

    assert_no_failure(at)
    assert plain_notes(at) == sentence
    assert [b.label for b in at.button] == ["Sign out"], "a way to try another account"
    assert [t.value for t in at.title] == ["The QA dashboard is not open to this account"]
    nothing_of_the_dashboard(at)
    assert service_requests() == []


def test_while_the_settings_are_wrong_everyone_reads_which_key_and_nothing_else(
    app: AppFactory, connect: Connect, provider: OidcProvider, service_requests: Requests
) -> None:
    connect()
    at = with_sign_in(app(), provider.metadata_url, who=signed_in("ada@example.com"))
    at.secrets["auth"] = {**auth_table(provider.metadata_url, REDIRECT), "cookie_secret": "short"}
    at.run()

    assert_no_failure_but_the_error(at)
    said = plain_notes(at, "error")
    assert said == (
        "This dashboard's sign-in is not set up correctly, so it shows nothing: cookie_secret in "
        "[auth] in .streamlit/secrets.toml is shorter than 32 characters: use a long random "
        "value. Its operator can fix that in the dashboard's settings."
    )
    nothing_of_the_dashboard(at)
    assert [t.value for t in at.title] == ["The QA dashboard's sign-in is not set up"]
    assert not at.button
    assert service_requests() == []
    shown = everything_shown(at)
    assert CLIENT_SECRET not in shown
    assert COOKIE_SECRET not in shown


def assert_no_failure_but_the_error(at: AppTest) -> None:
    assert not at.exception, at.exception
    assert not at.error


def test_a_provider_that_is_down_is_said_on_the_sign_in_page_and_nothing_is_shown(
    app: AppFactory, connect: Connect, service_requests: Requests
) -> None:
    connect()
    down = f"http://127.0.0.1:{free_port()}/.well-known/openid-configuration"
    at = with_sign_in(app(), down)
    at.run()

    assert_no_failure_but_the_error(at)
    assert plain_notes(at, "error") == (
        "The sign-in service (127.0.0.1) does not answer, so nobody can sign in right now. Try "
        "again in a few minutes; if it lasts, tell this dashboard's operator."
    )
    assert [b.label for b in at.button] == ["Try again"], "no Sign in button that cannot work"
    nothing_of_the_dashboard(at)
    assert service_requests() == []


def test_a_provider_dripping_its_configuration_is_given_up_and_said_on_the_sign_in_page(
    app: AppFactory, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A byte every 0.2 s defeats a per-read timeout; the probe's own deadline (made short
    here) ends the wait, and the page says so. Without a deadline the drip holds the page a
    minute and AppTest's own timeout (30 s) fails the test."""
    from dashboard.data import signin

    monkeypatch.setattr(signin, "PROBE_DEADLINE_S", 0.5)
    connect()
    with dripping_provider() as metadata_url:
        at = with_sign_in(app(), metadata_url)
        at.run(timeout=30)

    assert_no_failure_but_the_error(at)
    assert plain_notes(at, "error") == (
        "The sign-in service (127.0.0.1) did not answer within 0.5 s, so nobody can sign in "
        "right now. Try again in a few minutes; if it lasts, tell this dashboard's operator."
    )
    assert [b.label for b in at.button] == ["Try again"]
    nothing_of_the_dashboard(at)


def test_without_auth_nothing_changes(app: AppFactory, connect: Connect) -> None:
    connect()
    at = app()
    at.secrets["signin"] = {"allowed_domains": ["example.com"]}
    at.user = {"is_logged_in": True, "email": "eve@other.org"}
    at.run()

    assert_no_failure(at)
    assert at.dataframe
    assert "Signed in as" not in captions(at.sidebar)
    assert not [b for b in at.sidebar.button if b.key == "signin.out"]
    # The lists alone protect nothing, and the sidebar says so.
    assert "allowed_domains is set, but sign-in is not" in notes(at)


# -- the identity: Only mine, Clear stored history, signed_in_email -----------------------------


def test_only_mine_filters_by_the_signed_in_address(
    app: AppFactory,
    connect: Connect,
    sandbox: RunningSandbox,
    provider: OidcProvider,
    service_requests: Requests,
) -> None:
    lead = user(sandbox)
    # The connection's own e-mail is someone else's: with sign-in it is not what Only mine uses.
    other = user(sandbox, company_id=2).email
    connect(email=other)
    domain = lead.email.partition("@")[2]
    at = with_sign_in(
        app(EXECUTIONS, mine="true", **WEEK),
        provider.metadata_url,
        who=signed_in(lead.email),
        allowed_domains=[domain],
    )
    at.run()

    assert_no_failure(at)
    assert at.toggle(key="executions.mine").value is True
    assert "started by you" in captions(at)
    asked = [r for r in service_requests() if "/executions/" in r]
    assert [r for r in asked if f"email={lead.email.replace('@', '%40')}" in r], asked
    assert not [r for r in asked if other.replace("@", "%40") in r], asked


def test_only_mine_for_a_viewer_who_is_not_the_tokens_user_says_why_the_service_refuses(
    app: AppFactory, connect: Connect, sandbox: RunningSandbox, provider: OidcProvider
) -> None:
    connect()
    colleague = f"colleague@{user(sandbox).email.partition('@')[2]}"
    at = with_sign_in(
        app(EXECUTIONS, mine="true", **WEEK),
        provider.metadata_url,
        who=signed_in(colleague),
        allowed_emails=[colleague],
    )
    at.run()

    assert not at.exception
    assert plain_notes(at, "error") == (
        f'The service refused "Only mine" for {colleague}: it filters only by the address of '
        "the token's own user, and this dashboard reads the service with another account's "
        'token. Turn "Only mine" off.'
    )


def test_a_signed_in_operator_may_clear_the_teams_store_and_others_may_not(
    app: AppFactory, connect: Connect, provider: OidcProvider
) -> None:
    connect()
    lists = {"allowed_domains": ["example.com"], "operators": ["ops@example.com"]}
    operator = with_sign_in(app(), provider.metadata_url, who=signed_in("ops@example.com"), **lists)
    operator.run()
    colleague = with_sign_in(
        app(), provider.metadata_url, who=signed_in("ada@example.com"), **lists
    )
    colleague.run()

    assert_no_failure(operator)
    assert any(b.key == "history.clear.confirm" for b in operator.sidebar.button)
    assert not any(b.key == "history.clear.confirm" for b in colleague.sidebar.button)


def _identity_app() -> None:
    import streamlit as st

    from dashboard.ui import viewer

    st.text(repr(viewer.signed_in_email()))


@pytest.mark.parametrize(
    ("auth", "who", "expected"),
    [
        (False, {"is_logged_in": True, "email": "ada@example.com"}, "None"),
        (True, {}, "None"),
        (
            True,
            {"is_logged_in": True, "email": " Ada@Example.COM", "email_verified": True},
            "'ada@example.com'",
        ),
        # The provider does not say it verified the address: not admitted, so no identity.
        (True, {"is_logged_in": True, "email": "ada@example.com"}, "None"),
        (
            True,
            {"is_logged_in": True, "email": "ada@example.com", "email_verified": "FALSE"},
            "None",
        ),
        (True, {"is_logged_in": True, "email": "eve@other.org", "email_verified": True}, "None"),
        (True, {"is_logged_in": False, "email": "ada@example.com"}, "None"),
    ],
)
def test_signed_in_email_is_the_admitted_viewers_address_or_none(
    auth: bool, who: dict[str, Any], expected: str, tmp_path: Path
) -> None:
    at = AppTest.from_function(_identity_app, default_timeout=30)
    at.secrets["tests"] = "isolated from local secrets"
    at.secrets["signin"] = {"allowed_domains": ["example.com"]}
    if auth:
        at.secrets["auth"] = auth_table(
            "https://id.example.com/.well-known/openid-configuration", REDIRECT
        )
    at.user = who
    at.run()

    assert not at.exception
    assert [t.value for t in at.text] == [expected]


def test_the_test_provider_signs_in_an_unknown_subject_with_a_verified_address(
    provider: OidcProvider,
) -> None:
    """The provider the sign-in tests use says what a real one that verified the address says:
    without it the dashboard admits nobody it signs in."""
    import base64
    import json
    from urllib.parse import parse_qs, urlsplit

    callback = "http://localhost:8501/oauth2callback"
    query = {
        "client_id": "qa-dashboard",
        "redirect_uri": callback,
        "response_type": "code",
        "scope": "openid email",
        "state": "s",
        "nonce": "n",
    }
    with httpx.Client(base_url=provider.issuer, timeout=10) as http:
        signed = http.post("/oauth2/authorize", params=query, data={"sub": "ada@example.com"})
        code = parse_qs(urlsplit(signed.headers["location"]).query)["code"][0]
        tokens = http.post(
            "/oauth2/token",
            data={"grant_type": "authorization_code", "code": code, "redirect_uri": callback},
            auth=("qa-dashboard", CLIENT_SECRET),
        ).json()
    payload = tokens["id_token"].split(".")[1]
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    assert (claims["email"], claims["email_verified"]) == ("ada@example.com", True)
