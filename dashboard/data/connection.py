"""Which service the dashboard talks to, and with which credentials.

Resolved in this order, first complete source wins:

1. the sidebar form (this viewer's session only; never written to disk or the URL),
2. `.streamlit/secrets.toml`, table `[service]`,
3. the environment: QA_DASHBOARD_BASE_URL, QA_DASHBOARD_TOKEN, QA_DASHBOARD_COMPANY_ID and
   optionally QA_DASHBOARD_EMAIL and QA_DASHBOARD_CA_BUNDLE,
4. the embedded demo sandbox (see `dashboard.demo`), when nothing is configured.

A half-configured source (a token but no base URL, say) is not used; it becomes a problem the
page shows, so a typo never silently shows demo data as if it were real.

The form makes the server fetch an address a viewer types, so the operator decides about it
(`FormPolicy`): once a connection is configured (secrets or environment) the form is off unless
`QA_DASHBOARD_ALLOW_CONNECTION_FORM=true` or `allow_connection_form = true` in `[service]`; and
`QA_DASHBOARD_ALLOWED_HOSTS` / `allowed_hosts` limits the hosts it may reach. The token is a
`SecretStr` from the moment it is read: it never appears in a repr, a log line or a cache key.
No Streamlit import: the rules are unit-tested with plain dictionaries.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

from pydantic import SecretStr

Source = Literal["session", "secrets", "environment", "demo"]

ENV_BASE_URL = "QA_DASHBOARD_BASE_URL"
ENV_TOKEN = "QA_DASHBOARD_TOKEN"  # noqa: S105 - the name of a variable, not a token
ENV_COMPANY_ID = "QA_DASHBOARD_COMPANY_ID"
ENV_EMAIL = "QA_DASHBOARD_EMAIL"
ENV_CA_BUNDLE = "QA_DASHBOARD_CA_BUNDLE"
ENV_ALLOW_FORM = "QA_DASHBOARD_ALLOW_CONNECTION_FORM"
ENV_ALLOWED_HOSTS = "QA_DASHBOARD_ALLOWED_HOSTS"
SECRETS_ALLOW_FORM = "allow_connection_form"
SECRETS_ALLOWED_HOSTS = "allowed_hosts"
SECRETS_SECTION = "service"  # the [service] table of .streamlit/secrets.toml (see README)

MAX_COMPANY_ID = 2**63 - 1
"""The largest company id: the service's ids are Java longs (signed 64-bit)."""

SOURCE_LABELS: dict[Source, str] = {
    "session": "the sidebar form (this session only)",
    "secrets": ".streamlit/secrets.toml",
    "environment": "QA_DASHBOARD_* environment variables",
    "demo": "the embedded demo sandbox",
}


@dataclass(frozen=True, eq=False)
class Connection:
    """A service address and the credentials to read it.

    Equality and hashing use `fingerprint`, which is what caches are keyed on: two connections
    with the same service, company and token share cached data; the token itself is never a key.
    """

    base_url: str
    token: SecretStr = field(repr=False)
    company_id: int
    email: str | None = None
    source: Source = "environment"
    # A PEM file of CA certificates for a self-hosted service; None: the system's trust store.
    # TLS verification is never turned off.
    ca_bundle: str | None = None
    # The demo data's "now". Presets such as "last 7 days" count back from it, so the demo shows
    # data however long after the sandbox's fixed date it runs. None means the wall clock.
    clock: datetime | None = None

    @property
    def fingerprint(self) -> str:
        token_hash = hashlib.sha256(self.token.get_secret_value().encode()).hexdigest()
        material = f"{self.base_url}\n{self.company_id}\n{token_hash}\n{self.ca_bundle or ''}"
        return hashlib.sha256(material.encode()).hexdigest()

    @property
    def host(self) -> str:
        """The service's host and port, for display (no path, no credentials)."""
        parts = urlsplit(self.base_url)
        return parts.hostname + (f":{parts.port}" if parts.port else "") if parts.hostname else "?"

    @property
    def is_demo(self) -> bool:
        return self.source == "demo"

    @property
    def display_url(self) -> str:
        """The base URL with any password in it masked, for a repr or a log line."""
        return masked_url(self.base_url)

    def __repr__(self) -> str:
        # Written out (not the dataclass's) so a password inside the base URL is masked; the
        # token is never shown at all.
        return (
            f"Connection(base_url={self.display_url!r}, company_id={self.company_id!r}, "
            f"email={self.email!r}, source={self.source!r}, ca_bundle={self.ca_bundle!r})"
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Connection) and other.fingerprint == self.fingerprint

    def __hash__(self) -> int:
        return hash(self.fingerprint)


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


@dataclass(frozen=True)
class Resolution:
    """The configured connection (None: use the demo) and problems with the configuration."""

    connection: Connection | None
    problems: list[str] = field(default_factory=list)
    form: FormPolicy = field(default_factory=FormPolicy)


def form_policy(
    *, secrets: Mapping[str, Any] | None, env: Mapping[str, str]
) -> tuple[FormPolicy, list[str]]:
    """The operator's decision about the form, and problems with how it was written."""
    problems: list[str] = []
    section = (secrets or {}).get(SECRETS_SECTION)
    table: Mapping[str, Any] = section if isinstance(section, Mapping) else {}
    configured = any(
        _present(values.get(names[f]))
        for values, names in ((table, _FIELD_NAMES_SECRETS), (env, _FIELD_NAMES_ENV))
        for f in ("base_url", "token")
    )
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
    text = _text(value).lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False if text else None
    problems.append(f"{name} is not true or false; it was ignored.")
    return None


