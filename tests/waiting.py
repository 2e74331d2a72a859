"""The one way a test waits for a state: a server listening, a line in a log, a thread ending.

A wait here has no deadline of its own. A deadline is a guess at how long the machine takes, and
a loaded CI machine (two cores at a load of 20 and more) misses any guess that is not huge; a
hang is ended by pytest-timeout's per-test limit (pyproject), which names the test. What a wait
does check, on every poll, is that whatever it waits on is still there: a process or thread that
has ended will never bring the state, so the wait fails at once, with the log it left.
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import httpx

T = TypeVar("T")

POLL_S = 0.05
"""A pause between two looks at the state: a poll interval, not a measure of anything."""

PATIENT_S = 300.0
"""A limit for where an API requires one (an httpx request, an AppTest run): half of
pytest-timeout's, far beyond what a loaded machine takes, so it only turns a hang into the API's
own error, never a slow run into a failure."""

Alive = subprocess.Popen[bytes] | subprocess.Popen[str] | threading.Thread


def _ended(alive: Alive) -> str | None:
    """How `alive` ended (process or thread), or None while it runs."""
    if isinstance(alive, threading.Thread):
        return None if alive.is_alive() else f"the thread {alive.name} ended"
    code = alive.poll()
    return None if code is None else f"the process ended with exit code {code}"


def wait_until(
    condition: Callable[[], T | None],
    *,
    alive: Alive | None = None,
    log: Path | Callable[[], str] | None = None,
    what: str = "the state",
    every: float = POLL_S,
) -> T:
    """Poll `condition()` until it returns something true, and return that.

    `alive`, when given, is what brings the state (a process or a thread): once it has ended
    (and the condition is still false) the wait fails with `log` (a file or a function giving
    text), so a crash is reported at once with its evidence instead of at pytest-timeout.
    """
    while True:
        ended = None if alive is None else _ended(alive)
        if result := condition():
            return result
        if ended is not None:
            text = log.read_text(errors="replace") if isinstance(log, Path) else (log or str)()
            raise AssertionError(f"{ended} before {what}:\n{text[-4000:]}")
        time.sleep(every)  # a poll interval between two looks at the state


def answer(url: str, method: str = "GET", **request: Any) -> httpx.Response | None:
    """The answer of a request to `url`, or None while nothing listens there (a state probe)."""
    try:
        return httpx.request(method, url, **request)
    except httpx.TransportError:
        return None


def wait_for_answer(
    url: str,
    *,
    method: str = "GET",
    alive: Alive | None = None,
    log: Path | Callable[[], str] | None = None,
    ok: Callable[[httpx.Response], bool] = lambda response: True,
    **request: Any,
) -> httpx.Response:
    """Wait until `url` answers (and `ok(answer)`), while `alive` runs; return the answer.

    The probe's own per-request limit is PATIENT_S (a loaded server answers slowly, and the
    probe is not a measure); `request` passes headers and the like to httpx.
    """
    request.setdefault("timeout", PATIENT_S)

    def answered() -> httpx.Response | None:
        response = answer(url, method, **request)
        return response if response is not None and ok(response) else None

    return wait_until(answered, alive=alive, log=log, what=f"{url} answered")
