"""The walk over every page of the executions operation, and the merge of its pages.

`ApiClient.all_executions` hands this module a function that fetches one page; the walk decides
which pages to ask for, how many at a time, and when the service's counts can be trusted.

The walk is lazy: a page is asked for only when there is room for it (at most `max_concurrency`
in flight, and none far ahead of the first page not yet merged), so a service that claims a
billion pages costs a few requests, not a billion queued tasks. Each page is handed to the
caller (`AddPage`) as soon as it is merged (in page order, in the caller's thread) and
then let go, so the walk holds page 1, the pages in flight and those waiting for an earlier
one, never all of them. Pages are fetched on daemon threads: a walk the caller abandons (an
exception from `on_progress` or `add`, a failed page, an interrupt) leaves nothing
behind that would hold the interpreter at exit, and its pages still in flight stop at their
next chunk.
"""

from __future__ import annotations

import logging
import math
import queue
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Generic, TypeVar

from api_client.errors import InvalidRequestError
from api_client.models import (
    Execution,
    FoldedExecutions,
    RecordList,
    Truncation,
    TruncationReason,
)
from api_client.query import ExecutionQuery
from api_client.records import ExecutionRecord, ExecutionRecordPage

_LOG = logging.getLogger("api_client")

ProgressCallback = Callable[[int, int], None]
"""Called as `on_progress(done_pages, total_pages)` in the caller's thread."""

FetchPage = Callable[[int, int, ExecutionQuery, threading.Event | None], ExecutionRecordPage]
"""Fetches one page: `fetch(page_number, page_size, query, stop)`; setting `stop` abandons it.
A walk reads pages of records (`api_client.records`): a caller that wants models makes them
from the records it keeps (`models_of`)."""

A = TypeVar("A")
C = TypeVar("C")

StartFold = Callable[[], A]
"""Makes a fresh accumulator for one walk (and again for each walk again)."""

AddPage = Callable[[A, list[Execution]], A]
"""Folds one page into the accumulator: `add(accumulator, executions)` returns the accumulator
to carry on with (the same object, changed, or a new one). `executions` is a new list of the
page's executions not seen on an earlier page, in the service's order."""

AddRecords = Callable[[A, list[ExecutionRecord]], A]
"""`AddPage` with the page's executions as records (`ExecutionRecord` dicts), not models."""

PageTransform = Callable[[list[Execution]], C]
"""Makes the caller's chunk of one page: `transform(executions)`, given what `AddPage` is."""

PAGE_SIZES = (1000, 100, 50)
"""Page sizes tried, largest first, until the service accepts one (the spec gives no maximum;
the fewer the pages, the fewer round trips)."""

# Walks of a filter whose matches keep changing; the last walk is returned as it is.
_MAX_WALKS = 3
# How far past the first unmerged page a walk may ask, in multiples of `max_concurrency`: pages
# that arrive early wait in memory, so this bounds what one slow page can make the walk hold.
_LOOKAHEAD = 2


def as_list(executions: list[Execution]) -> list[Execution]:
    """The transform that keeps a page's executions as they are (the walk hands each page a new
    list, so keeping it is safe)."""
    return executions


def joined(walked: FoldedExecutions[list[list[Execution]]]) -> RecordList[Execution]:
    """The executions of a walk made with `as_list`, as one list with its skipped records and
    truncation."""
    merged: RecordList[Execution] = RecordList(skipped=walked.skipped, truncation=walked.truncation)
    for chunk in walked.value:
        merged.extend(chunk)
    return merged


def models_of(add: AddPage[A]) -> AddRecords[A]:
    """`add` fed with models made of each page's records (validated already, by the models'
    own rules: each model is built from its record as validating it again would build it)."""

    def add_records(accumulator: A, records: list[ExecutionRecord]) -> A:
        return add(accumulator, [Execution.model_construct(**record) for record in records])

    return add_records


def chunk_each_page(transform: PageTransform[C]) -> AddPage[list[C]]:
    """The fold that keeps `transform`'s chunk of each page in a list (start it with `list`)."""

    def add(chunks: list[C], executions: list[Execution]) -> list[C]:
        chunks.append(transform(executions))
        return chunks

    return add


