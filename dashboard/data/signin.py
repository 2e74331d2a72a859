"""Who may see a team's dashboard: viewer sign-in settings, and the one rule that admits a viewer.

Sign-in is Streamlit's own OpenID Connect (`st.login`): it is on when `.streamlit/secrets.toml`
has an `[auth]` table, which Streamlit reads (`redirect_uri`, `cookie_secret`, and a provider's
`client_id`, `client_secret`, `server_metadata_url`, at the top of `[auth]` or in `[auth.NAME]`
tables). Who gets in is this dashboard's own decision, made from:

- `allowed_emails`: addresses admitted one by one,
- `allowed_domains`: domains whose every address is admitted (exactly that domain, not its
  subdomains),
- `operators`: addresses that may also clear a shared history store from the page,

in a `[signin]` table of the same file, or `QA_DASHBOARD_ALLOWED_EMAILS`,
`QA_DASHBOARD_ALLOWED_DOMAINS`, `QA_DASHBOARD_OPERATORS` (comma-separated; both places add up).

Checked strictly, because a typo here decides who reads the company's history: any problem with
`[auth]` or these lists closes the dashboard to everyone, with a sentence naming the table and
the key (never a value), rather than opening it wider than meant. With `[auth]` and neither list,
nobody is admitted. Without `[auth]` nothing changes (local use, the demo); lists set without it
are said in the sidebar, as they protect nothing. No Streamlit import: the rules are tested with
plain dictionaries.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx

AUTH_SECTION = "auth"  # Streamlit's table in .streamlit/secrets.toml
SIGNIN_SECTION = "signin"  # this dashboard's table beside it
SECRETS_FILE = ".streamlit/secrets.toml"

ALLOWED_EMAILS = "allowed_emails"
ALLOWED_DOMAINS = "allowed_domains"
OPERATORS = "operators"
ENV_NAMES = {
    ALLOWED_EMAILS: "QA_DASHBOARD_ALLOWED_EMAILS",
    ALLOWED_DOMAINS: "QA_DASHBOARD_ALLOWED_DOMAINS",
    OPERATORS: "QA_DASHBOARD_OPERATORS",
}

PROVIDER_KEYS = ("client_id", "client_secret", "server_metadata_url")
COOKIE_SECRET_MIN_LENGTH = 32
"""The shortest `cookie_secret` accepted: it signs the identity cookie, so a short one could be
guessed (`python -c "import secrets; print(secrets.token_urlsafe(32))"` gives 43 characters)."""
PROBE_TIMEOUT_S = 5.0
"""How long the sign-in page waits for the provider's OpenID configuration before saying it is
not answering."""

_EMAIL = re.compile(r"[^@\s,;<>\"']+@[^@\s,;<>\"']+\.[^@\s,;<>\"']+")
_DOMAIN = re.compile(r"(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9-]{1,63})*")


@dataclass(frozen=True)
class Provider:
    """An OpenID Connect provider of `[auth]`: `name` is None for the unnamed one (the keys at the
    top of `[auth]`), else the NAME of `[auth.NAME]`, which `st.login(NAME)` takes."""

    name: str | None
    metadata_url: str = field(repr=False)

    @property
    def host(self) -> str:
        """The provider's host, for a sentence (no path: a tenant id may be in it)."""
        return urlsplit(self.metadata_url).hostname or "?"


@dataclass(frozen=True)
class SignIn:
    """The sign-in settings. `configured`: `[auth]` exists, so every page asks for sign-in.
    `problems`: what is wrong with them (any closes the dashboard). `notes`: what is worth saying
    but closes nothing (lists that protect nothing without `[auth]`)."""

    configured: bool = False
    providers: tuple[Provider, ...] = ()
    allowed_emails: frozenset[str] = frozenset()
    allowed_domains: frozenset[str] = frozenset()
    operators: frozenset[str] = frozenset()
    problems: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def admits(self, email: str) -> bool:
        """Whether the (normalised) address may see the dashboard."""
        domain = email.rpartition("@")[2]
        return email in self.allowed_emails or domain in self.allowed_domains


@dataclass(frozen=True)
class Admission:
    """What the sign-in rule says of one signed-in viewer: their address (normalised, when the
    provider gave one) and whether it is admitted; `reason` says why not."""

    email: str | None
    admitted: bool
    reason: str = ""  # "no-email", "unverified" or "not-listed" when not admitted


