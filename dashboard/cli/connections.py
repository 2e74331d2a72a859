"""Which connections a command works on: the dashboard's own, or named ones for the worker.

Without `--connection`, a command uses the connection the dashboard would (the `[service]` table
of the secrets file, then the `QA_DASHBOARD_*` variables, else the embedded demo). A worker that
keeps several services or companies current names them: each `--connection NAME` is a table
`[connections.NAME]` of the secrets file with the keys of `[service]` (base_url, company_id,
ca_bundle, and a token or what renews one: token_file, token_command, or an `oauth` table as
`dashboard.data.credentials` describes):

    [connections.shop]
    base_url = "https://qa.example.com/Api"
    token = "..."            # the worker's own service credential, not a viewer's
    company_id = 7

    [connections.nightly]
    base_url = "https://qa.example.com/Api"
    company_id = 9

    [connections.nightly.oauth]
    token_url = "https://qa.example.com/oauth/token"
    grant = "client_credentials"
    client_id = "qa-worker"
    client_secret = "..."

Each named connection is checked as strictly as `[service]`: a half-filled one is an error that
names the table and the missing key, never its values.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dashboard.cli.common import USAGE, CliError, default_connection

if TYPE_CHECKING:
    from dashboard.data.connection import Connection

CONNECTIONS_SECTION = "connections"
_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


@dataclass(frozen=True)
class Target:
    """One connection a command works on, and the name it is reported under."""

    name: str
    connection: Connection


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


@contextmanager
def targets(
    secrets: Mapping[str, Any], env: Mapping[str, str], names: Sequence[str]
) -> Iterator[list[Target]]:
    """The named connections, in the order given (each once); without names, the default one."""
    if not names:
        with default_connection(secrets, env) as connection:
            yield [Target("default", connection)]
        return
    unique = list(dict.fromkeys(names))
    yield [Target(name, named_connection(secrets, name)) for name in unique]