def walk_executions_folded(
    fetch: FetchPage,
    query: ExecutionQuery,
    start: StartFold[A],
    add: AddRecords[A],
    *,
    page_size: int,
    max_concurrency: int,
    max_pages: int,
    on_progress: ProgressCallback | None = None,
    first: ExecutionRecordPage | None = None,
) -> FoldedExecutions[A]:
    """Every execution matching `query`, each exactly once, in the service's order, folded page
    by page into an accumulator: a page's models are let go once `add` has taken them in.

    `start()` makes the accumulator; `add(accumulator, executions)` is called in the caller's
    thread, once per page the walk keeps, in page order, with a new list of that page's
    executions not seen on an earlier page (possibly empty: a page of skipped records only),
    and returns the accumulator to go on with. An exception from either ends the walk and is
    raised.

    `first`, when given, is page 1 of `query` at `page_size`, already fetched (by
    `first_page_at_largest_size`); the first walk starts from it.

    Page numbers shift when executions start or vanish during the walk, which could skip
    or repeat one at a page boundary. So, when the caller sets no upper bound, the walk
    bounds itself at the newest start on the first page, which keeps executions started
    later out of the later pages; and if the pages still disagree on how many executions
    match, the data changed under the walk and it is walked again (at most `_MAX_WALKS` times;
    the last walk is returned as it is). A walk again starts from nothing: a new `start()`,
    the accumulator of the walk before dropped, so `add` sees those pages again and must only
    build its accumulator, not count on being called once per page of the service.

    The service's page count is believed up to `ceil(total_count / page_size)` and `max_pages`;
    the walk also ends at an empty page or one with nothing new. When it ends before the last
    page claimed, the result's `truncation` says so.
    """
    plan = _Walk(fetch, query, start, add, page_size, max_concurrency, max_pages, on_progress)
    walk: FoldedExecutions[A] | None = None
    for _ in range(_MAX_WALKS):
        walk, totals = plan.once(first)
        first = None  # a walk again starts afresh
        if len(totals) == 1:
            break
        _LOG.info("executions changed during the walk over %d pages; walking again", walk.pages)
    assert walk is not None  # _MAX_WALKS >= 1
    return walk


def believed_page_count(first: ExecutionRecordPage, page_size: int, max_pages: int) -> int:
    """How many pages to read, whatever the service claims: at least 1, at most `max_pages`."""
    claimed = first.page_count
    implied = math.ceil(max(first.total_count, 0) / page_size)
    return max(1, min(claimed, implied, max_pages))


@dataclass
class _Merge(Generic[A]):
    """The pages of one walk merged so far: the accumulator, and what the walk still needs of
    the pages (their ids, their skipped records, their totals), never the pages."""

    add: AddRecords[A]
    walk: FoldedExecutions[A]
    seen: set[int] = field(default_factory=set)
    totals: set[int] = field(default_factory=set)  # every kept page's total_count

    def new_of(self, page: ExecutionRecordPage) -> list[ExecutionRecord]:
        """`page`'s executions not seen before, each once, in its order (`seen` is updated)."""
        new: list[ExecutionRecord] = []
        seen = self.seen
        for execution in page.item_list:
            identity = execution["id"]
            if identity not in seen:
                seen.add(identity)
                new.append(execution)
        return new

    def keep(self, page: ExecutionRecordPage, new: list[ExecutionRecord]) -> None:
        """Keep `page`, whose new executions `new_of` gave: they are folded in."""
        self.walk.skipped.extend(page.skipped)
        self.totals.add(page.total_count)
        self.walk.value = self.add(self.walk.value, new)
        self.walk.executions += len(new)
        self.walk.pages += 1


