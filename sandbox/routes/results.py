"""GET /api/results/execution/{executionId}/scenario/{scenarioId} (spec 4.1)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request

from sandbox.auth import DemoUser
from sandbox.dependencies import (
    LONG_MAX,
    LONG_MIN,
    WHOLE_NUMBER,
    authority_guard,
    current_user,
    get_settings,
    get_store,
)
from sandbox.errors import ApiError
from sandbox.links import log_root_url
from sandbox.operations import RULES, Operation
from sandbox.schemas import AuthErrorBody, ErrorBody, ResultRecord
from sandbox.settings import SandboxSettings
from sandbox.store import DemoStore

router = APIRouter(tags=["results"], dependencies=[Depends(authority_guard(Operation.RESULTS))])

RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody, "description": "INVALID_REQUEST: an id is not a 64-bit integer"},
    # Two bodies share this status: the service's ACCESS_DENIED, and the security layer's
    # answer to a missing or invalid token. The document must admit both.
    401: {
        "model": ErrorBody | AuthErrorBody,
        "description": "ACCESS_DENIED (ErrorBody): the user lacks TEST_RESULT_VIEW; or a missing"
        " or invalid bearer token (AuthErrorBody, from the security layer)",
    },
    404: {"model": ErrorBody, "description": "EXECUTION_NOT_FOUND or TEST_SCENARIO_NOT_FOUND"},
    500: {"model": ErrorBody, "description": "USERS_COMPANY_NOT_EXISTS or SYSTEM_INTERNAL_ERROR"},
}


@router.get(
    RULES[Operation.RESULTS].path,
    response_model=list[ResultRecord],
    responses=RESPONSES,
    summary="Test results of one scenario in one execution",
)
def scenario_results(
    request: Request,
    user: Annotated[DemoUser, Depends(current_user)],
    store: Annotated[DemoStore, Depends(get_store)],
    settings: Annotated[SandboxSettings, Depends(get_settings)],
    executionId: Annotated[int, Path(ge=LONG_MIN, le=LONG_MAX), WHOLE_NUMBER],
    scenarioId: Annotated[int, Path(ge=LONG_MIN, le=LONG_MAX), WHOLE_NUMBER],
) -> list[ResultRecord]:
    """One result per environment the execution ran the scenario on; `[]` when the scenario
    exists but was not part of that execution. Another company's execution or scenario is
    reported as not found, never shown. Log paths lead to this sandbox's own demo logs."""
    if not store.company_exists(user.company_id):
        raise ApiError(500, "USERS_COMPANY_NOT_EXISTS", "The user's company does not exist")
    execution = store.execution(executionId)
    if execution is None or execution.company_id != user.company_id:
        raise ApiError(404, "EXECUTION_NOT_FOUND", f"No execution with id {executionId}")
    if store.scenario_company(scenarioId) != user.company_id:
        raise ApiError(404, "TEST_SCENARIO_NOT_FOUND", f"No scenario with id {scenarioId}")
    return store.results(execution, scenarioId, log_root_url(request, settings))
