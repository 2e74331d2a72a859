"""The text of a result's demo logs: a few plausible, deterministic lines per file.

The node log is what the browser or device node saw (session, steps, close); the executor log
is what the test runner reported (plan, scenario, environment, verdict and message). Both are
pure functions of the result and the names around it, so a log link always opens the same text.
Nothing about the user who started the run is written, so no token can ever appear in a log.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime

from sandbox.data.outcomes import DerivedResult, Level
from sandbox.data.result_details import NODE_LOG, ResultDetails

FAILED = (Level.FAILURE, Level.ERROR)
STEPS = (
    "open start page",
    "wait for page to load",
    "click primary button",
    "fill form fields",
    "submit form",
    "check confirmation text",
    "take screenshot",
    "scroll to footer",
)


@dataclass(frozen=True)
class LogSubject:
    """A result and the names its logs mention."""

    seed: int
    result: DerivedResult
    details: ResultDetails
    company_id: int
    execution_id: int
    plan_id: int
    plan_name: str
    scenario_name: str
    environment_name: str
    operating_system: str
    browser_type: str
    browser_version: str
    screen_resolution: str
    mobile: bool


def render_log(subject: LogSubject, file_name: str) -> str:
    """The whole text of `file_name` (node.log or testResult.log) for the result."""
    lines = _node_lines(subject) if file_name == NODE_LOG else _executor_lines(subject)
    return "".join(f"{_stamp(at)} {level:<5} [{who}] {text}\n" for at, level, who, text in lines)


Line = tuple[int, str, str, str]


def _stamp(at_ms: int) -> str:
    moment = datetime.fromtimestamp(at_ms / 1000, UTC)
    return f"{moment:%Y-%m-%d %H:%M:%S}.{at_ms % 1000:03d}Z"


def _verdict(subject: LogSubject) -> str:
    result = subject.result
    if result.level is Level.WAITING:
        text = "WAITING, not finished yet"
    else:
        text = f"{result.level.value} after {result.runtime_s} s"
    return f"{text}: {subject.details.message}" if subject.details.message else text


def _node_lines(subject: LogSubject) -> list[Line]:
    rng = random.Random(f"{subject.seed}/log/{subject.result.id}")
    result, session = subject.result, subject.details.session_id
    start, end = result.start_ms, result.start_ms + result.runtime_s * 1000
    kind = "device" if subject.mobile else "browser"
    lines: list[Line] = [
        (
            start,
            "INFO",
            "node",
            f"New session {session}: {kind} {subject.environment_name}"
            f" ({subject.operating_system} {subject.browser_type} {subject.browser_version},"
            f" {subject.screen_resolution})",
        ),
    ]
    if result.level is Level.WAITING:
        lines.append((start, "INFO", "node", subject.details.message or "Session queued"))
        return lines
    steps = rng.sample(STEPS, 3)
    span = max(end - start, 3)
    for index, step in enumerate(steps, start=1):
        lines.append((start + span * index // 4, "INFO", "node", f"Step {index}: {step}"))
    if result.level in FAILED:
        lines.append((end, "ERROR", "node", subject.details.message or result.level.value))
    elif result.level is Level.WARNING:
        lines.append((end, "WARN", "node", subject.details.message))
    lines.append((end, "INFO", "node", f"Session {session} closed ({result.level.value})"))
    return lines


def _executor_lines(subject: LogSubject) -> list[Line]:
    result = subject.result
    start = result.start_ms
    end = start + result.runtime_s * 1000
    level = "ERROR" if result.level in FAILED else "INFO"
    if result.level is Level.WARNING:
        level = "WARN"
    return [
        (
            start,
            "INFO",
            "executor",
            f"Execution {subject.execution_id} of plan '{subject.plan_name}'"
            f" (id {subject.plan_id}), company {subject.company_id}",
        ),
        (
            start,
            "INFO",
            "executor",
            f"Scenario '{subject.scenario_name}' (id {result.scenario_id}) on"
            f" {subject.environment_name}, session {subject.details.session_id}",
        ),
        (end, level, "executor", f"Result {result.id}: {_verdict(subject)}"),
    ]
