"""Failure groups in words: "SessionNotCreatedException: device did not respond within {n}s -
3 failures in scenario 402 on 2 environments, first seen Tue 17 Nov (infrastructure)", and
each group's results, each leading to its execution's results and its scenario's history.

A group is named by its label: its normalised message, or the name of the team's merge rule
that made it; its category is the team's (`analytics.group_rules`), a dash when none."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime

import pandas as pd

from dashboard.analytics.environment_names import with_environments
from dashboard.analytics.failure_groups import Grouping
from dashboard.present.formatting import plural, weekday_time
from dashboard.present.known import ticket_label

ScenarioLink = Callable[[int, int], str]
ResultsLink = Callable[[int, int | None, datetime | None], str]
"""(execution id, plan id, execution start) -> the results page's link."""

NO_MESSAGE = "(no message)"
GROUPS_SHOWN = 10
"""Groups listed with their results on the page; the groups table holds every one."""


def signature_text(signature: object) -> str:
    return signature if isinstance(signature, str) and signature else NO_MESSAGE


def _day(stamp: object, tz: str) -> str:
    return " ".join(weekday_time(stamp, tz).split()[:3]) if not pd.isna(stamp) else "\u2013"


CATEGORY = "Category"
"""The column of a group's category (the team's rules'; a dash when none) on every table that
shows groups, and in their CSVs (empty there)."""


GROUPINGS: dict[Grouping, str] = {grouping: grouping.label for grouping in Grouping}
"""The choice of grouping a page that shows groups offers (`state.params.GROUPS`)."""


def grouping_text(grouping: Grouping) -> str:
    """How failed results are grouped, for a caption after "Failed results"."""
    how = (
        "in one scenario of a plan"
        if grouping is Grouping.SCENARIO
        else "whatever the scenario (across scenarios)"
    )
    return (
        "grouped by their message with numbers, ids, quoted values and hex "
        f"stripped, {how}; the team's rules may merge groups (named by the rule) and give each "
        "a category."
    )


def category_cells(categories: pd.Series) -> list[str | None]:
    """Each group's category as the tables show it: the team's word, or missing (a dash on
    the page, an empty cell in the CSV)."""
    return [c if isinstance(c, str) and c else None for c in categories]


def group_label(row: pd.Series) -> str:
    """What a group is called: its merge rule's name, else its normalised message."""
    label = row.get("label") if "label" in row.index else None
    return signature_text(label if isinstance(label, str) else row["signature"])


def headline(row: pd.Series, tz: str) -> str:
    """One group as a sentence."""
    scenario = row.get("scenario_id") if "scenario_id" in row.index else None
    where = (
        f"scenario {int(scenario)}"
        if scenario is not None and not pd.isna(scenario)
        else plural(int(row["scenarios"]), "scenario")
    )
    category = row.get("category") if "category" in row.index else None
    said = f" ({category})" if isinstance(category, str) and category else ""
    return (
        f"{group_label(row)} - {plural(int(row['failures']), 'failure')} in {where} on "
        f"{plural(int(row['environments']), 'environment')}, first seen "
        f"{_day(row['first_seen'], tz)}{said}"
    )


def groups_display(groups: pd.DataFrame) -> pd.DataFrame:
    """Every group, largest first (times stay instants: the page shows them in the zone), its
    category after "Last seen"; with the known split (`failure_groups.with_known`), its
    failures unresolved and known and the ticket of the mark covering most after that: the
    columns up to "Last seen" stay in view on a laptop (`present.key_columns`)."""
    shown = pd.DataFrame(
        {
            "Message": [signature_text(label) for label in groups["label"]],
            "Failures": groups["failures"].astype("int64"),
            "Scenarios": groups["scenarios"].astype("int64"),
            "Environments": groups["environments"].astype("int64"),
            "Executions": groups["executions"].astype("int64"),
            "First seen": groups["first_seen"],
            "Last seen": groups["last_seen"],
            "Scenario ids": [", ".join(str(i) for i in ids) for ids in groups["scenario_ids"]],
            "On": ["; ".join(str(e) for e in labels) for labels in groups["environment_labels"]],
            "Latest message": groups["sample_message"],
        }
    )
    at = list(shown.columns).index("Last seen") + 1
    shown.insert(at, CATEGORY, category_cells(groups["category"]))
    if "known" not in groups.columns:
        return shown
    at += 1
    shown.insert(at, "Unresolved", groups["unresolved"].astype("int64").to_numpy())
    shown.insert(at + 1, "Known", groups["known"].astype("int64").to_numpy())
    shown.insert(
        at + 2,
        "Mark",
        [
            ticket_label(t) if k else ""
            for t, k in zip(groups["ticket"], groups["known"], strict=True)
        ],
    )
    return shown


def group_results_display(
    results: pd.DataFrame,
    result_ids: Iterable[int],
    *,
    plan_names: dict[int, str],
    scenario_link: ScenarioLink,
    results_link: ResultsLink,
    execution_starts: dict[int, object],
) -> pd.DataFrame:
    """The failed results of one group, newest first, each with its evidence links."""
    wanted = {int(i) for i in result_ids}
    rows = results[results["result_id"].isin(wanted)]
    rows = with_environments(rows).sort_values(["start", "result_id"], ascending=False)
    # A group's rows share executions and scenarios: each link is built once.
    run_links: dict[tuple[int, int], str] = {}
    history_links: dict[tuple[int, int], str] = {}

    def run_link(execution: int, plan: int) -> str:
        if (execution, plan) not in run_links:
            started = _instant(execution_starts.get(execution))
            run_links[(execution, plan)] = results_link(execution, plan, started)
        return run_links[(execution, plan)]

    def history_link(plan: int, scenario: int) -> str:
        if (plan, scenario) not in history_links:
            history_links[(plan, scenario)] = scenario_link(plan, scenario)
        return history_links[(plan, scenario)]

    return pd.DataFrame(
        {
            "Started": rows["start"],
            "Plan": [plan_names.get(int(p), f"Plan {int(p)}") for p in rows["plan_id"]],
            "Scenario": rows["scenario_id"].astype("int64"),
            "Environment": rows["environment"].astype("str"),
            "Level": rows["level"],
            "Message": rows["message"],
            "Execution": rows["execution_id"].astype("int64"),
            "Results": [
                run_link(int(e), int(p))
                for e, p in zip(rows["execution_id"], rows["plan_id"], strict=True)
            ],
            "History": [
                history_link(int(p), int(s))
                for p, s in zip(rows["plan_id"], rows["scenario_id"], strict=True)
            ],
            "Node log": rows["node_log"],
        }
    ).reset_index(drop=True)


def _instant(value: object) -> datetime | None:
    """A start cell as the aware datetime a results link carries (None when unknown)."""
    return None if value is None or pd.isna(value) else pd.Timestamp(value).to_pydatetime()
