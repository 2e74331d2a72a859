"""Properties of the failure verdicts (`analytics.triage`) on small random worlds: every failed
result gets exactly one label of `PRECEDENCE` (and every result of an unknown status, and every
execution lacking failures its summary counts, a row that says so), and the labels are a
function of the inputs: shuffling the rows of the results, the executions or the marks changes
nothing."""

from __future__ import annotations

from typing import Any

import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dashboard.analytics import triage
from dashboard.columns import marks as columns
from tests.analytics.frames import results, ts
from tests.analytics.triage_frames import (
    NOW,
    mark,
    marks,
    summaries,
    world_results,
)

CELLS = st.sampled_from("PPPFFE?W.")
"""A scenario's outcome on an environment in one execution: mostly passes and failures, now and
then an error, an unknown status ("BLOCKED"), a warning, or no run."""

MARK_POOL: tuple[dict[str, Any], ...] = (
    mark("scenario-1", columns.SCENARIO, plan_id=1, scenario_id=1),
    mark(
        "scenario-2-safari",
        columns.SCENARIO_ENVIRONMENT,
        plan_id=1,
        scenario_id=2,
        environment="SAFARI 17 / macOS",
    ),
    mark("group-2", columns.FAILURE_GROUP, signature="AssertionError: scenario {n}", plan_id=1),
    mark("outage-3", columns.EXECUTION, kind=columns.OUTAGE, execution_id=3),
    mark("not-11", columns.EXECUTION, kind=columns.NOT_AN_OUTAGE, execution_id=11),
    mark("expired-3", columns.SCENARIO, plan_id=1, scenario_id=3, expires_on=ts("2026-11-02")),
    mark("closed-2", columns.SCENARIO, plan_id=1, scenario_id=2, closed_at=ts("2026-11-03")),
    mark("muted-3", columns.SCENARIO, kind="muted", plan_id=1, scenario_id=3),
    mark("odd-target", "test_case", plan_id=1, scenario_id=1),
    mark("blank", "test_case"),
    mark("later-1", columns.SCENARIO, plan_id=1, scenario_id=1, created_at=ts("2026-11-05")),
)


@st.composite
def worlds(draw: st.DrawFn) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    length = draw(st.integers(1, 6))
    scenarios = draw(st.integers(1, 3))
    envs = draw(st.sampled_from([("chrome",), ("safari",), ("chrome", "safari")]))
    world = {
        s: {env: "".join(draw(st.lists(CELLS, min_size=length, max_size=length))) for env in envs}
        for s in range(1, scenarios + 1)
    }
    rows = world_results(world, outage=draw(st.booleans()))
    ids = sorted({row["execution_id"] for row in rows})
    if not ids:
        rows = world_results({1: {"chrome": "F"}}, outage=False)
        ids = [1]
    running = draw(st.lists(st.sampled_from(ids), max_size=2, unique=True))
    extra = draw(st.dictionaries(st.sampled_from(ids), st.integers(1, 2), max_size=2))
    executions = summaries(rows, running=running, extra_failed=extra)
    if draw(st.booleans()):  # an execution not given
        executions = executions[executions["execution_id"] != draw(st.sampled_from(ids))]
    chosen = draw(st.lists(st.sampled_from(range(len(MARK_POOL))), max_size=5, unique=True))
    return results(rows), executions, marks(*(MARK_POOL[i] for i in sorted(chosen)))


def shuffled(frame: pd.DataFrame, seed: int) -> pd.DataFrame:
    return frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(worlds(), st.integers(0, 2**16))
def test_one_label_per_failed_result_whatever_the_order(
    found: tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame], seed: int
) -> None:
    found_results, found_executions, found_marks = found
    verdicts = triage.failure_verdicts(found_results, found_executions, found_marks, now=NOW)

    assert set(verdicts["label"]) <= set(triage.PRECEDENCE)
    judged = verdicts[verdicts["result_id"].notna()]
    assert judged["result_id"].is_unique
    levels = found_results.set_index("result_id")["level"]
    failed = set(levels.index[levels.isin(["FAILURE", "ERROR"])])
    unknown = set(levels.index[levels == "BLOCKED"])
    assert set(judged["result_id"].astype("int64")) == failed | unknown
    of_unknown = verdicts[verdicts["level"] == "BLOCKED"]
    assert set(of_unknown["label"]) <= {triage.INCOMPLETE}
    lacking = verdicts[verdicts["result_id"].isna()]
    assert set(lacking["label"]) <= {triage.INCOMPLETE}
    assert lacking["execution_id"].is_unique
    incomplete = verdicts[verdicts["label"] == triage.INCOMPLETE]
    assert incomplete["incomplete"].isin(triage.INCOMPLETE_REASONS).all()
    assert verdicts.loc[verdicts["label"] == triage.KNOWN, "mark_id"].notna().all()

    again = triage.failure_verdicts(
        shuffled(found_results, seed),
        shuffled(found_executions, seed + 1),
        shuffled(found_marks, seed + 2),
        now=NOW,
    )
    pd.testing.assert_frame_equal(again, verdicts)
