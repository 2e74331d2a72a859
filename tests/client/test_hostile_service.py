"""The client against a service that lies, drips, nests, redirects or never ends a walk.

Each test meets one behaviour of `tests.hostile_service` over real HTTP on loopback. Bounds are
generous (a walk that ends, a deadline that fires), never tuned timings.
"""

from __future__ import annotations

import logging
import subprocess
import sys
import textwrap
import threading
import time
import tracemalloc
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from api_client import (
    NO_RETRIES,
    ApiClient,
    ApiConnectionError,
    ApiStatusError,
    ApiTimeoutError,
    ExecutionQuery,
    RedirectError,
    RequestValidationError,
    ResponseValidationError,
    RetryPolicy,
    ServerError,
    TruncationReason,
)
from tests.client.conftest import FAST_RETRIES, MakeClient
from tests.client.samples import TOKEN, execution, page
from tests.hostile_service import A_BILLION, HostileService, hostile_service
from tests.waiting import wait_until

PASSWORD = "pw-in-the-url-7c1d"


@pytest.fixture(scope="module")
def service() -> Iterator[HostileService]:
    with hostile_service(drip_interval=0.2, huge_bytes=2 * 2**20) as running:
        yield running


def client_for(service: HostileService, behaviour: str, **options: Any) -> ApiClient:
    settings: dict[str, Any] = {
        "base_url": service.url(behaviour),
        "token": TOKEN,
        "company_id": 1,
        "retry_policy": NO_RETRIES,
        "response_deadline": 2.0,
    }
    settings.update(options)
    return ApiClient(**settings)


# -- page counts that lie ------------------------------------------------------------------------


def test_a_billion_claimed_pages_of_the_same_executions_end_after_a_few_requests(
    service: HostileService,
) -> None:
    before = service.request_count("lying-page-count")
    tracemalloc.start()
    try:
        with client_for(service, "lying-page-count", max_concurrency=4) as client:
            everything = client.all_executions(page_size=50)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert [e.id for e in everything] == [3, 2, 1]
    truncation = everything.truncation
    assert truncation is not None
    assert truncation.reason is TruncationReason.NOTHING_NEW
    assert (truncation.claimed_pages, truncation.pages_read) == (A_BILLION, 1)
    assert truncation.claimed_total == A_BILLION * 50
    # Page 1, then at most the pages in flight when page 2 came back with nothing new.
    assert service.request_count("lying-page-count") - before <= 1 + 2 * 4
    assert peak < 50 * 2**20, f"peak traced memory {peak / 2**20:.1f} MiB"


def test_endless_new_pages_stop_at_the_page_cap(service: HostileService) -> None:
    before = service.request_count("endless-pages")

    with client_for(service, "endless-pages", max_pages=25) as client:
        everything = client.all_executions(page_size=20)

    assert len(everything) == 25 * 20
    assert len({e.id for e in everything}) == len(everything)
    assert everything.truncation is not None
    assert everything.truncation.reason is TruncationReason.PAGE_CAP
    assert everything.truncation.pages_read == 25
    assert everything.truncation.claimed_pages == A_BILLION
    assert service.request_count("endless-pages") - before == 25  # not one page past the cap


def test_an_empty_page_before_the_claimed_end_ends_the_walk(service: HostileService) -> None:
    with client_for(service, "empty-pages") as client:
        everything = client.all_executions(page_size=10)

    assert [e.id for e in everything] == [3, 2, 1]
    assert everything.truncation is not None
    assert everything.truncation.reason is TruncationReason.EMPTY_PAGE
    assert everything.truncation.pages_read == 1


def test_a_page_count_beyond_the_total_is_not_believed(make_client: MakeClient) -> None:
    records = [execution(i) for i in range(9, 0, -1)]

    def handler(request: httpx.Request) -> httpx.Response:
        number = int(request.url.params["page"])
        items = records[(number - 1) * 3 : number * 3]
        return httpx.Response(
            200, json=page(items, current=number, total_count=9, page_count=1_000)
        )

    client, recorder = make_client(handler)

    everything = client.all_executions(page_size=3)

    assert [e.id for e in everything] == list(range(9, 0, -1))
    assert sorted(int(r.url.params["page"]) for r in recorder.requests) == [1, 2, 3]
    assert everything.truncation is None  # every execution the total promised is there


