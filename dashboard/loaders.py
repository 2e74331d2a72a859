"""Load what a page needs from the client, as frames plus the problems met on the way.

These functions take a client and plain arguments and return picklable dataclasses (frames and
strings), which is what `dashboard.cache` keeps. No Streamlit import: they are tested against
the sandbox directly. Model objects never leave this module: frames are built column by column
(see `transforms`), so nothing sensitive a record carries reaches the cache or the page.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime

import pandas as pd

from api_client import (
    ApiClient,
    ApiError,
    ScenarioNotFoundError,
    SkippedRecord,
    TestResult,
)
from dashboard import transforms
from dashboard.messages import describe_error

ProgressCallback = Callable[[int, int], None]

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
    *,
    project_id: int | None = None,
    plan_id: int | None = None,
    date_from: datetime | None = None,
    date_to: datetime | None = None,
    status: str | None = None,
    email: str | None = None,
    on_progress: ProgressCallback | None = None,
) -> ExecutionsData:
    """Every execution matching the filters, from all pages."""
    executions = client.all_executions(
        project_id=project_id,
        plan_id=plan_id,
        date_from=date_from,
        date_to=date_to,
        status=status,
        email=email,
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


def _skipped(records: Sequence[SkippedRecord]) -> tuple[Skipped, ...]:
    return tuple(Skipped(record.record_id, record.reason) for record in records)
