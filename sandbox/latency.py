"""A fixed delay before every API response, as a far-away service would have.

The benchmark suite measures how well a client hides latency (pages in flight, the floor of
`ceil(pages / concurrency) x latency`), which needs a service that is slow in a known way. A
plain ASGI middleware that sleeps without blocking the event loop, so concurrent requests wait
side by side, as they would on a real network. Only the three operations are delayed; the
OpenAPI document, /docs and the demo logs answer at once.
"""

from __future__ import annotations

import asyncio

from starlette.types import ASGIApp, Receive, Scope, Send

from sandbox.operations import OperationMatcher


class LatencyMiddleware:
    def __init__(self, app: ASGIApp, *, latency_ms: int, matcher: OperationMatcher) -> None:
        self._app = app
        self._seconds = latency_ms / 1000
        self._matcher = matcher

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self._matcher.match(scope["path"]) is not None:
            await asyncio.sleep(self._seconds)
        await self._app(scope, receive, send)
