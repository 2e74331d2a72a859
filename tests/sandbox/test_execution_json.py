"""The executions list is served as JSON that SQLite words (`DemoStore.find_executions_json`),
not by serialising a model per record; `ExecutionRecord` stays the definition. Every record the
demo can serve, in every filter's order, must be the same bytes as its validated model
serialised, including the times and names the generated data never holds.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime

import pytest
from pydantic import TypeAdapter

from sandbox import SandboxSettings
from sandbox.data.generator import build_database
from sandbox.schemas import ExecutionRecord
from sandbox.store import DemoStore, ExecutionCriteria

RECORDS_JSON = TypeAdapter(list[ExecutionRecord])
# Names the generator never makes: quotes, a backslash, accents, an emoji, control characters.
ODD_NAMES = ['Q"uote\\d', "Café Ünïcode ✓ 🚀", "tab\tnew\nline\rbell\x07\x1f end", "</script>"]
# Milliseconds of the times added below: on a whole second, and 1, 10, 100 and 999 past it.
ODD_MILLISECONDS = [0, 1, 10, 100, 999]


def _models_json(store: DemoStore, criteria: ExecutionCriteria, offset: int, limit: int) -> bytes:
    total, records = store.find_executions(criteria, offset, limit)  # validated models
    return str(total).encode() + b" " + RECORDS_JSON.dump_json(records)


def _sql_json(store: DemoStore, criteria: ExecutionCriteria, offset: int, limit: int) -> bytes:
    total, items = store.find_executions_json(criteria, offset, limit)
    return str(total).encode() + b" " + items


@pytest.fixture(scope="module")
def odd_store() -> DemoStore:
    """A 3,000-execution demo (both companies), with odd names and times written in."""
    settings = SandboxSettings(executions=3_000)
    connection = sqlite3.connect(":memory:", check_same_thread=False)
    build_database(connection, settings)
    with connection:
        # Names of what the executions name: the newest's project, plan and user, another plan.
        project, plan, user = connection.execute(
            "SELECT project_id, plan_id, user_id FROM executions ORDER BY start_ms DESC"
        ).fetchone()
        (other_plan,) = connection.execute(
            "SELECT plan_id FROM executions WHERE plan_id != ? LIMIT 1", (plan,)
        ).fetchone()
        for sql, name, row_id in zip(
            (
                "UPDATE projects SET name = ? WHERE id = ?",
                "UPDATE plans SET plan_name = ? WHERE id = ?",
                "UPDATE users SET username = ? WHERE id = ?",
                "UPDATE plans SET plan_name = ? WHERE id = ?",
            ),
            ODD_NAMES,
            (project, plan, user, other_plan),
            strict=True,
        ):
            connection.execute(sql, (name, row_id))
        ids = [row[0] for row in connection.execute("SELECT id FROM executions LIMIT 5")]
        second = int(datetime(2026, 11, 1, 12, tzinfo=UTC).timestamp()) * 1000
        for execution_id, extra in zip(ids, ODD_MILLISECONDS, strict=True):
            connection.execute(
                "UPDATE executions SET start_ms = ?, end_ms = ? WHERE id = ?",
                (second + extra, second + 1000 + (999 - extra), execution_id),
            )
    return DemoStore(connection, settings)


def test_every_record_of_the_demo_is_served_byte_for_byte_as_its_model(
    odd_store: DemoStore,
) -> None:
    for company_id in (1, 2):
        everything = ExecutionCriteria(company_id=company_id)
        total, _ = odd_store.find_executions(everything, 0, 1)
        assert total > 500  # both companies hold executions worth comparing

        assert _sql_json(odd_store, everything, 0, total) == _models_json(
            odd_store, everything, 0, total
        )


def test_the_odd_names_and_times_are_among_what_was_compared(odd_store: DemoStore) -> None:
    served = b"".join(
        odd_store.find_executions_json(ExecutionCriteria(company_id=company), 0, 10_000)[1]
        for company in (1, 2)
    ).decode()

    assert "Café Ünïcode ✓ 🚀" in served
    assert '"Q\\"uote\\\\d"' in served
    assert "tab\\tnew\\nline\\rbell" in served
    assert "</script>" in served
    assert '"start_date":"2026-11-01T12:00:00Z"' in served
    assert '"start_date":"2026-11-01T12:00:00.001000Z"' in served
    assert '"start_date":"2026-11-01T12:00:00.999000Z"' in served


@pytest.mark.parametrize(
    ("criteria", "offset", "limit"),
    [
        (ExecutionCriteria(company_id=1, plan_id=1), 0, 7),
        (ExecutionCriteria(company_id=1, status="FAILURE"), 3, 11),
        (ExecutionCriteria(company_id=1, project_id=1, start_from_ms=0), 20, 25),
        (ExecutionCriteria(company_id=2, start_to_ms=2_000_000_000_000), 100, 100),
        (ExecutionCriteria(company_id=1), 10_000, 50),  # past the end: no records
        (ExecutionCriteria(company_id=99), 0, 10),  # no such company: nothing at all
    ],
)
def test_a_filtered_page_is_the_same_page_as_the_models(
    odd_store: DemoStore, criteria: ExecutionCriteria, offset: int, limit: int
) -> None:
    assert _sql_json(odd_store, criteria, offset, limit) == _models_json(
        odd_store, criteria, offset, limit
    )


def test_a_count_is_taken_once_per_filter_and_stays_right(odd_store: DemoStore) -> None:
    criteria = ExecutionCriteria(company_id=1, plan_id=2)
    first, _ = odd_store.find_executions_json(criteria, 0, 1)
    again, _ = odd_store.find_executions(criteria, 5, 1)
    (counted,) = odd_store._connection.execute(
        "SELECT COUNT(*) FROM executions WHERE company_id = 1 AND plan_id = 2"
    ).fetchone()

    assert first == again == counted > 0
