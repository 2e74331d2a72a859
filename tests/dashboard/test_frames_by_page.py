"""The executions frames built page by page (`frames.ExecutionFrames`, folded in by the walk)
are exactly the frames built from the whole list of models (`executions_frame`,
`status_counts_frame` of `all_executions()`): same columns, dtypes, order, index, skipped records
and truncation, on the demo data and on pages that repeat, shift and change under the walk."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pandas as pd
import pytest

from api_client import ApiClient, ExecutionQuery, RetryPolicy, TruncationReason
from dashboard.data import frames, live
from sandbox import RunningSandbox
from tests.dashboard.conftest import user
from tests.dashboard.scripted_pages import Claim, misfit, record, scripted_pages

NO_RETRIES = RetryPolicy(max_retries=0, max_server_error_retries=0)


def assert_same_data(folded: live.ExecutionsData, listed: Any) -> None:
    """`folded` (page by page) against today's path over `listed` (an `all_executions` list)."""
    pd.testing.assert_frame_equal(
        folded.executions, frames.executions_frame(listed), check_exact=True
    )
    pd.testing.assert_frame_equal(
        folded.status_counts, frames.status_counts_frame(listed), check_exact=True
    )
    assert folded.skipped == tuple(live.Skipped(s.record_id, s.reason) for s in listed.skipped)
    assert folded.truncation == listed.truncation


# -- the demo data -------------------------------------------------------------------------------


@pytest.fixture
def demo_client(sandbox: RunningSandbox) -> Iterator[ApiClient]:
    who = user(sandbox)
    with ApiClient(
        base_url=sandbox.base_url,
        token=who.token,
        company_id=who.company_id,
        retry_policy=NO_RETRIES,
    ) as client:
        yield client


@pytest.mark.parametrize(
    "query",
    [live.EVERY_EXECUTION, ExecutionQuery(status="FAILURE"), ExecutionQuery(plan_id=2)],
    ids=["every", "failures", "plan-2"],
)
def test_the_demos_frames_page_by_page_are_todays_frames(
    demo_client: ApiClient, query: ExecutionQuery
) -> None:
    folded = live.load_executions(demo_client, query)
    listed = demo_client.all_executions(query=query)

    assert len(folded.executions) == len(listed) > 0
    assert_same_data(folded, listed)


def test_chunks_cut_across_pages_join_to_the_same_frames(demo_client: ApiClient) -> None:
    # Pages of 20, framed once 50 rows are gathered: chunks of three pages, then what is left.
    walked = demo_client.fold_executions(
        lambda: frames.ExecutionFrames(batch_rows=50), frames.ExecutionFrames.add, page_size=20
    )
    executions, status_counts = walked.value.frames()
    listed = demo_client.all_executions(page_size=20)

    assert walked.pages > 6
    assert len(executions) == walked.executions == len(listed)
    pd.testing.assert_frame_equal(executions, frames.executions_frame(listed), check_exact=True)
    pd.testing.assert_frame_equal(
        status_counts, frames.status_counts_frame(listed), check_exact=True
    )


def test_an_empty_window_gives_the_same_empty_typed_frames(demo_client: ApiClient) -> None:
    query = ExecutionQuery(plan_id=999_999)
    folded = live.load_executions(demo_client, query)

    assert folded.executions.empty
    assert_same_data(folded, demo_client.all_executions(query=query))


# -- pages that repeat, shift and change -----------------------------------------------------------

# 180 executions, newest first, with a missing start and one start shared by two executions.
RECORDS = [record(i, **({"start_date": None} if i == 995 else {})) for i in range(1000, 820, -1)]
RECORDS[7]["start_date"] = RECORDS[6]["start_date"]
IDS = [r["id"] for r in RECORDS]
NEWER = record(1001)


def shifting_pages() -> list[list[dict[str, Any]]]:
    """Four pages of 50 over `RECORDS`, as a service whose data moves under a walk sends them:
    a duplicate within page 1, the last two records of a page again at the top of the next (two
    executions started meanwhile), a record that does not fit, one from page 1 again on page 3."""
    r = RECORDS
    return [
        [*r[0:49], r[3]],
        r[47:97],
        [*r[97:100], misfit(r[100]["id"]), *r[101:146], r[10]],
        r[144:180],
    ]


def shifted_by_one() -> list[list[dict[str, Any]]]:
    moved = [NEWER, *RECORDS]
    return [moved[i : i + 50] for i in range(0, len(moved), 50)]


STEADY: list[Claim] = [(180, 4)] * 4
Case = tuple[
    list[list[list[dict[str, Any]]]], list[list[Claim]], list[int], TruncationReason | None
]
CASES: dict[str, Case] = {
    "repeats-and-shifts": (
        [shifting_pages()],
        [STEADY],
        [i for i in IDS if i != IDS[100]],
        None,
    ),
    # Page 1 counted 180, the later pages 181: walked again, over the data moved by one; only
    # the second walk may reach the frames.
    "changed-under-the-walk": (
        [shifting_pages(), shifted_by_one()],
        [[(180, 4), (181, 4), (181, 4), (181, 4)], [(181, 4)] * 4],
        [NEWER["id"], *IDS],
        None,
    ),
    # Page 3 holds only executions already read: the walk stops there, and says so.
    "nothing-new": (
        [[RECORDS[0:50], RECORDS[50:100], RECORDS[20:40], RECORDS[100:150]]],
        [[(200, 4)] * 4],
        IDS[0:100],
        TruncationReason.NOTHING_NEW,
    ),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_frames_page_by_page_match_todays_on_pages_that_repeat_and_shift(case: Case) -> None:
    walks, claims, expected_ids, reason = case
    with (
        scripted_pages(walks, claims) as service,
        ApiClient(
            base_url=service.base_url,
            token="any-token",
            company_id=1,
            retry_policy=NO_RETRIES,
            max_concurrency=3,
        ) as client,
    ):
        folded = live.load_executions(client)
        walks_of_folded = service.walks_started
        service.reset()
        listed = client.all_executions()

    assert walks_of_folded == len(walks)
    assert [e.id for e in listed] == expected_ids
    assert sorted(folded.executions["execution_id"]) == sorted(expected_ids)
    assert (folded.truncation.reason if folded.truncation else None) == reason
    assert_same_data(folded, listed)
    # Newest first, the missing start last, ties by the higher id first: today's order.
    starts = folded.executions["start"]
    assert starts.dropna().is_monotonic_decreasing
    if 995 in expected_ids:
        assert folded.executions["execution_id"].iloc[-1] == 995


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_chunks_of_any_size_give_the_same_frames(case: Case) -> None:
    walks, claims, expected_ids, _ = case
    with (
        scripted_pages(walks, claims) as service,
        ApiClient(
            base_url=service.base_url, token="any-token", company_id=1, retry_policy=NO_RETRIES
        ) as client,
    ):
        listed = client.all_executions()
        for batch_rows in (1, 7, 50, 10_000):
            service.reset()
            walked = client.fold_executions(
                lambda rows=batch_rows: frames.ExecutionFrames(batch_rows=rows),
                frames.ExecutionFrames.add,
            )
            executions, status_counts = walked.value.frames()
            pd.testing.assert_frame_equal(
                executions, frames.executions_frame(listed), check_exact=True
            )
            pd.testing.assert_frame_equal(
                status_counts, frames.status_counts_frame(listed), check_exact=True
            )
            assert walked.executions == len(expected_ids)
