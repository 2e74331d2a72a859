"""A misbehaving stand-in of the service, over real HTTP on loopback, for any test folder.

Each behaviour is a path prefix: a client whose `base_url` is `service.url("drip")` gets the drip
on every operation it calls. The first path segment picks the behaviour; the rest is the
operation's own path (`/api/executions/filter`, `/api/plans/lazy`, `/api/results/...`).

```python
from tests.hostile_service import hostile_service

with hostile_service(drip_interval=0.2) as service:
    client = ApiClient(base_url=service.url("drip"), token="t", company_id=1, ...)
    ...
    assert service.request_count("drip") == 1
```

Behaviours (`BEHAVIOURS` lists them):
- `healthy`: a well-behaved service over `executions` executions (newest first, `page`/`size`
  honoured), one plan, one result.
- `lying-page-count`: every executions page claims `page_count` 1,000,000,000 (and a total to
  match) and holds the same three executions.
- `endless-pages`: claims a billion pages, and every page holds `size` executions never seen
  before, as a service that really had them would.
- `empty-pages`: claims a billion pages; page 1 holds three executions, every later page none.
- `drip`: 200 with `Content-Length: 1000000`, then one byte every `drip_interval` seconds.
- `deep-json`: 200 whose body is `[` x 200,000 then `]` x 200,000.
- `deep-json-error`: the same body with a 500.
- `huge`: 200 whose body is a valid JSON list of `huge_bytes` bytes, sent chunked (no length).
- `redirect`: 302 to `https://login.example.test/sso?ticket=...` (path and query must not show).
- `slow-later-pages`: page 1 is healthy and claims 50 pages; every later page drips.
- `failing-page-2`: as `slow-later-pages`, but page 2 is answered at once with a 500.
- `max-size-<n>` (e.g. `max-size-100`): healthy, but a filter request with `size` above n is
  answered `400 INVALID_REQUEST`, as a service with a page-size limit would.
- `drip-results`: healthy plans and executions (all finished), but every results request drips.
- `silent-results`: as `drip-results`, but a results request gets its headers and then not a
  byte more until the client hangs up.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.client.samples import TEST_PLAN, TEST_RESULT, execution, page
from tests.loopback_service import LoopbackServer

A_BILLION = 1_000_000_000
DEEP = 200_000
REDIRECT_TARGET = "https://login.example.test/sso?ticket=ST-1-secret-ticket"

BEHAVIOURS = (
    "healthy",
    "lying-page-count",
    "endless-pages",
    "empty-pages",
    "drip",
    "deep-json",
    "deep-json-error",
    "huge",
    "redirect",
    "slow-later-pages",
    "failing-page-2",
    "max-size-<n>",
    "drip-results",
    "silent-results",
)


@dataclass(frozen=True)
class Seen:
    """One request as the service received it."""

    behaviour: str
    path: str
    params: dict[str, str]
    headers: dict[str, str]
    client_port: int
    """The client's end of the connection: requests on one keep-alive connection share it."""


@dataclass
class HostileService:
    """A running hostile service: where it listens, and what it has been asked."""

    base_url: str
    """`http://127.0.0.1:<port>`; a behaviour's base URL is `url(behaviour)`."""
    executions: int
    drip_interval: float
    huge_bytes: int
    _seen: list[Seen] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    stopping: threading.Event = field(default_factory=threading.Event)

    def url(self, behaviour: str) -> str:
        """The base URL a client uses to meet `behaviour` on every operation."""
        return f"{self.base_url}/{behaviour}"

    def record(self, seen: Seen) -> None:
        with self._lock:
            self._seen.append(seen)

    @property
    def requests(self) -> list[Seen]:
        with self._lock:
            return list(self._seen)

    def request_count(self, behaviour: str | None = None) -> int:
        """Requests received so far, for one behaviour or in all."""
        return sum(1 for seen in self.requests if behaviour in (None, seen.behaviour))


@contextmanager
def hostile_service(
    *, executions: int = 30, drip_interval: float = 0.2, huge_bytes: int = 4 * 2**20
) -> Iterator[HostileService]:
    """Serve every behaviour on a free loopback port until the block ends."""
    server = LoopbackServer(("127.0.0.1", 0), _Handler)
    host, port = server.server_address[:2]
    service = HostileService(
        base_url=f"http://{host!s}:{port}",
        executions=executions,
        drip_interval=drip_interval,
        huge_bytes=huge_bytes,
    )
    server.service = service  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, name="hostile-service", daemon=True)
    thread.start()
    try:
        yield service
    finally:
        service.stopping.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def _started(execution_id: int) -> str:
    return (datetime(2026, 11, 1, tzinfo=UTC) + timedelta(minutes=execution_id)).isoformat()


