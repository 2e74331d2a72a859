"""The HTTP side of the hand-built fake services: their answers on a free loopback port.

Each fake service (tests/dashboard/history_service.py, standup_history.py, named_service.py)
decides what a request gets, `answer(path) -> (status, body)`; this serves those answers over
real HTTP, so the dashboard reads them through the same client, fan-out and history store as
any service.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeVar

T = TypeVar("T")


class LoopbackServer(ThreadingHTTPServer):
    """A threaded test server on loopback. A client hanging up mid-answer (a walk abandoned,
    a body too big, a drip too slow) is what several tests provoke: it is not logged as an
    error with a traceback; anything else still is."""

    daemon_threads = True  # a request still being served never holds the test run

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


Answer = Callable[[str], tuple[int, Any]]
"""The request's path and query -> the HTTP status and the JSON body."""
Respond = Callable[[str], tuple[int, str, bytes]]
"""The request's path and query -> the HTTP status, the content type and the body."""


@contextmanager
def serve_json(answer: Answer, *, name: str) -> Iterator[str]:
    """Answer every GET with `answer` on a free loopback port until the block ends; yields the
    base URL. `name` names the server's thread."""

    def respond(target: str) -> tuple[int, str, bytes]:
        status, body = answer(target)
        return status, "application/json", json.dumps(body).encode()

    with serve_http(respond, name=name) as base_url:
        yield base_url


@contextmanager
def serve_http(respond: Respond, *, name: str) -> Iterator[str]:
    """Answer every GET with `respond` on a free loopback port until the block ends; yields the
    base URL."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            status, content_type, data = respond(self.path)
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # quiet: the tests read what the dashboard shows, not this log

    server = LoopbackServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, name=name, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def executions_page(
    runs: Sequence[T],
    query: Mapping[str, str],
    *,
    start: Callable[[T], datetime],
    plan_id: Callable[[T], int],
    project_id: int,
    record: Callable[[T], dict[str, Any]],
) -> dict[str, Any]:
    """The executions filter's answer over `runs`, as the service pages it: newest first, those
    that started from `from` to `to` (ms, both included) of `planId` and `projectId`, page
    `page` of `size` (each run made a record by `record`)."""
    from tests.client import samples

    def millis(moment: datetime) -> int:
        return int(moment.timestamp() * 1000)

    chosen = [
        run
        for run in sorted(runs, key=start, reverse=True)
        if ("from" not in query or millis(start(run)) >= int(query["from"]))
        and ("to" not in query or millis(start(run)) <= int(query["to"]))
        and ("planId" not in query or plan_id(run) == int(query["planId"]))
        and ("projectId" not in query or int(query["projectId"]) == project_id)
    ]
    number, size = int(query.get("page", "1")), int(query.get("size", "20"))
    pages = max(1, -(-len(chosen) // size))
    shown = chosen[(number - 1) * size : number * size]
    return samples.page(
        [record(run) for run in shown], current=number, total_count=len(chosen), page_count=pages
    )


def stamp(moment: datetime) -> str:
    """An instant as the service writes it: UTC, whole seconds, a trailing Z."""
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
