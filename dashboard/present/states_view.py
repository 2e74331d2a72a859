"""Everything the Scenario states page draws: each scenario's state under the applied settings,
and how many each state would hold under the proposed ones, computed on the same executions."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date

import pandas as pd

from dashboard.analytics import states as states_analytics
from dashboard.analytics.states import ScenarioStates, StateRules
from dashboard.present import flaky as flaky_words
from dashboard.present import states as states_words
from dashboard.present import table_view as columns
from dashboard.present.captions import describe_window
from dashboard.present.table_view import TableView

STATE_CHOICES: dict[str, str] = {s: states_words.state_label(s) for s in states_analytics.STATES}
"""The state filter's options: each state, and how it reads."""

NO_SCENARIO = "No scenario is in these states over these executions."


def rules(*, window: int, threshold: float, min_runs: int, broken_runs: int) -> StateRules:
    """The rules' settings the page applies or proposes (W, the threshold, K, N)."""
    return StateRules(
        window=window, threshold=threshold, min_runs=min_runs, broken_runs=broken_runs
    )


@dataclass(frozen=True, eq=False)
class StatesView:
    """found: the states under the applied settings. The preview: `preview_caption` and
    `preview` (scenarios per state now and, when other settings are proposed, with them). The
    list: `caption` (what it was computed from, and the counts), `table` (of the states asked
    for), `none_note` (said when the table is empty) and the timeline's `legend`."""

    found: ScenarioStates
    preview_caption: str
    preview: TableView
    caption: str
    table: TableView
    none_note: str | None
    legend: str


def states_view(
    executions: pd.DataFrame,
    results: pd.DataFrame,
    applied: StateRules,
    proposed: StateRules,
    *,
    only: tuple[str, ...],
    today: date,
    scope: str,
    plan_names: Mapping[int, str],
    scenario_link: states_words.ScenarioLink,
) -> StatesView:
    """The states of the scenarios of `results` over the lookback's `executions` (each plan's
    last W finished ones, for the applied W and the proposed one alike), `only` the states
    listed (none: every state)."""
    found = states_analytics.scenario_states(executions, results, applied)
    then = None
    if proposed != applied:
        then = states_analytics.scenario_states(executions, results, proposed).counts()
    display = states_words.states_display(found, plan_names, scenario_link, only=only)
    window = describe_window(
        found.basis, executions, today=today, scope=scope, window=applied.window, each_plan=True
    )
    return StatesView(
        found=found,
        preview_caption=states_words.preview_caption(applied, proposed),
        preview=TableView(
            states_words.preview_display(found.counts(), then),
            key="states.preview",
            file_name="scenario-states-preview.csv",
        ),
        caption=f"{window}. {states_words.counts_text(found.counts())}.",
        table=TableView(
            display,
            key="states.table",
            file_name="scenario-states.csv",
            columns={
                "Scenario": columns.ident(),
                "Why": columns.wide_text(),
                "History": columns.link("history"),
            },
        ),
        none_note=NO_SCENARIO if display.empty else None,
        legend=flaky_words.timeline_legend(),
    )
