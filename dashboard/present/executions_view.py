"""Everything the executions page draws from one slice of executions, built in one go.

`executions_slice` narrows what was loaded to the chosen statuses and says what was wrong with
it; `executions_view` makes the KPIs, charts and table of that slice; `executions_words` words
the captions around them, from the slice's description in words (`choices.executions_slice`),
its outages and what the marks make known.

The page asks `cache.built` for this once per input (its query, the statuses it narrows to and
when the data was loaded), so a rerun that changed nothing (a click elsewhere, the same view
opened again) redraws from what is already made instead of recomputing KPIs, figures, the
display table and its CSV from 70,000 rows. What only a closed tab shows (the per-day status
chart) is made the first time that tab is opened, then kept with the rest.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Generic, TypeVar

import pandas as pd

from dashboard.analytics import contradictions
from dashboard.analytics import executions as execution_analytics
from dashboard.analytics import marks as mark_analytics
from dashboard.data.live import ExecutionsData
from dashboard.present import charts, help_texts, runtime_chart, tables
from dashboard.present import executions as words
from dashboard.present import known as known_words
from dashboard.present.chart_data import Chart
from dashboard.present.formatting import count_of, human_duration, percent
from dashboard.present.kpis import Kpi
from dashboard.present.notes import describe_contradictions, describe_skipped, describe_truncation

T = TypeVar("T")


class Deferred(Generic[T]):
    """A part of a view made when first asked for, then kept. The view is shared between
    reruns and viewers (`cache.built`), so two asking at once make it once."""

    def __init__(self, make: Callable[[], T]) -> None:
        self._make: Callable[[], T] | None = make
        self._value: T | None = None
        self._lock = threading.Lock()

    @property
    def made(self) -> bool:
        return self._make is None

    def __call__(self) -> T:
        with self._lock:
            if self._make is not None:
                self._value, self._make = self._make(), None
            return self._value  # type: ignore[return-value]


@dataclass(frozen=True)
class ExecutionsView:
    kpis: execution_analytics.ExecutionKpis
    # Above `charts.EXECUTION_BAR_LIMIT` executions the status chart draws one bar per plan
    # (the whole period) instead of one per execution.
    status_by_plan: bool
    plans_drawn: int  # bars of the per-plan chart (0 when it draws executions)
    status_chart: Chart
    status_per_day: Deferred[Chart]
    runtime: Chart
    runtime_aggregated: bool  # the runtime chart draws daily medians per plan
    pass_rate: Chart
    table: tables.PreparedTable

    @property
    def kpi_row(self) -> tuple[Kpi, ...]:
        """The KPIs as the page shows them."""
        kpis = self.kpis
        return (
            Kpi(
                "Executions",
                f"{kpis.executions:,}",
                delta=f"{kpis.running:,} running" if kpis.running else None,
            ),
            Kpi("Pass rate", percent(kpis.pass_rate), help=help_texts.RATE_OF_EXECUTIONS),
            Kpi("Median duration", human_duration(kpis.median_runtime_s)),
            Kpi(
                "Failing plans",
                count_of(kpis.failing_plans, kpis.plans),
                help=help_texts.FAILING_PLANS,
            ),
        )

    @property
    def status_tab(self) -> str:
        """The status chart's first tab (the second is per day)."""
        return "Per plan" if self.status_by_plan else "Per execution"


@dataclass(frozen=True, eq=False)
class ExecutionsSlice:
    """What was loaded, narrowed to the chosen statuses: `executions` (impossible runtimes
    made unknown) and their `status_counts`; `data_notes`, what the service's answer lacked
    (skipped records, pages not walked); `contradictions`, what it holds that cannot be."""

    executions: pd.DataFrame
    status_counts: pd.DataFrame
    data_notes: tuple[str, ...]
    contradictions: tuple[str, ...]


def executions_slice(
    data: ExecutionsData, statuses: Sequence[str], *, now: datetime
) -> ExecutionsSlice:
    """The executions of `data` whose status is one of `statuses` (any when none)."""
    executions, status_counts = execution_analytics.with_statuses(
        data.executions, data.status_counts, statuses
    )
    data_notes = (
        describe_skipped((s.reason for s in data.skipped), "execution"),
        describe_truncation(data.truncation),
    )
    return ExecutionsSlice(
        # A negative runtime is unknown; the note says which executions had one.
        contradictions.without_impossible_runtimes(executions, "runtime_ms"),
        status_counts,
        tuple(note for note in data_notes if note),
        tuple(
            describe_contradictions(
                contradictions.execution_contradictions(executions, now=now), "execution"
            )
        ),
    )


