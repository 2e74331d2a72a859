"""A small service on loopback with a hand-built history whose scenario cases are known exactly.

The demo's planted cases are one answer; this is another, small enough to check by hand, so the
analytics pages are shown to find what is there and nothing else whatever the data. It answers
the three read operations over real HTTP (any token), so the pages read it through the same
client, fan-out and history store as any service.

Plan 7 "Hand-built plan" runs scenarios 31-35 on three desktop environments, 12 finished
executions an hour apart (oldest first, index 0-11), then one still running:

- 31 FLAKY: fails on every environment where `FLAKY_PATTERN` says F (7 flips in 12 runs).
- 32 ENVIRONMENT-SPECIFIC: fails in every run on SAFARI 17 / macOS, passes elsewhere.
- 33 SLOWING: passes; 30 s a run, 60 s from index `SLOW_FROM` on.
- 34 BROKE ONCE: passes until `BROKEN_FROM`, then fails everywhere (not flaky).
- 35 VERSION CHANGE: Firefox on Linux moves from 128 to 129 at `NEW_FIREFOX_FROM`; the scenario
  fails on 129 in every run and passed on 128 (so it is environment-specific on FIREFOX 129 too).
- 30 RETIRED: no longer in the plan's scenario list; it ran (and passed) on every environment
  in the executions before `RETIRED_FROM`, so the plan's old results name it (a history link
  from then must still open).

Failures carry two templates that differ only in numbers: the timeout one (31, 34) and the
assertion one (32, 35). Plan 8 has one scenario and two executions, for "an execution of
another plan".
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

PLAN_ID = 7
PLAN_NAME = "Hand-built plan"
OTHER_PLAN_ID = 8
OTHER_EXECUTIONS = (2001, 2002)
SCENARIOS = (31, 32, 33, 34, 35)
FLAKY, SPECIFIC, SLOWING, BROKEN, VERSIONED = SCENARIOS
RETIRED = 30  # not in plan 7's list; ran in its executions before RETIRED_FROM
RETIRED_FROM = 4
FINISHED = 12
FIRST_EXECUTION = 1001
RUNNING_EXECUTION = FIRST_EXECUTION + FINISHED  # 1013, still running
FLAKY_PATTERN = "PFPPFPFFPPPF"  # index 0 (oldest) to 11 (newest)
SLOW_FROM = 7
BROKEN_FROM = 8
NEW_FIREFOX_FROM = 6

TIMEOUT_TEMPLATE = "TimeoutException: button #buy not clickable after {n} ms (session {hex})"
ASSERTION_TEMPLATE = "AssertionError: expected {n} rows but found {m}"

CHROME = {"id": 11, "os": "WIN10", "os_name": "Windows 10", "browser": "CHROME", "version": "134"}
SAFARI = {"id": 12, "os": "MAC", "os_name": "macOS", "browser": "SAFARI", "version": "17"}
FIREFOX_OLD = {"id": 13, "os": "LINUX", "os_name": "Linux", "browser": "FIREFOX", "version": "128"}
FIREFOX_NEW = {"id": 14, "os": "LINUX", "os_name": "Linux", "browser": "FIREFOX", "version": "129"}
SAFARI_LABEL = "SAFARI / macOS"  # named without its version (#38)
FIREFOX_NEW_LABEL = "FIREFOX 129 / Linux"


def execution_ids() -> list[int]:
    """The finished executions of plan 7, oldest first."""
    return [FIRST_EXECUTION + index for index in range(FINISHED)]


def environments(index: int) -> list[dict[str, str | int]]:
    return [CHROME, SAFARI, FIREFOX_NEW if index >= NEW_FIREFOX_FROM else FIREFOX_OLD]


def ran(scenario: int, index: int) -> bool:
    """Whether plan 7's index-th execution ran `scenario` (the service answers [] otherwise)."""
    return scenario in SCENARIOS or (scenario == RETIRED and index < RETIRED_FROM)


def plan_scenarios(index: int) -> list[int]:
    """The scenarios plan 7's index-th execution ran, in the plan's order."""
    return [s for s in (RETIRED, *SCENARIOS) if ran(s, index)]


def fails(scenario: int, index: int, env: dict[str, Any]) -> bool:
    """Whether `scenario` fails on `env` in the index-th finished execution."""
    if scenario == FLAKY:
        return FLAKY_PATTERN[index] == "F"
    if scenario == SPECIFIC:
        return env is SAFARI
    if scenario == BROKEN:
        return index >= BROKEN_FROM
    if scenario == VERSIONED:
        return env is FIREFOX_NEW
    return False