@dataclass(frozen=True)
class _Walk(Generic[A]):
    """What one call of `walk_executions_folded` walks with, the same for each walk again."""

    fetch: FetchPage
    query: ExecutionQuery
    start: StartFold[A]
    add: AddRecords[A]
    page_size: int
    max_concurrency: int
    max_pages: int
    on_progress: ProgressCallback | None

    def once(self, first: ExecutionRecordPage | None) -> tuple[FoldedExecutions[A], set[int]]:
        """One walk: its result, and the total counts its kept pages claimed."""
        if first is None:
            first = self.fetch(1, self.page_size, self.query, None)
        total_pages = believed_page_count(first, self.page_size, self.max_pages)
        claimed_pages, claimed_total = first.page_count, first.total_count
        merge = _Merge(self.add, FoldedExecutions(value=self.start(), skipped=[]))
        if self.on_progress:
            self.on_progress(1, total_pages)
        reason: TruncationReason | None = None
        if total_pages > 1:
            later = self.query
            newest = first.item_list[0].get("start_date") if first.item_list else None
            if self.query.date_to is None and newest:
                later = self.query.with_changes(date_to=newest_start_bound(newest))
            in_flight = _PagesInFlight(self.fetch, self.page_size, later)
            try:
                reason = _fetch_later_pages(
                    in_flight, merge, first, total_pages, self.max_concurrency, self.on_progress
                )
            finally:
                in_flight.abandon()
        else:
            merge.keep(first, merge.new_of(first))
        implied = math.ceil(max(claimed_total, 0) / self.page_size)
        if reason is None and total_pages < min(claimed_pages, implied):
            reason = TruncationReason.PAGE_CAP  # neither the service's total nor its pages ended it
        if reason is None:
            return merge.walk, merge.totals
        truncation = Truncation(
            claimed_pages=claimed_pages,
            claimed_total=claimed_total,
            pages_read=merge.walk.pages,
            reason=reason,
        )
        _LOG.warning("walk truncated: %s", truncation)
        merge.walk.truncation = truncation
        return merge.walk, merge.totals


def _fetch_later_pages(
    in_flight: _PagesInFlight,
    merge: _Merge[A],
    first: ExecutionRecordPage,
    total_pages: int,
    max_concurrency: int,
    on_progress: ProgressCallback | None,
) -> TruncationReason | None:
    """Keep page 1, then fetch pages 2..`total_pages` and keep them in order as they arrive.

    Page 1 is kept once the first later pages are asked for, so it is folded in while they
    are on their way. Returns why the walk stopped early, or None when it read every page.
    Progress is reported per page as it arrives, in the caller's thread.
    """
    arrived: dict[int, ExecutionRecordPage] = {1: first}
    next_to_ask = 2
    next_to_merge = 1
    received = 1
    while next_to_merge <= total_pages:
        window_end = min(total_pages, max(next_to_merge, 2) + _LOOKAHEAD * max_concurrency - 1)
        while in_flight.count < max_concurrency and next_to_ask <= window_end:
            in_flight.start(next_to_ask)
            next_to_ask += 1
        if next_to_merge not in arrived:
            number, page = in_flight.next_result()  # the first failure ends the walk
            arrived[number] = page
            received += 1
            if on_progress:
                on_progress(received, total_pages)
        while next_to_merge in arrived:
            page = arrived.pop(next_to_merge)
            new = merge.new_of(page)
            if next_to_merge > 1:  # page 1 is kept whatever it holds
                if not page.item_list and not page.skipped:
                    return TruncationReason.EMPTY_PAGE
                if page.item_list and not new:
                    return TruncationReason.NOTHING_NEW
            merge.keep(page, new)
            del page, new  # the page's models live on only where `add` keeps them
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
    _results: queue.SimpleQueue[tuple[int, ExecutionRecordPage | BaseException]] = field(
        default_factory=queue.SimpleQueue
    )

    def start(self, number: int) -> None:
        thread = threading.Thread(
            target=self._run, args=(number,), name=f"api_client-page-{number}", daemon=True
        )
        thread.start()
        self.count += 1

    def next_result(self) -> tuple[int, ExecutionRecordPage]:
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
            outcome: ExecutionRecordPage | BaseException = self.fetch(
                number, self.page_size, self.query, self._stop
            )
        except BaseException as exc:  # handed to the caller's thread, which raises it
            outcome = exc
        self._results.put((number, outcome))


def first_page_at_largest_size(
    fetch: FetchPage, query: ExecutionQuery, sizes: Sequence[int]
) -> tuple[int, ExecutionRecordPage]:
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
