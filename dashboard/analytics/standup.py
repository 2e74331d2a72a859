"""The standup digest: what changed since the last standup. One definition of each rule, used
by the standup page and by the chat digest alike.

Rules (plans are judged as in `plan_state`: on finished executions with a verdict; a running
newest execution is not a verdict, and the plan is listed in `running`):

- Activity: executions that started in the window, and the results pass rate of the finished
  ones (passed / results with a verdict, pooled), against the previous window of equal length.
- Turned red: the latest judged execution failed and the one before passed.
- Fixed: the latest judged execution passed and the one before failed.
  Both only count when the latest judged execution *started in the window*: they are changes
  since the last standup, and a change seen yesterday is not news today.
- Still failing: the latest two judged executions failed, whenever they ran (a plan that is
  still red is still red, even if it did not run today; `latest_in_window` tells which did).
  `red_since` is the start of the first failing execution after the last pass, and
  `red_executions` how many failing executions that is; when no pass is in the history given,
  `red_since_is_bound` is true and both count only what the history holds.
- Newly failing scenarios: scenario x environment cells that fail in the latest judged
  execution and passed in the one before, for plans whose latest judged execution started in
  the window and failed something. `results_needed` lists exactly those two executions per plan.
- Slower: plans whose median runtime of finished executions that started in the window is at
  least `slower_threshold` (+25 %) above their median over the `baseline_days` (14) before the
  window, with at least `slower_min_executions` (3) executions on each side.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import pandas as pd

from dashboard.analytics.basis import Basis, execution_basis
from dashboard.analytics.outcomes import FAIL, PASS
from dashboard.analytics.plan_state import PLAN_FIGURES_NEED, plan_states
from dashboard.analytics.standup_activity import Activity, activity
from dashboard.analytics.standup_scenarios import (
    NEWLY_FAILING_COLUMNS,
    PAIR_COLUMNS,
    newly_failing_scenarios,
)
from dashboard.analytics.standup_slower import (
    BASELINE_DAYS,
    SLOWER_COLUMNS,
    SLOWER_MIN_EXECUTIONS,
    SLOWER_THRESHOLD,
    slower_plans,
)
from dashboard.analytics.what_changed import WhatChanged, what_changed
from dashboard.analytics.windows import Window
from dashboard.columns.schemas import PLAN_AND_PROJECT, UTC_TIME
from dashboard.columns.shapes import require_columns, typed

# The rules' parts live in standup_activity, standup_slower and standup_scenarios; callers
# import them from here, where the digest puts them together.
__all__ = [
    "BASELINE_DAYS",
    "CHANGE_COLUMNS",
    "NEWLY_FAILING_COLUMNS",
    "PAIR_COLUMNS",
    "RUNNING_COLUMNS",
    "SLOWER_COLUMNS",
    "SLOWER_MIN_EXECUTIONS",
    "SLOWER_THRESHOLD",
    "STILL_FAILING_COLUMNS",
    "Activity",
    "StandupDigest",
    "activity",
    "newly_failing_scenarios",
    "slower_plans",
    "standup_digest",
    "turned_red_changes",
    "with_newly_failing",
]

_PLAN_COLUMNS: dict[str, str] = {
    **PLAN_AND_PROJECT,
    "execution_id": "Int64",  # the latest judged execution
    "start": UTC_TIME,
    "failed": "Int64",
    "verdicts": "Int64",
    "pass_rate": "float64",
    "previous_execution_id": "Int64",
    "previous_start": UTC_TIME,
    "running_execution_id": "Int64",  # a newer execution still running, if any
}
CHANGE_COLUMNS = _PLAN_COLUMNS
"""Columns of `turned_red` and `fixed`."""

STILL_FAILING_COLUMNS: dict[str, str] = {
    **_PLAN_COLUMNS,
    "red_since": UTC_TIME,
    "red_executions": "int64",
    "red_since_is_bound": "boolean",
    "last_pass_execution_id": "Int64",
    "latest_in_window": "boolean",
}

RUNNING_COLUMNS: dict[str, str] = {
    **PLAN_AND_PROJECT,
    "running_execution_id": "Int64",
    "running_start": UTC_TIME,
    "latest_execution_id": "Int64",  # what the plan is judged on meanwhile
    "latest_start": UTC_TIME,
    "latest_outcome": "str",
}


@dataclass(frozen=True, eq=False)
class StandupDigest:
    """Everything the standup page and the chat digest show, as numbers and frames."""

    window: Window
    previous_window: Window
    current: Activity
    previous: Activity
    turned_red: pd.DataFrame  # CHANGE_COLUMNS, newest first
    fixed: pd.DataFrame  # CHANGE_COLUMNS, newest first
    still_failing: pd.DataFrame  # STILL_FAILING_COLUMNS, red longest first
    slower: pd.DataFrame  # SLOWER_COLUMNS, biggest change first
    running: pd.DataFrame  # RUNNING_COLUMNS: plans whose newest execution is running
    pairs: pd.DataFrame  # PAIR_COLUMNS: where newly failing scenarios are looked for
    newly_failing: pd.DataFrame | None  # NEWLY_FAILING_COLUMNS once results are given
    basis: Basis  # executions that started in the window
    newly_failing_basis: Basis | None = None  # the executions needed, and which had results
    slower_threshold: float = SLOWER_THRESHOLD
    slower_min_executions: int = SLOWER_MIN_EXECUTIONS
    baseline_days: int = BASELINE_DAYS

    @property
    def pass_rate_delta(self) -> float | None:
        """This window's pass rate minus the previous window's (None if either has none)."""
        now, before = self.current.pass_rate, self.previous.pass_rate
        return None if now is None or before is None else now - before

    @property
    def results_needed(self) -> tuple[int, ...]:
        """Executions whose results `with_newly_failing` needs, sorted."""
        ids = pd.concat([self.pairs["before_execution_id"], self.pairs["after_execution_id"]])
        return tuple(sorted(int(i) for i in ids.unique()))


def standup_digest(
    executions: pd.DataFrame,
    window: Window,
    *,
    slower_threshold: float = SLOWER_THRESHOLD,
    slower_min_executions: int = SLOWER_MIN_EXECUTIONS,
    baseline_days: int = BASELINE_DAYS,
) -> StandupDigest:
    """The digest of `executions` for `window`.

    `executions` should hold each plan's history far enough back to judge it: the window, the
    `baseline_days` before it, and ideally back to each red plan's last pass (else its
    `red_since` is a bound). Needs execution_id, start, plan_id, finished, verdicts, passed,
    failed, runtime_ms; plan, project_id and project are carried when present.
    Newly failing scenarios need results: call `with_newly_failing` with the results of
    `results_needed`.
    """
    require_columns(executions, PLAN_FIGURES_NEED, "standup digest")
    if slower_threshold < 0 or slower_min_executions < 1 or baseline_days < 1:
        raise ValueError("the slower rule needs a threshold >= 0 and counts >= 1")
    states = plan_states(executions)
    in_window = window.contains(states["latest_start"]).fillna(False).astype(bool)
    latest, previous = states["latest_outcome"], states["previous_outcome"]

    turned_red = _plan_rows(states[in_window & (latest == FAIL) & (previous == PASS)])
    fixed = _plan_rows(states[in_window & (latest == PASS) & (previous == FAIL)])

    failing = states[(latest == FAIL) & (previous == FAIL)]
    still = _plan_rows(failing, sort=False)
    still["red_since"] = failing["streak_since"].to_numpy()
    still["red_executions"] = failing["streak"].to_numpy()
    still["red_since_is_bound"] = failing["streak_from_oldest"].to_numpy()
    still["last_pass_execution_id"] = failing["last_pass_execution_id"].to_numpy()
    still["latest_in_window"] = in_window[failing.index].to_numpy()
    still = typed(still.sort_values(["red_since", "plan_id"], kind="stable"), STILL_FAILING_COLUMNS)

    running = typed(
        states[states["running_execution_id"].notna()].sort_values(
            ["running_start", "plan_id"], ascending=[False, True], kind="stable"
        ),
        RUNNING_COLUMNS,
    )

    candidates = states[
        in_window
        & (latest == FAIL)
        & states["previous_execution_id"].notna()
        & (states["latest_failed"] > 0)
    ]
    pairs = typed(
        pd.DataFrame(
            {
                "plan_id": candidates["plan_id"],
                "plan": candidates["plan"],
                "before_execution_id": candidates["previous_execution_id"],
                "after_execution_id": candidates["latest_execution_id"],
            }
        ),
        PAIR_COLUMNS,
    )

    previous_window = window.previous()
    inside = executions[window.contains(executions["start"])]
    return StandupDigest(
        window=window,
        previous_window=previous_window,
        current=activity(executions, window),
        previous=activity(executions, previous_window),
        turned_red=turned_red,
        fixed=fixed,
        still_failing=still,
        slower=slower_plans(
            executions,
            window,
            threshold=slower_threshold,
            min_executions=slower_min_executions,
            baseline_days=baseline_days,
        ),
        running=running,
        pairs=pairs,
        newly_failing=None,
        basis=execution_basis(inside, start=window.start, end=window.end),
        slower_threshold=slower_threshold,
        slower_min_executions=slower_min_executions,
        baseline_days=baseline_days,
    )


def _plan_rows(states: pd.DataFrame, *, sort: bool = True) -> pd.DataFrame:
    rows = pd.DataFrame(
        {
            "plan_id": states["plan_id"],
            "plan": states["plan"],
            "project_id": states["project_id"],
            "project": states["project"],
            "execution_id": states["latest_execution_id"],
            "start": states["latest_start"],
            "failed": states["latest_failed"],
            "verdicts": states["latest_verdicts"],
            "pass_rate": states["latest_pass_rate"],
            "previous_execution_id": states["previous_execution_id"],
            "previous_start": states["previous_start"],
            "running_execution_id": states["running_execution_id"],
        }
    )
    if not sort:
        return rows
    rows = rows.sort_values(["start", "plan_id"], ascending=[False, True], kind="stable")
    return typed(rows, CHANGE_COLUMNS)


def with_newly_failing(digest: StandupDigest, results: pd.DataFrame) -> StandupDigest:
    """The digest with `newly_failing` filled from `results` (those of `results_needed`), and
    `newly_failing_basis` saying how many of the needed executions had results."""
    newly = newly_failing_scenarios(digest.pairs, results)
    needed = digest.results_needed
    read = results[results["execution_id"].isin(needed)]
    basis = Basis(
        executions=len(needed),
        finished=len(needed),
        running=0,
        judged=len(needed),
        with_results=int(read["execution_id"].nunique()),
        results=len(read),
    )
    return dataclasses.replace(digest, newly_failing=newly, newly_failing_basis=basis)


def turned_red_changes(
    digest: StandupDigest,
    executions: pd.DataFrame,
    results: pd.DataFrame,
    plans: pd.DataFrame | None,
) -> WhatChanged:
    """What changed for each plan that turned red (`what_changed`): the judged execution before,
    which passed, beside the one that failed. `results` are those of `results_needed` (they hold
    both executions of every such plan); `plans`, the plans answer, when known."""
    turned = digest.turned_red
    pairs = pd.DataFrame(
        {
            "plan_id": turned["plan_id"],
            "green_execution_id": turned["previous_execution_id"],
            "red_execution_id": turned["execution_id"],
        }
    )
    return what_changed(pairs, executions, results, plans)


HISTORY_BEFORE_WINDOW = pd.Timedelta(days=30)
"""How far before the window a digest's executions reach: "still failing" counts back to the
last green execution, and the slower rule compares with the days before."""


def history_start(window: Window) -> pd.Timestamp:
    """Where the executions a digest of `window` needs begin (the page and the command line
    both ask the service from here)."""
    return min(window.previous().start, window.start - HISTORY_BEFORE_WINDOW)
