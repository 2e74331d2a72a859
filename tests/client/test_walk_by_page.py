"""`fold_executions` and `all_executions_by_page`: the walk hands each page to the caller as it
is merged, keeping
everything `all_executions` guarantees (each execution once, skipped records, truncation, the
walk again when the data changes), so a caller can drop a page's models once it has used them."""

from __future__ import annotations

import threading
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api_client import Execution, FoldedExecutions, Truncation, TruncationReason
from tests.client.conftest import MakeClient
from tests.client.samples import execution, page
from tests.client.test_client import changing_during_the_walk, execution_started, paged_service


def ids(executions: list[Execution]) -> list[int]:
    return [e.id for e in executions]


def test_each_page_is_handed_over_once_in_order_and_joins_to_all_executions(
    make_client: MakeClient,
) -> None:
    records = [execution_started(i) for i in range(23, 0, -1)]
    client, _ = make_client(paged_service(records), max_concurrency=3)
    threads: set[int] = set()

    def first_and_count(executions: list[Execution]) -> tuple[int, int]:
        threads.add(threading.get_ident())
        return executions[0].id, len(executions)

    walked = client.all_executions_by_page(first_and_count, page_size=5)

    assert isinstance(walked, FoldedExecutions)
    assert walked.value == [(23, 5), (18, 5), (13, 5), (8, 5), (3, 3)]
    assert walked.executions == 23
    assert walked.pages == 5
    assert walked.truncation is None
    assert walked.skipped == []
    # In the caller's thread: a chunk may touch what only that thread may (Streamlit, pandas).
    assert threads == {threading.get_ident()}
    assert [e.id for e in client.all_executions(page_size=5)] == list(range(23, 0, -1))


def test_a_walk_again_drops_the_chunks_of_the_walk_before(make_client: MakeClient) -> None:
    records = [execution_started(i) for i in range(12, 0, -1)]
    # A late report after page 1: the later pages count 13, page 1 counted 12, so it is walked
    # again, and only the second walk's chunks may be returned.
    client, _ = make_client(
        changing_during_the_walk(records, lambda rs: rs.append(execution_started(0))),
        max_concurrency=1,
    )
    handed: list[list[int]] = []

    def record(executions: list[Execution]) -> list[int]:
        handed.append(ids(executions))
        return ids(executions)

    walked = client.all_executions_by_page(record, page_size=4)

    assert walked.value == [[12, 11, 10, 9], [8, 7, 6, 5], [4, 3, 2, 1], [0]]
    assert walked.executions == 13
    assert handed[:3] == [[12, 11, 10, 9], [8, 7, 6, 5], [4, 3, 2, 1]]  # the first walk
    assert handed[3:] == walked.value


def test_a_fold_starts_afresh_for_a_walk_again(make_client: MakeClient) -> None:
    records = [execution_started(i) for i in range(12, 0, -1)]
    client, _ = make_client(
        changing_during_the_walk(records, lambda rs: rs.pop(5)),  # one vanishes after page 1
        max_concurrency=2,
    )
    started: list[list[int]] = []

    def start() -> list[int]:
        started.append([])
        return started[-1]

    def add(total: list[int], executions: list[Execution]) -> list[int]:
        total.extend(ids(executions))
        return total

    folded = client.fold_executions(start, add, page_size=4)

    assert len(started) == 2  # the first walk's pages disagreed on the total
    assert folded.value is started[1]
    assert folded.value == [12, 11, 10, 9, 8, 6, 5, 4, 3, 2, 1]
    assert (folded.executions, folded.pages) == (11, 3)


def test_a_failing_transform_ends_the_walk_and_is_raised(make_client: MakeClient) -> None:
    records = [execution_started(i) for i in range(40, 0, -1)]
    client, recorder = make_client(paged_service(records), max_concurrency=2)
    calls = 0

    def fail_on_the_second_page(executions: list[Execution]) -> int:
        nonlocal calls
        calls += 1
        if calls == 2:
            raise RuntimeError("cannot frame this page")
        return len(executions)

    with pytest.raises(RuntimeError, match="cannot frame this page"):
        client.all_executions_by_page(fail_on_the_second_page, page_size=2)

    assert calls == 2
    # Page 1 and the few pages asked ahead of page 2, never the twenty pages claimed.
    assert len(recorder.requests) <= 1 + 2 * 2 * 2


# -- the pages of any service, repeats and all ---------------------------------------------------

PAGE_SIZE = 5
# A page's record: a positive id is an execution, a negative one a record that does not fit
# (its `runtime` is text), which is skipped with that id.
page_records = st.lists(st.integers(min_value=-6, max_value=12).filter(bool), max_size=PAGE_SIZE)


def served_pages(pages: list[list[int]]) -> Any:
    """A service that answers page n with `pages[n - 1]`, claiming exactly that many pages."""

    def handler(request: httpx.Request) -> httpx.Response:
        number = int(request.url.params["page"])
        items = [
            execution(abs(i), runtime="fast") if i < 0 else execution(i)
            for i in (pages[number - 1] if number <= len(pages) else [])
        ]
        return httpx.Response(
            200,
            json=page(
                items,
                current=number,
                total_count=PAGE_SIZE * len(pages),
                page_count=len(pages),
            ),
        )

    return handler


def expected_walk(pages: list[list[int]]) -> tuple[list[list[int]], list[str], Truncation | None]:
    """The walk's contract, written out: page 1 is kept; a later page that is empty ends the
    walk, one whose executions were all seen ends it too; otherwise it adds its new ones."""
    seen: set[int] = set()
    chunks: list[list[int]] = []
    skipped: list[str] = []
    for number, records in enumerate(pages, start=1):
        executions = [i for i in records if i > 0]
        new = [i for i in dict.fromkeys(executions) if i not in seen]
        reason = None
        if number > 1 and not records:
            reason = TruncationReason.EMPTY_PAGE
        elif number > 1 and executions and not new:
            reason = TruncationReason.NOTHING_NEW
        if reason is not None:
            return (
                chunks,
                skipped,
                Truncation(len(pages), PAGE_SIZE * len(pages), len(chunks), reason),
            )
        seen.update(new)
        chunks.append(new)
        skipped += [str(-i) for i in records if i < 0]
    return chunks, skipped, None


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(pages=st.lists(page_records, min_size=1, max_size=7), concurrency=st.integers(1, 4))
def test_chunks_follow_the_walks_rules_on_pages_that_repeat_and_skip(
    make_client: MakeClient, pages: list[list[int]], concurrency: int
) -> None:
    client, _ = make_client(served_pages(pages), max_concurrency=concurrency)

    walked = client.all_executions_by_page(ids, page_size=PAGE_SIZE)
    listed = client.all_executions(page_size=PAGE_SIZE)

    chunks, skipped, truncation = expected_walk(pages)
    assert walked.value == chunks
    assert [s.record_id for s in walked.skipped] == skipped
    assert walked.truncation == truncation
    assert walked.executions == sum(len(c) for c in chunks)
    # `all_executions` is the same walk, joined.
    assert ids(listed) == [i for chunk in chunks for i in chunk]
    assert [s.record_id for s in listed.skipped] == skipped
    assert listed.truncation == truncation
