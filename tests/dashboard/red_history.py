"""A hand-built history on loopback for how long plans stay red and what changed when they
turned red, with answers worked out by hand. Times are hours before the wall clock's hour
("now"), so the 90-day lookback, the standup and the 7-day counts hold them.

- Plan 21 "Checkout nightly": four closed red stretches in 90 days: 48 h (ended 60 days ago)
  and 14 h (ended 36.5 days ago) before the last 30 days, 4 h and 6 h within them. Time to
  green: 5 h over 30 days (2 stretches), 10 h over 90 days (4), 31 h in the 60 days before the
  last 30: a trend of -84 % (faster). Then it TURNED RED: its green execution `GREEN` (26 h ago,
  started by alice, Firefox 128) beside its red one `RED` (2 h ago, started by bob, Firefox
  129); carol changed the plan's settings between them (25 h ago). Scenario 1 passed on
  FIREFOX 128 and fails on FIREFOX 129: "started failing with FIREFOX 129; was 128".
- Plan 22 "Mobile smoke": never green: failed 100, 50 and 10 hours ago. Red for at least 100 h;
  no time to green.
- Plan 23 "API contract": red 150 h ago, green again 140 h ago (10 h).

Turned red in the last 7 days: 2 (plans 21 and 23; plan 22's start is older than its history,
not a turn); back to green: 1 (plan 23). Failures carry two messages that differ in numbers:
the assertion one (plans 21 and 23) and the timeout one (plan 22, first seen in its oldest
execution: its age is "at least").
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.client import samples
from tests.loopback_service import executions_page, serve_json, stamp

PROJECT_ID = 3
CHECKOUT, MOBILE, API = 21, 22, 23
PLANS = {CHECKOUT: "Checkout nightly", MOBILE: "Mobile smoke", API: "API contract"}
SCENARIOS = (1, 2)
EDITED_HOURS_AGO = 25
GREEN, RED = 2180, 2190  # plan 21's last green execution and its first red one

CHROME = {**samples.ENVIRONMENT, "id": 31, "name": "Chrome", "environment_version": "134"}
FIREFOX_128 = {
    **samples.ENVIRONMENT,
    "id": 32,
    "name": "Firefox",
    "operating_system": "LINUX",
    "operating_system_clean_name": "Linux",
    "browser_type": "FIREFOX",
    "environment_type": "firefox",
    "environment_version": "128",
}
FIREFOX_129 = {**FIREFOX_128, "id": 33, "environment_version": "129"}

ASSERTION = "AssertionError: expected {n} rows but found {m}"
TIMEOUT = "TimeoutException: page not loaded after {n} s"


@dataclass(frozen=True)
class Run:
    """One execution: how many hours before now it started, whether it failed, by whom, and on
    which Firefox."""

    id: int
    plan_id: int
    hours_ago: int
    failed: bool = False
    user: str = "ci"
    firefox: dict[str, Any] = field(default_factory=lambda: FIREFOX_128)


RUNS: tuple[Run, ...] = (
    # Plan 21: stretches of 48 h, 14 h, 4 h and 6 h, then the turn.
    Run(2101, CHECKOUT, 1500),
    Run(2102, CHECKOUT, 1488, failed=True),
    Run(2103, CHECKOUT, 1440),
    Run(2110, CHECKOUT, 1000),
    Run(2111, CHECKOUT, 890, failed=True),
    Run(2112, CHECKOUT, 880, failed=True),
    Run(2113, CHECKOUT, 876),
    Run(2120, CHECKOUT, 600),
    Run(2121, CHECKOUT, 500, failed=True),
    Run(2122, CHECKOUT, 496),
    Run(2130, CHECKOUT, 300),
    Run(2131, CHECKOUT, 200, failed=True),
    Run(2132, CHECKOUT, 194),
    Run(GREEN, CHECKOUT, 26, user="alice"),
    Run(RED, CHECKOUT, 2, failed=True, user="bob", firefox=FIREFOX_129),
    # Plan 22: never green.
    Run(2201, MOBILE, 100, failed=True),
    Run(2202, MOBILE, 50, failed=True),
    Run(2203, MOBILE, 10, failed=True),
    # Plan 23: 10 h red, this week.
    Run(2301, API, 160),
    Run(2302, API, 150, failed=True),
    Run(2303, API, 140),
)
STRETCH_HOURS = {2102: 48, 2111: 14, 2121: 4, 2131: 6, 2302: 10}


def failing_cells(run: Run) -> set[tuple[int, int]]:
    """(scenario, environment id) cells that fail in `run`."""
    if not run.failed:
        return set()
    if run.id == RED:
        return {(1, FIREFOX_129["id"])}  # the version move
    if run.plan_id == MOBILE:
        return {(1, CHROME["id"]), (2, CHROME["id"])}
    return {(2, CHROME["id"])}


def environments(run: Run) -> list[dict[str, Any]]:
    return [CHROME] if run.plan_id == MOBILE else [CHROME, run.firefox]


@dataclass
class RedHistory:
    base_url: str = ""
    now: datetime = field(
        default_factory=lambda: datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    )

    def start(self, run: Run) -> datetime:
        return self.now - timedelta(hours=run.hours_ago)

    def plan(self, plan_id: int) -> dict[str, Any]:
        edited = self.now - timedelta(hours=EDITED_HOURS_AGO)
        return samples.with_changes(
            samples.TEST_PLAN,
            id=plan_id,
            plan_name=PLANS[plan_id],
            project_id=PROJECT_ID,
            project_name="Store",
            scenarios=list(SCENARIOS),
            updated_at=stamp(edited) if plan_id == CHECKOUT else "2020-01-01T00:00:00Z",
            updated_by="carol" if plan_id == CHECKOUT else "grace",
        )

    def results(self, run: Run, scenario: int) -> list[dict[str, Any]]:
        out = []
        for env in environments(run):
            failed = (scenario, env["id"]) in failing_cells(run)
            number = run.hours_ago % 7 + 2
            message = None
            if failed:
                template = TIMEOUT if run.plan_id == MOBILE else ASSERTION
                message = template.format(n=number * 10 if run.plan_id == MOBILE else number, m=1)
            result_id = run.id * 100 + scenario * 10 + int(env["id"]) % 10
            out.append(
                samples.with_changes(
                    samples.TEST_RESULT,
                    id=result_id,
                    level="FAILURE" if failed else "SUCCESS",
                    message=message,
                    environment=env,
                    scenario_id=scenario,
                    execution_id=run.id,
                    plan_id=run.plan_id,
                    project_id=PROJECT_ID,
                    start_date=stamp(self.start(run) + timedelta(minutes=5)),
                    node_log_path=f"https://logs.example.test/{result_id}/node.log",
                )
            )
        return out

    def execution(self, run: Run) -> dict[str, Any]:
        summary: dict[str, int] = {}
        ids = []
        for scenario in SCENARIOS:
            for result in self.results(run, scenario):
                summary[result["level"]] = summary.get(result["level"], 0) + 1
                ids.append(result["id"])
        begin = self.start(run)
        return samples.execution(
            run.id,
            plan_id=run.plan_id,
            plan_name=PLANS[run.plan_id],
            project_id=PROJECT_ID,
            project_name="Store",
            username=run.user,
            result_summary=summary,
            test_results=ids,
            test_result_status_counts="["
            + ", ".join(f"{k}, {v}" for k, v in summary.items())
            + "]",
            start_date=stamp(begin),
            end_date=stamp(begin + timedelta(minutes=10)),
            runtime=600_000,
        )

    def answer(self, target: str) -> tuple[int, Any]:
        parts = urlsplit(target)
        query = {key: values[0] for key, values in parse_qs(parts.query).items()}
        if parts.path == "/api/plans/lazy":
            return 200, [self.plan(plan_id) for plan_id in PLANS]
        if parts.path == "/api/executions/filter":
            return 200, self._executions(query)
        prefix = "/api/results/execution/"
        if parts.path.startswith(prefix):
            execution_id, _, scenario = parts.path.removeprefix(prefix).partition("/scenario/")
            run = next((r for r in RUNS if str(r.id) == execution_id), None)
            if run is None or not scenario.isdigit():
                return 404, {"error": "NOT_FOUND"}
            return 200, self.results(run, int(scenario))
        return 404, {"error": "NOT_FOUND"}

    def _executions(self, query: dict[str, str]) -> dict[str, Any]:
        return executions_page(
            RUNS,
            query,
            start=self.start,
            plan_id=lambda run: run.plan_id,
            project_id=PROJECT_ID,
            record=self.execution,
        )


assert len({run.id for run in RUNS}) == len(RUNS), "execution ids are unique"


@contextmanager
def serve_red_history() -> Iterator[RedHistory]:
    """Serve the history on a free loopback port until the block ends."""
    service = RedHistory()
    with serve_json(service.answer, name="red-history") as base_url:
        service.base_url = base_url
        yield service
