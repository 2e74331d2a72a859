"""`python -m dashboard known list|add|close|export|import`: the known-failure ledger for scripts.

A team backs its ledger up (`export`, JSON with every mark's log), moves it from a DuckDB file
to PostgreSQL (`export` from one configuration, `import` into the other), or creates marks from
its tracker (`import` of a CSV of new marks). Each command works on the connection the dashboard
would use (or `--connection NAME`), and only after the service has accepted that connection's
credential for its company: the same check as a page's stored history (`store.access`).

Marks are checked as the dashboard's form checks them (`store.marks`), and a script's target
must be one the store has seen (a stored plan, scenario, environment, execution or failure).
`add` on a plan or execution the store has not seen (the pages read the service, so they show
what a store not synced lately lacks) syncs the store's window first, saying so on stderr.

Time is the data's own, as on the pages (`demo.now_of`): on the embedded demo, its clock (the
sandbox's "now"), so `list` gives a mark the state the Known failures page shows and `add`
accepts the expiry the page's form accepts; elsewhere the wall clock. The demo's sandbox is
started only when a command needs the service (a sync): its store is read and written without
it, in well under two seconds at any size.
CSV is read and written by the csv module; a cell a spreadsheet would run as a formula is
written with a leading `'` (and a cell that begins with `'` gets one more), which `import` takes
off again, so an export imports back exactly.

Exit codes as every command's (`dashboard.cli`): 0 done; 2 a bad argument, file or mark (the
sentence says which; no mark is written); 3 the service refused the credential or could not be
reached; 4 the store is busy or cannot be used.
"""

from __future__ import annotations

import csv
import io
import json
import sys
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TextIO

import typer

from dashboard.cli.common import (
    OK,
    SERVICE,
    USAGE,
    Args,
    CliError,
    Parsed,
    by_of,
    checked_store,
    client_for,
    demo_connection,
    parsed,
    refusals,
    service_problem,
    service_words,
)
from dashboard.cli.options import (
    DEFAULT_SECRETS,
    DEFAULT_WAIT,
    ConnectionName,
    Secrets,
    Wait,
    identifier,
    one_of,
)

if TYPE_CHECKING:
    import pandas as pd

    from dashboard.data.connection import Connection
    from dashboard.data.store import HistoryStore
    from dashboard.data.store.marks import MarkTarget

FORMATS = ("csv", "json")
SCOPES = ("plan", "environment", "all")
"""A failure group mark's scopes (`analytics.marks.GROUP_SCOPES`)."""
STATES = ("open", "expiring", "expired", "closed", "all")
KIND_WORDS = {
    "known": "known_issue",
    "known-issue": "known_issue",
    "accepted": "accepted",
    "outage": "outage",
    "not-an-outage": "not_an_outage",
}
EXPORT_COLUMNS = (
    "mark_id",
    "company_id",
    "target",
    "signature",
    "plan_id",
    "scenario_id",
    "environment",
    "execution_id",
    "kind",
    "ticket",
    "note",
    "owner",
    "expires_on",
    "created_by",
    "created_at",
    "updated_at",
    "closed_by",
    "closed_at",
    "revision",
)
LOG_COLUMNS = ("revision", "at", "actor", "action", "what")
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n", "\uff1d", "\uff0b", "\uff0d", "\uff20")


app = typer.Typer(
    name="known",
    help="The known-failure ledger of the history store: what the team knows about failures. "
    "Marks change nothing on the service.",
    short_help="the known-failure ledger: list, add, close, export and import marks",
    rich_markup_mode=None,
)


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise typer.BadParameter(f"not a day like 2026-12-31: {text!r}") from None


By = Annotated[
    str | None,
    typer.Option(
        metavar="NAME",
        help="who is recorded as making the change (default: your user name)",
        show_default=False,
    ),
]
Format = Annotated[
    str | None,
    typer.Option(
        parser=one_of(FORMATS),
        metavar="csv|json",
        help="default: by the file's name (.csv, .json), else json",
        show_default=False,
    ),
]


def _id_option(help: str) -> Any:
    return typer.Option(parser=identifier, metavar="ID", help=help, show_default=False)


