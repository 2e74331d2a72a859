"""The plain values of the history store: its identity, what `info` reports, its defaults.

Kept apart from `store.history` (the store itself) so the engines, the helpers and the callers
can name them without importing the store.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from dashboard.data.defaults import DEFAULT_WAIT as DEFAULT_WAIT

# DEFAULT_WAIT: seconds to wait for another process to let go of the store before
# `StoreBusyError`. A sync holds it only for one step at a time (a second or two at most), so it
# is generous. Defined in `data.defaults`, which the command line's help reads.

DEFAULT_IDLE = 1.0
"""Seconds the database stays open after an operation. A page's several queries then share one
open (a fresh DuckDB connection costs tens of milliseconds), and another process waits at most
about this long plus one operation."""

EMPTY_PLANS_AT = "empty_plans_at"
"""`HistoryStore.meta()`: when the service last answered no plans while the store held some
(they were kept); unset once an answer with plans replaces them."""
CHANGED_EXECUTIONS = "changed_executions"
"""`HistoryStore.meta()`: how many finished executions came back from the service changed (each
kept as first stored)."""
CHANGED_EXECUTION_IDS = "changed_execution_ids"
"""`HistoryStore.meta()`: the ids of the latest `LISTED_CHANGED_IDS` of them, newest first,
comma-separated."""
LISTED_CHANGED_IDS = 5

RESULT_IDS_COLUMNS: dict[str, str] = {"execution_id": "int64", "result_id": "int64"}
EXECUTION_ID_COLUMNS: dict[str, str] = {"execution_id": "int64"}
INFO_COLUMNS: dict[str, str] = {
    "plans": "int64",
    "executions": "int64",
    "results": "int64",
    "fetched_pairs": "int64",
    "oldest_execution": "datetime64[us, UTC]",
    "newest_execution": "datetime64[us, UTC]",
    "oldest_result": "datetime64[us, UTC]",
    "newest_result": "datetime64[us, UTC]",
    "changed_executions": "int64",
}
FETCHED_PAIR_COLUMNS: dict[str, str] = {
    "execution_id": "int64",
    "scenario_id": "int64",
    "result_count": "int64",
    "fetched_at": "datetime64[us, UTC]",
}


@dataclass(frozen=True)
class StoreIdentity:
    """Which service and company a store holds (recorded in it, shown by `info`). The address
    carries no user name, password or query (`store.location.service_address`)."""

    service: str
    company_id: int
    demo: bool = False


@dataclass(frozen=True)
class StoreInfo:
    """What a store holds, for `python -m dashboard store info` and the page that offers Clear."""

    location: str
    engine: str
    schema_version: int
    size_bytes: int | None
    service: str | None
    company_id: int | None
    plans: int
    executions: int
    results: int
    fetched_pairs: int
    oldest_execution: datetime | None
    newest_execution: datetime | None
    oldest_result: datetime | None
    newest_result: datetime | None
    last_sync: datetime | None
    changed_executions: int = 0
    """Finished executions the service sent again changed (the first stored version is kept)."""
    marks: int = 0
    """Marks of the known-failure ledger, open and closed (`store.ledger`)."""
    open_marks: int = 0

    @property
    def bytes_per_result(self) -> float | None:
        return self.size_bytes / self.results if self.size_bytes and self.results else None


SCENARIO_NAME_COLUMNS: dict[str, str] = {
    "scenario_id": "int64",
    "name": "str",
    "owner": "str",  # an e-mail address, or missing
    "tags": "str",  # comma-separated, or missing
    "changed_by": "str",
    "changed_at": "datetime64[us, UTC]",
}
"""`HistoryStore.scenario_names()`: a company's names of its scenarios (`store.scenario_names`)."""

GROUP_RULE_COLUMNS: dict[str, str] = {
    "rule_id": "str",
    "message_pattern": "str",
    "scenario_pattern": "str",  # missing: every scenario
    "plan_id": "Int64",  # missing: every plan
    "environment_pattern": "str",  # missing: every environment
    "action": "str",  # "category" or "merge"
    "label": "str",  # the category, or the merged group's name
    "created_by": "str",
    "created_at": "datetime64[us, UTC]",
    "removed_by": "str",
    "removed_at": "datetime64[us, UTC]",
}
"""`HistoryStore.group_rules()`: a company's rules for failure groups (`store.group_rules`)."""
