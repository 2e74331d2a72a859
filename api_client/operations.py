"""`Operation`: the spec's catalogue of the three read operations, with what each one needs.

Errors name the operation they failed in, and the dashboard words an `ACCESS_DENIED` with the
authority the operation requires; both read it here, so the catalogue is written once.
"""

from __future__ import annotations

from enum import StrEnum


class Operation(StrEnum):
    """The three read operations of the service."""

    TEST_RESULTS = "test_results"
    EXECUTIONS = "executions"
    PLANS = "plans"

    @property
    def authority(self) -> str:
        """The authority the service requires for this operation (spec section 5)."""
        return _AUTHORITY_BY_OPERATION[self]

    @property
    def label(self) -> str:
        """What the operation fetches, in words ("test plans")."""
        return _LABEL_BY_OPERATION[self]


_AUTHORITY_BY_OPERATION = {
    Operation.TEST_RESULTS: "TEST_RESULT_VIEW",
    Operation.EXECUTIONS: "TEST_EXECUTION_VIEW",
    Operation.PLANS: "PLAN_VIEW",
}
_LABEL_BY_OPERATION = {
    Operation.TEST_RESULTS: "test results",
    Operation.EXECUTIONS: "executions",
    Operation.PLANS: "test plans",
}
