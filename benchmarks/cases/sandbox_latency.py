"""Case 7, the sandbox: how long one filtered page of 100 takes to answer at 100,000
executions, p50 and p99, over loopback with a keep-alive connection, one request at a time.

Requests cycle through the filters a dashboard sends (none, a project, a plan, a status, a
7-day window, a plan with a status), each at a page drawn at random (seeded) among the pages
that filter has, so deep pages (large offsets) are met as well as the first.
"""

from __future__ import annotations

import math
import random
from datetime import timedelta
from typing import Any

import httpx

from benchmarks.context import Run
from benchmarks.measure import CaseResult, percentile, timed

NAME = "sandbox"
TITLE = "7. Sandbox"
SEED = 10


def run(run: Run) -> CaseResult:
    size = run.size
    sandbox = run.sandbox(executions=size.page_executions)
    lead = sandbox.lead
    result = CaseResult(NAME, TITLE)
    headers = {"Authorization": f"Bearer {lead.token}", "current-company-id": str(lead.company_id)}
    week_ago = int((run.now - timedelta(days=7)).timestamp() * 1000)

    with httpx.Client(base_url=sandbox.base_url + "/api", headers=headers, timeout=30) as http:
        plans = http.get("/plans/lazy", params={"active": "false"}).raise_for_status().json()
        plan, project = plans[0]["id"], plans[0]["project_id"]
        filters: list[dict[str, Any]] = [
            {},
            {"projectId": project},
            {"planId": plan},
            {"status": "SUCCESS"},
            {"from": week_ago},
            {"planId": plan, "status": "WARNING"},
        ]
        pages = [_page_count(http, f, size.sandbox_page_size) for f in filters]
        draw = random.Random(SEED)
        p50 = result.figure(f"filter page of {size.sandbox_page_size}, p50", "ms")
        p99 = result.figure(f"filter page of {size.sandbox_page_size}, p99", "ms")
        for _ in range(run.repeats()):
            times: list[float] = []
            for number in range(size.sandbox_requests):
                which = number % len(filters)
                params = {
                    **filters[which],
                    "page": draw.randint(1, pages[which]),
                    "size": size.sandbox_page_size,
                }
                seconds, response = timed(http.get, "/executions/filter", params=params)
                response.raise_for_status()
                times.append(seconds * 1000)
            p50.runs.append(percentile(times, 0.50))
            p99.runs.append(percentile(times, 0.99))
    result.notes.append(
        f"{size.sandbox_requests} requests per run over {len(filters)} filters (pages: "
        f"{', '.join(str(p) for p in pages)}), timed at the client; the sandbox holds "
        f"{size.page_executions:,} executions."
    )
    return result


def _page_count(http: httpx.Client, query: dict[str, Any], page_size: int) -> int:
    first = http.get("/executions/filter", params={**query, "page": 1, "size": page_size})
    first.raise_for_status()
    return max(1, math.ceil(int(first.json()["total_count"]) / page_size))
