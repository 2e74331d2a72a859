"""`python -m dashboard store sync|info|clear`: fill, describe and empty the history store.

`store sync` runs once (from cron) or, with `--every 5m`, keeps running as the team's sync
worker (`dashboard.cli.worker`): one log line per pass, a clean stop on SIGTERM or Ctrl-C.
"""

from __future__ import annotations

import socket
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Any, TextIO

import typer

from dashboard.cli import worker
from dashboard.cli.alerts import (
    ALL_KINDS,
    MAX_MESSAGES,
    AlertsFor,
    AlertsMax,
    AlertsOn,
    AlertsQuiet,
    AlertsTo,
    AlertsZone,
    alert_options,
)
from dashboard.cli.common import (
    OK,
    PARTIAL,
    SERVICE,
    STORE,
    Args,
    CliError,
    Parsed,
    client_for,
    default_connection,
    open_store,
    parsed,
    read_configuration,
    service_problem,
    service_words,
    size,
    store_problem,
    when,
)
from dashboard.cli.connections import targets
from dashboard.cli.digest import (
    DEFAULT_WEEKDAYS,
    DigestAt,
    DigestProject,
    DigestTo,
    DigestWeekdays,
    DigestZone,
)
from dashboard.cli.options import (
    DEFAULT_CONCURRENCY,
    DEFAULT_DAYS,
    DEFAULT_SECRETS,
    DEFAULT_WAIT,
    DEFAULT_ZONE,
    MAX_CONCURRENCY,
    DashboardUrl,
    Secrets,
    Wait,
    interval,
    positive_int,
)
from dashboard.cli.options import concurrency as concurrency_check

if TYPE_CHECKING:
    from dashboard.data.connection import Connection
    from dashboard.data.store import HistoryStore, StoreInfo
    from dashboard.data.sync import SyncReport


app = typer.Typer(
    name="store",
    help="the history store of finished executions",
    no_args_is_help=False,
    rich_markup_mode=None,
)


@app.command(
    "sync",
    help="Fetch the history that is not stored yet (once, or --every INTERVAL).",
    short_help="fetch the history that is not stored yet (once, or --every INTERVAL)",
)
def sync_command(
    ctx: typer.Context,
    days: Annotated[
        int,
        typer.Option(parser=positive_int, metavar="N", help="how many days back from now to sync"),
    ] = DEFAULT_DAYS,
    concurrency: Annotated[
        int,
        typer.Option(
            parser=concurrency_check,
            metavar="N",
            help=f"results requests in flight at once, 1-{MAX_CONCURRENCY}",
        ),
    ] = DEFAULT_CONCURRENCY,
    quiet: Annotated[bool, typer.Option("--quiet", help="no progress bar")] = False,
    every: Annotated[
        float | None,
        typer.Option(
            parser=interval,
            metavar="INTERVAL",
            help="keep running: a pass every INTERVAL (5m, 90s, 1h), one log line per pass, "
            "until SIGTERM or Ctrl-C",
            show_default=False,
        ),
    ] = None,
    connection: Annotated[
        list[str],
        typer.Option(
            metavar="NAME",
            help="sync the table [connections.NAME] of the secrets file; repeat for several "
            "(default: the dashboard's own connection)",
            show_default=False,
        ),
    ] = [],  # noqa: B006  (Typer's way to declare a repeated option; never mutated)
    name: Annotated[
        str,
        typer.Option(
            metavar="NAME", help="who is recorded as having synced, shown by the dashboard"
        ),
    ] = f"the worker on {socket.gethostname()}",
    digest_at: DigestAt = None,
    digest_to: DigestTo = None,
    digest_project: DigestProject = None,
    digest_weekdays: DigestWeekdays = DEFAULT_WEEKDAYS,  # type: ignore[assignment]  # parsed
    digest_tz: DigestZone = DEFAULT_ZONE,
    dashboard_url: DashboardUrl = None,
    alerts_to: AlertsTo = None,
    alerts_on: AlertsOn = ALL_KINDS,  # type: ignore[assignment]  # parsed, as typed
    alerts_for: AlertsFor = [],  # noqa: B006  (a repeated option; never mutated)
    alerts_quiet: AlertsQuiet = None,
    alerts_max: AlertsMax = MAX_MESSAGES,
    alerts_tz: AlertsZone = DEFAULT_ZONE,
    secrets: Secrets = DEFAULT_SECRETS,
    wait: Wait = DEFAULT_WAIT,
) -> Parsed:
    return parsed(ctx, run_sync)


@app.command("info", help="Where the store is and what it holds.")
def info_command(
    ctx: typer.Context, secrets: Secrets = DEFAULT_SECRETS, wait: Wait = DEFAULT_WAIT
) -> Parsed:
    return parsed(ctx, run_info)


@app.command("clear", help="Empty the store (the next sync fills it again).")
def clear_command(
    ctx: typer.Context, secrets: Secrets = DEFAULT_SECRETS, wait: Wait = DEFAULT_WAIT
) -> Parsed:
    return parsed(ctx, run_clear)


