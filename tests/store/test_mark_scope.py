"""A failure group mark's scope in the history store, on a DuckDB file and on PostgreSQL alike:
a group of its plan, of one environment and of every plan each come back as written, their log
says the scope, and a script's group of one environment is checked against the environments
the stored failures ran on; `known add --scope`'s options are read into a plan or an
environment, or refused in a sentence."""

from __future__ import annotations

from datetime import UTC, datetime

import pandas as pd
import pytest

from dashboard.analytics.marks import group_scope
from dashboard.cli import known as known_cli
from dashboard.cli.common import CliError
from dashboard.columns import marks as columns
from dashboard.data.store import HistoryStore
from dashboard.data.store.marks import MarkDraft, MarkTarget
from tests.analytics.frames import CHROME_131, DESKTOP, result, results

NOW = datetime(2026, 11, 24, 9, 30, tzinfo=UTC)
COMPANY = 1
SIGNATURE = "TimeoutException: after {n} ms"
CHROME = "CHROME / Windows 10"


def group(**fields: object) -> MarkDraft:
    target = MarkTarget(columns.FAILURE_GROUP, signature=SIGNATURE, **fields)  # type: ignore[arg-type]
    return MarkDraft(target=target, kind=columns.KNOWN_ISSUE)


def test_each_scope_round_trips_and_its_log_says_it(store: HistoryStore) -> None:
    ids = [
        store.add_mark(COMPANY, group(plan_id=7), by="ann", now=NOW),
        store.add_mark(COMPANY, group(environment=f"  {CHROME} "), by="ann", now=NOW),
        store.add_mark(COMPANY, group(), by="ann", now=NOW),
    ]

    marks = store.marks(COMPANY).set_index("mark_id").loc[ids]
    assert marks["plan_id"].tolist() == [7, pd.NA, pd.NA]
    assert marks["environment"].fillna("-").tolist() == ["-", CHROME, "-"]
    rows = marks.reset_index().to_dict("records")
    assert [group_scope(row) for row in rows] == ["plan", "environment", "all"]
    log = store.mark_log(COMPANY).set_index("mark_id").loc[ids, "what"].tolist()
    assert log == [
        f'known issue: failure group "{SIGNATURE}" of plan 7',
        f'known issue: failure group "{SIGNATURE}" on {CHROME}',
        f'known issue: failure group "{SIGNATURE}" of every plan',
    ]


def stored_failures(store: HistoryStore) -> None:
    frame = results(
        [
            result(10, 1, "FAILURE", CHROME_131, plan_id=7, message="TimeoutException: after 5 ms"),
            result(20, 1, "FAILURE", DESKTOP, plan_id=8, message="TimeoutException: after 9 ms"),
            result(20, 2, "SUCCESS", CHROME_131, plan_id=8),
        ]
    )
    pairs = frame.groupby(["execution_id", "scenario_id"]).size().rename("result_count")
    store.add_results(frame, pairs.reset_index())


def test_a_scripts_group_of_one_environment_must_be_where_a_failure_ran(
    store: HistoryStore,
) -> None:
    stored_failures(store)

    def problem(**fields: object) -> str | None:
        target = MarkTarget(columns.FAILURE_GROUP, signature=SIGNATURE, **fields)  # type: ignore[arg-type]
        return known_cli.unknown_target(store, target)

    assert problem(environment=CHROME) is None
    # A label with the browser's version names the environment too.
    assert problem(environment="CHROME 130 / Windows 10") is None
    assert problem(environment="SAFARI / macOS") is None
    refused = problem(environment="FIREFOX / Linux")
    assert refused is not None
    assert refused.startswith('No stored failure of any plan ran on "FIREFOX / Linux"')
    assert "CHROME / Windows 10; SAFARI / macOS" in refused


def test_a_scripts_group_typed_with_a_version_is_kept_as_the_environment(
    store: HistoryStore,
) -> None:
    """As the pages name it: the mark covers every version, and its target says so."""
    stored_failures(store)

    def named(environment: str) -> str | None:
        target = MarkTarget(columns.FAILURE_GROUP, signature=SIGNATURE, environment=environment)
        return known_cli.named_environment(store, target).environment

    assert named("CHROME 130 / Windows 10") == CHROME
    assert named(CHROME) == CHROME
    assert named("SAFARI 17 / macOS") == "SAFARI / macOS"


@pytest.mark.parametrize(
    ("scope", "plan", "environment", "expected"),
    [
        (None, 7, None, (7, None)),
        (None, None, CHROME, (None, CHROME)),
        (None, None, None, (None, None)),
        ("plan", 7, None, (7, None)),
        ("environment", None, "CHROME  /  Windows 10", (None, CHROME)),
        ("all", None, None, (None, None)),
    ],
)
def test_known_add_reads_its_scope_options(
    scope: str | None, plan: int | None, environment: str | None, expected: tuple[object, ...]
) -> None:
    assert known_cli.group_scope(scope, plan, environment) == expected


@pytest.mark.parametrize(
    ("scope", "plan", "environment", "said"),
    [
        (None, 7, CHROME, "not both"),
        ("plan", None, None, "--scope plan needs --plan"),
        ("environment", 7, CHROME, "and no --plan"),
        ("environment", None, None, "--scope environment needs --environment"),
        ("all", 7, None, "--scope all covers every plan"),
    ],
)
def test_known_add_refuses_options_that_do_not_fit_the_scope(
    scope: str | None, plan: int | None, environment: str | None, said: str
) -> None:
    with pytest.raises(CliError, match=said):
        known_cli.group_scope(scope, plan, environment)
