"""The command line ends quietly when its reader goes away (`known export | head`), with the
conventional 141 (128 + SIGPIPE) and no traceback, whichever command was writing: real
subprocesses against the sandbox over HTTP."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dashboard.cli import main
from dashboard.cli.common import BROKEN_PIPE, STORE
from dashboard.data.store.errors import StoreError
from sandbox import RunningSandbox
from tests.store.conftest import lead_of


def _environment(cache: Path, running: RunningSandbox) -> dict[str, str]:
    lead = lead_of(running)
    env = {k: v for k, v in os.environ.items() if not k.startswith("QA_DASHBOARD_")}
    env.update(
        QA_DASHBOARD_CACHE_DIR=str(cache),
        QA_DASHBOARD_BASE_URL=running.base_url,
        QA_DASHBOARD_TOKEN=lead.token,
        QA_DASHBOARD_COMPANY_ID=str(lead.company_id),
    )
    return env


@pytest.mark.parametrize(
    "command",
    [
        ("known", "export"),
        ("known", "export", "--format", "csv"),
        ("known", "list"),
        ("store", "info"),
    ],
)
def test_a_reader_that_closes_early_ends_the_command_quietly(
    command: tuple[str, ...], tmp_path: Path, live_sandbox: RunningSandbox
) -> None:
    env = _environment(tmp_path / "cache", live_sandbox)
    with subprocess.Popen(
        [sys.executable, "-m", "dashboard", *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=tmp_path,
    ) as process:
        assert process.stdout is not None
        assert process.stderr is not None
        process.stdout.close()  # `| head -0`: the reader is gone before a byte is written
        error = process.stderr.read().decode()
        code = process.wait(timeout=300)

    assert code == BROKEN_PIPE == 141, error
    assert "Traceback" not in error
    assert "BrokenPipeError" not in error
    assert "Exception ignored" not in error


def test_a_store_error_any_command_lets_through_is_exit_4_in_one_sentence(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The one place every command passes: a `StoreError` a command did not word itself is
    still exit 4 (for the gate, "the store cannot be used", never "fail") and its sentence."""
    from dashboard.cli import known

    def failing(args: object, env: object) -> int:
        raise StoreError("The history store /x/h.duckdb cannot be used: IO Error.", location="/x")

    monkeypatch.setattr(known, "run_list", failing)
    code = main(["known", "list"], env={})

    assert code == STORE
    assert capsys.readouterr().err == (
        "error: The history store /x/h.duckdb cannot be used: IO Error.\n"
    )


def test_the_command_line_still_imports_nothing_heavy() -> None:
    """A usage error answers at once: the entry point's safety nets load no store."""
    code = "import sys, dashboard.cli; print('pandas' in sys.modules, 'duckdb' in sys.modules)"
    shown = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert shown.stdout.strip() == "False False"
