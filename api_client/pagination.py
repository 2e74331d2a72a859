"""The walk over every page of the executions operation, and the merge of its pages.

`ApiClient.all_executions` hands this module a function that fetches one page; the walk decides
which pages to ask for, how many at a time, and when the service's counts can be trusted.

The walk is lazy: a page is asked for only when there is room for it (at most `max_concurrency`
in flight, and none far ahead of the first page not yet merged), so a service that claims a
billion pages costs a few requests, not a billion queued tasks. Pages are fetched on daemon
threads: a walk the caller abandons (an exception from `on_progress`, a failed page, an
interrupt) leaves nothing behind that would hold the interpreter at exit, and its pages still
in flight stop at their next chunk.
"""

from __future__ import annotations

import logging
import math
import queue
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from api_client.errors import InvalidRequestError
from api_client.models import (
    Execution,
    ExecutionPage,
    RecordList,
    Truncation,
    TruncationReason,
)
from api_client.query import ExecutionQuery

_LOG = logging.getLogger("api_client")

ProgressCallback = Callable[[int, int], None]
"""Called as `on_progress(done_pages, total_pages)` in the caller's thread."""

FetchPage = Callable[[int, int, ExecutionQuery, threading.Event | None], ExecutionPage]
"""Fetches one page: `fetch(page_number, page_size, query, stop)`; setting `stop` abandons it."""

PAGE_SIZES = (1000, 100, 50)
"""Page sizes tried, largest first, until the service accepts one (the spec gives no maximum;
the fewer the pages, the fewer round trips)."""

# Walks of a filter whose matches keep changing; the last walk is returned as it is.
_MAX_WALKS = 3
# How far past the first unmerged page a walk may ask, in multiples of `max_concurrency`: pages
# that arrive early wait in memory, so this bounds what one slow page can make the walk hold.
_LOOKAHEAD = 2


def walk_executions(
    fetch: FetchPage,
    query: ExecutionQuery,
    *,
    page_size: int,
    max_concurrency: int,
    max_pages: int,
    on_progress: ProgressCallback | None = None,
    first: ExecutionPage | None = None,
) -> RecordList[Execution]:
    """Every execution matching `query`, each exactly once, in the service's order.

    `first`, when given, is page 1 of `query` at `page_size`, already fetched (by
    `first_page_at_largest_size`); the first walk starts from it.

    Page numbers shift when executions start or vanish during the walk, which could skip
    or repeat one at a page boundary. So, when the caller sets no upper bound, the walk
    bounds itself at the newest start on the first page, which keeps executions started
    later out of the later pages; and if the pages still disagree on how many executions
    match, the data changed under the walk and it is walked again.

    The service's page count is believed up to `ceil(total_count / page_size)` and `max_pages`;
    the walk also ends at an empty page or one with nothing new. When it ends before the last
    page claimed, the result's `truncation` says so.
    """
    walk = _Walk(pages={}, truncation=None)
    for _ in range(_MAX_WALKS):
        walk = _walk_once(fetch, query, page_size, max_concurrency, max_pages, on_progress, first)
        first = None  # a walk again starts afresh
        if len({page.total_count for page in walk.pages.values()}) == 1:
            break
        _LOG.info(
            "executions changed during the walk over %d pages; walking again", len(walk.pages)
        )
    merged = merge_pages(walk.pages[number] for number in sorted(walk.pages))
    merged.truncation = walk.truncation
    return merged


@dataclass
class _Walk:
    pages: dict[int, ExecutionPage]
    truncation: Truncation | None


def believed_page_count(first: ExecutionPage, page_size: int, max_pages: int) -> int:
    """How many pages to read, whatever the service claims: at least 1, at most `max_pages`."""
    claimed = first.page_count
    implied = math.ceil(max(first.total_count, 0) / page_size)
    return max(1, min(claimed, implied, max_pages))


