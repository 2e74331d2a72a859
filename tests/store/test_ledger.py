"""The known-failure ledger in the history store, on a DuckDB file and on PostgreSQL alike:
marks of every target, their append-only log, closing that keeps the mark, changes that say
what changed, refusals in sentences with nothing written, one company's marks never another's,
`clear` keeping the ledger, and import restoring an export."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from dashboard.columns import marks as columns
from dashboard.data.store import HistoryStore, open_store
from dashboard.data.store.errors import StoreSchemaError
from dashboard.data.store.marks import (
    MAX_NOTE,
    MarkChange,
    MarkDraft,
    MarkNotFound,
    MarkRefused,
    MarkTarget,
)
from tests.store.conftest import HistoryOpener

NOW = datetime(2026, 11, 24, 9, 30, tzinfo=UTC)
COMPANY = 1
TICKET = "https://jira.example.com/browse/SHOP-123"

GROUP = MarkTarget(columns.FAILURE_GROUP, signature="TimeoutException: after {n} ms", plan_id=7)
ANY_PLAN_GROUP = MarkTarget(columns.FAILURE_GROUP, signature="")
SCENARIO = MarkTarget(columns.SCENARIO, plan_id=7, scenario_id=31)
ON_SAFARI = MarkTarget(
    columns.SCENARIO_ENVIRONMENT, plan_id=7, scenario_id=32, environment="SAFARI 17 / macOS"
)
EXECUTION = MarkTarget(columns.EXECUTION, execution_id=1005)


def known(target: MarkTarget, **fields: object) -> MarkDraft:
    values: dict[str, object] = {"kind": columns.KNOWN_ISSUE, "ticket": TICKET} | fields
    return MarkDraft(target=target, **values)  # type: ignore[arg-type]


def test_a_mark_of_each_target_is_kept_with_who_and_when(store: HistoryStore) -> None:
    ids = [
        store.add_mark(COMPANY, known(GROUP, owner="Ann", note="Filed"), by="bob", now=NOW),
        store.add_mark(COMPANY, known(ANY_PLAN_GROUP, kind=columns.ACCEPTED), by="bob", now=NOW),
        store.add_mark(COMPANY, known(SCENARIO, expires_on=date(2026, 12, 1)), by="cy", now=NOW),
        store.add_mark(COMPANY, known(ON_SAFARI), by="cy", now=NOW),
        store.add_mark(COMPANY, known(EXECUTION, kind=columns.OUTAGE), by="dee", now=NOW),
    ]

    marks = store.marks(COMPANY).set_index("mark_id").loc[ids]
    assert list(marks["target"]) == [
        columns.FAILURE_GROUP,
        columns.FAILURE_GROUP,
        columns.SCENARIO,
        columns.SCENARIO_ENVIRONMENT,
        columns.EXECUTION,
    ]
    assert list(marks["signature"].fillna("<none>")) == [
        "TimeoutException: after {n} ms",
        "",  # the group of failures without a message
        "<none>",
        "<none>",
        "<none>",
    ]
    assert marks["plan_id"].tolist()[:4] == [7, pd.NA, 7, 7]
    assert marks.loc[ids[3], "environment"] == "SAFARI 17 / macOS"
    assert marks.loc[ids[4], "execution_id"] == 1005
    assert marks.loc[ids[0], "owner"] == "Ann"
    assert marks.loc[ids[0], "note"] == "Filed"
    assert marks.loc[ids[2], "expires_on"] == pd.Timestamp("2026-12-01", tz="UTC")
    assert pd.isna(marks.loc[ids[0], "expires_on"])
    assert list(marks["created_by"]) == ["bob", "bob", "cy", "cy", "dee"]
    assert (marks["created_at"] == pd.Timestamp(NOW)).all()
    assert marks["closed_at"].isna().all()
    assert (marks["revision"] == 1).all()
    assert list(marks["company_id"].unique()) == [COMPANY]
    log = store.mark_log(COMPANY)
    assert sorted(log["mark_id"]) == sorted(ids)
    first = log.set_index("mark_id").loc[ids[2]]
    assert (first["action"], first["actor"], first["revision"]) == ("created", "cy", 1)
    assert first["what"] == (
        f"known issue: scenario 31 of plan 7; ticket {TICKET}; expiry 2026-12-01"
    )


def test_closing_keeps_the_mark_and_logs_who_closed_it_and_why(store: HistoryStore) -> None:
    mark = store.add_mark(COMPANY, known(SCENARIO), by="bob", now=NOW)
    later = NOW + timedelta(days=2)

    revision = store.close_mark(COMPANY, mark, by="ann", reason="looks fixed", now=later)

    kept = store.marks(COMPANY).set_index("mark_id").loc[mark]
    assert revision == kept["revision"] == 2
    assert (kept["closed_by"], kept["closed_at"]) == ("ann", pd.Timestamp(later))
    assert kept["ticket"] == TICKET
    log = store.mark_log(COMPANY)
    assert log[["revision", "actor", "action", "what"]].values.tolist() == [
        [1, "bob", "created", f"known issue: scenario 31 of plan 7; ticket {TICKET}"],
        [2, "ann", "closed", "closed: looks fixed"],
    ]
    with pytest.raises(MarkRefused, match=r"was closed by ann on 26 Nov 2026"):
        store.close_mark(COMPANY, mark, by="bob", now=later)
    with pytest.raises(MarkRefused, match="was closed"):
        store.change_mark(COMPANY, mark, MarkChange(columns.ACCEPTED), by="bob", now=later)
    assert len(store.mark_log(COMPANY)) == 2


def test_a_change_logs_what_changed_and_nothing_when_nothing_did(store: HistoryStore) -> None:
    mark = store.add_mark(COMPANY, known(GROUP, note="first"), by="bob", now=NOW)
    change = MarkChange(
        columns.ACCEPTED,
        ticket="https://jira.example.com/browse/SHOP-9",
        note="second",
        owner="Ann",
        expires_on=date(2026, 12, 24),
    )

    assert store.change_mark(COMPANY, mark, change, by="cy", now=NOW) == 2
    assert store.change_mark(COMPANY, mark, change, by="cy", now=NOW) == 2

    log = store.mark_log(COMPANY)
    assert len(log) == 2
    assert log.iloc[1]["what"] == (
        "kind: known issue -> accepted; ticket: "
        f"{TICKET} -> https://jira.example.com/browse/SHOP-9; note changed; owner: (none) -> Ann; "
        "expiry: (none) -> 2026-12-24"
    )
    kept = store.marks(COMPANY).iloc[0]
    assert (kept["kind"], kept["owner"], kept["note"]) == (columns.ACCEPTED, "Ann", "second")


@pytest.mark.parametrize(
    ("draft", "by", "sentence"),
    [
        (
            known(SCENARIO, ticket="javascript:alert(1)"),
            "bob",
            'must be a web link starting with http:// or https:// ("javascript:alert(1)" is not)',
        ),
        (known(SCENARIO, ticket="data:text/html,<b>x</b>"), "bob", "must be a web link"),
        (known(SCENARIO, ticket="file:///etc/passwd"), "bob", "must be a web link"),
        (known(SCENARIO, ticket="https://"), "bob", "must be a web link"),
        (
            known(SCENARIO, note="x" * (MAX_NOTE + 1)),
            "bob",
            "The note has 2,001 characters; a note holds at most 2,000.",
        ),
        (
            known(SCENARIO, expires_on=date(2026, 11, 23)),
            "bob",
            "The expiry 23 Nov 2026 is in the past (today is 24 Nov 2026, UTC)",
        ),
        (
            known(MarkTarget("plan", plan_id=7)),
            "bob",
            'an execution; "plan" is none of these.',
        ),
        (
            known(MarkTarget(columns.SCENARIO, plan_id=7)),
            "bob",
            "A scenario mark needs the plan and the scenario.",
        ),
        (
            known(MarkTarget(columns.SCENARIO_ENVIRONMENT, plan_id=7, scenario_id=3)),
            "bob",
            "needs the environment's name",
        ),
        (
            known(EXECUTION),
            "bob",
            "An execution is marked as an outage, or dismissed as not an outage.",
        ),
        (
            known(SCENARIO, kind=columns.OUTAGE),
            "bob",
            "A failure is marked as a known issue or accepted",
        ),
        (known(SCENARIO), "  ", "Say who you are"),
        (known(SCENARIO, owner="a\nb"), "bob", "The owner must be one line of text."),
    ],
)
def test_bad_input_is_refused_in_a_sentence_and_nothing_is_written(
    store: HistoryStore, draft: MarkDraft, by: str, sentence: str
) -> None:
    with pytest.raises(MarkRefused) as refused:
        store.add_mark(COMPANY, draft, by=by, now=NOW)

    assert sentence in str(refused.value)
    assert all(p.endswith(".") for p in refused.value.problems)
    assert store.marks(COMPANY).empty
    assert store.mark_log(COMPANY).empty


def test_an_expiry_of_today_is_taken_and_a_passed_one_kept_when_left_as_it_was(
    store: HistoryStore,
) -> None:
    mark = store.add_mark(COMPANY, known(SCENARIO, expires_on=NOW.date()), by="bob", now=NOW)
    later = NOW + timedelta(days=5)

    store.change_mark(
        COMPANY,
        mark,
        MarkChange(columns.KNOWN_ISSUE, ticket=TICKET, note="still", expires_on=NOW.date()),
        by="bob",
        now=later,
    )

    assert store.marks(COMPANY).iloc[0]["note"] == "still"


def test_another_companys_marks_are_neither_seen_nor_changed(store: HistoryStore) -> None:
    mine = store.add_mark(COMPANY, known(SCENARIO), by="bob", now=NOW)
    theirs = store.add_mark(2, known(SCENARIO), by="eve", now=NOW)

    assert store.marks(COMPANY)["mark_id"].tolist() == [mine]
    assert set(store.mark_log(COMPANY)["mark_id"]) == {mine}
    with pytest.raises(MarkNotFound, match=f"There is no mark {theirs} in company 1's ledger."):
        store.close_mark(COMPANY, theirs, by="bob", now=NOW)
    with pytest.raises(MarkNotFound):
        store.change_mark(COMPANY, theirs, MarkChange(columns.ACCEPTED), by="bob", now=NOW)
    with pytest.raises(MarkNotFound, match="is not a mark id"):
        store.close_mark(COMPANY, "'; DROP TABLE marks; --", by="bob", now=NOW)
    assert store.marks(2)["closed_at"].isna().all()


def test_clearing_the_history_keeps_the_ledger(store: HistoryStore) -> None:
    mark = store.add_mark(COMPANY, known(SCENARIO), by="bob", now=NOW)

    store.clear()

    assert store.marks(COMPANY)["mark_id"].tolist() == [mark]
    assert store.mark_counts() == (1, 1)


def test_an_export_imported_elsewhere_restores_marks_and_logs_once(
    store: HistoryStore, open_history: HistoryOpener, tmp_path: object
) -> None:
    group = store.add_mark(COMPANY, known(GROUP, note='=HYPERLINK("x")'), by="bob", now=NOW)
    closed = store.add_mark(COMPANY, known(SCENARIO, expires_on=NOW.date()), by="bob", now=NOW)
    store.close_mark(COMPANY, closed, by="ann", now=NOW + timedelta(hours=1))
    marks, log = store.marks(COMPANY), store.mark_log(COMPANY)
    records = [
        {k: (None if pd.isna(v) else v) for k, v in row.items()} for row in marks.to_dict("records")
    ]
    entries = log.to_dict("records")
    later = NOW + timedelta(days=30)  # the closed mark's expiry has passed: restored anyway
    other = HistoryStore.open(str(open_history.path) + ".copy.duckdb")

    with other:
        first = other.import_marks(COMPANY, records, entries, by="ops", now=later)
        again = other.import_marks(COMPANY, records, entries, by="ops", now=later)
        restored = other.marks(COMPANY).set_index("mark_id")
        restored_log = other.mark_log(COMPANY)

    assert (first.added, first.skipped) == (2, 0)
    assert (again.added, again.skipped) == (0, 2)
    assert set(restored.index) == {group, closed}
    assert restored.loc[group, "note"] == '=HYPERLINK("x")'
    assert restored.loc[closed, "closed_by"] == "ann"
    assert restored.loc[closed, "created_at"] == pd.Timestamp(NOW)
    assert restored.loc[closed, "revision"] == 3
    kept = restored_log[restored_log["mark_id"] == closed]
    assert kept["action"].tolist() == ["created", "closed", "imported"]
    assert kept["actor"].tolist() == ["bob", "ann", "ops"]


def test_an_import_of_new_marks_checks_each_row_and_writes_all_or_nothing(
    store: HistoryStore,
) -> None:
    good = {"target": columns.SCENARIO, "plan_id": 7, "scenario_id": 31, "kind": "known_issue"}
    rows = [
        good,
        {**good, "ticket": "javascript:alert(1)"},
        {**good, "company_id": 2},
        {**good, "mark_id": "not-an-id"},
    ]

    with pytest.raises(MarkRefused) as refused:
        store.import_marks(COMPANY, rows, by="ops", now=NOW)

    problems = refused.value.problems
    assert [p.split(":")[0] for p in problems] == ["Row 2", "Row 3", "Row 4"]
    assert "it is a mark of company 2; this ledger is company 1's." in problems[1]
    assert store.marks(COMPANY).empty

    report = store.import_marks(COMPANY, [good, good], by="ops", now=NOW)
    assert (report.added, report.skipped) == (2, 0)
    log = store.mark_log(COMPANY)
    assert set(log["action"]) == {"imported"}
    assert set(store.marks(COMPANY)["created_by"]) == {"ops"}


def test_the_store_counts_its_marks(store: HistoryStore) -> None:
    store.add_mark(COMPANY, known(SCENARIO), by="bob", now=NOW)
    closed = store.add_mark(COMPANY, known(ON_SAFARI), by="bob", now=NOW)
    store.close_mark(COMPANY, closed, by="bob", now=NOW)

    info = store.info()

    assert (info.marks, info.open_marks) == (2, 1)


def test_a_newer_schema_holding_marks_is_refused_not_rebuilt(store_path: Path) -> None:
    """A DuckDB file of a newer schema is otherwise rebuilt (a cache of the service); marks are
    not a cache. (PostgreSQL refuses every newer schema: tests/store/test_postgres.py.)"""
    with open_store(store_path) as store:
        mark = store.add_mark(COMPANY, known(SCENARIO), by="bob", now=NOW)
    con = duckdb.connect(str(store_path))
    con.execute("INSERT INTO schema_version VALUES (99, now())")
    con.close()

    with pytest.raises(StoreSchemaError, match="holds the team's known-failure marks"):
        open_store(store_path)

    con = duckdb.connect(str(store_path))
    try:
        assert con.execute("SELECT mark_id FROM marks").fetchall() == [(mark,)]
    finally:
        con.close()
