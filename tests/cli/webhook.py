"""A chat's webhook, on loopback: it keeps every JSON message posted to it (apprise's json://)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Receiver:
    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.refusing = False  # answer 500 and keep nothing: a destination that refuses
        self.refused = 0
        self._lock = threading.Lock()
        self.arrived = threading.Condition(self._lock)
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                """Quiet."""

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if receiver.refusing:
                    with receiver.arrived:
                        receiver.refused += 1
                    self.send_response(500)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                with receiver.arrived:
                    receiver.messages.append(body)
                    receiver.paths.append(self.path)
                    receiver.arrived.notify_all()
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = int(self._server.server_address[1])
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def url(self, path: str = "hook") -> str:
        """The apprise URL of this receiver (path: the webhook's own secret part)."""
        return f"json://127.0.0.1:{self.port}/{path}"

    def wait_for(self, count: int) -> list[dict[str, Any]]:
        """Until `count` messages came: a state, with no deadline of its own (pytest-timeout's)."""
        with self.arrived:
            self.arrived.wait_for(lambda: len(self.messages) >= count)
            return list(self.messages)

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@contextmanager
def webhook() -> Iterator[Receiver]:
    receiver = Receiver()
    try:
        yield receiver
    finally:
        receiver.stop()