def _walk_once(
    fetch: FetchPage,
    query: ExecutionQuery,
    page_size: int,
    max_concurrency: int,
    max_pages: int,
    on_progress: ProgressCallback | None,
    first: ExecutionPage | None,
) -> _Walk:
    if first is None:
        first = fetch(1, page_size, query, None)
    total_pages = believed_page_count(first, page_size, max_pages)
    pages = {1: first}
    if on_progress:
        on_progress(1, total_pages)
    reason: TruncationReason | None = None
    if total_pages > 1:
        later = query
        if query.date_to is None and first.item_list and first.item_list[0].start_date:
            later = query.with_changes(date_to=newest_start_bound(first.item_list[0].start_date))
        in_flight = _PagesInFlight(fetch, page_size, later)
        try:
            reason = _fetch_later_pages(in_flight, pages, total_pages, max_concurrency, on_progress)
        finally:
            in_flight.abandon()
    implied = math.ceil(max(first.total_count, 0) / page_size)
    if reason is None and total_pages < min(first.page_count, implied):
        reason = TruncationReason.PAGE_CAP  # neither the service's total nor its pages ended it
    if reason is None:
        return _Walk(pages, None)
    truncation = Truncation(
        claimed_pages=first.page_count,
        claimed_total=first.total_count,
        pages_read=len(pages),
        reason=reason,
    )
    _LOG.warning("walk truncated: %s", truncation)
    return _Walk(pages, truncation)


def _fetch_later_pages(
    in_flight: _PagesInFlight,
    pages: dict[int, ExecutionPage],
    total_pages: int,
    max_concurrency: int,
    on_progress: ProgressCallback | None,
) -> TruncationReason | None:
    """Fetch pages 2..`total_pages` into `pages`, merging them in order as they arrive.

    Returns why the walk stopped early, or None when it read every page. Progress is reported
    per page as it arrives, in the caller's thread.
    """
    seen = {execution.id for execution in pages[1].item_list}
    arrived: dict[int, ExecutionPage] = {}
    next_to_ask = next_to_merge = 2
    received = 1
    while next_to_merge <= total_pages:
        window_end = min(total_pages, next_to_merge + _LOOKAHEAD * max_concurrency - 1)
        while in_flight.count < max_concurrency and next_to_ask <= window_end:
            in_flight.start(next_to_ask)
            next_to_ask += 1
        number, page = in_flight.next_result()  # the first failure ends the walk
        arrived[number] = page
        received += 1
        if on_progress:
            on_progress(received, total_pages)
        while next_to_merge in arrived:
            page = arrived.pop(next_to_merge)
            if not page.item_list and not page.skipped:
                return TruncationReason.EMPTY_PAGE
            ids = {execution.id for execution in page.item_list}
            if ids and ids <= seen:
                return TruncationReason.NOTHING_NEW
            seen |= ids
            pages[next_to_merge] = page
            next_to_merge += 1
    return None


@dataclass
class _PagesInFlight:
    """Pages being fetched, each on its own daemon thread, handed back through a queue."""

    fetch: FetchPage
    page_size: int
    query: ExecutionQuery
    count: int = 0
    _stop: threading.Event = field(default_factory=threading.Event)
    _results: queue.SimpleQueue[tuple[int, ExecutionPage | BaseException]] = field(
        default_factory=queue.SimpleQueue
    )

    def start(self, number: int) -> None:
        thread = threading.Thread(
            target=self._run, args=(number,), name=f"api_client-page-{number}", daemon=True
        )
        thread.start()
        self.count += 1

    def next_result(self) -> tuple[int, ExecutionPage]:
        number, outcome = self._results.get()
        self.count -= 1
        if isinstance(outcome, BaseException):
            raise outcome
        return number, outcome

    def abandon(self) -> None:
        """Let pages still in flight stop at their next chunk; nobody waits for them."""
        self._stop.set()

    def _run(self, number: int) -> None:
        try:
            outcome: ExecutionPage | BaseException = self.fetch(
                number, self.page_size, self.query, self._stop
            )
        except BaseException as exc:  # handed to the caller's thread, which raises it
            outcome = exc
        self._results.put((number, outcome))


def first_page_at_largest_size(
    fetch: FetchPage, query: ExecutionQuery, sizes: Sequence[int]
) -> tuple[int, ExecutionPage]:
    """Page 1 of `query` at the largest of `sizes` the service accepts, and that size.

    A `400 INVALID_REQUEST` at one size is tried at the next; when every size is refused, the
    size was not the problem, and the last refusal is raised.
    """
    for size in sizes[:-1]:
        try:
            return size, fetch(1, size, query, None)
        except InvalidRequestError as error:
            _LOG.info("page size %d refused (%s); trying a smaller one", size, error.code)
    return sizes[-1], fetch(1, sizes[-1], query, None)


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
