"""What the client sends, how it validates, pages, retries, and keeps the token to itself."""

from __future__ import annotations

import logging
import threading
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import httpx
import pytest

from api_client import (
    ApiClient,
    ApiConnectionError,
    AuthenticationError,
    ExecutionNotFoundError,
    ExecutionQuery,
    InternalServerError,
    InvalidRequestError,
    PermissionDeniedError,
    RateLimitError,
    RequestValidationError,
    ResponseValidationError,
    RetryPolicy,
    ServerError,
)
from tests.client.conftest import BASE_URL, COMPANY_ID, FAST_RETRIES, MakeClient, json_response
from tests.client.samples import (
    ACCESS_TOKEN,
    EXECUTION,
    TEST_PLAN,
    TEST_RESULT,
    TOKEN,
    execution,
    page,
    with_changes,
)

# -- what goes on the wire ---------------------------------------------------------------------


def test_results_request_path_auth_and_no_company_header(make_client: MakeClient) -> None:
    client, recorder = make_client(json_response(200, [TEST_RESULT]))

    results = client.test_results(900, 21)

    (request,) = recorder.requests
    assert request.method == "GET"
    # The base URL's path prefix is kept in front of the operation's path.
    assert str(request.url) == f"{BASE_URL}/api/results/execution/900/scenario/21"
    assert request.headers["Authorization"] == f"Bearer {TOKEN}"
    assert "current-company-id" not in request.headers  # the spec lists none for this operation
    assert [r.id for r in results] == [900001]


def test_executions_request_sends_filters_in_the_services_names(make_client: MakeClient) -> None:
    client, recorder = make_client(json_response(200, page([EXECUTION])))
    start = datetime(2026, 11, 1, tzinfo=UTC)
    end = datetime(2026, 11, 20, 3, tzinfo=timezone(timedelta(hours=3)))

    client.executions(
        page=2,
        size=25,
        query=ExecutionQuery(
            project_id=2,
            plan_id=3,
            date_from=start,
            date_to=end,
            status="ERROR",
            email="ada@example.test",
        ),
    )

    (request,) = recorder.requests
    assert request.url.path == "/Api/api/executions/filter"
    assert request.headers["current-company-id"] == str(COMPANY_ID)
    assert dict(request.url.params) == {
        "page": "2",
        "size": "25",
        "projectId": "2",
        "planId": "3",
        "from": "1793491200000",  # 2026-11-01T00:00Z in Unix milliseconds
        "to": "1795132800000",  # 2026-11-20T03:00+03:00 = 2026-11-20T00:00Z
        "status": "ERROR",
        "email": "ada@example.test",
    }


def test_dates_may_be_given_as_unix_milliseconds(make_client: MakeClient) -> None:
    client, recorder = make_client(json_response(200, page([])))

    client.executions(
        page=1,
        size=10,
        query=ExecutionQuery(date_from=1_700_000_000_000, date_to=1_700_000_000_001),
    )

    params = recorder.requests[0].url.params
    assert (params["from"], params["to"]) == ("1700000000000", "1700000000001")
    assert "projectId" not in params
    assert "status" not in params
    assert "email" not in params


def test_plans_request_defaults_to_active_and_sends_the_company(make_client: MakeClient) -> None:
    client, recorder = make_client(json_response(200, [TEST_PLAN]))

    client.plans()
    client.plans(project_id=2, active=False)

    first, second = recorder.requests
    assert first.url.path == "/Api/api/plans/lazy"
    assert dict(first.url.params) == {"active": "true"}
    assert dict(second.url.params) == {"active": "false", "projectId": "2"}
    assert first.headers["current-company-id"] == "7"


def test_a_trailing_slash_on_the_base_url_is_harmless(make_client: MakeClient) -> None:
    client, recorder = make_client(json_response(200, []), base_url=BASE_URL + "/")

    client.plans()

    assert recorder.requests[0].url.path == "/Api/api/plans/lazy"


