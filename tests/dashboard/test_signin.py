"""Viewer sign-in's rules without a browser: the settings are checked strictly (a problem names
the table and the key, never a value, and closes the dashboard), who is admitted, who may clear
a shared store, whether the provider answers, and the server piece that brings a sign-in back
to the link it started from.

The pages behind the door: tests/dashboard/test_page_signin.py (AppTest); the whole journey in
chromium against a loopback OpenID Connect provider: tests/browser/test_signin.py.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from dashboard.data import signin
from dashboard.data.signin import Provider, admission
from dashboard.data.store.operators import may_clear_history
from dashboard.ui.server import RETURN_COOKIE, ReturnAfterSignIn
from tests.oidc_provider import dripping_provider

COOKIE_SECRET = "c" * 43
CLIENT_SECRET = "client-secret-never-shown"


def auth(**changes: Any) -> dict[str, Any]:
    """A complete [auth] table with one unnamed provider, then `changes` (None removes a key)."""
    table: dict[str, Any] = {
        "redirect_uri": "https://qa.example.com/oauth2callback",
        "cookie_secret": COOKIE_SECRET,
        "client_id": "qa-dashboard",
        "client_secret": CLIENT_SECRET,
        "server_metadata_url": "https://id.example.com/.well-known/openid-configuration",
    }
    table.update(changes)
    return {key: value for key, value in table.items() if value is not None}


def read(auth_table: Any = None, signin_table: Any = None, **env: str) -> signin.SignIn:
    secrets: dict[str, Any] = {}
    if auth_table is not None:
        secrets["auth"] = auth_table
    if signin_table is not None:
        secrets["signin"] = signin_table
    return signin.settings(secrets=secrets, env=env)


# -- the settings -------------------------------------------------------------------------------


def test_without_auth_sign_in_is_off_and_nothing_is_a_problem() -> None:
    settings = read()
    assert not settings.configured
    assert settings.problems == ()
    assert settings.notes == ()


def test_lists_without_auth_protect_nothing_and_the_sidebar_says_so() -> None:
    settings = read(signin_table={"allowed_domains": ["example.com"]})

    assert not settings.configured
    assert settings.problems == ()
    assert len(settings.notes) == 1
    assert "allowed_domains is set, but sign-in is not" in settings.notes[0]
    assert "anyone who can reach this dashboard sees it" in settings.notes[0]


def test_a_complete_configuration_is_read_from_the_table_and_the_environment_together() -> None:
    settings = read(
        auth(),
        {"allowed_emails": ["Ada@Example.com "], "operators": "ops@example.com"},
        QA_DASHBOARD_ALLOWED_DOMAINS="team.example.org, @Partner.example.net",
        # As with allowed_hosts, a comma-separated string serves in the table too.
        QA_DASHBOARD_OPERATORS="lead@team.example.org",
    )

    assert settings.configured
    assert settings.problems == ()
    assert settings.allowed_emails == {"ada@example.com"}
    assert settings.allowed_domains == {"team.example.org", "partner.example.net"}
    assert settings.operators == {"ops@example.com", "lead@team.example.org"}
    assert settings.providers == (
        Provider(None, "https://id.example.com/.well-known/openid-configuration"),
    )


def test_named_providers_are_each_offered() -> None:
    table = {
        "redirect_uri": "http://localhost:{port}/oauth2callback",
        "cookie_secret": COOKIE_SECRET,
        "google": {
            "client_id": "a",
            "client_secret": "b",
            "server_metadata_url": "https://accounts.google.com/.well-known/openid-configuration",
        },
        "okta": {
            "client_id": "c",
            "client_secret": "d",
            "server_metadata_url": "https://team.okta.com/.well-known/openid-configuration",
        },
    }
    settings = read(table, {"allowed_domains": ["example.com"]})

    assert settings.problems == ()
    assert [(p.name, p.host) for p in settings.providers] == [
        ("google", "accounts.google.com"),
        ("okta", "team.okta.com"),
    ]


@pytest.mark.parametrize(
    ("auth_table", "expected"),
    [
        (auth(redirect_uri=None), "[auth] in .streamlit/secrets.toml has no redirect_uri."),
        (
            auth(redirect_uri="https://qa.example.com/"),
            "redirect_uri in [auth] in .streamlit/secrets.toml is not this dashboard's address "
            "ending in /oauth2callback.",
        ),
        (auth(cookie_secret=None), "[auth] in .streamlit/secrets.toml has no cookie_secret."),
        (
            auth(cookie_secret="short-secret"),
            "cookie_secret in [auth] in .streamlit/secrets.toml is shorter than 32 characters: "
            "use a long random value.",
        ),
        (
            auth(client_secret=None),
            "[auth] in .streamlit/secrets.toml has no client_secret.",
        ),
        (
            auth(client_id=" ", server_metadata_url=None),
            "[auth] in .streamlit/secrets.toml has no client_id and no server_metadata_url.",
        ),
        (
            auth(server_metadata_url="id.example.com/.well-known/openid-configuration"),
            "server_metadata_url in [auth] in .streamlit/secrets.toml is not an http(s) address.",
        ),
        (
            auth(client_id=None, client_secret=None, server_metadata_url=None),
            "[auth] in .streamlit/secrets.toml names no provider: client_id, client_secret and "
            "server_metadata_url, at its top or in an [auth.NAME] table.",
        ),
        (
            {
                **auth(client_id=None, client_secret=None, server_metadata_url=None),
                "my_idp": {"client_id": "a", "client_secret": "b", "server_metadata_url": "c"},
            },
            "The provider name of [auth.my_idp] in .streamlit/secrets.toml has an underscore "
            "(not allowed).",
        ),
        ("not a table", "[auth] in .streamlit/secrets.toml is not a table."),
    ],
)
def test_a_half_filled_auth_table_names_the_key_and_never_a_value(
    auth_table: Any, expected: str
) -> None:
    settings = read(auth_table, {"allowed_domains": ["example.com"]})

    assert settings.configured, "an [auth] table turns sign-in on, even a broken one"
    assert settings.problems == (expected,)
    said = " ".join(settings.problems)
    assert CLIENT_SECRET not in said
    assert COOKIE_SECRET not in said
    assert "short-secret" not in said


@pytest.mark.parametrize(
    ("signin_table", "env", "expected"),
    [
        (
            {"allowed_emails": ["ada@example.com", "not-an-address"]},
            {},
            "Entry 2 of allowed_emails in [signin] of .streamlit/secrets.toml is not an e-mail "
            "address.",
        ),
        (
            {"allowed_domains": ["example.com", "ada@example.com"]},
            {},
            "Entry 2 of allowed_domains in [signin] of .streamlit/secrets.toml is not a domain "
            "name.",
        ),
        (
            {"allowed_domains": 7},
            {},
            "allowed_domains in [signin] of .streamlit/secrets.toml is not a list.",
        ),
        (
            {"allowed_domains": ["example.com"], "allowed_email": ["ada@example.com"]},
            {},
            '[signin] in .streamlit/secrets.toml has a key "allowed_email" this dashboard does '
            "not know (it knows allowed_emails, allowed_domains, operators, markers, "
            "require_verified_email).",
        ),
        (
            {"allowed_domains": ["example.com"]},
            {"QA_DASHBOARD_OPERATORS": "ops@example.com,, not-an-address,"},
            "Entry 3 of QA_DASHBOARD_OPERATORS is not an e-mail address or sub:SUBJECT.",
        ),
        (
            {"allowed_domains": ["example.com"], "operators": [7]},
            {},
            "Entry 1 of operators in [signin] of .streamlit/secrets.toml is not an e-mail address "
            "or sub:SUBJECT.",
        ),
        (
            {},
            {},
            "Sign-in is on but nobody may sign in: list addresses in allowed_emails or domains in "
            "allowed_domains ([signin] in .streamlit/secrets.toml, or QA_DASHBOARD_ALLOWED_EMAILS "
            "/ QA_DASHBOARD_ALLOWED_DOMAINS).",
        ),
    ],
)
def test_a_bad_list_is_a_problem_naming_the_setting_and_the_entrys_place(
    signin_table: dict[str, Any], env: dict[str, str], expected: str
) -> None:
    settings = read(auth(), signin_table, **env)

    assert settings.problems == (expected,)
    assert "not-an-address" not in expected


def test_a_signin_that_is_not_a_table_is_a_problem() -> None:
    settings = read(auth(), ["allowed_domains"])
    assert "[signin] in .streamlit/secrets.toml is not a table." in settings.problems


# -- who is admitted ----------------------------------------------------------------------------


@pytest.fixture
def team() -> signin.SignIn:
    return read(
        auth(),
        {"allowed_emails": ["guest@partner.example"]},
        **{"QA_DASHBOARD_ALLOWED_DOMAINS": "example.com"},
    )


@pytest.mark.parametrize(
    ("claims", "email", "admitted", "reason"),
    [
        ({"email": "ada@example.com", "email_verified": True}, "ada@example.com", True, ""),
        ({"email": " Ada@EXAMPLE.com", "email_verified": True}, "ada@example.com", True, ""),
        (
            {"email": "guest@partner.example", "email_verified": "true"},
            "guest@partner.example",
            True,
            "",
        ),
        ({"email": "eve@other.org", "email_verified": True}, "eve@other.org", False, "not-listed"),
        # Exactly the listed domain: neither a subdomain nor a name that ends the same way.
        (
            {"email": "ada@eu.example.com", "email_verified": True},
            "ada@eu.example.com",
            False,
            "not-listed",
        ),
        (
            {"email": "ada@notexample.com", "email_verified": True},
            "ada@notexample.com",
            False,
            "not-listed",
        ),
        (
            {"email": "other@partner.example", "email_verified": True},
            "other@partner.example",
            False,
            "not-listed",
        ),
        (
            {"email": "ada@example.com", "email_verified": False},
            "ada@example.com",
            False,
            "unverified",
        ),
        ({"name": "Ada"}, None, False, "no-email"),
        ({"email": "not an address"}, None, False, "no-email"),
        ({"email": ["ada@example.com"]}, None, False, "no-email"),
    ],
)
def test_who_is_admitted(
    team: signin.SignIn,
    claims: dict[str, Any],
    email: str | None,
    admitted: bool,
    reason: str,
) -> None:
    seen = admission(team, {"is_logged_in": True, **claims})
    assert (seen.email, seen.admitted, seen.reason) == (email, admitted, reason)


@pytest.mark.parametrize(
    "verified",
    [True, "true", "TRUE", " True "],
)
def test_an_address_the_provider_verified_is_admitted(team: signin.SignIn, verified: Any) -> None:
    seen = admission(team, {"email": "ada@example.com", "email_verified": verified})
    assert seen.admitted
    assert seen.verified


@pytest.mark.parametrize(
    "claims",
    [
        {},  # the provider does not say: not proof that it checked
        {"email_verified": False},
        {"email_verified": "false"},
        {"email_verified": "FALSE"},
        {"email_verified": "0"},
        {"email_verified": 1},
        {"email_verified": "yes"},
        {"email_verified": None},
    ],
)
def test_an_address_the_provider_does_not_say_it_verified_is_refused(
    team: signin.SignIn, claims: dict[str, Any]
) -> None:
    seen = admission(team, {"email": "ada@example.com", **claims})
    assert (seen.email, seen.admitted, seen.reason) == ("ada@example.com", False, "unverified")


def test_a_provider_that_never_says_may_be_trusted_by_the_operator_and_its_addresses_act_not() -> (
    None
):
    """`require_verified_email = false`: the address reads the dashboard, but rights bound to an
    address need a verified one; rights bound to the subject hold."""
    trusting = read(
        auth(),
        {
            "allowed_domains": ["example.com"],
            "require_verified_email": False,
            "operators": ["ops@example.com", "sub:Ops-0001"],
            "markers": ["ann@example.com", "sub:Ann-0002"],
        },
    )
    assert trusting.problems == ()
    said_nothing = admission(trusting, {"email": "ops@example.com"})
    assert said_nothing.admitted
    assert not signin.may_operate(trusting, said_nothing)
    assert not signin.may_mark(trusting, admission(trusting, {"email": "ann@example.com"}))
    by_subject = admission(trusting, {"email": "ops@example.com", "sub": "Ops-0001"})
    assert signin.may_operate(trusting, by_subject)
    assert signin.may_mark(
        trusting, admission(trusting, {"email": "x@example.com", "sub": "Ann-0002"})
    )
    # A subject is compared exactly: another provider's or another case's is someone else.
    assert not signin.may_operate(
        trusting, admission(trusting, {"email": "o@example.com", "sub": "ops-0001"})
    )


@pytest.mark.parametrize("value", ["false", "False", "0", "no"])
def test_require_verified_email_can_be_turned_off_in_the_environment(value: str) -> None:
    settings = read(
        auth(), {"allowed_domains": ["example.com"]}, QA_DASHBOARD_REQUIRE_VERIFIED_EMAIL=value
    )
    assert settings.problems == ()
    assert not settings.require_verified_email
    assert admission(settings, {"email": "ada@example.com"}).admitted


def test_require_verified_email_that_is_not_a_yes_or_no_closes_the_dashboard() -> None:
    settings = read(auth(), {"allowed_domains": ["example.com"], "require_verified_email": "maybe"})
    assert settings.problems == (
        "require_verified_email in [signin] of .streamlit/secrets.toml is not true or false.",
    )


def test_an_operator_or_marker_entry_is_an_address_or_a_subject() -> None:
    settings = read(
        auth(),
        {
            "allowed_domains": ["example.com"],
            "operators": ["sub:", "Ops@Example.com", "sub: Abc-1 "],
            "markers": "ann@example.com, sub:x y",
        },
    )
    assert settings.problems == (
        "Entry 1 of operators in [signin] of .streamlit/secrets.toml is not an e-mail address "
        "or sub:SUBJECT.",
        "Entry 2 of markers in [signin] of .streamlit/secrets.toml is not an e-mail address "
        "or sub:SUBJECT.",
    )
    good = read(auth(), {"allowed_domains": ["example.com"], "operators": ["sub: Abc-1 "]})
    assert good.operators == {"sub:Abc-1"}


# -- who may mark -------------------------------------------------------------------------------


def verified(email: str, sub: str = "s-1") -> dict[str, Any]:
    return {"email": email, "email_verified": True, "sub": sub}


def test_without_a_markers_list_every_admitted_viewer_marks_and_with_one_only_those_listed() -> (
    None
):
    everyone = read(auth(), {"allowed_domains": ["example.com"]})
    assert signin.may_mark(everyone, admission(everyone, verified("ada@example.com")))
    assert not signin.may_mark(everyone, admission(everyone, verified("eve@other.org")))

    listed = read(
        auth(),
        {"allowed_domains": ["example.com"], "markers": ["lead@example.com", "sub:qa-42"]},
        QA_DASHBOARD_MARKERS="Ann@Example.com",
    )
    assert listed.markers == {"lead@example.com", "ann@example.com", "sub:qa-42"}
    assert signin.may_mark(listed, admission(listed, verified("lead@example.com")))
    assert signin.may_mark(listed, admission(listed, verified("ann@example.com")))
    assert signin.may_mark(listed, admission(listed, verified("bob@example.com", sub="qa-42")))
    assert not signin.may_mark(listed, admission(listed, verified("ada@example.com")))
    # Listed, but not let in: no rights at all.
    assert not signin.may_mark(listed, admission(listed, verified("lead@other.org", sub="qa-42")))


def test_operators_may_by_their_verified_address_or_their_subject() -> None:
    settings = read(
        auth(), {"allowed_domains": ["example.com"], "operators": ["ops@example.com", "sub:7"]}
    )
    assert signin.may_operate(settings, admission(settings, verified("ops@example.com")))
    assert signin.may_operate(settings, admission(settings, verified("ada@example.com", sub="7")))
    assert not signin.may_operate(settings, admission(settings, verified("ada@example.com")))


def test_nobody_is_admitted_while_the_settings_have_a_problem() -> None:
    broken = read(auth(cookie_secret="short"), {"allowed_domains": ["example.com"]})
    assert not admission(broken, {"email": "ada@example.com"}).admitted


# -- who may clear a shared store ---------------------------------------------------------------

TEAM_ENV = {"QA_DASHBOARD_STORE_URL": "postgresql://store.example.com/qa"}


def test_a_signed_in_operator_may_clear_a_team_store_and_nobody_else() -> None:
    settings = read(auth(), {"allowed_domains": ["example.com"], "operators": ["Ops@Example.com"]})

    def may(viewer: str | None) -> bool:
        return may_clear_history(
            secrets={}, env=TEAM_ENV, viewer=viewer, operators=settings.operators
        )

    assert may("ops@example.com")
    assert not may("ada@example.com")
    assert not may(None)


def test_sign_in_alone_makes_a_dashboard_a_teams() -> None:
    secrets = {"auth": auth(), "signin": {"allowed_domains": ["example.com"]}}
    assert not may_clear_history(secrets=secrets, env={}, viewer="ada@example.com")
    assert may_clear_history(secrets={}, env={}), "the control: one person's demo keeps it"


# -- whether the provider answers ---------------------------------------------------------------


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_provider_that_does_not_listen_is_said_to_not_answer() -> None:
    provider = Provider(None, f"http://127.0.0.1:{closed_port()}/.well-known/openid-configuration")
    assert signin.provider_problem(provider, deadline=2) == "does not answer"
    assert provider.host == "127.0.0.1"


def test_a_provider_answering_an_error_or_no_configuration_is_said_so() -> None:
    answers = {
        "/down": httpx.Response(503, text="maintenance"),
        "/html": httpx.Response(200, text="<html>login</html>"),
        "/ok": httpx.Response(200, json={"authorization_endpoint": "https://id/authorize"}),
    }

    def handler(request: httpx.Request) -> httpx.Response:
        return answers[request.url.path]

    transport = httpx.MockTransport(handler)
    said = {
        path: signin.provider_problem(
            Provider(None, f"https://id.example.com{path}"), transport=transport
        )
        for path in answers
    }
    assert said == {
        "/down": "answers HTTP 503",
        "/html": "does not answer with an OpenID Connect configuration",
        "/ok": None,
    }


# -- back to the link after sign-in -------------------------------------------------------------

PAGES = ["plans", "executions", "results"]


def returning(base_path: str = "") -> ReturnAfterSignIn:
    async def never(scope: object, receive: object, send: object) -> None:
        raise AssertionError("target() is tested on its own")

    return ReturnAfterSignIn(never, pages=PAGES, base_path=base_path)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("referer", "target"),
    [
        ("http://qa.example.com/results?execution=7&plan=3", "/results?execution=7&plan=3"),
        ("http://qa.example.com/executions", "/executions"),
        ("http://qa.example.com/?project=2", "/?project=2"),
        # Nothing to come back to, or nowhere the dashboard has a page: the home page.
        ("http://qa.example.com/", None),
        ("", None),
        ("http://qa.example.com/nope?x=1", None),
        ("http://qa.example.com/results/extra", None),
        ("http://id.example.com/oauth2/authorize?state=x", None),
        ("http://qa.example.com/results/extra?execution=7", None),
        # Only the path and query are ever used: another site's page is at most the same page here.
        ("//evil.example/results", "/results"),
        ("https://evil.example/executions?plan=3", "/executions?plan=3"),
        ("http://qa.example.com/results?x=%0d%0aSet-Cookie:a", "/results?x=%0d%0aSet-Cookie:a"),
        ("http://qa.example.com/results?x=a b", None),
    ],
)
def test_the_page_a_sign_in_started_from_is_only_ever_one_of_the_dashboards(
    referer: str, target: str | None
) -> None:
    assert returning().target(referer) == target


def test_a_base_url_path_is_kept_in_the_target() -> None:
    under = returning("/qa/")
    assert under.target("https://host/qa/results?execution=7") == "/qa/results?execution=7"
    assert under.target("https://host/results?execution=7") is None


def test_through_asgi_a_sign_in_ends_on_its_link_and_a_failed_start_says_why() -> None:
    # A thread of its own: the browser tests' Playwright keeps an event loop running in the main
    # thread of the test session, where asyncio.run() refuses to start another.
    with ThreadPoolExecutor(max_workers=1) as thread:
        thread.submit(asyncio.run, _through_asgi()).result()


async def _through_asgi() -> None:
    provider_up = True

    async def login(_request: Request) -> Response:
        # Streamlit's own answer: to the provider, or a bare 400 when it cannot be reached.
        if provider_up:
            return RedirectResponse("https://id.example.com/authorize?state=s", status_code=302)
        return PlainTextResponse("Authentication error", status_code=400)

    async def callback(_request: Request) -> Response:
        response = RedirectResponse("/", status_code=302)
        response.set_cookie("_streamlit_user", "signed", httponly=True)
        return response

    app = Starlette(
        routes=[Route("/auth/login", login), Route("/oauth2callback", callback)],
        middleware=[Middleware(ReturnAfterSignIn, pages=PAGES)],
    )
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://dash.test") as client:
        start = await client.get(
            "/auth/login?provider=t",
            headers={"referer": "http://dash.test/results?execution=7&plan=3"},
        )
        assert start.status_code == 302
        assert start.headers["location"].startswith("https://id.example.com/")
        kept = start.cookies.get(RETURN_COOKIE)
        assert kept is not None
        assert "HttpOnly" in start.headers["set-cookie"]
        assert "SameSite=Lax" in start.headers["set-cookie"]

        end = await client.get("/oauth2callback?code=c&state=s")
        assert end.status_code == 302
        assert end.headers["location"] == "/results?execution=7&plan=3"
        assert "_streamlit_user=signed" in end.headers.get_list("set-cookie")[0]
        assert any(
            c.startswith(f"{RETURN_COOKIE}=;") and "Max-Age=0" in c
            for c in end.headers.get_list("set-cookie")
        ), "the cookie is spent"

        # A sign-in started on the home page ends there, whatever an old cookie said.
        client.cookies.clear()
        plain = await client.get("/oauth2callback?code=c&state=s")
        assert plain.headers["location"] == "/"

        # A cookie someone wrote by hand cannot send anyone elsewhere, nor anywhere but a page.
        client.cookies.set(RETURN_COOKIE, "https%3A%2F%2Fevil.example%2Fresults")
        forged = await client.get("/oauth2callback?code=c&state=s")
        assert forged.headers["location"] == "/results"
        client.cookies.set(RETURN_COOKIE, "%2F%2Fevil.example")
        forged = await client.get("/oauth2callback?code=c&state=s")
        assert forged.headers["location"] == "/"

        provider_up = False
        failed = await client.get(
            "/auth/login?provider=t", headers={"referer": "http://dash.test/results"}
        )
        assert failed.status_code == 502
        assert "Sign-in not possible right now" in failed.text
        assert "The sign-in service did not answer" in failed.text
        assert '<a href="/">' in failed.text
        assert "Authentication error" not in failed.text


# -- the probe's deadline and size ---------------------------------------------------------------


@pytest.fixture
def dripping() -> Iterator[Provider]:
    with dripping_provider() as metadata_url:
        yield Provider(None, metadata_url)


def test_a_provider_dripping_its_configuration_is_given_up_at_the_deadline(
    dripping: Provider,
) -> None:
    """A byte every 0.2 s never trips a per-read timeout; the probe's own deadline ends it. The
    probe runs in a thread the test waits on generously, so a probe without a deadline fails
    the test rather than hanging it."""
    said: list[str | None] = []
    probe = threading.Thread(
        target=lambda: said.append(signin.provider_problem(dripping, deadline=0.5)),
        daemon=True,
    )
    probe.start()
    probe.join(timeout=45)  # the drip lasts 60 s: only a deadline ends the probe before

    assert not probe.is_alive(), "the probe waited on the drip without a deadline"
    assert said == ["did not answer within 0.5 s"]


def test_the_deadline_is_said_in_whole_seconds_when_whole() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("slow", request=request)

    provider = Provider(None, "https://id.example.com/.well-known/openid-configuration")
    said = signin.provider_problem(provider, transport=httpx.MockTransport(handler), deadline=5)
    assert said == "did not answer within 5 s"


def test_a_provider_answering_too_much_is_given_up_at_the_size_cap() -> None:
    huge = b'{"authorization_endpoint": "https://id/authorize", "pad": "' + b"x" * 300_000 + b'"}'

    def handler(request: httpx.Request) -> httpx.Response:
        # Sent in pieces and without a length, as a stream a provider would send.
        return httpx.Response(200, stream=httpx.ByteStream(huge))

    provider = Provider(None, "https://id.example.com/.well-known/openid-configuration")
    said = signin.provider_problem(provider, transport=httpx.MockTransport(handler))
    assert said == "answers with more than 256 KiB, not an OpenID Connect configuration"
