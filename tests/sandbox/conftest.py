"""Fixtures of the sandbox tests: one HTTP client for the shared live sandbox."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from sandbox import RunningSandbox


@pytest.fixture(scope="session")
def http(live_sandbox: RunningSandbox) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=live_sandbox.base_url, timeout=10) as client:
        yield client