@app.command("list", help="The marks, as a table (or --format csv/json).")
def list_command(
    ctx: typer.Context,
    state: Annotated[
        str,
        typer.Option(
            parser=one_of(STATES), metavar="|".join(STATES), help="only marks in this state"
        ),
    ] = "all",
    format: Annotated[
        str, typer.Option(parser=one_of(("table", *FORMATS)), metavar="table|csv|json")
    ] = "table",
    connection: ConnectionName = None,
    secrets: Secrets = DEFAULT_SECRETS,
    wait: Wait = DEFAULT_WAIT,
) -> Parsed:
    return parsed(ctx, run_list)


@app.command("add", help="Mark a failure group, a scenario or an execution.")
def add_command(
    ctx: typer.Context,
    group: Annotated[
        str | None,
        typer.Option(metavar="MESSAGE", help="a failure message (its group)", show_default=False),
    ] = None,
    scenario: Annotated[int | None, _id_option("a scenario of --plan")] = None,
    execution: Annotated[int | None, _id_option("an execution (an outage)")] = None,
    plan: Annotated[int | None, _id_option("the plan (a group: only this plan)")] = None,
    environment: Annotated[
        str | None,
        typer.Option(
            metavar="NAME",
            help="a scenario (or a group) on this environment only, as the environments page "
            'names it ("SAFARI / macOS")',
            show_default=False,
        ),
    ] = None,
    scope: Annotated[
        str | None,
        typer.Option(
            parser=one_of(SCOPES),
            metavar="|".join(SCOPES),
            help="a group's scope: --plan's plan, --environment's environment, or every plan "
            "(default: the plan when --plan is given, the environment when --environment is, "
            "else every plan)",
            show_default=False,
        ),
    ] = None,
    kind: Annotated[
        str | None,
        typer.Option(
            parser=one_of(tuple(KIND_WORDS)),
            metavar="|".join(KIND_WORDS),
            help="known (the default for failures), accepted, outage (the default for an "
            "execution) or not-an-outage",
            show_default=False,
        ),
    ] = None,
    ticket: Annotated[
        str | None,
        typer.Option(metavar="URL", help="the ticket's http(s) link", show_default=False),
    ] = None,
    note: Annotated[
        str | None,
        typer.Option(help="a note (at most 2,000 characters)", show_default=False),
    ] = None,
    owner: Annotated[
        str | None, typer.Option(help="who looks after it", show_default=False)
    ] = None,
    expires: Annotated[
        date | None,
        typer.Option(parser=_day, metavar="YYYY-MM-DD", help="its last day", show_default=False),
    ] = None,
    connection: ConnectionName = None,
    by: By = None,
    secrets: Secrets = DEFAULT_SECRETS,
    wait: Wait = DEFAULT_WAIT,
) -> Parsed:
    given = [name for name in ("group", "scenario", "execution") if ctx.params[name] is not None]
    if len(given) != 1:
        ctx.fail("give one of --group, --scenario or --execution")
    return parsed(ctx, run_add)


@app.command("close", help="Close a mark (it is kept, and stops applying).")
def close_command(
    ctx: typer.Context,
    mark_id: Annotated[
        str, typer.Argument(metavar="MARK", help="the mark's id (twelve hex digits)")
    ],
    reason: Annotated[str | None, typer.Option(help="why, for its log", show_default=False)] = None,
    connection: ConnectionName = None,
    by: By = None,
    secrets: Secrets = DEFAULT_SECRETS,
    wait: Wait = DEFAULT_WAIT,
) -> Parsed:
    return parsed(ctx, run_close)


@app.command("export", help="Every mark, as JSON (with logs) or CSV.")
def export_command(
    ctx: typer.Context,
    format: Format = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            metavar="FILE",
            help="where to write (default: stdout)",
            show_default=False,
        ),
    ] = None,
    connection: ConnectionName = None,
    secrets: Secrets = DEFAULT_SECRETS,
    wait: Wait = DEFAULT_WAIT,
) -> Parsed:
    return parsed(ctx, run_export)


