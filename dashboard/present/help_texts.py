"""The help texts of the pages' controls, tiles and table columns (the "?" beside them): what a
figure counts and what a control does, in one place so the same rule reads the same everywhere.
"""

from __future__ import annotations

STATUS_RULE = (
    "An execution's status comes from its results: a running status (WAITING, PROCESSING, ...) "
    "while any result runs, else ERROR if any result is an ERROR, else FAILURE, else WARNING, "
    "else SUCCESS. Choose FAILURE and ERROR together to see every failed execution."
)
"""The rule of `verdicts.execution_status`, as the status filter explains it."""

ONLY_MINE = "Executions started by the user of the configured e-mail address."
ACTIVE_ONLY = "Leave out disabled plans."
PRESENT = "Large type, no sidebar, refreshes itself every few minutes."

# -- tiles --------------------------------------------------------------------------------------
RATE_OF_EXECUTIONS = (
    "Passed (SUCCESS) results out of those with a verdict: SUCCESS, FAILURE, ERROR or WARNING "
    "(a warning counts as a verdict, not a pass), in finished executions. Running executions, "
    "and waiting, stopped and unknown statuses, are left out."
)
FAILING_PLANS = (
    "Plans whose latest finished execution here has a FAILURE or ERROR result (a plan whose "
    "newest execution is still running is judged on the one before)."
)
RATE_OF_RESULTS = (
    "Passed (SUCCESS) results out of those with a verdict (SUCCESS, FAILURE, ERROR, WARNING); "
    "waiting, running, stopped and unknown statuses are left out."
)
RATE_SINCE_STANDUP = (
    "Passed results of finished executions over their results with a verdict, against the "
    "previous window of equal length."
)

# -- table columns ------------------------------------------------------------------------------
RATE_OF_AN_EXECUTION = (
    "Passed (SUCCESS) results out of those with a verdict (SUCCESS, FAILURE, ERROR, WARNING)"
)
PLAN_SCENARIOS = "Scenarios linked to the plan"
PLAN_PARALLEL_LIMIT = "Maximum parallel tests"
PLAN_RETRIES = "Retries of a failed test"
PLAN_ALERTS = "Enabled alerts (e.g. e-mail)"
PLAN_EXECUTIONS_SINCE = "Finished executions in a row with the same outcome, newest back"
DAILY_RATES = "Pass rate of each day with a verdict in the last 30, oldest on the left"
