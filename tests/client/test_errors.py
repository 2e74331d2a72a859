"""Every error of spec section 7, and error bodies of any shape, become the right `ApiError`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from api_client import (
    ApiClient,
    ApiConnectionError,
    ApiError,
    ApiStatusError,
    ApiTimeoutError,
    AuthenticationError,
    CompanyNotFoundError,
    ExecutionNotFoundError,
    ExecutionQuery,
    InternalServerError,
    InvalidRequestError,
    NotFoundError,
    Operation,
    PermissionDeniedError,
    RateLimitError,
    ResponseValidationError,
    ScenarioNotFoundError,
    ServerError,
    UnauthorizedUserError,
)
from tests.client.conftest import MakeClient, json_response
from tests.client.samples import TOKEN

Call = Callable[[ApiClient], Any]

RESULTS: Call = lambda c: c.test_results(900, 21)  # noqa: E731
EXECUTIONS: Call = lambda c: c.executions(page=1, size=10)  # noqa: E731
PLANS: Call = lambda c: c.plans()  # noqa: E731

# (operation, call, HTTP status, code, class): every row of the spec's section 7.
SPEC_ERROR_ROWS = [
    (Operation.TEST_RESULTS, RESULTS, 401, "ACCESS_DENIED", PermissionDeniedError),
    (Operation.TEST_RESULTS, RESULTS, 404, "EXECUTION_NOT_FOUND", ExecutionNotFoundError),
    (Operation.TEST_RESULTS, RESULTS, 404, "TEST_SCENARIO_NOT_FOUND", ScenarioNotFoundError),
    (Operation.TEST_RESULTS, RESULTS, 500, "USERS_COMPANY_NOT_EXISTS", CompanyNotFoundError),
    (Operation.TEST_RESULTS, RESULTS, 500, "SYSTEM_INTERNAL_ERROR", InternalServerError),
    (Operation.EXECUTIONS, EXECUTIONS, 400, "INVALID_REQUEST", InvalidRequestError),
    (Operation.EXECUTIONS, EXECUTIONS, 403, "ACCESS_DENIED", PermissionDeniedError),
    (Operation.EXECUTIONS, EXECUTIONS, 403, "UNAUTHORIZED_USER", UnauthorizedUserError),
    (Operation.EXECUTIONS, EXECUTIONS, 500, "INTERNAL_SERVER_ERROR", InternalServerError),
    (Operation.PLANS, PLANS, 403, "ACCESS_DENIED", PermissionDeniedError),
    (Operation.PLANS, PLANS, 400, "INVALID_REQUEST", InvalidRequestError),
    (Operation.PLANS, PLANS, 500, "SYSTEM_INTERNAL_ERROR", InternalServerError),
]


@pytest.mark.parametrize(
    ("operation", "call", "status", "code", "error_class"),
    SPEC_ERROR_ROWS,
    ids=[f"{row[0].value}-{row[2]}-{row[3]}" for row in SPEC_ERROR_ROWS],
)
def test_each_spec_error_row_maps_to_its_class(
    make_client: MakeClient,
    operation: Operation,
    call: Call,
    status: int,
    code: str,
    error_class: type[ApiStatusError],
) -> None:
    body = {"error": code, "message": "said the service"}
    client, _ = make_client(json_response(status, body))

    with pytest.raises(error_class) as caught:
        call(client)

    error = caught.value
    assert isinstance(error, ApiError)
    assert (error.status_code, error.code, error.operation) == (status, code, operation)
    assert code in error.message
    assert "said the service" in error.message


def test_executions_not_found_is_an_empty_page_not_an_error(make_client: MakeClient) -> None:
    body = {"error": "TEST_EXECUTION_NOT_FOUND", "message": "No executions"}
    client, _ = make_client(json_response(404, body))

    page = client.executions(page=1, size=10, query=ExecutionQuery(plan_id=3))
    everything = client.all_executions(ExecutionQuery(plan_id=3))

    assert (page.total_count, page.page_count, page.item_list) == (0, 0, [])
    assert everything == []


@pytest.mark.parametrize(
    ("operation", "call", "authority"),
    [
        (Operation.TEST_RESULTS, RESULTS, "TEST_RESULT_VIEW"),
        (Operation.EXECUTIONS, EXECUTIONS, "TEST_EXECUTION_VIEW"),
        (Operation.PLANS, PLANS, "PLAN_VIEW"),
    ],
)
def test_access_denied_names_the_missing_authority(
    make_client: MakeClient, operation: Operation, call: Call, authority: str
) -> None:
    status = 401 if operation is Operation.TEST_RESULTS else 403
    client, _ = make_client(json_response(status, {"error": "ACCESS_DENIED"}))

    with pytest.raises(PermissionDeniedError) as caught:
        call(client)

    assert caught.value.missing_authority == authority


@pytest.mark.parametrize(
    ("status", "body", "error_class", "code"),
    [
        # The platform's documented sample.
        (403, {"error": "ACCESS_DENIED", "message": "x"}, PermissionDeniedError, "ACCESS_DENIED"),
        # The code under other field names.
        (404, {"code": "EXECUTION_NOT_FOUND"}, ExecutionNotFoundError, "EXECUTION_NOT_FOUND"),
        (400, {"errorCode": "INVALID_REQUEST"}, InvalidRequestError, "INVALID_REQUEST"),
        (
            404,
            {"message": "TEST_SCENARIO_NOT_FOUND"},
            ScenarioNotFoundError,
            "TEST_SCENARIO_NOT_FOUND",
        ),
        (
            500,
            {"error": {"code": "SYSTEM_INTERNAL_ERROR"}},
            InternalServerError,
            "SYSTEM_INTERNAL_ERROR",
        ),
        (
            400,
            {"status": 400, "error": "Bad Request", "message_code": "INVALID_REQUEST"},
            InvalidRequestError,
            "INVALID_REQUEST",
        ),
        # A framework's own 401 body: no service code, so the status decides.
        (
            401,
            {"error": "invalid_token", "error_description": "Access token expired"},
            AuthenticationError,
            "invalid_token",
        ),
        # Unknown codes fall back to a class chosen by status.
        (404, {"error": "SOMETHING_NEW"}, NotFoundError, "SOMETHING_NEW"),
        (503, {"error": "MAINTENANCE"}, ServerError, "MAINTENANCE"),
        (429, {}, RateLimitError, None),
        (418, {}, ApiStatusError, None),
    ],
)
def test_error_bodies_of_any_json_shape(
    make_client: MakeClient,
    status: int,
    body: dict[str, Any],
    error_class: type[ApiStatusError],
    code: str | None,
) -> None:
    client, _ = make_client(json_response(status, body))

    with pytest.raises(error_class) as caught:
        client.executions(page=1, size=10)

    assert type(caught.value) is error_class
    assert caught.value.code == code
    assert caught.value.status_code == status


@pytest.mark.parametrize(
    ("status", "content", "content_type", "error_class", "expected_text"),
    [
        (
            502,
            b"<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1>"
            b"</body></html>",
            "text/html",
            ServerError,
            "502 Bad Gateway",
        ),
        (503, b"upstream connect error or disconnect/reset", "text/plain", ServerError, "upstream"),
        (401, b"", "text/plain", AuthenticationError, "HTTP 401"),
        (500, b"\xff\xfe\x00garbage", "application/octet-stream", ServerError, "HTTP 500"),
        (404, b"Error: EXECUTION_NOT_FOUND", "text/plain", ExecutionNotFoundError, "HTTP 404"),
    ],
)
def test_non_json_error_bodies(
    make_client: MakeClient,
    status: int,
    content: bytes,
    content_type: str,
    error_class: type[ApiStatusError],
    expected_text: str,
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, content=content, headers={"content-type": content_type})

    client, _ = make_client(handler)

    with pytest.raises(error_class) as caught:
        client.test_results(900, 21)

    assert type(caught.value) is error_class
    assert expected_text in caught.value.message
    assert "<" not in caught.value.message  # an HTML page is reduced to its words
    assert len(caught.value.message) < 400


def test_a_very_long_error_message_is_shortened(make_client: MakeClient) -> None:
    client, _ = make_client(json_response(500, {"error": "X", "message": "word " * 1000}))

    with pytest.raises(ServerError) as caught:
        client.plans()

    assert len(caught.value.message) < 400


def test_connection_refused_is_an_api_connection_error(make_client: MakeClient) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("[Errno 111] Connection refused", request=request)

    client, _ = make_client(handler)

    with pytest.raises(ApiConnectionError) as caught:
        client.plans()

    assert not isinstance(caught.value, ApiTimeoutError)
    assert "Connection refused" in caught.value.message
    assert "https://svc.example.test" in caught.value.message
    assert caught.value.operation is Operation.PLANS


def test_a_timeout_is_an_api_timeout_error(make_client: MakeClient) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("timed out", request=request)

    client, _ = make_client(handler)

    with pytest.raises(ApiTimeoutError, match="timed out"):
        client.executions(page=1, size=10)


@pytest.mark.parametrize(
    ("content", "call", "text"),
    [
        (b"<html>maintenance</html>", PLANS, "not valid JSON"),
        (b'{"current_page": 1, "item_li', EXECUTIONS, "not valid JSON"),
        (b'{"not": "a list"}', RESULTS, "not a list of records"),
        (b"[1, 2, 3]", EXECUTIONS, "not a page envelope"),
        (b'{"current_page": "one", "item_list": []}', EXECUTIONS, "envelope does not fit"),
    ],
)
def test_a_success_body_that_does_not_fit_is_a_response_validation_error(
    make_client: MakeClient, content: bytes, call: Call, text: str
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=content)

    client, _ = make_client(handler)

    with pytest.raises(ResponseValidationError, match=text):
        call(client)


def test_no_error_message_or_repr_contains_the_token(make_client: MakeClient) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        # A hostile or buggy service echoing the Authorization header back.
        echoed = request.headers["Authorization"]
        return httpx.Response(401, json={"error": "invalid_token", "message": echoed})

    client, _ = make_client(handler)

    with pytest.raises(AuthenticationError) as caught:
        client.plans()

    assert TOKEN not in caught.value.message
    assert TOKEN not in str(caught.value)
    assert TOKEN not in repr(caught.value)
    assert "<redacted>" in caught.value.message
    assert TOKEN not in repr(client)
    assert TOKEN not in repr(client._auth)
    assert caught.value.__cause__ is None


def test_a_token_echoed_as_the_error_code_is_not_taken_for_one(make_client: MakeClient) -> None:
    client, _ = make_client(json_response(401, {"error": TOKEN, "message": f"bad {TOKEN}"}))

    with pytest.raises(AuthenticationError) as caught:
        client.plans()

    assert caught.value.code is None
    for rendering in (caught.value.message, str(caught.value), repr(caught.value)):
        assert TOKEN not in rendering


def test_a_code_inside_a_longer_code_is_not_mistaken_for_it(make_client: MakeClient) -> None:
    """A plain-text "TEST_EXECUTION_NOT_FOUND" is not the "EXECUTION_NOT_FOUND" it contains."""

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(404, text="TEST_EXECUTION_NOT_FOUND: nothing matches")

    client, _ = make_client(handler)

    page = client.executions(page=1, size=10)

    assert (page.total_count, page.item_list) == (0, [])


def test_a_connection_error_quoting_the_token_is_masked(make_client: MakeClient) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.LocalProtocolError(f"Illegal header value b'Bearer {TOKEN}'")

    client, _ = make_client(handler)

    with pytest.raises(ApiConnectionError) as caught:
        client.plans()

    assert TOKEN not in caught.value.message
    assert "<redacted>" in caught.value.message
