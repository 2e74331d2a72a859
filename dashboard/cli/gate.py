"""`python -m dashboard gate --plan ID`: a quality gate for a CI pipeline.

    python -m dashboard gate --plan 42 [--execution latest|ID] [--wait 30m] \\
        [--max-unresolved 0] [--min-pass-rate 95] [--dashboard-url https://qa.example.com/] \\
        [--signed-marks-only] [--require-mark-expiry]

It checks that the plan exists, finds the execution (the plan's newest, or the one named), asks
the service again every `--poll` seconds until it has finished (at most `--wait`), fetches its
results (through the history store: a stored execution costs no request), checks that they hold
every failure and result the execution's summary counts (`analytics.gate.missing_evidence`: it
never judges on less), applies the team's known-failure marks (`analytics.marks`: a known
failure never fails the gate) and judges it by `analytics.gate`'s rule. It prints a short
verdict, the unresolved failures with links to their evidence, and every mark it applied.

What it prints is read by CI systems, which take commands from line starts (`::error::`,
`##vso[`): every line it prints, errors included, passes through `present.formatting.
visible_text` (one line, no control or bidirectional characters).

Exit codes: 0 pass; 1 fail; could not decide: 2 configuration or usage (a bad argument, a plan
that does not exist, an execution that is not the plan's), 3 the service (refused, unreachable,
results that could not all be fetched or that lack what its summary counts, or the execution
still running after `--wait`), 4 the store (it cannot be read: the gate does not judge without
the team's known failures).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, Protocol

import typer

from dashboard.cli.common import (
    SERVICE,
    STORE,
    USAGE,
    Args,
    CliError,
    Parsed,
    client_for,
    open_store,
    parsed,
    read_configuration,
    service_problem,
    store_problem,
)
from dashboard.cli.connections import targets
from dashboard.cli.digest import dashboard_url
from dashboard.cli.options import (
    DEFAULT_SECRETS,
    DEFAULT_WAIT,
    ConnectionName,
    DashboardUrl,
    Secrets,
    duration,
    identifier,
)

if TYPE_CHECKING:
    import pandas as pd

    from api_client import ApiClient
    from dashboard.analytics.gate import GateRules, GateVerdict
    from dashboard.data.connection import Connection
    from dashboard.data.fanout_answer import FanOut
    from dashboard.data.store import HistoryStore

PASS, FAIL = 0, 1
LATEST = "latest"
DEFAULT_GATE_WAIT = "30m"
DEFAULT_POLL = "15s"
PAGE_SIZE = 50


class Clock(Protocol):
    """What the waiting reads and does with time: tests drive one by hand (no real sleeping)."""

    def monotonic(self) -> float: ...

    def sleep(self, seconds: float) -> None: ...

    def now(self) -> datetime: ...


class SystemClock:
    def monotonic(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)

    def now(self) -> datetime:
        return datetime.now(UTC)


def _execution(text: str) -> int | None:
    return None if text.strip().lower() == LATEST else identifier(text.strip())


def _count(text: str | int) -> int:
    text = str(text)
    if not text.isascii() or not text.isdigit():
        raise typer.BadParameter(f"not a whole number of failures: {text!r}")
    return int(text)


def _percent(text: str) -> float:
    try:
        value = float(text.strip().rstrip("%"))
    except ValueError:
        raise typer.BadParameter(f"not a percentage like 95: {text!r}") from None
    if not 0 <= value <= 100:
        raise typer.BadParameter(f"a percentage between 0 and 100, got {value:g}")
    return value / 100


def _poll(text: str | float) -> float:
    value = duration(text)
    if value < 1:
        raise typer.BadParameter("poll at most once a second")
    return value


def gate_command(
    ctx: typer.Context,
    plan: Annotated[int, typer.Option(parser=identifier, metavar="ID", help="the plan")],
    execution: Annotated[
        int | None,
        typer.Option(
            parser=_execution,
            metavar="latest|ID",
            help="the execution to judge: the plan's newest (latest, the default) or its id",
            show_default=False,
        ),
    ] = None,
    wait: Annotated[
        float,
        typer.Option(
            parser=duration,
            metavar="DURATION",
            help="how long to wait for the execution to finish, like 30m, 90s; 0 judges only "
            "a finished one",
        ),
    ] = DEFAULT_GATE_WAIT,  # type: ignore[assignment]  # written as shown; the parser reads it
    poll: Annotated[
        float,
        typer.Option(
            parser=_poll,
            metavar="DURATION",
            help="how often to ask the service while it runs",
        ),
    ] = DEFAULT_POLL,  # type: ignore[assignment]  # written as shown; the parser reads it
    max_unresolved: Annotated[
        int,
        typer.Option(
            parser=_count,
            metavar="N",
            help="unresolved failures allowed; known failures are not counted",
        ),
    ] = 0,
    min_pass_rate: Annotated[
        float | None,
        typer.Option(
            parser=_percent,
            metavar="PERCENT",
            help="the least pass rate, known failures left out (default: not checked)",
            show_default=False,
        ),
    ] = None,
    signed_marks_only: Annotated[
        bool,
        typer.Option(
            "--signed-marks-only",
            help="use only known-failure marks that name who made them (default: every mark)",
        ),
    ] = False,
    require_mark_expiry: Annotated[
        bool,
        typer.Option(
            "--require-mark-expiry",
            help="use only known-failure marks with an expiry (default: every mark)",
        ),
    ] = False,
    dashboard_url: DashboardUrl = None,
    connection: ConnectionName = None,
    secrets: Secrets = DEFAULT_SECRETS,
) -> Parsed:
    """Wait for a plan's execution to finish and judge it: exit 0 when it passes, 1 when it
    fails, 2 (configuration), 3 (service) or 4 (store) when the gate cannot decide. Known
    failures (marked in the dashboard) never fail it."""
    return parsed(ctx, run)


@dataclass(frozen=True)
class Judged:
    code: int
    lines: list[str]


def run(args: Args, env: Mapping[str, str], clock: Clock | None = None) -> int:
    from dashboard.present.formatting import visible_text  # lazy: present loads pandas

    try:
        judged = judge(args, env, clock or SystemClock())
    except CliError as error:  # its sentence may quote the service or the configuration
        raise CliError(visible_text(str(error), one_line=True), error.code) from None
    for line in judged.lines:
        print(line, flush=True)
    return judged.code


def judge(args: Args, env: Mapping[str, str], clock: Clock) -> Judged:
    """Find, wait for and judge the execution; `CliError` when the gate cannot decide."""
    secrets = read_configuration(args.secrets, env)
    base_url = dashboard_url(args.dashboard_url, secrets, env)
    names = [args.connection] if args.connection else []
    with targets(secrets, env, names) as (target, *_):
        connection = target.connection
        from api_client import ApiError  # lazy: the client loads pydantic and httpx

        try:
            with client_for(connection) as client:
                plans = plan_of(client, args.plan)
                found = await_finished(client, args, clock)
                return _verdict(
                    client, connection, found, plans, args, secrets, env, clock, base_url
                )
        except ApiError as error:
            raise CliError(service_problem(error, connection), SERVICE) from None


def plan_of(client: ApiClient, plan_id: int) -> pd.DataFrame:
    """The service's plans (`PLAN_COLUMNS`, inactive ones too), once `plan_id` is known to be
    among them: a plan that does not exist is said at once (exit 2), not waited for as one
    that has not run yet."""
    # Lazy, for a fast --help: the data layer loads pandas and DuckDB.
    from dashboard.data import live

    loaded = live.load_plans(client, active_only=False)
    if (loaded.plans["plan_id"] == plan_id).any():
        return loaded.plans
    if loaded.skipped:  # its record may be one that could not be read: the service's doing
        raise CliError(
            f"plan {plan_id} is not among the plans the service lists, of which "
            f"{len(loaded.skipped)} could not be read: no verdict",
            SERVICE,
        )
    raise CliError(f"plan {plan_id} does not exist: the service lists no such plan", USAGE)


@dataclass(frozen=True)
class Found:
    """The execution the gate judges: its row (`EXECUTION_COLUMNS`) and the ids of the results
    the service lists for it (what its results must hold)."""

    row: pd.Series
    result_ids: tuple[int, ...]


def await_finished(client: ApiClient, args: Args, clock: Clock) -> Found:
    """The execution once it has finished, asking every `--poll` seconds; `CliError` when it
    is not the plan's, or still running after `--wait`."""
    started = clock.monotonic()
    wanted: int | None = args.execution
    while True:
        found = find_execution(client, args.plan, wanted)
        if found is not None:
            wanted = int(found.row["execution_id"])  # "latest" stays the one first seen
            if bool(found.row["finished"]):
                return found
        elif args.execution is not None:
            raise CliError(
                f"execution {args.execution} is not an execution of plan {args.plan}", USAGE
            )
        waited = clock.monotonic() - started
        if waited + args.poll > args.wait:
            what = (
                f"execution {wanted} of plan {args.plan} is still running"
                if wanted is not None
                else f"plan {args.plan} has no execution yet"
            )
            raise CliError(f"{what} after {_took(waited)}: no verdict (--wait)", SERVICE)
        print(
            f"waiting: execution {wanted} of plan {args.plan} is running ({_took(waited)} so far)"
            if wanted is not None
            else f"waiting: plan {args.plan} has no execution yet",
            file=sys.stderr,
            flush=True,
        )
        clock.sleep(args.poll)


