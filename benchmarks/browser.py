"""The dashboard in a real browser: `streamlit run dashboard/app.py` pointed at a sandbox child,
and Debian's chromium driven by Playwright, as in `tests/browser/`.

Timings run from the navigation or the click to the moment the app says its script is not
running and the page's content is there (see `tests/browser/screen.py` for why both). Nothing
waits on a fixed delay. The server's process id is kept so its memory can be read from /proc.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import httpx
from playwright.sync_api import Browser, Page, ViewportSize, sync_playwright

from benchmarks.context import REPO_ROOT, DashboardMemory
from benchmarks.sandbox_process import SandboxProcess
from tests.browser import harness

START_TIMEOUT_S = 90.0
STOP_TIMEOUT_S = 15.0
LOOPBACK = ("127.0.0.1", "localhost")
VIEWPORT: ViewportSize = {"width": 1600, "height": 1000}


def chromium() -> str | None:
    return harness.find_chromium()


@dataclass
class DashboardServer:
    """One `streamlit run` process configured through QA_DASHBOARD_* to read `sandbox`, with its
    history store in `store_dir` (empty: a cold store). Its log goes to `log_path`."""

    sandbox: SandboxProcess
    store_dir: Path
    home: Path
    log_path: Path
    port: int = 0
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> DashboardServer:
        lead = self.sandbox.lead
        env = harness.dashboard_env(
            self.home,
            {
                "QA_DASHBOARD_BASE_URL": self.sandbox.base_url,
                "QA_DASHBOARD_TOKEN": lead.token,
                "QA_DASHBOARD_COMPANY_ID": str(lead.company_id),
                "QA_DASHBOARD_EMAIL": lead.email,
                "QA_DASHBOARD_CACHE_DIR": str(self.store_dir),
            },
        )
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self.port = harness.free_port()
        command = [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            "dashboard/app.py",
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
            self.process = subprocess.Popen(  # noqa: S603 - this interpreter, fixed arguments
                command, cwd=REPO_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
            )
        self._wait_until_healthy()
        return self

    def _wait_until_healthy(self) -> None:
        assert self.process is not None
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"streamlit exited with {self.process.returncode}; see {self.log_path}"
                )
            try:
                if httpx.get(f"{self.url}/_stcore/health", timeout=2.0).text.strip() == "ok":
                    return
            except httpx.HTTPError:
                pass  # not listening yet
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"streamlit was not healthy within {START_TIMEOUT_S:.0f} s")
            time.sleep(0.1)  # a poll interval between two state checks

    def memory(self) -> DashboardMemory:
        """The server's peak and current resident set, from /proc/<pid>/status."""
        assert self.process is not None
        fields: dict[str, int] = {}
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        for line in status.splitlines():
            name, _, value = line.partition(":")
            if name in ("VmHWM", "VmRSS"):
                fields[name] = int(value.split()[0]) * 1024  # kB
        return DashboardMemory(peak=fields["VmHWM"], resident=fields["VmRSS"])

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=STOP_TIMEOUT_S)


@contextmanager
def launched(executable: str) -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable, headless=True, args=list(harness.CHROMIUM_ARGS)
        )
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def new_page(browser: Browser, init_script: str | None = None) -> Iterator[Page]:
    """A page in a fresh context (no cookies, a new app session); nothing leaves loopback.
    `init_script` runs in every document before the page's own scripts."""
    context = browser.new_context(viewport=VIEWPORT, timezone_id="UTC", locale="en-GB")
    if init_script:
        context.add_init_script(init_script)
    context.route(lambda url: urlsplit(url).hostname not in LOOPBACK, lambda r: r.abort())
    try:
        yield context.new_page()
    finally:
        context.close()
