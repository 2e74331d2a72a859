"""The statements of the known-failure ledger: a company's marks and their change log.

Every statement names the company (`:company_id`): a store holds one company's history, and its
marks say whose they are too, so no statement can reach another company's mark by a forgotten
condition. A change is an `UPDATE ... WHERE revision = :revision RETURNING revision`: it lands
only on the revision its author read, so two processes changing one mark at once never write
over each other (the second reads again), and each change's log entry has a number of its own.
"""

from __future__ import annotations

from collections.abc import Iterable

_MARK_SELECT = """
SELECT m.mark_id, m.company_id, m.target_type AS target, m.signature, m.plan_id, m.scenario_id,
       m.environment, m.execution_id, m.kind, m.ticket, m.note, m.owner_name AS owner,
       m.expires_on, m.created_by, m.created_at, m.updated_at, m.closed_by, m.closed_at,
       m.revision
FROM marks AS m
"""

MARKS_OF_COMPANY = (
    _MARK_SELECT + " WHERE m.company_id = :company_id ORDER BY m.created_at, m.mark_id"
)

MARK_OF_COMPANY = _MARK_SELECT + " WHERE m.company_id = :company_id AND m.mark_id = :mark_id"

MARK_IDS_OF_COMPANY = "SELECT mark_id FROM marks WHERE company_id = :company_id"

OTHER_COMPANYS_MARK = "SELECT company_id FROM marks WHERE mark_id = :mark_id"

COUNT_MARKS = """
SELECT COUNT(*), COALESCE(SUM(CASE WHEN closed_at IS NULL THEN 1 ELSE 0 END), 0) FROM marks
"""

INSERT_MARK = """
INSERT INTO marks (mark_id, company_id, target_type, signature, plan_id, scenario_id,
                   environment, execution_id, kind, ticket, note, owner_name, expires_on,
                   created_by, created_at, updated_at, closed_by, closed_at, revision)
VALUES (:mark_id, :company_id, :target, :signature, :plan_id, :scenario_id, :environment,
        :execution_id, :kind, :ticket, :note, :owner, :expires_on, :created_by, :created_at,
        :updated_at, :closed_by, :closed_at, :revision)
"""

CHANGE_MARK = """
UPDATE marks
SET kind = :kind, ticket = :ticket, note = :note, owner_name = :owner, expires_on = :expires_on,
    updated_at = :at, revision = revision + 1
WHERE company_id = :company_id AND mark_id = :mark_id AND revision = :revision
  AND closed_at IS NULL
RETURNING revision
"""

CLOSE_MARK = """
UPDATE marks
SET closed_by = :by, closed_at = :at, updated_at = :at, revision = revision + 1
WHERE company_id = :company_id AND mark_id = :mark_id AND revision = :revision
  AND closed_at IS NULL
RETURNING revision
"""

INSERT_LOG = """
INSERT INTO mark_log (mark_id, revision, changed_at, actor, action, what)
VALUES (:mark_id, :revision, :at, :actor, :action, :what)
"""

LOG_OF_COMPANY = """
SELECT l.mark_id, l.revision, l.changed_at AS "at", l.actor, l.action, l.what
FROM mark_log AS l JOIN marks AS m ON m.mark_id = l.mark_id
WHERE m.company_id = :company_id
ORDER BY l.mark_id, l.revision
"""

# -- what the store knows of a target (a script's mark is checked against it) -------------------

PLAN_STORED = """
SELECT EXISTS (SELECT 1 FROM plans WHERE plan_id = :plan_id)
    OR EXISTS (SELECT 1 FROM executions WHERE plan_id = :plan_id)
"""

SCENARIO_STORED = """
SELECT EXISTS (SELECT 1 FROM plan_scenarios WHERE plan_id = :plan_id AND scenario_id = :scenario_id)
    OR EXISTS (SELECT 1 FROM results WHERE plan_id = :plan_id AND scenario_id = :scenario_id)
"""

EXECUTION_STORED = "SELECT EXISTS (SELECT 1 FROM executions WHERE execution_id = :execution_id)"

ENVIRONMENTS_OF_SCENARIO = """
SELECT DISTINCT os, browser, browser_version, device, mobile FROM results
WHERE plan_id = :plan_id AND scenario_id = :scenario_id
"""


def failed_messages(failing: Iterable[str], *, of_plan: bool) -> str:
    """The distinct messages of stored failed results (levels among `failing`, upper case: the
    verdict rule's fixed names, written in as literals), of one plan (`:plan_id`) or all."""
    where = " AND plan_id = :plan_id" if of_plan else ""
    return (
        "SELECT DISTINCT message FROM results WHERE UPPER(TRIM(level)) IN "
        f"({levels(failing)})" + where
    )


def levels(failing: Iterable[str]) -> str:
    """The failing levels as a list of SQL literals: fixed upper-case words only."""
    names = sorted(failing)
    if not names or not all(name.isalpha() and name.isupper() for name in names):
        raise ValueError("failing levels are upper-case words")
    return ", ".join(f"'{name}'" for name in names)


MARKS_OF_COMPANY_AS_STORED = """
SELECT m.mark_id, m.company_id, m.target_type AS target, m.signature, m.plan_id, m.scenario_id,
       m.environment, m.execution_id, m.kind, m.ticket, m.note, m.owner_name AS owner,
       CAST(m.expires_on AS VARCHAR) AS expires_on, m.created_by,
       CAST(m.created_at AS VARCHAR) AS created_at, CAST(m.updated_at AS VARCHAR) AS updated_at,
       m.closed_by, CAST(m.closed_at AS VARCHAR) AS closed_at, m.revision
FROM marks AS m
WHERE m.company_id = :company_id
ORDER BY m.created_at, m.mark_id
"""
"""The company's marks with their times as the database writes them (text), so that one time
no frame can hold (a year 294247, `infinity`) is that mark's problem, not the whole read's
(`store.stored_marks`)."""
