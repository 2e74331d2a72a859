"""The dashboard's command line: `python -m dashboard store sync|info|clear`.

It works on the connection the dashboard would use (`.streamlit/secrets.toml`, then the
`QA_DASHBOARD_*` environment variables, else the embedded demo sandbox), so a cron job can keep
the history store warm for the dashboard:

    python -m dashboard store sync --days 90   # fetch what is missing, with a progress bar
    python -m dashboard store info             # where the store is and what it holds
    python -m dashboard store clear            # empty it

Exit codes: 0 done; 1 done, but some results could not be fetched (the next sync retries
them); 2 bad usage or configuration; 3 the service refused or could not be reached; 4 the store
is in use by another process or cannot be opened. Output names the service by its host and the
store by its path: never a token.
"""

from __future__ import annotations

import argparse
import os
import sys
import tomllib
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    # The commands import these when they run: a usage error answers at once, without loading
    # pandas, DuckDB and the client.
    from api_client import ApiError
    from dashboard.data.connection import Connection
    from dashboard.data.store import HistoryStore, StoreInfo
    from dashboard.data.store_errors import StoreError
    from dashboard.data.sync import SyncReport

OK, PARTIAL, USAGE, SERVICE, STORE = 0, 1, 2, 3, 4
# Copies of the library defaults, so that parsing the command line imports nothing heavy
# (a test checks they agree with dashboard.data).
DEFAULT_DAYS = 90
DEFAULT_CONCURRENCY = 16
MAX_CONCURRENCY = 32
DEFAULT_WAIT = 20.0
DEFAULT_SECRETS = Path(".streamlit") / "secrets.toml"