def normalise(email: str) -> str:
    """An address as compared and kept: trimmed, lower-case (domains are case-blind, and every
    provider this is used with treats the local part so too)."""
    return email.strip().lower()


def admission(settings: SignIn, claims: Mapping[str, Any]) -> Admission:
    """Whether the signed-in viewer whose identity claims are `claims` may see the dashboard.

    The address must be there, must not be one the provider says it has not verified
    (`email_verified: false`), and must be listed or in a listed domain.
    """
    raw = claims.get("email")
    if not isinstance(raw, str) or not _EMAIL.fullmatch(raw.strip()):
        return Admission(None, False, "no-email")
    email = normalise(raw)
    if claims.get("email_verified") is False or claims.get("email_verified") == "false":
        return Admission(email, False, "unverified")
    if settings.problems or not settings.admits(email):
        return Admission(email, False, "not-listed")
    return Admission(email, True)


def settings(*, secrets: Mapping[str, Any] | None, env: Mapping[str, str]) -> SignIn:
    """The sign-in settings of `secrets` (`.streamlit/secrets.toml` as a dictionary) and `env`."""
    secrets = secrets or {}
    problems: list[str] = []
    table = secrets.get(SIGNIN_SECTION)
    if table is not None and not isinstance(table, Mapping):
        problems.append(f"[{SIGNIN_SECTION}] in {SECRETS_FILE} is not a table.")
        table = {}
    table = table or {}
    for key in sorted(set(table) - set(ENV_NAMES)):
        problems.append(
            f'[{SIGNIN_SECTION}] in {SECRETS_FILE} has a key "{key}" this dashboard does not '
            f"know (it knows {', '.join(ENV_NAMES)})."
        )
    emails = _listed(ALLOWED_EMAILS, table, env, _EMAIL, problems)
    domains = _listed(ALLOWED_DOMAINS, table, env, _DOMAIN, problems)
    operators = _listed(OPERATORS, table, env, _EMAIL, problems)

    auth = secrets.get(AUTH_SECTION)
    if auth is None:
        listed = [name for name, values in _named(emails, domains, operators) if values]
        notes = tuple(
            f"{name} is set, but sign-in is not (no [{AUTH_SECTION}] table in {SECRETS_FILE}): "
            "anyone who can reach this dashboard sees it."
            for name in listed[:1]
        )
        return SignIn(notes=notes)
    providers = _auth_problems(auth, problems)
    if not emails and not domains and not problems:
        problems.append(
            f"Sign-in is on but nobody may sign in: list addresses in {ALLOWED_EMAILS} or domains "
            f"in {ALLOWED_DOMAINS} ([{SIGNIN_SECTION}] in {SECRETS_FILE}, or "
            f"{ENV_NAMES[ALLOWED_EMAILS]} / {ENV_NAMES[ALLOWED_DOMAINS]})."
        )
    return SignIn(
        configured=True,
        providers=providers,
        allowed_emails=emails,
        allowed_domains=domains,
        operators=operators,
        problems=tuple(problems),
    )


def _named(
    emails: frozenset[str], domains: frozenset[str], operators: frozenset[str]
) -> list[tuple[str, frozenset[str]]]:
    return [(ALLOWED_EMAILS, emails), (ALLOWED_DOMAINS, domains), (OPERATORS, operators)]


def _listed(
    name: str,
    table: Mapping[str, Any],
    env: Mapping[str, str],
    shape: re.Pattern[str],
    problems: list[str],
) -> frozenset[str]:
    """One list setting, from the table and the environment together; entries that do not fit
    `shape` are problems naming the setting and the entry's position, never the entry."""
    found: set[str] = set()
    sources: list[tuple[str, Any]] = [
        (f"{name} in [{SIGNIN_SECTION}] of {SECRETS_FILE}", table.get(name)),
        (ENV_NAMES[name], env.get(ENV_NAMES[name])),
    ]
    for where, raw in sources:
        if raw is None or (isinstance(raw, str) and not raw.strip()):
            continue
        entries: Sequence[Any] = raw.split(",") if isinstance(raw, str) else raw
        if not isinstance(entries, list | tuple):
            problems.append(f"{where} is not a list.")
            continue
        for position, entry in enumerate(entries, start=1):
            if isinstance(entry, str) and not entry.strip():
                continue  # "a,b," in a variable: a trailing comma is no entry
            text = normalise(entry) if isinstance(entry, str) else ""
            if name == ALLOWED_DOMAINS:
                text = text.removeprefix("@")
            if not shape.fullmatch(text):
                kind = "a domain name" if name == ALLOWED_DOMAINS else "an e-mail address"
                problems.append(f"Entry {position} of {where} is not {kind}.")
                continue
            found.add(text)
    return frozenset(found)