# -- validation before any request --------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda c: c.executions(page=0, size=10), "page must be an integer >= 1"),
        (lambda c: c.executions(page=1, size=0), "size must be an integer >= 1"),
        (lambda c: c.executions(page="2", size=10), "page must be an integer"),
        (lambda c: c.executions(page=True, size=10), "page must be an integer"),
        (
            lambda c: c.executions(query=ExecutionQuery(plan_id=-3)),
            "plan_id must be a positive integer",
        ),
        (
            lambda c: c.executions(query=ExecutionQuery(project_id="x")),
            "project_id must be a positive integer",
        ),
        (
            lambda c: c.executions(query=ExecutionQuery(date_from=2_000, date_to=1_000)),
            "date_from must not be after date_to",
        ),
        (
            lambda c: c.executions(query=ExecutionQuery(date_from=datetime(2026, 11, 1))),
            "timezone-aware",
        ),
        (
            lambda c: c.executions(query=ExecutionQuery(status=" ")),
            "status must be a non-empty string",
        ),
        (
            lambda c: c.executions(query=ExecutionQuery(email="ada")),
            "email must be an e-mail address",
        ),
        (lambda c: c.test_results(0, 21), "execution_id must be a positive integer"),
        (lambda c: c.test_results(900, None), "scenario_id must be a positive integer"),
        (lambda c: c.plans(project_id=0), "project_id must be a positive integer"),
        (
            lambda c: c.all_executions(ExecutionQuery(date_from=5, date_to=1)),
            "date_from must not be after",
        ),
    ],
)
def test_invalid_arguments_fail_before_any_request(
    make_client: MakeClient, call: Any, message: str
) -> None:
    client, recorder = make_client(json_response(200, page([])))

    with pytest.raises(RequestValidationError, match=message) as caught:
        call(client)

    assert isinstance(caught.value, ValueError)
    assert recorder.requests == []


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"base_url": "ftp://svc.example.test"}, "base_url must be an http"),
        ({"base_url": "svc.example.test/Api"}, "base_url must be an http"),
        ({"company_id": 0}, "company_id must be a positive integer"),
        ({"token": ""}, "token must not be empty"),
    ],
)
def test_invalid_construction_is_refused(options: dict[str, Any], message: str) -> None:
    settings: dict[str, Any] = {"base_url": BASE_URL, "token": TOKEN, "company_id": 7}
    settings.update(options)

    with pytest.raises(ValueError, match=message):
        ApiClient(**settings)


# -- records that do not fit ----------------------------------------------------------------


def test_one_malformed_record_is_skipped_and_the_others_kept(make_client: MakeClient) -> None:
    items = [execution(1), execution(2, id="not-a-number"), execution(3, start_date="yesterday")]
    client, _ = make_client(json_response(200, page(items, total_count=3)))

    result = client.executions(page=1, size=10)

    assert [e.id for e in result.item_list] == [1]
    assert [(s.index, s.record_id) for s in result.skipped] == [(1, "not-a-number"), (2, "3")]
    assert "id" in result.skipped[0].reason
    assert "start_date" in result.skipped[1].reason
    assert "yesterday" not in result.skipped[1].reason  # reasons never repeat values


def test_a_skipped_reason_never_repeats_an_access_token(make_client: MakeClient) -> None:
    broken = with_changes(TEST_RESULT, runtime="slow")
    broken["user_info"] = dict(broken["user_info"], access_token={"nested": ACCESS_TOKEN})
    client, _ = make_client(json_response(200, [TEST_RESULT, broken]))

    results = client.test_results(900, 21)

    assert len(results) == 1
    assert len(results.skipped) == 1
    assert ACCESS_TOKEN not in results.skipped[0].reason
    assert ACCESS_TOKEN not in repr(results)


