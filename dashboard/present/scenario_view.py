"""Everything the Scenario history page draws for one scenario of one plan, built in one go:
what it was computed from, its outcomes (chart and table, with messages and log links), what
the team knows of its failures, and whether it became slower.

The page keeps its controls, the loading and the mark form; this turns the window's frames,
the marks that apply and the viewer's zone into the rest.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import pandas as pd

from dashboard.analytics import history as history_analytics
from dashboard.analytics import marks as mark_analytics
from dashboard.analytics import plans as plan_analytics
from dashboard.analytics import triage
from dashboard.analytics.outcomes import level_outcomes
from dashboard.analytics.scenario_names import names_by_id, scenario_label
from dashboard.present import analytics_charts
from dashboard.present import known as known_words
from dashboard.present import scenario as words
from dashboard.present import table_view as columns
from dashboard.present.captions import describe_window, scope_text
from dashboard.present.formatting import escape_markdown, visible_text
from dashboard.present.scenario import ResultsLink
from dashboard.present.table_view import TableView
from dashboard.present.triage import evidence_line
from dashboard.present.view_parts import ChartView, Said, caption, note, plain

PICK = "Pick a plan and one of its scenarios."
NO_RESULTS = "The scenario has no results in these executions."


def plan_scenarios(plans: pd.DataFrame, plan: int | None) -> tuple[int, ...] | None:
    """The scenarios the plan lists (None without a plan, or for a plan not in `plans`)."""
    return plan_analytics.plan_scenarios(plans, plan) if plan is not None else None


def scenarios_ran(results: pd.DataFrame) -> set[int]:
    """The scenarios that have a result among `results`."""
    return set(results["scenario_id"].dropna().astype(int))


@dataclass(frozen=True, eq=False)
class KnownFailures:
    """The scenario's failures in the window: how many are known (caption), one failed cell
    per environment to mark (to_mark) and the failures' message signatures."""

    caption: str
    to_mark: pd.DataFrame
    signatures: pd.Series


@dataclass(frozen=True, eq=False)
class ScenarioView:
    """basis: what it was computed from; empty: the scenario has no results there (nothing
    more is drawn). current: its label now, with its evidence (`current_label`). Outcomes:
    outcomes_caption, timeline, table. known: its failures (None when none failed). Runtime:
    regression (a warning when it regressed, else a caption), runtime (the chart), regressions
    (per environment)."""

    basis: str
    empty: bool
    current: Said
    outcomes_caption: str
    timeline: ChartView
    table: TableView
    known: KnownFailures | None
    regression: Said
    runtime: ChartView
    regressions: TableView


def title_text(scenario: int, names: pd.DataFrame | None = None) -> str:
    """`scenario` as the pages call it: "Checkout as guest (402)", or "Scenario 402" unnamed
    (as plain text, one line)."""
    label = scenario_label(scenario, {} if names is None else names_by_id(names))
    return visible_text(label, one_line=True)


def title(scenario: int, names: pd.DataFrame | None = None) -> str:
    """The page's title for `scenario` (`title_text`), markdown-escaped: a name is the team's
    text, and a title is drawn as markdown."""
    return escape_markdown(title_text(scenario, names))


def scenario_view(
    executions: pd.DataFrame,
    analysed: pd.DataFrame,
    results: pd.DataFrame,
    marks: pd.DataFrame,
    *,
    plan: int,
    scenario: int,
    plan_name: str | None,
    window: int,
    tz: str,
    today: date,
    results_link: ResultsLink,
    verdicts: pd.DataFrame | None = None,
) -> ScenarioView:
    """Scenario `scenario` of `plan` over the window's executions (`analysed`, among the
    lookback's `executions`) and their `results`, with the `marks` that apply now and the
    failure `verdicts` of the window (`ui.triage.verdicts_of`; none: no label is said)."""
    history = history_analytics.scenario_history(analysed, results, plan, scenario)
    basis = describe_window(
        history.basis, executions, today=today, scope=scope_text(plan=plan_name), window=window
    )
    named = f"plan-{plan}-scenario-{scenario}"
    regression = words.regression_text(
        history.overall, history_analytics.RECENT, history_analytics.MIN_EARLIER
    )
    return ScenarioView(
        basis=basis,
        empty=history.cells.empty,
        current=plain(
            None
            if verdicts is None
            else current_label(verdicts, results, plan=plan, scenario=scenario, tz=tz).text
        ),
        outcomes_caption=words.outcomes_caption(basis),
        timeline=ChartView(
            analytics_charts.scenario_timeline_chart(history.cells, tz),
            key="scenario.timeline",
            file_name=f"{named}-outcomes-chart.csv",
        ),
        table=TableView(
            words.history_display(history, results_link),
            key="scenario.table",
            file_name=f"{named}.csv",
            columns={
                "Started": columns.moment(tz),
                "Execution": columns.ident(),
                "Message": columns.wide_text(),
                "Node log": columns.link("node log"),
                "Executor log": columns.link("executor log"),
                "Results": columns.link("results"),
            },
        ),
        known=_known(results, marks, plan, scenario),
        regression=note(regression) if history.overall.regressed else caption(regression),
        runtime=ChartView(
            analytics_charts.scenario_runtime_chart(history.cells, tz),
            key="scenario.runtime",
            file_name=f"{named}-runtime-chart.csv",
        ),
        regressions=TableView(
            words.regression_display(history.by_environment),
            key="scenario.regressions",
            file_name=f"{named}-runtime.csv",
        ),
    )