def test_a_healthy_walk_reports_no_truncation(service: HostileService) -> None:
    with client_for(service, "healthy") as client:
        everything = client.all_executions(page_size=7)

    assert [e.id for e in everything] == list(range(service.executions, 0, -1))
    assert everything.truncation is None


# -- bodies that never end, nest too deep, or are too big ----------------------------------------


def test_a_dripping_body_hits_the_response_deadline(service: HostileService) -> None:
    started = time.monotonic()

    with (
        client_for(service, "drip", response_deadline=1.0) as client,
        pytest.raises(ApiTimeoutError) as caught,
    ):
        client.plans()

    # A generous multiple of the 1 s deadline (load-proof); the drip alone would last 55 hours.
    assert time.monotonic() - started < 60
    assert "the service did not answer in time" in caught.value.message
    assert "timed out" in caught.value.message


def test_retries_of_a_drip_stay_within_the_calls_deadline(service: HostileService) -> None:
    policy = RetryPolicy(max_retries=100, backoff_base=0.0, deadline=2.5)
    started = time.monotonic()

    with (
        client_for(service, "drip", response_deadline=1.0, retry_policy=policy) as client,
        pytest.raises(ApiTimeoutError),
    ):
        client.plans()

    # A hundred retries of a one-second budget would take 101 s; the call's deadline (2.5 s)
    # wins. The bound is a generous multiple of it, so a loaded machine does not break it.
    assert time.monotonic() - started < 40


def test_a_declared_length_above_the_limit_is_refused_before_reading(
    service: HostileService,
) -> None:
    started = time.monotonic()

    with (
        client_for(service, "drip", max_response_bytes=100_000, response_deadline=120.0) as client,
        pytest.raises(ResponseValidationError, match="larger than the client's limit"),
    ):
        client.plans()

    # Reading the drip would have waited out the 120 s deadline (ApiTimeoutError); half of it
    # tells the two apart with room for a loaded machine.
    assert time.monotonic() - started < 60


def test_a_chunked_body_past_the_limit_is_cut_off(service: HostileService) -> None:
    with (
        client_for(service, "huge", max_response_bytes=2**20) as client,
        pytest.raises(
            ResponseValidationError, match="larger than the client's limit of 1 MiB"
        ) as caught,
    ):
        client.plans()

    assert not caught.value.transient  # the same answer would come again


def test_a_chunked_body_within_the_limit_is_read_whole(service: HostileService) -> None:
    with client_for(service, "huge") as client:
        plans = client.plans()

    assert len(plans) > 1000  # two megabytes of plans, under the 64 MiB default


@pytest.mark.parametrize(
    "call",
    [
        lambda c: c.plans(),
        lambda c: c.test_results(1, 2),
        lambda c: c.executions(page=1, size=10),
        lambda c: c.all_executions(),
    ],
    ids=["plans", "results", "executions", "all_executions"],
)
def test_deep_json_is_a_response_validation_error(service: HostileService, call: Any) -> None:
    before = service.request_count("deep-json")

    with (
        client_for(service, "deep-json", retry_policy=FAST_RETRIES) as client,
        pytest.raises(ResponseValidationError, match="nested more than 200 levels"),
    ):
        call(client)

    assert service.request_count("deep-json") - before == 1  # not retried: it would not change


def test_deep_json_in_an_error_body_still_gives_the_status_error(service: HostileService) -> None:
    with client_for(service, "deep-json-error") as client, pytest.raises(ServerError) as caught:
        client.plans()

    assert caught.value.status_code == 500
    assert len(caught.value.message) < 400


# -- redirects --------------------------------------------------------------------------------


def test_a_redirect_is_its_own_error_naming_only_the_origin(service: HostileService) -> None:
    before = service.request_count("redirect")

    with (
        client_for(service, "redirect", retry_policy=FAST_RETRIES) as client,
        pytest.raises(RedirectError) as caught,
    ):
        client.plans()

    error = caught.value
    assert isinstance(error, ApiStatusError)
    assert error.status_code == 302
    assert error.location_origin == "https://login.example.test"
    assert "the service redirected to https://login.example.test; check the base URL" in (
        error.message
    )
    assert "ticket" not in error.message
    assert "/sso" not in error.message
    assert service.request_count("redirect") - before == 1  # neither followed nor retried


