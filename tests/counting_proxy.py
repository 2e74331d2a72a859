"""A reverse proxy on loopback that counts the requests it forwards to a service, by operation.

Processes under test (a worker, `streamlit run`) are pointed at the proxy instead of the sandbox,
so the test counts what they really sent over the wire ("results", "executions", "plans"),
whatever process sent it. Bodies and headers are forwarded as they are, unless a test sets
`rewrite` (a service that changes its answers between two passes); nothing is logged. A test
may set `delay` to make the service a far-away one for a while, and set it back to 0.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler

import httpx

from tests.loopback_service import LoopbackServer

_HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "upgrade", "host"}


def operation_of(path: str) -> str:
    for kind in ("results", "executions", "plans"):
        if f"/api/{kind}/" in path:
            return kind
    return "other"


class CountingProxy:
    """`base_url` forwards to `target`; `sent` counts the requests by operation."""

    def __init__(self, target: str) -> None:
        self.target = target.rstrip("/")
        self.sent: Counter[str] = Counter()
        self.paths: list[str] = []
        self.rewrite: Callable[[str, bytes], bytes] | None = None
        """When set: each successful answer's body becomes `rewrite(path, body)`."""
        self.delay = 0.0
        """Seconds each request waits before it is forwarded (requests wait side by side)."""
        self._lock = threading.Lock()
        self._client = httpx.Client(timeout=60.0)
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                """Quiet: the requests carry bearer tokens in their headers."""

            def _forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                with proxy._lock:
                    proxy.sent[operation_of(self.path)] += 1
                    proxy.paths.append(self.path)
                headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP_BY_HOP}
                if proxy.delay:
                    time.sleep(proxy.delay)  # the latency of a far-away service, not a wait
                answer = proxy._client.request(
                    self.command, proxy.target + self.path, headers=headers, content=body
                )
                payload = answer.content
                if proxy.rewrite is not None and answer.status_code == 200:
                    payload = proxy.rewrite(self.path, payload)
                self.send_response(answer.status_code)
                for key, value in answer.headers.items():
                    if key.lower() not in _HOP_BY_HOP | {"content-length", "content-encoding"}:
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = _forward

        self._server = LoopbackServer(("127.0.0.1", 0), Handler)
        host, port = self._server.server_address[:2]
        self.base_url = f"http://{host}:{port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def count(self, kind: str) -> int:
        with self._lock:
            return self.sent[kind]

    def reset(self) -> None:
        with self._lock:
            self.sent.clear()
            self.paths.clear()

    def start(self) -> CountingProxy:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._client.close()


@contextmanager
def counting_proxy(target: str) -> Iterator[CountingProxy]:
    proxy = CountingProxy(target).start()
    try:
        yield proxy
    finally:
        proxy.stop()
