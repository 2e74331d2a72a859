"""A small service on loopback whose plan's executions a test writes by hand and changes as it
goes (an execution that finishes, a plan that turns red): what the gate and the alerts read.

Plan `PLAN_ID` runs `SCENARIOS` on one environment (Chrome on Windows 10). An execution is a
list of levels, one per scenario; `running=True` leaves it without an end and its results
WAITING. It answers the three read operations over real HTTP (any token), so the commands read
it through the same client, fan-out and history store as any service.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.client import samples
from tests.loopback_service import serve_json, stamp

PLAN_ID = 5
PLAN_NAME = "Checkout"
PROJECT_ID = 1
SCENARIOS = (51, 52, 53, 54)
FIRST = 5001
MESSAGE = "AssertionError: expected the basket total to be 12.00 but it was {n}"
ENV = {"id": 11, "os": "WIN10", "os_name": "Windows 10", "browser": "CHROME", "version": "134"}


@dataclass
class Run:
    execution_id: int
    start: datetime
    levels: tuple[str, ...]  # one per scenario of SCENARIOS
    running: bool = False


@dataclass
class PlanService:
    base_url: str = ""
    runs: list[Run] = field(default_factory=list)
    polls: int = 0  # executions requests answered
    _lock: threading.Lock = field(default_factory=threading.Lock)
    # The first execution started this long ago, the next ones an hour apart.
    origin: datetime = field(
        default_factory=lambda: (datetime.now(UTC) - timedelta(hours=20)).replace(
            second=0, microsecond=0
        )
    )

    def add(self, *levels: str, running: bool = False) -> int:
        """A new execution, an hour after the previous one; its id."""
        with self._lock:
            execution_id = FIRST + len(self.runs)
            start = self.origin + timedelta(hours=len(self.runs))
            self.runs.append(Run(execution_id, start, tuple(levels), running))
            return execution_id

    def finish(self, execution_id: int, *levels: str) -> None:
        with self._lock:
            for run in self.runs:
                if run.execution_id == execution_id:
                    run.running = False
                    if levels:
                        run.levels = tuple(levels)

    def _run(self, execution_id: int) -> Run | None:
        return next((r for r in self.runs if r.execution_id == execution_id), None)

    def results(self, execution_id: int, scenario_id: int) -> list[dict[str, Any]]:
        run = self._run(execution_id)
        if run is None or scenario_id not in SCENARIOS:
            return []
        position = SCENARIOS.index(scenario_id)
        level = "WAITING" if run.running else run.levels[position]
        result_id = execution_id * 100 + position
        return [
            samples.with_changes(
                samples.TEST_RESULT,
                id=result_id,
                level=level,
                runtime=30,
                message=MESSAGE.format(n=execution_id % 7) if level == "FAILURE" else None,
                scenario_id=scenario_id,
                execution_id=execution_id,
                plan_id=PLAN_ID,
                start_date=stamp(run.start + timedelta(seconds=position)),
                environment=samples.with_changes(
                    samples.ENVIRONMENT,
                    id=ENV["id"],
                    name="Windows 10 CHROME 134",
                    operating_system=ENV["os"],
                    operating_system_clean_name=ENV["os_name"],
                    browser_type=ENV["browser"],
                    environment_type="chrome",
                    environment_version=ENV["version"],
                ),
            )
        ]

    def execution(self, run: Run) -> dict[str, Any]:
        levels = ["WAITING" if run.running else level for level in run.levels]
        summary: dict[str, int] = {}
        for level in levels:
            summary[level] = summary.get(level, 0) + 1
        runtime_ms = 600_000
        return samples.execution(
            run.execution_id,
            plan_id=PLAN_ID,
            plan_name=PLAN_NAME,
            project_id=PROJECT_ID,
            result_summary=summary,
            test_results=[run.execution_id * 100 + i for i in range(len(levels))],
            test_result_status_counts="["
            + ", ".join(f"{status}, {n}" for status, n in summary.items())
            + "]",
            start_date=stamp(run.start),
            end_date=None if run.running else stamp(run.start + timedelta(milliseconds=runtime_ms)),
            runtime=None if run.running else runtime_ms,
        )

    def answer(self, target: str) -> tuple[int, Any]:
        parts = urlsplit(target)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        with self._lock:
            if parts.path == "/api/plans/lazy":
                return 200, [
                    samples.with_changes(
                        samples.TEST_PLAN,
                        id=PLAN_ID,
                        plan_name=PLAN_NAME,
                        project_id=PROJECT_ID,
                        scenarios=list(SCENARIOS),
                    )
                ]
            if parts.path == "/api/executions/filter":
                self.polls += 1
                from tests.loopback_service import executions_page

                return 200, executions_page(
                    self.runs,
                    query,
                    start=lambda run: run.start,
                    plan_id=lambda run: PLAN_ID,
                    project_id=PROJECT_ID,
                    record=self.execution,
                )
            if parts.path.startswith("/api/results/execution/"):
                pieces = parts.path.split("/")
                return 200, self.results(int(pieces[4]), int(pieces[6]))
        return 404, {"error": "NOT_FOUND"}


@contextmanager
def serve_plan() -> Iterator[PlanService]:
    service = PlanService()
    with serve_json(service.answer, name="plan-service") as base_url:
        service.base_url = base_url
        yield service


def service_env(service: PlanService) -> dict[str, str]:
    """The environment that points a command at `service` (any token is accepted)."""
    return {
        "QA_DASHBOARD_BASE_URL": service.base_url,
        "QA_DASHBOARD_TOKEN": "plan-service-token",
        "QA_DASHBOARD_COMPANY_ID": "1",
    }
