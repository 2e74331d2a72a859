"""The sandbox in a child process, for the cases that time a client against it.

A real service runs elsewhere; a sandbox in the benchmark's own process would share its GIL
(and so its CPU) with the client being timed. The child serves through `sandbox.serve_in_thread`
with the run's settings, prints its base URL as one JSON line, and stops when its standard input
closes (the parent exiting, however abruptly, closes it), so no sandbox outlives the suite.

    python -m benchmarks.sandbox_process --executions 100000 --latency-ms 50 \
        --now 2026-11-23T10:00:00+00:00
"""

from __future__ import annotations

import argparse
import json
import os
import selectors
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from sandbox import DemoUser, SandboxSettings, demo_users, serve_in_thread

START_TIMEOUT_S = 180.0  # 117,000 executions build in about 10 s on an idle machine
STOP_TIMEOUT_S = 15.0


@dataclass
class SandboxProcess:
    """A running sandbox child: where it answers and who may log in (the lead is `users[0]`)."""

    settings: SandboxSettings
    base_url: str
    users: list[DemoUser] = field(repr=False)
    process: subprocess.Popen[bytes] = field(repr=False)

    @property
    def lead(self) -> DemoUser:
        return self.users[0]

    def stop(self) -> None:
        process = self.process
        if process.poll() is not None:
            return
        if process.stdin is not None:
            process.stdin.close()  # the child's signal to stop
        try:
            process.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=STOP_TIMEOUT_S)


def start(*, executions: int, latency_ms: int, now: datetime, seed: int = 7) -> SandboxProcess:
    """A sandbox child serving `executions` executions ending at `now`, `latency_ms` per answer."""
    settings = SandboxSettings(seed=seed, executions=executions, now=now, latency_ms=latency_ms)
    command = [
        sys.executable,
        "-m",
        "benchmarks.sandbox_process",
        "--executions",
        str(executions),
        "--latency-ms",
        str(latency_ms),
        "--now",
        now.isoformat(),
        "--seed",
        str(seed),
    ]
    process = subprocess.Popen(  # noqa: S603 - this interpreter and fixed arguments
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        base_url = _read_base_url(process)
    except BaseException:
        process.kill()
        process.wait(timeout=STOP_TIMEOUT_S)
        raise
    return SandboxProcess(settings, base_url, demo_users(settings), process)


def _read_base_url(process: subprocess.Popen[bytes]) -> str:
    """The child's first line, waited for on the pipe (never on a fixed delay)."""
    assert process.stdout is not None
    deadline = time.monotonic() + START_TIMEOUT_S
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise RuntimeError(f"the sandbox did not start within {START_TIMEOUT_S:.0f} s")
            if selector.select(timeout=min(remaining, 1.0)):
                line = process.stdout.readline()
                if not line:
                    raise RuntimeError(f"the sandbox exited with {process.wait()} before serving")
                return str(json.loads(line)["base_url"])
            if process.poll() is not None:
                raise RuntimeError(f"the sandbox exited with {process.returncode} before serving")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.sandbox_process")
    parser.add_argument("--executions", type=int, required=True)
    parser.add_argument("--latency-ms", type=int, default=0)
    parser.add_argument("--now", type=datetime.fromisoformat, required=True)
    parser.add_argument("--seed", type=int, default=SandboxSettings.seed)
    args = parser.parse_args(argv)
    settings = SandboxSettings(
        seed=args.seed, executions=args.executions, now=args.now, latency_ms=args.latency_ms
    )
    with serve_in_thread(settings, host="127.0.0.1", port=0) as running:
        print(json.dumps({"base_url": running.base_url}), flush=True)
        sys.stdin.buffer.read()  # until the parent closes the pipe or exits
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
