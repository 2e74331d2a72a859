"""Another process holding a store file open (and its write lock): `tests.store.sync_driver
hold`, started and waited on until it says it holds the file. Shared by the store's process
tests and the page test of a store that cannot be opened."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


@contextmanager
def holding(store: Path) -> Iterator[subprocess.Popen[str]]:
    """The holding process, once it holds `store`; it lets go when a line reaches its standard
    input, and is killed on the way out if it still runs."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.store.sync_driver", "hold", str(store)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        cwd=REPO,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline().strip()
        assert line == "holding", process.stderr.read() if process.stderr else line
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate()  # it was let go or killed; pytest-timeout ends a hang
