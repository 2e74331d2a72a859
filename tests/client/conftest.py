"""A client wired to an `httpx.MockTransport`, recording every request it sends."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import httpx
import pytest
from hypothesis import settings

from api_client import NO_RETRIES, ApiClient, RetryPolicy
from tests.client.samples import TOKEN

# CI explores the same examples on every run, so a red build is reproducible; developers'
# machines explore new ones each run.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

Handler = Callable[[httpx.Request], httpx.Response]

BASE_URL = "https://svc.example.test/Api"
COMPANY_ID = 7

# Retries without waiting, so tests of the loop run instantly; the delays themselves are
# tested as pure functions.
FAST_RETRIES = RetryPolicy(max_retries=3, max_server_error_retries=1, backoff_base=0.0)


@dataclass
class Recorder:
    """Sends each request to `handler` and keeps it for assertions."""

    handler: Handler
    requests: list[httpx.Request] = field(default_factory=list)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.handler(request)


MakeClient = Callable[..., tuple[ApiClient, Recorder]]


@pytest.fixture
def make_client() -> Iterator[MakeClient]:
    clients: list[ApiClient] = []

    def make(
        handler: Handler, *, retry_policy: RetryPolicy = NO_RETRIES, **options: object
    ) -> tuple[ApiClient, Recorder]:
        recorder = Recorder(handler)
        settings: dict[str, object] = {
            "base_url": BASE_URL,
            "token": TOKEN,
            "company_id": COMPANY_ID,
            "retry_policy": retry_policy,
        }
        settings.update(options)
        client = ApiClient(
            http_client=httpx.Client(transport=httpx.MockTransport(recorder)),
            **settings,  # type: ignore[arg-type]
        )
        clients.append(client)
        return client, recorder

    yield make
    for client in clients:
        client.close()


def json_response(status: int, body: object, **headers: str) -> Handler:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, json=body, headers=headers)

    return handler
