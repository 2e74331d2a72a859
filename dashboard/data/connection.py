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
Each source's keys are read and checked by `dashboard.data.settings` (pydantic, and
pydantic-settings for the environment); the sentences here and there name a key, never a value.
No Streamlit import: the rules are unit-tested with plain dictionaries.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit, urlunsplit

from pydantic import SecretStr

from dashboard.data.credentials import (
    CREDENTIAL_KEYS,
    TokenSourceSettings,
    read_token_source,
    shared_source,
)
from dashboard.data.form_policy import FormPolicy, read_form_policy
from dashboard.data.settings import (
    ServiceKeys,
    as_text,
    company_id_problem,
    is_set,
    problem,
    service_environment,
)

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
    table, environment = _table(secrets), service_environment(env)
    return read_form_policy(
        table, environment, configured=_configures(table) or _configures(environment)
    )


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
    session = session if form.enabled else None
    if (
        session
        and as_text(session.get("base_url"))
        and not form.allows(as_text(session["base_url"]))
    ):
        problems.append(
            "The sidebar form's base URL is not on this dashboard's list of allowed hosts, "
            "so it was not used. Ask the dashboard's operator which services it may reach."
        )
        session = None
    form_keys = ("base_url", "token", "company_id", "email")  # the form takes a token only
    candidates: list[tuple[Source, Mapping[str, Any]]] = [
        ("session", {key: value for key, value in (session or {}).items() if key in form_keys}),
        ("secrets", _table(secrets)),
        ("environment", service_environment(env)),
    ]
    for source, values in candidates:
        if not _configures(values):
            continue
        connection, source_problems = _from_values(source, values)
        problems.extend(source_problems)
        if connection is not None:
            return Resolution(connection, problems, form)
    return Resolution(None, problems, form)


def _table(secrets: Mapping[str, Any] | None) -> Mapping[str, Any]:
    section = (secrets or {}).get(SECRETS_SECTION)
    return section if isinstance(section, Mapping) else {}


def _configures(values: Mapping[str, Any]) -> bool:
    """Whether `values` set any key of a connection (a base URL or any kind of credential)."""
    return any(is_set(values.get(key)) for key in ("base_url", *CREDENTIAL_KEYS))


def _from_values(source: Source, values: Mapping[str, Any]) -> tuple[Connection | None, list[str]]:
    """A connection from one source, or None and the reasons it is not usable."""
    where, environment = SOURCE_LABELS[source], source == "environment"
    keys, errors = ServiceKeys.read(values)
    given = {key: value for key, value in values.items() if is_set(value)}
    missing = [
        problem(error, where=where, environment=environment)
        for error in errors
        if error["loc"][0] in ("base_url", "ca_bundle")
    ]
    if "base_url" not in given:
        missing.insert(0, f"The base URL is missing in {where}.")
    token_source, has_credential, credential_problems = (
        read_token_source(keys, given, errors, environment=environment, where=where)
        if source != "session"
        else (None, bool(keys.token.get_secret_value()), [])
    )
    missing.extend(credential_problems)
    if not has_credential:
        missing.append(
            f"The token is missing in {where} (or token_file, token_command or an oauth table "
            "to get one)."
        )
    if keys.company_id is None:
        missing.append(company_id_problem(where))
    if missing or keys.company_id is None:
        return None, [*missing, f"Until that is fixed, {where} is not used."]

    # A bad e-mail address only disables "only my executions"; the connection still works.
    notes: list[str] = []
    email = keys.email or None
    if email is not None and "@" not in email:
        notes.append(f"The e-mail address in {where} does not look like one; it was ignored.")
        email = None
    connection = Connection(
        base_url=keys.base_url.rstrip("/"),
        token=keys.token if token_source is None else SecretStr(""),
        company_id=keys.company_id,
        email=email,
        source=source,
        ca_bundle=keys.ca_bundle or None,
        token_source=token_source,
    )
    return connection, notes


def masked_url(url: str) -> str:
    """`url` with the password of its user-info part (`https://user:pw@host`) replaced by ***."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user_info, _, host = parts.netloc.rpartition("@")
    user = user_info.partition(":")[0]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))