@dataclass
class HistoryService:
    base_url: str = ""
    # The newest finished execution started an hour ago by the wall clock.
    first_start: datetime = field(
        default_factory=lambda: (datetime.now(UTC) - timedelta(hours=FINISHED + 1)).replace(
            second=0, microsecond=0
        )
    )

    def start(self, index: int) -> datetime:
        return self.first_start + timedelta(hours=index)

    def plans(self) -> list[dict[str, Any]]:
        return [
            samples.with_changes(
                samples.TEST_PLAN, id=PLAN_ID, plan_name=PLAN_NAME, scenarios=list(SCENARIOS)
            ),
            samples.with_changes(
                samples.TEST_PLAN, id=OTHER_PLAN_ID, plan_name="Other plan", scenarios=[36]
            ),
        ]

    def results(self, execution_id: int, scenario: int) -> list[dict[str, Any]]:
        if execution_id in OTHER_EXECUTIONS:
            index, plan = execution_id - OTHER_EXECUTIONS[0], OTHER_PLAN_ID
            envs: list[dict[str, Any]] = [CHROME] if scenario == 36 else []
        else:
            index, plan = execution_id - FIRST_EXECUTION, PLAN_ID
            envs = environments(min(index, FINISHED - 1)) if ran(scenario, index) else []
        out = []
        for position, env in enumerate(envs):
            running = execution_id == RUNNING_EXECUTION
            failed = not running and plan == PLAN_ID and fails(scenario, index, env)
            runtime = 60 if scenario == SLOWING and index >= SLOW_FROM else 30
            message = None
            if failed:
                number = 100 + 37 * index + position
                message = (
                    TIMEOUT_TEMPLATE.format(n=number * 10, hex=f"{0xA1B2C3D4 + number:x}")
                    if scenario in (FLAKY, BROKEN)
                    else ASSERTION_TEMPLATE.format(n=3 + index % 4, m=index % 3)
                )
            result_id = execution_id * 1000 + scenario * 10 + position
            start = self.start(index) + timedelta(seconds=scenario + position)
            out.append(
                samples.with_changes(
                    samples.TEST_RESULT,
                    id=result_id,
                    level="WAITING" if running else ("FAILURE" if failed else "SUCCESS"),
                    runtime=runtime,
                    message=message,
                    scenario_id=scenario,
                    execution_id=execution_id,
                    plan_id=plan,
                    start_date=stamp(start),
                    node_log_path=f"https://logs.example.test/{result_id}/node.log",
                    environment=samples.with_changes(
                        samples.ENVIRONMENT,
                        id=env["id"],
                        name=f"{env['os_name']} {env['browser']} {env['version']}",
                        operating_system=env["os"],
                        operating_system_clean_name=env["os_name"],
                        browser_type=env["browser"],
                        environment_type=str(env["browser"]).lower(),
                        environment_version=env["version"],
                    ),
                )
            )
        return out

    def execution(self, execution_id: int) -> dict[str, Any]:
        other = execution_id in OTHER_EXECUTIONS
        index = execution_id - (OTHER_EXECUTIONS[0] if other else FIRST_EXECUTION)
        scenarios = [36] if other else plan_scenarios(index)
        levels = [r["level"] for s in scenarios for r in self.results(execution_id, s)]
        summary: dict[str, int] = {}
        for level in levels:
            summary[level] = summary.get(level, 0) + 1
        running = execution_id == RUNNING_EXECUTION
        start = self.start(index) - (timedelta(minutes=30) if other else timedelta())
        runtime_ms = (10 * 60 + index * 7) * 1000
        return samples.execution(
            execution_id,
            plan_id=OTHER_PLAN_ID if other else PLAN_ID,
            plan_name="Other plan" if other else PLAN_NAME,
            result_summary=summary,
            test_results=[r["id"] for s in scenarios for r in self.results(execution_id, s)],
            test_result_status_counts="["
            + ", ".join(f"{status}, {n}" for status, n in summary.items())
            + "]",
            start_date=stamp(start),
            end_date=None if running else stamp(start + timedelta(milliseconds=runtime_ms)),
            runtime=None if running else runtime_ms,
        )

    def executions(self, plan: int | None) -> list[dict[str, Any]]:
        ids = [*execution_ids(), RUNNING_EXECUTION, *OTHER_EXECUTIONS]
        records = [self.execution(i) for i in ids]
        chosen = [r for r in records if plan is None or r["plan_id"] == plan]
        return sorted(chosen, key=lambda r: r["start_date"], reverse=True)

    def answer(self, target: str) -> tuple[int, Any]:
        parts = urlsplit(target)
        query = parse_qs(parts.query)
        if parts.path == "/api/plans/lazy":
            return 200, self.plans()
        if parts.path == "/api/executions/filter":
            page = int(query.get("page", ["1"])[0])
            plan = int(query["planId"][0]) if "planId" in query else None
            items = self.executions(plan) if page == 1 else []
            total = len(self.executions(plan))
            return 200, samples.page(items, current=page, total_count=total, page_count=1)
        if parts.path.startswith("/api/results/execution/"):
            pieces = parts.path.split("/")
            return 200, self.results(int(pieces[4]), int(pieces[6]))
        return 404, {"error": "NOT_FOUND"}


@contextmanager
def serve_history() -> Iterator[HistoryService]:
    """Serve the hand-built history on a free loopback port until the block ends."""
    service = HistoryService()
    with serve_json(service.answer, name="history-service") as base_url:
        service.base_url = base_url
        yield service
