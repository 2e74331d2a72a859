"""The failures page's words and table: every failed result of the period with its plan,
scenario, environment, state, failure group, message, since when it has been failing, and its
links (results, history, logs)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import date, datetime

import pandas as pd

from dashboard.analytics.basis import Basis
from dashboard.columns.cells import EN_DASH
from dashboard.present.captions import describe_basis
from dashboard.present.failure_groups import signature_text
from dashboard.present.formatting import plural, weekday_time
from dashboard.present.states import state_label

ScenarioLink = Callable[[int, int], str]
ResultsLink = Callable[[int, "int | None", "datetime | None"], str]

COLUMNS = (
    "Plan",
    "Scenario",
    "Environment",
    "Failure group",
    "Failing since",
    "State",
    "Results",
    "History",
    "Started",
    "Message",
    "Node log",
    "Executor log",
)
"""In the order a lead reads them: what failed where and how (its failure group), since when
and in which state, all in view at 1440x900; its evidence a click away; then when this
execution ran and the words (the widest) before the logs."""


def since_text(since: object, bound: object, in_a_row: object, tz: str) -> str:
    """ "Tue 18 Nov 17:00 (3 in a row)", "at least Mon 17 Nov 09:00 (2 in a row)"."""
    if since is None or pd.isna(since):
        return EN_DASH
    prefix = "at least " if bool(bound) else ""
    return f"{prefix}{weekday_time(since, tz)} ({int(in_a_row)} in a row)"  # type: ignore[call-overload]


def _plan(plan_names: Mapping[int, str], name: object, plan_id: object) -> str:
    if pd.isna(plan_id):
        return name if isinstance(name, str) and name else "(no plan)"
    known = plan_names.get(int(plan_id))  # type: ignore[call-overload]
    return known or (name if isinstance(name, str) and name else f"Plan {int(plan_id)}")  # type: ignore[call-overload]


def _link(value: object) -> str | None:
    """A link, or a missing value: the table draws its placeholder (a dash), and no link."""
    return value if isinstance(value, str) and value else None


def failures_display(
    rows: pd.DataFrame,
    *,
    plan_names: Mapping[int, str],
    scenario_link: ScenarioLink,
    results_link: ResultsLink,
    tz: str,
) -> pd.DataFrame:
    """The failures table as shown and downloaded (`COLUMNS`), newest first."""
    if rows.empty:
        return pd.DataFrame({column: pd.Series(dtype="object") for column in COLUMNS})
    return pd.DataFrame(
        {
            "Started": rows["execution_start"].to_numpy(),
            "Plan": [
                _plan(plan_names, n, p) for n, p in zip(rows["plan"], rows["plan_id"], strict=True)
            ],
            "Scenario": rows["scenario_id"].astype("Int64").to_numpy(),
            "Environment": rows["environment"].astype("str").to_numpy(),
            "State": [state_label(s) for s in rows["state"]],
            "Results": [
                results_link(int(e), None if pd.isna(p) else int(p), s)
                for e, p, s in zip(
                    rows["execution_id"], rows["plan_id"], rows["execution_start"], strict=True
                )
            ],
            "History": [
                None if pd.isna(p) or pd.isna(s) else scenario_link(int(p), int(s))
                for p, s in zip(rows["plan_id"], rows["scenario_id"], strict=True)
            ],
            "Failing since": [
                since_text(s, b, n, tz)
                for s, b, n in zip(
                    rows["failing_since"],
                    rows["failing_since_is_bound"],
                    rows["failures_in_a_row"],
                    strict=True,
                )
            ],
            "Failure group": [signature_text(s) for s in rows["signature"]],
            "Message": rows["message"].to_numpy(),
            "Node log": [_link(v) for v in rows["node_log"]],
            "Executor log": [_link(v) for v in rows["executor_log"]],
        }
    )[list(COLUMNS)]


def basis_caption(basis: Basis, *, today: date, scope: str, window: int) -> str:
    """What the list was computed from, and its rules."""
    return (
        describe_basis(basis, today=today, scope=scope)
        + ". Every failed result (FAILURE or ERROR; a retry is a row) of these executions. A "
        f"scenario's state is judged over its plan's last {window} finished executions; failing "
        "since counts back through its plan's executions to its last pass on that environment "
        "(\u201cat least\u201d where the history read ends first)."
    )


def summary(rows: pd.DataFrame) -> dict[str, str]:
    """The figures above the table: failed results, scenarios, plans, failure groups."""
    scenarios = rows[["plan_id", "scenario_id"]].drop_duplicates()
    return {
        "Failed results": f"{len(rows):,}",
        "Scenarios": f"{len(scenarios):,}",
        "Plans": f"{rows['plan_id'].nunique():,}",
        "Failure groups": f"{rows['signature'].nunique():,}",
    }


def none_text(states: tuple[str, ...]) -> str:
    if states:
        chosen = ", ".join(states)
        return f"No result of a scenario that is {chosen} failed in these executions."
    return "No result failed in these executions."


def shown_text(shown: int, total: int) -> str | None:
    """Said when the table shows only the newest rows (its CSV holds every one)."""
    if shown >= total:
        return None
    return (
        f"The newest {shown:,} of {plural(total, 'failed result')} are shown; the CSV holds "
        "every one. Narrow the period, the plan or the states to see the rest here."
    )
