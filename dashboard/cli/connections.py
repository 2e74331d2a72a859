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

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

# named_connection lives with the other connection helpers (`common.checked_store` uses it).
from dashboard.cli.common import CONNECTIONS_SECTION as CONNECTIONS_SECTION
from dashboard.cli.common import default_connection
from dashboard.cli.common import named_connection as named_connection

if TYPE_CHECKING:
    from dashboard.data.connection import Connection


@dataclass(frozen=True)
class Target:
    """One connection a command works on, and the name it is reported under."""

    name: str
    connection: Connection


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
