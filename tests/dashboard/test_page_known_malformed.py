"""A mark row written straight into the store's table that is not a mark this program can read
(here: a kind it does not know; a time no frame can hold) takes neither the Known failures page
nor any other mark down: the page lists the others and says, in one line, which mark is
malformed and not applied. The hand-built history (tests/dashboard/history_service.py) on
loopback; the rows are written into the dashboard's own DuckDB file."""

from __future__ import annotations

from pathlib import Path

import pytest

from dashboard.data.store import open_store
from tests.dashboard import history_service as hand
from tests.dashboard.apptest import assert_no_failure, notes, table_with
from tests.dashboard.conftest import AppFactory
from tests.store.test_marks_malformed import _written_by_hand

KNOWN = "app_pages/known.py"
COMPANY = 7  # the hand-built service's


@pytest.fixture
def own_stores(app: AppFactory, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    folder = tmp_path / "stores"
    monkeypatch.setenv("QA_DASHBOARD_CACHE_DIR", str(folder))
    return folder


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"kind": "bogus"}, "kind is 'bogus', not one of known_issue, accepted for a scenario"),
        ({"expires_on": "infinity"}, "expires_on is 'infinity', not a time"),
    ],
)
def test_a_malformed_mark_is_said_and_the_others_listed(
    fields: dict[str, str],
    problem: str,
    app: AppFactory,
    hand_built: hand.HistoryService,
    own_stores: Path,
) -> None:
    at = app(KNOWN, tz="UTC")
    at.run()
    assert_no_failure(at)
    (path,) = own_stores.glob("history-*.duckdb")
    with open_store(path) as store:
        _written_by_hand(store, "bbbbbbbbbbb1", company_id=COMPANY)
        _written_by_hand(store, "aaaaaaaaaaa1", company_id=COMPANY, **fields)
    from dashboard.data import cache_history

    cache_history._read_ledger.clear()  # as a save does: the next run reads the ledger again
    at.run()

    assert_no_failure(at)
    said = notes(at, "info")
    assert f"1 mark is malformed and not applied: mark aaaaaaaaaaa1: {problem}" in said
    listed = table_with(at, "Target", "Ticket")
    assert len(listed) == 1  # the well-formed one, and only it