def _known(
    results: pd.DataFrame, marks: pd.DataFrame, plan: int, scenario: int
) -> KnownFailures | None:
    """What the team knows about the scenario's failures (None when none failed)."""
    own = results[(results["plan_id"] == plan) & (results["scenario_id"] == scenario)]
    failed = mark_analytics.failed_of(own)
    if failed.empty:
        return None
    known = int(mark_analytics.known_per_execution(own, marks).sum())
    return KnownFailures(
        caption=known_words.known_caption(known, len(failed)),
        to_mark=failed.drop_duplicates(["environment"]),
        signatures=failed["signature"],
    )


@dataclass(frozen=True)
class CurrentLabel:
    """The scenario's label now: a label of `analytics.triage.PRECEDENCE`, or `words.PASSING`
    (no failure of it in the window but in outages), and the line that says it (None: it has
    no run in the window)."""

    label: str | None
    text: str | None


def current_label(
    verdicts: pd.DataFrame, results: pd.DataFrame, *, plan: int, scenario: int, tz: str
) -> CurrentLabel:
    """The scenario's label now: the verdict of its latest failure in the window that is not
    in an outage (of that execution's failures, the first label in the triage's precedence), or
    passing when it has none. Its latest run passing makes that verdict recovering, or flaky
    (`analytics.triage`); outages say nothing of the tests, so a failure only in them is said
    beside "passing"."""
    mine = verdicts[(verdicts["plan_id"] == plan) & (verdicts["scenario_id"] == scenario)]
    outage = mine["label"] == triage.OUTAGE
    failing = mine[~outage]
    if not failing.empty:
        latest = failing[failing["execution_id"] == _latest_execution(failing)]
        rank = latest["label"].map({label: i for i, label in enumerate(triage.PRECEDENCE)})
        row = latest.loc[rank.fillna(len(triage.PRECEDENCE)).idxmin()]
        label = str(row["label"])
        return CurrentLabel(label, words.current_text(label, evidence_line(row, tz=tz)))
    outages = set(verdicts.loc[verdicts["label"] == triage.OUTAGE, "execution_id"].astype(int))
    own = results[(results["plan_id"] == plan) & (results["scenario_id"] == scenario)]
    ran = own[level_outcomes(own["level"]).notna().to_numpy(dtype=bool)]
    if ran.empty:
        return CurrentLabel(None, None)
    in_outages = mine[outage]
    if ran["execution_id"].isin(outages).all() and not in_outages.empty:
        row = in_outages.loc[in_outages.index[-1]]
        return CurrentLabel(
            triage.OUTAGE, words.current_text(triage.OUTAGE, evidence_line(row, tz=tz))
        )
    judged = ran[~ran["execution_id"].isin(outages)]
    return CurrentLabel(
        words.PASSING,
        words.passing_text(
            int(judged["execution_id"].nunique()),
            outage=None if in_outages.empty else evidence_line(in_outages.iloc[-1], tz=tz),
        ),
    )


def _latest_execution(frame: pd.DataFrame) -> int:
    """The id of the latest execution of `frame` (by start, then id)."""
    ordered = frame.sort_values(["start", "execution_id"], kind="stable", na_position="first")
    return int(ordered["execution_id"].iloc[-1])
