"""Whether the sidebar's connection form is offered, and which hosts it may reach.

The form makes the server fetch an address a viewer types, so the operator decides about it:
once a connection is configured (secrets or environment) the form is off unless
`QA_DASHBOARD_ALLOW_CONNECTION_FORM=true` or `allow_connection_form = true` in `[service]`; and
`QA_DASHBOARD_ALLOWED_HOSTS` / `allowed_hosts` limits the hosts it may reach.
`dashboard.data.connection.form_policy` reads it from the secrets and the environment.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from dashboard.data.credentials import as_text

ENV_ALLOW_FORM = "QA_DASHBOARD_ALLOW_CONNECTION_FORM"
ENV_ALLOWED_HOSTS = "QA_DASHBOARD_ALLOWED_HOSTS"
SECRETS_ALLOW_FORM = "allow_connection_form"
SECRETS_ALLOWED_HOSTS = "allowed_hosts"


@dataclass(frozen=True)
class FormPolicy:
    """Whether the sidebar's connection form is offered, and which hosts it may reach.

    `allowed_hosts` holds `host` or `host:port` entries, lower-case; None means any host.
    """

    enabled: bool = True
    allowed_hosts: frozenset[str] | None = None

    def allows(self, base_url: str) -> bool:
        """Whether the form may connect to `base_url` (its host, or its host and port)."""
        if self.allowed_hosts is None:
            return True
        parts = urlsplit(base_url)
        host = (parts.hostname or "").lower()
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:
            return False
        return host in self.allowed_hosts or f"{host}:{port}" in self.allowed_hosts


def read_form_policy(
    table: Mapping[str, Any], env: Mapping[str, str], *, configured: bool
) -> tuple[FormPolicy, list[str]]:
    """The operator's decision about the form, from the `[service]` table and the environment,
    and problems with how it was written. `configured`: whether either configures a connection
    (then the form is off unless allowed)."""
    problems: list[str] = []
    allowed = [
        _flag(table.get(SECRETS_ALLOW_FORM), SECRETS_ALLOW_FORM, problems),
        _flag(env.get(ENV_ALLOW_FORM), ENV_ALLOW_FORM, problems),
    ]
    enabled = True in allowed or (not configured and False not in allowed)
    hosts: set[str] = set()
    listed = False
    for raw in (table.get(SECRETS_ALLOWED_HOSTS), env.get(ENV_ALLOWED_HOSTS)):
        entries = raw.split(",") if isinstance(raw, str) else raw
        if entries is None:
            continue
        if not isinstance(entries, list | tuple):
            problems.append("The allowed hosts are not a list of host names; the form is off.")
            return FormPolicy(enabled=False), problems
        names = {str(entry).strip().lower() for entry in entries if str(entry).strip()}
        listed = listed or bool(names)
        hosts |= names
    return FormPolicy(enabled=enabled, allowed_hosts=frozenset(hosts) if listed else None), problems


_TRUE = frozenset({"true", "1", "yes", "on"})
_FALSE = frozenset({"false", "0", "no", "off", ""})


def _flag(value: Any, name: str, problems: list[str]) -> bool | None:
    """A yes/no setting: None when not given (or not understood, which is reported)."""
    if value is None or isinstance(value, bool):
        return value
    text = as_text(value).lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False if text else None
    problems.append(f"{name} is not true or false; it was ignored.")
    return None