def find_execution(client: ApiClient, plan_id: int, wanted: int | None) -> Found | None:
    """The plan's newest execution (`wanted` None) or execution `wanted`, looked for among the
    plan's executions newest first (the API fetches no execution by id); None when absent."""
    # Lazy, for a fast --help: the client loads pydantic and httpx.
    from api_client import ExecutionQuery
    from dashboard.data.frames import executions_frame

    query = ExecutionQuery(plan_id=plan_id)
    page = 1
    while True:
        answer = client.executions(page, PAGE_SIZE, query=query)
        frame = executions_frame(answer.item_list)
        if wanted is None:
            return None if frame.empty else _found(frame.iloc[0], answer.item_list)
        hit = frame[frame["execution_id"] == wanted]
        if not hit.empty:
            return _found(hit.iloc[0], answer.item_list)
        if page >= answer.page_count or not answer.item_list:
            return None
        page += 1


def _found(row: pd.Series, executions: Any) -> Found:
    execution_id = int(row["execution_id"])
    listed = next((e for e in executions if e.id == execution_id), None)
    ids = () if listed is None else tuple(int(i) for i in listed.test_results)
    return Found(row, ids)


def _verdict(
    client: ApiClient,
    connection: Connection,
    found: Found,
    plans: pd.DataFrame,
    args: Args,
    secrets: Mapping[str, Any],
    env: Mapping[str, str],
    clock: Clock,
    base_url: str | None,
) -> Judged:
    from dashboard.analytics.gate import GateRules  # lazy, for a fast --help: pandas

    rules = GateRules(
        max_unresolved=args.max_unresolved,
        min_pass_rate=args.min_pass_rate,
        signed_marks_only=args.signed_marks_only,
        require_mark_expiry=args.require_mark_expiry,
    )
    decision = decide(
        client,
        connection,
        found,
        plans,
        rules,
        plan_id=args.plan,
        secrets=secrets,
        env=env,
        now=clock.now(),
        base_url=base_url,
    )
    return Judged(decision.code, decision.lines)


