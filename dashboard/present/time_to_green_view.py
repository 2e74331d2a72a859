"""Everything the Time to green page draws, worded: the week's turns as figures, each plan's time
to green and its trend, every red stretch with its links, and how old each failure group is.

The failure groups' ages need the results of the failing executions, which the page loads under
their own heading (what is fetched first is said there): `TimeToGreenView.failing` names them,
and `TimeToGreenView.failure_ages(results)` words that part.

Outages are the triage's (`ui.triage.triage_of`, `analytics.outages`: the rule that labels a
failed result "outage"), never a rule of this page: left out, a red stretch made only of
outages is no red stretch, and the caption says which were left out; included, such a stretch
is counted and shown apart ("Outage only").
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import numpy as np
import pandas as pd

from dashboard.analytics import group_rules, red_stretches
from dashboard.analytics.failure_groups import Grouping
from dashboard.analytics.group_rules import TeamRules
from dashboard.analytics.red_stretches import TimeToGreen
from dashboard.analytics.scenario_names import names_by_id
from dashboard.present import failure_groups as groups_view
from dashboard.present import table_view as columns
from dashboard.present import time_to_green as words
from dashboard.present.captions import scope_text
from dashboard.present.table_view import TableView

GROUPINGS = groups_view.GROUPINGS
"""Per scenario or across scenarios: the failure groups' choice of grouping."""
NO_PLAN = "No plan has a finished execution with a verdict here."
NONE_FAILED = "No result failed in these executions."


@dataclass(frozen=True, eq=False)
class FailureAgesView:
    """How old each failure group is: its caption, a note when nothing failed, the table."""

    caption: str
    none_failed: str | None
    table: TableView


@dataclass(frozen=True, eq=False)
class TimeToGreenView:
    """found: the figures; kpis: (label, value) of the figures above the tables; plans and
    stretches: the two tables with their captions (`no_plan`: a note when the first is empty);
    outages_caption: the red stretches made only of outages, left out or shown apart (None
    when there are none); failing: the executions whose results the failure groups' ages
    read."""

    found: TimeToGreen
    kpis: tuple[tuple[str, str], ...]
    turns_caption: str
    plans_caption: str
    no_plan: str | None
    plans: TableView
    stretches_caption: str
    stretches: TableView
    outages_caption: str | None
    failing: pd.DataFrame
    executions: pd.DataFrame
    now: datetime
    tz: str
    scope: str

    def failure_ages(
        self,
        results: pd.DataFrame,
        rules: TeamRules | None = None,
        *,
        grouping: Grouping = Grouping.SCENARIO,
        names: pd.DataFrame | None = None,
    ) -> FailureAgesView:
        """The failure groups of `failing`'s `results`, with how old each is: per scenario
        unless `grouping` says across, after the team's `rules` (merged groups named by their
        rule, each group's category); `names`: the company's scenario names, for rules on
        them."""
        named = names_by_id(names) if names is not None and not names.empty else None
        grouped = group_rules.grouped(self.failing, results, rules, grouping=grouping, names=named)
        ages = red_stretches.failure_group_ages(
            grouped.groups, self.executions, now=pd.Timestamp(self.now)
        )
        caption = words.groups_caption(
            grouped.basis, today=self.now.date(), scope=self.scope, grouping=grouping
        )
        note = group_rules.rules_note(rules)
        return FailureAgesView(
            caption=caption if note is None else f"{caption} {note}",
            none_failed=NONE_FAILED if grouped.groups.empty else None,
            table=TableView(
                words.groups_display(grouped.groups, ages),
                key="red.groups",
                file_name="failure-group-ages.csv",
                tz=self.tz,
                columns={
                    "Message": columns.text("medium"),
                    "First seen": columns.moment(self.tz),
                    "Last seen": columns.moment(self.tz),
                },
            ),
        )


def time_to_green_view(
    executions: pd.DataFrame,
    *,
    now: datetime,
    tz: str,
    project: str | None,
    plan: str | None,
    results_link: words.ResultsLink,
    compare_link: words.CompareLink,
    every: pd.DataFrame | None = None,
    outages: pd.DataFrame | None = None,
    included: bool = False,
) -> TimeToGreenView:
    """The page's figures and tables from the lookback's `executions` (outages already left
    out unless `included`), `project` and `plan` naming the scope; `every`: the lookback's
    executions with the outages, and `outages` (`analytics.outages`, the triage's) to say
    which red stretches were made only of them."""
    found = red_stretches.time_to_green(executions, now=pd.Timestamp(now))
    scope = scope_text(project=project, plan=plan)
    turns = found.turns
    only = (
        outage_only(
            red_stretches.red_stretches(every if every is not None else executions, now=now),
            outages,
        )
        if outages is not None and not outages.empty
        else None
    )
    stretches = words.stretches_display(found.stretches, results_link, compare_link, tz=tz)
    if included and only is not None and not only.empty:
        stretches = words.with_outage_only(stretches, found.stretches, only)
    return TimeToGreenView(
        found=found,
        kpis=(
            (f"Turned red, last {turns.days} days", f"{turns.turned_red:,}"),
            ("Back to green", f"{turns.back_to_green:,}"),
            ("Red now", f"{int(found.plans['red_now'].sum()):,} plans"),
        ),
        turns_caption=words.turns_caption(turns),
        plans_caption=words.plans_caption(found.basis, found, today=now.date(), scope=scope),
        no_plan=NO_PLAN if found.plans.empty else None,
        plans=TableView(
            words.plans_display(found),
            key="red.plans",
            file_name="time-to-green.csv",
            columns={"Now": columns.text("medium")},
        ),
        stretches_caption=words.stretches_caption(found),
        stretches=TableView(
            stretches,
            key="red.stretches",
            file_name="red-stretches.csv",
            tz=tz,
            columns={
                "Red from": columns.moment(tz),
                "First red": columns.link("results"),
                "What changed": columns.link("compare"),
                "Green run": columns.link("results"),
            },
        ),
        outages_caption=(
            None
            if only is None or only.empty
            else words.outage_stretches_caption(only, included=included, tz=tz)
        ),
        failing=executions[executions["failed"].fillna(0) > 0],
        executions=executions,
        now=now,
        tz=tz,
        scope=scope,
    )


def outage_only(stretches: pd.DataFrame, outages: pd.DataFrame) -> pd.DataFrame:
    """The red stretches (`red_stretches.red_stretches`, with the outages) every failing
    execution of which is an outage of `outages`: counted by plan and start, a stretch's
    failing executions being those of its plan from its first red one to its last.

    Linear in the stretches and the outages: per plan, the failing outages' starts are sorted
    once and each stretch's count is the difference of two binary searches (a mask over every
    outage per stretch took 23 s at 100,000 executions)."""
    if stretches.empty or outages.empty:
        return stretches.iloc[0:0]
    failing = outages[(outages["failed"] > 0) & outages["start"].notna()]
    starts = {
        plan: pd.DatetimeIndex(group.sort_values())
        for plan, group in failing.groupby("plan_id")["start"]
    }
    red_from, last_red = stretches["red_from"], stretches["last_red_start"]
    counted = np.zeros(len(stretches), dtype="int64")
    for plan, rows in stretches.groupby("plan_id").indices.items():
        kept = starts.get(plan)
        if kept is None:
            continue
        first = kept.searchsorted(red_from.iloc[rows], side="left")
        after = kept.searchsorted(last_red.iloc[rows], side="right")
        counted[rows] = np.maximum(after - first, 0)
    bounded = (red_from.notna() & last_red.notna()).to_numpy()
    return stretches[(counted * bounded >= stretches["executions"].to_numpy())]
