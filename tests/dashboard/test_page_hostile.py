"""A misbehaving service, on the page: each misbehaviour is worded for the viewer, not crashed on.

The service is `tests/hostile_service.py` over real HTTP on loopback; the dashboard is pointed at
it as an operator would point it at a real service (QA_DASHBOARD_*).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.dashboard.apptest import EXECUTIONS, PLANS, everything_shown, joined, plain_notes
from tests.dashboard.conftest import AppFactory
from tests.hostile_service import HostileService, hostile_service


@pytest.fixture(scope="module")
def service() -> Iterator[HostileService]:
    with hostile_service(drip_interval=0.05) as running:
        yield running


def point(monkeypatch: pytest.MonkeyPatch, base_url: str, token: str = "hostile-token") -> None:  # noqa: S107 - a test value
    monkeypatch.setenv("QA_DASHBOARD_BASE_URL", base_url)
    monkeypatch.setenv("QA_DASHBOARD_TOKEN", token)
    monkeypatch.setenv("QA_DASHBOARD_COMPANY_ID", "1")


@pytest.mark.parametrize(
    ("token", "said"),
    [("hostile token", "a space"), ("hostile\u2019token", "a non-ASCII character")],
    ids=["space", "non-ascii"],
)
@pytest.mark.parametrize("page", [PLANS, EXECUTIONS])
def test_a_malformed_token_is_named_on_the_page_and_never_shown(
    app: AppFactory,
    service: HostileService,
    monkeypatch: pytest.MonkeyPatch,
    page: str,
    token: str,
    said: str,
) -> None:
    point(monkeypatch, service.url("healthy"), token)
    at = app(page)
    at.run()

    assert not at.exception
    error = joined(at.error)
    assert f"The token is not valid: it contains {said}." in error
    assert "QA_DASHBOARD_TOKEN" in error
    assert "filter value" not in error
    shown = everything_shown(at)
    assert token not in shown
    assert "hostile" not in shown
    assert service.request_count("healthy") == 0  # refused before anything was sent


@pytest.mark.parametrize("page", [PLANS, EXECUTIONS])
def test_a_redirect_names_its_origin_only_and_asks_to_check_the_base_url(
    app: AppFactory, service: HostileService, monkeypatch: pytest.MonkeyPatch, page: str
) -> None:
    point(monkeypatch, service.url("redirect"))
    at = app(page)
    at.run()

    assert not at.exception
    error = joined(at.error)
    assert "The service redirected the request for " in error
    assert " to `https://login.example.test` (HTTP 302)" in error
    assert "Check the base URL" in error
    assert "Refresh" not in error
    shown = everything_shown(at)
    assert "ticket" not in shown
    assert "/sso" not in shown


@pytest.mark.parametrize(
    ("behaviour", "pages", "why"),
    [
        ("lying-page-count", "1 page", "a page held only records already shown"),
        ("empty-pages", "1 page", "a page before the claimed end was empty"),
    ],
)
def test_a_lying_page_count_is_said_and_the_rest_is_shown(
    app: AppFactory,
    service: HostileService,
    monkeypatch: pytest.MonkeyPatch,
    behaviour: str,
    pages: str,
    why: str,
) -> None:
    point(monkeypatch, service.url(behaviour))
    at = app(EXECUTIONS, range="90d")
    at.run()

    assert not at.exception
    note = plain_notes(at)
    assert "The service claims 1,000,000,000 pages of executions" in note
    assert f"showing the first {pages} ({why})" in note
    # The executions read are shown as usual.
    table = at.dataframe[0].value
    assert sorted(table["Id"]) == [1, 2, 3]


def test_the_plans_page_says_its_recent_executions_were_cut_short(
    app: AppFactory, service: HostileService, monkeypatch: pytest.MonkeyPatch
) -> None:
    point(monkeypatch, service.url("lying-page-count"))
    at = app(PLANS)
    at.run()

    assert not at.exception
    assert "The service claims 1,000,000,000 pages of executions" in plain_notes(at)
    assert at.dataframe, "the plans table is still shown"