# -- sync ----------------------------------------------------------------------------------------


def run_sync(args: Args, env: Mapping[str, str]) -> int:
    secrets = read_configuration(args.secrets, env)
    schedule = worker.digest_schedule(args, secrets, env)
    alerts = alert_options(args, secrets, env)
    with targets(secrets, env, args.connection) as chosen, worker.Stop.installed() as stop:
        if args.every is not None:
            return worker.run_every(
                chosen,
                args,
                secrets,
                env,
                every=args.every,
                stop=stop,
                digest=schedule,
                alerts=alerts,
            )
        if len(chosen) > 1 or args.connection or schedule is not None or alerts is not None:
            return worker.run_once(
                chosen, args, secrets, env, stop=stop, digest=schedule, alerts=alerts
            )
        with stop.in_pass():
            return _sync_verbose(chosen[0].connection, args, secrets, env)


def _sync_verbose(
    connection: Connection,
    args: Args,
    secrets: dict[str, Any],
    env: Mapping[str, str],
) -> int:
    """One sync of one connection, with a progress bar and a full account at the end."""
    # Lazy, as every use of the client and the store: they load pydantic, pandas and DuckDB.
    from api_client import ApiError
    from dashboard.data.store.errors import StoreError
    from dashboard.data.sync import sync_history

    store = open_store(connection, secrets, env, wait=args.wait)
    with client_for(connection) as client, store, _progress(quiet=args.quiet) as on_progress:
        try:
            report = sync_history(
                client,
                store,
                days=args.days,
                now=connection.clock,
                max_concurrency=args.concurrency,
                on_progress=on_progress,
                synced_by=args.name,
                reader=connection.fingerprint,
            )
        except ApiError as error:
            raise CliError(service_problem(error, connection), SERVICE) from None
        except StoreError as error:
            raise CliError(store_problem(error), STORE) from None
        print_sync(report, connection)
        info = safe_info(store)
        if info is not None:
            print_info(info, sys.stdout)
    if report.store_error is not None:
        return STORE
    return PARTIAL if report.failures or report.skipped else OK


# -- info, clear ---------------------------------------------------------------------------------


def run_info(args: Args, env: Mapping[str, str]) -> int:
    # Lazy, for a fast --help: the data layer loads pandas and DuckDB.
    from dashboard.data.store import HistoryStore, open_url
    from dashboard.data.store.errors import StoreError, StoreMissingError
    from dashboard.data.store.location import store_path, store_url

    secrets = read_configuration(args.secrets, env)
    with default_connection(secrets, env) as connection:
        path = store_path(connection, secrets=secrets, env=env)
        url = store_url(secrets=secrets, env=env)  # a shared PostgreSQL store, if configured
        where = shared_location(url, connection) if url else str(path)
        try:
            if url:
                store = open_url(url, connection, read_only=True, wait=args.wait)
            else:
                store = HistoryStore.open(path, read_only=True, wait=args.wait)
        except StoreMissingError:
            print(f"No history stored yet for {service_words(connection)}.")
            print(f"It would be kept in {where}; `python -m dashboard store sync` fills it.")
            return OK
        except StoreError as error:
            raise CliError(store_problem(error), STORE) from None
        with store:
            try:
                info = store.info()
                meta = store.meta()
            except StoreError as error:
                raise CliError(store_problem(error), STORE) from None
        print(f"History of {service_words(connection)}")
        print_info(info, sys.stdout, synced_by=meta.get("last_sync_by"))
    return OK


def run_clear(args: Args, env: Mapping[str, str]) -> int:
    # Lazy, for a fast --help: the data layer loads pandas and DuckDB.
    from dashboard.data.store.errors import StoreError
    from dashboard.data.store.location import store_path, store_url

    secrets = read_configuration(args.secrets, env)
    with default_connection(secrets, env) as connection:
        path = store_path(connection, secrets=secrets, env=env)
        url = store_url(secrets=secrets, env=env)  # a shared PostgreSQL store, if configured
        if not url and not path.exists():
            print(f"Nothing to clear: no history stored for {service_words(connection)}.")
            return OK
        _accepted_for_clearing(connection)
        with open_store(connection, secrets, env, wait=args.wait) as store:
            try:
                results = store.clear()
                info = store.info()
            except StoreError as error:
                raise CliError(store_problem(error), STORE) from None
        where = shared_location(url, connection) if url else str(path)
        print(
            f"Cleared the history of {service_words(connection)}: {results:,} results removed "
            f"from {where} ({size(info.size_bytes)} on disk until the next sync reuses it)."
        )
        if not url:
            print(f"To remove the file itself: rm {path}")
    return OK


