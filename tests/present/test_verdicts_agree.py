"""No two faces disagree on a failure's verdict (#37, item 3's property test): over random
hand-built histories (a plan's daily executions, each scenario's outcome per environment drawn,
now and then the outage night, a few marks of `test_triage_properties`' pool), the Failures
view's rows, the Execution results view's Verdict column and the gate's labels give each failed
result the label `failure_verdicts` gives it over the whole history.

Each face is fed as its page (or command) feeds it: the Failures page judges only the period's
failing executions over each plan's window; the results page judges one execution over its
plan's window (or none, for an outage); the gate judges one execution over the history it
holds. Their inputs differ, so their agreement is not given: it is what is tested.

The States, Flaky, Plan health and Scenario history faces are checked on the hand-built world
with every case (`test_verdicts_states_flaky.py`, `test_verdicts_trends.py`)."""

from __future__ import annotations

from datetime import timedelta
from types import SimpleNamespace
from typing import Any

import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dashboard.analytics import gate, triage
from dashboard.columns import marks as mark_columns
from dashboard.data.live import ResultsData
from dashboard.present import failures_view as view_of
from dashboard.present import results_view
from dashboard.present.gate import verdict_figures
from tests.analytics.frames import results
from tests.analytics.test_triage_properties import MARK_POOL
from tests.analytics.triage_frames import (
    NOW,
    OUTAGE_ID,
    WORLD,
    mark,
    marks,
    summaries,
    world,
    world_results,
)
from tests.present.test_verdicts_trends import header_of

CELLS = st.sampled_from("PPPPFFE.")
"""A scenario's outcome on an environment in one execution: mostly passes, failures now and
then an error or no run (the bad inputs have their own properties: `test_triage_properties`)."""

World = tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]
SETTINGS = settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@st.composite
def worlds(draw: st.DrawFn) -> World:
    length = draw(st.integers(3, 10))
    scenarios = draw(st.integers(1, 4))
    envs = draw(st.sampled_from([("chrome",), ("safari",), ("chrome", "safari")]))
    world = {
        s: {env: "".join(draw(st.lists(CELLS, min_size=length, max_size=length))) for env in envs}
        for s in range(1, scenarios + 1)
    }
    rows = world_results(world, outage=draw(st.booleans()))
    if not rows:
        rows = world_results({1: {"chrome": "PF"}}, outage=False)
    chosen = draw(st.lists(st.sampled_from(range(len(MARK_POOL))), max_size=4, unique=True))
    return results(rows), summaries(rows), marks(*(MARK_POOL[i] for i in sorted(chosen)))


def truth(found: World) -> dict[int, str]:
    """Each failed result's label, judged over the whole history."""
    found_results, executions, the_marks = found
    verdicts = triage.failure_verdicts(found_results, executions, the_marks, now=NOW)
    return by_result(verdicts, "label")


def by_result(frame: pd.DataFrame, column: str) -> dict[int, str]:
    rows = frame[frame["result_id"].notna()]
    return dict(zip(rows["result_id"].astype("int64"), rows[column].astype("str"), strict=True))


def failed_ids(found_results: pd.DataFrame, execution_id: int | None = None) -> set[int]:
    own = found_results
    if execution_id is not None:
        own = own[own["execution_id"] == execution_id]
    failed = own[own["level"].isin(["FAILURE", "ERROR"])]
    return set(failed["result_id"].astype("int64"))


@SETTINGS
@given(worlds(), st.integers(0, 9))
def test_the_failures_view_gives_each_failure_its_verdict(found: World, days: int) -> None:
    """The page judges only the period's failing executions (the last `days` + 1 days), over
    every execution's results (the window holds them all: W is 20)."""
    found_results, executions, the_marks = found
    start = NOW.to_pydatetime() - timedelta(days=days + 1)
    runs = view_of.period_runs(executions, None, start=start, end=None)
    failing = found_results[found_results["execution_id"].isin(runs.failing["execution_id"])]
    verdicts = triage.failure_verdicts(
        view_of.triage_results(found_results, failing),
        runs.executions,
        the_marks,
        now=NOW,
        judged=runs.judged,
    )
    view = view_of.failures_view(
        executions,
        found_results,
        executions[executions["finished"]],
        runs,
        failing,
        verdicts=verdicts,
        marks=the_marks,
        include_outages=True,
        only=(),
        now=NOW.to_pydatetime(),
        scope="",
        plan_names={1: "Shop"},
        scenario_link=lambda plan, scenario: f"scenario?plan={plan}&scenario={scenario}",
        results_link=lambda execution_id, plan, started: f"results?execution={execution_id}",
        tz="UTC",
    )
    expected = truth(found)
    listed = by_result(view.rows, "label")
    assert set(listed) == set().union(*(failed_ids(found_results, e) for e in runs.judged))
    assert listed == {result: expected[result] for result in listed}
    # The State column is the state the verdict was judged beside.
    states = by_result(view.rows, "state")
    shown = by_result(verdicts, "shown_state")
    assert states == {result: shown[result] for result in states}


