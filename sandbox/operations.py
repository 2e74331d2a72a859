"""The three operations of the spec: their paths and the rules that differ between them.

Kept in one table because the spec deliberately differs per operation (section 7): a missing
authority is 401 on results but 403 elsewhere, and the internal-error code is
INTERNAL_SERVER_ERROR on the filter operation only. Routes, error handlers and the fault
injector all look the operation up here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from sandbox.data.catalog import Authority


class Operation(StrEnum):
    RESULTS = "results"
    FILTER_EXECUTIONS = "filter_executions"
    LIST_PLANS = "list_plans"


@dataclass(frozen=True)
class OperationRules:
    # Relative to "{path_prefix}/api", in the framework's template syntax.
    path: str
    authority: Authority
    access_denied_status: int
    internal_error_code: str


RULES: dict[Operation, OperationRules] = {
    Operation.RESULTS: OperationRules(
        path="/results/execution/{executionId}/scenario/{scenarioId}",
        authority=Authority.TEST_RESULT_VIEW,
        access_denied_status=401,
        internal_error_code="SYSTEM_INTERNAL_ERROR",
    ),
    Operation.FILTER_EXECUTIONS: OperationRules(
        path="/executions/filter",
        authority=Authority.TEST_EXECUTION_VIEW,
        access_denied_status=403,
        internal_error_code="INTERNAL_SERVER_ERROR",
    ),
    Operation.LIST_PLANS: OperationRules(
        path="/plans/lazy",
        authority=Authority.PLAN_VIEW,
        access_denied_status=403,
        internal_error_code="SYSTEM_INTERNAL_ERROR",
    ),
}

# For requests that match no operation (e.g. an unknown path that crashes the framework).
DEFAULT_INTERNAL_ERROR_CODE = "SYSTEM_INTERNAL_ERROR"


class OperationMatcher:
    """Tells which operation a raw request path addresses, before or without routing."""

    def __init__(self, api_root: str) -> None:
        self._patterns = [
            (operation, re.compile("^" + re.escape(api_root) + _path_regex(rules.path) + "$"))
            for operation, rules in RULES.items()
        ]

    def match(self, path: str) -> Operation | None:
        for operation, pattern in self._patterns:
            if pattern.match(path):
                return operation
        return None


def _path_regex(template: str) -> str:
    # A path parameter matches one non-empty segment, as in the router.
    return "".join(
        "[^/]+" if part.startswith("{") else re.escape(part)
        for part in re.split(r"(\{[^}]+\})", template)
    )
