"""A malformed QA_DASHBOARD_STORE_URL: the dashboard runs without a history store, shows
what the service answers, and neither the page nor the log repeats the URL's password."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from api_client import ApiClient, ExecutionQuery
from dashboard.data import cache_history
from tests.dashboard.apptest import EXECUTIONS, assert_no_failure, everything_shown
from tests.dashboard.conftest import AppFactory, Connect

MALFORMED = (
    "user:s3cret@db/qa",
    "host=db password=s3cret dbname=qa",
    "postgresql:/u:s3cret@h/db",
    "postgresql://u:s3cret@[::1/db",
)
WEEK = {"range": "custom", "from": "2026-11-13", "to": "2026-11-20"}


@pytest.fixture
def no_kept_store() -> Iterator[None]:
    """The process's kept stores (and what they said) forgotten before and after: an earlier
    test's store is not reused here, and this test's None is not reused by a later one."""
    for kept in (cache_history._history_store, cache_history.store_meta):
        kept.clear()
    yield
    for kept in (cache_history._history_store, cache_history.store_meta):
        kept.clear()


@pytest.mark.parametrize("url", MALFORMED)
@pytest.mark.usefixtures("no_kept_store")
def test_a_malformed_store_url_leaves_the_page_working_and_the_password_unshown(
    url: str,
    app: AppFactory,
    connect: Connect,
    oracle: ApiClient,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    connect()
    monkeypatch.setenv("QA_DASHBOARD_STORE_URL", url)
    with caplog.at_level(logging.DEBUG):
        at = app(EXECUTIONS, **WEEK)
        at.run()

    assert_no_failure(at)
    shown = at.dataframe[0].value["Id"].tolist()
    assert shown
    week = oracle.all_executions(ExecutionQuery(date_from=None, date_to=None))
    assert set(shown) <= {e.id for e in week}
    # The store was asked for and refused (no store), not silently skipped.
    assert "history store unavailable: StoreError" in caplog.text
    assert "s3cret" not in everything_shown(at)
    assert "s3cret" not in caplog.text
