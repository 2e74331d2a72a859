"""A service on loopback whose executions pages are scripted walk by walk, page by page.

A live service's pages repeat and shift records (an execution that starts mid-walk pushes the
others down a page), hold duplicates, records that do not fit, and counts that change under a
walk. This serves exactly the pages a test writes down, over real HTTP (any token), so a test can
check what a walk makes of them. Only the executions operation is answered.

`walks[w][p]` is page `p + 1` of the `w + 1`-th walk: a walk starts with each page-1 request
that is answered (the last walk is served again for any later one). A page is a list of
records; `claims[w]` is each walk's (total_count, page_count), or one per page when the count
changes under the walk. Pages are served at `page_size` at most: a larger size is refused with
`400 INVALID_REQUEST`, as a service with a size limit does, so the client settles on it.
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

from tests.client import samples
from tests.loopback_service import LoopbackServer

Claim = tuple[int, int]  # (total_count, page_count)
NEWEST = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)


def record(execution_id: int, **changes: Any) -> dict[str, Any]:
    """An execution whose fields vary with its id: the frames have something to get wrong."""
    statuses: list[dict[str, int]] = [
        {"SUCCESS": 4},
        {"SUCCESS": 2, "FAILURE": 1},
        {"ERROR": 1, "WARNING": 2},
        {"PROCESSING": 1, "SUCCESS": 1},
        {},
        {"FLAKY_NEW_STATUS": 3},
    ]
    start = NEWEST - timedelta(minutes=3 * (1_001 - execution_id))  # a higher id is newer
    fields: dict[str, Any] = {
        "start_date": start.isoformat(),
        "end_date": (start + timedelta(minutes=5)).isoformat() if execution_id % 5 else None,
        "plan_id": execution_id % 4 + 1,
        "plan_name": f"Plan {execution_id % 4 + 1}",
        "project_id": None if execution_id % 11 == 0 else 2,
        "runtime": None if execution_id % 13 == 0 else 1_000 * execution_id,
        "result_summary": statuses[execution_id % len(statuses)],
        "username": "ada" if execution_id % 2 else "grace",
    }
    fields.update(changes)
    return samples.execution(execution_id, **fields)


def misfit(execution_id: int) -> dict[str, Any]:
    """A record that does not fit (its runtime is text): skipped, with its id."""
    return record(execution_id, runtime="fast")


@dataclass
class ScriptedPages:
    walks: list[list[list[dict[str, Any]]]]
    claims: list[list[Claim]]
    page_size: int = 50
    base_url: str = ""
    walks_started: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def reset(self) -> None:
        """Serve the script from its first walk again."""
        with self.lock:
            self.walks_started = 0

    def answer(self, number: int, size: int) -> tuple[int, dict[str, Any]]:
        if size > self.page_size:
            return 400, {"error": "INVALID_REQUEST", "message": "size too large"}
        with self.lock:
            if number == 1:
                self.walks_started += 1
            walk = min(max(self.walks_started, 1), len(self.walks)) - 1
        pages, claims = self.walks[walk], self.claims[walk]
        items = pages[number - 1] if number <= len(pages) else []
        total, page_count = claims[min(number, len(claims)) - 1]
        return 200, samples.page(items, current=number, total_count=total, page_count=page_count)


@contextmanager
def scripted_pages(
    walks: list[list[list[dict[str, Any]]]], claims: list[list[Claim]], *, page_size: int = 50
) -> Iterator[ScriptedPages]:
    """Serve `walks` on a free loopback port until the block ends."""
    service = ScriptedPages(walks, claims, page_size)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # the base's name
            pass

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            params = {k: v[0] for k, v in parse_qs(parts.query).items()}
            if parts.path != "/api/executions/filter":
                status, body = 404, {"error": "NOT_FOUND"}
            else:
                status, body = service.answer(int(params["page"]), int(params["size"]))
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = LoopbackServer(("127.0.0.1", 0), Handler)
    service.base_url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield service
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
