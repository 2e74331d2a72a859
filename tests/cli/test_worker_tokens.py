"""The sync worker outlives its tokens: `--every 10s` against the sandbox as a real process whose
tokens live 20 seconds, through more than three lifetimes, with no failed pass.

One worker process syncs three named connections of its secrets file, one per way of renewing
a token: an OAuth2 token endpoint (`[connections.NAME.oauth]`, the password grant, renewed by
refresh before expiry), a token file a sidecar thread of this test rewrites every 8 seconds, and
a token command printing a bare token (run again when the service refuses it). The test waits on
the worker's own pass lines, never on a fixed sleep.
"""

from __future__ import annotations

import json
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.conftest import cli_env
from tests.cli.worker_process import Worker
from tests.service_tokens import (
    ISSUED_PREFIXES,
    SandboxProcess,
    renewed_token_file,
    sandbox_process,
    token_command,
)

pytestmark = pytest.mark.slow

TOKEN_LIFETIME = 20.0
PASS_EVERY = 10.0
# Passes start every 10 s: the seventh starts at least 60 s (three lifetimes) after the first.
PASSES = 7
CONNECTIONS = ("oauth", "file", "command")


@pytest.fixture(scope="module")
def expiring() -> Iterator[SandboxProcess]:
    with sandbox_process(f"{TOKEN_LIFETIME:g}s") as running:
        yield running


def toml(value: object) -> str:
    return json.dumps(value)  # a JSON string or list of strings is a TOML one


def test_a_worker_syncs_through_three_token_lifetimes_with_every_kind_of_renewal(
    expiring: SandboxProcess, tmp_path: Path, cache: Path, workdir: Path
) -> None:
    lead, other = expiring.lead(1), expiring.lead(2)
    token_file = tmp_path / "qa-token"
    command = token_command(tmp_path, expiring.token_url, lead)
    secrets = workdir / "worker.toml"
    secrets.write_text(
        f"""
[connections.oauth]
base_url = {toml(expiring.base_url)}
company_id = 1

[connections.oauth.oauth]
token_url = {toml(expiring.token_url)}
grant = "password"
client_id = {toml(lead.client_id)}
client_secret = {toml(lead.client_secret)}
username = {toml(lead.username)}
password = {toml(lead.password)}

[connections.file]
base_url = {toml(expiring.base_url)}
company_id = 2
token_file = {toml(str(token_file))}

[connections.command]
base_url = {toml(expiring.base_url)}
company_id = 1
token_command = {toml(command)}
""",
        encoding="utf-8",
    )
    arguments = ["--every", f"{PASS_EVERY:g}s", "--days", "7", "--secrets", str(secrets)]
    for name in CONNECTIONS:
        arguments += ["--connection", name]

    with renewed_token_file(token_file, expiring.token_url, other, every=8.0):
        worker = Worker(arguments, cli_env(cache), workdir)
        try:
            for name in CONNECTIONS:
                worker.wait_for(f"sync {name} (", count=PASSES)
            code, _ = worker.stop(signal.SIGTERM)
        finally:
            worker.kill()

    assert code == 0
    output = "\n".join(worker.lines)
    for name in CONNECTIONS:
        passes = [line for line in worker.lines if f"sync {name} (" in line]
        assert len(passes) >= PASSES
        for line in passes:
            assert "failed:" not in line, output
            assert "executions (" in line, output
    for secret in expiring.secrets():
        assert secret not in output
    for prefix in ISSUED_PREFIXES:  # no token the endpoint issued, access or refresh
        assert prefix not in output