def test_strict_mode_raises_on_the_first_misfit(make_client: MakeClient) -> None:
    client, _ = make_client(json_response(200, [with_changes(TEST_PLAN, surprise=1)]), strict=True)

    with pytest.raises(ResponseValidationError, match="unknown fields \\['surprise'\\]"):
        client.plans()


# -- pagination ---------------------------------------------------------------------------------


def started(execution_id: int) -> str:
    """A start time that orders executions by id: a higher id started later."""
    return (datetime(2026, 11, 1, tzinfo=UTC) + timedelta(minutes=execution_id)).isoformat()


def execution_started(execution_id: int, **changes: Any) -> dict[str, Any]:
    return execution(execution_id, start_date=started(execution_id), **changes)


def paged_service(executions: list[dict[str, Any]], *, foreign_links: bool = False) -> Any:
    """A fake filter operation over `executions`, as the service orders and bounds them.

    Newest start first (then highest id), `to` as an inclusive bound on the start, pages by
    `page` and `size`; `executions` may be changed between requests, as a live service's are.
    """

    def start_ms(record: dict[str, Any]) -> int:
        return int(datetime.fromisoformat(record["start_date"]).timestamp() * 1000)

    def handler(request: httpx.Request) -> httpx.Response:
        number = int(request.url.params["page"])
        size = int(request.url.params["size"])
        upper = int(request.url.params.get("to", 2**62))
        matching = sorted(
            (r for r in executions if start_ms(r) <= upper),
            key=lambda r: (start_ms(r), r["id"]),
            reverse=True,
        )
        if not matching:
            return httpx.Response(404, json={"error": "TEST_EXECUTION_NOT_FOUND"})
        link = "https://evil.example.test/steal" if foreign_links else ""
        body = page(
            matching[(number - 1) * size : number * size],
            current=number,
            total_count=len(matching),
            page_count=-(-len(matching) // size),
            next_page=link,
            previous_page=link,
        )
        body["rest_api_url"] = link or body["rest_api_url"]
        return httpx.Response(200, json=body)

    return handler


def ids_of(records: list[Any]) -> list[int]:
    return [r["id"] if isinstance(r, dict) else r.id for r in records]


def test_all_executions_returns_every_page_in_order_exactly_once(make_client: MakeClient) -> None:
    records = [execution_started(i) for i in range(1000, 1000 - 23, -1)]
    client, recorder = make_client(paged_service(records), max_concurrency=3)
    progress: list[tuple[int, int]] = []

    everything = client.all_executions(
        ExecutionQuery(plan_id=3),
        page_size=5,
        on_progress=lambda done, total: progress.append((done, total)),
    )

    assert ids_of(everything) == ids_of(records)
    pages_asked = sorted(int(r.url.params["page"]) for r in recorder.requests)
    assert pages_asked == [1, 2, 3, 4, 5]
    assert all(r.url.params["planId"] == "3" for r in recorder.requests)
    # One report per page as it arrives, so a progress bar moves page by page.
    assert progress == [(1, 5), (2, 5), (3, 5), (4, 5), (5, 5)]


def test_all_executions_reports_progress_in_the_callers_thread(make_client: MakeClient) -> None:
    records = [execution_started(i) for i in range(40, 0, -1)]
    client, _ = make_client(paged_service(records), max_concurrency=4)
    threads: set[int] = set()

    client.all_executions(page_size=4, on_progress=lambda d, t: threads.add(threading.get_ident()))

    # Streamlit's progress bar may only be touched from the script's own thread.
    assert threads == {threading.get_ident()}


def changing_during_the_walk(records: list[dict[str, Any]], change: Any) -> Any:
    """The fake service, with `change(records)` applied right after the first page is served."""
    inner = paged_service(records)
    served = {"pages": 0}

    def handler(request: httpx.Request) -> httpx.Response:
        response = inner(request)
        served["pages"] += 1
        if served["pages"] == 1:
            change(records)
        return response

    return handler


def test_an_execution_starting_during_the_walk_pushes_none_out(make_client: MakeClient) -> None:
    # A full last page: a shift by one would push the oldest execution onto a page past the end.
    records = [execution_started(i) for i in range(12, 0, -1)]
    originals = ids_of(records)
    client, recorder = make_client(
        changing_during_the_walk(records, lambda rs: rs.insert(0, execution_started(13))),
        max_concurrency=1,
    )

    everything = client.all_executions(page_size=4)

    assert ids_of(everything) == originals
    # The later pages were bounded at the newest start the first page showed.
    later = [r for r in recorder.requests if r.url.params["page"] != "1"]
    assert later
    assert all("to" in r.url.params for r in later)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        # An execution that appears with an older start (a late report): the walk is redone.
        (lambda rs: rs.append(execution_started(0)), [*range(12, 0, -1), 0]),
        # An execution that disappears.
        (lambda rs: rs.pop(5), [12, 11, 10, 9, 8, 6, 5, 4, 3, 2, 1]),
    ],
    ids=["late-arrival", "removal"],
)
def test_a_walk_whose_data_changed_under_it_is_walked_again(
    make_client: MakeClient, change: Any, expected: list[int]
) -> None:
    records = [execution_started(i) for i in range(12, 0, -1)]
    client, recorder = make_client(changing_during_the_walk(records, change), max_concurrency=1)

    everything = client.all_executions(page_size=4)

    assert ids_of(everything) == expected
    assert sum(r.url.params["page"] == "1" for r in recorder.requests) == 2