class CliError(Exception):
    """A failure the command reports in one sentence, with its exit code."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


def main(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    env = os.environ if env is None else env
    try:
        return int(args.run(args, env))
    except CliError as error:
        print(f"error: {error}", file=sys.stderr)
        return error.code
    except KeyboardInterrupt:
        print("interrupted: what was fetched so far is kept", file=sys.stderr)
        return 130


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m dashboard", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    store = commands.add_parser("store", help="the local history store of finished executions")
    actions = store.add_subparsers(dest="action", required=True, metavar="ACTION")

    def common(sub: argparse.ArgumentParser) -> None:
        sub.add_argument(
            "--secrets",
            type=Path,
            default=DEFAULT_SECRETS,
            help="the secrets file to read the connection from (default: %(default)s)",
        )
        sub.add_argument(
            "--wait",
            type=_seconds,
            default=DEFAULT_WAIT,
            help="seconds to wait for another process using the store (default: %(default)s)",
        )

    sync = actions.add_parser("sync", help="fetch the history that is not stored yet")
    sync.add_argument(
        "--days",
        type=_positive_int,
        default=DEFAULT_DAYS,
        help="how many days back from now to sync (default: %(default)s)",
    )
    sync.add_argument(
        "--concurrency",
        type=_positive_int,
        default=DEFAULT_CONCURRENCY,
        help=f"results requests in flight at once, 1-{MAX_CONCURRENCY} (default: %(default)s)",
    )
    sync.add_argument("--quiet", action="store_true", help="no progress bar")
    common(sync)
    sync.set_defaults(run=_sync)

    info = actions.add_parser("info", help="where the store is and what it holds")
    common(info)
    info.set_defaults(run=_info)

    clear = actions.add_parser("clear", help="empty the store (the next sync fills it again)")
    common(clear)
    clear.set_defaults(run=_clear)
    return parser


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 <= value <= 3600:
        raise argparse.ArgumentTypeError(f"must be between 0 and 3600, got {value}")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


# -- commands --------------------------------------------------------------------------------


def _sync(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    from api_client import ApiClient, ApiError
    from dashboard.data.store_errors import StoreError
    from dashboard.data.store_location import store_path
    from dashboard.data.sync import sync_history

    if args.concurrency > MAX_CONCURRENCY:
        raise CliError(f"--concurrency must be at most {MAX_CONCURRENCY}", USAGE)
    secrets = _read_secrets(args.secrets)
    with _connection(secrets, env) as connection:
        path = store_path(connection, secrets=secrets, env=env)
        store = _open(connection, secrets, env, wait=args.wait)
        client = ApiClient(
            base_url=connection.base_url,
            token=connection.token,
            company_id=connection.company_id,
            verify=connection.ca_bundle or True,
            max_concurrency=4,
        )
        with client, store, _progress(quiet=args.quiet) as on_progress:
            try:
                report = sync_history(
                    client,
                    store,
                    days=args.days,
                    now=connection.clock,
                    max_concurrency=args.concurrency,
                    on_progress=on_progress,
                )
            except ApiError as error:
                raise CliError(_service_problem(error, connection), SERVICE) from None
            except StoreError as error:
                raise CliError(_store_problem(error), STORE) from None
        _print_sync(report, connection, path)
        info = _safe_info(store)
        if info is not None:
            _print_info(info, sys.stdout)
    if report.store_error is not None:
        return STORE
    return PARTIAL if report.failures or report.skipped else OK


def _info(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    from dashboard.data.store import HistoryStore
    from dashboard.data.store_errors import StoreError, StoreMissingError
    from dashboard.data.store_location import store_path

    secrets = _read_secrets(args.secrets)
    with _connection(secrets, env) as connection:
        path = store_path(connection, secrets=secrets, env=env)
        try:
            store = HistoryStore.open(path, read_only=True, wait=args.wait)
        except StoreMissingError:
            print(f"No history stored yet for {_service_words(connection)}.")
            print(f"It would be kept in {path}; `python -m dashboard store sync` fills it.")
            return OK
        except StoreError as error:
            raise CliError(_store_problem(error), STORE) from None
        with store:
            try:
                info = store.info()
            except StoreError as error:
                raise CliError(_store_problem(error), STORE) from None
        print(f"History of {_service_words(connection)}")
        _print_info(info, sys.stdout)
    return OK


def _clear(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    from dashboard.data.store_errors import StoreError
    from dashboard.data.store_location import store_path

    secrets = _read_secrets(args.secrets)
    with _connection(secrets, env) as connection:
        path = store_path(connection, secrets=secrets, env=env)
        if not path.exists():
            print(f"Nothing to clear: no history stored for {_service_words(connection)}.")
            return OK
        with _open(connection, secrets, env, wait=args.wait) as store:
            try:
                results = store.clear()
                info = store.info()
            except StoreError as error:
                raise CliError(_store_problem(error), STORE) from None
        print(
            f"Cleared the history of {_service_words(connection)}: {results:,} results removed "
            f"from {path} ({_size(info.size_bytes)} on disk until the next sync reuses it)."
        )
        print(f"To remove the file itself: rm {path}")
    return OK


# -- connection, store, progress -------------------------------------------------------------


def _read_secrets(path: Path) -> dict[str, Any]:
    """The secrets file as the dashboard reads it; {} when there is none."""
    if not path.exists():
        if path != DEFAULT_SECRETS:
            raise CliError(f"the secrets file {path} does not exist", USAGE)
        return {}
    try:
        with path.open("rb") as file:
            return tomllib.load(file)
    except tomllib.TOMLDecodeError as error:
        # The decoder names a line and column, never the text: no secret is echoed.
        raise CliError(f"{path} is not valid TOML ({error})", USAGE) from None
    except OSError as error:
        raise CliError(f"{path} cannot be read ({error.strerror})", USAGE) from None


@contextmanager
def _connection(secrets: Mapping[str, Any], env: Mapping[str, str]) -> Iterator[Connection]:
    """The configured connection, or the embedded demo (started here) when none is."""
    from dashboard.data.connection import resolve

    resolution = resolve(session=None, secrets=secrets, env=env)
    if resolution.connection is not None:
        for note in resolution.problems:
            print(f"note: {note}", file=sys.stderr)
        yield resolution.connection
        return
    if resolution.problems:
        problems = " ".join(resolution.problems)
        raise CliError(f"the configured connection cannot be used. {problems}", USAGE)
    from dashboard.data import demo  # the sandbox is only needed for the demo

    print("No service configured: using the embedded demo sandbox.", file=sys.stderr)
    service = demo.start()
    try:
        yield service.connection
    finally:
        service.server.stop()


def _open(
    connection: Connection, secrets: Mapping[str, Any], env: Mapping[str, str], *, wait: float
) -> HistoryStore:
    from dashboard.data.store import open_for
    from dashboard.data.store_errors import StoreError

    try:
        return open_for(connection, secrets=secrets, env=env, wait=wait)
    except StoreError as error:
        raise CliError(_store_problem(error), STORE) from None


@contextmanager
def _progress(*, quiet: bool) -> Iterator[Callable[[str, int, int], None] | None]:
    """A rich progress bar on stderr, one task per sync stage (none when quiet or not a TTY)."""
    if quiet or not sys.stderr.isatty():
        yield None
        return
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


# -- words ---------------------------------------------------------------------------------------


def _service_words(connection: Connection) -> str:
    if connection.is_demo:
        return f"the embedded demo (company {connection.company_id})"
    return f"{connection.host} (company {connection.company_id})"


def _service_problem(error: ApiError, connection: Connection) -> str:
    """One sentence from the error's class and typed attributes (never a token)."""
    from api_client import (
        ApiConnectionError,
        ApiStatusError,
        AuthenticationError,
        CompanyNotFoundError,
        PermissionDeniedError,
    )

    where = _service_words(connection)
    if isinstance(error, AuthenticationError):
        return f"{where} refused the token (401): it is missing, wrong or expired."
    if isinstance(error, PermissionDeniedError):
        authority = error.missing_authority or "the needed authority"
        return f"the token's user lacks {authority} on {where}."
    if isinstance(error, CompanyNotFoundError):
        return f"{where} says the user's company does not exist."
    if isinstance(error, ApiStatusError):
        code = f" {error.code}" if error.code else ""
        return f"{where} answered {error.status_code}{code} to the {_operation(error)} request."
    if isinstance(error, ApiConnectionError):
        return f"{where} could not be reached ({type(error).__name__}), even after retries."
    return f"{where}: {type(error).__name__} on the {_operation(error)} request."


