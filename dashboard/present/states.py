"""The scenario states page's words: each state's evidence as a sentence ("6 flips in 19 chances
over the last 20 runs; threshold 0.30; at least 5 runs"), the rules, the table, and the preview
of how many scenarios each state would hold under other settings."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import pandas as pd

from dashboard.analytics import states as rules_of
from dashboard.analytics import triage
from dashboard.analytics.environments import MIN_RUNS as ENV_MIN_RUNS
from dashboard.analytics.outages import OUTAGE_MIN_RESULTS, OUTAGE_SHARE
from dashboard.analytics.states import ScenarioStates, StateRules
from dashboard.columns.shapes import empty
from dashboard.present.formatting import plural
from dashboard.present.outcome_marks import sequence_symbols
from dashboard.present.triage import evidence_lines, label_text

ScenarioLink = Callable[[int, int], str]

STATE_LABELS: dict[str, str] = {
    rules_of.FLAKY: "\u21c4 flaky",
    rules_of.BROKEN: "\u2716 broken",
    rules_of.ENVIRONMENT_SPECIFIC: "\u25d0 environment-specific",
    rules_of.RECOVERING: "\u2197 recovering",
    rules_of.FAILING: "\u2716 failing",
    rules_of.NOT_ENOUGH_DATA: "? not enough data",
    rules_of.PASSING: "\u2714 passing",
}
"""Each state with a symbol, so it reads apart from its neighbours without its colour."""

COLUMNS = ("Plan", "Scenario", "State", "History", "Why", "Verdict", "Verdict evidence", "Timeline")
"""The states table's columns: the state and its numbers in view on a laptop
(`present.key_columns`), then the verdict of the scenario's latest failure and its evidence."""

VERDICT_KEYS = ("plan_id", "scenario_id")


def state_label(state: object) -> str:
    return STATE_LABELS.get(str(state), str(state)) if isinstance(state, str) else "\u2013"


def rules_text(rules: StateRules) -> str:
    """Every rule, in the order they are tried, with the settings in use."""
    k, n = rules.min_runs, rules.broken_runs
    return (
        f"Each scenario of each plan, over the plan's last {rules.window} finished executions "
        "(W). A run is a pass or a failure (a failure on any environment fails the scenario "
        "in that execution). The first rule that holds names its state:\n\n"
        f"1. **not enough data**: fewer than {k} runs (K).\n"
        f"2. **flaky**: flips / (runs \u2212 1) of {rules.threshold:g} or more, with at least "
        f"two flips and {k} runs, across its environments or on one (as on Flaky scenarios).\n"
        "3. **environment-specific**: it fails on some environments and passes on the others "
        "(as on Environments).\n"
        f"4. **broken**: it failed in at least {rules.broken_share:.0%} of its last {n} runs "
        "(N).\n"
        f"5. **recovering**: its latest run passed after a failure, with fewer than {k} clean "
        "runs since.\n"
        "6. **failing**: its latest run failed.\n"
        "7. **passing**: the rest."
    )