@dataclass(frozen=True)
class Decision:
    """The gate's decision on one finished execution of a plan: the verdict, the rules it was
    judged by, and the lines the command prints for it (`present.gate.verdict_lines`)."""

    execution_id: int
    plan_id: int
    start: pd.Timestamp | None
    rules: GateRules
    verdict: GateVerdict
    lines: list[str]

    @property
    def code(self) -> int:
        return PASS if self.verdict.passed else FAIL


def decide(
    client: ApiClient,
    connection: Connection,
    found: Found,
    plans: pd.DataFrame,
    rules: GateRules,
    *,
    plan_id: int,
    secrets: Mapping[str, Any],
    env: Mapping[str, str],
    now: datetime,
    base_url: str | None = None,
    store_wait: float = DEFAULT_WAIT,
) -> Decision:
    """The gate's verdict on `found` (a finished execution of plan `plan_id`), printing
    nothing: its results through the history store, kept only when whole and never judged
    short of what its summary counts, the team's marks and the plan's stored history (its
    failures' triage labels), judged by `analytics.gate`'s rule. `CliError` (exit 3, the
    service; 4, the store) when it cannot decide. The command prints `Decision.lines`; the
    assistant's `gate_verdict` answers the same decision as values."""
    # Lazy, for a fast --help: pandas.
    import pandas as pd

    from dashboard.analytics.gate import gate_verdict, missing_evidence
    from dashboard.data import results_fanout
    from dashboard.data.pairs import result_pairs
    from dashboard.data.store.errors import StoreError
    from dashboard.present.gate import verdict_lines
    from dashboard.state import links

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

    store = _open_store(connection, secrets, env, wait=store_wait)
    try:
        with store:
            # Stored only when whole: an answer short of the summary is fetched again next time.
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
    except StoreError as error:
        _store_failed(error)
    _fetched_all(fanout, execution_id, connection)
    results = fanout.results
    gap = lacks(results)
    if gap is not None and fanout.counts.from_store:
        # Stored before: by a fan-out that had no summary to check against (a page's), or
        # by an older version. Judge on what the service says now, and keep nothing of it.
        fanout = results_fanout.fetch_results(client, pairs, finished=())
        _fetched_all(fanout, execution_id, connection)
        results = fanout.results
        gap = lacks(results)
    if gap is not None:
        raise CliError(
            f"results incomplete: {gap} (execution {execution_id} of plan {plan_id}): no "
            "verdict; the service may still be writing them, run the gate again",
            SERVICE,
        )
    verdict = gate_verdict(
        passed=int(row["passed"]),
        verdicts=int(row["verdicts"]),
        results=results,
        marks=marks,
        now=now,
        rules=rules,
        executions=pd.DataFrame([row]),
        history=history,
    )
    plan_name = row["plan"]
    plan = f"plan {plan_id}" + ("" if pd.isna(plan_name) else f" ({plan_name})")
    start = None if pd.isna(row["start"]) else row["start"]
    results_link = links.results_link(execution_id, plan_id=plan_id, started=start)
    lines = verdict_lines(
        verdict,
        plan=plan,
        execution_id=execution_id,
        rules=rules,
        results_link=links.absolute(results_link, base_url),
        scenario_link=lambda scenario: links.absolute(
            links.scenario_link(plan_id, scenario), base_url
        ),
    )
    return Decision(execution_id, plan_id, start, rules, verdict, lines)


