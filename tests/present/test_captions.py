"""Captions that say what a figure was computed from, worded from the fan-out's counts."""

from __future__ import annotations

from datetime import date

import pandas as pd

from dashboard.analytics.basis import Basis
from dashboard.data.fanout_answer import FanOutCounts
from dashboard.present.captions import describe_basis, describe_results, describe_results_source


def counts(**changes: int) -> FanOutCounts:
    values = {
        "pairs": 2_760,
        "from_store": 2_500,
        "fetched": 260,
        "stored": 40,
        "failed": 0,
        "executions": 230,
        "executions_complete": 212,
        "executions_running": 18,
        "executions_incomplete": 0,
    }
    values.update(changes)
    return FanOutCounts(**values)


def test_the_issue_example_reads_as_written() -> None:
    assert describe_results(counts()) == "results of 212 of 230 executions; 18 still running"


def test_incomplete_executions_are_named() -> None:
    text = describe_results(counts(executions_complete=210, executions_incomplete=2))
    assert text.startswith("results of 210 of 230 executions; 18 still running; 2 incomplete")


def test_the_basis_caption_takes_the_fan_outs_counts() -> None:
    basis = Basis(
        executions=230,
        finished=212,
        running=18,
        judged=212,
        first=pd.Timestamp("2026-11-15T08:00Z"),
        last=pd.Timestamp("2026-11-20T08:00Z"),
    )
    text = describe_basis(basis, today=date(2026, 11, 20), fetched=counts())
    assert text.startswith("From 230 executions, ")
    assert text.endswith("; results of 212 of 230 executions; 18 still running")


def test_one_executions_source_is_said() -> None:
    stored = counts(pairs=12, from_store=12, fetched=0, stored=0)
    fetched = counts(pairs=12, from_store=0, fetched=12, stored=12)
    assert "history store: no request" in describe_results_source(stored, finished=True)
    assert "(12 requests) and kept" in describe_results_source(fetched, finished=True)
    assert "still running" in describe_results_source(fetched, finished=False)
    assert describe_results_source(None, finished=True) == ""
