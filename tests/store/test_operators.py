"""The one rule for destroying stored history (`store.operators.may_clear_history`): a
dashboard an operator configured offers it to nobody but named operators; local use keeps it."""

from __future__ import annotations

import pytest

from dashboard.data.store.operators import may_clear_history, serves_a_team

SERVICE = {
    "QA_DASHBOARD_BASE_URL": "https://qa.example.test/Api",
    "QA_DASHBOARD_TOKEN": "sbx-operator-token",
    "QA_DASHBOARD_COMPANY_ID": "7",
}
STORE_URL = {"QA_DASHBOARD_STORE_URL": "postgresql://qa@db.example.test/history"}


@pytest.mark.parametrize(
    ("secrets", "env"),
    [
        ({}, SERVICE),
        ({"service": {k.removeprefix("QA_DASHBOARD_").lower(): v for k, v in SERVICE.items()}}, {}),
        ({}, STORE_URL),
        ({"store": {"url": STORE_URL["QA_DASHBOARD_STORE_URL"]}}, {}),
        ({}, {**STORE_URL, "QA_DASHBOARD_CACHE_DIR": "/tmp/stores"}),
        # Half a configuration (a typo) does not make a team's dashboard someone's local one.
        ({}, {"QA_DASHBOARD_TOKEN": "sbx-half-configured"}),
        ({"service": {"base_url": "https://qa.example.test/Api"}}, {}),
    ],
    ids=[
        "environment",
        "secrets",
        "store url",
        "store url in secrets",
        "store url and folder",
        "half a connection",
        "half a connection in secrets",
    ],
)
def test_a_dashboard_an_operator_configured_offers_no_viewer_the_clear(
    secrets: dict[str, object], env: dict[str, str]
) -> None:
    assert serves_a_team(secrets=secrets, env=env)
    assert not may_clear_history(secrets=secrets, env=env)
    assert not may_clear_history(secrets=secrets, env=env, viewer="lee@example.test")
    assert not may_clear_history(
        secrets=secrets, env=env, viewer="lee@example.test", operators={"kim@example.test"}
    )


def test_a_signed_in_operator_may_clear_a_teams_store() -> None:
    """The seam for viewer sign-in: a viewer named among the operators may."""
    operators = frozenset({"kim@example.test"})
    assert may_clear_history(
        secrets={}, env=SERVICE, viewer="kim@example.test", operators=operators
    )
    assert not may_clear_history(secrets={}, env=SERVICE, viewer=None, operators=operators)


@pytest.mark.parametrize(
    "env",
    [
        {},
        {"QA_DASHBOARD_CACHE_DIR": "/tmp/stores"},
        {"QA_DASHBOARD_TOKEN": "  "},
        {"QA_DASHBOARD_ALLOW_CONNECTION_FORM": "true"},
    ],
    ids=["nothing", "a cache folder", "a blank token", "the form allowed"],
)
def test_local_use_keeps_the_clear(env: dict[str, str]) -> None:
    assert not serves_a_team(secrets={}, env=env)
    assert may_clear_history(secrets={}, env=env)
