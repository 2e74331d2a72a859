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
from sandbox.routes import executions, logs, oauth, plans, results
from sandbox.settings import SandboxSettings
from sandbox.store import DemoStore
from sandbox.tokens import IssuedTokens

DESCRIPTION = """\
A local implementation of the test-automation service's read API over deterministic demo data.
Authenticate with a demo user's bearer token: `python -m sandbox users` lists them, with the
password and client secret that get an expiring token from `POST /oauth/token`.
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
    app.state.tokens = IssuedTokens(
        token_ttl=settings.token_ttl, refresh_token_ttl=settings.refresh_token_ttl
    )
    app.state.authenticator = Authenticator(demo_users(settings), app.state.tokens)
    matcher = OperationMatcher(api_root)
    install_error_handlers(app, matcher)
    for router in (results.router, executions.router, plans.router):
        app.include_router(router, prefix=api_root)
    app.include_router(logs.router, prefix=settings.path_prefix)
    app.include_router(oauth.router, prefix=settings.path_prefix)
    _document_examples(app, store, demo_users(settings)[0].company_id, settings.path_prefix)
    if settings.faults.enabled:
        app.add_middleware(FaultInjector, faults=settings.faults, matcher=matcher)
    if settings.latency_ms:
        # Added last, so outermost: every API request waits, faulty or not.
        app.add_middleware(LatencyMiddleware, latency_ms=settings.latency_ms, matcher=matcher)
    return app


def _document_examples(app: FastAPI, store: DemoStore, company_id: int, path_prefix: str) -> None:
    """The results operation's ids get an example that exists: the demo login's newest
    execution and its plan's first scenario, so "Try it out" in /docs (and a tool reading the
    document) can reach a real answer, not only 404s. The token endpoint is declared as the
    OAuth2 scheme's `tokenUrl`, so /docs can ask it for a token and a tool knows its 400s
    refuse credentials, not a malformed request."""
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
            token_url = f"{path_prefix}{oauth.TOKEN_PATH}"
            scopes = {oauth.SCOPE: "read the company's plans, executions and results"}
            schemes = document.setdefault("components", {}).setdefault("securitySchemes", {})
            schemes["oauth2"] = {
                "type": "oauth2",
                "description": "Tokens from the token endpoint expire (the sandbox's token_ttl).",
                "flows": {
                    "password": {"tokenUrl": token_url, "scopes": scopes},
                    "clientCredentials": {"tokenUrl": token_url, "scopes": scopes},
                },
            }
            app.openapi_schema = document
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
