"""Everything the Plan health page draws, worded: one row per plan over 7 and 30 days with what
is known told apart, and how long plans stay red over the same 30 days.

What is known needs the results of the failed executions, which the page reads only once it
knows a plan ran (their loading may say something of its own, after the outages' caption):
`HealthView.with_known(known, verdicts, outages)` words that part, and says in the "Now" column
what the one verdict of each failed result (`analytics.triage`) makes of each plan's latest
finished execution: all known, or red in an outage (`HealthView.latest_failing` names the
executions whose results that reads).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

import pandas as pd

from dashboard.analytics import health as health_analytics
from dashboard.analytics import red_stretches, triage
from dashboard.analytics.health import PlanHealth
from dashboard.analytics.known_figures import plan_known_figures
from dashboard.present import health as words
from dashboard.present import help_texts, tables
from dashboard.present import known as known_words
from dashboard.present import table_view as columns
from dashboard.present import time_to_green as red_words
from dashboard.present.captions import scope_text
from dashboard.present.table_view import TableView

RATE = "%.1f %%"
TIME_TO_GREEN_LINK = "Every red stretch, over 90 days, with the trend: Time to green"
TIME_TO_GREEN_ICON = ":material/timer:"


@dataclass(frozen=True, eq=False)
class HealthTable:
    """The plan health table and the caption above it. `rate_help`: rate columns (in percent)
    with their help; `sparkline`: the column of daily pass rates (0 to 100) and its help. The
    other columns' looks are in `table.columns`."""

    caption: str
    table: TableView
    rate_help: Mapping[str, str]
    sparkline: tuple[str, str]


@dataclass(frozen=True, eq=False)
class HealthView:
    """health: the figures; no_plan_ran: the note when no plan ran (the page says only that);
    caption: what the table was computed from; red_*: how long plans stay red."""

    health: PlanHealth
    no_plan_ran: str | None
    caption: str
    red_turns: str
    red_caption: str
    red_table: TableView
    executions: pd.DataFrame
    now: datetime
    tz: str

    def latest_failing(self, *, marks: pd.DataFrame, include_outages: bool) -> pd.DataFrame:
        """Each plan's latest finished execution where it failed (rows of `executions`): what
        the "Now" column's verdicts are read from. None when no verdict could change that
        column: no mark applies and outages are left out (they are then not judged here)."""
        plans = self.health.plans
        if marks.empty and not include_outages:
            return self.executions.iloc[0:0]
        failing = plans.loc[plans["latest_outcome"] == "fail", "latest_execution_id"]
        return self.executions[self.executions["execution_id"].isin(failing.dropna())]

    def with_known(
        self,
        known: pd.Series,
        verdicts: pd.DataFrame | None = None,
        outages: pd.DataFrame | None = None,
        *,
        included: bool = False,
    ) -> HealthTable:
        """The table with what is known told apart, from the known failed results per
        execution (`marks.known_per_execution`); with the `verdicts` of each plan's latest
        failing execution (`latest_failing`), "Now" says one whose every failure is known or
        in an outage; with the `outages` (`analytics.outages`), unless `included` in the
        figures, a plan whose latest finished run was one of them says so."""
        now = pd.Timestamp(self.now)
        figures = plan_known_figures(self.executions, known, now=now)
        plans = self.health.plans
        display = tables.health_display(plans, now=now)
        display["Now"] = now_labels(plans, display["Now"], verdicts, None if included else outages)
        return HealthTable(
            caption=known_words.known_caption(
                int(figures["known_long"].sum()),
                int(figures["failed_long"].sum()),
                counted_from="the finished executions of the last 30 days",
            ),
            table=TableView(
                tables.health_with_known(display, plans["plan_id"], figures),
                key="health.table",
                file_name="plan-health.csv",
                columns={
                    "Id": columns.ident(),
                    "Latest finished": columns.moment(self.tz),
                    "Pass rate 7 d": columns.number(RATE),
                    "Pass rate 30 d": columns.number(RATE),
                    "Executions 30 d": columns.number("%d"),
                },
            ),
            rate_help={
                "7 d without known": known_words.KNOWN_RULE,
                "30 d without known": known_words.KNOWN_RULE,
            },
            sparkline=("Daily pass rate, 30 d", help_texts.DAILY_RATES),
        )


def health_view(
    executions: pd.DataFrame,
    *,
    now: datetime,
    tz: str,
    project: str | None,
    plan_names: Mapping[int, str],
) -> HealthView:
    """The page from the last 30 days' `executions` (outages already left out unless
    included), `project` naming the scope."""
    stamp = pd.Timestamp(now)
    health = health_analytics.plan_health(executions, now=stamp, tz=tz)
    scope = scope_text(project=project)
    today = now.date()
    # How long plans stay red, over the same 30 days (the page of its own reaches 90).
    red = red_stretches.time_to_green(executions, now=stamp, short_days=health.long_days)
    return HealthView(
        health=health,
        no_plan_ran=(
            words.no_plan_ran(health.basis, today=today, scope=scope)
            if health.plans.empty
            else None
        ),
        caption=words.health_caption(health, today=today, scope=scope, tz=tz),
        red_turns=red_words.turns_text(red.turns),
        red_caption=red_words.health_caption(red, today=today, scope=scope),
        red_table=TableView(
            red_words.plan_rows_for_health(red, plan_names),
            key="health.red",
            file_name="plan-health-time-to-green.csv",
        ),
        executions=executions,
        now=now,
        tz=tz,
    )


def now_labels(
    plans: pd.DataFrame,
    shown: pd.Series,
    verdicts: pd.DataFrame | None,
    outages: pd.DataFrame | None,
) -> list[str]:
    """Each plan's "Now" (`shown`, on `plans`' rows) as the verdicts make it: a failing plan
    whose latest finished execution's failures are all known, or all in an outage, says so;
    a plan whose latest finished run is an outage left out of the figures (`outages`) says
    that after where it stands without it."""
    labels = {} if verdicts is None else verdicts.groupby("execution_id")["label"].agg(set)
    left_out = pd.DataFrame() if outages is None else outages.dropna(subset=["plan_id"])
    out = []
    for text, (_, plan) in zip(shown, plans.iterrows(), strict=True):
        latest = plan["latest_execution_id"]
        failed = str(plan["latest_outcome"]) == "fail"
        found = labels.get(int(latest), set()) if failed else set()
        if found in ({triage.KNOWN}, {triage.OUTAGE}):
            text = words.failing_as(next(iter(found)), text)
        if not left_out.empty:
            after = left_out[
                (left_out["plan_id"] == plan["plan_id"])
                & (pd.isna(plan["latest_start"]) | (left_out["start"] > plan["latest_start"]))
            ]
            if not after.empty:
                text += words.OUTAGE_AFTER
        out.append(text)
    return out
