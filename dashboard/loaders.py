"""Load what a page needs from the client, as frames plus the problems met on the way.

These functions take a client and plain arguments and return picklable dataclasses (frames and
strings), which is what `dashboard.cache` keeps. No Streamlit import: they are tested against
the sandbox directly. Model objects never leave this module: frames are built column by column
(see `transforms`), so nothing sensitive a record carries reaches the cache or the page.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import pandas as pd

from api_client import (
    ApiClient,
    ApiError,
    ExecutionNotFoundError,
    InvalidRequestError,
    ScenarioNotFoundError,
    SkippedRecord,
    TestResult,
)
from dashboard import transforms, url_state
from dashboard.messages import describe_error

ProgressCallback = Callable[[int, int], None]

# Scenarios' results are fetched this many at a time: enough to hide latency, few enough not
# to look like a burst to the service.
RESULT_FETCH_CONCURRENCY = 6


@dataclass(frozen=True)
class ExecutionFilters:
    """The arguments of one executions query.

    The executions page asks with `for_view(...)`, and the results page asks again with the very
    same filters to find its execution: the same cache key, so a drill-down costs no request.
    """

    project_id: int | None = None
    plan_id: int | None = None
    date_from: datetime | None = None
    date_to: datetime | None = None
    status: str | None = None
    email: str | None = None

    @classmethod
    def for_view(
        cls, state: url_state.ViewState, *, now: datetime, email: str | None
    ) -> ExecutionFilters:
        """What the executions page lists for `state`; "only mine" needs the viewer's e-mail."""
        window = url_state.time_window(state, now)
        return cls(
            project_id=state.project,
            plan_id=state.plan,
            date_from=window.start,
            date_to=window.end,
            status=state.status,
            email=email if state.mine and email else None,
        )

    def in_words(self) -> list[str]:
        """The filters as a viewer would name them ("status ERROR", "plan 3"), never the e-mail."""
        words = [f"status {self.status}"] if self.status else []
        words += [f"project {self.project_id}"] if self.project_id is not None else []
        words += [f"plan {self.plan_id}"] if self.plan_id is not None else []
        if self.date_from is not None:
            words.append(f"started from {transforms.utc_text(self.date_from)}")
        if self.date_to is not None:
            words.append(f"started until {transforms.utc_text(self.date_to)}")
        words += ["only mine"] if self.email else []
        return words


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


@dataclass(frozen=True)
class ScenarioFailure:
    """A scenario whose results could not be loaded, and the message to show beside the rest."""

    scenario_id: int
    message: str


@dataclass(frozen=True)
class ResultsData:
    results: pd.DataFrame
    scenarios: int  # how many scenarios were asked for
    failures: tuple[ScenarioFailure, ...] = ()
    skipped: tuple[Skipped, ...] = field(default=())


def load_plans(client: ApiClient, *, active_only: bool) -> PlansData:
    plans = client.plans(active=active_only)
    return PlansData(transforms.plans_frame(plans), _skipped(plans.skipped))


def load_executions(
    client: ApiClient,
    filters: ExecutionFilters = ExecutionFilters(),  # frozen: safe to share as a default
    *,
    on_progress: ProgressCallback | None = None,
) -> ExecutionsData:
    """Every execution matching the filters, from all pages."""
    executions = client.all_executions(
        project_id=filters.project_id,
        plan_id=filters.plan_id,
        date_from=filters.date_from,
        date_to=filters.date_to,
        status=filters.status,
        email=filters.email,
        on_progress=on_progress,
    )
    return ExecutionsData(
        transforms.executions_frame(executions),
        transforms.status_counts_frame(executions),
        _skipped(executions.skipped),
    )


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
            text = describe_error(outcome, part=f"scenario {scenario_id}").text
            failures.append(ScenarioFailure(scenario_id, text))
            continue
        results.extend(outcome)
        skipped.extend(getattr(outcome, "skipped", []))
    return ResultsData(
        results=transforms.results_frame(results),
        scenarios=len(unique_ids),
        failures=tuple(failures),
        skipped=_skipped(skipped),
    )


# Either side of an execution's start time from a link: timestamps are to the second.
START_MARGIN = timedelta(minutes=1)
# How long before its earliest result an execution may have started: its setup, and scenarios
# run before that left no result. Only used when a result's start is all there is to go by.
RESULT_LEAD = timedelta(days=1)


@dataclass(frozen=True)
class FoundExecution:
    """The header of the execution a results link names, or why it cannot be shown."""

    header: transforms.ExecutionHeader | None
    problem: str | None = None  # plain text, when `header` is None


def find_execution(
    execution_id: int,
    *,
    listed: ExecutionFilters,
    started: datetime | None,
    load: Callable[[ExecutionFilters], ExecutionsData],
    results: Callable[[], ResultsData] | None = None,
) -> FoundExecution:
    """Find one execution without walking its plan's or company's history.

    The API cannot fetch an execution by id, so it is looked for, in this order, and only then
    reported missing:

    1. among the executions the executions page lists with `listed` (a link from that page hits
       the cache that page filled: no request at all), unless `listed` has no start bound and
       the link has a start time (a custom range "up to a day" spans the whole history);
    2. around `started`, the start time the link carries (a query of two minutes);
    3. when the link has no start time but `results` can load the execution's results (the
       page needs them anyway), in the day before its earliest result, on its plan. A service
       that does not know the execution at all says so here.

    `load` runs an executions query (normally through the cache); errors other than a rejected
    filter in step 1 are raised for the page to word.
    """
    header = None
    if listed.date_from is not None or started is None:
        # A filter the service rejects (an unsupported status) does not stop the search: the
        # narrower queries below carry none.
        with contextlib.suppress(InvalidRequestError):
            header = _header_in(load(listed), execution_id)
    if header is not None:
        return FoundExecution(header)

    narrow: ExecutionFilters | None = None
    if started is not None:
        narrow = ExecutionFilters(date_from=started - START_MARGIN, date_to=started + START_MARGIN)
    elif results is not None:
        try:
            first = transforms.time_extent(results().results["start"])
        except ExecutionNotFoundError:
            return FoundExecution(
                None,
                f"The service has no execution {execution_id}: it may have been deleted, or the "
                f"link's execution id is wrong. Pick an execution in the executions table.",
            )
        if first is not None:
            narrow = ExecutionFilters(
                plan_id=listed.plan_id,
                date_from=first[0] - RESULT_LEAD,
                date_to=first[0] + START_MARGIN,
            )
    if narrow is not None:
        header = _header_in(load(narrow), execution_id)
        if header is not None:
            return FoundExecution(header)

    among = ", ".join(listed.in_words()) or "no filter"
    near = f", nor around {transforms.utc_text(started)}" if started is not None else ""
    return FoundExecution(
        None,
        f"Execution {execution_id} was not found among the executions of this link's filters "
        f"({among}){near}. It may have been deleted, or the link is wrong: pick an execution "
        f"in the executions table.",
    )


def _header_in(data: ExecutionsData, execution_id: int) -> transforms.ExecutionHeader | None:
    return transforms.execution_header(data.executions, data.status_counts, execution_id)


def _skipped(records: Sequence[SkippedRecord]) -> tuple[Skipped, ...]:
    return tuple(Skipped(record.record_id, record.reason) for record in records)
