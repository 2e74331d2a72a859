"""The embedded demo: the sandbox service on a loopback port, and its full-authority login.

With nothing configured the dashboard starts the sandbox in a background thread and talks to it
over real HTTP through `api_client`, the same code path a real service uses. Call `start()` once
per process: `dashboard.cache.demo_service` wraps it in `st.cache_resource`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from pydantic import SecretStr

from dashboard.data.connection import Connection
from dashboard.data.settings import MAX_DEMO_EXECUTIONS, process_environment

if TYPE_CHECKING:
    from sandbox import RunningSandbox, SandboxSettings


# How many executions the demo holds (`make demo N=100000`); the sandbox's default when unset.
ENV_DEMO_EXECUTIONS = "QA_DASHBOARD_DEMO_EXECUTIONS"
DEFAULT_DEMO_EXECUTIONS = 300
"""The sandbox's default size (`SandboxSettings.executions`, a test keeps them equal): the demo
of this size is the one started without QA_DASHBOARD_DEMO_EXECUTIONS."""


def demo_executions(environ: Mapping[str, str] | None = None) -> int | None:
    """The demo's size from QA_DASHBOARD_DEMO_EXECUTIONS, or None for the sandbox's default.

    Raises ValueError with a clear message for anything but a whole number in 0..1,000,000."""
    keys, errors = process_environment(os.environ if environ is None else environ)
    if any(error["loc"][0] == "demo_executions" for error in errors):
        raise ValueError(
            f"{ENV_DEMO_EXECUTIONS} must be a whole number of executions from 0 to "
            f"{MAX_DEMO_EXECUTIONS:,}"
        )
    return keys.demo_executions


def data_set(environ: Mapping[str, str] | None = None) -> str | None:
    """Which demo data set the environment asks for, as the history store names it: None for
    the default size (its store keeps the name it always had), else "executions=N". The two
    sizes are different data (other executions under the same ids), so each keeps its own
    store and its own marks. Raises ValueError as `demo_executions` does."""
    size = demo_executions(environ)
    return None if size in (None, DEFAULT_DEMO_EXECUTIONS) else f"executions={size}"


def now_of(connection: Connection) -> datetime:
    """The time a connection's data is read at: the demo's own clock (the sandbox's "now", the
    end of its data), else the wall clock. The page (`ui.session.now`) and the CLI use it, so
    both give a mark the same state and accept the same expiry."""
    return connection.clock or datetime.now(UTC)


def login(
    base_url: str,
    settings: SandboxSettings | None = None,
    environ: Mapping[str, str] | None = None,
) -> Connection:
    """The demo's full-authority login of company 1 at `base_url`, with the demo's clock; the
    same connection whether or not the sandbox is running (`start` serves it). Its size comes
    from `settings`, else from `environ` (the process's environment when None)."""
    # Imported here: the sandbox (FastAPI, uvicorn, SQLite) is only needed for the demo.
    from sandbox import demo_users

    settings = settings or _settings(environ)
    user = demo_users(settings)[0]  # the full-authority user of company 1
    return Connection(
        base_url=base_url,
        token=SecretStr(user.token),
        company_id=user.company_id,
        email=user.email,
        source="demo",
        clock=settings.now,
    )


def _settings(environ: Mapping[str, str] | None = None) -> SandboxSettings:
    from sandbox import SandboxSettings

    size = demo_executions(environ)
    return SandboxSettings() if size is None else SandboxSettings(executions=size)


@dataclass(frozen=True)
class DemoService:
    connection: Connection
    server: RunningSandbox = field(repr=False)  # `.stop()` ends it


def start(environ: Mapping[str, str] | None = None) -> DemoService:
    """Start the sandbox on a free loopback port and return how to connect to it: of the size
    `environ` asks for (the process's environment when None), as its store is named."""
    # Imported here: the sandbox (FastAPI, uvicorn, SQLite) is only needed for the demo.
    from sandbox import serve_in_thread

    settings = _settings(environ)
    server = serve_in_thread(settings, host="127.0.0.1", port=0)
    return DemoService(connection=login(server.base_url, settings), server=server)
