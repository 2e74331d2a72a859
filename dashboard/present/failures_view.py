"""Everything the Failures page draws from one period: its failed results with their states,
what they were computed from, the figures above the table, and the table with its columns'
looks; and which executions of the period the page must read the results of first."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

import pandas as pd

from dashboard.analytics import failures as failures_analytics
from dashboard.analytics import states as states_analytics
from dashboard.analytics.failures import Failures
from dashboard.present import failures as failures_words
from dashboard.present import table_view as columns
from dashboard.present.table_view import TableView
from dashboard.present.tables import TABLE_ROW_LIMIT

RULES = states_analytics.StateRules()
"""The rules each row's scenario state is judged by: the defaults."""
WINDOW = RULES.window
"""Each plan's last W finished executions, whose results the states need."""
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True, eq=False)
class PeriodRuns:
    """executions: every execution known to the page (the lookback's, and a custom period's);
    failing: those of the period with a failed result, the only ones whose results the list
    needs; [start, end): the period (end None: open)."""

    executions: pd.DataFrame
    failing: pd.DataFrame
    start: datetime
    end: datetime | None


def period_runs(
    lookback: pd.DataFrame,
    custom: pd.DataFrame | None,
    *,
    start: datetime | None,
    end: datetime | None,
) -> PeriodRuns:
    """The executions of the lookback, with a `custom` period's (its own load) when there is
    one, and those failing in the period from `start` (None: from the first) to `end` (its last
    millisecond included; None: open)."""
    begin = start or EPOCH
    finish = None if end is None else end + timedelta(milliseconds=1)
    executions = (
        lookback
        if custom is None
        else failures_analytics.together([lookback, custom], "execution_id")
    )
    failing = failures_analytics.failing_executions(executions, start=begin, end=finish)
    return PeriodRuns(executions, failing, begin, finish)


@dataclass(frozen=True, eq=False)
class FailuresView:
    """found: the period's failed results (every state); caption: what they were computed
    from; figures: the figures above the table (label -> value) of the states listed;
    none_note: said when none is listed; shown_caption: said when the table shows only the
    newest rows; table: the failures listed."""

    found: Failures
    caption: str
    figures: dict[str, str]
    none_note: str | None
    shown_caption: str | None
    table: TableView


def failures_view(
    lookback: pd.DataFrame,
    window_results: pd.DataFrame,
    analysed: pd.DataFrame,
    runs: PeriodRuns,
    failing_results: pd.DataFrame,
    *,
    only: tuple[str, ...],
    today: date,
    scope: str,
    plan_names: Mapping[int, str],
    scenario_link: failures_words.ScenarioLink,
    results_link: failures_words.ResultsLink,
    tz: str,
) -> FailuresView:
    """The failures of `runs`' period from the results of its failing executions
    (`failing_results`) and of each plan's last W finished executions (`analysed`, their
    `window_results`; W is `WINDOW`), whose states name each row's scenario; `lookback`: the
    executions those states are judged over. `only`: the states listed (none: every one)."""
    states = states_analytics.scenario_states(lookback, window_results, RULES)
    found = failures_analytics.failures(
        runs.executions,
        failures_analytics.together([window_results, failing_results], "result_id"),
        start=runs.start,
        end=runs.end,
        read=[*analysed["execution_id"], *runs.failing["execution_id"]],
        states=states.scenarios,
    )
    rows = failures_analytics.of_states(found.rows, only)
    display = failures_words.failures_display(
        rows,
        plan_names=plan_names,
        scenario_link=scenario_link,
        results_link=results_link,
        tz=tz,
    )
    return FailuresView(
        found=found,
        caption=failures_words.basis_caption(
            found.basis, today=today, scope=scope, window=RULES.window
        ),
        figures=failures_words.summary(rows),
        none_note=failures_words.none_text(only) if rows.empty else None,
        shown_caption=failures_words.shown_text(min(len(display), TABLE_ROW_LIMIT), len(display)),
        table=TableView(
            display,
            key="failures.table",
            file_name="failures.csv",
            tz=tz,
            max_rows=TABLE_ROW_LIMIT,
            columns={
                "Started": columns.moment(tz),
                "Scenario": columns.ident(),
                "Failure group": columns.text("medium"),
                "Message": columns.wide_text(),
                "Results": columns.link("results"),
                "History": columns.link("history"),
                "Node log": columns.link("node log"),
                "Executor log": columns.link("executor log"),
            },
        ),
    )
