"""The columns a lead needs of every table, by page: in view without scrolling sideways on a
laptop (1440x900) and on a desktop screen (1920x1080).

One place for every page's tables: `tests/browser/test_every_page.py` opens each route of
`dashboard/state/routes.py` at both sizes, finds every table on it (`table_anchor` marks them)
and checks that each one is declared here and that the columns named here are in view, whole.
A page that adds a table adds it here; the other columns of a table may lie to the right of
these, a scroll away, or behind a detail (a selected row's full message).
"""

from __future__ import annotations

from dashboard.analytics.states import STATES
from dashboard.present.failures import COLUMNS as FAILURES_COLUMNS
from dashboard.present.states import state_label

KEY_COLUMNS: dict[str, dict[str, tuple[str, ...]]] = {
    # route (its url_path) -> table key -> the columns a lead needs, left to right
    "plans": {
        "plans.table": ("Plan", "Now", "Latest finished", "Same since"),
    },
    "standup": {
        "standup.turned-red": ("Plan", "Evidence", "Failed in", "Now running"),
        "standup.fixed": ("Plan", "Evidence", "Passed in", "Now running"),
        "standup.still-failing": ("Plan", "Evidence", "Red since", "Latest"),
        "standup.newly-failing-scenarios": (
            "Plan",
            "Evidence",
            "Scenario",
            "Environment",
            "Message",
            "History",
        ),
        "standup.slower": ("Plan", "Evidence", "Median now", "Slower by"),
    },
    "health": {
        "health.table": (
            "Plan",
            "Now",
            "Pass rate 7 d",
            "Daily pass rate, 30 d",
            "Median runtime 3 d",
            "Runtime trend",
            "Since fully green",
        ),
        # How long plans stay red: the plans red now or lately, in three short columns.
        "health.red": ("Plan", "Now", "Time to green, 30 d"),
    },
    "time-to-green": {
        "red.plans": ("Plan", "Now", "Time to green, 30 d", "Time to green, 90 d", "Trend"),
        "red.stretches": (
            "Plan",
            "Red from",
            "How long",
            "Executions",
            "First red",
            "What changed",
        ),
        "red.groups": ("Message", "Age", "First seen", "Last seen", "Executions hit"),
    },
    "executions": {
        # The pass rate is the page's KPI; its column follows the status counts.
        "executions.table": ("Status", "Start", "Plan", "Duration"),
    },
    "results": {
        "results.table": ("Scenario", "Level", "Message", "History", "Node log", "OS", "Browser"),
    },
    "flaky": {
        "flaky.table": ("Plan", "Scenario", "Environment", "Score", "Why", "History"),
        "groups.table": ("Message", "Failures", "Scenarios", "Environments", "Last seen"),
    },
    "environments": {
        # The finding's sentence is said above the table; its counts are in view.
        "environments.specific": (
            "Scenario",
            "Environment",
            "Failed",
            "Runs",
            "Runs elsewhere",
            "History",
        ),
        "environments.versions": ("Environment", "Previous", "Finding", "First seen"),
        "environments.matrix": ("Scenario", "Environment", "Pass rate", "History"),
    },
    "compare": {
        "compare.table": (
            "Scenario",
            "Environment",
            "Change",
            "Before",
            "After",
            "Message after",
            "History",
        ),
    },
    "failures": {
        # Its columns up to the scenario's state; the links, the message and the logs lie to
        # the right (the CSV holds them all).
        "failures.table": FAILURES_COLUMNS[: FAILURES_COLUMNS.index("State") + 1],
    },
    "states": {
        # The preview: how many scenarios each state holds (and would, with other settings).
        "states.preview": ("Scenarios", *(state_label(s) for s in STATES)),
        "states.table": ("Plan", "Scenario", "State", "History", "Why"),
    },
    "slower": {
        "slower.table": ("Plan", "Scenario", "Slower by", "History", "Evidence"),
    },
    # The demo holds no group rule: the page lists none (its table, when it has rules, leads
    # with the message pattern, the action and the category or group).
    "rules": {},
    "known": {
        # A mark's evidence, note, who made and closed it and when, and its id lie to the right
        # (and in its block under the table, with its log).
        "known.table": ("State", "Kind", "Target", "Owner", "Last day", "Ticket"),
    },
    "scenario": {
        "scenario.table": (
            "Started",
            "Execution",
            "Environment",
            "Outcome",
            "Message",
            "Node log",
            "Results",
        ),
        "scenario.regressions": ("Environment", "Recent median", "Earlier median", "Change"),
    },
}

ANCHOR_PREFIX = "qa-table-"


def table_anchor(key: str) -> str:
    """The key of the container around the table `key` (its CSS class is `st-key-<anchor>`),
    by which a browser finds the table: "health.table" -> "qa-table-health-table"."""
    return ANCHOR_PREFIX + key.replace(".", "-")


def section_key(title: str) -> str:
    """A standup section's table key: "Newly failing scenarios" -> "standup.newly-failing-
    scenarios"."""
    return "standup." + "-".join(title.lower().split())
