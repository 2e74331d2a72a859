"""A history store file cut short (a full disk, a copy interrupted) never takes a page down:
the pages draw from the service, and the file is set aside and made again as an unreadable one
is. The hand-built history (tests/dashboard/history_service.py) on loopback, a real DuckDB file
cut to half its size between two runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.dashboard import history_service as hand
from tests.dashboard.apptest import EXECUTIONS, FAILURES, FLAKY, assert_no_failure
from tests.dashboard.conftest import AppFactory

KNOWN = "app_pages/known.py"


@pytest.fixture
def own_stores(app: AppFactory, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    folder = tmp_path / "stores"
    monkeypatch.setenv("QA_DASHBOARD_CACHE_DIR", str(folder))
    return folder


@pytest.mark.parametrize("page", [FLAKY, EXECUTIONS, FAILURES, KNOWN])
def test_a_store_cut_short_between_two_runs_takes_no_page_down(
    page: str, app: AppFactory, hand_built: hand.HistoryService, own_stores: Path
) -> None:
    from dashboard.data import cache

    at = app(FLAKY, tz="UTC")
    at.run()
    assert_no_failure(at)
    cache.clear_all()  # the store let go, as after a restart
    (path,) = own_stores.glob("history-*.duckdb")
    with path.open("r+b") as file:
        file.truncate(path.stat().st_size // 2)

    at = app(page, tz="UTC")
    at.run()

    assert_no_failure(at)
    assert path.with_name(path.name + ".unreadable").exists()
