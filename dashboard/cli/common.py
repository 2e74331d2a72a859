"""What every command of `python -m dashboard` shares: exit codes, the parsed command, the
secrets file, the connection (or the embedded demo), opening the store, and one-sentence problems.

Nothing heavy is imported at module level: a usage error answers at once, without loading
pandas, DuckDB and the client. Output names the service by its host and the store by its path:
never a token.
"""

from __future__ import annotations

import getpass
import re
import sys
import tomllib
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import typer

from dashboard.cli.options import DEFAULT_SECRETS

if TYPE_CHECKING:
    from api_client import ApiError
    from dashboard.data.connection import Connection
    from dashboard.data.store import HistoryStore
    from dashboard.data.store.errors import StoreError

OK, PARTIAL, USAGE, SERVICE, STORE = 0, 1, 2, 3, 4
CONNECTIONS_SECTION = "connections"  # [connections.NAME] of the secrets file (`cli.connections`)
_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
INTERRUPTED = 130
BROKEN_PIPE = 141  # 128 + SIGPIPE: what a shell reports for a writer whose reader went away

Args = SimpleNamespace
"""A command's parsed options, by their names (`--digest-at` is `args.digest_at`)."""


@dataclass(frozen=True)
class Parsed:
    """What the command line asked for: the command's function and its options. `main` runs
    it outside Typer, so that its own safety nets (exit 4, 141, 130) see what it raises."""

    run: Callable[[Args, Mapping[str, str]], int]
    args: Args


def parsed(ctx: typer.Context, run: Callable[[Args, Mapping[str, str]], int]) -> Parsed:
    """A command's answer to Typer: `run` with the options of `ctx`, for `main` to run."""
    return Parsed(run, Args(**ctx.params))


