"""The dashboard in a real browser: `streamlit run dashboard/app.py` pointed at a sandbox child,
and Debian's chromium driven by Playwright, as in `tests/browser/`.

Timings run from the navigation or the click to the moment the app says its script is not
running and the page's content is there (see `tests/browser/screen.py` for why both). Nothing
waits on a fixed delay. The server's process id is kept so its memory can be read from /proc.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
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
        return process_memory(self.pid)

    def stop(self) -> None:
        server, self.server = self.server, None
        if server is not None:
            server.stop()


@contextmanager
def serving(
    run: Run, sandbox: SandboxProcess, case: str, tag: str, filled: Path | None = None
) -> Iterator[DashboardServer]:
    """A fresh `streamlit run` over `sandbox` for one run of a case, stopped on leaving: its
    store a copy of `filled` (nothing a run adds is kept for the next), or empty (a cold store);
    its log `streamlit-CASE-SIZE-TAG.log` among the artifacts."""
    store_dir = run.folder(f"{case}-store")
    if filled is not None:
        shutil.copytree(filled, store_dir, dirs_exist_ok=True)
    server = DashboardServer(
        sandbox,
        store_dir=store_dir,
        home=run.folder(f"{case}-home"),
        log_path=run.artifacts / f"streamlit-{case}-{run.size.name}-{tag}.log",
    ).start()
    try:
        yield server
    finally:
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


# When the page first reached its settled state (`cases/pages.py`'s predicate: connected, the
# script not running, nothing stale, the title and content drawn), in ms from the navigation's
# start, polled in the page itself: several pages opened at once are each timed to their own
# moment, not to when this process got round to asking.
SETTLED_AT_JS = """
(() => {{
  const ready = {predicate};
  const args = {args};
  window.__settledAt = null;
  const timer = setInterval(() => {{
    if (window.__settledAt === null && ready(args)) {{
      window.__settledAt = performance.now();
      clearInterval(timer);
    }}
  }}, {poll_ms});
}})();
"""


def settled_at_script(predicate: str, args: dict[str, object], poll_ms: int) -> str:
    """An init script recording `window.__settledAt` once `predicate(args)` holds."""
    return SETTLED_AT_JS.format(predicate=predicate.strip(), args=json.dumps(args), poll_ms=poll_ms)


def open_at_once(
    browser: Browser, openings: Sequence[tuple[str, str]], timeout_ms: float
) -> list[float]:
    """Seconds each of `openings` ((url, its settled-at init script)) took to settle, all
    opened at once, each in a fresh context (a new app session, as another viewer): every
    navigation is started before any is waited on, and each is timed in its own page from its
    navigation's start."""
    with ExitStack() as stack:
        opened = [stack.enter_context(new_page(browser, script)) for _, script in openings]
        for page, (url, _) in zip(opened, openings, strict=True):
            page.goto(url, wait_until="commit", timeout=timeout_ms)
        settled = []
        for page in opened:
            page.wait_for_function(
                "() => window.__settledAt !== null", polling=100, timeout=timeout_ms
            )
            settled.append(float(page.evaluate("() => window.__settledAt")) / 1000)
        return settled


class MemorySampler:
    """A thread reading a process's resident set (`VmRSS` in /proc/<pid>/status) every
    `every_s`, keeping the highest seen under the label `phase` named when it was read."""

    def __init__(self, pid: int, every_s: float = 0.05) -> None:
        self.pid = pid
        self.every_s = every_s
        self.phase = "start"
        self.peaks: dict[str, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, name="rss-sampler", daemon=True)

    def __enter__(self) -> MemorySampler:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    def _sample(self) -> None:
        while not self._stop.is_set():
            try:
                resident = process_memory(self.pid).resident
            except (OSError, KeyError):  # the process has gone
                return
            phase = self.phase
            self.peaks[phase] = max(self.peaks.get(phase, 0), resident)
            self._stop.wait(self.every_s)

    @property
    def peak(self) -> tuple[str, int]:
        """The phase with the highest resident set seen, and it (bytes)."""
        return max(self.peaks.items(), key=lambda item: item[1])


def process_memory(pid: int) -> DashboardMemory:
    """A process's peak and current resident set, from /proc/<pid>/status."""
    fields: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmHWM", "VmRSS"):
            fields[name] = int(value.split()[0]) * 1024  # kB
    return DashboardMemory(peak=fields["VmHWM"], resident=fields["VmRSS"])


def cpu_seconds(pid: int) -> float:
    """The CPU time (user and system) process `pid` has used so far, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def browser_cpu_seconds() -> float:
    """The CPU time this process's chromium has used so far: every chromium process under this
    one (the browser, its renderers and helpers), with what its exited children used (a closed
    tab's renderer is counted by its parent once reaped). Another process's chromium is not."""
    parents: dict[int, int] = {}
    stats: dict[int, list[str]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            text = (entry / "stat").read_text()
        except OSError:  # exited meanwhile
            continue
        name, rest = text.split("(", 1)[1].rsplit(")", 1)
        fields = rest.split()
        parents[int(entry.name)] = int(fields[1])
        if name.startswith("chrom"):
            stats[int(entry.name)] = fields
    mine = os.getpid()

    def under_me(pid: int) -> bool:
        while pid > 1:
            pid = parents.get(pid, 0)
            if pid == mine:
                return True
        return False

    # utime, stime, cutime and cstime (fields 14-17 of proc(5), counted after the name)
    ticks = sum(sum(map(int, fields[11:15])) for pid, fields in stats.items() if under_me(pid))
    return ticks / os.sysconf("SC_CLK_TCK")
