"""The walk over every page of the executions operation, and the merge of its pages.

`ApiClient.all_executions` hands this module a function that fetches one page; the walk decides
which pages to ask for, how many at a time, and when the answer can be trusted.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from datetime import datetime, timedelta

from api_client.models import Execution, ExecutionPage, RecordList
from api_client.query import ExecutionQuery

_LOG = logging.getLogger("api_client")

ProgressCallback = Callable[[int, int], None]
"""Called as `on_progress(done_pages, total_pages)` in the caller's thread."""

FetchPage = Callable[[int, int, ExecutionQuery], ExecutionPage]
"""Fetches one page: `fetch(page_number, page_size, query)`."""

# Walks of a filter whose matches keep changing; the last walk is returned as it is.
_MAX_WALKS = 3


def walk_executions(
    fetch: FetchPage,
    query: ExecutionQuery,
    *,
    page_size: int,
    max_concurrency: int,
    on_progress: ProgressCallback | None = None,
) -> RecordList[Execution]:
    """Every execution matching `query`, each exactly once, in the service's order.

    Page numbers shift when executions start or vanish during the walk, which could skip
    or repeat one at a page boundary. So, when the caller sets no upper bound, the walk
    bounds itself at the newest start on the first page, which keeps executions started
    later out of the later pages; and if the pages still disagree on how many executions
    match, the data changed under the walk and it is walked again.
    """
    pages: dict[int, ExecutionPage] = {}
    for _ in range(_MAX_WALKS):
        pages = _walk_once(fetch, query, page_size, max_concurrency, on_progress)
        if len({page.total_count for page in pages.values()}) == 1:
            break
        _LOG.info("executions changed during the walk over %d pages; walking again", len(pages))
    return merge_pages(pages[number] for number in sorted(pages))


def _walk_once(
    fetch: FetchPage,
    query: ExecutionQuery,
    page_size: int,
    max_concurrency: int,
    on_progress: ProgressCallback | None,
) -> dict[int, ExecutionPage]:
    first = fetch(1, page_size, query)
    total_pages = max(first.page_count, 1)
    pages = {1: first}
    if on_progress:
        on_progress(1, total_pages)
    if total_pages > 1:
        later = query
        if query.date_to is None and first.item_list and first.item_list[0].start_date:
            later = query.with_changes(date_to=newest_start_bound(first.item_list[0].start_date))
        _fetch_pages(
            fetch, range(2, total_pages + 1), page_size, later, pages, max_concurrency, on_progress
        )
    return pages


def _fetch_pages(
    fetch: FetchPage,
    numbers: range,
    page_size: int,
    query: ExecutionQuery,
    into: dict[int, ExecutionPage],
    max_concurrency: int,
    on_progress: ProgressCallback | None,
) -> None:
    """Fetch pages concurrently; report each one as it arrives, in the caller's thread."""
    total_pages = len(into) + len(numbers)
    pool = ThreadPoolExecutor(max_workers=max_concurrency)
    try:
        futures = {pool.submit(fetch, number, page_size, query): number for number in numbers}
        for future in as_completed(futures):
            into[futures[future]] = future.result()  # the first failure ends the walk
            if on_progress:
                on_progress(len(into), total_pages)
    finally:
        # On failure, pages not yet started are dropped rather than waited for.
        pool.shutdown(wait=False, cancel_futures=True)


def newest_start_bound(newest: datetime) -> datetime:
    """An upper bound that keeps the newest execution of the first page in the later pages.

    Timestamps may come rounded down to the second; the bound covers the whole second.
    """
    return newest.replace(microsecond=0) + timedelta(seconds=1) - timedelta(milliseconds=1)


def merge_pages(pages: Iterable[ExecutionPage]) -> RecordList[Execution]:
    """The pages' executions in order, each id once, with every page's skipped records."""
    merged: RecordList[Execution] = RecordList()
    seen: set[int] = set()
    for page in pages:
        merged.skipped.extend(page.skipped)
        for execution in page.item_list:
            if execution.id not in seen:
                seen.add(execution.id)
                merged.append(execution)
    return merged
