"""Absolute URLs the sandbox hands out: page links, `rest_api_url`, and its demo logs.

All start at the same origin (decision 17): `public_base_url` when configured, as a service
behind a proxy would say, else the scheme and Host the request came with, so a link always
leads back to the sandbox that served it.
"""

from __future__ import annotations

from fastapi import Request

from sandbox.settings import SandboxSettings

# Where the demo logs live, below the path prefix (the API is at "/api").
LOG_ROOT = "/storage"


def origin(request: Request, settings: SandboxSettings) -> str:
    return (settings.public_base_url or str(request.base_url)).rstrip("/")


def api_root_url(request: Request, settings: SandboxSettings) -> str:
    """Absolute base of the API, e.g. "http://127.0.0.1:8000/svc/api"."""
    return f"{origin(request, settings)}{settings.path_prefix}/api"


def log_root_url(request: Request, settings: SandboxSettings) -> str:
    """Absolute base of the demo logs, e.g. "http://127.0.0.1:8000/svc/storage"."""
    return f"{origin(request, settings)}{settings.path_prefix}{LOG_ROOT}"
