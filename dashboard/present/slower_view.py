"""Everything the Slower scenarios page draws from one window: the rule, what the list was
computed from, the table with its columns' looks, and the note when no scenario is slower."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date

import pandas as pd

from dashboard.analytics import slower_scenarios as slower_analytics
from dashboard.analytics.slower_scenarios import SlowerScenarios
from dashboard.present import slower_scenarios as slower_words
from dashboard.present import table_view as columns
from dashboard.present.captions import describe_window
from dashboard.present.table_view import TableView
from dashboard.present.tables import with_names


@dataclass(frozen=True, eq=False)
class SlowerView:
    """found: the analytic; rule: its explanation (markdown); caption: what it was computed
    from and how many scenarios were judged; table: the slower scenarios; none_note: said when
    the table is empty."""

    found: SlowerScenarios
    rule: str
    caption: str
    table: TableView
    none_note: str | None


def slower_view(
    executions: pd.DataFrame,
    results: pd.DataFrame,
    *,
    window: int,
    today: date,
    scope: str,
    plan_names: Mapping[int, str],
    scenario_link: slower_words.ScenarioLink,
    tz: str,
    names: pd.DataFrame | None = None,
) -> SlowerView:
    """The scenarios slower than their own earlier runs over each plan's last `window`
    finished executions among the lookback's `executions`, with their `results`; each named
    from the company's scenario `names` (None: none)."""
    found = slower_analytics.slower_scenarios(executions, results, window=window)
    display = with_names(
        slower_words.slower_display(found, plan_names, scenario_link), names, after="Evidence"
    )
    return SlowerView(
        found=found,
        rule=slower_words.rule_text(found),
        caption=describe_window(
            found.basis, executions, today=today, scope=scope, window=window, each_plan=True
        )
        + ". "
        + slower_words.judged_text(found),
        table=TableView(
            display,
            key="slower.table",
            file_name="slower-scenarios.csv",
            tz=tz,
            columns={
                "Scenario": columns.ident(),
                "Evidence": columns.wide_text(),
                "Latest run": columns.moment(tz),
                "History": columns.link("history"),
            },
        ),
        none_note=slower_words.none_text(found) if display.empty else None,
    )
