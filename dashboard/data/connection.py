"""Which service the dashboard talks to, and with which credentials.

Resolved in this order, first complete source wins:

1. the sidebar form (this viewer's session only; never written to disk or the URL),
2. `.streamlit/secrets.toml`, table `[service]`,
3. the environment: QA_DASHBOARD_BASE_URL, QA_DASHBOARD_TOKEN, QA_DASHBOARD_COMPANY_ID and
   optionally QA_DASHBOARD_EMAIL and QA_DASHBOARD_CA_BUNDLE,
4. the embedded demo sandbox (see `dashboard.data.demo`), when nothing is configured.

A configured source gives its token as it is (`token`), or says where to get renewed ones: a
token file, a token command or an OAuth2 token endpoint (`dashboard.data.credentials`).
A half-configured source (a token but no base URL, say) is not used; it becomes a problem the
page shows, so a typo never silently shows demo data as if it were real.

The form makes the server fetch an address a viewer types, so the operator decides whether it
is offered and which hosts it may reach (`dashboard.data.form_policy`). The token and every
secret of a token source are `SecretStr`s from the moment they are read: never in a repr, a log
line or a cache key.
No Streamlit import: the rules are unit-tested with plain dictionaries.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit, urlunsplit

from pydantic import SecretStr

from dashboard.data.credentials import (
    ENV_OAUTH_PREFIX,
    TokenSourceSettings,
    as_text,
    is_http_url,
    is_set,
    read_token_source,
    shared_source,
)
from dashboard.data.form_policy import FormPolicy, read_form_policy

if TYPE_CHECKING:
    from api_client import ApiClient
    from api_client.tokens import TokenSource

Source = Literal["session", "secrets", "environment", "demo"]

ENV_BASE_URL = "QA_DASHBOARD_BASE_URL"
ENV_TOKEN = "QA_DASHBOARD_TOKEN"  # noqa: S105 - the name of a variable, not a token
ENV_COMPANY_ID = "QA_DASHBOARD_COMPANY_ID"
ENV_EMAIL = "QA_DASHBOARD_EMAIL"
ENV_CA_BUNDLE = "QA_DASHBOARD_CA_BUNDLE"
SECRETS_SECTION = "service"  # [service] of .streamlit/secrets.toml (docs/running-for-a-team.md)

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

    The credential is `token` as it is, or, when `token_source` is set, the tokens that source
    renews (`token` is then empty). Equality and hashing use `fingerprint`, which is what caches
    are keyed on: two connections with the same service, company and token (or token source)
    share cached data; the token itself is never a key, and a renewed token keeps the key.
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
    # Where renewed tokens come from (a token file, a command, a token endpoint); None: `token`.
    token_source: TokenSourceSettings | None = None

    @property
    def fingerprint(self) -> str:
        credential = (
            self.token.get_secret_value()
            if self.token_source is None
            else self.token_source.fingerprint_material()
        )
        token_hash = hashlib.sha256(credential.encode()).hexdigest()
        material = f"{self.base_url}\n{self.company_id}\n{token_hash}\n{self.ca_bundle or ''}"
        return hashlib.sha256(material.encode()).hexdigest()

    @property
    def has_credential(self) -> bool:
        """Whether the connection has a token, or a source of tokens, to show the service."""
        return self.token_source is not None or bool(self.token.get_secret_value().strip())

    def credential(self) -> SecretStr | TokenSource:
        """What the client sends: the token, or this process's one source of renewed tokens
        for this connection (shared by every client made for it)."""
        if self.token_source is None:
            return self.token
        return shared_source(self.token_source, ca_bundle=self.ca_bundle, key=self.fingerprint)

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
        renewed = "" if self.token_source is None else f", token_source={self.token_source.kind!r}"
        return (
            f"Connection(base_url={self.display_url!r}, company_id={self.company_id!r}, "
            f"email={self.email!r}, source={self.source!r}, ca_bundle={self.ca_bundle!r}"
            f"{renewed})"
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Connection) and other.fingerprint == self.fingerprint

    def __hash__(self) -> int:
        return hash(self.fingerprint)


def api_client(connection: Connection, **options: Any) -> ApiClient:
    """The client of `connection`: its base URL, company, CA bundle and credential; `options`
    are `ApiClient`'s others (timeout, max_retries, max_concurrency...). The one place a
    connection becomes a client."""
    from api_client import ApiClient

    return ApiClient(
        base_url=connection.base_url,
        token=connection.credential(),
        company_id=connection.company_id,
        verify=connection.ca_bundle or True,
        **options,
    )


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
    section = (secrets or {}).get(SECRETS_SECTION)
    table: Mapping[str, Any] = section if isinstance(section, Mapping) else {}
    configured = _configures(table, environment=False) or _configures(env, environment=True)
    return read_form_policy(table, env, configured=configured)


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
        and is_set(session.get("base_url"))
        and not form.allows(as_text(session.get("base_url")))
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
        if not _configures(values, environment=source == "environment"):
            continue
        connection, source_problems = _from_values(source, values, names)
        problems.extend(source_problems)
        if connection is not None:
            return Resolution(connection, problems, form)
    return Resolution(None, problems, form)


def _configures(values: Mapping[str, Any], *, environment: bool) -> bool:
    """Whether `values` set any key of a connection (a base URL or any kind of credential)."""
    names = _FIELD_NAMES_ENV if environment else _FIELD_NAMES_PLAIN
    if is_set(values.get(names["base_url"])):
        return True
    if environment:
        return any(
            is_set(value)
            for name, value in values.items()
            if name in _CREDENTIAL_ENV or name.startswith(ENV_OAUTH_PREFIX)
        )
    return any(is_set(values.get(key)) for key in _CREDENTIAL_KEYS)


_CREDENTIAL_KEYS = ("token", "token_file", "token_command", "oauth")
_CREDENTIAL_ENV = (ENV_TOKEN, "QA_DASHBOARD_TOKEN_FILE", "QA_DASHBOARD_TOKEN_COMMAND")
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

    base_url = as_text(values.get(names["base_url"]))
    if not base_url:
        missing.append(f"The base URL is missing in {where}.")
    elif not is_http_url(base_url):
        missing.append(f"The base URL in {where} is not an http(s) address like https://host/Api.")

    raw_token = values.get(names["token"])
    token = raw_token if isinstance(raw_token, SecretStr) else SecretStr(as_text(raw_token))
    token_source, has_credential, credential_problems = (
        read_token_source(values, environment=source == "environment", where=where)
        if source != "session"  # the form takes a token only
        else (None, bool(token.get_secret_value()), [])
    )
    missing.extend(credential_problems)
    if not has_credential:
        missing.append(
            f"The token is missing in {where} (or token_file, token_command or an oauth table "
            "to get one)."
        )

    company_id = _positive_int(values.get(names["company_id"]))
    if company_id is None:
        missing.append(
            f"The company id in {where} is missing or not a whole number from 1 to "
            f"{MAX_COMPANY_ID:,} (ASCII digits only)."
        )

    ca_bundle = as_text(values.get(names["ca_bundle"])) or None
    if ca_bundle is not None and not os.path.isfile(ca_bundle):
        missing.append(f"The CA bundle named in {where} is not a readable file.")

    if missing or company_id is None:
        return None, [*missing, f"Until that is fixed, {where} is not used."]

    # A bad e-mail address only disables "only my executions"; the connection still works.
    notes: list[str] = []
    email = as_text(values.get(names["email"])) or None
    if email is not None and "@" not in email:
        notes.append(f"The e-mail address in {where} does not look like one; it was ignored.")
        email = None
    connection = Connection(
        base_url=base_url.rstrip("/"),
        token=token if token_source is None else SecretStr(""),
        company_id=company_id,
        email=email,
        source=source,
        ca_bundle=ca_bundle,
        token_source=token_source,
    )
    return connection, notes


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
    text = as_text(value)
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