def _execution(execution_id: int) -> dict[str, Any]:
    return execution(execution_id, start_date=_started(execution_id))


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as a real service; every answer has a length

    @property
    def service(self) -> HostileService:
        return self.server.service  # type: ignore[attr-defined,no-any-return]

    def log_message(self, format: str, *args: Any) -> None:  # the base's name
        """Quiet: tests read `service.requests` instead."""

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        behaviour, _, path = parts.path.lstrip("/").partition("/")
        params = {key: values[-1] for key, values in parse_qs(parts.query).items()}
        self.service.record(
            Seen(
                behaviour,
                "/" + path,
                params,
                dict(self.headers.items()),
                client_port=int(self.client_address[1]),
            )
        )
        path = "/" + path
        if behaviour == "drip":
            return self._drip()
        if behaviour in ("deep-json", "deep-json-error"):
            status = 500 if behaviour.endswith("error") else 200
            return self._send(status, b"[" * DEEP + b"]" * DEEP)
        if behaviour == "huge":
            return self._huge()
        if behaviour == "redirect":
            return self._send(302, b"", location=REDIRECT_TARGET)
        if path.endswith("/plans/lazy"):
            return self._json(200, [TEST_PLAN])
        if "/results/execution/" in path:
            if behaviour in ("drip-results", "silent-results"):
                return self._drip(silent=behaviour == "silent-results")
            return self._json(200, [TEST_RESULT])
        if not path.endswith("/executions/filter"):
            return self._json(404, {"error": "NOT_FOUND", "message": "no such path"})
        number, size = int(params.get("page", "1")), int(params.get("size", "50"))
        if behaviour.startswith("max-size-") and size > int(behaviour.removeprefix("max-size-")):
            return self._json(400, {"error": "INVALID_REQUEST", "message": "size is too large"})
        if behaviour == "failing-page-2" and number == 2:
            return self._json(500, {"error": "INTERNAL_SERVER_ERROR", "message": "page 2 broke"})
        if behaviour in ("slow-later-pages", "failing-page-2") and number > 1:
            return self._drip()
        return self._json(200, self._executions_page(behaviour, number, size))

    def _executions_page(self, behaviour: str, number: int, size: int) -> dict[str, Any]:
        claimed = {"page_count": A_BILLION, "total_count": A_BILLION * size}
        if behaviour == "lying-page-count":
            return page([_execution(i) for i in (3, 2, 1)], current=number, **claimed)
        if behaviour == "endless-pages":
            first = A_BILLION - (number - 1) * size
            items = [_execution(first - offset) for offset in range(size)]
            return page(items, current=number, **claimed)
        if behaviour == "empty-pages":
            items = [_execution(i) for i in (3, 2, 1)] if number == 1 else []
            return page(items, current=number, **claimed)
        total = self.service.executions
        if behaviour in ("slow-later-pages", "failing-page-2"):
            total = 50 * size
        ids = range(total, 0, -1)[(number - 1) * size : number * size]
        return page(
            [_execution(i) for i in ids],
            current=number,
            total_count=total,
            page_count=-(-total // size),
        )

    def _json(self, status: int, body: object) -> None:
        self._send(status, json.dumps(body).encode())

    def _send(self, status: int, body: bytes, *, location: str | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        if location:
            self.send_header("Location", location)
        self.end_headers()
        self.wfile.write(body)

    def _drip(self, *, silent: bool = False) -> None:
        """A body promised at a megabyte, sent a byte at a time until the client gives up (or,
        `silent`, its first byte and then nothing until the client hangs up)."""
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "1000000")
        self.end_headers()
        self.close_connection = True
        try:
            self.wfile.write(b"[")
            self.wfile.flush()
            if silent:
                self.connection.settimeout(None)
                while not self.service.stopping.is_set() and self.rfile.read(1):
                    pass  # the client sends nothing more: this returns when it hangs up
                return
            while not self.service.stopping.wait(self.service.drip_interval):
                self.wfile.write(b" ")
                self.wfile.flush()
        except OSError:  # the client hung up: the point of the behaviour
            return

    def _huge(self) -> None:
        """A JSON list of about `huge_bytes`, chunked: its size is known only by reading it."""
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.close_connection = True
        chunk = json.dumps([TEST_PLAN] * 50).encode()[1:-1] + b","
        try:
            self._chunk(b"[")
            sent = 0
            while sent < self.service.huge_bytes and not self.service.stopping.is_set():
                self._chunk(chunk)
                sent += len(chunk)
            self._chunk(json.dumps(TEST_PLAN).encode() + b"]")
            self._chunk(b"")
        except OSError:
            return

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
