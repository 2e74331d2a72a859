"""A hand-built history on loopback: five plans, each one standup case, with known answers.

The demo's planted cases come from the sandbox; this history comes from nowhere but this file,
so the standup page is seen to find cases in data it was not built around. It answers the three
read operations over real HTTP (plans, executions filtered by start, plan and project and paged,
results per execution and scenario). Any token is accepted.

The standup window the tests open is the custom range Tue 3 - Wed 4 March 2026 (UTC):

- Plan 101 "Login smoke" TURNED RED: passed 2 and 3 March, failed 4 March 10:00 (execution
  1003): scenario 1 passed on Chrome in 1002 and fails there in 1003. Newly failing: exactly
  that cell.
- Plan 102 "Payments nightly" FIXED: passed 20 Feb, failed 1 March, passed 4 March 11:00 (1013).
- Plan 103 "Search regression" STILL FAILING: passed 20 Feb, failed 25 Feb 06:00, 1 March and
  3 March 06:00 (1023): red since Wed 25 Feb 06:00, 3 executions.
- Plan 104 "Reports export" SLOWER: three 60 s runs in the 14 days before the window, three
  120 s runs in it: +100 %, all green.
- Plan 105 "Profile steady" steady green, its newest execution (4 March 15:00) still running.

`serve_history(copies=5)` serves five copies of it (plans 101-105, 111-115, ... named "Login
smoke", "Login smoke 2", ...; execution ids 100 apart): five items in every section, what the
standup page must fit on one screen.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.client import samples
from tests.loopback_service import executions_page, serve_json, stamp

PROJECT_ID = 2
PROJECT = "Web shop"
SCENARIOS = (1, 2)
CHROME = {**samples.ENVIRONMENT, "id": 21, "name": "Chrome", "environment_version": "134"}
FIREFOX = {
    **samples.ENVIRONMENT,
    "id": 22,
    "name": "Firefox",
    "browser_type": "FIREFOX",
    "environment_type": "firefox",
    "environment_version": "140",
}

WINDOW_FROM = "2026-03-03"
WINDOW_TO = "2026-03-04"
VIEW = {"range": "custom", "from": WINDOW_FROM, "to": WINDOW_TO, "tz": "UTC"}
"""The standup page's query for that window."""

PLANS: dict[int, str] = {
    101: "Login smoke",
    102: "Payments nightly",
    103: "Search regression",
    104: "Reports export",
    105: "Profile steady",
}
TURNED_RED, FIXED, STILL_FAILING, SLOWER, STEADY = 101, 102, 103, 104, 105
TURNED_RED_EXECUTION, TURNED_RED_BEFORE = 1003, 1002
FIXED_EXECUTION = 1013
STILL_FAILING_EXECUTION = 1023
RUNNING_EXECUTION = 1052


@dataclass(frozen=True)
class Run:
    """One execution: when, how long, and which (scenario, environment) cells fail."""

    id: int
    plan_id: int
    start: datetime
    runtime_s: int = 60
    failing: frozenset[tuple[int, int]] = frozenset()
    running: bool = False


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def _fails(*cells: tuple[int, int]) -> frozenset[tuple[int, int]]:
    return frozenset(cells)


RUNS: tuple[Run, ...] = (
    Run(1001, TURNED_RED, _at("2026-03-02 10:00")),
    Run(1002, TURNED_RED, _at("2026-03-03 10:00")),
    Run(1003, TURNED_RED, _at("2026-03-04 10:00"), failing=_fails((1, CHROME["id"]))),
    Run(1011, FIXED, _at("2026-02-20 11:00")),
    Run(1012, FIXED, _at("2026-03-01 11:00"), failing=_fails((2, FIREFOX["id"]))),
    Run(1013, FIXED, _at("2026-03-04 11:00")),
    Run(1020, STILL_FAILING, _at("2026-02-20 06:00")),
    Run(1021, STILL_FAILING, _at("2026-02-25 06:00"), failing=_fails((2, CHROME["id"]))),
    Run(1022, STILL_FAILING, _at("2026-03-01 06:00"), failing=_fails((2, CHROME["id"]))),
    Run(1023, STILL_FAILING, _at("2026-03-03 06:00"), failing=_fails((2, CHROME["id"]))),
    Run(1031, SLOWER, _at("2026-02-20 08:00"), runtime_s=60),
    Run(1032, SLOWER, _at("2026-02-22 08:00"), runtime_s=60),
    Run(1033, SLOWER, _at("2026-02-24 08:00"), runtime_s=60),
    Run(1040, SLOWER, _at("2026-03-03 08:00"), runtime_s=120),
    Run(1041, SLOWER, _at("2026-03-03 12:00"), runtime_s=120),
    Run(1042, SLOWER, _at("2026-03-04 08:00"), runtime_s=120),
    Run(1050, STEADY, _at("2026-03-02 15:00")),
    Run(1051, STEADY, _at("2026-03-03 15:00")),
    Run(RUNNING_EXECUTION, STEADY, _at("2026-03-04 15:00"), running=True),
)


def _level(run: Run, scenario: int, environment: int) -> str:
    if run.running:
        return "WAITING"
    return "FAILURE" if (scenario, environment) in run.failing else "SUCCESS"


