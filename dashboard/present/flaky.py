"""The flaky page's words and table: the rule as a sentence, "5 flips in 20 runs", the outcome
timeline as symbols, and a scenario's link to its history.

Rows are the scenarios flagged as a whole ("all environments") and the scenario x environment
pairs flagged on their own, most flaky first; the CSV holds exactly these rows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import date

import pandas as pd

from dashboard.analytics.basis import Basis
from dashboard.analytics.failure_groups import Grouping
from dashboard.analytics.flaky import Flakiness
from dashboard.analytics.known_figures import KnownRuns
from dashboard.analytics.outages import OUTAGE_MIN_RESULTS, OUTAGE_SHARE
from dashboard.present.captions import describe_basis
from dashboard.present.failure_groups import grouping_text
from dashboard.present.formatting import plural
from dashboard.present.known import ticket_label
from dashboard.present.outcome_marks import NOT_RUN_SYMBOL, OUTCOME_SYMBOLS, sequence_symbols

ScenarioLink = Callable[[int, int], str]
"""(plan id, scenario id) -> the scenario page's link."""

ALL_ENVIRONMENTS = "all environments"

COLUMNS = (
    "Plan",
    "Scenario",
    "Environment",
    "Score",
    "Evidence",
    "Failed",
    "History",
    "Why",
    "Timeline",
)
"""The flaky table's columns: the verdict and its reasons first, in view on a laptop
(`present.key_columns`); the timeline last, as the chart above draws it too."""


def rule_text(window: int, threshold: float, min_runs: int) -> str:
    """The rule, as the page explains it."""
    return (
        f"For each scenario, and each scenario on each environment, its outcomes over its plan's "
        f"last {window} finished executions. A run is a pass or a failure (warnings, waiting and "
        f"other non-verdicts are shown but are not runs). A flip is a failure after a pass or a "
        f"pass after a failure, and the score is flips / (runs \u2212 1). Listed: a score of "
        f"{threshold:g} or more with at least {min_runs} runs; fewer runs is \u201cnot enough "
        f"runs\u201d. Not flaky: a scenario that broke once and stayed broken, one that was "
        f"fixed, and one that always fails on one environment and passes on the others (that "
        f"is environment-specific: see Environments). A scenario counts as failing in an "
        f"execution when it failed on any environment."
    )


def evidence_text(flips: int, runs: int) -> str:
    """ "5 flips in 20 runs"."""
    return f"{plural(int(flips), 'flip')} in {plural(int(runs), 'run')}"


def timeline_legend() -> str:
    marks = OUTCOME_SYMBOLS
    return (
        f"Timeline, oldest first: {marks['pass']} passed, {marks['fail']} failed, "
        f"{marks['warn']} warning, ? no verdict, {NOT_RUN_SYMBOL} did not run in that execution."
    )


def _plan(plan_names: Mapping[int, str], plan_id: object) -> str:
    name = plan_names.get(int(plan_id))  # type: ignore[call-overload]
    return name if name else f"Plan {int(plan_id)}"  # type: ignore[call-overload]


def flaky_rows(flakiness: Flakiness) -> pd.DataFrame:
    """The listed rows before wording: plan_id, scenario_id, environment (None: all),
    score, flips, runs, fails, sequence, reason, worst_environment."""
    scenarios = flakiness.scenarios
    whole = scenarios[scenarios["flagged"]]
    whole_rows = pd.DataFrame(
        {
            "plan_id": whole["plan_id"],
            "scenario_id": whole["scenario_id"],
            "environment": pd.Series(None, index=whole.index, dtype="object"),
            "score": whole["score"],
            "flips": whole["flips"],
            "runs": whole["runs"],
            "fails": whole["fails"],
            "sequence": whole["sequence"],
            "reason": whole["reason"],
            "worst_environment": whole["worst_environment"],
            "worst_score": whole["worst_environment_score"],
        }
    )
    envs = flakiness.environments
    env = envs[envs["flagged"]]
    env_rows = pd.DataFrame(
        {
            "plan_id": env["plan_id"],
            "scenario_id": env["scenario_id"],
            "environment": env["environment"].astype("object"),
            "score": env["score"],
            "flips": env["flips"],
            "runs": env["runs"],
            "fails": env["fails"],
            "sequence": env["sequence"],
            "reason": "environment",
            "worst_environment": env["environment"],
            "worst_score": env["score"],
        }
    )
    frames = [frame for frame in (whole_rows, env_rows) if not frame.empty]
    if not frames:
        return whole_rows.iloc[0:0]
    rows = pd.concat(frames, ignore_index=True)
    rows["_all"] = rows["environment"].isna()
    rows["_env"] = rows["environment"].fillna("")
    rows = rows.sort_values(
        ["score", "flips", "runs", "plan_id", "scenario_id", "_all", "_env"],
        ascending=[False, False, False, True, True, False, True],
        kind="stable",
        na_position="last",
    )
    return rows.drop(columns=["_all", "_env"]).reset_index(drop=True)


def _why(row: pd.Series) -> str:
    if row["environment"] is not None and not pd.isna(row["environment"]):
        return "flips on this environment"
    if row["reason"] == "environment":
        score = row["worst_score"]
        shown = "" if pd.isna(score) else f" (score {float(score):.2f})"
        return f"flips on {row['worst_environment']}{shown}"
    return "flips across its environments"


