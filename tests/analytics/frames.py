"""Hand-built input frames for the analytics tests, in the shapes the loaders produce.

`execution(...)` and `result(...)` make one row each with readable defaults; `executions(...)`
and `results(...)` turn rows into frames with the contract's dtypes.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from dashboard.analytics.outages import OUTAGE_COLUMNS
from dashboard.columns.schemas import EXECUTION_COLUMNS, RESULT_HISTORY_COLUMNS
from dashboard.columns.shapes import sorted_frame, typed_rows


def ts(text: str) -> pd.Timestamp:
    """A UTC instant from "2025-03-31 08:00"."""
    return pd.Timestamp(text, tz="UTC")


def execution(
    execution_id: int,
    plan_id: int | None,
    start: str,
    kind: str = "pass",
    *,
    runtime_ms: int | None = 60_000,
    results: int = 10,
    failed: int | None = None,
    plan: str | None = None,
) -> dict[str, Any]:
    """One execution row. kind: "pass" (all SUCCESS), "fail" (some FAILURE), "running"
    (results still WAITING, no end), "running-fail" (a failure seen, still running),
    "none" (finished, every result in an unknown status), "warn" (finished, warnings only)."""
    begin = ts(start)
    finished = kind not in ("running", "running-fail")
    n_failed = failed if failed is not None else (2 if "fail" in kind else 0)
    if kind == "pass":
        verdicts, passed, status = results, results, "SUCCESS"
    elif kind == "fail":
        verdicts, passed, status = results, results - n_failed, "FAILURE"
    elif kind == "running":
        verdicts, passed, status = 3, 3, "WAITING"
    elif kind == "running-fail":
        verdicts, passed, status = 3, 3 - n_failed, "WAITING"
    elif kind == "none":
        verdicts, passed, status = 0, 0, "SUCCESS"
    elif kind == "warn":
        verdicts, passed, status = results, 0, "WARNING"
    else:
        raise ValueError(kind)
    return {
        "execution_id": execution_id,
        "start": begin,
        "end": begin + pd.Timedelta(milliseconds=runtime_ms or 0) if finished else pd.NaT,
        "plan_id": plan_id,
        "plan": plan if plan is not None else (f"Plan {plan_id}" if plan_id else None),
        "project_id": 1,
        "project": "Shop",
        "user": "qa",
        "runtime_ms": runtime_ms if finished else None,
        "results": results,
        "verdicts": verdicts,
        "passed": passed,
        "failed": n_failed,
        "pass_rate": passed / verdicts if verdicts else float("nan"),
        "status": status,
        "finished": finished,
    }


def executions(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """The executions frame of `rows`, newest first, as the loaders order it."""
    frame = typed_rows(rows, EXECUTION_COLUMNS)
    return sorted_frame(frame, ["start", "execution_id"], ascending=False)


DESKTOP = {"os": "macOS", "browser": "SAFARI", "browser_version": "17", "device": "safari"}
CHROME = {"os": "Windows 11", "browser": "CHROME", "browser_version": "134", "device": "chrome"}
FIREFOX = {"os": "Linux", "browser": "FIREFOX", "browser_version": "128", "device": "firefox"}
IPHONE = {"os": "iOS", "browser": None, "browser_version": None, "device": "IPHONE 8"}

CHROME_130 = {"os": "Windows 10", "browser": "CHROME", "browser_version": "130", "device": "chrome"}
CHROME_131 = {**CHROME_130, "browser_version": "131"}

_next_result_id = [1000]


def result(
    execution_id: int,
    scenario_id: int,
    level: str,
    env: dict[str, Any] | None = None,
    *,
    plan_id: int = 1,
    start: str | pd.Timestamp = "2025-03-31 08:00",
    runtime_s: int | None = 30,
    message: str | None = None,
    result_id: int | None = None,
    mobile: bool | None = None,
) -> dict[str, Any]:
    """One result row of the results-history frame."""
    env = env if env is not None else CHROME
    if result_id is None:
        _next_result_id[0] += 1
        result_id = _next_result_id[0]
    return {
        "result_id": result_id,
        "execution_id": execution_id,
        "plan_id": plan_id,
        "project_id": 1,
        "scenario_id": scenario_id,
        "level": level,
        "runtime_s": runtime_s,
        "start": ts(start) if isinstance(start, str) else start,
        "environment_id": 7,
        **env,
        "mobile": mobile if mobile is not None else env is IPHONE,
        "resolution": "1920x1080",
        "message": message,
        "node_log": f"https://logs.example/{result_id}/node.log",
        "executor_log": None,
    }


def results(rows: list[dict[str, Any]]) -> pd.DataFrame:
    return typed_rows(rows, RESULT_HISTORY_COLUMNS)


def outage_night() -> pd.DataFrame:
    """Plan 1: #1 and #2 pass 9 of 10, #3 (the grid down) fails 10 of 10, #4 fails 2 of 10;
    plan 2's #5 passes. Runtimes 60 s, but the outage's 5 s."""
    return executions(
        [
            execution(1, 1, "2026-11-20 08:00", "fail", failed=1),
            execution(2, 1, "2026-11-21 08:00", "fail", failed=1),
            execution(3, 1, "2026-11-22 08:00", "fail", failed=10, runtime_ms=5_000),
            execution(4, 1, "2026-11-23 08:00", "fail", failed=2),
            execution(5, 2, "2026-11-23 09:00", "pass"),
        ]
    )


def found_outages(*ids_states: tuple[int, str]) -> pd.DataFrame:
    """Outages as `analytics.outages` finds them (OUTAGE_COLUMNS): plan 7's executions `ids`,
    each in its state, 38 of 40 failed, with a dominant failure group holding HTML."""
    rows = [
        {
            "execution_id": ident,
            "plan_id": 7,
            "plan": "Checkout",
            "start": ts("2026-11-24 02:00"),
            "verdicts": 40,
            "failed": 38,
            "failed_share": 0.95,
            "state": state,
            "signature": 'UnreachableBrowser: node {n} <b>"down"</b>',
            "signature_failures": 30,
        }
        for ident, state in ids_states
    ]
    return typed_rows(rows, OUTAGE_COLUMNS)


UPGRADE_BEFORE, UPGRADE_AFTER = 1, 2


def upgrade_night() -> pd.DataFrame:
    """Plan 1's 5 scenarios on CHROME / Windows 10 and FIREFOX / Linux, in execution 1 (Chrome
    130, every result passed) and execution 2 the next night (Chrome 131): scenarios 1 and 2
    fail on Chrome 131, scenario 3 on Firefox 128 (no upgrade there), the rest pass. Known
    answers: 3 new failures, 2 of them started with the browser upgrade, 7 still passing, no
    cell missing on either side."""
    failing = {(1, "CHROME"), (2, "CHROME"), (3, "FIREFOX")}
    rows = []
    for execution_id, chrome, start in (
        (UPGRADE_BEFORE, CHROME_130, "2026-11-23 02:00"),
        (UPGRADE_AFTER, CHROME_131, "2026-11-24 02:00"),
    ):
        for scenario in range(1, 6):
            for env in (chrome, FIREFOX):
                failed = execution_id == UPGRADE_AFTER and (scenario, env["browser"]) in failing
                rows.append(
                    result(
                        execution_id,
                        scenario,
                        "FAILURE" if failed else "SUCCESS",
                        env,
                        start=start,
                        message="expected 3 rows, got 2" if failed else None,
                    )
                )
    return results(rows)