def evidence(row: pd.Series, rules: StateRules) -> str:
    """Why a scenario is in its state, in numbers."""
    state = row["state"]
    k = rules.min_runs
    runs = int(row["runs"])
    if state == rules_of.NOT_ENOUGH_DATA:
        return f"{plural(runs, 'run')} in the window; at least {k} needed"
    if state == rules_of.FLAKY:
        if row["flaky_reason"] == "environment":
            env_runs = int(row["environment_runs"])
            return (
                f"on {row['flaky_environment']}: {_flips(row['environment_flips'], env_runs)} "
                f"over its last {plural(env_runs, 'run')}; threshold {rules.threshold:.2f}; "
                f"at least {k} runs"
            )
        return (
            f"{_flips(row['flips'], runs)} over the last {plural(runs, 'run')}; "
            f"threshold {rules.threshold:.2f}; at least {k} runs"
        )
    if state == rules_of.ENVIRONMENT_SPECIFIC:
        where = ", ".join(str(label) for label in row["specific_environments"])
        return (
            f"fails on {where} in {int(row['specific_failed'])} of "
            f"{plural(int(row['specific_runs']), 'run')}; passes elsewhere in "
            f"{int(row['elsewhere_passed'])} of {plural(int(row['elsewhere_runs']), 'run')}; "
            f"at least {ENV_MIN_RUNS} runs each"
        )
    if state == rules_of.BROKEN:
        last = int(row["last_runs"])
        return (
            f"failed {int(row['last_fails'])} of its last {plural(last, 'run')}; broken at "
            f"{rules.broken_share:.0%} of the last {rules.broken_runs}; at least {k} runs"
        )
    if state == rules_of.RECOVERING:
        clean = int(row["clean_runs"])
        return (
            f"passed its last {plural(clean, 'run')} after failing; fewer than {k} clean runs "
            f"({int(row['fails'])} of {plural(runs, 'run')} failed)"
        )
    if state == rules_of.FAILING:
        trailing = int(row["trailing_fails"])
        return (
            f"failed its last {plural(trailing, 'run')} ({int(row['fails'])} of "
            f"{plural(runs, 'run')} in the window)"
        )
    clean = int(row["clean_runs"])
    if clean == runs:
        return f"passed all {plural(runs, 'run')}"
    return f"passed its last {plural(clean, 'run')} ({k} clean runs are enough)"


def _flips(flips: object, runs: int) -> str:
    return f"{plural(int(flips), 'flip')} in {plural(max(runs - 1, 0), 'chance')}"  # type: ignore[call-overload]


def _plan(plan_names: Mapping[int, str], plan_id: object) -> str:
    name = plan_names.get(int(plan_id))  # type: ignore[call-overload]
    return name if name else f"Plan {int(plan_id)}"  # type: ignore[call-overload]


def latest_verdicts(
    verdicts: pd.DataFrame, keys: tuple[str, ...] = VERDICT_KEYS, *, tz: str = "UTC"
) -> pd.DataFrame:
    """Per `keys` (plan and scenario, or with the environment's label), the verdict of its
    latest failure (`analytics.triage`): `label`, its words `label_text` and its `evidence`
    line. Of a failing execution's several failures, the first label of the precedence."""
    columns = ["label", "label_text", "evidence"]
    rows = verdicts[verdicts["scenario_id"].notna()]
    if rows.empty:
        return pd.DataFrame(columns=columns, index=pd.MultiIndex.from_tuples([], names=keys))
    rank = {label: i for i, label in enumerate(triage.PRECEDENCE)}
    rows = rows.assign(_rank=rows["label"].map(rank).fillna(len(rank)))
    rows = rows.sort_values(
        ["start", "execution_id", "_rank"],
        ascending=[False, False, True],
        kind="stable",
        na_position="last",
    ).drop_duplicates(list(keys))
    rows = rows.assign(
        label_text=[label_text(label) for label in rows["label"]],
        evidence=evidence_lines(rows, tz=tz).to_numpy(),
        plan_id=rows["plan_id"].astype("int64"),
        scenario_id=rows["scenario_id"].astype("int64"),
    )
    return rows.set_index(list(keys))[columns]


def verdict_counts_text(latest: pd.DataFrame) -> str:
    """ "1 flaky, 2 broken, 1 known" of `latest_verdicts`, in the precedence's order."""
    tally = latest["label"].value_counts()
    parts = [f"{int(tally[label]):,} {label}" for label in triage.PRECEDENCE if label in tally]
    return ", ".join(parts) if parts else "none"


