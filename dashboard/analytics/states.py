"""Scenario states: each scenario of each plan is flaky, broken, environment-specific,
recovering, failing, passing, or there is not enough data to say, with the numbers that put it
there.

Over each plan's last W finished executions (`flaky.last_finished`), a scenario's *runs* are
its passes and failures there (a failure on any environment fails the scenario in that
execution, as in `flaky.py`). The first rule that holds names its state:

1. *not enough data*: fewer than K (`min_runs`, 5) runs in the window. A scenario with one run,
   or none with a verdict, is never given a number it cannot carry.
2. *flaky*: `flaky.flaky_scenarios` flags it (score >= the threshold, at least two flips, at
   least K runs; on one environment or across them).
3. *environment-specific*: `environments.environment_specific` flags it on some environment
   (it fails there and passes elsewhere), as the Environments page finds it.
4. *broken*: it failed in at least `broken_share` (90 %) of its last N (`broken_runs`, 10) runs
   (of all its runs when it has fewer than N).
5. *recovering*: its latest run passed, it failed earlier in the window, and it has passed
   fewer than K runs in a row since.
6. *failing*: its latest run failed (a new failure, or one that is none of the above).
7. *passing*: the rest: its latest run passed, K or more times in a row, or it never failed.

`latest_pass_first` reads the states as the failure verdicts (`triage.PRECEDENCE`) order them:
a passing latest run outranks every failing state, so a scenario that failed 9 of its last 10
runs and passed the 10th is recovering, never broken. `scenario_states` keeps the rules above
as written (the verdicts carry its state in their rows); the pages show `latest_pass_first`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from dashboard.analytics import flaky
from dashboard.analytics.basis import Basis
from dashboard.analytics.environments import environment_matrix, environment_specific
from dashboard.columns.schemas import PLAN_SCENARIO
from dashboard.columns.shapes import typed

FLAKY = "flaky"
BROKEN = "broken"
ENVIRONMENT_SPECIFIC = "environment-specific"
RECOVERING = "recovering"
FAILING = "failing"
PASSING = "passing"
NOT_ENOUGH_DATA = "not enough data"
STATES: tuple[str, ...] = (
    FLAKY,
    BROKEN,
    ENVIRONMENT_SPECIFIC,
    RECOVERING,
    FAILING,
    NOT_ENOUGH_DATA,
    PASSING,
)
"""Every state, in the order a list shows them (what needs a look first)."""

DEFAULT_MIN_RUNS = flaky.MIN_RUNS
"""K: fewer runs in the window is not enough data; fewer clean runs since a failure is
recovering."""
DEFAULT_BROKEN_RUNS = 10
"""N: a broken scenario failed in at least `BROKEN_SHARE` of its last N runs."""
BROKEN_SHARE = 0.9


@dataclass(frozen=True)
class StateRules:
    """The settings of the rules (module docstring): W, the flaky threshold, K and N."""

    window: int = flaky.DEFAULT_WINDOW
    threshold: float = flaky.DEFAULT_THRESHOLD
    min_runs: int = DEFAULT_MIN_RUNS
    broken_runs: int = DEFAULT_BROKEN_RUNS
    broken_share: float = BROKEN_SHARE

    def __post_init__(self) -> None:
        if self.min_runs < 2:
            raise ValueError(f"a state needs at least 2 runs to judge, got K={self.min_runs}")
        if self.broken_runs < 1 or not 0 < self.broken_share <= 1:
            raise ValueError("the broken rule needs N >= 1 and a share in (0, 1]")

    def with_changes(self, **changes: object) -> StateRules:
        return replace(self, **changes)  # type: ignore[arg-type]


STATE_COLUMNS: dict[str, str] = {
    **PLAN_SCENARIO,
    "state": "str",
    "runs": "int64",  # passes and failures in the window
    "passes": "int64",
    "fails": "int64",
    "flips": "int64",
    "score": "float64",  # flips / (runs - 1); NaN below 2 runs
    "sequence": "str",  # flaky.py's: one character per execution of the window, oldest first
    "flaky_reason": "str",  # "environment" / "scenario" when flaky, else missing
    "flaky_environment": "str",  # the environment that flips, when the reason is "environment"
    "environment_flips": "Int64",
    "environment_runs": "Int64",
    "environment_score": "float64",
    "last_runs": "int64",  # of its last N runs, how many there are
    "last_fails": "int64",  # and how many of them failed
    "clean_runs": "int64",  # runs passed in a row, newest back (all runs when none failed)
    "trailing_fails": "int64",  # runs failed in a row, newest back
    "specific_environments": "object",  # tuple of labels where its failures concentrate
    "specific_failed": "Int64",  # its failures there
    "specific_runs": "Int64",  # its runs there
    "elsewhere_passed": "Int64",  # its passes on the other environments
    "elsewhere_runs": "Int64",
}


@dataclass(frozen=True, eq=False)
class ScenarioStates:
    """scenarios: `STATE_COLUMNS`, one row per plan x scenario with a result in the window,
    ordered by state (`STATES`), then plan and scenario. flakiness: the flaky analysis the
    states were drawn from (its positions say which execution each character is). basis: the
    executions of the window, and which had results."""

    scenarios: pd.DataFrame
    flakiness: flaky.Flakiness
    rules: StateRules
    basis: Basis

    def counts(self) -> dict[str, int]:
        """Scenarios per state, every state present (0 when none)."""
        return state_counts(self.scenarios)


def state_counts(scenarios: pd.DataFrame) -> dict[str, int]:
    """Scenarios per state of a `STATE_COLUMNS` frame, every state present, in `STATES` order."""
    tally = scenarios["state"].value_counts()
    return {state: int(tally.get(state, 0)) for state in STATES}


def scenario_states(
    executions: pd.DataFrame,
    results: pd.DataFrame,
    rules: StateRules | None = None,
    *,
    cells: pd.DataFrame | None = None,
) -> ScenarioStates:
    """The state of every scenario of `results` over each plan's last `rules.window` finished
    executions of `executions` (module docstring).

    The window's cells (`outcomes.result_cells`) are computed once and read by both rules that
    need them (flaky and environment-specific); `cells`, when the caller has them already
    (`result_cells` of `results`, or of any results holding the window's), are not computed
    again. The answer is the same either way."""
    rules = rules or StateRules()
    flakiness = flaky.flaky_scenarios(
        executions,
        results,
        window=rules.window,
        threshold=rules.threshold,
        min_runs=rules.min_runs,
        cells=cells,
    )
    scen = flakiness.scenarios
    if scen.empty:
        return ScenarioStates(typed(scen, STATE_COLUMNS), flakiness, rules, flakiness.basis)
    keys = ["plan_id", "scenario_id"]
    out = scen[[*keys, "runs", "passes", "fails", "flips", "score", "sequence"]].copy()
    # Said with the scenario's own numbers when they meet the rule, else its flipping
    # environment's (flaky.py names the environment first whenever one flips).
    own = (
        scen["enough_runs"]
        & (scen["flips"] >= 2)
        & (scen["score"].fillna(-1.0) >= rules.threshold - 1e-12)
    )
    out["flaky_reason"] = pd.Series(
        np.where(own, "scenario", "environment"), index=scen.index, dtype="str"
    ).where(scen["flagged"])

    # The flipping environment of a scenario flaky because of one environment.
    env = flakiness.environments
    flagged_env = env[env["flagged"]].drop_duplicates(keys)  # the most flaky first
    by_env = flagged_env.set_index(keys)[["environment", "flips", "runs", "score"]]
    by_env.columns = ["flaky_environment", "environment_flips", "environment_runs", "env_score"]
    out = out.join(by_env, on=keys)
    out = out.rename(columns={"env_score": "environment_score"})
    is_env_reason = out["flaky_reason"] == "environment"
    for column in ("flaky_environment", "environment_flips", "environment_runs"):
        out[column] = out[column].where(is_env_reason)
    out["environment_score"] = out["environment_score"].where(is_env_reason)

    # Runs only (P and F), oldest first, for the broken and recovering rules.
    verdicts = [_runs_only(s) for s in out["sequence"]]
    last = [r[-rules.broken_runs :] for r in verdicts]
    out["last_runs"] = [len(r) for r in last]
    out["last_fails"] = [r.count("F") for r in last]
    out["clean_runs"] = [len(r) - r.rfind("F") - 1 for r in verdicts]
    out["trailing_fails"] = [len(r) - len(r.rstrip("F")) for r in verdicts]

    out = out.join(_specific(flakiness), on=keys)

    enough = out["runs"] >= rules.min_runs
    is_flaky = out["flaky_reason"].notna()
    is_specific = out["specific_environments"].notna()
    broken = out["last_fails"] >= rules.broken_share * out["last_runs"] - 1e-9
    latest_failed = out["trailing_fails"] > 0
    failed_before = out["fails"] > 0
    recovering = ~latest_failed & failed_before & (out["clean_runs"] < rules.min_runs)
    out["state"] = np.select(
        [~enough, is_flaky, is_specific, broken, recovering, latest_failed],
        [NOT_ENOUGH_DATA, FLAKY, ENVIRONMENT_SPECIFIC, BROKEN, RECOVERING, FAILING],
        default=PASSING,
    )
    order = {state: i for i, state in enumerate(STATES)}
    out = out.assign(_order=out["state"].map(order)).sort_values(
        ["_order", "plan_id", "scenario_id"], kind="stable"
    )
    return ScenarioStates(typed(out, STATE_COLUMNS), flakiness, rules, flakiness.basis)


def latest_pass_first(found: ScenarioStates) -> ScenarioStates:
    """`found` with a passing latest run outranking every failing state, as in the failure
    verdicts: an environment-specific or broken scenario whose latest run passed, and whose
    latest run passed on every environment it failed on in the window (so each of its failures
    is judged recovering), is recovering (fewer than K clean runs) or passing. Flaky and not
    enough data stay: a flaky scenario's latest pass is no sign of a fix."""
    scenarios = found.scenarios
    failing = scenarios["state"].isin([ENVIRONMENT_SPECIFIC, BROKEN])
    if not failing.any():
        return found
    keys = ["plan_id", "scenario_id"]
    envs = found.flakiness.environments
    env_runs = [_runs_only(s) for s in envs["sequence"]]
    still_failing = pd.Series(
        [bool(r) and "F" in r and r[-1] == "F" for r in env_runs], index=envs.index
    )
    held = envs.loc[still_failing.to_numpy(dtype=bool), keys].drop_duplicates()
    fails_somewhere = pd.MultiIndex.from_frame(held.astype("int64"))
    at = pd.MultiIndex.from_frame(scenarios[keys].astype("int64"))
    passes_now = (
        (scenarios["trailing_fails"] == 0)
        & (scenarios["runs"] > 0)
        & ~np.asarray(at.isin(fails_somewhere), dtype=bool)
    )
    moved = failing & passes_now
    if not moved.any():
        return found
    recovering = scenarios["clean_runs"] < found.rules.min_runs
    state = scenarios["state"].where(~moved, np.where(recovering, RECOVERING, PASSING))
    order = {name: i for i, name in enumerate(STATES)}
    out = scenarios.assign(state=state, _order=state.map(order)).sort_values(
        ["_order", "plan_id", "scenario_id"], kind="stable"
    )
    return replace(found, scenarios=typed(out, STATE_COLUMNS))


def _runs_only(sequence: object) -> str:
    text = sequence if isinstance(sequence, str) else ""
    return "".join(char for char in text if char in "PF")


_SPECIFIC_COLUMNS = [
    "specific_environments",
    "specific_failed",
    "specific_runs",
    "elsewhere_passed",
    "elsewhere_runs",
]


def _specific(flakiness: flaky.Flakiness) -> pd.DataFrame:
    """Per plan x scenario flagged environment-specific over the flaky window's executions
    (the cells the flaky analysis read): the environments, its failures and runs there, and
    its passes and runs elsewhere."""
    specific = environment_specific(environment_matrix(cells=flakiness.cells))
    if specific.empty:
        return pd.DataFrame(
            columns=_SPECIFIC_COLUMNS,
            index=pd.MultiIndex.from_arrays([[], []], names=["plan_id", "scenario_id"]),
        )
    grouped = specific.sort_values("environment", kind="stable").groupby(
        ["plan_id", "scenario_id"], dropna=False
    )
    return pd.DataFrame(
        {
            "specific_environments": grouped["environment"].agg(lambda labels: tuple(labels)),
            "specific_failed": grouped["failed"].sum(),
            "specific_runs": grouped["runs"].sum(),
            # Every flagged row of a scenario has the same "elsewhere" (its healthy ones).
            "elsewhere_passed": grouped["elsewhere_passed"].first(),
            "elsewhere_runs": grouped["elsewhere_runs"].first(),
        }
    )