@SETTINGS
@given(worlds(), st.data())
def test_the_results_page_gives_each_failure_its_verdict(found: World, data: Any) -> None:
    found_results, executions, the_marks = found
    failing = sorted(int(e) for e in executions.loc[executions["failed"] > 0, "execution_id"])
    if not failing:
        return
    execution_id = data.draw(st.sampled_from(failing))
    header = header_of(executions, execution_id)
    own = found_results[found_results["execution_id"] == execution_id]
    window = (
        SimpleNamespace(results=found_results, executions=executions)
        if results_view.wants_window(header, the_marks, finished=True)
        else None
    )
    judged_by, listed = results_view.verdict_input(header, own, finished=True, window=window)
    verdicts = triage.failure_verdicts(judged_by, listed, the_marks, now=NOW, judged=[execution_id])
    view = results_view.results_view(
        ResultsData(own.reset_index(drop=True), scenarios=4),
        header,
        the_marks,
        finished=True,
        tz="UTC",
        now=NOW,
        source="demo",
        scenario_link=str,
        verdicts=verdicts,
    )
    assert view.shown is not None
    expected = truth(found)
    given_labels = by_result(verdicts, "label")
    assert given_labels == {r: expected[r] for r in failed_ids(found_results, execution_id)}
    table = view.shown.table.display
    shown = table.loc[table["Level"].isin(["FAILURE", "ERROR"]), "Verdict"]
    words = {triage_words(label) for label in given_labels.values()}
    assert set(shown) == words


def triage_words(label: str) -> str:
    from dashboard.present.triage import LABEL_TEXT

    return LABEL_TEXT[label]


@SETTINGS
@given(worlds(), st.data())
def test_the_gate_counts_each_failure_by_its_verdict(found: World, data: Any) -> None:
    """The gate judges one finished execution over the history it holds (every other
    execution's results) and the company's marks."""
    found_results, executions, the_marks = found
    execution_id = data.draw(st.sampled_from(sorted(int(e) for e in executions["execution_id"])))
    own = found_results[found_results["execution_id"] == execution_id]
    row = executions[executions["execution_id"] == execution_id].iloc[0]
    judged = gate.gate_verdict(
        passed=int(row["passed"]),
        verdicts=int(row["verdicts"]),
        results=own,
        marks=the_marks,
        now=NOW,
        rules=gate.GateRules(),
        executions=executions,
        history=found_results[found_results["execution_id"] != execution_id],
    )
    expected = truth(found)
    labels = {} if judged.verdicts is None else by_result(judged.verdicts, "label")
    assert labels == {r: expected[r] for r in failed_ids(found_results, execution_id)}
    # The line counts by label what no mark lets through; a mark lets through what it covers
    # (a known failure, and a failure its mark covers inside an outage: see below).
    assert judged.verdicts is not None or not labels
    frame = judged.verdicts if judged.verdicts is not None else pd.DataFrame()
    held = frame[~frame["let_through"]] if labels else frame
    counts = judged.line_counts
    assert set(frame.loc[frame["label"] == triage.KNOWN, "let_through"]) <= {True}
    outside = frame[frame["label"] != triage.OUTAGE] if labels else frame
    assert counts[gate.LINE_KNOWN] == (int(outside["let_through"].sum()) if labels else 0)
    assert counts[gate.LINE_OUTAGE] == (
        int((frame["label"] == triage.OUTAGE).sum()) if labels else 0
    )
    assert counts[gate.LINE_INCOMPLETE] == (
        int((held["label"] == triage.INCOMPLETE).sum()) if labels else 0
    )


def test_a_covered_failure_in_an_outage_is_counted_outage_on_the_gate_s_line() -> None:
    found_results, executions = world(WORLD)
    the_marks = marks(mark("shop-2", mark_columns.SCENARIO, plan_id=1, scenario_id=2))
    own = found_results[found_results["execution_id"] == OUTAGE_ID]
    row = executions[executions["execution_id"] == OUTAGE_ID].iloc[0]
    judged = gate.gate_verdict(
        passed=int(row["passed"]),
        verdicts=int(row["verdicts"]),
        results=own,
        marks=the_marks,
        now=NOW,
        rules=gate.GateRules(),
        executions=executions,
        history=found_results[found_results["execution_id"] != OUTAGE_ID],
    )
    assert judged.verdicts is not None
    assert set(judged.verdicts["label"]) == {triage.OUTAGE}  # holds: the labels agree
    assert judged.line_counts[gate.LINE_OUTAGE] == len(judged.verdicts)
    assert judged.line_counts[gate.LINE_KNOWN] == 0
    # Scenario 2's two failures that night: the mark still lets them through, and the line says so.
    assert judged.line_counts[gate.LINE_OUTAGE_LET_THROUGH] == 2
    assert "in a likely outage (2 of them let through by a mark)" in verdict_figures(judged)
