"""GET {prefix}/storage/{company}/{yyyy}/{MM}/{dd}/{session_id}/node.log (and testResult.log).

The demo's log links lead here, so every link the demo hands out opens a real log. Logs are
not part of the read API: a browser opens them from a link, so they need no bearer token (and
hold nothing secret), and the API's document does not list them. Any path that is not exactly
one of a result's two log paths is 404.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import PlainTextResponse
from starlette.exceptions import HTTPException

from sandbox.data.demo_logs import render_log
from sandbox.dependencies import get_settings, get_store
from sandbox.links import LOG_ROOT, log_root_url
from sandbox.settings import SandboxSettings
from sandbox.store import DemoStore

router = APIRouter(include_in_schema=False)


@router.get(LOG_ROOT + "/{company_id}/{year}/{month}/{day}/{session_id}/{file_name}")
def demo_log(
    request: Request,
    company_id: str,
    year: str,
    month: str,
    day: str,
    session_id: str,
    file_name: str,
    store: Annotated[DemoStore, Depends(get_store)],
    settings: Annotated[SandboxSettings, Depends(get_settings)],
) -> PlainTextResponse:
    # Plain strings, checked here: any malformed part means "no such log", never a 400.
    subject = None
    if company_id.isascii() and company_id.isdigit() and company_id == str(int(company_id)):
        subject = store.log_subject(
            int(company_id),
            f"{year}/{month}/{day}",
            session_id,
            file_name,
            log_root_url(request, settings),
        )
    if subject is None:
        raise HTTPException(404, "No such log")
    return PlainTextResponse(render_log(subject, file_name))