class CliError(Exception):
    """A failure the command reports in one sentence, with its exit code."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


# -- secrets, connection, store ------------------------------------------------------------------


def read_secrets(path: Path) -> dict[str, Any]:
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


def read_configuration(path: Path, env: Mapping[str, str]) -> dict[str, Any]:
    """The secrets file (`read_secrets`), with the store URL it or the environment names checked
    before anything runs: a malformed one is the operator's configuration (exit 2), not a store
    that cannot be opened, and its text is never echoed (it may hold a password anywhere)."""
    # Lazy, for a fast --help: the data layer loads pandas and DuckDB.
    from dashboard.data.store.location import store_url

    secrets = read_secrets(path)
    url = store_url(secrets=secrets, env=env)
    if url is not None:
        from dashboard.data.store.errors import StoreError
        from dashboard.data.store.pg_pool import check_url  # psycopg only when configured

        try:
            check_url(url)
        except StoreError as error:
            raise CliError(error.message, USAGE) from None
    return secrets


@contextmanager
def default_connection(
    secrets: Mapping[str, Any], env: Mapping[str, str], *, start_demo: bool = True
) -> Iterator[Connection]:
    """The configured connection, or the embedded demo (started here) when none is. With
    `start_demo=False` the demo's login is given without starting its sandbox (`demo.login`):
    enough for a command that reads and writes the demo's store only, and seconds faster at
    100,000 executions; `demo_connection` starts it when the service is needed after all."""
    # Lazy, for a fast --help: the connection loads the client (pydantic, httpx).
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
    if not start_demo:
        from dashboard.data import demo  # the sandbox is only needed for the demo

        print(DEMO_WORDS, file=sys.stderr)
        yield demo.login(DEMO_NOT_SERVED, environ=env)
        return
    with demo_connection(env=env) as connection:
        yield connection


DEMO_WORDS = "No service configured: using the embedded demo sandbox."
DEMO_NOT_SERVED = "http://127.0.0.1:0"
"""The address of a demo login whose sandbox is not started (nothing answers there)."""


@contextmanager
def demo_connection(
    *, quiet: bool = False, env: Mapping[str, str] | None = None
) -> Iterator[Connection]:
    """The embedded demo sandbox, started for the command and stopped after it: of the size
    the command's `env` asks for (the process's environment when None), as its store is named."""
    from dashboard.data import demo  # the sandbox is only needed for the demo

    if not quiet:
        print(DEMO_WORDS, file=sys.stderr)
    service = demo.start(env)
    try:
        yield service.connection
    finally:
        service.server.stop()


def open_store(
    connection: Connection, secrets: Mapping[str, Any], env: Mapping[str, str], *, wait: float
) -> HistoryStore:
    # Lazy, for a fast --help: the data layer loads pandas and DuckDB.
    from dashboard.data.store import open_for
    from dashboard.data.store.errors import StoreError

    try:
        return open_for(connection, secrets=secrets, env=env, wait=wait)
    except StoreError as error:
        raise CliError(store_problem(error), STORE) from None


@contextmanager
def checked_store(args: Args, env: Mapping[str, str]) -> Iterator[tuple[Connection, HistoryStore]]:
    """The connection of `args` (`--connection NAME`, else the dashboard's own) and its store,
    once the service has accepted the connection's credential for its company (`store.access`):
    what `known`, `scenarios` and `rules` work on. The embedded demo is its own service and its
    login the demo's: nothing to ask, so its sandbox is not started for a command on its store."""
    from dashboard.data.store.access import ask_service  # lazy: the store loads DuckDB

    secrets = read_configuration(args.secrets, env)
    with _chosen(args, secrets, env) as connection:
        if not connection.is_demo:
            access = ask_service(connection)
            if not access.allowed:
                raise CliError(_withheld(connection, access.reason), SERVICE)
        with open_store(connection, secrets, env, wait=args.wait) as store:
            yield connection, store


@contextmanager
def _chosen(args: Args, secrets: Mapping[str, Any], env: Mapping[str, str]) -> Iterator[Connection]:
    if args.connection:
        yield named_connection(secrets, args.connection)
        return
    with default_connection(secrets, env, start_demo=False) as connection:
        yield connection


def named_connection(secrets: Mapping[str, Any], name: str) -> Connection:
    """The connection of table `[connections.NAME]`; `CliError` (USAGE) when it is not usable."""
    # Lazy, for a fast --help: the connection loads the client (pydantic, httpx).
    from dashboard.data.connection import SECRETS_SECTION, resolve

    if not _NAME.match(name):
        raise CliError(f"--connection {name!r}: use letters, digits, '.', '_' or '-'", USAGE)
    tables = secrets.get(CONNECTIONS_SECTION)
    table = tables.get(name) if isinstance(tables, Mapping) else None
    if not isinstance(table, Mapping):
        known = sorted(tables) if isinstance(tables, Mapping) else []
        listed = f" (the file has: {', '.join(known)})" if known else ""
        raise CliError(
            f"no table [{CONNECTIONS_SECTION}.{name}] in the secrets file{listed}", USAGE
        )
    # Resolved by the dashboard's own rules, as if the table were [service]; the environment is
    # left out so that QA_DASHBOARD_* cannot fill in a named connection's missing keys.
    resolution = resolve(session=None, secrets={SECRETS_SECTION: dict(table)}, env={})
    if resolution.connection is None:
        problems = " ".join(resolution.problems) or "base_url and token are missing."
        problems = problems.replace(".streamlit/secrets.toml", f"[{CONNECTIONS_SECTION}.{name}]")
        raise CliError(f"connection {name!r} cannot be used: {problems}", USAGE)
    return resolution.connection


def _withheld(connection: Connection, reason: str) -> str:
    where = service_words(connection)
    if reason == "unchecked":
        return (
            f"{where} could not be asked whether this credential may read company "
            f"{connection.company_id}'s marks; try again when it answers."
        )
    return (
        f"{where} did not accept this credential for company {connection.company_id} "
        f"({reason}), so its marks are neither shown nor changed."
    )


@contextmanager
def refusals(refused: type[Exception]) -> Iterator[None]:
    """A store's refusal of a change (`refused`, with its `problems`: exit 2) or a store error
    (exit 4), said in one sentence."""
    # Lazy, for a fast --help: the data layer loads pandas and DuckDB.
    from dashboard.data.store.errors import StoreError

    try:
        yield
    except refused as error:
        raise CliError(" ".join(getattr(error, "problems", ())), USAGE) from None
    except StoreError as error:
        raise CliError(store_problem(error), STORE) from None


def by_of(args: Args) -> str:
    """Who makes a change: `--by`, else the user running the command."""
    if args.by is not None:
        return str(args.by)
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        raise CliError("who is making this change? Give --by NAME.", USAGE) from None


def client_for(connection: Connection, *, max_concurrency: int = 4) -> Any:
    """An `ApiClient` for `connection` (its token, or its token source, stays inside)."""
    # Lazy, for a fast --help: the connection loads the client (pydantic, httpx).
    from dashboard.data.connection import api_client

    return api_client(connection, max_concurrency=max_concurrency)


# -- words ---------------------------------------------------------------------------------------


def service_words(connection: Connection) -> str:
    if connection.is_demo:
        return f"the embedded demo (company {connection.company_id})"
    return f"{connection.host} (company {connection.company_id})"


def service_problem(error: ApiError, connection: Connection) -> str:
    """One sentence from the error's class and typed attributes (never a token)."""
    # Lazy, for a fast --help: the client loads pydantic and httpx.
    from api_client import (
        ApiConnectionError,
        ApiStatusError,
        AuthenticationError,
        CompanyNotFoundError,
        PermissionDeniedError,
        TokenError,
    )

    where = service_words(connection)
    if isinstance(error, TokenError):  # its message names the token source, never a secret
        return f"no token for {where}: {error.message}"
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


def store_problem(error: StoreError) -> str:
    # Lazy, for a fast --help: the data layer loads pandas and DuckDB.
    from dashboard.data.store.errors import StoreBusyError

    if isinstance(error, StoreBusyError):
        return (
            f"{error.message} Another sync or the dashboard is using it; try again later "
            "(a cron job should not start a sync while one runs)."
        )
    return error.message


def when(value: Any) -> str:
    return "-" if value is None else f"{value:%Y-%m-%d %H:%M} UTC"


def size(value: int | None) -> str:
    if value is None:
        return "unknown"
    if value < 1024:
        return f"{value:,} bytes"
    scaled = float(value)
    for unit in ("KB", "MB", "GB"):
        scaled /= 1024
        if scaled < 1024 or unit == "GB":
            break
    return f"{scaled:,.1f} {unit}"
