"""The quality gate's verdict for the assistant: what `python -m dashboard gate` judges, without
waiting, answered as values instead of the gate's printed lines (which quote plan names and
messages in prose for a CI log).

It is the gate's own judging, put together from its public pieces: the plan and the execution
as the gate finds them (`cli.gate.plan_of`, `cli.gate.find_execution`), the results through the
history store kept only when whole (`analytics.gate.missing_evidence`, the one completeness
rule), the company's marks and the plan's stored history of `cli.gate.HISTORY_DAYS` days (the
failures' triage labels), and the rule (`analytics.gate.gate_verdict`). Like the gate, it gives
no verdict on a store it cannot read (the known failures would silently be gone) or on results
short of what the execution's summary counts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
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
    gate_verdict,
    missing_evidence,
)

if TYPE_CHECKING:
    from dashboard.assistant.history import Source
    from dashboard.data.connection import Connection
    from dashboard.data.fanout_answer import FanOut
    from dashboard.data.store import HistoryStore

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


@dataclass(frozen=True)
class Judged:
    """The verdict on one finished execution of a plan, and what it was judged from."""

    execution_id: int
    plan_id: int
    start: pd.Timestamp | None
    rules: GateRules
    verdict: GateVerdict


def judge(source: Source, plan: int, execution: int | None, rules: GateRules) -> Judged:
    """The gate's verdict on `execution` of `plan` (None: the plan's newest); a `ToolError`
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
            row = found.row
            execution_id = int(row["execution_id"])
            if not bool(row["finished"]):
                raise ToolError(f"Execution {execution_id} is still running: no verdict yet.")
            results, marks, history = _read(client, source, found, plans)
    except CliError as error:
        raise ToolError(str(error)) from None
    except ApiError as error:
        raise ToolError(service_problem(error, connection)) from None
    except StoreError as error:
        raise ToolError(
            "The history store cannot be read, so neither can the known failures: "
            f"{store_problem(error)} No verdict."
        ) from None
    verdict = gate_verdict(
        passed=int(row["passed"]),
        verdicts=int(row["verdicts"]),
        results=results,
        marks=marks,
        now=datetime.now(UTC),
        rules=rules,
        executions=pd.DataFrame([row]),
        history=history,
    )
    start = row["start"]
    return Judged(execution_id, plan, None if pd.isna(start) else start, rules, verdict)


def _read(
    client: Any, source: Source, found: Any, plans: pd.DataFrame
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame | None]:
    """The execution's results (whole, or a `ToolError`), the company's marks and the plan's
    stored history before it, as the gate reads them."""
    from dashboard.data import results_fanout
    from dashboard.data.pairs import result_pairs

    connection = source.connection
    row = found.row
    execution_id = int(row["execution_id"])
    pairs, finished = result_pairs(pd.DataFrame([row]), plans, [execution_id])

    def lacks(results: pd.DataFrame) -> str | None:
        return missing_evidence(
            failed=int(row["failed"]),
            results=int(row["results"]),
            result_ids=found.result_ids,
            fetched=results,
        )

    with _store(connection, source.secrets, source.env) as store:
        # Kept only when whole: an answer short of the summary is fetched again next time.
        fanout = results_fanout.fetch_results(
            client,
            pairs,
            finished=finished,
            store=store,
            reader=connection.fingerprint,
            complete=lambda _execution, results: lacks(results) is None,
        )
        if fanout.store_error is not None:
            raise fanout.store_error
        marks = store.marks(connection.company_id)
        history = _stored_history(store, row)
    _fetched_all(fanout, execution_id, connection)
    results = fanout.results
    gap = lacks(results)
    if gap is not None and fanout.counts.from_store:
        # Stored before by a fan-out with no summary to check against: judged on what the
        # service says now, and nothing of it kept.
        fanout = results_fanout.fetch_results(client, pairs, finished=())
        _fetched_all(fanout, execution_id, connection)
        results = fanout.results
        gap = lacks(results)
    if gap is not None:
        raise ToolError(
            f"Results incomplete: {gap} (execution {execution_id}): no verdict; the service "
            "may still be writing them, ask again later."
        )
    return results, marks, history


def _store(
    connection: Connection, secrets: Mapping[str, Any], env: Mapping[str, str]
) -> HistoryStore:
    """The connection's history store, as the gate opens it: a DuckDB file that is there but
    cannot be read is an error (`StoreError`), never set aside for an empty store."""
    from dashboard.cli.common import open_store
    from dashboard.data.store import HistoryStore, identity_of
    from dashboard.data.store.location import store_path, store_url

    if store_url(secrets=secrets, env=env) is None:
        path = store_path(connection, secrets=secrets, env=env)
        if path.exists():
            return HistoryStore.open(path, identity=identity_of(connection), wait=STORE_WAIT_S)
    return open_store(connection, secrets, env, wait=STORE_WAIT_S)


def _stored_history(store: HistoryStore, row: pd.Series) -> pd.DataFrame | None:
    """The plan's results the store holds from `HISTORY_DAYS` before the execution up to it,
    its own left out (no request): what its failures' triage labels read back from."""
    from dashboard.cli.gate import HISTORY_DAYS

    start = row["start"]
    if pd.isna(start) or pd.isna(row["plan_id"]):
        return None
    results = store.results_in_window(
        date_from=(start - pd.Timedelta(days=HISTORY_DAYS)).to_pydatetime(),
        date_to=start.to_pydatetime(),
        plan_id=int(row["plan_id"]),
    )
    results = results[results["execution_id"] != int(row["execution_id"])]
    return None if results.empty else results


def _fetched_all(fanout: FanOut, execution_id: int, connection: Connection) -> None:
    from dashboard.cli.common import service_problem

    if fanout.failures:
        first = fanout.failures[0]
        raise ToolError(
            f"The results of {len(fanout.failures)} scenario(s) of execution {execution_id} "
            f"could not be fetched (scenario {first.scenario_id}: "
            f"{service_problem(first.error, connection)}); no verdict."
        )


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


def fields(judged: Judged) -> dict[str, Any]:
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
