"""Load what a page needs from the service, as frames plus what was met on the way.

These functions take a client and plain arguments and return picklable dataclasses (frames,
counts and typed errors, never sentences: `dashboard.present.messages` words them), which is
what `dashboard.data.cache` keeps. No Streamlit import: they are tested against the sandbox
directly. Model objects never leave this module: frames are built column by column (see
`dashboard.data.frames`), so nothing sensitive a record carries reaches the cache or the page,
and executions are framed page by page, so their models are never all held at once.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import pandas as pd

import api_client
from api_client import (
    ApiClient,
    ApiError,
    ExecutionNotFoundError,
    ExecutionQuery,
    InvalidRequestError,
    Operation,
    ProgressCallback,
    ScenarioNotFoundError,
    SkippedRecord,
    TestResult,
    Truncation,
)
from dashboard.analytics.executions import ExecutionHeader, execution_header
from dashboard.columns.cells import time_extent
from dashboard.columns.schemas import EXECUTION_COLUMNS, STATUS_COUNT_COLUMNS
from dashboard.columns.shapes import sorted_frame
from dashboard.data import frames
from dashboard.data.fanout_answer import FanOut, FanOutCounts

EVERY_EXECUTION = ExecutionQuery()
"""The query without filters (frozen: safe to share as a default)."""

# Scenarios' results are fetched this many at a time: enough to hide latency, few enough not
# to look like a burst to the service.
RESULT_FETCH_CONCURRENCY = 6


@dataclass(frozen=True)
class Skipped:
    """Records left out because they did not fit the expected shape (reason is safe to show)."""

    record_id: str | None
    reason: str


@dataclass(frozen=True)
class PlansData:
    plans: pd.DataFrame
    skipped: tuple[Skipped, ...] = ()


@dataclass(frozen=True)
class ExecutionsData:
    executions: pd.DataFrame
    status_counts: pd.DataFrame
    skipped: tuple[Skipped, ...] = ()
    truncation: Truncation | None = None  # the walk stopped before the pages the service claimed
    loaded_at: float = 0.0  # when it was fetched (the cache sets it): what views of it key on


@dataclass(frozen=True)
class ErrorRecord:
    """An `ApiError` as plain values: cached data holds no client object, and the page still
    words it from its type (`error` rebuilds it)."""

    kind: str  # the name of its class in `api_client`
    attributes: tuple[tuple[str, Any], ...]  # its typed attributes (operation by value)

    @classmethod
    def of(cls, error: ApiError) -> ErrorRecord:
        values = {
            name: value.value if isinstance(value, Operation) else value
            for name, value in vars(error).items()
        }
        return cls(type(error).__name__, tuple(sorted(values.items())))

    @property
    def error(self) -> ApiError:
        error_class = getattr(api_client, self.kind, ApiError)
        error = error_class.__new__(error_class)
        values = dict(self.attributes)
        Exception.__init__(error, values.get("message", ""))
        if values.get("operation") is not None:
            values["operation"] = Operation(values["operation"])
        vars(error).update(values)
        return error


@dataclass(frozen=True)
class ScenarioFailure:
    """A scenario whose results could not be loaded (the page words its error beside the rest)."""

    scenario_id: int
    record: ErrorRecord

    @property
    def error(self) -> ApiError:
        return self.record.error


@dataclass(frozen=True)
class ResultsData:
    results: pd.DataFrame
    scenarios: int  # how many scenarios were asked for
    failures: tuple[ScenarioFailure, ...] = ()
    skipped: tuple[Skipped, ...] = field(default=())
    counts: FanOutCounts | None = None  # where they came from, when loaded by the fan-out


def load_plans(client: ApiClient, *, active_only: bool) -> PlansData:
    plans = client.plans(active=active_only)
    return PlansData(frames.plans_frame(plans), _skipped(plans.skipped))


def load_executions(
    client: ApiClient,
    query: ExecutionQuery = EVERY_EXECUTION,
    *,
    on_progress: ProgressCallback | None = None,
) -> ExecutionsData:
    """Every execution matching the query, from all pages.

    The frames are built page by page as the walk folds its pages in
    (`frames.ExecutionFrames`), from the records the walk reads (no model per execution), and
    a page's records are dropped once framed: a 90-day window of 70,000 executions is never
    held whole but as columns.
    """
    folded = client.fold_execution_records(
        frames.ExecutionFrames,
        frames.ExecutionFrames.add_records,
        query=query,
        on_progress=on_progress,
    )
    executions, status_counts = folded.value.frames()
    return ExecutionsData(
        executions,
        status_counts,
        _skipped(folded.skipped),
        truncation=folded.truncation,
    )


LATE_MARGIN = timedelta(minutes=10)
"""How far before the newest start of a held window `load_newer` asks again: an execution
reported a little after it started is still found."""


def load_newer(
    client: ApiClient,
    held: ExecutionsData,
    query: ExecutionQuery,
    *,
    on_progress: ProgressCallback | None = None,
) -> ExecutionsData:
    """The executions of `query`, an open-ended window (no `date_to`), made from `held`: the
    same filters' executions loaded for the same or an earlier start. Only what may have
    changed since is fetched (`refetch_from`); a finished execution never changes, so those
    older than that are kept as held. The result is what `load_executions(client, query)`
    gives. When `held` cannot be trusted for `query`, the window is loaded whole.
    """
    since = refetch_from(held, query)
    if since is None:
        return load_executions(client, query, on_progress=on_progress)
    fresh = load_executions(client, query.with_changes(date_from=since), on_progress=on_progress)
    if fresh.truncation is not None:
        return load_executions(client, query, on_progress=on_progress)
    executions, counts = held.executions, held.status_counts
    # A service may answer `date_from` by another date than the start (or not at all): what it
    # sent again is taken as sent, never held twice.
    older = executions[
        (executions["start"] >= query.date_from)
        & (executions["start"] < since)
        & ~executions["execution_id"].isin(fresh.executions["execution_id"])
    ]
    older_counts = counts[counts["execution_id"].isin(older["execution_id"])]
    return ExecutionsData(
        frames.sorted_executions(frames.joined([fresh.executions, older], EXECUTION_COLUMNS)),
        frames.sorted_status_counts(
            frames.joined([fresh.status_counts, older_counts], STATUS_COUNT_COLUMNS)
        ),
        fresh.skipped,
    )


def refetch_from(held: ExecutionsData, query: ExecutionQuery) -> datetime | None:
    """Where executions must be fetched again from for `held` to answer `query` (an
    open-ended window starting no earlier than `held`'s): the newest held start within the
    window less `LATE_MARGIN`, or the start of the oldest held one still running, whichever is
    earlier. None when `held` cannot be trusted for it: its walk was truncated or skipped
    records, an execution has no start, or it holds nothing of the window."""
    start = query.date_from
    executions = held.executions
    if (
        start is None
        or query.date_to is not None
        or held.truncation is not None
        or held.skipped
        or executions["start"].isna().any()
    ):
        return None
    kept = executions[executions["start"] >= start]
    if kept.empty:
        return None
    since = kept["start"].max().to_pydatetime() - LATE_MARGIN
    running = kept.loc[~kept["finished"].astype("bool"), "start"]
    if len(running):
        since = min(since, running.min().to_pydatetime())
    return max(since, start)


def narrowed(
    data: ExecutionsData, *, plan_id: int | None = None, project_id: int | None = None
) -> ExecutionsData:
    """`data` narrowed to one plan and/or project, as the service's `planId`/`projectId`
    filters would: a filter applied to executions already loaded asks the service nothing."""
    executions = data.executions
    keep = pd.Series(True, index=executions.index)
    if plan_id is not None:
        keep &= executions["plan_id"] == plan_id
    if project_id is not None:
        keep &= executions["project_id"] == project_id
    kept = executions[keep.fillna(False).astype("bool")].reset_index(drop=True)
    counts = data.status_counts
    counts = counts[counts["execution_id"].isin(kept["execution_id"])].reset_index(drop=True)
    return dataclasses.replace(data, executions=kept, status_counts=counts)


def load_execution_results(
    client: ApiClient,
    *,
    execution_id: int,
    scenario_ids: Sequence[int],
    max_workers: int = RESULT_FETCH_CONCURRENCY,
) -> ResultsData:
    """The results of every scenario of one execution, fetched several at a time.

    A scenario that fails becomes a `ScenarioFailure` and the others still load. When every
    scenario fails, and not only as "unknown scenario", the first error that says more (no
    authority, a bad token, no such execution, the service down) is raised instead: one clear
    message beats N warnings.
    """
    unique_ids = list(dict.fromkeys(scenario_ids))
    outcomes: dict[int, Sequence[TestResult] | ApiError] = {}

    def fetch(scenario_id: int) -> Sequence[TestResult] | ApiError:
        try:
            return client.test_results(execution_id, scenario_id)
        except ApiError as error:
            return error

    if unique_ids:
        with ThreadPoolExecutor(max_workers=max(1, min(max_workers, len(unique_ids)))) as pool:
            outcomes = dict(zip(unique_ids, pool.map(fetch, unique_ids), strict=True))

    errors = [o for o in outcomes.values() if isinstance(o, ApiError)]  # in scenario order
    if errors and len(errors) == len(unique_ids):
        telling = next((e for e in errors if not isinstance(e, ScenarioNotFoundError)), None)
        if telling is not None:
            raise telling

    results: list[TestResult] = []
    skipped: list[SkippedRecord] = []
    failures: list[ScenarioFailure] = []
    for scenario_id in unique_ids:
        outcome = outcomes[scenario_id]
        if isinstance(outcome, ApiError):
            failures.append(ScenarioFailure(scenario_id, ErrorRecord.of(outcome)))
            continue
        results.extend(outcome)
        skipped.extend(getattr(outcome, "skipped", []))
    return ResultsData(
        results=frames.results_frame(results),
        scenarios=len(unique_ids),
        failures=tuple(failures),
        skipped=_skipped(skipped),
    )


def results_of_fan_out(fan_out: FanOut, *, scenarios: int) -> ResultsData:
    """One execution's results as the fan-out loaded them (from the history store, or fetched),
    in the same shape and order as `load_execution_results`, with the same rule: when every
    scenario failed, and not only as "unknown scenario", the first telling error is raised."""
    errors = [failure.error for failure in fan_out.failures]
    if errors and len(errors) == scenarios:
        telling = next((e for e in errors if not isinstance(e, ScenarioNotFoundError)), None)
        if telling is not None:
            raise telling
    return ResultsData(
        results=sorted_frame(fan_out.results, frames.RESULT_ORDER),
        scenarios=scenarios,
        failures=tuple(
            ScenarioFailure(failure.scenario_id, ErrorRecord.of(failure.error))
            for failure in fan_out.failures
        ),
        skipped=_skipped([record for pair in fan_out.skipped for record in pair.records]),
        counts=fan_out.counts,
    )


# Either side of an execution's start time from a link: timestamps are to the second.
START_MARGIN = timedelta(minutes=1)
# How long before its earliest result an execution may have started: its setup, and scenarios
# run before that left no result. Only used when a result's start is all there is to go by.
RESULT_LEAD = timedelta(days=1)


@dataclass(frozen=True)
class FoundExecution:
    """The header of the execution a results link names, or where it was looked for in vain.

    When `header` is None, `unknown_to_service` says the service itself denied the execution;
    otherwise it was not among the executions the search was given, nor around `started`.
    """

    execution_id: int
    header: ExecutionHeader | None
    started: datetime | None = None
    unknown_to_service: bool = False


def find_execution(
    execution_id: int,
    *,
    listed: ExecutionQuery,
    started: datetime | None,
    load: Callable[[ExecutionQuery], ExecutionsData],
    results: Callable[[], ResultsData] | None = None,
    stored: Callable[[], ExecutionsData | None] | None = None,
) -> FoundExecution:
    """Find one execution without walking its plan's or company's history.

    The API cannot fetch an execution by id, so it is looked for, in this order, and only then
    reported missing:

    1. among the executions the executions page lists with `listed` (a link from that page hits
       the cache that page filled: no request at all), unless `listed` has no start bound and
       the link has a start time (a custom range "up to a day" spans the whole history);
    2. in the history store (`stored`: the stored executions around the one asked for, or
       None), whatever the window: no request (only once step 1 showed that the service lists
       executions for this token);
    3. around `started`, the start time the link carries (a query of two minutes);
    4. when the link has no start time but `results` can load some of the execution's results
       (stored ones, or by id: the results operation takes an execution id), in the day
       before its earliest result, on the plan those results name. A service that does not
       know the execution at all says so here, and only then is it called unknown.

    `load` runs an executions query (normally through the cache); errors other than a rejected
    filter in step 1 are raised for the page to word.
    """
    header = None
    may_list = False  # the service listed executions for this token: it may see their headers
    if listed.date_from is not None or started is None:
        # A filter the service rejects (an unsupported status) does not stop the search: the
        # narrower queries below carry none.
        with contextlib.suppress(InvalidRequestError):
            header = _header_in(load(listed), execution_id)
            may_list = True
    if header is None and stored is not None and may_list:
        kept = stored()
        header = _header_in(kept, execution_id) if kept is not None else None
    if header is not None:
        return FoundExecution(execution_id, header)

    narrow: ExecutionQuery | None = None
    if started is not None:
        narrow = ExecutionQuery(date_from=started - START_MARGIN, date_to=started + START_MARGIN)
    elif results is not None:
        try:
            found = results().results
        except ExecutionNotFoundError:
            return FoundExecution(execution_id, None, started, unknown_to_service=True)
        first = time_extent(found["start"])
        if first is not None:
            # The live loader's frame has no plan column; the fan-out's names the plan.
            plans = list(found["plan_id"].dropna()) if "plan_id" in found else []
            narrow = ExecutionQuery(
                plan_id=int(plans[0]) if plans else listed.plan_id,
                date_from=first[0] - RESULT_LEAD,
                date_to=first[0] + START_MARGIN,
            )
    if narrow is not None:
        header = _header_in(load(narrow), execution_id)
        if header is not None:
            return FoundExecution(execution_id, header)
    return FoundExecution(execution_id, None, started)


def _header_in(data: ExecutionsData, execution_id: int) -> ExecutionHeader | None:
    return execution_header(data.executions, data.status_counts, execution_id)


def _skipped(records: Sequence[SkippedRecord]) -> tuple[Skipped, ...]:
    return tuple(Skipped(record.record_id, record.reason) for record in records)
