"""What the cases of one run share: the size, the run's clock, its sandboxes and demo data, a
scratch folder, and what one case leaves for another (the dashboard's memory after the pages).

Sandboxes and demo databases are made on first use and kept for the run, so two cases over
the same data pay for it once; `close()` stops every child process the run started.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from benchmarks import sandbox_process
from benchmarks.sandbox_process import SandboxProcess
from benchmarks.sizes import Size
from sandbox import SandboxSettings
from sandbox.store import DemoStore

REPO_ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = REPO_ROOT / "artifacts" / "benchmarks"


def run_clock() -> datetime:
    """The sandboxes' "now": the wall clock, to the hour. The dashboard counts its presets
    ("90 d", "since the last standup", plan health's 30 days) back from the wall clock when it
    talks to a configured service, so the demo data must end now for those views to hold it."""
    return datetime.now(UTC).replace(minute=0, second=0, microsecond=0)


@dataclass
class DashboardMemory:
    """The dashboard process's memory after the browser case's views, in bytes."""

    peak: int  # VmHWM: the high-water mark of its resident set
    resident: int  # VmRSS when read


@dataclass
class Run:
    size: Size
    now: datetime = field(default_factory=run_clock)
    artifacts: Path = ARTIFACTS
    require_browser: bool = False  # CI: no chromium is an error, not a skip
    scratch: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="qa-bench-")))
    dashboard_memory: list[DashboardMemory] = field(default_factory=list)
    browser_views_tried: bool = False  # case 4 ran (or failed) in this run
    filled_stores: dict[int, tuple[Path, int]] = field(default_factory=dict)  # cases 9 and 10
    _sandboxes: dict[tuple[int, int], SandboxProcess] = field(default_factory=dict)
    _demo: dict[int, DemoStore] = field(default_factory=dict)

    def repeats(self, *, slow: bool = False) -> int:
        return self.size.slow_repeats if slow else self.size.repeats

    def sandbox(self, *, executions: int, latency_ms: int = 0) -> SandboxProcess:
        """A sandbox child with this data and latency (started once per run)."""
        key = (executions, latency_ms)
        if key not in self._sandboxes:
            self._sandboxes[key] = sandbox_process.start(
                executions=executions, latency_ms=latency_ms, now=self.now
            )
        return self._sandboxes[key]

    def demo(self, executions: int) -> DemoStore:
        """The sandbox's demo database in this process, for cases that need records in bulk
        without one HTTP request per execution-and-scenario pair."""
        if executions not in self._demo:
            settings = SandboxSettings(executions=executions, now=self.now)
            self._demo[executions] = DemoStore.open(settings)
        return self._demo[executions]

    def folder(self, name: str) -> Path:
        """A fresh scratch folder (removed by `close`)."""
        path = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=self.scratch))
        return path

    def close(self) -> None:
        for running in self._sandboxes.values():
            running.stop()
        self._sandboxes.clear()
        for demo in self._demo.values():
            demo.close()
        self._demo.clear()
        shutil.rmtree(self.scratch, ignore_errors=True)