@dataclass(frozen=True)
class ExecutionsWords:
    """The captions around a view: `figures` under the KPIs (the slice and its zone, the
    outages left out; `known_caption` follows them); then the status chart's (`per_plan` in
    its first tab when it draws plans), the runtime's, the pass rate's and the table's."""

    figures: tuple[str, ...]
    status: str
    per_plan: str | None
    runtime: str
    pass_rate: str
    table: str


def executions_words(
    view: ExecutionsView,
    slice_text: str,
    *,
    tz: str,
    outages: pd.DataFrame,
    included: bool,
    left_out: int,
) -> ExecutionsWords:
    """The captions of `view`, whose slice `slice_text` describes. `outages` were found among
    its executions, `left_out` of them left out of the figures (none when `included`)."""
    return ExecutionsWords(
        figures=tuple(
            text
            for text in (
                words.figures_caption(slice_text, tz),
                words.outages_caption(outages, included=included),
            )
            if text
        ),
        status=words.status_caption(slice_text, left_out),
        per_plan=(
            words.per_plan_caption(len(view.table) - left_out, view.plans_drawn)
            if view.status_by_plan
            else None
        ),
        runtime=words.runtime_caption(
            slice_text, aggregated=view.runtime_aggregated, left_out=left_out
        ),
        pass_rate=words.pass_rate_caption(slice_text, left_out),
        table=words.table_caption(slice_text, len(view.table)),
    )


def view_key(
    query: Hashable,
    statuses: Sequence[str],
    loaded_at: float,
    tz: str,
    outages: Mapping[int, str],
    left_out: Collection[int],
) -> tuple[Hashable, ...]:
    """What names one view among those made (`cache.built`): the query and the statuses it was
    narrowed to, when its data was loaded, the zone, and the outages flagged and left out."""
    return (
        query,
        tuple(statuses),
        loaded_at,
        tz,
        tuple(sorted(outages.items())),
        tuple(sorted(left_out)),
    )


def executions_view(
    executions: pd.DataFrame,
    status_counts: pd.DataFrame,
    *,
    tz: str = "UTC",
    outages: Mapping[int, str] | None = None,
    left_out: Collection[int] = frozenset(),
) -> ExecutionsView:
    """The page's KPIs, charts and table. `outages` (execution id -> "likely outage" or
    "outage") are flagged in the table's Status, which lists every execution; `left_out` (the
    outages the viewer has not included) are counted among the executions and left out of the
    other KPIs and of every chart."""
    table_rows, table_counts = executions, status_counts
    executions, status_counts = execution_analytics.without_executions(
        executions, status_counts, left_out
    )
    by_plan = len(executions) > charts.EXECUTION_BAR_LIMIT
    status_chart = (
        charts.status_per_plan_chart(status_counts, executions)
        if by_plan
        else charts.status_per_execution_chart(status_counts, executions, tz=tz)
    )
    return ExecutionsView(
        kpis=execution_analytics.execution_kpis(table_rows, left_out=left_out),
        status_by_plan=by_plan,
        plans_drawn=len(status_chart.figure.layout.yaxis.categoryarray or ()) if by_plan else 0,
        status_chart=status_chart,
        # Charts count and show days and times in the viewer's zone, as the tables do.
        status_per_day=Deferred(
            lambda: charts.status_per_day_chart(
                execution_analytics.status_counts_per_day(status_counts, tz=tz)
            )
        ),
        runtime=runtime_chart.runtime_trend_chart(executions, tz=tz),
        runtime_aggregated=runtime_chart.runtime_is_aggregated(executions),
        pass_rate=charts.pass_rate_chart(execution_analytics.pass_rate_per_day(executions, tz=tz)),
        # The newest rows only are built for the page (executions come newest first); the
        # whole table only if its CSV is asked for.
        table=tables.PreparedTable(
            lambda rows: tables.executions_display(
                table_rows if rows is None else table_rows.head(rows),
                table_counts,
                outages=outages,
            ),
            rows=len(table_rows),
            shown_rows=tables.TABLE_ROW_LIMIT,
            tz=tz,
        ),
    )


def known_caption(counted: pd.DataFrame, known: pd.Series) -> str:
    """The failures of the executions the figures count (`counted`) told apart: `known`
    counts each one's known failed results (`marks.known_per_execution`)."""
    return known_words.split_caption(mark_analytics.split_of(counted, known))
