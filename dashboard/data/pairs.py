"""Which (execution, scenario) pairs hold the results of some executions.

The service serves results one pair per request; an execution ran its plan's scenarios, so its
pairs come from the plan list. Which executions are finished decides what the store may keep.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

Pair = tuple[int, int]


def result_pairs(
    executions: pd.DataFrame, plans: pd.DataFrame, execution_ids: Iterable[int]
) -> tuple[tuple[Pair, ...], tuple[int, ...]]:
    """The pairs of `execution_ids` (their plans' scenarios, in order) and which of them are
    finished. `executions` has execution_id, plan_id and finished; `plans` plan_id and
    scenario_ids. An execution of a plan not in `plans` has no pairs."""
    wanted = list(dict.fromkeys(int(i) for i in execution_ids))
    rows = executions[executions["execution_id"].isin(wanted)].drop_duplicates("execution_id")
    scenarios = {
        int(plan_id): tuple(int(s) for s in ids)
        for plan_id, ids in zip(plans["plan_id"], plans["scenario_ids"], strict=True)
    }
    plan_of = {
        int(e): (None if pd.isna(p) else int(p))
        for e, p in zip(rows["execution_id"], rows["plan_id"], strict=True)
    }
    pairs = tuple(
        (execution_id, scenario_id)
        for execution_id in wanted
        for scenario_id in scenarios.get(plan_of.get(execution_id) or -1, ())
    )
    finished = tuple(
        int(e) for e, done in zip(rows["execution_id"], rows["finished"], strict=True) if done
    )
    return pairs, tuple(sorted(finished))
