"""The quality gate's verdict for the assistant: what `python -m dashboard gate` judges, without
waiting, answered as values instead of the gate's printed lines (which quote plan names and
messages in prose for a CI log).

It is the gate's own judging: the plan and the execution as the gate finds them
(`cli.gate.plan_of`, `cli.gate.find_execution`) and its decision (`cli.gate.decide`: the results
through the history store kept only when whole, the company's marks, the plan's stored history,
the rule), which prints nothing. Like the gate, it gives no verdict on a store it cannot read
(the known failures would silently be gone) or on results short of what the execution's summary
counts; what the gate would say as an error is said as a tool error.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import pandas as pd
from mcp.server.mcpserver.exceptions import ToolError

from dashboard.analytics.environment_names import with_environments
from dashboard.analytics.gate import (
    LINE_INCOMPLETE,
    LINE_KNOWN,
    LINE_OUTAGE,
    LINE_OUTAGE_LET_THROUGH,
    LINE_UNRESOLVED,
    GateRules,
    GateVerdict,
)

if TYPE_CHECKING:
    from dashboard.assistant.history import Source
    from dashboard.cli.gate import Decision

STORE_WAIT_S = 10.0
ROW_COLUMNS = {
    "scenario_id": "Scenario",
    "environment": "Environment",
    "level": "Level",
    "label": "Verdict",
    "message": "Message",
    "result_id": "Result",
}
"""The columns of a failure the gate did not let through, and their names in the answer."""


def judge(source: Source, plan: int, execution: int | None, rules: GateRules) -> Decision:
    """The gate's decision on `execution` of `plan` (None: the plan's newest); a `ToolError`
    with a sentence when there is none (no such plan or execution, still running, results
    incomplete, the service or the store unreadable)."""
    from api_client import ApiError
    from dashboard.cli import gate
    from dashboard.cli.common import CliError, client_for, service_problem, store_problem
    from dashboard.data.store.errors import StoreError

    connection = source.connection
    try:
        with client_for(connection) as client:
            plans = gate.plan_of(client, plan)
            found = gate.find_execution(client, plan, execution)
            if found is None:
                what = f"execution {execution}" if execution else "an execution"
                raise ToolError(f"Plan {plan} has no {what} the service lists.")
            if not bool(found.row["finished"]):
                raise ToolError(
                    f"Execution {int(found.row['execution_id'])} is still running: no verdict yet."
                )
            return gate.decide(
                client,
                connection,
                found,
                plans,
                rules,
                plan_id=plan,
                secrets=source.secrets,
                env=source.env,
                now=datetime.now(UTC),
                store_wait=STORE_WAIT_S,
            )
    except CliError as error:
        raise ToolError(_sentence(str(error))) from None
    except ApiError as error:
        raise ToolError(service_problem(error, connection)) from None
    except StoreError as error:
        raise ToolError(
            "The history store cannot be read, so neither can the known failures: "
            f"{store_problem(error)} No verdict."
        ) from None


def _sentence(said: str) -> str:
    """The gate's error (a CI log's line, lower case) as a sentence."""
    said = said.strip()
    if not said:
        return "The gate could not decide."
    return said[0].upper() + said[1:] + ("" if said.endswith(".") else ".")


def held(verdict: GateVerdict) -> pd.DataFrame:
    """The failures the gate did not let through (unresolved, in a likely outage, incomplete),
    one row each in scenario order, as values: `ROW_COLUMNS` (the label is the triage verdict
    every page gives the failure)."""
    judged = verdict.verdicts
    if judged is None or judged.empty:
        return pd.DataFrame(columns=list(ROW_COLUMNS.values()))
    kept = judged[~judged["let_through"].astype(bool)]
    kept = with_environments(kept).sort_values(["scenario_id", "result_id"], kind="stable")
    shown = kept.reindex(columns=list(ROW_COLUMNS)).rename(columns=ROW_COLUMNS)
    return shown.reset_index(drop=True)


def fields(judged: Decision) -> dict[str, Any]:
    """The verdict as fields (numbers, booleans and the gate's fixed words; no service text)."""
    verdict = judged.verdict
    split = verdict.split
    counts = verdict.line_counts
    rate = verdict.pass_rate
    return {
        "passed": verdict.passed,
        "exit_code": 0 if verdict.passed else 1,
        "unresolved": counts[LINE_UNRESOLVED],
        "in_likely_outage": counts[LINE_OUTAGE],
        "in_likely_outage_let_through": counts[LINE_OUTAGE_LET_THROUGH],
        "incomplete": counts[LINE_INCOMPLETE],
        "known": counts[LINE_KNOWN],
        "failed": split.failed,
        "verdicts": split.verdicts,
        "passed_results": split.passed,
        "pass_rate_without_known": None if rate is None else round(rate * 100, 2),
        "max_unresolved": judged.rules.max_unresolved,
        "min_pass_rate": None
        if judged.rules.min_pass_rate is None
        else round(judged.rules.min_pass_rate * 100, 2),
    }
