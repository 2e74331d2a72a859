"""What the tests of token renewal share: the sandbox as a real process whose tokens expire
(`python -m sandbox serve --token-ttl ...`), a command that prints one of its tokens, and a
sidecar that keeps a token file renewed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from sandbox import DemoUser, SandboxSettings, demo_users
from tests.waiting import wait_for_answer

# Prints a client_credentials token of the sandbox at argv[1] for the client argv[2] (secret
# argv[3]), alone on its line: its lifetime is not said, so the client learns that it expired
# from the service's 401.
PRINT_TOKEN = """\
import sys, httpx
answer = httpx.post(sys.argv[1], data={"grant_type": "client_credentials"},
                    auth=(sys.argv[2], sys.argv[3]))
print(answer.json()["access_token"])
"""
# What every token the sandbox's endpoint issues starts with (access, refresh).
ISSUED_PREFIXES = ("sbx-oa-", "sbx-rt-")


class Clock:
    """Seconds that move only when a test says (token lifetimes without waiting)."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@dataclass(frozen=True)
class SandboxProcess:
    base_url: str
    users: list[DemoUser]
    banner: str  # what `serve` printed before serving, down to its list of users

    @property
    def token_url(self) -> str:
        return f"{self.base_url}/oauth/token"

    def lead(self, company_id: int = 1) -> DemoUser:
        return next(u for u in self.users if u.company_id == company_id and len(u.authorities) == 3)

    def secrets(self) -> list[str]:
        """Every credential of its demo users (what must never be printed or logged)."""
        return [s for u in self.users for s in (u.token, u.password, u.client_secret)]


@contextmanager
def sandbox_process(token_ttl: str, *, executions: int = 40) -> Iterator[SandboxProcess]:
    """`python -m sandbox serve --token-ttl TTL` on a free loopback port, until the block ends."""
    command = [sys.executable, "-m", "sandbox", "serve", "--port", "0", "--token-ttl", token_ttl]
    command += ["--executions", str(executions)]
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    ) as server:
        try:
            assert server.stdout is not None
            lines = [server.stdout.readline()]  # "Sandbox API: http://127.0.0.1:PORT/api ..."
            assert lines[0].startswith("Sandbox API: "), lines[0]
            while not lines[-1].startswith("Demo users") and lines[-1]:
                lines.append(server.stdout.readline())
            base_url = lines[0].split()[2].removesuffix("/api")
            # The port is bound before the banner is printed; requests are served once uvicorn
            # runs. The pipe is not read meanwhile: a crash's own words are in its exit code.
            wait_for_answer(f"{base_url}/openapi.json", alive=server).raise_for_status()
            yield SandboxProcess(base_url, demo_users(SandboxSettings.seed), "".join(lines))
        finally:
            server.terminate()
            server.wait()  # no limit of its own: pytest-timeout ends a hang


def token_command(folder: Path, token_url: str, client: DemoUser) -> list[str]:
    """A command that prints a token of the endpoint at `token_url` for `client`
    (`PRINT_TOKEN`)."""
    script = folder / "print_token.py"
    script.write_text(PRINT_TOKEN, encoding="utf-8")
    return [sys.executable, str(script), token_url, client.client_id, client.client_secret]


def client_credentials_token(token_url: str, client: DemoUser) -> str:
    answer = httpx.post(
        token_url,
        data={"grant_type": "client_credentials"},
        auth=(client.client_id, client.client_secret),
        timeout=10,
    )
    answer.raise_for_status()
    token = answer.json()["access_token"]
    assert isinstance(token, str)
    return token


def write_token_file(path: Path, token: str) -> None:
    """Replace the file in one step, as a secrets manager's sidecar does (write, then rename)."""
    partial = path.with_name(path.name + ".partial")
    partial.write_text(token + "\n", encoding="ascii")
    os.replace(partial, path)


@contextmanager
def renewed_token_file(
    path: Path, token_url: str, client: DemoUser, *, every: float
) -> Iterator[threading.Event]:
    """A sidecar: a fresh token in `path` now and every `every` seconds (shorter than the
    tokens' lifetime) until the block ends. Yields an event set after each renewal."""
    stop = threading.Event()
    renewed = threading.Event()

    def renew() -> None:
        while not stop.wait(every):  # the sidecar's own schedule
            write_token_file(path, client_credentials_token(token_url, client))
            renewed.set()

    write_token_file(path, client_credentials_token(token_url, client))
    thread = threading.Thread(target=renew, name="token file sidecar", daemon=True)
    thread.start()
    try:
        yield renewed
    finally:
        stop.set()
        thread.join(30)
