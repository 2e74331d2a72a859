"""The embedded demo: the sandbox service on a loopback port, and its full-authority login.

With nothing configured the dashboard starts the sandbox in a background thread and talks to it
over real HTTP through `api_client`, the same code path a real service uses. Call `start()` once
per process: `dashboard.cache.demo_service` wraps it in `st.cache_resource`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pydantic import SecretStr

from dashboard.data.connection import Connection

if TYPE_CHECKING:
    from sandbox import RunningSandbox


@dataclass(frozen=True)
class DemoService:
    connection: Connection
    server: RunningSandbox = field(repr=False)  # `.stop()` ends it


def start() -> DemoService:
    """Start the sandbox on a free loopback port and return how to connect to it."""
    # Imported here: the sandbox (FastAPI, uvicorn, SQLite) is only needed for the demo.
    from sandbox import SandboxSettings, demo_users, serve_in_thread

    settings = SandboxSettings()
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
