"""What a results fan-out answers (`results_fanout.fetch_results`): the results, the counts a
caption needs, and the pairs that failed or were skipped, each with why. Kept apart from the
fan-out itself because pages, captions and the sync read these without fetching anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from api_client import ApiError, SkippedRecord
from dashboard.analytics.evidence import Shortfall, combined
from dashboard.data.store.errors import StoreError


@dataclass(frozen=True)
class PairFailure:
    """A pair whose results could not be fetched, and the typed error that says why."""

    execution_id: int
    scenario_id: int
    error: ApiError

    def __reduce__(self) -> tuple[Any, ...]:
        # Status errors take keyword-only arguments, which pickle cannot pass back; rebuild the
        # error from its class and attributes so a failure survives `st.cache_data`.
        error = self.error
        return (
            _rebuild_failure,
            (self.execution_id, self.scenario_id, type(error), error.args, dict(vars(error))),
        )


def _rebuild_failure(
    execution_id: int,
    scenario_id: int,
    error_type: type[ApiError],
    args: tuple[Any, ...],
    attributes: dict[str, Any],
) -> PairFailure:
    error = error_type.__new__(error_type)
    error.args = args
    error.__dict__.update(attributes)
    return PairFailure(execution_id, scenario_id, error)


@dataclass(frozen=True)
class PairSkipped:
    """A pair whose answer held records that did not fit the model: its good results are
    returned, but the pair is not stored (it is fetched whole again next time)."""

    execution_id: int
    scenario_id: int
    records: tuple[SkippedRecord, ...]


@dataclass(frozen=True)
class FanOutCounts:
    """What a caption needs ("results of 212 of 230 executions; 18 still running")."""

    pairs: int  # distinct pairs asked for
    from_store: int  # pairs answered by the store, no request
    fetched: int  # pairs fetched from the service
    stored: int  # fetched pairs written to the store now
    failed: int  # pairs whose request failed
    executions: int  # distinct executions asked for
    executions_complete: int  # finished, and every pair's results available
    executions_running: int  # not finished: results fetched fresh, never stored
    executions_incomplete: int  # finished, but some pair failed or was cut


@dataclass(frozen=True)
class FanOut:
    """The results of the pairs asked for, and what could not be had."""

    results: pd.DataFrame  # RESULT_HISTORY_COLUMNS; empty when `return_results=False`
    counts: FanOutCounts
    failures: tuple[PairFailure, ...] = ()
    skipped: tuple[PairSkipped, ...] = ()
    store_error: StoreError | None = None  # the store could not be used: nothing was kept
    short: dict[int, Shortfall] = field(default_factory=dict)
    """Finished executions whose results lack what the service's own record of them says
    (`analytics.evidence`), by id: returned, but not kept as final."""

    def shortfall(self) -> Shortfall | None:
        """What the results lack, all short executions together; None when none is."""
        return combined(self.short.values()) if self.short else None
