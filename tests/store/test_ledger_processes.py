"""Two processes marking and closing at once in one ledger lose no mark and no log entry: on
one DuckDB file (they take turns with the file) and on one PostgreSQL schema (they write at the
same time, and a change of a mark the other just changed is read again and retried).

Real subprocesses (tests/store/marks_driver.py), started together on a line each waits for.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from dashboard.columns import marks as columns
from dashboard.data.store.marks import MarkDraft, MarkTarget
from tests.store.conftest import REPO, HistoryOpener

TURNS = 12
COMPANY = 1


@pytest.fixture
def store_name(open_history: HistoryOpener) -> Iterator[str]:
    """How the driver names the test's store: its DuckDB file, or `pg:SCHEMA`."""
    if open_history.pg_url is None:
        yield str(open_history.path)
    else:
        yield "pg:history_test_c1"


def start(
    store_name: str, name: str, shared: str, race: str, pg_url: str | None
) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    if pg_url is not None:
        env["QA_TEST_STORE_URL"] = pg_url
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.store.marks_driver",
            store_name,
            name,
            str(TURNS),
            shared,
            race,
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=REPO,
    )


def test_two_processes_marking_and_closing_at_once_lose_nothing(
    open_history: HistoryOpener, store_name: str
) -> None:
    with open_history() as store:
        shared = store.add_mark(
            COMPANY,
            MarkDraft(MarkTarget(columns.SCENARIO, plan_id=7, scenario_id=1), columns.KNOWN_ISSUE),
            by="setup",
        )
        race = store.add_mark(
            COMPANY,
            MarkDraft(MarkTarget(columns.SCENARIO, plan_id=7, scenario_id=2), columns.KNOWN_ISSUE),
            by="setup",
        )
    processes = [
        start(store_name, name, shared, race, open_history.pg_url) for name in ("ann", "bob")
    ]
    for process in processes:
        assert process.stdout is not None
        assert process.stdin is not None
        line = process.stdout.readline().strip()
        assert line == "ready", process.communicate(timeout=60)[1][-2000:]
    for process in processes:
        assert process.stdin is not None
        process.stdin.write("go\n")
        process.stdin.flush()
    outputs = [process.communicate(timeout=300) for process in processes]

    assert [p.returncode for p in processes] == [0, 0], [err[-2000:] for _, err in outputs]
    done = [out.strip().splitlines()[-1].split() for out, _ in outputs]
    assert [d[:3] for d in done] == [["done", str(TURNS), str(TURNS // 2)]] * 2
    assert sorted(d[3] for d in done) == ["lost", "won"]

    with open_history() as store:
        marks = store.marks(COMPANY).set_index("mark_id")
        log = store.mark_log(COMPANY)
    assert len(marks) == 2 + 2 * TURNS
    own = marks.drop(index=[shared, race])
    assert sorted(own["created_by"].value_counts().items()) == [("ann", TURNS), ("bob", TURNS)]
    assert own["closed_at"].notna().sum() == TURNS  # half of each one's, none lost
    # The shared mark: every change of both landed, each with its own log entry, in order.
    assert marks.loc[shared, "revision"] == 1 + 2 * TURNS
    changes = log[log["mark_id"] == shared]
    assert changes["revision"].tolist() == list(range(1, 2 + 2 * TURNS))
    assert sorted(changes["actor"].value_counts().items()) == [
        ("ann", TURNS),
        ("bob", TURNS),
        ("setup", 1),
    ]
    # The race: closed once, by the one that won.
    raced = log[log["mark_id"] == race]
    assert raced["action"].tolist() == ["created", "closed"]
    winner = next(name for name, d in zip(("ann", "bob"), done, strict=True) if d[3] == "won")
    assert marks.loc[race, "closed_by"] == winner
    # Every mark's log is whole: its entries number 1 to its revision.
    for mark_id, entries in log.groupby("mark_id"):
        assert entries["revision"].tolist() == list(
            range(1, int(marks.loc[mark_id, "revision"]) + 1)
        )
