"""A sync, or a store held open, in a process of its own: for the tests that kill a sync with
SIGKILL, run two at once, or hold the file while another process wants it.

    python -m tests.store.sync_driver sync STORE BASE_URL COMPANY_ID NOW [--flush-pairs N]
    python -m tests.store.sync_driver hold STORE

STORE is a DuckDB file, or `pg:SCHEMA` for a schema of the PostgreSQL database whose URL is in
the QA_TEST_STORE_URL environment variable. The token comes from the QA_TEST_TOKEN environment
variable (never the command line). `sync`
prints `results DONE TOTAL` after every pair (flushed, so a test can wait on it) and `done` at
the end; `hold` stores one marker result, prints `holding` while it keeps the file open, and
lets go when a line arrives on its standard input.
"""

from __future__ import annotations

import argparse
import os
import sys
from datetime import datetime

import pandas as pd

from api_client import ApiClient
from dashboard.data import results_fanout
from dashboard.data.store import HistoryStore, open_store
from dashboard.data.store.records import results_frame
from dashboard.data.sync import sync_history
from tests.dashboard import records


def open_any(store: str, **options: float) -> HistoryStore:
    """The store named on the command line: a DuckDB file, or `pg:SCHEMA`."""
    if store.startswith("pg:"):
        from dashboard.data.store.postgres import PostgresEngine

        engine = PostgresEngine(os.environ["QA_TEST_STORE_URL"], store.removeprefix("pg:"))
        return HistoryStore.on(engine, **options)
    return open_store(store, **options)


def main() -> int:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="mode", required=True)
    sync = sub.add_parser("sync")
    sync.add_argument("store")
    sync.add_argument("base_url")
    sync.add_argument("company_id", type=int)
    sync.add_argument("now")
    sync.add_argument("--flush-pairs", type=int, default=results_fanout.FLUSH_PAIRS)
    hold = sub.add_parser("hold")
    hold.add_argument("store")
    args = parser.parse_args()

    if args.mode == "hold":
        with open_any(args.store, idle=0) as store, store.held():
            marker = results_frame([records.result(424242, execution_id=4242, scenario_id=42)])
            pairs = pd.DataFrame({"execution_id": [4242], "scenario_id": [42], "result_count": [1]})
            store.add_results(marker, pairs)
            print("holding", flush=True)
            sys.stdin.readline()
        print("released", flush=True)
        return 0

    # Small batches: many transactions, so a kill lands in or between writes alike.
    results_fanout.FLUSH_PAIRS = args.flush_pairs

    def progress(stage: str, done: int, total: int) -> None:
        if stage == "results":
            print(f"results {done} {total}", flush=True)

    with (
        ApiClient(
            base_url=args.base_url, token=os.environ["QA_TEST_TOKEN"], company_id=args.company_id
        ) as client,
        open_any(args.store, wait=60) as store,
    ):
        report = sync_history(
            client,
            store,
            now=datetime.fromisoformat(args.now),
            max_concurrency=4,
            on_progress=progress,
        )
    print(f"done {report.results.stored} {len(report.failures)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
