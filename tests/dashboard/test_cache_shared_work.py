"""Viewers of the same data share the work (#39): when two sessions ask at once for the same
view (`cache.built`), the same executions load (`cache.executions`) or the same results
(`cache.history_results`), it is computed once, by whoever asked first, and the other waits for
it instead of computing it again. Streamlit's caches hold a lock per key while computing;
these tests hold the first computation open until the second caller is waiting on that lock.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pandas as pd
import pytest
from pydantic import SecretStr

from api_client import ExecutionQuery
from dashboard.data import cache, live, results_fanout
from dashboard.data.connection import Connection
from dashboard.data.fanout_answer import FanOut, FanOutCounts
from tests.waiting import wait_until

CONNECTION = Connection(
    base_url="http://qa.example.test",
    token=SecretStr("not-a-real-token"),
    company_id=1,
    source="environment",
)

ONE_RUNNING = FanOutCounts(
    pairs=1,
    from_store=0,
    fetched=1,
    stored=0,
    failed=0,
    executions=1,
    executions_complete=0,
    executions_running=1,
    executions_incomplete=0,
)
"""The counts of a fan-out of one pair of a running execution, fetched."""


@pytest.fixture(autouse=True)
def empty_caches() -> Iterator[None]:
    cache.clear_all()
    yield
    cache.clear_all()


class Held:
    """A computation that counts its calls and, on the first, waits until it is let go."""

    def __init__(self, value: Any) -> None:
        self.value = value
        self.calls = 0
        self.entered = threading.Event()
        self.release = threading.Event()

    def __call__(self, *_: object, **__: object) -> Any:
        self.calls += 1
        self.entered.set()
        if self.calls == 1:
            self.release.wait()
        return self.value


def waiting_on_the_key(thread: threading.Thread) -> bool:
    """Whether `thread` is blocked on a cache's per-key compute lock."""
    frame = sys._current_frames().get(thread.ident or -1)
    while frame is not None:
        if frame.f_code.co_name == "_hold_compute_lock":
            return True
        frame = frame.f_back
    return False


def asked_at_once(held: Held, ask: Callable[[], Any]) -> list[Any]:
    """`ask()` in two threads: the second asks while the first is computing; the first is let
    go once the second waits on the key (or has started a computation of its own)."""
    answers: list[Any] = [None, None]

    def viewer(number: int) -> None:
        answers[number] = ask()

    first = threading.Thread(target=viewer, args=(0,))
    first.start()
    held.entered.wait()
    second = threading.Thread(target=viewer, args=(1,))
    second.start()
    # Polled (a thread blocked on a lock signals nothing); a second viewer that ended without
    # either fails at once.
    wait_until(lambda: waiting_on_the_key(second) or held.calls > 1, alive=second, every=0.001)
    held.release.set()
    first.join()
    second.join()
    return answers


def test_a_view_asked_for_by_two_viewers_at_once_is_built_once() -> None:
    held = Held(pd.DataFrame({"verdict": ["known"]}))

    answers = asked_at_once(
        held, lambda: cache.built(CONNECTION, "standup.view", ("same", "inputs"), held)
    )

    assert held.calls == 1
    assert answers[0] is answers[1]  # one object shared, not a copy each


def test_an_executions_window_asked_for_by_two_viewers_at_once_is_loaded_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    frame = pd.DataFrame({"execution_id": [1, 2]})
    held = Held(live.ExecutionsData(frame, pd.DataFrame()))
    monkeypatch.setattr(live, "load_executions", held)
    query = ExecutionQuery(plan_id=3)

    answers = asked_at_once(held, lambda: cache.executions(CONNECTION, query))

    assert held.calls == 1
    assert answers[0] is answers[1]


def test_results_asked_for_by_two_viewers_at_once_are_fetched_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    held = Held(FanOut(pd.DataFrame({"result_id": [7]}), ONE_RUNNING))
    monkeypatch.setattr(results_fanout, "fetch_results", held)
    monkeypatch.setattr(cache, "history_store", lambda connection: None)

    answers = asked_at_once(held, lambda: cache._fan_out(CONNECTION, ((5, 9),), ()))

    assert held.calls == 1
    assert [answer.results["result_id"].tolist() for answer in answers] == [[7], [7]]


def test_results_are_kept_once_and_what_one_viewer_does_to_its_frame_stays_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The fan-out is one object in the process (#39's memory: no copy per session), and each
    run gets a frame of its own over it: a column added or a value changed by one viewer's code
    reaches neither the next viewer nor the kept answer."""
    fetched = Held(FanOut(pd.DataFrame({"result_id": [7], "level": ["FAILED"]}), ONE_RUNNING))
    fetched.release.set()
    monkeypatch.setattr(results_fanout, "fetch_results", fetched)
    monkeypatch.setattr(cache, "history_store", lambda connection: None)

    first = cache._fan_out(CONNECTION, ((5, 9),), ())
    first.results["added"] = 1
    first.results.loc[0, "level"] = "PASSED"
    second = cache._fan_out(CONNECTION, ((5, 9),), ())

    assert fetched.calls == 1
    assert second.counts is first.counts  # the one answer kept, not a copy of it
    assert list(second.results.columns) == ["result_id", "level"]
    assert second.results["level"].tolist() == ["FAILED"]
    assert fetched.value.results["level"].tolist() == ["FAILED"]
