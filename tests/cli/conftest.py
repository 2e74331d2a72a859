"""Fixtures of the command-line tests: the CLI in a folder of its own, run in the test's process
(`cli`, `tests.cli.in_process`) or, where the process itself is the point, as a real
`python -m dashboard` subprocess (`cli_process`)."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.cli.in_process import run_cli
from tests.cli.plan_service import PlanService, serve_plan, service_env
from tests.cli.webhook import Receiver, webhook

REPO = Path(__file__).resolve().parents[2]
Cli = Callable[..., subprocess.CompletedProcess[str]]


def cli_env(cache: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a CLI process: no QA_DASHBOARD_* of the developer's, its own cache."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("QA_DASHBOARD_")}
    env["QA_DASHBOARD_CACHE_DIR"] = str(cache)
    env["PYTHONPATH"] = str(REPO)
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra or {})
    return env


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    return tmp_path / "cache"


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    folder = tmp_path / "work"  # no .streamlit/secrets.toml here
    folder.mkdir()
    return folder


@pytest.fixture
def cli(cache: Path, workdir: Path) -> Cli:
    """`python -m dashboard ...` in this process, as a subprocess would run it (its own
    QA_DASHBOARD_* variables, folder, output and exit code): seconds of start-up saved a call."""

    def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return run_cli(args, env=cli_env(cache, env), cwd=workdir)

    return run


@pytest.fixture
def cli_process(cache: Path, workdir: Path) -> Cli:
    """`python -m dashboard ...` as a real subprocess: for what only a process shows."""

    def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "dashboard", *args],
            capture_output=True,
            text=True,
            env=cli_env(cache, env),
            cwd=workdir,
            timeout=300,
            check=False,
        )

    return run


@pytest.fixture
def service() -> Iterator[PlanService]:
    """The hand-built plan service of the gate's and the alerts' tests, on loopback."""
    with serve_plan() as running:
        yield running


@pytest.fixture
def env(service: PlanService, tmp_path: Path) -> dict[str, str]:
    """A command's environment pointed at `service`, with a store folder of the test's own."""
    return {**service_env(service), "QA_DASHBOARD_CACHE_DIR": str(tmp_path / "stores")}


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with webhook() as running:
        yield running


@pytest.fixture(autouse=True)
def uvicorn_logging_restored() -> Iterator[None]:
    """Put uvicorn's loggers back as they were: opening the dashboard in AppTest (the digest's
    links) configures them, which would change what later tests' log captures see."""
    names = ("uvicorn", "uvicorn.access", "uvicorn.error")
    saved = {
        n: (
            logging.getLogger(n).level,
            logging.getLogger(n).propagate,
            logging.getLogger(n).handlers[:],
        )
        for n in names
    }
    yield
    for name, (level, propagate, handlers) in saved.items():
        logger = logging.getLogger(name)
        logger.setLevel(level)
        logger.propagate = propagate
        logger.handlers[:] = handlers


# The dashboard's AppTest factory, to open the digest's links on the pages they name.
from tests.dashboard.conftest import app  # noqa: E402, F401