def test_a_relative_redirect_names_the_services_own_origin(make_client: MakeClient) -> None:
    client, _ = make_client(lambda request: httpx.Response(301, headers={"Location": "/login"}))

    with pytest.raises(RedirectError, match=r"redirected to https://svc\.example\.test;"):
        client.plans()


# -- a password in the base URL ------------------------------------------------------------------


def test_the_clients_repr_masks_a_password_in_the_base_url() -> None:
    with ApiClient(
        base_url=f"https://ada:{PASSWORD}@svc.example.test/Api", token=TOKEN, company_id=7
    ) as client:
        assert (
            repr(client)
            == "ApiClient(base_url='https://ada:***@svc.example.test/Api', company_id=7)"
        )
        assert PASSWORD not in repr(client)


def test_no_error_or_log_line_shows_a_password_in_the_base_url(
    service: HostileService, caplog: pytest.LogCaptureFixture
) -> None:
    root = service.base_url.replace("http://", f"http://ada:{PASSWORD}@")
    errors: list[Exception] = []
    with caplog.at_level(logging.DEBUG):
        for behaviour in ("redirect", "drip", "deep-json", "deep-json-error"):
            with client_for(
                service, behaviour, base_url=f"{root}/{behaviour}", response_deadline=0.5
            ) as client:
                try:
                    client.plans()
                except Exception as error:  # each kind is looked at below
                    errors.append(error)
        with ApiClient(
            base_url=f"http://ada:{PASSWORD}@127.0.0.1:1/Api",  # nothing listens on port 1
            token=TOKEN,
            company_id=1,
            retry_policy=NO_RETRIES,
        ) as closed:
            with pytest.raises(ApiConnectionError) as refused:
                closed.plans()
            errors.append(refused.value)
            assert PASSWORD not in repr(closed)
    with pytest.raises(RequestValidationError) as invalid:
        ApiClient(base_url=f"ftp://ada:{PASSWORD}@svc.example.test", token=TOKEN, company_id=1)
    errors.append(invalid.value)

    assert len(errors) == 6
    for error in errors:
        assert PASSWORD not in str(error)
        assert PASSWORD not in repr(error)
    assert "GET /" in caplog.text  # there were DEBUG lines to check
    assert PASSWORD not in caplog.text


# -- arguments named in errors --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "argument", "words"),
    [
        ({"token": "abc def"}, "token", "it contains a space"),
        ({"token": "abc\u2019def"}, "token", "it contains a non-ASCII character"),
        ({"token": "abc\ndef"}, "token", "it contains a line break"),
        ({"token": "abc\tdef"}, "token", "it contains a blank character"),
        ({"token": "abc\x07def"}, "token", "it contains a control character"),
        ({"token": "  "}, "token", "token must not be empty"),
        ({"company_id": 0}, "company_id", "company_id must be a positive integer"),
        ({"base_url": "svc.example.test"}, "base_url", "base_url must be an http"),
        ({"base_url": "http://[::1"}, "base_url", "could not be read"),
        ({"max_concurrency": 0}, "max_concurrency", "max_concurrency must be >= 1"),
        ({"max_pages": 0}, "max_pages", "max_pages must be >= 1"),
        ({"response_deadline": 0}, "response_deadline", "response_deadline must be"),
        ({"max_response_bytes": 0}, "max_response_bytes", "max_response_bytes must be"),
    ],
)
def test_a_refused_construction_names_its_argument(
    options: dict[str, Any], argument: str, words: str
) -> None:
    settings: dict[str, Any] = {
        "base_url": "https://svc.example.test/Api",
        "token": TOKEN,
        "company_id": 7,
    }
    settings.update(options)

    with pytest.raises(RequestValidationError) as caught:
        ApiClient(**settings)

    assert caught.value.argument == argument
    assert words in caught.value.message
    if argument == "token" and options["token"].strip():
        assert options["token"] not in caught.value.message
        assert "abc" not in caught.value.message


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda c: c.executions(page=0), "page"),
        (lambda c: c.executions(size=0), "size"),
        (lambda c: c.executions(query=ExecutionQuery(plan_id=-1)), "plan_id"),
        (lambda c: c.executions(query=ExecutionQuery(date_from=5, date_to=1)), "date_from"),
        (lambda c: c.executions(query=ExecutionQuery(status=" ")), "status"),
        (lambda c: c.executions(query=ExecutionQuery(email="ada")), "email"),
        (lambda c: c.executions(query={"plan_id": 3}), "query"),
        (lambda c: c.all_executions(page_size=0), "page_size"),
        (lambda c: c.test_results(0, 1), "execution_id"),
        (lambda c: c.plans(project_id=0), "project_id"),
    ],
)
def test_a_refused_call_names_its_argument(
    make_client: MakeClient, call: Any, argument: str
) -> None:
    client, recorder = make_client(lambda request: httpx.Response(200, json=[]))

    with pytest.raises(RequestValidationError) as caught:
        call(client)

    assert caught.value.argument == argument
    assert recorder.requests == []


