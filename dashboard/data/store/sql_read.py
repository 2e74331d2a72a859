"""The history store's queries: the executions, statuses and results of a window, what a
fan-out still has to fetch, the store's metadata and its size.

Queries alias the table columns to the frame names of `dashboard.columns.schemas`.
"""

from __future__ import annotations

from collections.abc import Iterable

from dashboard.data.store.sql_marks import levels

COUNT_RESULTS = "SELECT COUNT(*) FROM results"

COUNT_PLANS = "SELECT COUNT(*) FROM plans"

GET_META = "SELECT key, value FROM store_meta"

_EXECUTION_SELECT = """
SELECT e.execution_id, e.start_at AS "start", e.end_at AS "end", e.plan_id,
       e.plan_name AS plan, e.project_id, e.project_name AS project, e.username AS "user",
       e.runtime_ms
FROM executions AS e
"""

_RESULT_SELECT = """
SELECT r.result_id, r.execution_id, r.plan_id, r.project_id, r.scenario_id, r.level,
       r.runtime_s, r.start_at AS "start", r.environment_id, r.os, r.browser,
       r.browser_version, r.device, r.mobile, r.resolution, r.message, r.node_log,
       r.executor_log, r.screenshots, r.video, r.unlinked_logs
FROM results AS r
"""

_RESULT_ORDER = " ORDER BY r.execution_id, r.scenario_id, r.result_id"


Filters = frozenset[str]
"""The window filters a query is built for: those of "date_from", "date_to", "plan_id" and
"project_id" that are set (bound as parameters of the same names)."""

_CONDITIONS: dict[str, str] = {
    "date_from": "{alias}.start_at >= :date_from",
    "date_to": "{alias}.start_at <= :date_to",
    "plan_id": "{alias}.plan_id = :plan_id",
    "project_id": "{alias}.project_id = :project_id",
}


def _where(alias: str, filters: Filters) -> str:
    """The WHERE clause of a time window on `alias.start_at` (bounds inclusive), optionally
    one plan or project.

    Built from the filters that are set (rather than `:x IS NULL OR ...`) so that each engine
    can use its zone maps or indexes on what is actually filtered.
    """
    conditions = [c.format(alias=alias) for name, c in _CONDITIONS.items() if name in filters]
    return " WHERE " + " AND ".join(["1 = 1", *conditions])


def executions_in_window(filters: Filters) -> str:
    """Stored executions that started in the window, newest first."""
    return (
        _EXECUTION_SELECT + _where("e", filters) + " ORDER BY e.start_at DESC, e.execution_id DESC"
    )


def statuses_in_window(filters: Filters) -> str:
    """The status counts of the executions `executions_in_window` selects, in long form."""
    return (
        'SELECT s.execution_id, e.start_at AS "start", s.status, s.status_count AS "count" '
        "FROM execution_statuses AS s JOIN executions AS e ON e.execution_id = s.execution_id"
        + _where("e", filters)
        + " ORDER BY e.start_at, s.execution_id, s.status"
    )


RESULT_IDS_OF_STAGED_EXECUTIONS = """
SELECT i.execution_id, i.result_id
FROM execution_result_ids AS i JOIN {staged} AS wanted ON wanted.execution_id = i.execution_id
ORDER BY i.execution_id, i.ordinal
"""

EXECUTIONS_OF_STAGED = (
    _EXECUTION_SELECT + " JOIN {staged} AS wanted ON wanted.execution_id = e.execution_id"
)

STATUSES_OF_STAGED_EXECUTIONS = """
SELECT s.execution_id, e.start_at AS "start", s.status, s.status_count AS "count"
FROM execution_statuses AS s
JOIN executions AS e ON e.execution_id = s.execution_id
JOIN {staged} AS wanted ON wanted.execution_id = s.execution_id
"""

CHANGED_EXECUTIONS = (
    "SELECT execution_id FROM changed_executions ORDER BY noticed_at DESC, execution_id DESC"
)

RESULTS_OF_STAGED_EXECUTIONS = (
    _RESULT_SELECT
    + " JOIN {staged} AS wanted ON wanted.execution_id = r.execution_id"
    + _RESULT_ORDER
)

RESULTS_OF_STAGED_PAIRS = (
    _RESULT_SELECT
    + " JOIN {staged} AS wanted ON wanted.execution_id = r.execution_id"
    + " AND wanted.scenario_id = r.scenario_id"
    + _RESULT_ORDER
)

STORED_OF_STAGED_PAIRS = """
SELECT f.execution_id, f.scenario_id
FROM fetched_pairs AS f
JOIN {staged} AS wanted
  ON wanted.execution_id = f.execution_id AND wanted.scenario_id = f.scenario_id
ORDER BY f.execution_id, f.scenario_id
"""


def results_in_window(filters: Filters) -> str:
    """Stored results that started in the window, optionally of one plan or project."""
    return _RESULT_SELECT + _where("r", filters) + _RESULT_ORDER


def scenario_results(filters: Filters) -> str:
    """The stored results of one scenario of one plan (`:plan_id`, `:scenario_id`) that started
    in the window."""
    where = _where("r", filters | {"plan_id"})
    return _RESULT_SELECT + where + " AND r.scenario_id = :scenario_id" + _RESULT_ORDER


def missing_pairs(filters: Filters) -> str:
    """(execution, scenario) pairs of stored executions in the window whose results have not
    been fetched: newest executions first, scenarios in their plan's order. The scenarios of an
    execution are its plan's, as the plans operation lists them."""
    return (
        "SELECT e.execution_id, s.scenario_id FROM executions AS e "
        "JOIN plan_scenarios AS s ON s.plan_id = e.plan_id"
        + _where("e", filters)
        + " AND NOT EXISTS (SELECT 1 FROM fetched_pairs AS f "
        "WHERE f.execution_id = e.execution_id AND f.scenario_id = s.scenario_id) "
        "GROUP BY e.execution_id, s.scenario_id "
        "ORDER BY MAX(e.start_at) DESC, e.execution_id DESC, MIN(s.ordinal)"
    )


INFO = """
SELECT
    (SELECT COUNT(*) FROM plans) AS plans,
    (SELECT COUNT(*) FROM executions) AS executions,
    (SELECT COUNT(*) FROM results) AS results,
    (SELECT COUNT(*) FROM fetched_pairs) AS fetched_pairs,
    (SELECT MIN(start_at) FROM executions) AS oldest_execution,
    (SELECT MAX(start_at) FROM executions) AS newest_execution,
    (SELECT MIN(start_at) FROM results) AS oldest_result,
    (SELECT MAX(start_at) FROM results) AS newest_result,
    (SELECT COUNT(*) FROM changed_executions) AS changed_executions
"""


def failed_results_in_window(filters: Filters, failing: Iterable[str]) -> str:
    """The stored results that started in the window whose level is among `failing` (the
    verdict rule's fixed upper-case names, written in as literals), optionally of one plan or
    project: what marks are applied to when a page counts known failures."""
    return (
        "SELECT r.result_id, r.execution_id, r.plan_id, r.scenario_id, r.level, "
        'r.start_at AS "start", r.os, r.browser, r.browser_version, r.device, r.mobile, '
        "r.message FROM results AS r"
        + _where("r", filters)
        + f" AND UPPER(TRIM(r.level)) IN ({levels(failing)})"
        + _RESULT_ORDER
    )