def test_a_walk_over_data_that_never_settles_still_ends_without_repeats(
    make_client: MakeClient,
) -> None:
    records = [execution_started(i) for i in range(12, 0, -1)]
    inner = paged_service(records)
    next_id = iter(range(-1, -1000, -1))

    def handler(request: httpx.Request) -> httpx.Response:
        records.append(execution_started(next(next_id)))  # a late arrival on every request
        return inner(request)

    client, recorder = make_client(handler, max_concurrency=1)

    everything = client.all_executions(page_size=4)

    assert len(set(ids_of(everything))) == len(everything)
    assert set(range(1, 13)) <= set(ids_of(everything))
    assert sum(r.url.params["page"] == "1" for r in recorder.requests) == 3


def test_all_executions_never_follows_urls_from_the_response(make_client: MakeClient) -> None:
    records = [execution_started(i) for i in range(9, 0, -1)]
    client, recorder = make_client(paged_service(records, foreign_links=True))

    everything = client.all_executions(page_size=3)

    assert len(everything) == 9
    assert {r.url.host for r in recorder.requests} == {"svc.example.test"}


def test_all_executions_collects_skipped_records_of_every_page(make_client: MakeClient) -> None:
    records = [execution_started(i) for i in range(6, 0, -1)]
    records[1]["runtime"] = "fast"
    records[4]["result_summary"] = "lots"
    client, _ = make_client(paged_service(records))

    everything = client.all_executions(page_size=2)

    assert [e.id for e in everything] == [6, 4, 3, 1]
    assert sorted(s.record_id or "" for s in everything.skipped) == ["2", "5"]


def test_all_executions_fails_whole_when_a_page_fails_for_good(make_client: MakeClient) -> None:
    records = [execution_started(i) for i in range(9, 0, -1)]
    inner = paged_service(records)

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.params["page"] == "2":
            return httpx.Response(403, json={"error": "ACCESS_DENIED"})
        return inner(request)

    client, _ = make_client(handler)

    with pytest.raises(PermissionDeniedError):
        client.all_executions(page_size=3)


# -- the token ----------------------------------------------------------------------------------


