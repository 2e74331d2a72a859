"""A mark row written straight into the store's table (by an older or newer program, a script,
an administrator) that is not a mark this program can read is kept apart, said, and never
applied; the others are read as ever. Both engines, real databases."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dashboard.columns import marks as columns
from dashboard.data.store import HistoryStore
from dashboard.data.store.stored_marks import malformed_words
from sandbox import RunningSandbox
from tests.store.test_ledger import COMPANY, GROUP, NOW, SCENARIO, known

_INSERT = """
INSERT INTO marks (mark_id, company_id, target_type, signature, plan_id, scenario_id, environment,
    execution_id, kind, created_by, created_at, updated_at, expires_on, revision)
VALUES (:mark_id, :company_id, :target, :signature, :plan_id, :scenario_id, :environment,
    :execution_id, :kind, 'someone', CAST(:created_at AS TIMESTAMPTZ),
    CAST(:created_at AS TIMESTAMPTZ), CAST(:expires_on AS TIMESTAMPTZ), 1)
"""


def _written_by_hand(store: HistoryStore, mark_id: str, **fields: Any) -> None:
    row: dict[str, Any] = {
        "mark_id": mark_id,
        "company_id": COMPANY,
        "target": columns.SCENARIO,
        "signature": None,
        "plan_id": 7,
        "scenario_id": 31,
        "environment": None,
        "execution_id": None,
        "kind": columns.KNOWN_ISSUE,
        "created_at": "2026-11-01 10:00:00+00",
        "expires_on": None,
        **fields,
    }
    with store._lease() as db, db.transaction():
        db.execute(_INSERT, row)


BAD = {
    "aaaaaaaaaaa1": ({"kind": "bogus"}, "kind is 'bogus', not one of known_issue, accepted"),
    "aaaaaaaaaaa2": ({"target": "planet"}, "target is 'planet', not one of failure_group"),
    "aaaaaaaaaaa3": ({"expires_on": "infinity"}, "expires_on is 'infinity', not a time"),
    "aaaaaaaaaaa4": ({"scenario_id": None}, "scenario_id is missing, and a scenario mark needs"),
    "aaaaaaaaaaa5": (
        {"target": columns.EXECUTION, "kind": columns.KNOWN_ISSUE, "execution_id": 9},
        "kind is 'known_issue', not one of outage, not_an_outage for a execution",
    ),
}


def test_malformed_rows_are_kept_apart_said_and_the_others_read(store: HistoryStore) -> None:
    good = [
        store.add_mark(COMPANY, known(GROUP), by="bob", now=NOW),
        store.add_mark(COMPANY, known(SCENARIO), by="bob", now=NOW),
    ]
    for mark_id, (fields, _) in BAD.items():
        _written_by_hand(store, mark_id, **fields)
    _written_by_hand(store, "aaaaaaaaaaa6", expires_on="9999-12-31 00:00:00+00")  # far, not bad

    read = store.read_marks(COMPANY)

    assert sorted(read.marks["mark_id"]) == sorted([*good, "aaaaaaaaaaa6"])
    assert str(read.marks["expires_on"].max().date()) == "9999-12-31"
    said = {m.mark_id: m.problem for m in read.malformed}
    assert set(said) == set(BAD)
    for mark_id, (_, problem) in BAD.items():
        assert said[mark_id].startswith(problem) or problem in said[mark_id], said[mark_id]
    # `marks` (what the pages, the alerts and the gate apply) never holds one.
    assert set(store.marks(COMPANY)["mark_id"]) == set(read.marks["mark_id"])
    words = malformed_words(read.malformed[:1])
    assert words == f"1 mark is malformed and not applied: {read.malformed[0].sentence}."
    assert words.startswith("1 mark is malformed and not applied: mark aaaaaaaaaaa")


@pytest.mark.parametrize("count", [0, 2])
def test_the_sentence_counts_the_marks(count: int) -> None:
    from dashboard.data.store.stored_marks import MalformedMark

    malformed = [MalformedMark(f"m{i}", "kind is 'x'") for i in range(count)]
    words = malformed_words(malformed)
    if count == 0:
        assert words is None
    else:
        assert words == (
            "2 marks are malformed and not applied: mark m0: kind is 'x'; mark m1: kind is 'x'."
        )


def test_known_list_and_export_say_a_malformed_mark_and_leave_it_out(
    tmp_path: Path, live_sandbox: RunningSandbox
) -> None:
    import json

    from dashboard.data.store import open_store
    from tests.store.test_cli_hygiene import _environment

    env = _environment(tmp_path / "cache", live_sandbox)

    def known_cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "dashboard", "known", *args],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            timeout=300,
            check=False,
        )

    assert known_cli("list").returncode == 0  # makes the store
    (path,) = (tmp_path / "cache").glob("history-*.duckdb")
    with open_store(path) as store:
        _written_by_hand(store, "aaaaaaaaaaa1", company_id=1, kind="bogus")
        _written_by_hand(store, "bbbbbbbbbbb1", company_id=1)

    listed = known_cli("list")
    exported = known_cli("export")

    for result in (listed, exported):
        assert result.returncode == 0, result.stderr
        assert "note: 1 mark is malformed and not applied: mark aaaaaaaaaaa1: kind is" in (
            result.stderr
        )
        assert "Traceback" not in result.stderr
    assert "bbbbbbbbbbb1" in listed.stdout
    assert "aaaaaaaaaaa1" not in listed.stdout
    assert [m["mark_id"] for m in json.loads(exported.stdout)["marks"]] == ["bbbbbbbbbbb1"]
