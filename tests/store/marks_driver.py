"""A dashboard process marking and closing in the known-failure ledger, for the tests that run
two at once on one store:

    python -m tests.store.marks_driver STORE NAME COUNT SHARED RACE

STORE is a DuckDB file, or `pg:SCHEMA` (the database's URL in QA_TEST_STORE_URL). The process
prints `ready` once its store is open and starts on a line from its standard input, so two
start together. Then, COUNT times: it adds a mark of its own, changes the mark SHARED (its note
says who and which turn), and closes every other mark of its own; last, it tries to close the
mark RACE, which the other process tries to close too. It prints `done ADDED CLOSED RACE` where
RACE is `won` or `lost`.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime

from dashboard.columns import marks as columns
from dashboard.data.store.marks import MarkChange, MarkDraft, MarkRefused, MarkTarget
from tests.store.sync_driver import open_any

COMPANY = 1


def main() -> int:
    store_name, name, count, shared, race = sys.argv[1:6]
    # Idle briefly, as between a page's operations: a DuckDB file then passes from one process
    # to the other many times.
    with open_any(store_name, wait=120, idle=0.05) as store:
        store.marks(COMPANY)
        print("ready", flush=True)
        sys.stdin.readline()
        added = closed = 0
        for turn in range(int(count)):
            target = MarkTarget(columns.SCENARIO, plan_id=7, scenario_id=1000 + turn)
            mark = store.add_mark(
                COMPANY, MarkDraft(target, columns.KNOWN_ISSUE, note=f"{name} {turn}"), by=name
            )
            added += 1
            store.change_mark(
                COMPANY, shared, MarkChange(columns.KNOWN_ISSUE, note=f"{name} {turn}"), by=name
            )
            if turn % 2:
                store.close_mark(COMPANY, mark, by=name, now=datetime.now(UTC))
                closed += 1
        try:
            store.close_mark(COMPANY, race, by=name)
            outcome = "won"
        except MarkRefused:
            outcome = "lost"
    print(f"done {added} {closed} {outcome}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