def flaky_display(
    flakiness: Flakiness,
    plan_names: Mapping[int, str],
    scenario_link: ScenarioLink,
    known: KnownRuns | None = None,
) -> pd.DataFrame:
    """The flaky table as shown and downloaded (`COLUMNS`; with `known`, each row's failed runs
    split into unresolved and known, and the ticket of the mark covering most, after "Why": the
    columns before it stay in view on a laptop, `present.key_columns`)."""
    rows = flaky_rows(flakiness)
    columns = COLUMNS if known is None else _with_known(COLUMNS)
    if rows.empty:
        return pd.DataFrame({column: pd.Series(dtype="object") for column in columns})
    shown = pd.DataFrame(
        {
            "Plan": [_plan(plan_names, p) for p in rows["plan_id"]],
            "Scenario": rows["scenario_id"].astype("int64"),
            "Environment": [
                ALL_ENVIRONMENTS if e is None or pd.isna(e) else str(e) for e in rows["environment"]
            ],
            "Score": rows["score"].astype("float64").round(2),
            "Evidence": [
                evidence_text(f, r) for f, r in zip(rows["flips"], rows["runs"], strict=True)
            ],
            "Failed": [
                f"{int(f)} of {plural(int(r), 'run')}"
                for f, r in zip(rows["fails"], rows["runs"], strict=True)
            ],
            "History": [
                scenario_link(int(p), int(s))
                for p, s in zip(rows["plan_id"], rows["scenario_id"], strict=True)
            ],
            "Why": [_why(row) for _, row in rows.iterrows()],
            "Timeline": [sequence_symbols(s) for s in rows["sequence"]],
        }
    )
    if known is None:
        return shown
    counts = [_known_of(known, row) for _, row in rows.iterrows()]
    shown["Unresolved"] = [failed - k for failed, k, _ in counts]
    shown["Known"] = [k for _, k, _ in counts]
    shown["Mark"] = [ticket_label(t) if k else "" for _, k, t in counts]
    return shown[list(columns)]


KNOWN_COLUMNS = ("Unresolved", "Known", "Mark")


def _with_known(columns: tuple[str, ...]) -> tuple[str, ...]:
    at = columns.index("Why") + 1
    return (*columns[:at], *KNOWN_COLUMNS, *columns[at:])


def _known_of(known: KnownRuns, row: pd.Series) -> tuple[int, int, object]:
    """(failed runs, known runs, ticket) of a flaky row: its scenario's, or its environment's."""
    environment = row["environment"]
    key: tuple[object, ...]
    if environment is None or pd.isna(environment):
        frame, key = known.scenarios, (row["plan_id"], row["scenario_id"])
    else:
        frame, key = known.environments, (row["plan_id"], row["scenario_id"], environment)
    if key not in frame.index:
        return int(row["fails"]), 0, None
    found = frame.loc[key]
    return int(row["fails"]), min(int(found["known"]), int(row["fails"])), found["ticket"]


def not_enough_runs(flakiness: Flakiness) -> int:
    """Scenarios of the window with runs but too few to judge."""
    scenarios = flakiness.scenarios
    return int(((scenarios["runs"] > 0) & ~scenarios["enough_runs"]).sum())


def none_flaky_text(threshold: float) -> str:
    return f"No scenario is flaky at a threshold of {threshold:g} over these executions."


def not_enough_runs_text(flakiness: Flakiness, min_runs: int) -> str | None:
    """ "3 scenarios ran fewer than 5 times: not enough runs to judge." (None: none did)."""
    short = not_enough_runs(flakiness)
    if not short:
        return None
    return f"{short:,} scenarios ran fewer than {min_runs} times: not enough runs to judge."


def groups_caption(
    basis: Basis, *, today: date, scope: str, grouping: Grouping = Grouping.SCENARIO
) -> str:
    """What the failure groups were made from, and how a message is grouped."""
    return (
        describe_basis(basis, today=today, scope=scope)
        + f". Failed results (FAILURE or ERROR) {grouping_text(grouping)}"
    )


def more_groups_caption(groups: int, listed: int) -> str | None:
    """Said when there are more groups than are listed with their results."""
    if groups <= listed:
        return None
    return (
        f"The {listed} largest groups are listed with their results; the table and its CSV hold "
        "every group."
    )


def verdicts_caption(precedence: str) -> str:
    """What the verdict columns hold (`precedence`: the labels in the order they are tried)."""
    return (
        "Verdict: the label every page gives a failed result, the first that holds of "
        f"{precedence}; here of each row's latest failure, with its evidence. A listed scenario "
        "whose failure is not judged flaky says why (known, with its mark)."
    )


def outages_text(outages: int, *, included: bool) -> str | None:
    """What the outage rule did to the page (None when there was none): never counted in the
    scores, as every failure verdict leaves them out; "Include outages" shows their failures
    in the failure groups."""
    if not outages:
        return None
    rule = (
        f"an execution where at least {OUTAGE_SHARE:.0%} of its {OUTAGE_MIN_RESULTS} or more "
        "results failed, or one a viewer confirmed"
    )
    if included:
        return (
            f"{plural(outages, 'outage')} ({rule}) shown in the failure groups, labelled "
            "outage; never counted in the scores, as no verdict counts them."
        )
    return (
        f"{plural(outages, 'likely outage')} ({rule}) left out of the scores and the failure "
        'groups: "Include outages" shows their failures in the groups (never in the scores).'
    )
