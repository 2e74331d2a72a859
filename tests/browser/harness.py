"""Processes and evidence for the browser tests: the dashboard server, chromium, secrets to hunt.

The one launcher of both: the browser tests and the benchmark suite (benchmarks/browser.py)
start `streamlit run` and Debian's chromium through `StreamlitServer` and `launched_chromium`.
What a test does in the page is in `screen.py`. Everything waits on state (a health endpoint, a
process exit) in bounded loops; nothing waits for a fixed time.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from playwright.sync_api import Browser, sync_playwright

REPO_ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO_ROOT / "artifacts" / "browser"
# The pytest-xdist worker running this process ("gw0", "gw1"; empty on one process). The browser
# tests run on every worker (tests/conftest.py), so each worker's session dashboard writes a log
# of its own (`server_log`): two servers writing one file would mix their lines, and a test would
# blame its server for the other worker's exception.
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")

# Debian's chromium: Playwright's own browser download is not available on this machine.
CHROMIUM_CANDIDATES = ("chromium", "/usr/bin/chromium")
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
INSTALL_HINT = "install it with: sudo apt-get install chromium"

# The prefix of the dashboard's configuration variables (dashboard/connection.py): base URL,
# token, company id, e-mail, CA bundle. None of the developer's may reach a test's server.
DASHBOARD_ENV_PREFIX = "QA_DASHBOARD_"

SERVER_START_TIMEOUT_S = 60.0
SERVER_STOP_TIMEOUT_S = 10.0
POLL_INTERVAL_S = 0.1


def find_chromium() -> str | None:
    for candidate in CHROMIUM_CANDIDATES:
        found = shutil.which(candidate)
        if found:
            return found
    return None


@contextmanager
def launched_chromium(executable: str) -> Iterator[Browser]:
    """Chromium, headless, with the flags it needs here; closed on the way out. `launch` gives
    it a fresh, temporary user-data dir, removed when it closes."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable, headless=True, args=list(CHROMIUM_ARGS)
        )
        try:
            yield browser
        finally:
            browser.close()


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def dashboard_env(home: Path, overrides: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a dashboard server: this one, minus anything that could configure it.

    QA_DASHBOARD_* are removed (only `overrides` may set them), secrets files are pointed at a
    path that does not exist and HOME at an empty folder, so a developer's own
    `.streamlit/secrets.toml` or `~/.streamlit` never turns the demo into their real service.
    """
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith((DASHBOARD_ENV_PREFIX, "STREAMLIT_"))
    }
    env.update(
        HOME=str(home),
        STREAMLIT_SECRETS_FILES=str(home / "no-secrets.toml"),
        PYTHONUNBUFFERED="1",
    )
    env.update(overrides or {})
    return env


def server_log(name: str) -> Path:
    """Where the dashboard server `name` logs: one file per name and pytest-xdist worker."""
    return ARTIFACTS / f"streamlit-{name}{'-' + WORKER if WORKER else ''}.log"


class PortTaken(RuntimeError):
    """The free port found for a server was taken before the server could bind it."""


@dataclass
class StreamlitServer:
    """`streamlit run dashboard/app.py` (or `script`) on a free loopback port, output captured
    to a log file."""

    name: str
    env: dict[str, str] = field(repr=False)  # may hold a token
    log_path: Path
    port: int = 0
    start_timeout_s: float = SERVER_START_TIMEOUT_S
    script: str = "dashboard/app.py"  # relative to the repository (the benchmarks' bare app)
    _process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        """The server's process id (its memory is read from /proc/<pid>)."""
        assert self._process is not None, "the server is not running"
        return self._process.pid

    def start(self, attempts: int = 3) -> StreamlitServer:
        """Start on a free port; retried if another process took the port in the meantime."""
        for attempt in range(1, attempts + 1):
            try:
                return self._start_once()
            except PortTaken:
                if attempt == attempts:
                    raise
        raise AssertionError("unreachable")

    def _start_once(self) -> StreamlitServer:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        command = [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            self.script,
            "--server.headless",
            "true",
            "--server.port",
            str(self.port),
            "--server.address",
            "127.0.0.1",
            "--browser.gatherUsageStats",
            "false",
            "--server.fileWatcherType",
            "none",
        ]
        with self.log_path.open("wb") as log:
            self._process = subprocess.Popen(
                command, cwd=REPO_ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT
            )
        self._wait_until_healthy()
        RUNNING.append(self)
        return self

    def _wait_until_healthy(self) -> None:
        assert self._process is not None
        deadline = time.monotonic() + self.start_timeout_s
        health = f"{self.url}/_stcore/health"
        while True:
            if self._process.poll() is not None:
                if f"Port {self.port} is not available" in self.log():
                    raise PortTaken(self.port)
                raise RuntimeError(
                    f"streamlit ({self.name}) exited with {self._process.returncode} before it "
                    f"was healthy; its log:\n{self.log()[-3000:]}"
                )
            try:
                if httpx.get(health, timeout=2.0).text.strip() == "ok":
                    return
            except httpx.HTTPError:
                pass  # not listening yet
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(
                    f"streamlit ({self.name}) was not healthy within {self.start_timeout_s}s; "
                    f"its log:\n{self.log()[-3000:]}"
                )
            time.sleep(POLL_INTERVAL_S)  # a poll interval between two state checks

    def log_size(self) -> int:
        try:
            return self.log_path.stat().st_size
        except FileNotFoundError:
            return 0

    def log_since(self, offset: int) -> str:
        """What the server logged after `offset` bytes."""
        try:
            with self.log_path.open("rb") as log:
                log.seek(offset)
                return log.read().decode("utf-8", errors="replace")
        except FileNotFoundError:
            return ""

    def log(self) -> str:
        try:
            return self.log_path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return ""

    @property
    def alive(self) -> bool:
        """Whether the server's process runs (a test may have stopped or signalled it)."""
        return self._process is not None and self._process.poll() is None

    def terminate(self) -> None:
        """Send SIGTERM, as a process manager does to stop the dashboard."""
        assert self._process is not None, "the server is not running"
        self._process.terminate()

    def wait_for_exit(self, timeout: float) -> int | None:
        """The exit status once the process has ended, or None if it is still running."""
        assert self._process is not None, "the server was not started"
        try:
            return self._process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def stop(self) -> None:
        if self in RUNNING:
            RUNNING.remove(self)
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=SERVER_STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=SERVER_STOP_TIMEOUT_S)


# Dashboard servers now running, so each test can check what they logged while it ran.
RUNNING: list[StreamlitServer] = []


@dataclass
class Secrets:
    """Credentials that must never reach a page, a URL, a download or the server's log."""

    values: set[str] = field(default_factory=set, repr=False)
    # Recognisable prefixes of the sandbox's fake user_info access tokens (sandbox/auth.py).
    prefixes: tuple[str, ...] = ()

    def add(self, values: Iterable[str]) -> None:
        self.values.update(v for v in values if v)

    def leaks(self, text: str) -> list[str]:
        """What of the secrets appears in `text`, each shortened so a report does not leak it."""
        found = [f"{value[:8]}… (a known credential)" for value in self.values if value in text]
        found += [f"{prefix}… (prefix)" for prefix in self.prefixes if prefix in text]
        return found

    def assert_absent(self, text: str, where: str) -> None:
        leaks = self.leaks(text)
        assert not leaks, f"{where} contains credentials: {', '.join(sorted(leaks))}"