@app.command("import", help="Marks from a JSON export, or a CSV (an export, or new marks).")
def import_command(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(metavar="FILE", help="the file (- for stdin)")],
    format: Format = None,
    connection: ConnectionName = None,
    by: By = None,
    secrets: Secrets = DEFAULT_SECRETS,
    wait: Wait = DEFAULT_WAIT,
) -> Parsed:
    return parsed(ctx, run_import)


@contextmanager
def _served(connection: Connection, env: Mapping[str, str]) -> Iterator[Connection]:
    """`connection` with its service answering: the demo's sandbox (of `env`'s size) is started
    for it."""
    if not connection.is_demo:
        yield connection
        return
    with demo_connection(quiet=True, env=env) as started:
        yield started


def now_of(connection: Connection) -> datetime:
    """The time the connection's data is read at, as the page reads it (`demo.now_of`): the
    demo's own clock, else the wall clock. A mark's state and the first day an expiry may
    name are reckoned from it."""
    from dashboard.data.demo import now_of as data_now  # lazy: the data layer loads pydantic

    return data_now(connection)


def _read_marks(store: HistoryStore, company_id: int) -> pd.DataFrame:
    """The company's well-formed marks; those left out as malformed are said on stderr (never
    listed, exported or applied: `store.stored_marks`)."""
    # Lazy, for a fast --help: the data layer loads pandas and DuckDB.
    from dashboard.data.store.stored_marks import malformed_words

    read = store.read_marks(company_id)
    said = malformed_words(read.malformed)
    if said:
        print(f"note: {said}", file=sys.stderr)
    return read.marks


def _store_errors() -> AbstractContextManager[None]:
    from dashboard.data.store.marks import MarkRefused  # lazy: the data layer loads pandas

    return refusals(MarkRefused)


# -- list ------------------------------------------------------------------------------------------


def run_list(args: Args, env: Mapping[str, str]) -> int:
    # Lazy, for a fast --help: it loads pandas.
    from dashboard.analytics.marks import mark_states

    with checked_store(args, env) as (connection, store), _store_errors():
        marks = _read_marks(store, connection.company_id)
        log = store.mark_log(connection.company_id)
    states = mark_states(marks, now_of(connection))
    if args.state != "all":
        keep = (states["state"] == args.state).to_numpy()
        marks, states = marks[keep], states[keep]
    if args.format == "table":
        _print_table(marks, states["state"].tolist(), sys.stdout)
        print(f"{len(marks):,} marks of company {connection.company_id}.", file=sys.stderr)
    else:
        _write(marks, log, args.format, sys.stdout)
    return OK


