"""What the numbers were measured on: enough to tell two runs' machines apart, and how busy
this one was (its load average before and after: the machine is shared)."""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchmarks.context import REPO_ROOT


def describe() -> dict[str, Any]:
    return {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "memory_gb": round(_memory_bytes() / 1e9, 1),
        "os": platform.platform(),
        "python": platform.python_version(),
        "chromium": _chromium_version(),
        "commit": _git("rev-parse", "--short", "HEAD"),
        "dirty": bool(_git("status", "--porcelain")),
        "load_average_before": _load(),
    }


def load_average() -> list[float]:
    return _load()


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _memory_bytes() -> int:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _load() -> list[float]:
    try:
        return [round(value, 2) for value in os.getloadavg()]
    except OSError:
        return []


def _chromium_version() -> str | None:
    found = shutil.which("chromium")
    if found is None:
        return None
    try:
        done = subprocess.run(  # noqa: S603 - a fixed command, no user input
            [found, "--version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() or None


def _git(*args: str) -> str:
    try:
        done = subprocess.run(  # noqa: S603 - a fixed command, no user input
            ["git", *args],  # noqa: S607 - git from PATH, as a developer runs it
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.strip()