def _accepted_for_clearing(connection: Connection) -> None:
    """Empty a company's history only for a credential the service accepts for that company
    now (one read of a page of one execution, with that credential: `store.access`), as
    reading it is: a credential refused, revoked or of another company clears nothing (exit 3).
    A service that cannot be asked clears nothing either: it would have to be trusted blind."""
    # Lazy, for a fast --help: the data layer loads pandas and DuckDB.
    from dashboard.data.store.access import ask_service

    access = ask_service(connection)
    if access.allowed:
        return
    where = service_words(connection)
    if access.reason == "unchecked":
        why = f"{where} could not be asked whether this credential may use company "
        why += f"{connection.company_id}'s history; try again when it answers"
    else:
        why = f"{where} did not accept this credential for company {connection.company_id} "
        why += f"({access.reason})"
    raise CliError(f"{why}. The history was not cleared.", SERVICE)


def shared_location(url: str, connection: Connection) -> str:
    """Where a shared store keeps a connection's history: server and schema, no password."""
    # Lazy, for a fast --help: the data layer loads pandas and DuckDB.
    from dashboard.data.store.location import store_schema
    from dashboard.data.store.pg_pool import safe_url

    return f"{safe_url(url)}#{store_schema(connection)}"


# -- output --------------------------------------------------------------------------------------


@contextmanager
def _progress(*, quiet: bool) -> Iterator[Callable[[str, int, int], None] | None]:
    """A rich progress bar on stderr, one task per sync stage (none when quiet or not a TTY)."""
    if quiet or not sys.stderr.isatty():
        yield None
        return
    # Lazy: rich is needed only for a bar on a terminal.
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    labels = {"plans": "Plans", "executions": "Executions (pages)", "results": "Results (pairs)"}
    with Progress(
        TextColumn("{task.description:<20}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(file=sys.stderr),
    ) as bar:
        tasks: dict[str, Any] = {}

        def on_progress(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(labels.get(stage, stage), total=max(total, 1))
            bar.update(tasks[stage], completed=done if total else 1, total=max(total, 1))

        yield on_progress


def safe_info(store: HistoryStore) -> StoreInfo | None:
    # Lazy, for a fast --help: the data layer loads pandas and DuckDB.
    from dashboard.data.store.errors import StoreError

    try:
        return store.info()
    except StoreError:
        return None


def print_sync(report: SyncReport, connection: Connection) -> None:
    # Lazy, for a fast --help: the client loads pydantic and httpx.
    from api_client import ApiStatusError

    counts = report.results
    print(
        f"Synced {service_words(connection)} since {report.date_from:%Y-%m-%d %H:%M} UTC: "
        f"{report.executions:,} executions listed ({report.finished:,} finished, "
        f"{report.running:,} still running); {report.plans:,} plans."
    )
    print(
        f"Results: {counts.pairs:,} (execution, scenario) pairs were missing; "
        f"{counts.fetched:,} fetched, {counts.stored:,} stored, {counts.failed:,} failed."
    )
    if report.plans_kept:
        print(
            f"The service answered no plans: the {report.plans:,} stored plans were kept.",
            file=sys.stderr,
        )
    if report.skipped_records:
        print(f"{report.skipped_records:,} plans or executions did not fit and were skipped.")
    for failure in report.failures[:10]:
        error = failure.error
        status = f" {error.status_code}" if isinstance(error, ApiStatusError) else ""
        print(
            f"  execution {failure.execution_id}, scenario {failure.scenario_id}: "
            f"{type(error).__name__}{status}",
            file=sys.stderr,
        )
    if len(report.failures) > 10:
        print(f"  ... and {len(report.failures) - 10:,} more failed pairs", file=sys.stderr)
    if report.skipped:
        print(
            f"{len(report.skipped):,} pairs had records that did not fit; "
            "they are fetched again next time."
        )
    if report.failures:
        print("The next sync fetches the failed pairs again.")
    if report.store_error is not None:
        print(
            f"The store could not be written: {store_problem(report.store_error)}", file=sys.stderr
        )


def print_info(info: StoreInfo, out: TextIO, *, synced_by: str | None = None) -> None:
    rows = [
        ("file" if info.engine == "duckdb" else info.engine, info.location),
        ("size", size(info.size_bytes)),
        ("schema version", str(info.schema_version)),
        ("plans", f"{info.plans:,}"),
        ("executions", f"{info.executions:,}"),
        ("results", f"{info.results:,}"),
        ("pairs fetched", f"{info.fetched_pairs:,}"),
        ("executions from", when(info.oldest_execution)),
        ("executions to", when(info.newest_execution)),
        ("last sync", when(info.last_sync) + (f" by {synced_by}" if synced_by else "")),
    ]
    if info.changed_executions:
        kept = f"{info.changed_executions:,} came back changed; kept as first stored"
        rows.insert(7, ("finished executions", kept))
    if info.marks:
        rows.append(("known-failure marks", f"{info.marks:,} ({info.open_marks:,} open)"))
    if info.bytes_per_result:
        rows.insert(2, ("bytes per result", f"{info.bytes_per_result:,.0f}"))
    width = max(len(label) for label, _ in rows)
    for label, value in rows:
        print(f"  {label:<{width}}  {value}", file=out)
