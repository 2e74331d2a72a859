"""The embedded demo: the sandbox service on a loopback port, and its full-authority login.

With nothing configured the dashboard starts the sandbox in a background thread and talks to it
over real HTTP through `api_client`, the same code path a real service uses. Call `start()` once
per process: `dashboard.cache.demo_service` wraps it in `st.cache_resource`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pydantic import SecretStr

from dashboard.data.connection import Connection

if TYPE_CHECKING:
    from sandbox import RunningSandbox


# How many executions the demo holds (`make demo N=100000`); the sandbox's default when unset.
ENV_DEMO_EXECUTIONS = "QA_DASHBOARD_DEMO_EXECUTIONS"
MAX_DEMO_EXECUTIONS = 1_000_000


def demo_executions(environ: Mapping[str, str] | None = None) -> int | None:
    """The demo's size from QA_DASHBOARD_DEMO_EXECUTIONS, or None for the sandbox's default.

    Raises ValueError with a clear message for anything but a whole number in 0..1,000,000."""
    raw = (os.environ if environ is None else environ).get(ENV_DEMO_EXECUTIONS, "").strip()
    if not raw:
        return None
    if not (raw.isascii() and raw.isdigit()) or int(raw) > MAX_DEMO_EXECUTIONS:
        raise ValueError(
            f"{ENV_DEMO_EXECUTIONS} must be a whole number of executions from 0 to "
            f"{MAX_DEMO_EXECUTIONS:,}"
        )
    return int(raw)


@dataclass(frozen=True)
class DemoService:
    connection: Connection
    server: RunningSandbox = field(repr=False)  # `.stop()` ends it


def start() -> DemoService:
    """Start the sandbox on a free loopback port and return how to connect to it."""
    # Imported here: the sandbox (FastAPI, uvicorn, SQLite) is only needed for the demo.
    from sandbox import SandboxSettings, demo_users, serve_in_thread

    size = demo_executions()
    settings = SandboxSettings() if size is None else SandboxSettings(executions=size)
    server = serve_in_thread(settings, host="127.0.0.1", port=0)
    login = demo_users(settings)[0]  # the full-authority user of company 1
    connection = Connection(
        base_url=server.base_url,
        token=SecretStr(login.token),
        company_id=login.company_id,
        email=login.email,
        source="demo",
        clock=settings.now,
    )
    return DemoService(connection=connection, server=server)
