"""One viewer must not hurt the others: the connection form is the operator's to allow, it is
no port scanner, and Refresh reloads only the caller's connection, at most every 10 s."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from datetime import timedelta

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.data import cache, cache_connection
from dashboard.data.cache_connection import Generations
from dashboard.present.messages import form_connection_failed
from sandbox import RunningSandbox
from tests.dashboard.apptest import assert_no_failure, captions, joined
from tests.dashboard.conftest import AppFactory, Connect, Requests, user
from tests.loopback_service import serve_http

# -- the form: on or off, and where it may go ---------------------------------------------------


def form_fields(at: AppTest) -> int:
    return len(at.sidebar.text_input)


def connect_with_form(at: AppTest, base_url: str, token: str, company_id: str = "1") -> None:
    base, secret, company, _email = at.sidebar.text_input
    base.input(base_url)
    secret.input(token)
    company.input(company_id)
    at.sidebar.form_submit_button[0].click().run()


def test_the_form_is_off_when_the_operator_configured_a_connection(
    app: AppFactory, connect: Connect
) -> None:
    connect()
    at = app()

    at.run()

    assert_no_failure(at)
    assert form_fields(at) == 0
    assert "connection form is off" in captions(at.sidebar)
    assert at.dataframe


@pytest.mark.parametrize("where", ["environment", "secrets"])
def test_the_operator_can_allow_the_form_beside_a_configured_connection(
    app: AppFactory,
    connect: Connect,
    sandbox: RunningSandbox,
    monkeypatch: pytest.MonkeyPatch,
    where: str,
) -> None:
    connect()
    at = app()
    if where == "environment":
        monkeypatch.setenv("QA_DASHBOARD_ALLOW_CONNECTION_FORM", "true")
    else:
        at.secrets["service"] = {"allow_connection_form": True}
    at.run()
    assert form_fields(at) == 4

    other = user(sandbox, company_id=2)
    connect_with_form(at, sandbox.base_url, other.token, str(other.company_id))

    assert_no_failure(at)
    assert "Company 2, configured in the sidebar form" in joined(at.sidebar.caption)


def test_a_host_off_the_allow_list_is_refused_before_any_request(
    app: AppFactory, sandbox: RunningSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QA_DASHBOARD_ALLOWED_HOSTS", "qa.example.test, other.example.test:8443")
    at = app()
    at.run()

    connect_with_form(at, sandbox.base_url, user(sandbox).token)

    assert not at.exception
    assert "not on this dashboard's list of allowed hosts" in joined(at.sidebar.warning)
    assert "Demo data" in joined(at.sidebar.markdown)  # the demo is shown, not the sandbox


# -- the form is no port scanner ---------------------------------------------------------------


@pytest.fixture(scope="module")
def web_server() -> Iterator[str]:
    """Some other web server on the network: an HTML page for every path."""

    def respond(target: str) -> tuple[int, str, bytes]:
        return 200 if target == "/" else 404, "text/html", b"<html><body>It works!</body></html>"

    with serve_http(respond, name="web-server") as base_url:
        yield base_url


def closed_port() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"  # nothing listens once closed


def test_form_connections_fail_alike_whatever_answered(
    app: AppFactory, sandbox: RunningSandbox, web_server: str
) -> None:
    targets = {
        "closed port": (closed_port(), user(sandbox).token),
        "another web server": (web_server, user(sandbox).token),
        "the API, token refused": (sandbox.base_url, "sbx-not-a-token-of-this-service"),
        "the API, authority missing": (sandbox.base_url, user(sandbox, lacking="PLAN_VIEW").token),
    }
    shown: dict[str, str] = {}
    for name, (base_url, token) in targets.items():
        at = app()
        at.run()
        connect_with_form(at, base_url, token)
        assert not at.exception, name
        assert "sidebar form" in joined(at.sidebar.caption), name  # the form's connection
        shown[name] = joined(at.main.error)

    assert set(shown.values()) == {form_connection_failed("the test plans").text}, shown


# -- Refresh: the caller's connection only, and not too often ----------------------------------


def test_generations_move_on_at_most_once_per_interval() -> None:
    generations = Generations(interval=timedelta(seconds=10), ttl=timedelta(minutes=5))

    assert generations.of("a") == 0
    assert generations.advance("a", now=100.0)
    first = generations.of("a")
    assert not generations.advance("a", now=105.0)  # too soon
    assert generations.seconds_until_next("a", now=105.0) == 5.0
    assert generations.of("a") == first
    assert generations.of("b") == 0  # another connection is untouched
    assert generations.advance("b", now=105.0)
    assert generations.advance("a", now=110.0)
    assert generations.of("a") not in (0, first)


def test_generations_forget_connections_whose_data_has_expired() -> None:
    generations = Generations(interval=timedelta(seconds=10), ttl=timedelta(minutes=5))
    generations.advance("old", now=0.0)

    generations.advance("new", now=301.0)

    assert generations.of("old") == 0  # its cache entries have all expired by now
    assert generations.of("new") > 0


def test_refresh_reloads_the_callers_connection_only_and_not_too_often(
    app: AppFactory,
    connect: Connect,
    sandbox: RunningSandbox,
    service_requests: Requests,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # An hour between Refreshes, not the product's 10 s: "at once again" below must stay within
    # it however long a loaded machine takes over B's run in between.
    monkeypatch.setattr(
        cache_connection,
        "GENERATIONS",
        Generations(interval=timedelta(hours=1), ttl=cache.DATA_TTL),
    )
    connect()  # viewer A: the environment's connection
    viewer_a, viewer_b = app(), app()
    other = user(sandbox, company_id=2)
    viewer_b.secrets["service"] = {  # viewer B: another connection (secrets win)
        "base_url": sandbox.base_url,
        "token": other.token,
        "company_id": other.company_id,
    }
    viewer_a.run()
    viewer_b.run()
    assert service_requests()  # both loaded their plans
    viewer_a.run()
    viewer_b.run()
    assert service_requests() == []  # and reuse them

    viewer_a.sidebar.button[0].click().run()  # A presses Refresh
    assert_no_failure(viewer_a)
    reloaded = service_requests()
    assert reloaded
    viewer_b.run()
    assert service_requests() == []  # B's data was kept

    viewer_a.sidebar.button[0].click().run()  # at once again: refused
    assert service_requests() == []
    assert "fetched afresh a moment ago" in captions(viewer_a.sidebar)
    assert viewer_a.dataframe
