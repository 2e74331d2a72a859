"""`make demo N=...`: the embedded demo holds as many executions as QA_DASHBOARD_DEMO_EXECUTIONS
asks for, and anything but a whole number in range is refused with a clear message."""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from api_client import ApiClient
from dashboard.data import demo
from sandbox import SandboxSettings

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("raw", "expected"), [("", None), ("  ", None), ("0", 0), ("2500", 2500), (" 1000000 ", 10**6)]
)
def test_the_size_is_read_from_the_environment(raw: str, expected: int | None) -> None:
    assert demo.demo_executions({demo.ENV_DEMO_EXECUTIONS: raw}) == expected
    assert demo.demo_executions({}) is None


@pytest.mark.parametrize("raw", ["-5", "1e5", "100k", "1000001", "١٢٣", "3.5"])
def test_a_size_that_is_not_a_whole_number_in_range_is_refused(raw: str) -> None:
    with pytest.raises(ValueError, match="must be a whole number of executions from 0 to"):
        demo.demo_executions({demo.ENV_DEMO_EXECUTIONS: raw})


@pytest.mark.parametrize("asked_in", ["the process's environment", "the command's environment"])
def test_the_demo_serves_the_size_asked_for(asked_in: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # A command given its environment (`dashboard.cli.main(argv, env)`) starts the demo of the
    # size that environment names, as its store is named after it, whatever the process has.
    asked = {demo.ENV_DEMO_EXECUTIONS: "3000"}
    if asked_in == "the process's environment":
        monkeypatch.setenv(demo.ENV_DEMO_EXECUTIONS, "3000")
        service = demo.start()
    else:
        monkeypatch.delenv(demo.ENV_DEMO_EXECUTIONS, raising=False)
        service = demo.start(asked)
    try:
        connection = service.connection
        with ApiClient(
            base_url=connection.base_url,
            token=connection.token.get_secret_value(),
            company_id=connection.company_id,
        ) as client:
            first = client.executions()
        # Company 1's share of the 3,000 (the sandbox splits them among its companies): more
        # than the whole default demo holds, at most what was asked for.
        assert SandboxSettings().executions < first.total_count <= 3000
    finally:
        service.server.stop()


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_demo_refuses_a_size_that_is_not_a_number() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("QA_DASHBOARD_")}
    done = subprocess.run(
        ["make", "--no-print-directory", "demo", "N=lots", "STAMP=pyproject.toml"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode != 0
    assert "N must be a whole number of executions" in done.stderr


def test_the_default_size_is_the_sandboxs() -> None:
    # The demo started without a size and with N=300 are the same data, and share a store.
    assert SandboxSettings().executions == demo.DEFAULT_DEMO_EXECUTIONS
    assert demo.data_set({}) is None
    assert demo.data_set({demo.ENV_DEMO_EXECUTIONS: "300"}) is None
    assert demo.data_set({demo.ENV_DEMO_EXECUTIONS: "100000"}) == "executions=100000"


def test_the_demo_reads_its_data_at_its_own_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(demo.ENV_DEMO_EXECUTIONS, raising=False)
    login = demo.login("http://127.0.0.1:1")
    assert login.is_demo
    assert demo.now_of(login) == SandboxSettings().now
    service = replace(login, source="environment", clock=None)
    before = datetime.now(UTC)
    assert before <= demo.now_of(service) <= datetime.now(UTC)
