"""Everything the Flaky scenarios page draws from one window, built in one go.

The page asks `cache.built` for this once per input (the window's executions, its results'
counts, W, the threshold, the marks that apply, the plans' names, the time zone), so the same
view opened again (a shared link, a rerun that changed nothing) redraws from what is made
instead of scoring some 36,000 results of a 200-run window again. What the page words around it
(captions, notices, the mark form) stays on the page.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from dashboard.analytics import failure_groups as groups_analytics
from dashboard.analytics import flaky as flaky_analytics
from dashboard.analytics import known_figures
from dashboard.analytics import marks as mark_analytics
from dashboard.analytics.failure_groups import FailureGroups
from dashboard.analytics.flaky import Flakiness
from dashboard.present import analytics_charts
from dashboard.present import failure_groups as groups_view
from dashboard.present import flaky as flaky_words
from dashboard.present.chart_data import Chart
from dashboard.present.failure_groups import ResultsLink


@dataclass(frozen=True, eq=False)
class FlakyView:
    """flakiness: the scores; display: the flaky table; chart: the timeline (None when no
    scenario is flaky); grouped: the window's failure groups; groups: those with their known
    failures (None when none failed); group_tables: the failed results of each group listed,
    in order. Shared between reruns and viewers: never mutate it."""

    flakiness: Flakiness
    display: pd.DataFrame
    chart: Chart | None
    grouped: FailureGroups
    groups: pd.DataFrame | None
    group_tables: tuple[pd.DataFrame, ...]


def flaky_view(
    analysed: pd.DataFrame,
    results: pd.DataFrame,
    marks: pd.DataFrame,
    *,
    window: int,
    threshold: float,
    plan_names: Mapping[int, str],
    tz: str,
    scenario_link: flaky_words.ScenarioLink,
    results_link: ResultsLink,
) -> FlakyView:
    """The page's figures and tables for each plan's last `window` finished executions
    (`analysed`) and their `results`, `marks` (those that apply) split into known failures."""
    cells = mark_analytics.known_cells(results, marks)
    flakiness = flaky_analytics.flaky_scenarios(
        analysed, results, window=window, threshold=threshold
    )
    display = flaky_words.flaky_display(
        flakiness, plan_names, scenario_link, known_figures.known_runs(cells)
    )
    chart = None
    if not display.empty:
        rows = flaky_words.flaky_rows(flakiness)
        labels = analytics_charts.labels_for(rows, plan_names)
        chart = analytics_charts.flaky_timeline_chart(rows, flakiness.positions, labels, tz)
    grouped = groups_analytics.failure_groups(analysed, results)
    if grouped.groups.empty:
        return FlakyView(flakiness, display, chart, grouped, None, ())
    groups = known_figures.groups_with_known(grouped.groups, results, marks)
    starts = dict(zip(analysed["execution_id"], analysed["start"], strict=True))
    tables = tuple(
        groups_view.group_results_display(
            results,
            group["result_ids"],
            plan_names=dict(plan_names),
            scenario_link=scenario_link,
            results_link=results_link,
            execution_starts=starts,
        )
        for _, group in grouped.groups.head(groups_view.GROUPS_SHOWN).iterrows()
    )
    return FlakyView(flakiness, display, chart, grouped, groups, tables)
