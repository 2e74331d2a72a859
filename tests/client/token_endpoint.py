"""A stand-in OAuth2 token endpoint over real HTTP on loopback, misbehaving on demand.

The first path segment picks the behaviour (`endpoint.url("html")`):
- `good`: a bearer token with `expires_in` (`expires_in`, default 3600) and a refresh token;
  `issued` lists each (access token, refresh token) pair, in order.
- `no-expiry`: the same without `expires_in`.
- `html`: 200 with a login page.
- `refuse`: 400 `invalid_grant`, its description echoing the password sent (a careless
  endpoint), so a test can check it is masked.
- `slow`: answers only when `release` is set (or after 30 s), so a client's timeout runs out.
- `good-then-down`: `good` for the first answer, 503 after.
- `refresh-refused`: `good` for the grants, 400 `invalid_grant` for a refresh.

Every request is kept (`requests`: path, headers, form) so a test can count renewals and check
what was sent.
"""

from __future__ import annotations

import json
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs


@dataclass(frozen=True)
class Asked:
    behaviour: str
    headers: dict[str, str]
    form: dict[str, str]


@dataclass
class TokenEndpointStub:
    base_url: str = ""
    expires_in: float = 3600
    requests: list[Asked] = field(default_factory=list)
    issued: list[tuple[str, str]] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Condition = field(default_factory=threading.Condition)

    def url(self, behaviour: str) -> str:
        return f"{self.base_url}/{behaviour}/oauth/token"

    def asked(self, behaviour: str) -> list[Asked]:
        with self._lock:
            return [r for r in self.requests if r.behaviour == behaviour]

    def wait_for_requests(self, behaviour: str, count: int, timeout: float = 30) -> None:
        with self._lock:
            arrived = self._lock.wait_for(
                lambda: sum(r.behaviour == behaviour for r in self.requests) >= count, timeout
            )
        assert arrived, f"fewer than {count} requests to {behaviour} within {timeout} s"

    def note(self, asked: Asked) -> None:
        with self._lock:
            self.requests.append(asked)
            self._lock.notify_all()

    def answer(self, behaviour: str, form: dict[str, str]) -> tuple[int, str, bytes]:
        if behaviour == "slow":
            self.release.wait(30)
        if behaviour == "html":
            return 200, "text/html", b"<html><body><h1>Sign in</h1></body></html>"
        if behaviour == "refuse":
            said = f"Bad credentials: {form.get('password', '')}"
            return _json(400, {"error": "invalid_grant", "error_description": said})
        if behaviour == "good-then-down" and self.issued:
            return _json(503, {"error": "temporarily_unavailable"})
        if behaviour == "refresh-refused" and form.get("grant_type") == "refresh_token":
            return _json(400, {"error": "invalid_grant", "error_description": "expired"})
        pair = (f"at-{secrets.token_hex(12)}", f"rt-{secrets.token_hex(12)}")
        with self._lock:
            self.issued.append(pair)
        body: dict[str, Any] = {
            "access_token": pair[0],
            "token_type": "bearer",
            "refresh_token": pair[1],
        }
        if behaviour != "no-expiry":
            body["expires_in"] = self.expires_in
        return _json(200, body)


def _json(status: int, body: object) -> tuple[int, str, bytes]:
    return status, "application/json", json.dumps(body).encode()


@contextmanager
def token_endpoint(expires_in: float = 3600) -> Iterator[TokenEndpointStub]:
    stub = TokenEndpointStub(expires_in=expires_in)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length).decode()
            form = {key: values[0] for key, values in parse_qs(raw).items()}
            behaviour = self.path.strip("/").split("/")[0]
            stub.note(Asked(behaviour, dict(self.headers.items()), form))
            status, content_type, data = stub.answer(behaviour, form)
            try:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up waiting (the slow behaviour)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(
        target=server.serve_forever, args=(0.05,), name="token endpoint", daemon=True
    )
    thread.start()
    stub.base_url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield stub
    finally:
        stub.release.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
