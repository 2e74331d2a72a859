"""The sync worker as a real process whose output lines are read as they come."""

from __future__ import annotations

import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path


class Worker:
    """A worker process whose output lines are read as they come."""

    def __init__(self, args: list[str], env: dict[str, str], cwd: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "dashboard", "store", "sync", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
            cwd=cwd,
        )
        self.lines: list[str] = []
        self._drained = False
        self._queue: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        with self.process.stdout:
            for line in self.process.stdout:
                self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def wait_for(self, text: str, *, count: int = 1, timeout: float = 120.0) -> list[str]:
        """Read lines until `count` of them contain `text`; fail at the deadline."""
        deadline = time.monotonic() + timeout
        while sum(text in line for line in self.lines) < count:
            try:
                line = self._queue.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                line = ""
            if line is None:
                raise AssertionError(f"worker ended before {text!r}:\n" + "\n".join(self.lines))
            self.lines.append(line)
            if time.monotonic() > deadline:
                raise AssertionError(f"no {text!r} within {timeout} s:\n" + "\n".join(self.lines))
        return [line for line in self.lines if text in line]

    def stop(self, sig: int = signal.SIGTERM) -> tuple[int, float]:
        """Send `sig`; the exit code and how long it took to end."""
        began = time.monotonic()
        self.process.send_signal(sig)
        try:
            code = self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            while not self._queue.empty() and (line := self._queue.get()) is not None:
                self.lines.append(line)
            raise AssertionError(
                f"the worker did not end within 60 s of {signal.Signals(sig).name}:\n"
                + "\n".join(self.lines)
            ) from None
        took = time.monotonic() - began
        while (line := self._queue.get(timeout=10)) is not None:
            self.lines.append(line)
        self._drained = True
        return code, took

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        while not self._drained and self._queue.get(timeout=10) is not None:
            pass  # until the reader has closed the pipe
