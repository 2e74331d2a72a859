"""Fixtures of the sandbox tests: one HTTP client for the shared live sandbox."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from sandbox import RunningSandbox
from tests.waiting import PATIENT_S


@pytest.fixture(scope="session")
def http(live_sandbox: RunningSandbox) -> Iterator[httpx.Client]:
    # A long per-request limit: a loaded machine answers late, not wrong.
    with httpx.Client(base_url=live_sandbox.base_url, timeout=PATIENT_S) as client:
        yield client
