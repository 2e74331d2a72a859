"""Everything the Scenario states page draws: each scenario's state under the applied settings,
and how many each state would hold under the proposed ones, computed on the same executions.

The states are those the failure verdicts (`analytics.triage`) read: over each plan's last W
finished executions without the outages, with a passing latest run outranking every failing
state (`states.latest_pass_first`); each scenario's row carries the verdict of its latest
failure (known with its mark, recovering, ...) and its evidence line."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date

import pandas as pd

from dashboard.analytics import states as states_analytics
from dashboard.analytics.flaky import last_finished
from dashboard.analytics.states import ScenarioStates, StateRules
from dashboard.present import flaky as flaky_words
from dashboard.present import states as states_words
from dashboard.present import table_view as columns
from dashboard.present.captions import describe_window
from dashboard.present.table_view import TableView
from dashboard.present.tables import NAME_COLUMN, owned_by, with_names

STATE_CHOICES: dict[str, str] = {s: states_words.state_label(s) for s in states_analytics.STATES}
"""The state filter's options: each state, and how it reads."""

NO_SCENARIO = "No scenario is in these states over these executions."
NONE_OWNED = "No scenario you own is in these states over these executions."
"""Said by "only mine" when no scenario listed is one the viewer owns."""


def rules(*, window: int, threshold: float, min_runs: int, broken_runs: int) -> StateRules:
    """The rules' settings the page applies or proposes (W, the threshold, K, N)."""
    return StateRules(
        window=window, threshold=threshold, min_runs=min_runs, broken_runs=broken_runs
    )


def proposed(
    applied: StateRules, window: object, threshold: object, min_runs: object, broken_runs: object
) -> StateRules:
    """The settings the page's drafts propose (W, the threshold, K, N, as the inputs hold them)."""
    return applied.with_changes(
        window=int(window),  # type: ignore[call-overload]
        threshold=float(threshold),  # type: ignore[arg-type]
        min_runs=int(min_runs),  # type: ignore[call-overload]
        broken_runs=int(broken_runs),  # type: ignore[call-overload]
    )


def left_out(outages: pd.DataFrame) -> frozenset[int]:
    """The executions the states leave out, whatever the page shows: the outages (as the
    verdicts do)."""
    return frozenset(int(e) for e in outages["execution_id"])


def judged(executions: pd.DataFrame, applied: StateRules) -> list[int]:
    """The executions whose failures the page judges: each plan's last W (applied) finished
    ones of `executions` (outages already left out)."""
    return [int(e) for e in last_finished(executions, applied.window)["execution_id"]]


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
    outages_caption: str | None
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
    verdicts: pd.DataFrame | None = None,
    outages: int = 0,
    tz: str = "UTC",
    names: pd.DataFrame | None = None,
    only_owner: str | None = None,
) -> StatesView:
    """The states of the scenarios of `results` over the lookback's `executions` (each plan's
    last W finished ones, for the applied W and the proposed one alike; the `outages` left
    out of them, counted), `only` the states listed (none: every state), with `verdicts` (the
    one verdict per failed result of the applied window, `ui.triage.verdicts_of`). `names`:
    the company's scenario names (None: none), each shown with its owner; `only_owner`: list
    only the scenarios this address owns ("only mine"; None: every one)."""
    found = _states(executions, results, applied)
    then = None
    if proposed != applied:
        then = _states(executions, results, proposed).counts()
    latest = None if verdicts is None else states_words.latest_verdicts(verdicts, tz=tz)
    display = with_names(
        states_words.states_display(found, plan_names, scenario_link, only=only, latest=latest),
        names,
        after="Why",
        owners=True,
    )
    if only_owner is not None:
        display = display[owned_by(display["Scenario"], names, only_owner)].reset_index(drop=True)
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
        caption=f"{window}. {states_words.counts_text(found.counts())}."
        + (
            ""
            if latest is None
            else f" Their latest failures: {states_words.verdict_counts_text(latest)}."
        ),
        outages_caption=states_words.outages_text(outages),
        table=TableView(
            display,
            key="states.table",
            file_name="scenario-states.csv",
            columns={
                "Scenario": columns.ident(),
                "Why": columns.wide_text(),
                **({NAME_COLUMN: columns.text("medium")} if NAME_COLUMN in display else {}),
                "History": columns.link("history"),
            },
        ),
        none_note=None
        if not display.empty
        else (NO_SCENARIO if only_owner is None else NONE_OWNED),
        legend=flaky_words.timeline_legend(),
    )


def _states(
    executions: pd.DataFrame, results: pd.DataFrame, rules: StateRules
) -> states_analytics.ScenarioStates:
    """The states under `rules`, a passing latest run outranking every failing state."""
    return states_analytics.latest_pass_first(
        states_analytics.scenario_states(executions, results, rules)
    )
