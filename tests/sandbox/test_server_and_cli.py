"""serve_in_thread and the command line: what the dashboard and people rely on to run it."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import httpx
import pytest

from sandbox import RunningSandbox, SandboxSettings, demo_users, serve_in_thread
from sandbox.__main__ import main, parser, settings_from
from sandbox.auth import USER_INFO_ACCESS_TOKEN_PREFIX
from tests.sandbox.helpers import PLANS, company_headers
from tests.waiting import wait_for_answer


def test_each_sandbox_gets_its_own_free_loopback_port(live_sandbox: RunningSandbox) -> None:
    with serve_in_thread(SandboxSettings(executions=10)) as other:
        assert other.base_url.startswith("http://127.0.0.1:")
        assert other.base_url != live_sandbox.base_url
        assert other.users == demo_users(other.settings)


def test_a_port_in_use_is_refused(live_sandbox: RunningSandbox) -> None:
    port = int(live_sandbox.base_url.rsplit(":", 1)[1])
    with pytest.raises(OSError, match="in use"):
        serve_in_thread(SandboxSettings(executions=10), port=port)


def test_stop_closes_the_port_and_may_be_repeated() -> None:
    running = serve_in_thread(SandboxSettings(executions=10))
    lead = running.users[0]
    assert httpx.get(running.base_url + PLANS, headers=company_headers(lead)).status_code == 200
    running.stop()
    running.stop()
    with pytest.raises(httpx.ConnectError):
        httpx.get(running.base_url + PLANS, headers=company_headers(lead))


def test_users_command_prints_every_demo_user_with_token(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["users", "--seed", "8"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == [
        {
            "username": u.username,
            "email": u.email,
            "company_id": u.company_id,
            "authorities": list(u.authorities),
            "token": u.token,
            "password": u.password,
            "client_secret": u.client_secret,
        }
        for u in demo_users(8)
    ]


def test_serve_options_become_settings() -> None:
    args = parser().parse_args(
        [
            "serve", "--seed", "3", "--executions", "50", "--prefix", "/svc", "--db", "x.sqlite3",
            "--error-rate", "0.1", "--error-statuses", "503", "--rate-limit-rate", "0.2",
            "--retry-after", "4", "--slow-rate", "0.3", "--slow-seconds", "0.5",
            "--drop-rate", "0.05", "--truncated-rate", "0.06", "--malformed-rate", "0.07",
            "--fault-seed", "9",
        ]
    )  # fmt: skip
    settings = settings_from(args)
    assert (settings.seed, settings.executions, settings.path_prefix, settings.db_path) == (
        3,
        50,
        "/svc",
        "x.sqlite3",
    )
    faults = settings.faults
    assert (faults.seed, faults.error_rate, faults.error_statuses) == (9, 0.1, (503,))
    assert (faults.rate_limit_rate, faults.retry_after_seconds) == (0.2, 4)
    assert (faults.slow_rate, faults.slow_seconds) == (0.3, 0.5)
    assert (faults.drop_rate, faults.truncated_rate, faults.malformed_record_rate) == (
        0.05,
        0.06,
        0.07,
    )


def _get_when_serving(url: str, server: subprocess.Popen[str]) -> httpx.Response:
    """The port is bound before the banner is printed; poll until requests are served (or the
    server ended: its output is read after)."""
    return wait_for_answer(url, alive=server, headers=company_headers(demo_users(7)[0]))


def test_serve_command_serves_and_never_prints_a_token() -> None:
    command = [sys.executable, "-m", "sandbox", "serve", "--port", "0", "--executions", "20"]
    command += ["--prefix", "/svc"]
    # One pipe for both streams, read only through its file object: mixing readline() with
    # communicate() would lose what readline() buffered.
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    ) as server:
        assert server.stdout is not None
        first_line = server.stdout.readline()
        try:
            assert first_line.startswith("Sandbox API: http://127.0.0.1:")
            api_url = first_line.split()[2]
            assert api_url.endswith("/svc/api")
            assert _get_when_serving(api_url + "/plans/lazy", server).status_code == 200
        finally:
            server.terminate()
            printed = first_line + server.stdout.read()
    assert "acme.lead" in printed
    for user in demo_users(7):
        assert user.token not in printed
    assert USER_INFO_ACCESS_TOKEN_PREFIX not in printed


def test_users_piped_into_head_exits_quietly() -> None:
    """`python -m sandbox users | head -n 1`: the reader leaving early is not an error."""
    pipeline = subprocess.run(
        ["bash", "-o", "pipefail", "-c", f"'{sys.executable}' -m sandbox users | head -n 1"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (pipeline.returncode, pipeline.stdout, pipeline.stderr) == (0, "[\n", "")


def test_users_into_a_pipe_already_closed_exits_quietly() -> None:
    """The same, without the race: the pipe's reader is gone before the first byte is written."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        run = subprocess.run(
            [sys.executable, "-m", "sandbox", "users"],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        os.close(write_end)
    assert (run.returncode, run.stderr) == (0, "")