def _auth_problems(auth: Any, problems: list[str]) -> tuple[Provider, ...]:
    """The providers of `[auth]`, adding to `problems` what Streamlit would refuse only when a
    viewer presses *Sign in* (or what it accepts that should not be: a short cookie secret)."""
    where = f"[{AUTH_SECTION}] in {SECRETS_FILE}"
    if not isinstance(auth, Mapping):
        problems.append(f"{where} is not a table.")
        return ()
    redirect = auth.get("redirect_uri")
    if not _text(redirect):
        problems.append(f"{where} has no redirect_uri.")
    elif not _is_http_url(str(redirect)) or not str(redirect).rstrip().endswith("/oauth2callback"):
        problems.append(
            f"redirect_uri in {where} is not this dashboard's address ending in /oauth2callback."
        )
    secret = auth.get("cookie_secret")
    if not _text(secret):
        problems.append(f"{where} has no cookie_secret.")
    elif len(str(secret).strip()) < COOKIE_SECRET_MIN_LENGTH:
        problems.append(
            f"cookie_secret in {where} is shorter than {COOKIE_SECRET_MIN_LENGTH} characters: "
            "use a long random value."
        )
    tables: list[tuple[str | None, str, Mapping[str, Any]]] = []
    if any(key in auth for key in PROVIDER_KEYS):
        tables.append((None, where, auth))
    for name, value in auth.items():
        if isinstance(value, Mapping) and any(key in value for key in PROVIDER_KEYS):
            tables.append((str(name), f"[{AUTH_SECTION}.{name}] in {SECRETS_FILE}", value))
    if not tables:
        problems.append(
            f"{where} names no provider: client_id, client_secret and server_metadata_url, "
            f"at its top or in an [{AUTH_SECTION}.NAME] table."
        )
    providers: list[Provider] = []
    for name, table_where, table in tables:
        missing = [key for key in PROVIDER_KEYS if not _text(table.get(key))]
        if name is not None and "_" in name:
            problems.append(f"The provider name of {table_where} has an underscore (not allowed).")
        elif missing:
            problems.append(f"{table_where} has no {' and no '.join(missing)}.")
        elif not _is_http_url(str(table["server_metadata_url"])):
            problems.append(f"server_metadata_url in {table_where} is not an http(s) address.")
        else:
            providers.append(Provider(name, str(table["server_metadata_url"]).strip()))
    return tuple(providers)


def provider_problem(
    provider: Provider,
    *,
    timeout: float = PROBE_TIMEOUT_S,
    transport: httpx.BaseTransport | None = None,
) -> str | None:
    """Why the provider cannot sign anyone in right now (None: its OpenID configuration answers).

    A short phrase for a sentence ("does not answer", "answers HTTP 503"), naming nothing of
    the URL but what `Provider.host` shows. `transport` is the tests' seam.
    """
    try:
        with httpx.Client(transport=transport, timeout=timeout) as client:
            response = client.get(provider.metadata_url)
    except httpx.TimeoutException:
        return f"did not answer within {timeout:.0f} s"
    except httpx.HTTPError:
        return "does not answer"
    if response.status_code != 200:
        return f"answers HTTP {response.status_code}"
    try:
        document = response.json()
    except ValueError:
        document = None
    if not isinstance(document, dict) or not document.get("authorization_endpoint"):
        return "does not answer with an OpenID Connect configuration"
    return None


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ("" if value is None else str(value))


def _is_http_url(value: str) -> bool:
    parts = urlsplit(value.strip())
    return parts.scheme in ("http", "https") and bool(parts.hostname)
