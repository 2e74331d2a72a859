"""Fixtures of the assistant's tests: a hand-built history on loopback (the gate's plan service,
with runs whose answers are known), the server over it in this process (the SDK's in-memory
client) or as `python -m dashboard mcp` over stdio (the SDK's stdio client)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Awaitable, Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp_types import CallToolResult

from dashboard.assistant.history import Source, forget_loads
from dashboard.assistant.server import build_server
from dashboard.assistant.tools import Tools
from dashboard.data.connection import resolve
from tests.cli.plan_service import PlanService, service_env
from tests.loopback_service import serve_json

T = TypeVar("T")

REPO = Path(__file__).resolve().parents[2]
DASHBOARD_URL = "https://qa.example.com/"
S, F = "SUCCESS", "FAILURE"
RUNS = (
    (S, S, S, S),  # 5001: green
    (S, F, S, S),  # 5002: scenario 52 fails: the plan turns red
    (S, F, S, S),  # 5003
    (S, S, F, S),  # 5004: 52 passes, 53 fails
    (S, F, F, S),  # 5005
    (S, F, S, S),  # 5006, the latest: 53 fixed, 52 still failing
)
FIRST_RED = 5002
LATEST, PREVIOUS = 5006, 5005

Call = tuple[str, dict[str, Any]]


@dataclass
class History:
    """The planted service and the environment that points the server at it."""

    service: PlanService
    env: dict[str, str]


def _plant(service: PlanService) -> None:
    for levels in RUNS:
        service.add(*levels)


@contextmanager
def history_of(tmp_path: Path, rewrite: Callable[[Any], Any] | None = None) -> Iterator[History]:
    """The planted history on loopback; `rewrite` changes every answer's JSON first (hostile
    strings)."""
    forget_loads()  # a service of an earlier test may have had the same port
    service = PlanService()
    _plant(service)

    def answer(target: str) -> tuple[int, Any]:
        status, body = service.answer(target)
        return status, rewrite(body) if rewrite else body

    with serve_json(answer, name="assistant-history") as base_url:
        service.base_url = base_url
        env = {k: v for k, v in os.environ.items() if not k.startswith("QA_DASHBOARD_")}
        env.update(service_env(service))
        env["QA_DASHBOARD_CACHE_DIR"] = str(tmp_path / "stores")
        env["PYTHONPATH"] = str(REPO)
        yield History(service, env)


@pytest.fixture
def history(tmp_path: Path) -> Iterator[History]:
    with history_of(tmp_path) as planted:
        yield planted


def tools_for(env: dict[str, str], *, dashboard_url: str | None = DASHBOARD_URL) -> Tools:
    resolution = resolve(session=None, secrets={}, env=env)
    assert resolution.connection is not None, resolution.problems
    return Tools(Source(resolution.connection, {}, env, dashboard_url=dashboard_url))


def run_async(function: Callable[[], Awaitable[T]]) -> T:
    """`anyio.run(function)` in a thread of its own: the browser tests' Playwright keeps an event
    loop running in the main thread of a test worker once it has started there, and anyio (as
    asyncio) refuses to start another in that thread."""
    with ThreadPoolExecutor(max_workers=1) as thread:
        return thread.submit(anyio.run, function).result()


def ask(target: Any, calls: Sequence[Call]) -> list[CallToolResult]:
    """Each call's answer, through the SDK's client on `target` (a server, or stdio
    parameters), in one session."""

    async def run() -> list[CallToolResult]:
        async with Client(target) as client:
            return [await client.call_tool(name, arguments) for name, arguments in calls]

    return run_async(run)


def ask_here(env: dict[str, str], calls: Sequence[Call], **options: Any) -> list[CallToolResult]:
    """The answers of the server built in this process (the SDK's in-memory transport)."""
    return ask(build_server(tools_for(env, **options)), calls)


def stdio(env: dict[str, str], cwd: Path, *extra: str) -> StdioServerParameters:
    """`python -m dashboard mcp` as an assistant starts it."""
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "dashboard", "mcp", "--dashboard-url", DASHBOARD_URL, *extra],
        env=env,
        cwd=str(cwd),
    )


def whole(answer: CallToolResult) -> str:
    """Everything an answer says, text and structured content together."""
    texts = [getattr(block, "text", "") for block in answer.content]
    return "\n".join([*texts, json.dumps(answer.structured_content, ensure_ascii=False)])


def rows(answer: CallToolResult) -> list[dict[str, Any]]:
    assert not answer.is_error, whole(answer)
    assert answer.structured_content is not None
    found: list[dict[str, Any]] = answer.structured_content["rows"]
    return found


def error_text(answer: CallToolResult) -> str:
    assert answer.is_error, whole(answer)
    return " ".join(getattr(block, "text", "") for block in answer.content)
