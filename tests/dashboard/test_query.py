"""One query object from the URL to the request: a filter is named once, on its field.

The view state becomes an `ExecutionQuery` in one function; the client sends its `to_params()`
and captions say its `describe()`. So a new filter is one field, and it reaches the request and
the caption without another edit: shown here with a filter the service does not have.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

import httpx
import pytest

from api_client import ApiClient, ExecutionQuery, InvalidRequestError, Operation
from api_client.query import Filter
from dashboard.present.formatting import utc_text
from dashboard.present.messages import describe_error
from dashboard.state.params import DateRange, ViewState
from dashboard.state.query import execution_query


@dataclass(frozen=True)
class WithEnvironment(ExecutionQuery):
    """The executions query plus a filter that does not exist yet: an environment id."""

    environment_id: int | None = field(
        default=None, metadata={"filter": Filter("environmentId", "environment {}")}
    )


def test_a_new_filter_field_reaches_the_request_and_the_caption() -> None:
    query = WithEnvironment(plan_id=3, status="FAILURE", environment_id=42)
    sent: list[httpx.URL] = []

    def service(request: httpx.Request) -> httpx.Response:
        sent.append(request.url)
        return httpx.Response(400, json={"error": "INVALID_REQUEST", "message": "no"})

    with (
        ApiClient(
            base_url="https://svc.example.test/Api",
            token="tok-123",
            company_id=7,
            max_retries=0,
            http_client=httpx.Client(transport=httpx.MockTransport(service)),
        ) as client,
        pytest.raises(InvalidRequestError) as raised,
    ):
        client.executions(1, 10, query=query)

    (url,) = sent
    assert url.params["environmentId"] == "42"
    assert url.params["planId"] == "3"
    assert url.params["status"] == "FAILURE"
    caption = describe_error(raised.value, filters=query.describe(utc_text)).text
    assert "environment 42" in caption
    assert "plan 3" in caption


def test_the_view_state_becomes_the_query_in_one_place() -> None:
    now = datetime(2026, 11, 20, 18, 3, tzinfo=UTC)
    state = ViewState(project=2, plan=3, statuses=("ERROR",), date_range=DateRange.LAST_24_HOURS)

    query = execution_query(state, now=now, email="me@example.test")

    # The status filter narrows the loaded executions instead (several at once, no request).
    assert query == ExecutionQuery(
        project_id=2, plan_id=3, date_from=datetime(2026, 11, 19, 18, 0, tzinfo=UTC)
    )
    assert query.to_params() == {"projectId": "2", "planId": "3", "from": "1795111200000"}


def test_a_query_never_words_the_email_and_refuses_bad_values_before_a_request() -> None:
    mine = ExecutionQuery(email="me@example.test", date_to=datetime(2026, 11, 20, tzinfo=UTC))

    assert mine.describe() == ["started until 2026-11-20 00:00 UTC", "only mine"]
    assert "me@example.test" not in repr(mine.describe(utc_text))
    with pytest.raises(ValueError, match="date_from must not be after date_to"):
        ExecutionQuery(
            date_from=datetime(2026, 11, 21, tzinfo=UTC), date_to=datetime(2026, 11, 20, tzinfo=UTC)
        )
    with pytest.raises(ValueError, match="plan_id must be a positive integer"):
        ExecutionQuery(plan_id=0)


def test_describe_error_names_the_operation_of_a_rejected_query() -> None:
    error = InvalidRequestError(
        "bad", status_code=400, code="INVALID_REQUEST", operation=Operation.EXECUTIONS
    )
    text = describe_error(error, filters=ExecutionQuery(status="PROCESSING").describe()).text
    assert "status PROCESSING" in text
