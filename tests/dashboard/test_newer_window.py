"""A window held from a little earlier is brought up to date by fetching only what is newer
(`live.load_newer`), and gives exactly what loading the window whole gives, while the service's
executions start, finish and are reported late; `cache.HeldWindows` holds the last few.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pandas as pd
import pytest

from api_client import ApiClient, ExecutionQuery, RetryPolicy
from dashboard.data import cache, live
from tests.client.samples import execution, page

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
NO_RETRIES = RetryPolicy(max_retries=0, max_server_error_retries=0)


def stamp(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def run(identity: int, started: datetime, *, running: bool = False) -> dict[str, Any]:
    """An execution of 3 results started at `started`: finished, or still running."""
    summary = {"SUCCESS": 2, "WAITING": 1} if running else {"SUCCESS": 2, "FAILURE": 1}
    return execution(
        identity,
        start_date=stamp(started),
        end_date=None if running else stamp(started + timedelta(minutes=4)),
        result_summary=summary,
        test_results=[identity * 10 + i for i in range(3)],
    )


class Service:
    """The filter operation over `executions`, bounded by `from` and `to` (inclusive), newest
    first; every request's `from` is noted."""

    def __init__(self, executions: list[dict[str, Any]]) -> None:
        self.executions = executions
        self.asked_from: list[datetime | None] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        params = request.url.params
        low, high = int(params.get("from", 0)), int(params.get("to", 2**62))
        if int(params["page"]) == 1:
            self.asked_from.append(
                datetime.fromtimestamp(low / 1000, UTC) if "from" in params else None
            )

        def ms(record: dict[str, Any]) -> int:
            return int(datetime.fromisoformat(record["start_date"]).timestamp() * 1000)

        matching = sorted(
            (r for r in self.executions if low <= ms(r) <= high),
            key=lambda r: (ms(r), r["id"]),
            reverse=True,
        )
        if not matching:
            return httpx.Response(404, json={"error": "TEST_EXECUTION_NOT_FOUND"})
        number, size = int(params["page"]), int(params["size"])
        return httpx.Response(
            200,
            json=page(
                matching[(number - 1) * size : number * size],
                current=number,
                total_count=len(matching),
                page_count=-(-len(matching) // size),
            ),
        )


@contextmanager
def client_of(service: Service) -> Iterator[ApiClient]:
    with ApiClient(
        base_url="https://svc.example.test/Api",
        token="any-token",
        company_id=1,
        retry_policy=NO_RETRIES,
        http_client=httpx.Client(transport=httpx.MockTransport(service)),
    ) as client:
        yield client


def window(start: datetime) -> ExecutionQuery:
    return ExecutionQuery(date_from=start)


def assert_same(made: live.ExecutionsData, whole: live.ExecutionsData) -> None:
    pd.testing.assert_frame_equal(made.executions, whole.executions, check_exact=True)
    pd.testing.assert_frame_equal(made.status_counts, whole.status_counts, check_exact=True)
    assert made.skipped == whole.skipped
    assert made.truncation == whole.truncation


# Three days of executions, one every 10 minutes; the last three are still running.
HISTORY = [run(1000 + i, NOW - timedelta(minutes=10 * i), running=i < 3) for i in range(3 * 24 * 6)]


def test_a_window_whose_start_moved_fetches_only_what_is_newer_and_equals_the_whole() -> None:
    service = Service(list(HISTORY))
    start = NOW - timedelta(days=2)
    with client_of(service) as client:
        held = live.load_executions(client, window(start))
        # Ten minutes later: the running ones finished, two more started, one of them running,
        # and one that started twenty minutes ago is reported only now.
        service.executions = [
            run(r["id"], datetime.fromisoformat(r["start_date"])) for r in HISTORY
        ] + [
            run(2001, NOW + timedelta(minutes=5)),
            run(2002, NOW + timedelta(minutes=9), running=True),
            run(2003, NOW - timedelta(minutes=7)),
        ]
        moved = window(start + timedelta(minutes=10))
        service.asked_from.clear()
        made = live.load_newer(client, held, moved)
        asked = list(service.asked_from)
        whole = live.load_executions(client, moved)

    assert_same(made, whole)
    assert {2001, 2002, 2003} <= set(made.executions["execution_id"])
    # Asked once, from the oldest running execution held (20 minutes back): not two days.
    assert asked == [NOW - timedelta(minutes=20)]


def test_with_nothing_running_it_asks_from_the_newest_start_less_the_margin() -> None:
    finished = [run(r["id"], datetime.fromisoformat(r["start_date"])) for r in HISTORY]
    service = Service(finished)
    start = NOW - timedelta(days=1)
    with client_of(service) as client:
        held = live.load_executions(client, window(start))
        service.asked_from.clear()
        made = live.load_newer(client, held, window(start + timedelta(minutes=5)))
        asked = list(service.asked_from)
        whole = live.load_executions(client, window(start + timedelta(minutes=5)))

    assert_same(made, whole)
    assert asked == [NOW - live.LATE_MARGIN]


class IgnoresFrom(Service):
    """A service that answers `from` by returning every execution (as some do): what
    `load_newer` fetched again overlaps what it held."""

    def __call__(self, request: httpx.Request) -> httpx.Response:
        return super().__call__(httpx.Request("GET", request.url.copy_remove_param("from")))


def test_a_service_that_ignores_from_gives_each_execution_once() -> None:
    finished = [run(r["id"], datetime.fromisoformat(r["start_date"])) for r in HISTORY[:40]]
    service = IgnoresFrom(finished)
    start = NOW - timedelta(days=1)
    with client_of(service) as client:
        held = live.load_executions(client, window(start))
        made = live.load_newer(client, held, window(start + timedelta(minutes=5)))
        whole = live.load_executions(client, window(start + timedelta(minutes=5)))

    assert made.executions["execution_id"].is_unique
    assert len(made.executions) == len(finished)
    assert_same(made, whole)


@pytest.mark.parametrize("flaw", ["skipped", "no-start"])
def test_a_held_window_that_cannot_be_trusted_is_loaded_whole(flaw: str) -> None:
    records = list(HISTORY[:50])
    if flaw == "skipped":
        records[10] = {**records[10], "id": "not-a-number"}
    service = Service(records)
    start = NOW - timedelta(days=1)
    moved = window(start + timedelta(minutes=5))
    with client_of(service) as client:
        held = live.load_executions(client, window(start))
        held = held if flaw == "skipped" else _with_a_missing_start(held)
        service.asked_from.clear()
        made = live.load_newer(client, held, moved)
        asked = list(service.asked_from)
        whole = live.load_executions(client, moved)

    assert_same(made, whole)
    assert asked == [moved.date_from]


def _with_a_missing_start(data: live.ExecutionsData) -> live.ExecutionsData:
    """A held window with an execution whose start the service did not give."""
    executions = data.executions.copy()
    executions.loc[0, "start"] = pd.NaT
    return live.ExecutionsData(executions, data.status_counts)


def test_held_windows_are_kept_per_key_for_a_while_and_only_for_later_starts() -> None:
    held = cache.HeldWindows(max_entries=2, max_age=timedelta(minutes=15))
    data = live.ExecutionsData(pd.DataFrame(), pd.DataFrame())
    start = NOW - timedelta(days=90)

    held.put("a", window(start), data, now=0.0)

    assert held.get("a", window(start), now=1.0) is data
    assert held.get("a", window(start + timedelta(minutes=5)), now=1.0) is data
    assert held.get("a", window(start - timedelta(minutes=5)), now=1.0) is None
    assert held.get("b", window(start), now=1.0) is None
    assert held.get("a", window(start), now=15 * 60.0) is None  # too old
    held.put("b", window(start), data, now=2.0)
    held.put("c", window(start), data, now=3.0)
    assert held.get("a", window(start), now=4.0) is None  # the oldest let go
    assert held.get("c", window(start), now=4.0) is data
