"""One execution's results read from the history store, in the shape the results page shows.

The store keeps every column the results page needs (`schemas.RESULT_HISTORY_COLUMNS`), and it
keeps only finished executions, whose results never change. So when every (execution, scenario)
pair of an execution is stored, the page needs no results request at all: a team whose worker
keeps the store current opens any finished execution without waiting on the service.
"""

from __future__ import annotations

from collections.abc import Sequence

from dashboard.analytics.cells import sorted_frame
from dashboard.data.live import ResultsData
from dashboard.data.schemas import RESULT_COLUMNS
from dashboard.data.store import HistoryStore


def execution_results(
    store: HistoryStore, *, execution_id: int, scenario_ids: Sequence[int]
) -> ResultsData | None:
    """The execution's results as `live.load_execution_results` gives them, or None when some
    pair is not stored (the caller then asks the service). Raises `StoreError`."""
    pairs = [(int(execution_id), int(s)) for s in dict.fromkeys(scenario_ids)]
    if not pairs or len(store.stored_pairs(pairs)) < len(pairs):
        return None
    stored = store.results_of_pairs(pairs)
    frame = stored.loc[:, list(RESULT_COLUMNS)].astype(dict(RESULT_COLUMNS))
    return ResultsData(
        results=sorted_frame(
            frame, ["scenario_id", "os", "browser", "browser_version", "result_id"]
        ),
        scenarios=len(pairs),
    )