HISTORY_DAYS = 30
"""How far back the gate reads the plan's stored history, for its failures' triage labels."""


def _stored_history(store: Any, row: pd.Series) -> pd.DataFrame | None:
    """The plan's results the history store already holds from `HISTORY_DAYS` before the judged
    execution up to it (no request to the service): what its failures' triage labels (flaky,
    broken, new, ...) read back from. The judged execution's own are left out: its results are
    the ones just fetched and checked."""
    # Lazy, for a fast --help: pandas.
    import pandas as pd

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
    if fanout.failures:
        first = fanout.failures[0]
        raise CliError(
            f"the results of {len(fanout.failures)} scenario(s) of execution {execution_id} "
            f"could not be fetched (scenario {first.scenario_id}: "
            f"{service_problem(first.error, connection)})",
            SERVICE,
        )


def _open_store(
    connection: Connection,
    secrets: Mapping[str, Any],
    env: Mapping[str, str],
    *,
    wait: float = DEFAULT_WAIT,
) -> HistoryStore:
    """The connection's history store, as every command opens it, except that a DuckDB file
    that is there but cannot be read is exit 4. `open_for` would set it aside and start an
    empty store, and the team's marks would silently be gone from the verdict."""
    # Lazy, for a fast --help: the data layer loads pandas and DuckDB.
    from dashboard.data.store import HistoryStore, identity_of
    from dashboard.data.store.errors import StoreError
    from dashboard.data.store.location import store_path, store_url

    if store_url(secrets=secrets, env=env) is None:
        path = store_path(connection, secrets=secrets, env=env)
        if path.exists():
            try:
                return HistoryStore.open(path, identity=identity_of(connection), wait=wait)
            except StoreError as error:
                _store_failed(error)
    return open_store(connection, secrets, env, wait=wait)


def _store_failed(error: Exception) -> NoReturn:
    # Lazy, for a fast --help: the data layer loads pandas and DuckDB.
    from dashboard.data.store.errors import StoreError

    problem = store_problem(error) if isinstance(error, StoreError) else str(error)
    raise CliError(
        f"the history store cannot be read, so neither can the known failures: {problem} "
        "No verdict.",
        STORE,
    ) from None


def _took(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min"
