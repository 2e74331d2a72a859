"""A stand-in OAuth2 token endpoint over real HTTP on loopback, misbehaving on demand.

The first path segment picks the behaviour (`endpoint.url("html")`):
- `good`: a bearer token with `expires_in` (`expires_in`, default 3600) and a refresh token;
  `issued` lists each (access token, refresh token) pair, in order.
- `no-expiry`: the same without `expires_in`.
- `html`: 200 with a login page.
- `refuse`: 400 `invalid_grant`, its description echoing the password sent (a careless
  endpoint), so a test can check it is masked.
- `slow`: answers only when `release` is set (at the latest when the stub stops), so a client's
  timeout runs out.
- `good-then-down`: `good` for the first answer, 503 after.
- `refresh-refused`: `good` for the grants, 400 `invalid_grant` for a refresh.
- `echo`: 401 `invalid_client`, its description and another field repeating the Authorization
  header it was sent (`Basic base64(id:secret)`) in every base64 form, and the secret itself.
- `echo-text`: 401 with a plain-text body repeating the Authorization header.
- `echo-code`: 401 whose `error` code is the base64 credential it was sent.
- `code-<error>`: 400 with `<error>` as the OAuth2 error code.
- `drip`: 200 with its headers at once, then a good answer's body one byte every `drip_every`
  seconds (a per-read timeout never fires).
- `drip-headers`: the status line and headers themselves one byte every `drip_every` seconds.
- `huge`: 200, a JSON body of `huge_bytes` bytes with no Content-Length (its end is the
  connection's); `huge-declared` says its length.

Every request is kept (`requests`: path, headers, form) so a test can count renewals and check
what was sent.
"""

from __future__ import annotations

import base64
import json
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs

from tests.loopback_service import LoopbackServer


@dataclass(frozen=True)
class Asked:
    behaviour: str
    headers: dict[str, str]
    form: dict[str, str]


@dataclass
class TokenEndpointStub:
    base_url: str = ""
    expires_in: float = 3600
    drip_every: float = 0.3
    huge_bytes: int = 300 * 1024
    requests: list[Asked] = field(default_factory=list)
    issued: list[tuple[str, str]] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Condition = field(default_factory=threading.Condition)

    def url(self, behaviour: str) -> str:
        return f"{self.base_url}/{behaviour}/oauth/token"

    def asked(self, behaviour: str) -> list[Asked]:
        with self._lock:
            return self._of(behaviour)

    def _of(self, behaviour: str) -> list[Asked]:
        return [r for r in self.requests if r.behaviour == behaviour]

    def wait_for_requests(self, behaviour: str, count: int) -> None:
        """Until `count` requests to `behaviour` came: a state, with no deadline of its own
        (pytest-timeout ends a hang)."""
        with self._lock:
            self._lock.wait_for(
                lambda: sum(r.behaviour == behaviour for r in self.requests) >= count
            )

    def note(self, asked: Asked) -> None:
        with self._lock:
            self.requests.append(asked)
            self._lock.notify_all()

    def answer(
        self, behaviour: str, form: dict[str, str], authorization: str = ""
    ) -> tuple[int, str, bytes]:
        if behaviour == "slow":
            self.release.wait()  # the stub sets it when it stops: no request is held for ever
        if behaviour == "html":
            return 200, "text/html", b"<html><body><h1>Sign in</h1></body></html>"
        if behaviour == "refuse":
            said = f"Bad credentials: {form.get('password', '')}"
            return _json(400, {"error": "invalid_grant", "error_description": said})
        if behaviour == "echo":
            forms = " ".join(encodings(authorization))
            said = f"Authorization: {authorization} is not known; {forms}"
            return _json(
                401,
                {"error": "invalid_client", "error_description": said, "message": said,
                 "error_uri": f"https://auth.example.test/help?got={authorization}"},
            )  # fmt: skip
        if behaviour == "echo-code":
            return _json(401, {"error": authorization.partition(" ")[2].rstrip("=")})
        if behaviour.startswith("code-"):
            return _json(400, {"error": behaviour.removeprefix("code-")})
        if behaviour == "echo-text":
            said = f"Unauthorized. You sent: Authorization: {authorization}"
            return 401, "text/plain", said.encode()
        if behaviour in ("huge", "huge-declared"):
            return 200, "application/json", b'{"pad": "' + b"x" * self.huge_bytes + b'"}'
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


def encodings(authorization: str) -> list[str]:
    """The credential of an `Authorization: Basic ...` header in each base64 form a careless
    endpoint might repeat: standard and URL-safe, with and without padding."""
    value = authorization.partition(" ")[2]
    raw = base64.b64decode(value + "=" * (-len(value) % 4)) if value else b""
    forms = [base64.b64encode(raw).decode(), base64.urlsafe_b64encode(raw).decode()]
    return forms + [form.rstrip("=") for form in forms]


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
            if behaviour in ("drip", "drip-headers"):
                self._drip(behaviour)
                return
            status, content_type, data = stub.answer(
                behaviour, form, self.headers.get("Authorization", "")
            )
            if behaviour == "huge":  # no length: the body ends when the connection does
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.end_headers()
                self.wfile.write(data)
                self.close_connection = True
                return
            try:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up waiting (the slow behaviour)

        def _drip(self, behaviour: str) -> None:
            """A good answer, one byte at a time: after its headers (`drip`) or from its
            status line on (`drip-headers`); until the client hangs up or the test ends."""
            _, _, body = _json(200, {"access_token": "at-dripped", "token_type": "bearer"})
            body = body[:-1] + b" " * 2000 + b"}"  # ten minutes at 0.3 s a byte
            head = (
                b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n"
                + f"Content-Length: {len(body)}\r\n\r\n".encode()
            )
            if behaviour == "drip":
                self.wfile.write(head)
                self.wfile.flush()
                head = b""
            for byte in head + body:
                if stub.release.wait(stub.drip_every):
                    return
                self.wfile.write(bytes([byte]))
                self.wfile.flush()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = LoopbackServer(("127.0.0.1", 0), Handler)
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
