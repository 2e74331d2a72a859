"""Everything the Environments page draws for one plan's window, built in one go: the
scenarios whose failures concentrate on some environments, the failures that started with a new
browser version, and the scenario x environment heat map with its known failures and table.

The page keeps its controls, the loading and the mark form; this turns the window's frames,
the marks that apply and the viewer's zone into the rest.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import pandas as pd

from dashboard.analytics import environments as env_analytics
from dashboard.analytics import known_figures
from dashboard.analytics import marks as mark_analytics
from dashboard.present import analytics_charts
from dashboard.present import environments as words
from dashboard.present import known as known_words
from dashboard.present import table_view as columns
from dashboard.present.captions import describe_window, scope_text
from dashboard.present.environments import ScenarioLink
from dashboard.present.table_view import TableView
from dashboard.present.tables import with_names
from dashboard.present.view_parts import ChartView, Said, note, plain

PICK = "Pick a plan to see its scenarios on each environment."
NO_SPECIFIC = "No scenario's failures concentrate on some environments."
NO_VERSION_CHANGE = "No failures started with a browser version change."
NO_RESULTS = "These executions have no results."


@dataclass(frozen=True, eq=False)
class MatrixView:
    """The heat map, how many of its failures are known, the failed cells to mark, and its
    cells as a table."""

    heatmap: ChartView
    known: str
    to_mark: pd.DataFrame
    table: TableView


@dataclass(frozen=True, eq=False)
class EnvironmentsView:
    """Each section's caption, what it says (the findings as sentences, or a note that there
    are none) and its table; matrix: None when the executions have no results (`no_results`
    says so, and nothing more is drawn)."""

    specific_caption: str
    specific: Said
    specific_table: TableView
    versions_caption: str
    versions: Said
    versions_table: TableView
    matrix_caption: str
    no_results: Said
    matrix: MatrixView | None


def environments_view(
    executions: pd.DataFrame,
    analysed: pd.DataFrame,
    results: pd.DataFrame,
    marks: pd.DataFrame,
    *,
    plan: int,
    plan_name: str | None,
    window: int,
    tz: str,
    today: date,
    scenario_link: ScenarioLink,
    names: pd.DataFrame | None = None,
) -> EnvironmentsView:
    """The environments of `plan` over the window's executions (`analysed`, among the
    lookback's `executions`) and their `results`, with the `marks` that apply now; each
    scenario named from the company's scenario `names` (None: none)."""
    report = env_analytics.environment_report(analysed, results)
    basis = describe_window(
        report.basis, executions, today=today, scope=scope_text(plan=plan_name), window=window
    )
    specific = report.specific
    return EnvironmentsView(
        specific_caption=words.specific_caption(basis),
        specific=note(NO_SPECIFIC, severity="info")
        if specific.empty
        else plain(*words.specific_sentences(specific)),
        specific_table=TableView(
            with_names(words.specific_display(specific, scenario_link), names, after="History"),
            key="environments.specific",
            file_name=f"plan-{plan}-environment-specific.csv",
            columns={"Scenario": columns.ident(), "History": columns.link("history")},
        ),
        versions_caption=words.versions_caption(basis),
        versions=note(NO_VERSION_CHANGE if report.version_changes.empty else None, severity="info"),
        versions_table=TableView(
            words.version_display(report.version_changes),
            key="environments.versions",
            file_name=f"plan-{plan}-version-changes.csv",
            columns={"First seen": columns.moment(tz)},
        ),
        matrix_caption=words.matrix_caption(basis),
        no_results=note(NO_RESULTS if report.matrix.empty else None, severity="info"),
        matrix=None
        if report.matrix.empty
        else _matrix(
            report.matrix, results, marks, plan=plan, scenario_link=scenario_link, names=names
        ),
    )


def _matrix(
    matrix: pd.DataFrame,
    results: pd.DataFrame,
    marks: pd.DataFrame,
    *,
    plan: int,
    scenario_link: ScenarioLink,
    names: pd.DataFrame | None = None,
) -> MatrixView:
    heatmap = ChartView(
        analytics_charts.environment_heatmap_chart(matrix),
        key="environments.heatmap",
        file_name=f"plan-{plan}-pass-rate-heat-map.csv",
    )
    known = known_figures.matrix_with_known(matrix, mark_analytics.known_cells(results, marks))
    rate = columns.number("%.1f %%")
    return MatrixView(
        heatmap=heatmap,
        known=known_words.known_caption(int(known["known"].sum()), int(known["failed"].sum())),
        to_mark=known[known["failed"] > 0],
        table=TableView(
            with_names(words.matrix_display(known, scenario_link), names, after="History"),
            key="environments.matrix",
            file_name=f"plan-{plan}-environments.csv",
            columns={
                "Scenario": columns.ident(),
                "Pass rate": rate,
                "Pass rate without known": rate,
                "History": columns.link("history"),
            },
        ),
    )