# -- a walk the caller abandons ------------------------------------------------------------------


class Abandon(Exception):
    """What a caller raises from `on_progress` to stop waiting (Streamlit's rerun does)."""


def page_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("api_client-page-")]


def test_an_abandoned_walk_stops_promptly_and_leaves_no_thread(service: HostileService) -> None:
    def stop_after_first_page(done: int, total: int) -> None:
        raise Abandon

    before = service.request_count("slow-later-pages")
    started = time.monotonic()
    with client_for(service, "slow-later-pages", response_deadline=60.0) as client:
        with pytest.raises(Abandon):
            client.all_executions(page_size=5, on_progress=stop_after_first_page)
        abandoned_after = time.monotonic() - started

        # Later pages drip up to the 60 s response deadline; half of it, load-proof.
        assert abandoned_after < 30
        # Nothing was started after the caller left: page 1 only.
        assert service.request_count("slow-later-pages") - before == 1
        wait_until(lambda: not page_threads(), what="the page threads ended")


def test_pages_in_flight_stop_when_a_page_fails(service: HostileService) -> None:
    before = service.request_count("failing-page-2")
    started = time.monotonic()

    with client_for(service, "failing-page-2", response_deadline=600.0) as client:
        with pytest.raises(ServerError, match="page 2 broke"):
            client.all_executions(page_size=5)
        failed_after = time.monotonic() - started

        # Pages 3.. were dripping when page 2 failed; nobody waits for them, and they stop at
        # their next chunk instead of holding a connection for the ten-minute budget.
        assert failed_after < 60  # a tenth of the dripping pages' budget: load-proof
        wait_until(lambda: not page_threads(), what="the page threads ended")
        # Only pages started before the failure reached the service: page 1, then at most
        # `max_concurrency` at a time.
        asked = service.request_count("failing-page-2") - before
        assert 2 <= asked <= 1 + client_max_concurrency(client)


def client_max_concurrency(client: ApiClient) -> int:
    return client._max_concurrency


def test_an_interpreter_exits_at_once_with_pages_still_in_flight(
    service: HostileService, tmp_path: Any
) -> None:
    script = tmp_path / "walk_and_leave.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import faulthandler, os, signal, sys, threading
            from api_client import ApiClient

            # Should it hang, every thread's stack goes to stderr (and into the test's report)
            # well before the test gives up on it.
            faulthandler.dump_traceback_later(240, exit=True)
            # Ctrl+C raises KeyboardInterrupt, as in a terminal, even when this test runs with
            # SIGINT ignored (a CI job started in the background with `&`): Python then leaves
            # it ignored in the interpreters it starts, and the interrupt below would be lost.
            signal.signal(signal.SIGINT, signal.default_int_handler)

            client = ApiClient(base_url={service.url("slow-later-pages")!r}, token="t",
                               company_id=1, response_deadline=600)
            # Page 1 arrives and pages 2.. drip for ten minutes; an interrupt a second later
            # ends the walk, as a SIGTERM handler would.
            threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT)).start()
            try:
                client.all_executions(page_size=5)
            except KeyboardInterrupt:
                sys.exit(3)
            """
        )
    )
    started = time.monotonic()

    finished = subprocess.run(  # our own interpreter and script
        [sys.executable, str(script)], capture_output=True, text=True, check=False
    )

    assert finished.returncode == 3, finished.stderr
    # Pages drip for ten minutes each; the interpreter did not wait for them (a fifth of that:
    # an interpreter's start on a loaded machine is slow, not wrong).
    assert time.monotonic() - started < 120
