"""Everything the Flaky scenarios page draws from one window, built in one go.

The page asks `cache.built` for this once per input (the window's executions, its results'
counts, W, the threshold, the marks that apply, the plans' names, the time zone), so the same
view opened again (a shared link, a rerun that changed nothing) redraws from what is made
instead of scoring some 36,000 results of a 200-run window again. `flaky_page` words what the
page draws around it (captions, notes, the tables with their columns' looks, the marking form's
choices) from the view and what the page loaded; the page lays it out.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date

import pandas as pd

from dashboard.analytics import failure_groups as groups_analytics
from dashboard.analytics import flaky as flaky_analytics
from dashboard.analytics import known_figures
from dashboard.analytics import marks as mark_analytics
from dashboard.analytics.failure_groups import FailureGroups
from dashboard.analytics.flaky import Flakiness
from dashboard.data.fanout_answer import FanOutCounts
from dashboard.present import analytics_charts
from dashboard.present import failure_groups as groups_view
from dashboard.present import flaky as flaky_words
from dashboard.present import known as known_words
from dashboard.present import table_view as columns
from dashboard.present.captions import describe_window
from dashboard.present.chart_data import Chart
from dashboard.present.failure_groups import ResultsLink
from dashboard.present.formatting import escape_markdown, visible_text
from dashboard.present.known import Choice
from dashboard.present.table_view import TableView


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


def rule(window: int, threshold: float) -> str:
    """The rule, as the page explains it (markdown), with the runs it needs."""
    return flaky_words.rule_text(window, threshold, flaky_analytics.MIN_RUNS)


def view_inputs(
    analysed: pd.DataFrame,
    counts: FanOutCounts | None,
    marks: pd.DataFrame,
    *,
    window: int,
    threshold: float,
    plan_names: Mapping[int, str],
    tz: str,
) -> tuple[object, ...]:
    """What names a `flaky_view` in a cache key: the window's executions and its results'
    counts, W, the threshold, the marks that apply (each one's id and revision), names, zone."""
    return (
        hashlib.sha256(analysed["execution_id"].to_numpy().tobytes()).hexdigest(),
        counts,
        window,
        threshold,
        mark_analytics.marks_key(marks),
        tuple(plan_names.items()),
        tz,
    )


@dataclass(frozen=True, eq=False)
class FlakyPage:
    """Everything the page draws, worded. Flaky: `window_caption`, then the timeline `chart`
    with its `legend` or (without one) the `none_flaky` note, the `table`, `not_enough_runs`
    and `known_runs`. Failure groups: `groups_caption`, then (without groups) the
    `no_failures` note, where the page ends, or `known_caption`, the marking form's
    `mark_choices`, the `groups_table`, each listed group as (its expander's label,
    markdown-escaped; its results) and `more_groups`.
    `view`: the figures and tables they were worded from."""

    view: FlakyView
    window_caption: str
    chart: Chart | None
    legend: str
    none_flaky: str
    table: TableView
    not_enough_runs: str | None
    known_runs: str
    groups_caption: str
    no_failures: str
    known_caption: str | None
    mark_choices: list[Choice]
    groups_table: TableView | None
    group_sections: tuple[tuple[str, TableView], ...]
    more_groups: str | None


Memo = Callable[[tuple[object, ...], Callable[[], FlakyView]], FlakyView]
"""(the inputs that name a view, how to make it) -> the view: made once per inputs and kept
(the page's `cache.built`), or simply made."""


def _made(_: tuple[object, ...], build: Callable[[], FlakyView]) -> FlakyView:
    return build()


def flaky_page(
    analysed: pd.DataFrame,
    results: pd.DataFrame,
    executions: pd.DataFrame,
    marks: pd.DataFrame,
    *,
    counts: FanOutCounts | None,
    window: int,
    threshold: float,
    today: date,
    scope: str,
    plan: int | None,
    plan_names: Mapping[int, str],
    tz: str,
    scenario_link: flaky_words.ScenarioLink,
    results_link: ResultsLink,
    memo: Memo = _made,
) -> FlakyPage:
    """The page: `flaky_view` of the window (`analysed`, its `results` and their `counts`, the
    `marks` that apply), through `memo`, and the words around it. `executions` are the
    lookback's (their running ones are said to be left out), `plan` the one the page shows
    (None: every plan)."""
    inputs = view_inputs(
        analysed, counts, marks, window=window, threshold=threshold, plan_names=plan_names, tz=tz
    )
    view = memo(
        inputs,
        lambda: flaky_view(
            analysed,
            results,
            marks,
            window=window,
            threshold=threshold,
            plan_names=plan_names,
            tz=tz,
            scenario_link=scenario_link,
            results_link=results_link,
        ),
    )
    table = TableView(
        view.display,
        key="flaky.table",
        file_name="flaky-scenarios.csv",
        columns={
            "Scenario": columns.ident(),
            "Score": columns.number("%.2f", width="small"),
            "History": columns.link("history"),
        },
    )
    groups, grouped = view.groups, view.grouped
    listed = grouped.groups.head(groups_view.GROUPS_SHOWN).iterrows()
    return FlakyPage(
        view=view,
        window_caption=describe_window(
            view.flakiness.basis,
            executions,
            today=today,
            scope=scope,
            window=window,
            each_plan=True,
        ),
        chart=view.chart,
        legend=flaky_words.timeline_legend(),
        none_flaky=flaky_words.none_flaky_text(threshold),
        table=table,
        not_enough_runs=flaky_words.not_enough_runs_text(view.flakiness, flaky_analytics.MIN_RUNS),
        known_runs=known_words.KNOWN_RUNS_CAPTION,
        groups_caption=flaky_words.groups_caption(grouped.basis, today=today, scope=scope),
        no_failures="No result failed in these executions.",
        known_caption=None
        if groups is None
        else known_words.known_caption(int(groups["known"].sum()), int(groups["failures"].sum())),
        mark_choices=[]
        if groups is None
        else known_words.group_choices(groups["signature"], plan_id=plan, plan_names=plan_names),
        groups_table=None
        if groups is None
        else TableView(
            groups_view.groups_display(groups),
            key="groups.table",
            file_name="failure-groups.csv",
            columns={"First seen": columns.moment(tz), "Last seen": columns.moment(tz)},
        ),
        group_sections=tuple(
            # The message is the service's: shown literally, never as markdown.
            (
                escape_markdown(visible_text(groups_view.headline(group, tz))),
                TableView(
                    shown,
                    key=f"groups.{position}",
                    file_name=f"failure-group-{position + 1}.csv",
                    columns={
                        "Started": columns.moment(tz),
                        "Scenario": columns.ident(),
                        "Execution": columns.ident(),
                        "Results": columns.link("results"),
                        "History": columns.link("history"),
                        "Node log": columns.link("node log"),
                    },
                ),
            )
            for position, ((_, group), shown) in enumerate(
                zip(listed, view.group_tables, strict=True)
            )
        ),
        more_groups=flaky_words.more_groups_caption(len(grouped.groups), groups_view.GROUPS_SHOWN),
    )
