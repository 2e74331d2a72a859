"""Everything the Time to green page draws, worded: the week's turns as figures, each plan's time
to green and its trend, every red stretch with its links, and how old each failure group is.

The failure groups' ages need the results of the failing executions, which the page loads under
their own heading (what is fetched first is said there): `TimeToGreenView.failing` names them,
and `TimeToGreenView.failure_ages(results)` words that part.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import pandas as pd

from dashboard.analytics import failure_groups as groups_analytics
from dashboard.analytics import red_stretches
from dashboard.analytics.red_stretches import TimeToGreen
from dashboard.present import table_view as columns
from dashboard.present import time_to_green as words
from dashboard.present.captions import scope_text
from dashboard.present.table_view import TableView

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
    failing: the executions whose results the failure groups' ages read."""

    found: TimeToGreen
    kpis: tuple[tuple[str, str], ...]
    turns_caption: str
    plans_caption: str
    no_plan: str | None
    plans: TableView
    stretches_caption: str
    stretches: TableView
    failing: pd.DataFrame
    executions: pd.DataFrame
    now: datetime
    tz: str
    scope: str

    def failure_ages(self, results: pd.DataFrame) -> FailureAgesView:
        """The failure groups of `failing`'s `results`, with how old each is."""
        grouped = groups_analytics.failure_groups(self.failing, results)
        ages = red_stretches.failure_group_ages(
            grouped.groups, self.executions, now=pd.Timestamp(self.now)
        )
        return FailureAgesView(
            caption=words.groups_caption(grouped.basis, today=self.now.date(), scope=self.scope),
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
) -> TimeToGreenView:
    """The page's figures and tables from the lookback's `executions` (outages already left
    out unless included), `project` and `plan` naming the scope."""
    found = red_stretches.time_to_green(executions, now=pd.Timestamp(now))
    scope = scope_text(project=project, plan=plan)
    turns = found.turns
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
            words.stretches_display(found.stretches, results_link, compare_link, tz=tz),
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
        failing=executions[executions["failed"].fillna(0) > 0],
        executions=executions,
        now=now,
        tz=tz,
        scope=scope,
    )
