"""GET /api/plans/lazy (spec 4.3)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query

from sandbox.dependencies import (
    LONG_MAX,
    LONG_MIN,
    WHOLE_NUMBER,
    authority_guard,
    current_company,
    get_store,
)
from sandbox.operations import RULES, Operation
from sandbox.schemas import AuthErrorBody, ErrorBody, PlanRecord
from sandbox.store import DemoStore

router = APIRouter(tags=["plans"], dependencies=[Depends(authority_guard(Operation.LIST_PLANS))])

RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody, "description": "INVALID_REQUEST: bad header or parameter"},
    401: {"model": AuthErrorBody, "description": "Missing or invalid bearer token"},
    403: {
        "model": ErrorBody,
        "description": "ACCESS_DENIED: the user lacks PLAN_VIEW or is not in the company",
    },
    500: {"model": ErrorBody, "description": "SYSTEM_INTERNAL_ERROR"},
}


@router.get(
    RULES[Operation.LIST_PLANS].path,
    response_model=list[PlanRecord],
    # Optional plan fields are absent rather than null, as on the service.
    response_model_exclude_none=True,
    responses=RESPONSES,
    summary="Test plans of the caller's company",
)
def list_plans(
    company_id: Annotated[int, Depends(current_company)],
    store: Annotated[DemoStore, Depends(get_store)],
    projectId: Annotated[int | None, Query(ge=LONG_MIN, le=LONG_MAX), WHOLE_NUMBER] = None,
    active: Annotated[bool, Query(description="true: only active plans; false: all plans")] = True,
) -> list[PlanRecord]:
    """Plans ordered by id. Active means enabled and in an enabled project. A project of
    another company simply matches no plan."""
    return store.plans(company_id, projectId, active_only=active)
