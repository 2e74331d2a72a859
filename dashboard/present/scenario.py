"""One scenario's history in words: the per-execution, per-environment table with its messages
and log links, and whether it became clearly slower."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import pandas as pd

from dashboard.analytics.history import RuntimeRegression, ScenarioHistory
from dashboard.analytics.scenario_names import names_by_id, scenario_label
from dashboard.present.csv import with_seconds
from dashboard.present.formatting import human_duration, plural
from dashboard.present.outcome_marks import outcome_label
from dashboard.present.triage import label_text

PASSING = "passing"
"""The scenario page's word for a scenario with no failure in the window but in outages."""

ResultsLink = Callable[[int, int | None, datetime | None], str]


def regression_text(overall: RuntimeRegression, recent: int, min_earlier: int) -> str:
    """The runtime verdict as a sentence (only completed runs, passed or warned, count).

    Too few runs are said as what there is and what it takes: the oldest runs are not
    "recent", they are simply all there is."""
    if not overall.enough_runs:
        runs = overall.recent_runs + overall.earlier_runs
        has = f"it has {plural(runs, 'completed run')}" if runs else "it has no completed run"
        return (
            f"Not enough completed runs to judge its runtime: {has} here, and it takes "
            f"{recent + min_earlier} (its last {recent} against at least {min_earlier} before "
            "them)."
        )
    change = overall.change or 0.0
    medians = (
        f"the median of its last {overall.recent_runs} completed runs is "
        f"{human_duration(overall.recent_median_s)}, against "
        f"{human_duration(overall.earlier_median_s)} over the "
        f"{plural(overall.earlier_runs, 'run')} before ({change * 100:+.0f} %)"
    )
    if overall.regressed:
        return f"Runtime regression: {medians}."
    return f"No runtime regression: {medians}."


def scenario_options(
    scenarios: tuple[int, ...] | None,
    retired: int | None,
    names: pd.DataFrame | None = None,
) -> dict[int, str]:
    """The scenario picker's choices: the plan's scenarios, and `retired`, a scenario it no
    longer lists that the link names (its past runs are shown); each by its label ("Checkout as
    guest (402)", "Scenario 403" unnamed, `analytics.scenario_names`), so that typing in the
    picker finds a scenario by its name or its id (the link still holds the id)."""
    named = {} if names is None else names_by_id(names)
    listed = {s: scenario_label(s, named) for s in scenarios or ()}
    if retired is not None:
        listed[retired] = f"{scenario_label(retired, named)} (no longer in the plan)"
    return listed


NAMES_READ_ONLY = (
    "Names and owners are read-only here: this dashboard serves a team, so only a viewer who "
    "signed in may change them (the change says who)."
)
"""Said instead of the name form to a viewer who may not change names (the marks' rule)."""
NAME_SAVED = "Saved: {label}."
NAME_CUT = " The name was cut to fit."


def name_saved_text(label: str, *, cut: bool) -> str:
    """What the name form says once it saved (the label as the pages now show it)."""
    return NAME_SAVED.format(label=label) + (NAME_CUT if cut else "")


def history_display(history: ScenarioHistory, results_link: ResultsLink) -> pd.DataFrame:
    """Every cell of the scenario, newest execution first (times stay instants). What a lead
    reads first (outcome, message, logs, results) on the left, in view on a laptop
    (`present.key_columns`); no cell reads "None": a missing message or level is empty, a
    missing runtime "\u2013" (the CSV has the runtime in seconds, empty when unknown)."""
    cells = history.cells.iloc[::-1]
    display = pd.DataFrame(
        {
            "Started": cells["execution_start"],
            "Execution": cells["execution_id"].astype("int64"),
            "Environment": cells["environment"].astype("str"),
            "Outcome": [outcome_label(o) for o in cells["outcome"]],
            "Message": [_text(m) for m in cells["message"]],
            "Node log": cells["node_log"],
            "Results": [
                results_link(int(e), history.plan_id, _instant(s))
                for e, s in zip(cells["execution_id"], cells["execution_start"], strict=True)
            ],
            "Level": [_text(level) for level in cells["level"]],
            "Runtime": [
                human_duration(None if pd.isna(s) else float(s)) for s in cells["runtime_s"]
            ],
            "Retries": (cells["results"] - 1).astype("int64"),
            "Executor log": cells["executor_log"],
        }
    ).reset_index(drop=True)
    return with_seconds(display, {"Runtime": cells["runtime_s"].to_numpy()})


def regression_display(by_environment: pd.DataFrame) -> pd.DataFrame:
    """Per environment: recent and earlier medians of completed runs and the change; "\u2013"
    where there is none (the CSV has the medians in seconds)."""
    display = pd.DataFrame(
        {
            "Environment": by_environment["environment"].astype("str"),
            "Recent median": [_duration(s) for s in by_environment["recent_median_s"]],
            "Earlier median": [_duration(s) for s in by_environment["earlier_median_s"]],
            "Change": [
                "\u2013" if pd.isna(c) else f"{c * 100:+.0f} %" for c in by_environment["change"]
            ],
            "Recent runs": by_environment["recent_runs"].astype("int64"),
            "Earlier runs": by_environment["earlier_runs"].astype("int64"),
            "Regressed": by_environment["regressed"].astype("bool"),
        }
    ).reset_index(drop=True)
    return with_seconds(
        display,
        {
            "Recent median": by_environment["recent_median_s"].to_numpy(),
            "Earlier median": by_environment["earlier_median_s"].to_numpy(),
        },
    )


def _text(value: object) -> str:
    return "" if value is None or pd.isna(value) else str(value)


def _duration(seconds: object) -> str:
    if seconds is None or pd.isna(seconds):
        return "\u2013"
    return human_duration(float(seconds))  # type: ignore[arg-type]


def _instant(value: object) -> datetime | None:
    """A start cell as the aware datetime a results link carries (None when unknown)."""
    return None if value is None or pd.isna(value) else pd.Timestamp(value).to_pydatetime()


def outcomes_caption(basis_text: str) -> str:
    return basis_text + ". One row per environment, one dot per execution."


def current_text(label: str, evidence: str) -> str:
    """The scenario's label now, with its evidence ("Now: \u2716 broken \u2014 failed 10 of its
    last 10 runs since 10 Nov")."""
    return f"Now: {label_text(label)} \u2014 {evidence}"


def passing_text(runs: int, *, outage: str | None) -> str:
    """A scenario with no failure in the window, outages aside (`outage`: the evidence of its
    latest failure in one)."""
    text = f"Now: \u2714 passing \u2014 no failure in its {plural(runs, 'run')} of the window"
    if outage:
        text += f" but in an outage ({outage})"
    return text
