"""A tiny service on loopback whose plan, project, user and result names a test chooses.

The sandbox's demo data is fixed; the names a hostile service could send (a URL, a bidi
override, markup) are not in it. This answers the three read operations over real HTTP with one
plan, one execution (started an hour ago by the wall clock, so every date preset finds it) and
one result per scenario, named as the test says. Any token is accepted.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.client import samples
from tests.loopback_service import serve_json, stamp

PLAN_ID = 3
EXECUTION_ID = 900
SCENARIOS = (21, 22)


@dataclass(frozen=True)
class Names:
    plan: str = "Checkout smoke"
    project: str = "Web shop"
    user: str = "ada"
    message: str = "Element #login not found"
    statuses: tuple[str, ...] = ("SUCCESS", "FAILURE")
    # Data that contradicts itself, when a test asks for it (the defaults are consistent).
    summary: tuple[tuple[str, int], ...] | None = None  # result_summary; default: one a status
    runtime_ms: int = 120_000
    ends_after: timedelta = timedelta(minutes=2)  # end_date - start_date
    starts_in: timedelta | None = None  # start_date from now (in the future); default 1 h ago
    result_runtime: int | None = None  # each result's runtime (seconds); default the sample's


@dataclass
class NamedService:
    names: Names
    base_url: str = ""
    started: datetime = field(
        default_factory=lambda: (datetime.now(UTC) - timedelta(hours=1)).replace(microsecond=0)
    )

    def plan(self) -> dict[str, Any]:
        return samples.with_changes(
            samples.TEST_PLAN,
            id=PLAN_ID,
            plan_name=self.names.plan,
            project_name=self.names.project,
            created_by=self.names.user,
            updated_by=self.names.user,
            scenarios=list(SCENARIOS),
        )

    def execution(self) -> dict[str, Any]:
        summary = (
            dict(self.names.summary)
            if self.names.summary is not None
            else dict.fromkeys(self.names.statuses, 1)
        )
        if self.names.starts_in is not None:
            self.started = (datetime.now(UTC) + self.names.starts_in).replace(microsecond=0)
        return samples.execution(
            EXECUTION_ID,
            plan_id=PLAN_ID,
            plan_name=self.names.plan,
            project_name=self.names.project,
            username=self.names.user,
            result_summary=summary,
            test_results=[EXECUTION_ID * 1000 + i for i in range(len(summary))],
            test_result_status_counts="[" + ", ".join(f"{s}, 1" for s in summary) + "]",
            start_date=stamp(self.started),
            end_date=stamp(self.started + self.names.ends_after),
            runtime=self.names.runtime_ms,
        )

    def results(self, scenario_id: int) -> list[dict[str, Any]]:
        # One result a scenario, the statuses in turn: the results agree with the summary.
        level = self.names.statuses[SCENARIOS.index(scenario_id) % len(self.names.statuses)]
        runtime = (
            {} if self.names.result_runtime is None else {"runtime": self.names.result_runtime}
        )
        return [
            samples.with_changes(
                samples.TEST_RESULT,
                **runtime,
                id=EXECUTION_ID * 1000 + scenario_id,
                level=level,
                message=self.names.message,
                scenario_id=scenario_id,
                execution_id=EXECUTION_ID,
                plan_id=PLAN_ID,
                start_date=stamp(self.started),
            )
        ]

    def answer(self, target: str) -> tuple[int, Any]:
        parts = urlsplit(target)
        query = parse_qs(parts.query)
        if parts.path == "/api/plans/lazy":
            return 200, [self.plan()]
        if parts.path == "/api/executions/filter":
            page = int(query.get("page", ["1"])[0])
            items = [self.execution()] if page == 1 else []
            return 200, samples.page(items, current=page, total_count=1, page_count=1)
        prefix = f"/api/results/execution/{EXECUTION_ID}/scenario/"
        if parts.path.startswith(prefix):
            return 200, self.results(int(parts.path.removeprefix(prefix)))
        return 404, {"error": "NOT_FOUND"}


@contextmanager
def serve_names(names: Names) -> Iterator[NamedService]:
    """Serve `names` on a free loopback port until the block ends."""
    service = NamedService(names)
    with serve_json(service.answer, name="named-service") as base_url:
        service.base_url = base_url
        yield service
