"""GET /api/executions/filter (spec 4.2)."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Query, Request, Response
from pydantic import TypeAdapter

from sandbox.auth import DemoUser
from sandbox.data.outcomes import Level
from sandbox.dependencies import (
    LONG_MAX,
    LONG_MIN,
    WHOLE_NUMBER,
    authority_guard,
    current_company,
    current_user,
    get_settings,
    get_store,
)
from sandbox.errors import ApiError
from sandbox.links import api_root_url
from sandbox.operations import RULES, Operation
from sandbox.schemas import AuthErrorBody, ErrorBody, ExecutionPage
from sandbox.settings import SandboxSettings
from sandbox.store import DemoStore, ExecutionCriteria

# The spec leaves the bounds of `size` open; 1000 keeps one page's body to about a megabyte.
MAX_PAGE_SIZE = 1000
# `page` is a Java int on the service.
INT_MAX = 2**31 - 1
# A page is served as bytes: its envelope serialised by its model, with the store's JSON of the
# records (`DemoStore.find_executions_json`) in the place of an empty `item_list`.
PAGE_JSON = TypeAdapter(ExecutionPage)
NO_ITEMS = b'"item_list":[]'

router = APIRouter(
    tags=["executions"], dependencies=[Depends(authority_guard(Operation.FILTER_EXECUTIONS))]
)

RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody, "description": "INVALID_REQUEST: bad header or parameter"},
    401: {"model": AuthErrorBody, "description": "Missing or invalid bearer token"},
    403: {
        "model": ErrorBody,
        "description": "ACCESS_DENIED (lacks TEST_EXECUTION_VIEW, or not in the company),"
        " or UNAUTHORIZED_USER (email is not the caller's)",
    },
    404: {
        "model": ErrorBody,
        "description": "TEST_EXECUTION_NOT_FOUND: nothing matches (also when `from` is after `to`)",
    },
    500: {"model": ErrorBody, "description": "INTERNAL_SERVER_ERROR"},
}


@router.get(
    RULES[Operation.FILTER_EXECUTIONS].path,
    response_model=ExecutionPage,
    responses=RESPONSES,
    summary="Executions of the company, newest first, one page at a time",
)
def filter_executions(
    request: Request,
    user: Annotated[DemoUser, Depends(current_user)],
    company_id: Annotated[int, Depends(current_company)],
    store: Annotated[DemoStore, Depends(get_store)],
    settings: Annotated[SandboxSettings, Depends(get_settings)],
    page: Annotated[int, Query(ge=1, le=INT_MAX, description="First page is 1"), WHOLE_NUMBER],
    size: Annotated[
        int, Query(ge=1, le=MAX_PAGE_SIZE, description="Records per page"), WHOLE_NUMBER
    ],
    projectId: Annotated[int | None, Query(ge=LONG_MIN, le=LONG_MAX), WHOLE_NUMBER] = None,
    planId: Annotated[int | None, Query(ge=LONG_MIN, le=LONG_MAX), WHOLE_NUMBER] = None,
    from_: Annotated[
        int | None,
        Query(alias="from", ge=LONG_MIN, le=LONG_MAX, description="Earliest start, Unix ms"),
        WHOLE_NUMBER,
    ] = None,
    to: Annotated[
        int | None,
        Query(ge=LONG_MIN, le=LONG_MAX, description="Latest start, Unix ms"),
        WHOLE_NUMBER,
    ] = None,
    status: Annotated[Level | None, Query(description="Execution status")] = None,
    email: Annotated[str | None, Query(description="Must be the caller's own address")] = None,
) -> Response:
    """`from` and `to` bound `start_date`, both inclusive; `from` after `to` is a window that
    holds nothing, so it is TEST_EXECUTION_NOT_FOUND like any other empty match (the document
    cannot say "from <= to", so the sandbox does not reject it). Items are ordered by start date,
    newest first, then by id, highest first, so pages neither skip nor repeat an execution.
    A page past the last one is empty (200); no match at all is TEST_EXECUTION_NOT_FOUND."""
    email = (email or "").strip() or None  # an empty form field means "not given"
    if email is not None and email.casefold() != user.email.casefold():
        raise ApiError(403, "UNAUTHORIZED_USER", "The email is not the authenticated user's")
    status_name = status.value if status is not None else None
    criteria = ExecutionCriteria(
        company_id=company_id,
        project_id=projectId,
        plan_id=planId,
        user_id=user.id if email is not None else None,
        status=status_name,
        start_from_ms=from_,
        start_to_ms=to,
    )
    total, items = store.find_executions_json(criteria, offset=(page - 1) * size, limit=size)
    if total == 0:
        raise ApiError(404, "TEST_EXECUTION_NOT_FOUND", "No execution matches the criteria")
    page_count = -(-total // size)
    api_url = api_root_url(request, settings)
    filters = [
        (name, value)
        for name, value in (
            ("projectId", projectId),
            ("planId", planId),
            ("from", from_),
            ("to", to),
            ("status", status_name),
            ("email", email),
        )
        if value is not None
    ]

    def link(to_page: int) -> str:
        query = urlencode([("page", to_page), ("size", size), *filters])
        return f"{api_url}{RULES[Operation.FILTER_EXECUTIONS].path}?{query}"

    # Returned as bytes, so FastAPI neither validates the page again nor turns it into Python
    # objects and then JSON. `response_model` above still documents it.
    envelope = ExecutionPage(
        current_page=page,
        total_count=total,
        page_count=page_count,
        next_page=link(page + 1) if page < page_count else "",
        # From past the end, "previous" leads back to the last page rather than another empty one.
        previous_page=link(min(page - 1, page_count)) if page > 1 else "",
        item_list=[],
        rest_api_url=api_url,
    )
    # Only the record list holds `"item_list":[]`: the other fields are numbers and URLs, whose
    # quotes are escaped.
    body = PAGE_JSON.dump_json(envelope).replace(NO_ITEMS, b'"item_list":' + items, 1)
    return Response(body, media_type="application/json")
