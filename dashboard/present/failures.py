"""The failures page's words and table: every failed result of the period with its verdict
(`analytics.triage`, worded by `present.triage`) and its evidence, the mark's owner and ticket,
its plan, scenario, environment, state, failure group, message, since when it has been failing,
and its links (results, history, logs)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import date, datetime

import pandas as pd

from dashboard.analytics import triage
from dashboard.analytics.basis import Basis
from dashboard.analytics.failure_groups import Grouping, group_keys
from dashboard.columns.cells import EN_DASH
from dashboard.present.captions import describe_basis
from dashboard.present.failure_groups import category_cells, signature_text
from dashboard.present.formatting import plural, visible_text, weekday_time
from dashboard.present.states import state_label
from dashboard.present.triage import label_text, precedence_text

ScenarioLink = Callable[[int, int], str]
ResultsLink = Callable[[int, "int | None", "datetime | None"], str]

COLUMNS = (
    "Verdict",
    "Plan",
    "Scenario",
    "Environment",
    "Evidence",
    "State",
    "Owner",
    "Ticket",
    "Results",
    "Failure group",
    "Category",
    "History",
    "Failing since",
    "Started",
    "Message",
    "Node log",
    "Executor log",
)
"""In the order a lead reads them: the row's answer (its verdict) and what failed where, why it
has that verdict (its evidence line, which names a known row's ticket and owner too) and its
scenario's state, all in view at 1440x900; the mark's owner and ticket beside them; its results
a click away; then how it failed (its failure group: its message, or the name of the team's
merge rule, and the team's category), its scenario's history, since when it has been failing,
when this execution ran and the words (the widest) before the logs."""


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


def _web_link(value: object) -> str | None:
    """An http(s) link (a mark's ticket), else a missing value: nothing else is a link."""
    if isinstance(value, str) and value.lower().startswith(("http://", "https://")):
        return value
    return None


def _name(value: object) -> str | None:
    """A name from the team or the service on one line (made visible), or a missing value."""
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return None
    text = visible_text(value, one_line=True)
    return text or None


def _results_link(link: ResultsLink) -> Callable[..., str | None]:
    def made(execution_id: object, plan_id: object, started: object) -> str | None:
        plan = None if pd.isna(plan_id) else int(plan_id)  # type: ignore[call-overload]
        return link(int(execution_id), plan, started)  # type: ignore[call-overload, arg-type]

    return made


def _history_link(link: ScenarioLink) -> Callable[..., str | None]:
    def made(plan_id: object, scenario_id: object) -> str | None:
        if pd.isna(plan_id) or pd.isna(scenario_id):
            return None
        return link(int(plan_id), int(scenario_id))  # type: ignore[call-overload]

    return made


def _once_per_distinct(make: Callable[..., str | None], *columns: pd.Series) -> list[str | None]:
    """`make(*values)` for each row of `columns`, called once per distinct row of values: a
    page's failed results share few executions and fewer (plan, scenario) pairs, and a link
    costs a query string each. A key that cannot be hashed or compared (a missing float) is
    simply made again: the link is the same either way."""
    made: dict[tuple[object, ...], str | None] = {}
    out: list[str | None] = []
    for key in zip(*columns, strict=True):
        try:
            out.append(made[key])
        except KeyError:
            made[key] = value = make(*key)
            out.append(value)
        except TypeError:  # unhashable
            out.append(make(*key))
    return out


def failures_display(
    rows: pd.DataFrame,
    *,
    plan_names: Mapping[int, str],
    scenario_link: ScenarioLink,
    results_link: ResultsLink,
    tz: str,
) -> pd.DataFrame:
    """The failures table as shown and downloaded (`COLUMNS`), in the rows' order (the view
    sorts them). `rows`: `FAILURE_COLUMNS` with each one's verdict (`label`), its `evidence`
    line, and the mark's `owner` and `ticket`; and, the team's rules applied
    (`failure_groups.with_groups`), its group's `group_label` and `category`."""
    if rows.empty:
        return pd.DataFrame({column: pd.Series(dtype="object") for column in COLUMNS})
    return pd.DataFrame(
        {
            "Verdict": [label_text(label) for label in rows["label"]],
            "Evidence": [_name(line) for line in rows["evidence"]],
            "Owner": [_name(owner) for owner in rows["owner"]],
            "Ticket": [_web_link(ticket) for ticket in rows["ticket"]],
            "Started": rows["execution_start"].to_numpy(),
            "Plan": [
                _plan(plan_names, n, p) for n, p in zip(rows["plan"], rows["plan_id"], strict=True)
            ],
            "Scenario": pd.array(rows["scenario_id"], dtype="Int64"),
            "Environment": rows["environment"].astype("str").to_numpy(),
            "State": [state_label(s) for s in rows["state"]],
            "Results": _once_per_distinct(
                _results_link(results_link),
                rows["execution_id"],
                rows["plan_id"],
                rows["execution_start"],
            ),
            "History": _once_per_distinct(
                _history_link(scenario_link), rows["plan_id"], rows["scenario_id"]
            ),
            "Failing since": [
                since_text(s, b, n, tz)
                for s, b, n in zip(
                    rows["failing_since"],
                    rows["failing_since_is_bound"],
                    rows["failures_in_a_row"],
                    strict=True,
                )
            ],
            "Failure group": [
                signature_text(s)
                for s in (rows["group_label"] if "group_label" in rows else rows["signature"])
            ],
            "Category": category_cells(
                rows["category"] if "category" in rows else pd.Series(pd.NA, index=rows.index)
            ),
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
        "(\u201cat least\u201d where the history read ends first). Each row's verdict is the "
        f"first that holds of: {precedence_text()}."
    )


NEEDS_ACTION_FIGURE = "Needs action"
NEW_FIGURE = "New since standup"
KNOWN_FIGURE = "Known"
OUTAGE_FIGURE = "In a likely outage"
TOTAL_FIGURE = "Failed results"
GROUPS_FIGURE = "Failure groups"


def summary(
    rows: pd.DataFrame,
    *,
    needs_action: tuple[str, ...],
    new_since: int,
    outages_left_out: int | None,
    grouping: Grouping = Grouping.SCENARIO,
) -> dict[str, str]:
    """The figures above the table, of the rows listed: those that need action, the new ones
    since the standup, the known ones, those in a likely outage (`outages_left_out`: how many
    were left out, None when they are listed: "17 left out"), every one, and their failure
    groups (per scenario unless `grouping` says across; with the team's merge rules when the
    rows carry them: `failure_groups.with_groups`)."""
    labels = rows["label"]
    outage = int((labels == triage.OUTAGE).sum())
    outages = f"{outage:,}" if not outages_left_out else f"{outages_left_out:,} left out"
    return {
        NEEDS_ACTION_FIGURE: f"{int(labels.isin(needs_action).sum()):,}",
        NEW_FIGURE: f"{new_since:,}",
        KNOWN_FIGURE: f"{int((labels == triage.KNOWN).sum()):,}",
        OUTAGE_FIGURE: outages,
        TOTAL_FIGURE: f"{len(rows):,}",
        GROUPS_FIGURE: f"{_groups(rows, grouping):,}",
    }


def _groups(rows: pd.DataFrame, grouping: Grouping) -> int:
    """How many failure groups the rows are in."""
    if rows.empty:
        return 0
    if "group" not in rows.columns:
        keyed = rows.assign(group=rows["signature"], merge_rule=pd.NA)
    else:
        keyed = rows
    return int(group_keys(keyed, grouping).nunique())


def figure_help(
    needs_action: tuple[str, ...],
    *,
    standup_start: datetime,
    tz: str,
    grouping: Grouping = Grouping.SCENARIO,
) -> dict[str, str]:
    """What each figure counts, shown beside it."""
    action = ", ".join(label_text(label).split(" ", 1)[-1] for label in needs_action)
    return {
        NEEDS_ACTION_FIGURE: f"Failed results whose verdict asks someone to act: {action}.",
        NEW_FIGURE: (
            "Failed results labelled new (the first failure of a scenario on an environment) "
            f"whose execution started since the last standup ({weekday_time(standup_start, tz)}"
            "), among those listed."
        ),
        KNOWN_FIGURE: "Failed results a mark of the team covers now (its ticket and owner beside).",
        OUTAGE_FIGURE: (
            "Failed results of an execution that is a likely outage (most of its results failed "
            'at once) or a confirmed one; "Include outages" lists and counts them.'
        ),
        TOTAL_FIGURE: "Every failed result listed (FAILURE or ERROR; a retry is a row).",
        GROUPS_FIGURE: (
            "The failure groups listed: messages alike but for their numbers, "
            + ("in one scenario of a plan" if grouping is Grouping.SCENARIO else "in any scenario")
            + ", or merged by a rule of the team."
        ),
    }


def split_text(rows: pd.DataFrame, needs_action: tuple[str, ...], order: tuple[str, ...]) -> str:
    """How the failed results listed split by verdict, in `order`, those with none left out:
    "Of 48 failed results: 3 need action (2 unresolved, 1 new), 2 known, ..."."""
    if rows.empty:
        return "No failed result is listed."
    tally = rows["label"].value_counts()
    counts = [(label, int(tally.get(label, 0))) for label in order]

    def said(label: str, count: int) -> str:
        return f"{count:,} {label_text(label).split(' ', 1)[-1]}"

    action = [(label, n) for label, n in counts if label in needs_action and n]
    action_total = sum(n for _, n in action)
    parts = [
        f"{action_total:,} need{'s' if action_total == 1 else ''} action"
        + (f" ({', '.join(said(label, n) for label, n in action)})" if action else "")
    ]
    parts += [said(label, n) for label, n in counts if label not in needs_action and n]
    return f"Of {plural(len(rows), 'failed result')}: " + ", ".join(parts) + "."


def outages_text(count: int, *, included: bool) -> str | None:
    """What the "Include outages" control did to the list (nothing when no row is in one)."""
    if not count:
        return None
    rows = plural(count, "failed result")
    if included:
        return f"{rows} in a likely outage listed and counted, labelled outage."
    return f'{rows} in a likely outage left out: "Include outages" lists them.'


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
        f"The first {shown:,} of {plural(total, 'failed result')} are shown (those that need "
        "action first, then the newest); the CSV holds every one. Narrow the period, the plan "
        "or the states to see the rest here."
    )
