"""Serving the sandbox over real HTTP from a background thread, for tests and the dashboard.

The socket is bound before uvicorn starts, so port 0 yields a free port known up front and
there is no window in which another process could take it.
"""

from __future__ import annotations

import socket
import threading
import time
from types import TracebackType

import uvicorn
from fastapi import FastAPI

from sandbox.app import create_app
from sandbox.auth import DemoUser, demo_users
from sandbox.settings import SandboxSettings

# Requests still running at stop() get this long to finish before they are cancelled.
GRACEFUL_SHUTDOWN_SECONDS = 2


def bind_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto must say TCP explicitly: asyncio only sets TCP_NODELAY on connections whose socket
    # does, and without it every keep-alive response stalls ~40 ms (Nagle + delayed ACK).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def origin_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


class RunningSandbox:
    """A sandbox serving in a background thread; a context manager that stops it on exit."""

    def __init__(
        self,
        app: FastAPI,
        settings: SandboxSettings,
        server: uvicorn.Server,
        thread: threading.Thread,
        origin: str,
    ) -> None:
        self.app = app
        self.settings = settings
        self.users: list[DemoUser] = demo_users(settings)
        # Where clients point: the origin plus the path prefix (the API is at base_url + "/api").
        self.base_url = origin + settings.path_prefix
        self._server = server
        self._thread = thread

    def stop(self, timeout: float = 10.0) -> None:
        """Stops serving and waits for the thread to end. Safe to call more than once."""
        self._server.should_exit = True
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise RuntimeError(f"sandbox at {self.base_url} did not stop within {timeout}s")

    def __enter__(self) -> RunningSandbox:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"RunningSandbox(base_url={self.base_url!r})"


def serve_in_thread(
    settings: SandboxSettings | None = None,
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    startup_timeout: float = 30.0,
) -> RunningSandbox:
    """Starts serving and returns once the server accepts connections."""
    settings = settings or SandboxSettings()
    app = create_app(settings)
    sock = bind_socket(host, port)
    config = uvicorn.Config(
        app,
        # Leave the host application's logging alone; uvicorn's loggers still propagate.
        log_config=None,
        access_log=False,
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS,
    )
    server = uvicorn.Server(config)
    origin = origin_of(sock)
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name=f"sandbox {origin}", daemon=True
    )
    thread.start()
    deadline = time.monotonic() + startup_timeout
    while not server.started:
        if not thread.is_alive():
            sock.close()
            raise RuntimeError(f"sandbox at {origin} failed to start")
        if time.monotonic() > deadline:
            server.should_exit = True
            raise RuntimeError(f"sandbox at {origin} did not start within {startup_timeout}s")
        time.sleep(0.005)
    return RunningSandbox(app, settings, server, thread, origin)
