"""The app factory: one FastAPI app per settings, holding its own demo database."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI

from sandbox.auth import Authenticator, demo_users
from sandbox.errors import install_error_handlers
from sandbox.faults import FaultInjector
from sandbox.latency import LatencyMiddleware
from sandbox.operations import OperationMatcher
from sandbox.routes import executions, logs, plans, results
from sandbox.settings import SandboxSettings
from sandbox.store import DemoStore

DESCRIPTION = """\
A local implementation of the test-automation service's read API over deterministic demo data.
Authenticate with a demo user's bearer token: `python -m sandbox users` lists them.
"""


def create_app(settings: SandboxSettings | None = None) -> FastAPI:
    """Builds the demo database (in the calling thread, so failures surface here) and the app."""
    settings = settings or SandboxSettings()
    api_root = f"{settings.path_prefix}/api"
    store = DemoStore.open(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        store.close()

    app = FastAPI(
        title="Test automation read API (sandbox)",
        description=DESCRIPTION,
        version="1.0.0",
        openapi_url=f"{settings.path_prefix}/openapi.json",
        docs_url=f"{settings.path_prefix}/docs",
        redoc_url=None,
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.store = store
    app.state.authenticator = Authenticator(demo_users(settings))
    matcher = OperationMatcher(api_root)
    install_error_handlers(app, matcher)
    for router in (results.router, executions.router, plans.router):
        app.include_router(router, prefix=api_root)
    app.include_router(logs.router, prefix=settings.path_prefix)
    _document_examples(app, store, demo_users(settings)[0].company_id)
    if settings.faults.enabled:
        app.add_middleware(FaultInjector, faults=settings.faults, matcher=matcher)
    if settings.latency_ms:
        # Added last, so outermost: every API request waits, faulty or not.
        app.add_middleware(LatencyMiddleware, latency_ms=settings.latency_ms, matcher=matcher)
    return app


def _document_examples(app: FastAPI, store: DemoStore, company_id: int) -> None:
    """The results operation's ids get an example that exists: the demo login's newest
    execution and its plan's first scenario, so "Try it out" in /docs (and a tool reading the
    document) can reach a real answer, not only 404s."""
    default_openapi = app.openapi
    example = store.example_result_ids(company_id)

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = default_openapi()
            if example is not None:
                for path in document["paths"].values():
                    for parameter in path.get("get", {}).get("parameters", []):
                        if parameter["in"] == "path" and parameter["name"] in example:
                            parameter["example"] = example[parameter["name"]]
            app.openapi_schema = document
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