def _operation(error: ApiError) -> str:
    return error.operation.label if error.operation else "service"


def _store_problem(error: StoreError) -> str:
    from dashboard.data.store_errors import StoreBusyError

    if isinstance(error, StoreBusyError):
        return (
            f"{error.message} Another sync or the dashboard is using it; try again later "
            "(a cron job should not start a sync while one runs)."
        )
    return error.message


def _safe_info(store: HistoryStore) -> StoreInfo | None:
    from dashboard.data.store_errors import StoreError

    try:
        return store.info()
    except StoreError:
        return None


def _print_sync(report: SyncReport, connection: Connection, path: Path) -> None:
    from api_client import ApiStatusError

    counts = report.results
    print(
        f"Synced {_service_words(connection)} since {report.date_from:%Y-%m-%d %H:%M} UTC: "
        f"{report.executions:,} executions listed ({report.finished:,} finished, "
        f"{report.running:,} still running); {report.plans:,} plans."
    )
    print(
        f"Results: {counts.pairs:,} (execution, scenario) pairs were missing; "
        f"{counts.fetched:,} fetched, {counts.stored:,} stored, {counts.failed:,} failed."
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
            f"The store could not be written: {_store_problem(report.store_error)}", file=sys.stderr
        )


def _print_info(info: StoreInfo, out: TextIO) -> None:
    rows = [
        ("file", info.location),
        ("size", _size(info.size_bytes)),
        ("schema version", str(info.schema_version)),
        ("plans", f"{info.plans:,}"),
        ("executions", f"{info.executions:,}"),
        ("results", f"{info.results:,}"),
        ("pairs fetched", f"{info.fetched_pairs:,}"),
        ("executions from", _when(info.oldest_execution)),
        ("executions to", _when(info.newest_execution)),
        ("last sync", _when(info.last_sync)),
    ]
    if info.bytes_per_result:
        rows.insert(2, ("bytes per result", f"{info.bytes_per_result:,.0f}"))
    width = max(len(label) for label, _ in rows)
    for label, value in rows:
        print(f"  {label:<{width}}  {value}", file=out)


def _when(value: Any) -> str:
    return "-" if value is None else f"{value:%Y-%m-%d %H:%M} UTC"


def _size(size: int | None) -> str:
    if size is None:
        return "unknown"
    if size < 1024:
        return f"{size:,} bytes"
    scaled = float(size)
    for unit in ("KB", "MB", "GB"):
        scaled /= 1024
        if scaled < 1024 or unit == "GB":
            break
    return f"{scaled:,.1f} {unit}"


if __name__ == "__main__":
    sys.exit(main())
