"""How big each case is at each size. `full` is the size the targets are set for; `tiny` only
proves the suite runs (the smoke test, in CI), so its figures mean nothing."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Size:
    name: str
    repeats: int  # runs of each timing; the slow cases run `slow_repeats`
    slow_repeats: int
    latency_ms: int  # of the sandbox behind cases 1 and 2
    fetch_executions: int  # executions in the sandbox of case 1 (about 70 % are company 1's)
    naive_page_size: int
    small_walk_executions: int  # the sandbox of #27's walk of pages of 100 (case 1)
    fanout_pairs: int
    parse_records: int  # executions, and results, of case 3
    page_executions: int  # the sandbox behind the browser (case 4) and case 7
    memory_results: int  # results held beside the 90 days (case 5)
    store_executions: int  # the sandbox the store of case 6 is filled from
    store_results: int  # results stored, at most (case 6)
    sync_days: int  # the window of case 6's sync over HTTP
    sandbox_requests: int  # filter requests per repeat (case 7)
    sandbox_page_size: int
    pg_results: int  # results stored in PostgreSQL (case 8)
    lists_results: int  # results stored before case 9's pages (newest first; beyond all: all)
    # Case 4: its links to the 90 days opened (of 4; the first, status=FAILURE, is the peer of
    # the bare app drawing the same content).
    links: int
    # Case 13: viewers opening the standup at once, and different pages opened at once.
    viewers: int
    # Case 13: pages whose first visit is timed (Plans, then the navigation's order, Standup
    # second: its first visit is the cold standups' peer); None: every page.
    first_visits: int | None


FULL = Size(
    name="full",
    repeats=5,
    slow_repeats=3,
    latency_ms=50,
    # 29,000 in the sandbox puts 20,346 in company 1, the one the suite reads.
    fetch_executions=29_000,
    naive_page_size=100,
    # 10,050 in the sandbox put 7,088 in company 1: 71 pages of 100, the walk of issue #27.
    small_walk_executions=10_050,
    fanout_pairs=500,
    parse_records=100_000,
    page_executions=100_000,
    memory_results=50_000,
    # 140,000 in the sandbox give company 1 about 1,150,000 results of finished executions.
    store_executions=140_000,
    store_results=1_000_000,
    sync_days=1,
    sandbox_requests=500,
    sandbox_page_size=100,
    pg_results=10_000_000,
    # Every result of the lead company's finished executions (about 830,000 at 100,000).
    lists_results=5_000_000,
    links=4,
    viewers=5,
    first_visits=None,
)

TINY = Size(
    name="tiny",
    repeats=1,
    slow_repeats=1,
    latency_ms=50,
    fetch_executions=600,
    naive_page_size=100,
    small_walk_executions=600,
    fanout_pairs=16,
    parse_records=1_000,
    page_executions=400,
    memory_results=1_000,
    store_executions=400,
    store_results=5_000,
    sync_days=1,
    sandbox_requests=20,
    sandbox_page_size=100,
    pg_results=24_000,
    lists_results=5_000_000,
    links=4,  # every link, as at full: its plan, project and zone checks run in CI too
    viewers=2,
    first_visits=2,
)

SIZES = {size.name: size for size in (TINY, FULL)}
