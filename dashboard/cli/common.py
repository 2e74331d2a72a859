"""What every command of `python -m dashboard` shares: exit codes, argument types, the secrets
file, the connection (or the embedded demo), opening the store, and one-sentence problems.

Nothing heavy is imported at module level: a usage error answers at once, without loading
pandas, DuckDB and the client. Output names the service by its host and the store by its path:
never a token.
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from api_client import ApiError
    from dashboard.data.connection import Connection
    from dashboard.data.store import HistoryStore
    from dashboard.data.store.errors import StoreError

OK, PARTIAL, USAGE, SERVICE, STORE = 0, 1, 2, 3, 4
INTERRUPTED = 130
BROKEN_PIPE = 141  # 128 + SIGPIPE: what a shell reports for a writer whose reader went away
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


# -- argument types ------------------------------------------------------------------------------


def seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 <= value <= 3600:
        raise argparse.ArgumentTypeError(f"must be between 0 and 3600, got {value}")
    return value


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


_INTERVAL = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|m|h)?\s*$")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, None: 1}
MIN_INTERVAL = 10.0
MAX_INTERVAL = 24 * 3600.0


def interval(text: str) -> float:
    """ "5m", "90s", "1h" or a number of seconds, between 10 s and 24 h."""
    match = _INTERVAL.match(text.lower())
    if not match:
        raise argparse.ArgumentTypeError(f"not an interval like 5m, 90s or 1h: {text!r}")
    value = float(match.group(1)) * _UNIT_SECONDS[match.group(2)]
    if not MIN_INTERVAL <= value <= MAX_INTERVAL:
        raise argparse.ArgumentTypeError(
            f"must be between {MIN_INTERVAL:.0f} s and 24 h, got {value:.0f} s"
        )
    return value


def add_connection_options(sub: argparse.ArgumentParser) -> None:
    """--secrets and --wait, which every command that reads a connection's store takes."""
    sub.add_argument(
        "--secrets",
        type=Path,
        default=DEFAULT_SECRETS,
        help="the secrets file to read the connection from (default: %(default)s)",
    )
    sub.add_argument(
        "--wait",
        type=seconds,
        default=DEFAULT_WAIT,
        help="seconds to wait for another process using the store (default: %(default)s)",
    )


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
def default_connection(secrets: Mapping[str, Any], env: Mapping[str, str]) -> Iterator[Connection]:
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
    with demo_connection() as connection:
        yield connection


@contextmanager
def demo_connection() -> Iterator[Connection]:
    """The embedded demo sandbox, started for the command and stopped after it."""
    from dashboard.data import demo  # the sandbox is only needed for the demo

    print("No service configured: using the embedded demo sandbox.", file=sys.stderr)
    service = demo.start()
    try:
        yield service.connection
    finally:
        service.server.stop()


def open_store(
    connection: Connection, secrets: Mapping[str, Any], env: Mapping[str, str], *, wait: float
) -> HistoryStore:
    from dashboard.data.store import open_for
    from dashboard.data.store.errors import StoreError

    try:
        return open_for(connection, secrets=secrets, env=env, wait=wait)
    except StoreError as error:
        raise CliError(store_problem(error), STORE) from None


def client_for(connection: Connection, *, max_concurrency: int = 4) -> Any:
    """An `ApiClient` for `connection` (its token, or its token source, stays inside)."""
    from dashboard.data.connection import api_client

    return api_client(connection, max_concurrency=max_concurrency)


# -- words ---------------------------------------------------------------------------------------


def service_words(connection: Connection) -> str:
    if connection.is_demo:
        return f"the embedded demo (company {connection.company_id})"
    return f"{connection.host} (company {connection.company_id})"


def service_problem(error: ApiError, connection: Connection) -> str:
    """One sentence from the error's class and typed attributes (never a token)."""
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
