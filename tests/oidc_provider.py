"""A small OpenID Connect provider on loopback, for the sign-in tests: `oidc-provider-mock` (an
Authlib-based provider made for tests) in a process of its own, so a test can stop it and see
what a viewer sees when the provider is down.

Its sign-in form takes any subject; a subject it has not been told about signs in with that
subject as its `email` claim, verified (`email_verified: true`, as the dashboard requires; see
tests/oidc_provider_process.py), so `sign in as "ada@example.com"` needs no set-up. Any client id
and secret are accepted. It serves plain HTTP, which Authlib's provider side refuses unless
`AUTHLIB_INSECURE_TRANSPORT` is set: that is set for its process only.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from tests.browser.harness import free_port
from tests.loopback_service import LoopbackServer
from tests.waiting import wait_for_answer

REPO = Path(__file__).resolve().parents[1]
CLIENT_ID = "qa-dashboard"
CLIENT_SECRET = "oidc-test-client-secret"  # any value serves; the leak checks look for it
COOKIE_SECRET = "test-cookie-secret-" + "k" * 32


@dataclass
class OidcProvider:
    """The provider's process on `port` (127.0.0.1)."""

    port: int
    log_path: Path
    _process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def issuer(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def metadata_url(self) -> str:
        return f"{self.issuer}/.well-known/openid-configuration"

    def start(self) -> OidcProvider:
        env = dict(os.environ, AUTHLIB_INSECURE_TRANSPORT="1")
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("ab") as log:
            self._process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "tests.oidc_provider_process",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(self.port),
                ],
                env=env,
                cwd=REPO,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        # Until it serves its configuration, or it ended (with its log): no start-up deadline,
        # which a loaded machine can miss; a hang is ended by pytest-timeout.
        try:
            wait_for_answer(
                self.metadata_url,
                alive=self._process,
                log=self.log_path,
                ok=lambda response: response.status_code == 200,
            )
        except BaseException:  # pytest-timeout's too: the process is not left running
            self.stop()
            raise
        return self

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


@contextmanager
def running_provider(log_path: Path) -> Iterator[OidcProvider]:
    provider = OidcProvider(free_port(), log_path).start()
    try:
        yield provider
    finally:
        provider.stop()


def auth_table(metadata_url: str, redirect_uri: str) -> dict[str, str]:
    """The `[auth]` table of a dashboard signing in with the provider at `metadata_url`."""
    return {
        "redirect_uri": redirect_uri,
        "cookie_secret": COOKIE_SECRET,
        "client_id": CLIENT_ID,
        "client_secret": CLIENT_SECRET,
        "server_metadata_url": metadata_url,
    }


@contextmanager
def dripping_provider(*, every_s: float = 0.2, most: int = 300) -> Iterator[str]:
    """A provider that never finishes its OpenID configuration: the headers at once, then one
    byte every `every_s` (each read ends well within any per-read timeout), `most` bytes at
    most, ended at once when the block ends. Yields its metadata URL."""
    done = threading.Event()

    class Dripping(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "100000")
            self.end_headers()
            for _ in range(most):
                self.wfile.write(b" ")
                self.wfile.flush()
                if done.wait(every_s):  # the drip's pace, cut short when the test is done
                    return

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = LoopbackServer(("127.0.0.1", 0), Dripping)
    thread = threading.Thread(target=server.serve_forever, name="dripping-provider", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/.well-known/openid-configuration"
    finally:
        done.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
