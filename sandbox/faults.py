"""Fault injection: makes a share of API requests misbehave the way real networks and services do.

A plain ASGI middleware (not Starlette's BaseHTTPMiddleware) so it can delay without blocking
the event loop, answer in place of the app, and cut a response body half-way. It only touches
requests to the three operations; /openapi.json and /docs always work. Every injected response
carries an `X-Sandbox-Fault` header naming the fault, to make test failures easy to read.
"""

from __future__ import annotations

import asyncio
import json
import random
import threading
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sandbox.errors import error_body
from sandbox.operations import RULES, Operation, OperationMatcher
from sandbox.settings import FaultSettings

FAULT_HEADER = b"x-sandbox-fault"

# A gateway's own error pages are HTML, not the service's JSON: clients must cope with both.
GATEWAY_PAGE = (
    "<html><head><title>{status} {reason}</title></head><body><h1>{reason}</h1></body></html>"
)
GATEWAY_REASONS = {502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout"}


class Damage(StrEnum):
    """Ways a response the app produced is spoiled on its way out."""

    DROP = "dropped-connection"  # headers and half the body, then the connection closes
    TRUNCATE = "truncated-body"  # a complete HTTP message whose JSON body stops half-way
    MALFORM = "malformed-record"  # valid JSON with one record's field of the wrong type


@dataclass(frozen=True)
class FaultDecision:
    slow: bool
    rate_limited: bool
    error_status: int | None
    damage: Damage | None
    # Chooses which record, and which of its fields, a MALFORM spoils.
    pick: float


class FaultPlanner:
    """Decides each request's faults from one seeded generator, in the order requests arrive.

    Every request consumes the same number of draws whatever is decided, so a sequential
    client meets the same faults on every run with the same seed.
    """

    def __init__(self, faults: FaultSettings) -> None:
        self._faults = faults
        self._rng = random.Random(faults.seed)
        self._lock = threading.Lock()

    def next(self) -> FaultDecision:
        with self._lock:
            slow, limit, error, status, drop, truncate, malform, pick = (
                self._rng.random() for _ in range(8)
            )
        f = self._faults
        statuses = f.error_statuses
        damage = next(
            (
                kind
                for kind, draw, rate in (
                    (Damage.DROP, drop, f.drop_rate),
                    (Damage.TRUNCATE, truncate, f.truncated_rate),
                    (Damage.MALFORM, malform, f.malformed_record_rate),
                )
                if draw < rate
            ),
            None,
        )
        return FaultDecision(
            slow=slow < f.slow_rate,
            rate_limited=limit < f.rate_limit_rate,
            error_status=statuses[int(status * len(statuses))] if error < f.error_rate else None,
            damage=damage,
            pick=pick,
        )


class FaultInjector:
    """The middleware: plans each operation request's faults, then acts them out."""

    def __init__(self, app: ASGIApp, *, faults: FaultSettings, matcher: OperationMatcher) -> None:
        self._app = app
        self._faults = faults
        self._matcher = matcher
        self._planner = FaultPlanner(faults)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        operation = self._matcher.match(scope["path"]) if scope["type"] == "http" else None
        if operation is None:
            await self._app(scope, receive, send)
            return
        decision = self._planner.next()
        if decision.slow:
            await asyncio.sleep(self._faults.slow_seconds)
        if decision.rate_limited:
            await _respond(
                send,
                429,
                error_body("TOO_MANY_REQUESTS", "Rate limit exceeded, retry later"),
                b"application/json",
                b"rate-limited",
                [(b"retry-after", str(self._faults.retry_after_seconds).encode())],
            )
        elif decision.error_status is not None:
            await _respond_error(send, operation, decision.error_status)
        elif decision.damage is not None:
            await _spoil(self._app, scope, receive, send, decision)
        else:
            await self._app(scope, receive, send)


async def _respond_error(send: Send, operation: Operation, status: int) -> None:
    if status == 500:
        code = RULES[operation].internal_error_code
        body, content_type = error_body(code, "Unexpected error (injected)"), b"application/json"
    else:
        reason = GATEWAY_REASONS[status]
        body = GATEWAY_PAGE.format(status=status, reason=reason).encode()
        content_type = b"text/html"
    await _respond(send, status, body, content_type, f"error-{status}".encode())


async def _respond(
    send: Send,
    status: int,
    body: bytes,
    content_type: bytes,
    fault: bytes,
    extra_headers: list[tuple[bytes, bytes]] | None = None,
) -> None:
    headers = [
        (b"content-type", content_type),
        (b"content-length", str(len(body)).encode()),
        (FAULT_HEADER, fault),
        *(extra_headers or []),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _spoil(
    app: ASGIApp, scope: Scope, receive: Receive, send: Send, decision: FaultDecision
) -> None:
    start: Message = {}
    chunks: list[bytes] = []

    async def capture(message: Message) -> None:
        if message["type"] == "http.response.start":
            start.update(message)
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, capture)
    body = b"".join(chunks)
    headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
    status = start["status"]
    damage = decision.damage
    if damage is Damage.MALFORM:
        spoiled = _malform(body, decision.pick) if status == 200 else None
        if spoiled is None:  # nothing to spoil (an error, or an empty list): send as it was
            await _send(send, status, headers, body, len(body))
            return
        body = spoiled
    headers.append((FAULT_HEADER, str(damage).encode()))
    if damage is Damage.DROP:
        # Promise the whole body, send half, and return: the server then closes the connection.
        await send(
            {"type": "http.response.start", "status": status, "headers": _sized(headers, len(body))}
        )
        await send(
            {"type": "http.response.body", "body": body[: len(body) // 2], "more_body": True}
        )
    elif damage is Damage.TRUNCATE:
        await _send(send, status, headers, body[: len(body) // 2], len(body) // 2)
    else:
        await _send(send, status, headers, body, len(body))


async def _send(
    send: Send, status: int, headers: list[tuple[bytes, bytes]], body: bytes, length: int
) -> None:
    await send(
        {"type": "http.response.start", "status": status, "headers": _sized(headers, length)}
    )
    await send({"type": "http.response.body", "body": body})


def _sized(headers: list[tuple[bytes, bytes]], length: int) -> list[tuple[bytes, bytes]]:
    return [*headers, (b"content-length", str(length).encode())]


def _malform(body: bytes, pick: float) -> bytes | None:
    """Gives one record of a list (or of a page's item_list) a field of the wrong type."""
    document: Any = json.loads(body)
    records = document.get("item_list") if isinstance(document, dict) else document
    if not isinstance(records, list) or not records:
        return None
    scaled = pick * len(records)
    record = records[int(scaled)]
    if scaled % 1 < 0.5:
        record["id"] = "not-a-number"
    else:
        date_field = "start_date" if "start_date" in record else "created_at"
        record[date_field] = "yesterday"
    return json.dumps(document).encode()
