"""The sync worker as a real process whose output lines are read as they come.

Its waits have no deadline of their own (a loaded machine misses any guess): a wait for a line
ends when the line comes or when the worker's output ends (it exited), and a hang is ended by
pytest-timeout's per-test limit.
"""

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

    def wait_for(self, text: str, *, count: int = 1) -> list[str]:
        """Read lines until `count` of them contain `text`; fail, with them, if output ends."""
        while sum(text in line for line in self.lines) < count:
            line = self._queue.get()  # the next line, or None once the worker's output ended
            if line is None:
                self._drained = True
                raise AssertionError(f"worker ended before {text!r}:\n" + "\n".join(self.lines))
            self.lines.append(line)
        return [line for line in self.lines if text in line]

    def output(self) -> str:
        """The lines so far, with those that came and were not read yet (a failure's evidence)."""
        while not self._drained:
            try:
                line = self._queue.get_nowait()
            except queue.Empty:
                break
            if line is None:
                self._drained = True
            else:
                self.lines.append(line)
        return "\n".join(self.lines)

    def stop(self, sig: int = signal.SIGTERM) -> tuple[int, float]:
        """Send `sig`; the exit code and how long it took to end (the tests bound it
        generously). A worker that never ends is ended by pytest-timeout."""
        began = time.monotonic()
        self.process.send_signal(sig)
        code = self.process.wait()
        took = time.monotonic() - began
        while not self._drained and (line := self._queue.get()) is not None:
            self.lines.append(line)
        self._drained = True
        return code, took

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        while not self._drained and self._queue.get() is not None:
            pass  # until the reader has closed the pipe
        self._drained = True
