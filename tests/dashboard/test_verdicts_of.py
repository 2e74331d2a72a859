"""The one verdict per failed result, as pages read it (`ui.triage.verdicts_of`): the analytic's
answer, made once per input and made again when a mark changes or the day turns."""

from __future__ import annotations

from unittest import mock

import pandas as pd
from pydantic import SecretStr

from dashboard.analytics import triage
from dashboard.columns.marks import MARK_LOG_COLUMNS
from dashboard.columns.shapes import empty
from dashboard.data.cache_history import Ledger
from dashboard.data.connection import Connection
from dashboard.ui import triage as triage_view
from tests.analytics import triage_frames as tf


def _connection(company_id: int) -> Connection:
    """A connection of its own per test: the cache is shared by every connection alike."""
    return Connection(
        base_url="https://verdicts-of.test", token=SecretStr("t"), company_id=company_id
    )


def _ledger(marks: pd.DataFrame) -> Ledger:
    return Ledger(marks=marks, log=empty(MARK_LOG_COLUMNS), writable=False)


def test_pages_read_the_analytic_s_verdicts_made_once_per_input() -> None:
    results, executions = tf.world()
    ledger = _ledger(tf.NO_MARKS)
    connection = _connection(4101)
    expected = triage.failure_verdicts(results, executions, tf.NO_MARKS, now=tf.NOW)

    with mock.patch.object(
        triage_view, "failure_verdicts", wraps=triage.failure_verdicts
    ) as computed:
        first = triage_view.verdicts_of(connection, results, executions, ledger, now=tf.NOW)
        again = triage_view.verdicts_of(
            connection, results.copy(), executions.copy(), ledger, now=tf.NOW
        )

    pd.testing.assert_frame_equal(first, expected)
    assert again is first
    assert computed.call_count == 1


def test_a_changed_mark_the_judged_executions_or_a_new_day_make_the_verdicts_again() -> None:
    results, executions = tf.world()
    connection = _connection(4102)
    plain = _ledger(tf.NO_MARKS)
    marked = _ledger(tf.marks(tf.mark("m-1", "scenario", plan_id=1, scenario_id=2)))
    with mock.patch.object(
        triage_view, "failure_verdicts", wraps=triage.failure_verdicts
    ) as computed:
        base = triage_view.verdicts_of(connection, results, executions, plain, now=tf.NOW)
        known = triage_view.verdicts_of(connection, results, executions, marked, now=tf.NOW)
        one = triage_view.verdicts_of(
            connection, results, executions, plain, now=tf.NOW, judged=[10]
        )
        later = triage_view.verdicts_of(
            connection, results, executions, plain, now=tf.NOW + pd.Timedelta(days=1)
        )

    assert computed.call_count == 4
    assert triage.label_counts(known)[triage.KNOWN] > triage.label_counts(base)[triage.KNOWN]
    assert set(one["execution_id"]) == {10}
    assert len(later) == len(base)
