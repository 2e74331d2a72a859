"""Hand-built worlds for the failure verdicts (`analytics.triage`), with known answers.

A world is one plan's daily executions, each scenario's outcome on each environment written
as a sequence ("PPPPPPPPPF": pass nine days, fail the tenth), and the executions' summaries
counted from those results (so nothing is short unless a test says so). `WORLD` is the one
most tests read:

    scenario  CHROME / Windows 11       SAFARI / macOS      its verdicts
    1         PPPPPPPPPF                PPPPPPPPPP          new (day 10)
    2         FFFFFFFFFF                FFFFFFFFFF          broken
    3         PFPFPFPFPF                PPPPPPPPPP          flaky (on CHROME)
    4         PPPPPPPPPP                FFFFFFFFFF          environment-specific (on SAFARI)
    5         FFFFFFFFFP                FFFFFFFFFP          recovering (`states` says broken)
    6         FFFFFFFFFF                PPPPPPPPPP          environment-specific (on CHROME)
    7         PPPPPPPFFF                PPPPPPPPPP          new (day 8), unresolved (days 9, 10)

Executions 1 to 10 run at 08:00 on 10 to 19 Nov 2026; execution 11, the night of 15 Nov at
02:00, is the grid going down: every result fails with "grid down" but scenario 4's on
CHROME (13 of 14, 93 %).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from dashboard.columns import marks as columns
from dashboard.columns.marks import MARK_COLUMNS
from dashboard.columns.shapes import typed_rows
from tests.analytics.frames import CHROME, DESKTOP, execution, executions, result, results, ts

NOW = ts("2026-11-20 10:00")
SAFARI = DESKTOP
ENVS: dict[str, dict[str, Any]] = {"chrome": CHROME, "safari": SAFARI}
CHROME_LABEL = "CHROME / Windows 11"
SAFARI_LABEL = "SAFARI / macOS"
OUTAGE_ID = 11
OUTAGE_START = "2026-11-15 02:00"

WORLD: dict[int, dict[str, str]] = {
    1: {"chrome": "PPPPPPPPPF", "safari": "PPPPPPPPPP"},
    2: {"chrome": "FFFFFFFFFF", "safari": "FFFFFFFFFF"},
    3: {"chrome": "PFPFPFPFPF", "safari": "PPPPPPPPPP"},
    4: {"chrome": "PPPPPPPPPP", "safari": "FFFFFFFFFF"},
    5: {"chrome": "FFFFFFFFFP", "safari": "FFFFFFFFFP"},
    6: {"chrome": "FFFFFFFFFF", "safari": "PPPPPPPPPP"},
    7: {"chrome": "PPPPPPPFFF", "safari": "PPPPPPPPPP"},
}

_LEVEL = {"P": "SUCCESS", "F": "FAILURE", "E": "ERROR", "W": "WARNING", "?": "BLOCKED"}


def day(position: int) -> str:
    """The start of the world's execution at `position` (0: 10 Nov 08:00)."""
    return f"2026-11-{10 + position:02d} 08:00"


def result_id(execution_id: int, scenario_id: int, env: str) -> int:
    """A readable id: execution 3, scenario 7, safari -> 30712."""
    return execution_id * 10_000 + scenario_id * 100 + (2 if env == "safari" else 1)


def world_results(
    world: Mapping[int, Mapping[str, str]],
    *,
    plan_id: int = 1,
    first_id: int = 1,
    outage: bool = True,
    envs: Mapping[str, dict[str, Any]] = ENVS,
) -> list[dict[str, Any]]:
    """The result rows of `world`: execution `first_id + i` on day i, a "." where a scenario
    did not run there; with `outage`, execution 11's failing night."""
    rows = []
    for scenario_id, per_env in world.items():
        for env, sequence in per_env.items():
            for position, char in enumerate(sequence):
                if char == ".":
                    continue
                execution_id = first_id + position
                rows.append(
                    result(
                        execution_id,
                        scenario_id,
                        _LEVEL[char],
                        envs[env],
                        plan_id=plan_id,
                        start=day(position),
                        message=f"AssertionError: scenario {scenario_id}" if char in "FE" else None,
                        result_id=result_id(execution_id, scenario_id, env),
                    )
                )
            if outage:
                spared = scenario_id == 4 and env == "chrome"
                rows.append(
                    result(
                        OUTAGE_ID,
                        scenario_id,
                        "SUCCESS" if spared else "FAILURE",
                        envs[env],
                        plan_id=plan_id,
                        start=OUTAGE_START,
                        message=None if spared else "UnreachableBrowser: grid down",
                        result_id=result_id(OUTAGE_ID, scenario_id, env),
                    )
                )
    return rows


def summaries(
    rows: Sequence[Mapping[str, Any]],
    *,
    starts: Mapping[int, str] | None = None,
    running: Sequence[int] = (),
    extra_failed: Mapping[int, int] | None = None,
    plan_id: int = 1,
) -> pd.DataFrame:
    """The executions of `rows`, their summaries counted from them (`extra_failed` adds
    failures the results do not hold); `running` ones have no end."""
    frame = results(list(rows))
    out = []
    for execution_id, own in frame.groupby("execution_id"):
        ident = int(execution_id)
        levels = own["level"].str.upper()
        failed = int(levels.isin(["FAILURE", "ERROR"]).sum())
        failed += (extra_failed or {}).get(ident, 0)
        start = (starts or {}).get(ident) or (
            OUTAGE_START if ident == OUTAGE_ID else day(ident - 1)
        )
        kind = "running-fail" if ident in running else "fail"
        row = execution(ident, plan_id, start, kind, results=len(own), failed=failed)
        verdicts = int(levels.isin(["SUCCESS", "FAILURE", "ERROR", "WARNING"]).sum())
        passed = int((levels == "SUCCESS").sum())
        row.update(
            verdicts=verdicts,
            passed=passed,
            pass_rate=passed / verdicts if verdicts else float("nan"),
        )
        if failed == 0:
            row.update(status="SUCCESS")
        out.append(row)
    return executions(out)


def mark(mark_id: str, target: str, **fields: Any) -> dict[str, Any]:
    """One mark row: a known issue with a ticket named after it, made by ann on 1 Nov."""
    return {
        "mark_id": mark_id,
        "company_id": 1,
        "target": target,
        "kind": columns.KNOWN_ISSUE,
        "ticket": f"https://jira.example.com/browse/{mark_id.upper()}",
        "owner": "ann",
        "created_by": "ann",
        "created_at": ts("2026-11-01 09:00"),
        "updated_at": ts("2026-11-01 09:00"),
        "revision": 1,
        **fields,
    }


def marks(*rows: dict[str, Any]) -> pd.DataFrame:
    return typed_rows(list(rows), MARK_COLUMNS)


NO_MARKS = marks()


def world(
    scenarios: Mapping[int, Mapping[str, str]] = WORLD, *, outage: bool = True
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(results, executions) of `scenarios`, the outage night included by default."""
    rows = world_results(scenarios, outage=outage)
    return results(rows), summaries(rows)
