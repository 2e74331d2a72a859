"""Whether the sidebar's connection form is offered, and which hosts it may reach.

The form makes the server fetch an address a viewer types, so the operator decides about it:
once a connection is configured (secrets or environment) the form is off unless
`QA_DASHBOARD_ALLOW_CONNECTION_FORM=true` or `allow_connection_form = true` in `[service]`; and
`QA_DASHBOARD_ALLOWED_HOSTS` / `allowed_hosts` limits the hosts it may reach.
`dashboard.data.connection.form_policy` reads it from the secrets and the environment
(`dashboard.data.settings.ServiceKeys`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from dashboard.data.settings import ServiceKeys, problem


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
    table: Mapping[str, Any], environment: Mapping[str, Any], *, configured: bool
) -> tuple[FormPolicy, list[str]]:
    """The operator's decision about the form, from the `[service]` table and the environment
    (`settings.service_environment`), and problems with how it was written. `configured`: whether
    either configures a connection (then the form is off unless allowed)."""
    problems: list[str] = []
    read = [ServiceKeys.read(values) for values in (table, environment)]
    for (_, errors), env in zip(read, (False, True), strict=True):
        problems += [
            problem(error, where="", environment=env)
            for error in errors
            if error["loc"][0] in ("allow_connection_form", "allowed_hosts")
        ]
    if any(error["loc"][0] == "allowed_hosts" for _, errors in read for error in errors):
        return FormPolicy(enabled=False), problems
    allowed = [keys.allow_connection_form for keys, _ in read]
    enabled = True in allowed or (not configured and False not in allowed)
    listed = [str(host).strip().lower() for keys, _ in read for host in keys.allowed_hosts or ()]
    listed = [host for host in listed if host]
    return FormPolicy(
        enabled=enabled, allowed_hosts=frozenset(listed) if listed else None
    ), problems
