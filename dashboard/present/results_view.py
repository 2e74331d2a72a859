"""Everything the Execution results page draws from one execution: its header (line, KPIs,
notes, the service's summary) and its results (notes, the table with its columns' looks, the
failures to mark and what is known of them, the levels and environments charts).

Where the results come from is the page's (the history store or the service); which scenarios
to ask for, and whether the execution is finished (its results then kept), are said here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

import pandas as pd

from dashboard.analytics import contradictions, triage
from dashboard.analytics import marks as mark_analytics
from dashboard.analytics import plans as plan_analytics
from dashboard.analytics import results as result_analytics
from dashboard.analytics.executions import ExecutionHeader
from dashboard.analytics.outages import outages
from dashboard.analytics.verdicts import VERDICT_STATUSES, execution_finished, is_failing
from dashboard.data.connection import Source
from dashboard.data.live import ResultsData
from dashboard.present import help_texts, results_charts, table_view, tables
from dashboard.present import known as known_words
from dashboard.present import results as words
from dashboard.present.captions import describe_results_source
from dashboard.present.formatting import human_duration, percent
from dashboard.present.kpis import Kpi
from dashboard.present.messages import describe_failures
from dashboard.present.notes import (
    describe_skipped,
    header_contradiction_notes,
    results_contradiction_notes,
)
from dashboard.present.table_view import TableView
from dashboard.present.triage import label_text
from dashboard.present.view_parts import ChartView

NO_SCENARIOS = (
    "The plan of this execution lists no scenarios (or is no longer visible), so there are no "
    "results to show."
)
NO_RESULTS = "The service returned no results for this execution's scenarios."


@dataclass(frozen=True)
class HeaderView:
    """line: plan, project, who and when (service text: plain); notes: what about it cannot
    be; summary: the service's own count per status (None when it sent none)."""

    line: str
    kpis: tuple[Kpi, ...]
    notes: tuple[str, ...]
    summary: str | None
    finished: bool


def header_view(header: ExecutionHeader, *, tz: str, now: datetime) -> HeaderView:
    return HeaderView(
        line=words.header_line(header, tz),
        kpis=(
            Kpi("Duration", human_duration(contradictions.possible_runtime(header.runtime_s))),
            Kpi("Results", f"{header.results:,}"),
            Kpi("Failed", f"{header.failed:,}"),
            Kpi("Pass rate", percent(header.pass_rate), help=help_texts.RATE_OF_RESULTS),
        ),
        notes=tuple(header_contradiction_notes(header, now=now)),
        summary=words.summary_caption(header) if header.summary else None,
        finished=execution_finished(header.end, dict(header.summary)),
    )


def scenarios_of(plans: pd.DataFrame, header: ExecutionHeader) -> tuple[int, ...]:
    """The scenarios of the execution's plan, whose results it holds (none when the plan is
    unknown or no longer listed)."""
    if header.plan_id is None:
        return ()
    return tuple(plan_analytics.plan_scenarios(plans, header.plan_id) or ())


@dataclass(frozen=True, eq=False)
class ResultsShown:
    """What is drawn once results came: `contradictions` among them; the table, what its
    caption says and the slice it shows (`slice_text`, also the levels chart's caption); the
    failed results the mark form offers, under `known_caption` (None when none failed), with
    the plan's name; the two charts."""

    contradictions: tuple[str, ...]
    slice_text: str
    table_caption: str
    table: TableView
    failed: pd.DataFrame
    plan_names: Mapping[int, str]
    known_caption: str | None
    environments_caption: str
    levels: ChartView
    environments: ChartView

    def message(self, selected: int | None) -> tables.ResultMessage | None:
        """The whole message of the selected row of the table (None: no row)."""
        return tables.result_message(self.table.display, selected)


@dataclass(frozen=True, eq=False)
class ResultsView:
    """failures: one message per scenario whose results could not be loaded (trusted
    markdown); notes: the records skipped; shown: the rest (None when no result came, and
    `NO_RESULTS` is said instead); outage: said at the top when the execution is a likely (or
    confirmed) outage, with its dominant failure message."""

    failures: tuple[str, ...]
    notes: tuple[str, ...]
    shown: ResultsShown | None
    outage: str | None = None


