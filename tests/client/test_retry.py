"""The retry decisions, as the pure functions they are: no clock, no network."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from api_client import (
    ApiConnectionError,
    ApiError,
    ApiTimeoutError,
    ResponseValidationError,
    RetryPolicy,
    retry_delay,
    should_retry,
)
from api_client.errors import error_for_status
from api_client.retry import retry_after_seconds

POLICY = RetryPolicy(max_retries=3, max_server_error_retries=1, backoff_base=0.5, backoff_max=8.0)


def status(code: int, retry_after: float | None = None) -> ApiError:
    return error_for_status(status_code=code, code=None, operation=None, retry_after=retry_after)


@pytest.mark.parametrize(
    ("error", "retried"),
    [
        (ApiConnectionError("refused"), True),
        (ApiTimeoutError("slow"), True),
        (ResponseValidationError("cut short", transient=True), True),
        (ResponseValidationError("an HTML page", transient=False), False),
        (status(429), True),
        (status(502), True),
        (status(503), True),
        (status(504), True),
        (status(500), True),
        (status(400), False),
        (status(401), False),
        (status(403), False),
        (status(404), False),
        (status(409), False),
        (status(501), False),
    ],
)
def test_which_failures_are_retried_on_the_first_attempt(error: ApiError, retried: bool) -> None:
    assert should_retry(error, 0, POLICY) is retried


def test_no_failure_is_retried_once_the_retries_are_used_up() -> None:
    assert should_retry(status(503), 2, POLICY) is True
    assert should_retry(status(503), 3, POLICY) is False
    assert should_retry(ApiConnectionError("x"), 3, POLICY) is False


def test_a_plain_500_gets_fewer_retries_than_a_gateway_error() -> None:
    assert should_retry(status(500), 0, POLICY) is True
    assert should_retry(status(500), 1, POLICY) is False
    assert should_retry(status(502), 1, POLICY) is True


def test_a_rate_limit_hint_beyond_the_cap_is_not_waited_for() -> None:
    assert should_retry(status(429, retry_after=30.0), 0, POLICY) is True
    assert should_retry(status(429, retry_after=31.0), 0, POLICY) is False


def test_backoff_grows_exponentially_up_to_its_cap_with_jitter_within_bounds() -> None:
    lowest = [retry_delay(n, None, POLICY, random_fraction=lambda: 0.0) for n in range(7)]
    highest = [retry_delay(n, None, POLICY, random_fraction=lambda: 1.0) for n in range(7)]

    assert highest == [0.5, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0]
    assert lowest == [h / 2 for h in highest]  # "equal jitter": at least half of the back-off


def test_retry_after_wins_when_longer_and_is_capped() -> None:
    assert retry_delay(0, 5.0, POLICY, random_fraction=lambda: 1.0) == 5.0
    assert retry_delay(4, 1.0, POLICY, random_fraction=lambda: 1.0) == 8.0
    assert retry_delay(0, 500.0, POLICY, random_fraction=lambda: 0.0) == POLICY.retry_after_cap


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ({"Retry-After": "2"}, 2.0),
        ({"Retry-After": " 1.5 "}, 1.5),
        ({"Retry-After": "-3"}, 0.0),
        ({"Retry-After": "Sun, 22 Nov 2026 12:00:30 GMT"}, 30.0),
        ({"Retry-After": "soon"}, None),
        ({"Retry-After": "nan"}, None),
        ({}, None),
    ],
)
def test_retry_after_header_parsing(header: dict[str, str], expected: float | None) -> None:
    now = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
    lowered = {key.lower(): value for key, value in header.items()}

    assert retry_after_seconds(lowered, now=now) == expected


def test_a_policy_refuses_negative_settings() -> None:
    with pytest.raises(ValueError, match="retry counts"):
        RetryPolicy(max_retries=-1)
    with pytest.raises(ValueError, match="retry delays"):
        RetryPolicy(deadline=-1.0)