def states_display(
    found: ScenarioStates,
    plan_names: Mapping[int, str],
    scenario_link: ScenarioLink,
    *,
    only: tuple[str, ...] = (),
    latest: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """The states table as shown and downloaded (`COLUMNS`), of the states in `only` (none:
    every state), with the verdict of each scenario's latest failure (`latest_verdicts`; a
    dash where it has none, or none were given)."""
    rows = found.scenarios
    if only:
        rows = rows[rows["state"].isin(only)]
    if rows.empty:
        return pd.DataFrame({column: pd.Series(dtype="object") for column in COLUMNS})
    pairs = list(
        zip(rows["plan_id"].astype("int64"), rows["scenario_id"].astype("int64"), strict=True)
    )
    judged = latest if latest is not None else latest_verdicts(triage_empty())
    found_at = [(int(p), int(s)) in judged.index for p, s in pairs]
    none = "no failure in the window" if latest is not None else "\u2013"
    return pd.DataFrame(
        {
            "Plan": [_plan(plan_names, p) for p in rows["plan_id"]],
            "Scenario": rows["scenario_id"].astype("int64").to_numpy(),
            "State": [state_label(s) for s in rows["state"]],
            "History": [
                scenario_link(int(p), int(s))
                for p, s in zip(rows["plan_id"], rows["scenario_id"], strict=True)
            ],
            "Why": [evidence(row, found.rules) for _, row in rows.iterrows()],
            "Verdict": [
                judged.at[key, "label_text"] if hit else "\u2013"
                for key, hit in zip(pairs, found_at, strict=True)
            ],
            "Verdict evidence": [
                judged.at[key, "evidence"] if hit else none
                for key, hit in zip(pairs, found_at, strict=True)
            ],
            "Timeline": [sequence_symbols(s) for s in rows["sequence"]],
        }
    )


def triage_empty() -> pd.DataFrame:
    """No verdicts (`analytics.triage.TRIAGE_COLUMNS`)."""
    return empty(triage.TRIAGE_COLUMNS)


def settings_text(rules: StateRules) -> str:
    """ "W 20, threshold 0.2, K 5, N 10"."""
    return (
        f"W {rules.window}, threshold {rules.threshold:g}, K {rules.min_runs}, "
        f"N {rules.broken_runs}"
    )


def preview_display(now: Mapping[str, int], then: Mapping[str, int] | None) -> pd.DataFrame:
    """Scenarios per state, a column each: now, and (with `then`) under the proposed settings
    and the difference; one short row each, so the table beneath stays in view."""
    # Text throughout: a column holds counts and changes ("+1", "no change") alike.
    rows = [["now", *(f"{now.get(s, 0):,}" for s in rules_of.STATES)]]
    if then is not None:
        rows.append(["with the new settings", *(f"{then.get(s, 0):,}" for s in rules_of.STATES)])
        rows.append(["change", *(_signed(then.get(s, 0) - now.get(s, 0)) for s in rules_of.STATES)])
    columns = ["Scenarios", *(state_label(s) for s in rules_of.STATES)]
    return pd.DataFrame(rows, columns=columns, dtype="str")


def _signed(delta: int) -> str:
    return "no change" if delta == 0 else f"{delta:+d}".replace("-", "\u2212")


def preview_caption(applied: StateRules, proposed: StateRules) -> str:
    """What the preview compares."""
    if applied == proposed:
        return (
            f"Scenarios per state with {settings_text(applied)}. Change a setting to see how "
            "many each state would hold before applying it."
        )
    return (
        f"Now: {settings_text(applied)}. With the new settings: {settings_text(proposed)}, "
        "computed on the same executions; nothing changes until you apply them."
    )


def counts_text(counts: Mapping[str, int]) -> str:
    """ "1 flaky, 2 broken, ..." of the states that hold a scenario."""
    parts = [f"{n:,} {state}" for state, n in counts.items() if n]
    return ", ".join(parts) if parts else "no scenario"


def outages_text(outages: int) -> str | None:
    """What the outage rule did to the states (None when there was none): never counted, with
    or without "Include outages" elsewhere, as every failure verdict leaves them out."""
    if not outages:
        return None
    return (
        f"{plural(outages, 'likely outage')} (an execution where at least {OUTAGE_SHARE:.0%} "
        f"of its {OUTAGE_MIN_RESULTS} or more results failed, or one a viewer confirmed) left "
        "out of the states: a night the grid was down says nothing about the tests, and every "
        "failure verdict leaves outages out too."
    )