def results_view(
    data: ResultsData,
    header: ExecutionHeader,
    marks: pd.DataFrame,
    *,
    finished: bool,
    tz: str,
    now: datetime,
    source: Source,
    scenario_link: Callable[[int], str],
    verdicts: pd.DataFrame | None = None,
    names: pd.DataFrame | None = None,
) -> ResultsView:
    """The page's parts for `data`, the results of the execution `header` names; `marks`: the
    marks that apply now; `verdicts`: the one verdict of each of its failed results
    (`ui.triage.verdicts_of`, judged on this execution; none: no label is shown); `names`: the
    company's scenario names (None: none), beside each scenario."""
    failures = tuple(
        describe_failures(((f.scenario_id, f.error) for f in data.failures), source=source)
    )
    notes = tuple(t for t in [describe_skipped((s.reason for s in data.skipped), "result")] if t)
    own = None if verdicts is None else verdicts[verdicts["execution_id"] == header.execution_id]
    outage = _outage(own)
    if data.results.empty:
        return ResultsView(failures, notes, None, outage)
    complete = not data.failures and not data.skipped
    found = tuple(results_contradiction_notes(header, data.results, complete=complete, now=now))
    results = contradictions.without_impossible_runtimes(data.results, "runtime_s")
    execution = header.execution_id
    slice_text = words.slice_text(len(results), scenarios=data.scenarios, failed=len(data.failures))
    failed = mark_analytics.failed_of(results)
    known = int(mark_analytics.known_per_execution(results, marks).sum())
    return ResultsView(
        failures,
        notes,
        ResultsShown(
            contradictions=found,
            slice_text=slice_text,
            table_caption=words.table_caption(
                slice_text, describe_results_source(data.counts, finished=finished), tz
            ),
            table=TableView(
                tables.with_names(
                    _with_labels(
                        tables.results_display(results, scenario_link=scenario_link), results, own
                    ),
                    names,
                    after="Browser",
                ),
                key="results.table",
                file_name=f"execution-{execution}-results.csv",
                columns={
                    "Scenario": table_view.ident(),
                    "Message": table_view.wide_text(),
                    "Node log": table_view.link("node log"),
                    "Executor log": table_view.link("executor log"),
                    "History": table_view.link("history"),
                },
                tz=tz,
            ),
            failed=failed,
            plan_names={header.plan_id: header.plan} if header.plan_id is not None else {},
            known_caption=None if failed.empty else known_words.known_caption(known, len(failed)),
            environments_caption=words.environments_caption(slice_text),
            levels=ChartView(
                results_charts.level_chart(result_analytics.level_breakdown(results)),
                key="levels",
                file_name=f"execution-{execution}-levels.csv",
            ),
            environments=ChartView(
                results_charts.environment_matrix_chart(
                    result_analytics.environment_matrix(results)
                ),
                key="environments",
                file_name=f"execution-{execution}-environments.csv",
            ),
        ),
        outage,
    )


VERDICT_COLUMN = "Verdict"
"""The results table's column of each failed result's verdict label (empty for the others)."""


def _with_labels(
    display: pd.DataFrame, results: pd.DataFrame, verdicts: pd.DataFrame | None
) -> pd.DataFrame:
    """The results table with each failed row's verdict label beside its level. The rows are
    in `tables.results_display`'s order (failed first, then by scenario, stably)."""
    if verdicts is None:
        return display
    ordered = results.assign(
        _failing=~results["level"].fillna("").map(is_failing).astype("bool")
    ).sort_values(["_failing", "scenario_id"], kind="stable", na_position="last")
    labelled = verdicts.dropna(subset=["result_id"])
    by_result = dict(zip(labelled["result_id"].astype("int64"), labelled["label"], strict=True))
    labels = [
        label_text(by_result[int(r)]) if pd.notna(r) and int(r) in by_result else None
        for r in ordered["result_id"]
    ]
    out = display.copy()
    out.insert(out.columns.get_loc("Level") + 1, VERDICT_COLUMN, labels)
    return out


def _outage(verdicts: pd.DataFrame | None) -> str | None:
    """What the execution's outage verdict says, once (None when it is not an outage)."""
    if verdicts is None:
        return None
    rows = verdicts[verdicts["label"] == triage.OUTAGE]
    return None if rows.empty else words.outage_line(rows.iloc[0])


def execution_frame(header: ExecutionHeader, *, finished: bool) -> pd.DataFrame:
    """The execution as one row of an executions frame: what the triage reads of it (its start,
    plan, whether it finished, its verdicts and failures from the service's summary)."""
    counts = dict(header.summary)
    return pd.DataFrame(
        {
            "execution_id": pd.array([header.execution_id], dtype="int64"),
            "start": pd.to_datetime(pd.Series([header.start]), utc=True),
            "plan_id": pd.array([header.plan_id], dtype="Int64"),
            "plan": [header.plan],
            "finished": [finished],
            "verdicts": pd.array(
                [sum(n for status, n in counts.items() if status.upper() in VERDICT_STATUSES)],
                dtype="int64",
            ),
            "failed": pd.array([header.failed], dtype="int64"),
        }
    )


def wants_window(header: ExecutionHeader, marks: pd.DataFrame, *, finished: bool) -> bool:
    """Whether its failures' verdicts need its plan's window (the scenarios' states): a
    finished execution of a plan that failed something, and is not an outage (whose failures
    are all outage, whatever the states)."""
    if header.plan_id is None or not finished or header.failed <= 0:
        return False
    return outages(execution_frame(header, finished=finished), marks).empty


class Window(Protocol):
    """A plan's window as read for the analytics (`ui.analytics_input.AnalyticsInput`): the
    lookback's executions and the results of its last W finished ones."""

    @property
    def executions(self) -> pd.DataFrame: ...

    @property
    def results(self) -> pd.DataFrame: ...


def verdict_input(
    header: ExecutionHeader, results: pd.DataFrame, *, finished: bool, window: Window | None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(results, executions) the triage judges the execution's failures from: its own results
    and, when read, its plan's window (`wants_window`); the execution is among the executions
    whatever the window's lookback."""
    own = execution_frame(header, finished=finished)
    if window is None:
        return results, own
    every = pd.concat([window.results, results], ignore_index=True)
    every = every.drop_duplicates("result_id", keep="last")
    listed = window.executions["execution_id"].isin([header.execution_id]).any()
    executions = window.executions if listed else pd.concat([window.executions, own])
    return every, executions.reset_index(drop=True)