def test_the_token_is_sent_only_to_the_base_urls_origin() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=[])

    http = httpx.Client(transport=httpx.MockTransport(handler))
    with ApiClient(base_url=BASE_URL, token=TOKEN, company_id=7, http_client=http) as client:
        client.plans()
        # Someone reusing the client's HTTP session and auth for a URL from a response:
        http.get("https://evil.example.test/api/plans/lazy", auth=client._auth)
        http.get("http://svc.example.test/Api/api/plans/lazy", auth=client._auth)  # not https
        http.get("https://svc.example.test:8443/Api/api/plans/lazy", auth=client._auth)

    assert seen[0].headers["Authorization"] == f"Bearer {TOKEN}"
    assert all("Authorization" not in r.headers for r in seen[1:])


def test_the_token_appears_in_no_log_line_at_debug_level(
    make_client: MakeClient, caplog: pytest.LogCaptureFixture
) -> None:
    responses = iter(
        [
            httpx.Response(503, text="busy"),
            httpx.Response(200, json=page([EXECUTION])),
            httpx.Response(200, json=[TEST_RESULT]),
            httpx.Response(401, json={"error": "invalid_token", "message": f"Bearer {TOKEN}"}),
        ]
    )
    client, _ = make_client(lambda request: next(responses), retry_policy=FAST_RETRIES)

    with caplog.at_level(logging.DEBUG):
        client.executions(page=1, size=10)
        client.test_results(900, 21)
        with pytest.raises(AuthenticationError):
            client.plans()
        logging.getLogger("api_client").debug("header was Bearer %s", TOKEN)

    assert "GET /Api/api/executions/filter" in caplog.text  # there is DEBUG logging to check
    assert TOKEN not in caplog.text
    assert ACCESS_TOKEN not in caplog.text


def test_the_clients_repr_has_no_token(make_client: MakeClient) -> None:
    client, _ = make_client(json_response(200, []))

    assert TOKEN not in repr(client)
    assert repr(client) == f"ApiClient(base_url='{BASE_URL}', company_id=7)"


# -- the retry loop -----------------------------------------------------------------------------


def sequence(*responses: httpx.Response | Exception) -> Any:
    remaining = list(responses)

    def handler(request: httpx.Request) -> httpx.Response:
        item = remaining.pop(0)
        if isinstance(item, Exception):
            raise item
        return item

    return handler


@pytest.mark.parametrize(
    "failure",
    [
        httpx.Response(502, text="bad gateway"),
        httpx.Response(503, text="unavailable"),
        httpx.Response(504, text="gateway timeout"),
        httpx.Response(429, json={}, headers={"Retry-After": "0"}),
        httpx.Response(500, json={"error": "SYSTEM_INTERNAL_ERROR"}),
        httpx.Response(200, content=b'[{"id": 1, "lev'),  # a body cut short in transit
        httpx.ConnectError("refused"),
        httpx.ReadTimeout("slow"),
        httpx.RemoteProtocolError("peer closed connection without sending complete message"),
    ],
    ids=["502", "503", "504", "429", "500", "truncated", "connect", "timeout", "dropped"],
)
def test_transient_failures_are_retried_until_success(
    make_client: MakeClient, failure: httpx.Response | Exception
) -> None:
    client, recorder = make_client(
        sequence(failure, httpx.Response(200, json=[TEST_PLAN])), retry_policy=FAST_RETRIES
    )

    plans = client.plans()

    assert [p.id for p in plans] == [3]
    assert len(recorder.requests) == 2


@pytest.mark.parametrize(
    ("response", "error_class"),
    [
        (httpx.Response(400, json={"error": "INVALID_REQUEST"}), InvalidRequestError),
        (httpx.Response(401, json={"error": "invalid_token"}), AuthenticationError),
        (httpx.Response(403, json={"error": "ACCESS_DENIED"}), PermissionDeniedError),
        (httpx.Response(404, json={"error": "EXECUTION_NOT_FOUND"}), ExecutionNotFoundError),
        (httpx.Response(200, content=b"<html>proxy login</html>"), ResponseValidationError),
    ],
)
def test_answers_a_retry_cannot_change_are_never_retried(
    make_client: MakeClient, response: httpx.Response, error_class: type[Exception]
) -> None:
    client, recorder = make_client(sequence(response), retry_policy=FAST_RETRIES)

    with pytest.raises(error_class):
        client.test_results(900, 21)

    assert len(recorder.requests) == 1