def resolve(
    *,
    session: Mapping[str, Any] | None,
    secrets: Mapping[str, Any] | None,
    env: Mapping[str, str],
) -> Resolution:
    """Pick the connection from the first complete source; None means "use the demo".

    The form's values (`session`) count only where `form_policy` allows the form and its host.
    """
    form, problems = form_policy(secrets=secrets, env=env)
    section = (secrets or {}).get(SECRETS_SECTION)
    session = session if form.enabled else None
    if (
        session
        and _present(session.get("base_url"))
        and not form.allows(_text(session.get("base_url")))
    ):
        problems.append(
            "The sidebar form's base URL is not on this dashboard's list of allowed hosts, "
            "so it was not used. Ask the dashboard's operator which services it may reach."
        )
        session = None
    candidates: list[tuple[Source, Mapping[str, Any], dict[str, str]]] = [
        ("session", session or {}, _FIELD_NAMES_PLAIN),
        ("secrets", section if isinstance(section, Mapping) else {}, _FIELD_NAMES_SECRETS),
        ("environment", env, _FIELD_NAMES_ENV),
    ]
    for source, values, names in candidates:
        if not any(_present(values.get(names[f])) for f in ("base_url", "token")):
            continue
        connection, source_problems = _from_values(source, values, names)
        problems.extend(source_problems)
        if connection is not None:
            return Resolution(connection, problems, form)
    return Resolution(None, problems, form)


_FIELD_NAMES_PLAIN = {f: f for f in ("base_url", "token", "company_id", "email", "ca_bundle")}
_FIELD_NAMES_SECRETS = _FIELD_NAMES_PLAIN
_FIELD_NAMES_ENV = {
    "base_url": ENV_BASE_URL,
    "token": ENV_TOKEN,
    "company_id": ENV_COMPANY_ID,
    "email": ENV_EMAIL,
    "ca_bundle": ENV_CA_BUNDLE,
}


def _from_values(
    source: Source, values: Mapping[str, Any], names: Mapping[str, str]
) -> tuple[Connection | None, list[str]]:
    """A connection from one source, or None and the reasons it is not usable."""
    where = SOURCE_LABELS[source]
    missing: list[str] = []

    base_url = _text(values.get(names["base_url"]))
    if not base_url:
        missing.append(f"The base URL is missing in {where}.")
    elif not _is_http_url(base_url):
        missing.append(f"The base URL in {where} is not an http(s) address like https://host/Api.")

    raw_token = values.get(names["token"])
    token = raw_token if isinstance(raw_token, SecretStr) else SecretStr(_text(raw_token))
    if not token.get_secret_value():
        missing.append(f"The token is missing in {where}.")

    company_id = _positive_int(values.get(names["company_id"]))
    if company_id is None:
        missing.append(
            f"The company id in {where} is missing or not a whole number from 1 to "
            f"{MAX_COMPANY_ID:,} (ASCII digits only)."
        )

    ca_bundle = _text(values.get(names["ca_bundle"])) or None
    if ca_bundle is not None and not os.path.isfile(ca_bundle):
        missing.append(f"The CA bundle named in {where} is not a readable file.")

    if missing or company_id is None:
        return None, [*missing, f"Until that is fixed, {where} is not used."]

    # A bad e-mail address only disables "only my executions"; the connection still works.
    notes: list[str] = []
    email = _text(values.get(names["email"])) or None
    if email is not None and "@" not in email:
        notes.append(f"The e-mail address in {where} does not look like one; it was ignored.")
        email = None
    connection = Connection(
        base_url=base_url.rstrip("/"),
        token=token,
        company_id=company_id,
        email=email,
        source=source,
        ca_bundle=ca_bundle,
    )
    return connection, notes


def _present(value: Any) -> bool:
    if isinstance(value, SecretStr):
        return bool(value.get_secret_value())
    return bool(_text(value))


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ("" if value is None else str(value))


_ASCII_DIGITS = re.compile(r"[0-9]+")


def _positive_int(value: Any) -> int | None:
    """A company id from a form, the environment or TOML; None if it is not one.

    Only ASCII digits count (`str.isdigit` also accepts "²" and "①", which `int` rejects), and
    the length is checked before converting, so a 5,000-digit value is refused, not an error
    (Python refuses to convert more than 4,300 digits).
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 < value <= MAX_COMPANY_ID else None
    text = _text(value)
    if not _ASCII_DIGITS.fullmatch(text):
        return None
    significant = text.lstrip("0")
    if not significant or len(significant) > len(str(MAX_COMPANY_ID)):
        return None
    number = int(significant)
    return number if number <= MAX_COMPANY_ID else None


def masked_url(url: str) -> str:
    """`url` with the password of its user-info part (`https://user:pw@host`) replaced by ***."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user_info, _, host = parts.netloc.rpartition("@")
    user = user_info.partition(":")[0]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


def _is_http_url(value: str) -> bool:
    parts = urlsplit(value)
    return parts.scheme in ("http", "https") and bool(parts.hostname)
