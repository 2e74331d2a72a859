"""The known-failure ledger's frames: marks, their change log, and the words their `target` and
`kind` columns hold.

A *mark* is what a team knows about a failure: its target (a failure group, a scenario of a
plan, a scenario on one environment, or one execution), its kind, a ticket, a note, an owner, an
optional expiry, who made it and when, and whether (and by whom) it was closed. A closed mark is
kept. Every change is a row of its log, which is only ever appended to. The history store keeps
both (`dashboard.data.store.ledger`); the analytics apply them (`dashboard.analytics.marks`).
"""

from __future__ import annotations

from dashboard.columns.schemas import UTC_TIME

# -- what a mark targets ------------------------------------------------------------------------
FAILURE_GROUP = "failure_group"
"""Failed results whose normalised message is `signature` (`analytics.failure_groups`), in its
scope (`analytics.marks.group_scope`): of one plan when `plan_id` is set, on one environment
when `environment` is (its version-independent label, "CHROME / Windows 10": every plan, any
browser version), else of every plan. Both set: that plan on that environment."""
SCENARIO = "scenario"
"""Failed results of scenario `scenario_id` of plan `plan_id`, on every environment."""
SCENARIO_ENVIRONMENT = "scenario_environment"
"""Failed results of scenario `scenario_id` of plan `plan_id` on the environment named
`environment`, as the environments page names it ("SAFARI 17 / macOS")."""
EXECUTION = "execution"
"""Execution `execution_id` as a whole: an outage (or an outage proposal dismissed)."""
TARGETS: tuple[str, ...] = (FAILURE_GROUP, SCENARIO, SCENARIO_ENVIRONMENT, EXECUTION)

# -- what kind of knowledge it is ---------------------------------------------------------------
KNOWN_ISSUE = "known_issue"
"""A failure the team has filed (a ticket) and is working on."""
ACCEPTED = "accepted"
"""A failure expected for now (a feature switched off, a browser not supported yet)."""
OUTAGE = "outage"
"""An execution that failed for a reason outside the tests (the grid was down): confirmed."""
NOT_AN_OUTAGE = "not_an_outage"
"""An execution flagged as a likely outage that a viewer looked at and dismissed: its failures
are the tests' own, and it counts like any other execution."""
KINDS: tuple[str, ...] = (KNOWN_ISSUE, ACCEPTED, OUTAGE, NOT_AN_OUTAGE)
KINDS_FOR: dict[str, tuple[str, ...]] = {
    FAILURE_GROUP: (KNOWN_ISSUE, ACCEPTED),
    SCENARIO: (KNOWN_ISSUE, ACCEPTED),
    SCENARIO_ENVIRONMENT: (KNOWN_ISSUE, ACCEPTED),
    EXECUTION: (OUTAGE, NOT_AN_OUTAGE),
}
"""The kinds each target takes: failures are known or accepted, an execution is an outage or
not."""

# -- the frames -----------------------------------------------------------------------------------
MARK_COLUMNS: dict[str, str] = {
    "mark_id": "str",
    "company_id": "int64",
    "target": "str",  # one of TARGETS
    "signature": "str",  # FAILURE_GROUP: the normalised message ("" for failures without one)
    "plan_id": "Int64",  # optional for FAILURE_GROUP (its scope); set for the others
    "scenario_id": "Int64",  # SCENARIO, SCENARIO_ENVIRONMENT
    "environment": "str",  # SCENARIO_ENVIRONMENT; optional for FAILURE_GROUP (its scope)
    "execution_id": "Int64",  # EXECUTION
    "kind": "str",  # one of KINDS
    "ticket": "str",  # an http(s) link, or missing
    "note": "str",
    "owner": "str",
    "expires_on": UTC_TIME,  # the last day it applies (midnight UTC of that day), or missing
    "created_by": "str",
    "created_at": UTC_TIME,
    "updated_at": UTC_TIME,  # its last change (its creation until it changes)
    "closed_by": "str",  # missing while open
    "closed_at": UTC_TIME,
    "revision": "int64",  # 1 when made; each change adds one (its log entry's number)
}
"""One row per mark of one company, open and closed alike."""

MARK_LOG_COLUMNS: dict[str, str] = {
    "mark_id": "str",
    "revision": "int64",  # the mark's revision this change made
    "at": UTC_TIME,
    "actor": "str",  # who made the change
    "action": "str",  # "created", "changed", "closed", "imported"
    "what": "str",  # what changed, in words ("ticket: (none) -> https://...; note changed")
}
"""One row per change of a mark, oldest first: the mark's history, never rewritten."""

CREATED, CHANGED, CLOSED, IMPORTED = "created", "changed", "closed", "imported"
"""The actions of the log."""

FAILED_RESULT_COLUMNS: dict[str, str] = {
    "result_id": "int64",
    "execution_id": "int64",
    "plan_id": "Int64",
    "scenario_id": "Int64",
    "level": "str",
    "start": UTC_TIME,
    "os": "str",
    "browser": "str",
    "browser_version": "str",
    "device": "str",
    "mobile": "boolean",
    "message": "str",
}
"""The stored failed results of a window, what marks are applied to when a page counts known
failures per execution without reading every result (`HistoryStore.failed_results`)."""
