"""The in-process runner keeps a subprocess's contract: the developer's QA_DASHBOARD_* variables
never reach the command, its folder and output are its own, and nothing of it stays behind."""

from __future__ import annotations

import logging
import os
import signal
import sys
from pathlib import Path

import pytest

from tests.cli.in_process import run_cli


def test_a_command_sees_only_its_own_variables_and_leaves_the_process_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QA_DASHBOARD_TOKEN", "developer-token-never-seen")
    monkeypatch.setenv("QA_DASHBOARD_STORE_URL", "not-a-url")  # would be exit 2 if seen
    here, streams = Path.cwd(), (sys.stdout, sys.stderr, sys.stdin)
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
    root = logging.getLogger().handlers[:]

    done = run_cli(
        ["store", "info"], env={"QA_DASHBOARD_CACHE_DIR": str(tmp_path / "c")}, cwd=tmp_path
    )

    assert done.returncode == 0, done.stderr
    assert "No history stored yet" in done.stdout  # the demo's store, in the given folder
    assert "using the embedded demo sandbox" in done.stderr
    assert os.environ["QA_DASHBOARD_TOKEN"] == "developer-token-never-seen"
    assert "QA_DASHBOARD_CACHE_DIR" not in os.environ
    assert (Path.cwd(), (sys.stdout, sys.stderr, sys.stdin)) == (here, streams)
    assert {sig: signal.getsignal(sig) for sig in handlers} == handlers
    assert logging.getLogger().handlers == root


def test_a_usage_error_is_exit_2_on_stderr_and_help_exit_0_on_stdout(tmp_path: Path) -> None:
    wrong = run_cli(["store", "sync", "--days", "x"], env={}, cwd=tmp_path)
    helped = run_cli(["--help"], env={}, cwd=tmp_path)

    assert (wrong.returncode, wrong.stdout) == (2, "")
    assert wrong.stderr.startswith("usage: python -m dashboard store sync")
    assert (helped.returncode, helped.stderr) == (0, "")
    assert "The QA dashboard's command line." in helped.stdout