def _result_id(run: Run, scenario: int, environment: int) -> int:
    return run.id * 1000 + scenario * 100 + environment


def _cells() -> list[tuple[int, dict[str, Any]]]:
    return [(scenario, env) for scenario in SCENARIOS for env in (CHROME, FIREFOX)]


def copied(copies: int) -> tuple[dict[int, str], tuple[Run, ...]]:
    """The plans and runs of `copies` copies of the history (the first is `PLANS`, `RUNS`)."""
    plans: dict[int, str] = {}
    runs: list[Run] = []
    for k in range(copies):
        suffix = f" {k + 1}" if k else ""
        plans.update({plan_id + 10 * k: name + suffix for plan_id, name in PLANS.items()})
        runs += [
            dataclasses.replace(run, id=run.id + 100 * k, plan_id=run.plan_id + 10 * k)
            for run in RUNS
        ]
    return plans, tuple(runs)


def plan(plan_id: int, name: str) -> dict[str, Any]:
    return samples.with_changes(
        samples.TEST_PLAN,
        id=plan_id,
        plan_name=name,
        project_id=PROJECT_ID,
        project_name=PROJECT,
        scenarios=list(SCENARIOS),
    )


def execution(run: Run, plan_name: str) -> dict[str, Any]:
    levels = [_level(run, scenario, env["id"]) for scenario, env in _cells()]
    summary: dict[str, int] = {}
    for level in levels:
        summary[level] = summary.get(level, 0) + 1
    return samples.execution(
        run.id,
        plan_id=run.plan_id,
        plan_name=plan_name,
        project_id=PROJECT_ID,
        project_name=PROJECT,
        result_summary=summary,
        test_results=[_result_id(run, s, env["id"]) for s, env in _cells()],
        test_result_status_counts="[" + ", ".join(f"{k}, {v}" for k, v in summary.items()) + "]",
        start_date=stamp(run.start),
        end_date=None if run.running else stamp(run.start + timedelta(seconds=run.runtime_s)),
        runtime=None if run.running else run.runtime_s * 1000,
    )


def results(run: Run, scenario: int) -> list[dict[str, Any]]:
    return [
        samples.with_changes(
            samples.TEST_RESULT,
            id=_result_id(run, scenario, env["id"]),
            level=_level(run, scenario, env["id"]),
            message="Search box not found" if _level(run, scenario, env["id"]) == "FAILURE" else "",
            environment=env,
            scenario_id=scenario,
            execution_id=run.id,
            plan_id=run.plan_id,
            project_id=PROJECT_ID,
            start_date=stamp(run.start),
        )
        for s, env in _cells()
        if s == scenario
    ]


assert len({run.id for run in RUNS}) == len(RUNS), "execution ids are unique"


@dataclass
class HistoryService:
    base_url: str = ""
    plans: dict[int, str] = field(default_factory=lambda: dict(PLANS))
    runs: tuple[Run, ...] = RUNS
    requests: list[str] = field(default_factory=list)

    def answer(self, target: str) -> tuple[int, Any]:
        self.requests.append(target)
        parts = urlsplit(target)
        query = {key: values[0] for key, values in parse_qs(parts.query).items()}
        if parts.path == "/api/plans/lazy":
            return 200, [plan(plan_id, name) for plan_id, name in self.plans.items()]
        if parts.path == "/api/executions/filter":
            return 200, self._executions(query)
        prefix = "/api/results/execution/"
        if parts.path.startswith(prefix):
            execution_id, _, scenario = parts.path.removeprefix(prefix).partition("/scenario/")
            run = next((r for r in self.runs if str(r.id) == execution_id), None)
            if run is None or not scenario.isdigit():
                return 404, {"error": "NOT_FOUND"}
            return 200, results(run, int(scenario))
        return 404, {"error": "NOT_FOUND"}

    def _executions(self, query: dict[str, str]) -> dict[str, Any]:
        return executions_page(
            self.runs,
            query,
            start=lambda run: run.start,
            plan_id=lambda run: run.plan_id,
            project_id=PROJECT_ID,
            record=lambda run: execution(run, self.plans[run.plan_id]),
        )


def dashboard_env(service: HistoryService) -> dict[str, str]:
    """The QA_DASHBOARD_* settings that point a dashboard (or the CLI) at `service`."""
    return {
        "QA_DASHBOARD_BASE_URL": service.base_url,
        "QA_DASHBOARD_TOKEN": "hand-built-history-token",
        "QA_DASHBOARD_COMPANY_ID": "7",
    }


@contextmanager
def serve_history(
    copies: int = 1, *, names: dict[int, str] | None = None, ending: datetime | None = None
) -> Iterator[HistoryService]:
    """Serve `copies` copies of the hand-built history on a free loopback port until the block
    ends. `names` renames plans (by id); with `ending`, every run is moved by the same amount
    so that the newest starts an hour before it (a digest of "now" then sees the cases)."""
    plans, runs = copied(copies)
    plans.update(names or {})
    if ending is not None:
        shift = ending - timedelta(hours=1) - max(run.start for run in runs)
        runs = tuple(dataclasses.replace(run, start=run.start + shift) for run in runs)
    service = HistoryService(plans=plans, runs=runs)
    with serve_json(service.answer, name="history-service") as base_url:
        service.base_url = base_url
        yield service
