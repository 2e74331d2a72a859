"""The server gets its store ready as it starts (`Source.warm`, in the background): on a store
the viewer's token has never read results from (one filled by the worker's sync, or by another
token), it proves the reader then, so that the first question reads the stored results without
asking the service for any (at 100,000 executions that proof was a fifth of the `failures`
tool's first answer: benchmarks/RESULTS.md, case 12)."""

from __future__ import annotations

from typing import Any

import pytest

from dashboard.assistant.history import forget_loads
from dashboard.data.store import open_for
from tests.assistant.conftest import History, ask_here, rows, tools_for

LAST_WEEK = ("failures", {"period": "last_7_days", "detail": "full"})


@pytest.fixture
def results_asked(history: History, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The results requests the planted service answered, in order."""
    asked: list[str] = []
    real = history.service.answer

    def counted(target: str) -> tuple[int, Any]:
        if target.startswith("/api/results/"):
            asked.append(target)
        return real(target)

    monkeypatch.setattr(history.service, "answer", counted)
    return asked


def _knows(env: dict[str, str]) -> bool:
    connection = tools_for(env).source.connection
    with open_for(connection, secrets={}, env=env) as store:
        return store.knows_reader(connection.fingerprint)


def test_a_server_starting_on_a_store_its_token_never_read_proves_it_before_any_question(
    history: History, results_asked: list[str]
) -> None:
    # Another token filled the store: its reader is known, every finished result is stored.
    filled = ask_here(history.env, [LAST_WEEK])
    forget_loads()
    viewer = {**history.env, "QA_DASHBOARD_TOKEN": "the-viewer-s-own-token"}
    assert not _knows(viewer)

    tools_for(viewer).source.warm()
    assert _knows(viewer)
    assert len(results_asked) > 1  # the filling, then the one result the proof asked for

    asked = len(results_asked)
    (answer,) = ask_here(viewer, [LAST_WEEK])
    assert results_asked[asked:] == []  # every result from the store: nothing left to prove
    assert rows(answer) == rows(filled[0])


def test_a_server_starting_on_an_empty_store_leaves_the_proof_to_the_first_question(
    history: History, results_asked: list[str]
) -> None:
    tools_for(history.env).source.warm()
    assert results_asked == []  # nothing stored to prove with
    assert not _knows(history.env)
    (answer,) = ask_here(history.env, [LAST_WEEK])
    assert rows(answer)
    assert _knows(history.env)


def test_a_server_starting_while_its_service_is_down_starts_all_the_same(
    history: History,
) -> None:
    ask_here(history.env, [LAST_WEEK])
    forget_loads()
    down = {
        **history.env,
        "QA_DASHBOARD_BASE_URL": "http://127.0.0.1:9",
        "QA_DASHBOARD_TOKEN": "another-token",
    }
    tools_for(down).source.warm()  # said in the log; the questions will say it to the viewer
    assert not _knows(down)


def test_the_start_and_questions_read_one_store_and_a_failed_open_is_tried_again(
    history: History, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every reading of a server reads one store object, whose operations take turns: the
    start's warming and a first question at once (or two questions over HTTP) never write one
    DuckDB database from two stores of the process. A store that could not be opened is not
    kept: the next question opens it."""
    from dashboard.cli import common

    source = tools_for(history.env).source
    real = common.open_store
    opened: list[object] = []

    def counted(*args: Any, **kwargs: Any) -> Any:
        if not opened:
            opened.append("refused")
            raise common.CliError("the store is away for a moment", common.STORE)
        store = real(*args, **kwargs)
        opened.append(store)
        return store

    monkeypatch.setattr(common, "open_store", counted)

    with pytest.raises(common.CliError), source.reading():
        pass
    with source.reading() as first, source.reading() as second:
        assert first.store is second.store
    source.warm()
    with source.reading() as later:
        assert later.store is first.store
    assert opened == ["refused", first.store]
    source.shared.close()