def test_a_plain_500_is_retried_a_bounded_number_of_times(make_client: MakeClient) -> None:
    failures = [httpx.Response(500, json={"error": "SYSTEM_INTERNAL_ERROR"}) for _ in range(5)]
    client, recorder = make_client(sequence(*failures), retry_policy=FAST_RETRIES)

    with pytest.raises(InternalServerError):
        client.plans()

    assert len(recorder.requests) == 1 + FAST_RETRIES.max_server_error_retries


def test_retries_stop_after_max_retries(make_client: MakeClient) -> None:
    failures = [httpx.Response(503, text="down") for _ in range(10)]
    client, recorder = make_client(sequence(*failures), retry_policy=FAST_RETRIES)

    with pytest.raises(ServerError):
        client.plans()

    assert len(recorder.requests) == 1 + FAST_RETRIES.max_retries


def test_a_retry_after_beyond_the_cap_gives_up_at_once(make_client: MakeClient) -> None:
    policy = RetryPolicy(max_retries=3, backoff_base=0.0, retry_after_cap=5.0)
    client, recorder = make_client(
        sequence(httpx.Response(429, json={}, headers={"Retry-After": "3600"})),
        retry_policy=policy,
    )

    with pytest.raises(RateLimitError) as caught:
        client.plans()

    assert caught.value.retry_after == 3600
    assert len(recorder.requests) == 1


def test_no_retry_starts_past_the_deadline(make_client: MakeClient) -> None:
    policy = RetryPolicy(max_retries=5, backoff_base=10.0, backoff_max=10.0, deadline=1.0)
    client, recorder = make_client(
        sequence(httpx.ConnectError("refused"), httpx.Response(200, json=[])),
        retry_policy=policy,
    )

    with pytest.raises(ApiConnectionError):
        client.plans()

    assert len(recorder.requests) == 1


@pytest.mark.parametrize("token", ["abc\ndef", "abc def", "tökén", "abc\x00"])
def test_a_token_that_cannot_be_a_header_is_refused_without_repeating_it(token: str) -> None:
    with pytest.raises(RequestValidationError) as caught:
        ApiClient(base_url=BASE_URL, token=token, company_id=7)

    assert token not in str(caught.value)
    assert "visible ASCII" in str(caught.value)


def test_a_pasted_token_with_surrounding_blanks_is_trimmed(make_client: MakeClient) -> None:
    client, recorder = make_client(json_response(200, []), token=f"  {TOKEN}\n")

    client.plans()

    assert recorder.requests[0].headers["Authorization"] == f"Bearer {TOKEN}"


def test_a_gateway_asking_for_a_long_pause_is_not_waited_for(make_client: MakeClient) -> None:
    client, recorder = make_client(
        sequence(httpx.Response(503, text="maintenance", headers={"Retry-After": "3600"})),
        retry_policy=FAST_RETRIES,
    )

    with pytest.raises(ServerError) as caught:
        client.plans()

    assert caught.value.retry_after == 3600
    assert len(recorder.requests) == 1


def test_an_unreadable_ca_bundle_is_a_clear_validation_error(tmp_path: Any) -> None:
    bundle = tmp_path / "not-a-certificate.pem"
    bundle.write_text("this is not PEM")

    with pytest.raises(RequestValidationError, match=r"CA bundle .* could not be loaded"):
        ApiClient(base_url=BASE_URL, token=TOKEN, company_id=7, verify=str(bundle))
    with pytest.raises(RequestValidationError, match="could not be loaded"):
        ApiClient(base_url=BASE_URL, token=TOKEN, company_id=7, verify=str(tmp_path / "none"))