def _print_table(marks: pd.DataFrame, states: list[str], out: TextIO) -> None:
    # Lazy, for a fast --help: the data layer loads pandas and DuckDB.
    from dashboard.data.store.ledger import describe_target

    rows = [("MARK", "STATE", "KIND", "TARGET", "TICKET", "OWNER", "EXPIRES", "BY")]
    for record, state in zip(marks.to_dict("records"), states, strict=True):
        record = {k: _plain(v) for k, v in record.items()}
        rows.append(
            (
                record["mark_id"],
                state,
                record["kind"].replace("_", " "),
                _one_line(describe_target(record), 60),
                _one_line(record["ticket"] or "-", 50),
                _one_line(record["owner"] or "-", 20),
                record["expires_on"][:10] if record["expires_on"] else "-",
                _one_line(record["created_by"], 20),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print(
            "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip(),
            file=out,
        )


def _one_line(text: str, limit: int) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


# -- add, close ------------------------------------------------------------------------------------


def run_add(args: Args, env: Mapping[str, str]) -> int:
    # Lazy, for a fast --help: it loads pandas.
    from dashboard.analytics.failure_groups import normalise_message
    from dashboard.columns import marks as columns
    from dashboard.data.store.marks import MarkDraft, MarkTarget, draft_problems

    if args.scenario is not None and args.plan is None:
        raise CliError("--scenario needs --plan: a scenario is marked in its plan.", USAGE)
    if args.environment is not None and args.scenario is None and args.group is None:
        raise CliError("--environment goes with --scenario and --plan, or with --group.", USAGE)
    if args.execution is not None and args.plan is not None:
        raise CliError("--execution names the execution alone; leave out --plan.", USAGE)
    if args.scope is not None and args.group is None:
        raise CliError("--scope is a failure group's (--group).", USAGE)
    if args.group is not None:
        plan, environment = group_scope(args.scope, args.plan, args.environment)
        target = MarkTarget(
            columns.FAILURE_GROUP,
            signature=normalise_message(args.group),
            plan_id=plan,
            environment=environment,
        )
    elif args.scenario is not None:
        kind = columns.SCENARIO if args.environment is None else columns.SCENARIO_ENVIRONMENT
        target = MarkTarget(
            kind, plan_id=args.plan, scenario_id=args.scenario, environment=args.environment
        )
    else:
        target = MarkTarget(columns.EXECUTION, execution_id=args.execution)
    default_kind = columns.OUTAGE if target.target == columns.EXECUTION else columns.KNOWN_ISSUE
    draft = MarkDraft(
        target=target,
        kind=KIND_WORDS[args.kind] if args.kind else default_kind,
        ticket=args.ticket,
        note=args.note,
        owner=args.owner,
        expires_on=args.expires,
    )
    by = by_of(args)
    with checked_store(args, env) as (connection, store), _store_errors():
        now = now_of(connection)
        problems = draft_problems(draft, by=by, today=now.astimezone(UTC).date())
        if problems:
            raise CliError(" ".join(problems), USAGE)
        problem = unknown_target(store, target)
        if problem and _not_synced(store, target):
            problem = _sync_for(problem, connection, store, target, wait=args.wait, env=env)
        if problem:
            raise CliError(problem, USAGE)
        draft = replace(draft, target=named_environment(store, target))
        mark_id = store.add_mark(connection.company_id, draft, by=by, now=now)
    print(mark_id)
    print(f"Marked: {mark_id} ({draft.kind.replace('_', ' ')}).", file=sys.stderr)
    return OK


def named_environment(store: HistoryStore, target: MarkTarget) -> MarkTarget:
    """A failure group of one environment typed with its browser's version ("CHROME 131 /
    Windows 10") names the environment as the pages do ("CHROME / Windows 10"): the mark covers
    it on any version, and the Known failures page says so."""
    from dashboard.analytics.environment_names import environment_label, label_names
    from dashboard.columns import marks as columns

    if target.target != columns.FAILURE_GROUP or target.environment is None:
        return target
    rows = list(store.stored_target(target).environments.itertuples(index=False))
    if target.environment in {environment_label(*row) for row in rows}:
        return target
    named = next((row for row in rows if label_names(target.environment, *row)), None)
    return target if named is None else replace(target, environment=environment_label(*named))


def group_scope(
    scope: str | None, plan: int | None, environment: str | None
) -> tuple[int | None, str | None]:
    """The plan and environment a group mark of `scope` names (`CliError` when the options do
    not fit it): one plan (--plan), one environment (--environment, in every plan) or every
    plan; without --scope, what the options give."""
    if scope is None:
        if plan is not None and environment is not None:
            raise CliError(
                "a group is marked in one plan, on one environment or in every plan: give "
                "--plan or --environment, not both.",
                USAGE,
            )
        return plan, environment
    if scope == "plan":
        if plan is None or environment is not None:
            raise CliError("--scope plan needs --plan (and no --environment).", USAGE)
        return plan, None
    if scope == "environment":
        if environment is None or plan is not None:
            raise CliError(
                '--scope environment needs --environment ("CHROME / Windows 10") and no '
                "--plan: it covers the group on that environment in every plan.",
                USAGE,
            )
        return None, " ".join(environment.split())
    if plan is not None or environment is not None:
        raise CliError("--scope all covers every plan: leave out --plan and --environment.", USAGE)
    return None, None


def unknown_target(store: HistoryStore, target: MarkTarget) -> str | None:
    """Why the store does not know `target` (a script could name anything), or None."""
    # Lazy, for a fast --help: it loads pandas.
    from dashboard.analytics.environment_names import environment_label, label_names
    from dashboard.analytics.failure_groups import normalise_message
    from dashboard.columns import marks as columns

    stored = store.stored_target(target)
    if target.target == columns.EXECUTION:
        return None if stored.execution else f"Execution {target.execution_id} is not stored."
    if target.plan_id is not None and not stored.plan:
        return f"Plan {target.plan_id} is not stored: sync the store first, or check the id."
    if target.target in (columns.SCENARIO, columns.SCENARIO_ENVIRONMENT) and not stored.scenario:
        return f"Scenario {target.scenario_id} is not one of plan {target.plan_id}'s."
    if target.target == columns.SCENARIO_ENVIRONMENT:
        rows = list(stored.environments.itertuples(index=False))
        labels = {environment_label(*row) for row in rows}
        # A label with its browser's version ("CHROME 130 / Windows 10", as marks were made
        # before #38) names the environment too, as it does on the pages.
        if target.environment not in labels and not any(
            label_names(target.environment, *row) for row in rows
        ):
            listed = "; ".join(sorted(labels)) or "none stored"
            return (
                f"Scenario {target.scenario_id} of plan {target.plan_id} has not run on "
                f'"{target.environment}" (it ran on: {listed}).'
            )
    if target.target == columns.FAILURE_GROUP and target.environment is not None:
        rows = list(stored.environments.itertuples(index=False))
        labels = {environment_label(*row) for row in rows}
        if target.environment not in labels and not any(
            label_names(target.environment, *row) for row in rows
        ):
            listed = "; ".join(sorted(labels)) or "none stored"
            where = f"plan {target.plan_id}" if target.plan_id is not None else "any plan"
            return (
                f'No stored failure of {where} ran on "{target.environment}" (failures ran on: '
                f"{listed})."
            )
    if target.target == columns.FAILURE_GROUP:
        signatures = {normalise_message(m) for m in stored.messages}
        if target.signature not in signatures:
            where = f" of plan {target.plan_id}" if target.plan_id is not None else ""
            return f'No stored failure{where} reads like "{target.signature}".'
    return None


def _not_synced(store: HistoryStore, target: MarkTarget) -> bool:
    """Whether a sync could make the store know `target`: it has never been synced, or it has
    not stored the plan or the execution the target names (the dashboard's pages read the
    service, so they show plans a store that was not synced lately lacks)."""
    from dashboard.columns import marks as columns  # lazy: it loads pandas

    if store.info().last_sync is None:
        return True
    stored = store.stored_target(target)
    if target.target == columns.EXECUTION:
        return not stored.execution
    return target.plan_id is not None and not stored.plan


def _sync_for(
    problem: str,
    connection: Connection,
    store: HistoryStore,
    target: MarkTarget,
    *,
    wait: float,
    env: Mapping[str, str],
) -> str | None:
    """Bring what `target` needs from the service into the store, saying so, and ask again
    what the store lacks of it (None: nothing now). A scenario of a plan needs the plans only
    (one request); a group's messages, an environment or an execution need a sync of the
    store's window, as `store sync` makes it."""
    from api_client import ApiError  # lazy: the client loads pydantic and httpx
    from dashboard.columns import marks as columns
    from dashboard.data.store.records import plan_frames
    from dashboard.data.sync import DEFAULT_DAYS, sync_history

    where = service_words(connection)
    lead = problem.removesuffix(" sync the store first, or check the id.").rstrip(":.")
    with _served(connection, env) as served, client_for(served) as client:
        try:
            if target.target == columns.SCENARIO:
                print(f"{lead}: reading the plans from {where} first.", file=sys.stderr)
                with store.sync_lock(wait=wait):
                    plans = store.replace_plans(plan_frames(client.plans(active=False)))
                print(f"Stored {plans:,} plans.", file=sys.stderr)
            else:
                print(
                    f"{lead}: syncing the last {DEFAULT_DAYS} days from {where} first (as "
                    "`store sync` does).",
                    file=sys.stderr,
                )
                report = sync_history(
                    client,
                    store,
                    days=DEFAULT_DAYS,
                    now=connection.clock,
                    lock_wait=wait,
                    synced_by="known add",
                    reader=served.fingerprint,
                )
                print(
                    f"Synced {report.plans:,} plans and {report.finished:,} finished executions.",
                    file=sys.stderr,
                )
        except ApiError as error:
            raise CliError(service_problem(error, served), SERVICE) from None
    still = unknown_target(store, target)
    return still and still.replace(
        ": sync the store first, or check the id.", ", even after a sync: check the id."
    )


def run_close(args: Args, env: Mapping[str, str]) -> int:
    by = by_of(args)
    with checked_store(args, env) as (connection, store), _store_errors():
        revision = store.close_mark(
            connection.company_id,
            args.mark_id,
            by=by,
            reason=args.reason,
            now=now_of(connection),
        )
    print(f"Closed {args.mark_id} (revision {revision}): it is kept and no longer applies.")
    return OK


# -- export, import --------------------------------------------------------------------------------


def _format(given: str | None, path: Path | None) -> str:
    if given:
        return given
    suffix = path.suffix.lower().lstrip(".") if path is not None else ""
    return suffix if suffix in FORMATS else "json"


def run_export(args: Args, env: Mapping[str, str]) -> int:
    chosen = _format(args.format, args.output)
    with checked_store(args, env) as (connection, store), _store_errors():
        marks = _read_marks(store, connection.company_id)
        log = store.mark_log(connection.company_id)
    if args.output is None or str(args.output) == "-":
        _write(marks, log, chosen, sys.stdout)
    else:
        try:
            with args.output.open("w", encoding="utf-8", newline="") as out:
                _write(marks, log, chosen, out)
        except OSError as error:
            raise CliError(f"{args.output} cannot be written ({error.strerror}).", USAGE) from None
        print(f"Exported {len(marks):,} marks to {args.output}.", file=sys.stderr)
    return OK


def _write(marks: pd.DataFrame, log: pd.DataFrame, chosen: str, out: TextIO) -> None:
    records = [{k: _plain(v) for k, v in r.items()} for r in marks.to_dict("records")]
    if chosen == "json":
        entries: dict[str, list[dict[str, Any]]] = {}
        for entry in log.to_dict("records"):
            row = {k: _plain(entry[k]) for k in LOG_COLUMNS}
            entries.setdefault(str(entry["mark_id"]), []).append(row)
        document = {
            "exported_at": datetime.now(UTC).isoformat(),
            "marks": [{**r, "log": entries.get(r["mark_id"], [])} for r in records],
        }
        json.dump(document, out, ensure_ascii=False, indent=2)
        out.write("\n")
        return
    writer = csv.DictWriter(out, fieldnames=EXPORT_COLUMNS, lineterminator="\r\n")
    writer.writeheader()
    for record in records:
        writer.writerow({k: _inert(record.get(k)) for k in EXPORT_COLUMNS})


def _plain(value: Any) -> Any:
    """A frame's value as JSON and CSV hold it: None, int, str; times in ISO 8601 UTC, an
    expiry as its day."""
    # Lazy, for a fast --help: pandas.
    import pandas as pd

    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return None
    if isinstance(value, pd.Timestamp | datetime):
        stamp = pd.Timestamp(value).tz_convert(UTC)
        return stamp.isoformat()
    if hasattr(value, "item"):
        return value.item()
    return value


def _inert(value: Any) -> Any:
    """A CSV cell a spreadsheet shows as text (see the module); `_live` undoes it."""
    if isinstance(value, str) and (
        value.startswith("'") or value.lstrip().startswith(_FORMULA_STARTS)
    ):
        return "'" + value
    return value


def _live(value: str) -> str:
    return value[1:] if value.startswith("'") else value


def run_import(args: Args, env: Mapping[str, str]) -> int:
    chosen = _format(args.format, None if str(args.file) == "-" else args.file)
    records, log = read_marks(args.file, chosen)
    by = by_of(args)
    with checked_store(args, env) as (connection, store), _store_errors():
        for record in records:
            if record.get("mark_id") is None:
                problem = unknown_target(store, _target_of(record))
                if problem:
                    raise CliError(
                        f"A new mark ({_short(record)}): {problem} Nothing was imported.", USAGE
                    )
        report = store.import_marks(connection.company_id, records, log, by=by)
    print(
        f"Imported {report.added:,} marks into company {connection.company_id}'s ledger"
        + (f"; {report.skipped:,} were there already." if report.skipped else ".")
    )
    return OK


def _short(record: Mapping[str, Any]) -> str:
    # Lazy, for a fast --help: the data layer loads pandas and DuckDB.
    from dashboard.data.store.ledger import describe_target

    return _one_line(describe_target(record), 80)


def _target_of(record: Mapping[str, Any]) -> MarkTarget:
    # Lazy, for a fast --help: the data layer loads pandas and DuckDB.
    from dashboard.data.store.marks import MarkTarget

    def number(name: str) -> int | None:
        value = record.get(name)
        return None if value in (None, "") else int(value)

    return MarkTarget(
        target=str(record.get("target") or ""),
        signature=record.get("signature"),
        plan_id=number("plan_id"),
        scenario_id=number("scenario_id"),
        environment=record.get("environment"),
        execution_id=number("execution_id"),
    )


def read_marks(path: Path, chosen: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The marks of an export (or a CSV of new marks) and their log entries, as the ledger's
    import takes them; `CliError` (USAGE) naming what cannot be read."""
    try:
        text = sys.stdin.read() if str(path) == "-" else path.read_text(encoding="utf-8-sig")
    except OSError as error:
        raise CliError(f"{path} cannot be read ({error.strerror}).", USAGE) from None
    except UnicodeDecodeError:
        raise CliError(f"{path} is not UTF-8 text.", USAGE) from None
    try:
        if chosen == "json":
            return _from_json(text)
        return _from_csv(text), []
    except (ValueError, TypeError, KeyError, csv.Error) as error:
        raise CliError(
            f"{path} is not a marks file as `known export` writes one: {error}", USAGE
        ) from None


_NUMBERS = ("company_id", "plan_id", "scenario_id", "execution_id", "revision")


def _typed(record: Mapping[str, Any], *, where: str) -> dict[str, Any]:
    unknown = set(record) - set(EXPORT_COLUMNS) - {"log"}
    if unknown:
        raise ValueError(f"{where} has unknown columns {', '.join(sorted(map(str, unknown)))}")
    out: dict[str, Any] = {}
    for name in EXPORT_COLUMNS:
        value = record.get(name)
        if value is None or value == "":
            out[name] = None
        elif name in _NUMBERS:
            if isinstance(value, bool) or not str(value).isdigit():
                raise ValueError(f"{where}: {name} {str(value)[:30]!r} is not a number")
            out[name] = int(value)
        elif not isinstance(value, str):
            raise ValueError(f"{where}: {name} is not text")
        else:
            out[name] = value
    return out


def _from_csv(text: str) -> list[dict[str, Any]]:
    reader = csv.DictReader(io.StringIO(text, newline=""))
    if reader.fieldnames is None or "target" not in reader.fieldnames:
        raise ValueError("its header names no target column")
    records = []
    for number, row in enumerate(reader, start=2):
        if None in row:
            raise ValueError(f"line {number} has more cells than the header")
        cells = {k: _live(v) if isinstance(v, str) else v for k, v in row.items()}
        records.append(_typed(cells, where=f"line {number}"))
    return records


def _from_json(text: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    document = json.loads(text)
    listed = document.get("marks") if isinstance(document, dict) else document
    if not isinstance(listed, list):
        raise ValueError('it holds no "marks" list')
    records, log = [], []
    for number, item in enumerate(listed, start=1):
        if not isinstance(item, dict):
            raise ValueError(f"mark {number} is not an object")
        record = _typed(item, where=f"mark {number}")
        entries = item.get("log") or []
        if not isinstance(entries, list):
            raise ValueError(f"mark {number}'s log is not a list")
        if entries and record["mark_id"] is None:
            raise ValueError(f"mark {number} has a log but no mark_id")
        for entry in entries:
            if not isinstance(entry, dict) or set(entry) != set(LOG_COLUMNS):
                raise ValueError(f"mark {number}'s log entries need {', '.join(LOG_COLUMNS)}")
            if not isinstance(entry["revision"], int) or not all(
                isinstance(entry[k], str) for k in LOG_COLUMNS if k != "revision"
            ):
                raise ValueError(f"mark {number}'s log entry is not of the right kinds")
            log.append({**entry, "mark_id": record["mark_id"], "at": _instant(entry["at"])})
        records.append(record)
    return records, log


def _instant(text: str) -> datetime:
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        raise ValueError(f"the time {text!r} has no zone")
    return moment.astimezone(UTC)
