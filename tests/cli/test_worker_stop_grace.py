"""A stop ends the worker even when something on the way swallows it (`worker.Stop`'s grace).

`Stopped` is raised wherever the worker's main thread is when SIGTERM or SIGINT arrives; code
that catches it there (a library's `except BaseException`) would leave the process waiting on
held requests for a minute each. Past the grace the process ends all the same, saying so. A real
process, a real signal; the guard against a hang is generous, the grace short."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
SWALLOWS_EVERY_STOP = textwrap.dedent(
    """
    import time
    from dashboard.cli.worker import Stop, Stopped

    with Stop.installed(grace=1.0) as stop:
        print("ready", flush=True)
        while True:
            try:
                with stop.in_pass():
                    time.sleep(0.05)
            except Stopped:
                pass  # what a library on the way that catches BaseException would do
    """
)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_stop_swallowed_on_the_way_still_ends_the_process_after_the_grace(sig: int) -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", SWALLOWS_EVERY_STOP],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == "ready"
        process.send_signal(sig)
        output, _ = process.communicate(timeout=60)  # a guard against a hang, not a measure
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()

    assert process.returncode == 130, output
    name = signal.Signals(sig).name
    assert f"worker stopped by {name}: the pass did not end within 1 s" in output, output
