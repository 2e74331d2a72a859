"""The dashboard in a real browser: `streamlit run dashboard/app.py` pointed at a sandbox child,
and Debian's chromium driven by Playwright, as in `tests/browser/`.

Timings run from the navigation or the click to the moment the app says its script is not
running and the page's content is there (see `tests/browser/screen.py` for why both). Nothing
waits on a fixed delay. The server's process id is kept so its memory can be read from /proc.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from playwright.sync_api import Browser, Page, ViewportSize

from benchmarks.context import DashboardMemory, Run
from benchmarks.measure import CaseResult
from benchmarks.sandbox_process import SandboxProcess
from tests.browser import harness

START_TIMEOUT_S = 90.0
LOOPBACK = ("127.0.0.1", "localhost")
VIEWPORT: ViewportSize = {"width": 1600, "height": 1000}


def chromium() -> str | None:
    return harness.find_chromium()


def chromium_or_skip(run: Run, result: CaseResult) -> str | None:
    """Chromium's path for a browser case; without one the case is marked skipped (None), or,
    where a browser is required (CI), it fails."""
    executable = chromium()
    if executable is None:
        if run.require_browser:
            raise RuntimeError("chromium is required (CI=true): apt-get install chromium")
        result.status = "skipped"
        result.notes.append("no chromium on this machine: apt-get install chromium")
    return executable


# The browser tests' launcher: the same chromium flags, one copy.
launched = harness.launched_chromium


@dataclass
class DashboardServer:
    """One `streamlit run` process (the browser tests' `harness.StreamlitServer`) configured
    through QA_DASHBOARD_* to read `sandbox`, with its history store in `store_dir` (empty: a
    cold store). Its log goes to `log_path`."""

    sandbox: SandboxProcess
    store_dir: Path
    home: Path
    log_path: Path
    server: harness.StreamlitServer | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        assert self.server is not None, "the server is not running"
        return self.server.url

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
        self.server = harness.StreamlitServer(
            "benchmark", env, self.log_path, start_timeout_s=START_TIMEOUT_S
        ).start()
        return self

    @property
    def pid(self) -> int:
        """The `streamlit run` process's id."""
        assert self.server is not None, "the server is not running"
        return self.server.pid

    def memory(self) -> DashboardMemory:
        """The server's peak and current resident set, from /proc/<pid>/status."""
        fields: dict[str, int] = {}
        status = Path(f"/proc/{self.pid}/status").read_text()
        for line in status.splitlines():
            name, _, value = line.partition(":")
            if name in ("VmHWM", "VmRSS"):
                fields[name] = int(value.split()[0]) * 1024  # kB
        return DashboardMemory(peak=fields["VmHWM"], resident=fields["VmRSS"])

    def stop(self) -> None:
        server, self.server = self.server, None
        if server is not None:
            server.stop()


def bare_server(home: Path, log_path: Path, content: Path | None = None) -> harness.StreamlitServer:
    """`streamlit run benchmarks/bare_app.py`, started: Streamlit's own floor beside the
    dashboard (no sidebar, data or configuration), drawing with `?content=NAME` the charts and
    table written to `content / NAME`. The caller stops it."""
    overrides = {"BARE_CONTENT_DIR": str(content)} if content is not None else None
    return harness.StreamlitServer(
        "bare",
        harness.dashboard_env(home, overrides),
        log_path,
        start_timeout_s=START_TIMEOUT_S,
        script="benchmarks/bare_app.py",
    ).start()


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
