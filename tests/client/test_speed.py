"""What makes a walk fast: large pages (learnt once per client), many in flight, one warm pool.

No timing is asserted: these tests pin the mechanisms (page sizes asked for, requests in flight
at once, connections reused) that the benchmarks measure.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from api_client import NO_RETRIES, ApiClient, InvalidRequestError
from tests.client.conftest import MakeClient
from tests.client.samples import TOKEN, execution, page
from tests.hostile_service import HostileService, hostile_service


@pytest.fixture(scope="module")
def service() -> Iterator[HostileService]:
    with hostile_service(executions=240) as running:
        yield running


def client_for(service: HostileService, behaviour: str, **options: Any) -> ApiClient:
    return ApiClient(
        base_url=service.url(behaviour),
        token=TOKEN,
        company_id=1,
        retry_policy=NO_RETRIES,
        **options,
    )


def sizes_asked(service: HostileService, behaviour: str, since: int = 0) -> list[int]:
    asked = [seen for seen in service.requests if seen.behaviour == behaviour]
    return [int(seen.params["size"]) for seen in asked[since:]]


def test_pages_are_as_large_as_the_service_accepts(service: HostileService) -> None:
    with client_for(service, "healthy") as client:
        everything = client.all_executions()

    assert len(everything) == 240
    assert sizes_asked(service, "healthy") == [1000]  # one request for all 240


@pytest.mark.parametrize(
    ("behaviour", "first_walk", "learnt"),
    [
        ("max-size-100", [1000, 100, 100, 100], 100),
        ("max-size-50", [1000, 100, 50, 50, 50, 50, 50], 50),
    ],
)
def test_a_refused_page_size_falls_back_and_is_remembered(
    service: HostileService, behaviour: str, first_walk: list[int], learnt: int
) -> None:
    before = len(sizes_asked(service, behaviour))

    with client_for(service, behaviour) as client:
        everything = client.all_executions()
        walked_once = len(sizes_asked(service, behaviour))
        again = client.all_executions()

    assert [e.id for e in everything] == list(range(240, 0, -1))
    assert [e.id for e in again] == list(range(240, 0, -1))
    assert sizes_asked(service, behaviour, before)[: walked_once - before] == first_walk
    # The second walk asks at the learnt size straight away.
    assert set(sizes_asked(service, behaviour, walked_once)) == {learnt}


def test_a_request_refused_at_every_size_raises_and_teaches_nothing(
    service: HostileService,
) -> None:
    before = len(sizes_asked(service, "max-size-10"))

    with client_for(service, "max-size-10") as client:
        for _ in range(2):
            with pytest.raises(InvalidRequestError):
                client.all_executions()

    assert sizes_asked(service, "max-size-10", before) == [1000, 100, 50] * 2


def test_a_page_size_the_caller_chose_is_not_second_guessed(service: HostileService) -> None:
    before = len(sizes_asked(service, "max-size-100"))

    with client_for(service, "max-size-100") as client, pytest.raises(InvalidRequestError):
        client.all_executions(page_size=500)

    assert sizes_asked(service, "max-size-100", before) == [500]


def test_eight_pages_are_in_flight_at_once_by_default(make_client: MakeClient) -> None:
    records = [execution(i) for i in range(17, 0, -1)]
    # Every later page waits until seven others are waiting with it: a walk with fewer than
    # eight in flight breaks the barrier (after its timeout) and fails the test. The timeout IS
    # the check; two minutes for eight threads to arrive is load-proof.
    barrier = threading.Barrier(8, timeout=120)
    lock = threading.Lock()
    in_flight = {"now": 0, "most": 0}

    def handler(request: httpx.Request) -> httpx.Response:
        number = int(request.url.params["page"])
        if number > 1:
            with lock:
                in_flight["now"] += 1
                in_flight["most"] = max(in_flight["most"], in_flight["now"])
            barrier.wait()
            with lock:
                in_flight["now"] -= 1
        body = page(records[number - 1 : number], current=number, total_count=17, page_count=17)
        return httpx.Response(200, json=body)

    client, _ = make_client(handler)

    everything = client.all_executions(page_size=1)

    assert len(everything) == 17
    assert in_flight["most"] == 8  # eight at once, never more


def test_a_walk_reuses_a_few_keep_alive_connections(service: HostileService) -> None:
    before = service.request_count("healthy")

    with client_for(service, "healthy", max_concurrency=4) as client:
        client.all_executions(page_size=4)  # 60 pages

    walk = [seen for seen in service.requests if seen.behaviour == "healthy"][before:]
    assert len(walk) == 60
    assert len({seen.client_port for seen in walk}) <= 4 + 1  # not one connection per page
