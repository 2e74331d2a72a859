"""Who may see a team's dashboard: viewer sign-in settings, and the one rule that admits a viewer.

Sign-in is Streamlit's own OpenID Connect (`st.login`): it is on when `.streamlit/secrets.toml`
has an `[auth]` table, which Streamlit reads (`redirect_uri`, `cookie_secret`, and a provider's
`client_id`, `client_secret`, `server_metadata_url`, at the top of `[auth]` or in `[auth.NAME]`
tables). Who gets in is this dashboard's own decision, made from:

- `allowed_emails`: addresses admitted one by one,
- `allowed_domains`: domains whose every address is admitted (exactly that domain, not its
  subdomains),
- `operators`: who may also clear a shared history store from the page,
- `markers`: who may mark, change and close known failures (unset: every admitted viewer),
- `require_verified_email`: true unless set false (see below),

in a `[signin]` table of the same file, or `QA_DASHBOARD_ALLOWED_EMAILS`,
`QA_DASHBOARD_ALLOWED_DOMAINS`, `QA_DASHBOARD_OPERATORS`, `QA_DASHBOARD_MARKERS`
(comma-separated; both places add up) and `QA_DASHBOARD_REQUIRE_VERIFIED_EMAIL`.

An address admits only when the provider says it verified it (`email_verified` true): whoever
can put any address on an account at the provider could otherwise read as, and act as, anyone
listed. A provider that never says so (some do not send the claim) can be trusted with
`require_verified_email = false`: its viewers then read by their address, but rights (operator,
marker) go only to a verified address or to an entry `sub:SUBJECT`, the provider's own
unchangeable identifier of the account (compared exactly, case included).

Checked strictly, because a typo here decides who reads the company's history: any problem with
`[auth]` or these lists closes the dashboard to everyone, with a sentence naming the table and
the key (never a value), rather than opening it wider than meant. With `[auth]` and neither list,
nobody is admitted. Without `[auth]` nothing changes (local use, the demo); lists set without it
are said in the sidebar, as they protect nothing. No Streamlit import: the rules are tested with
plain dictionaries.
"""

from __future__ import annotations

import ipaddress
import json
import re
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx

from dashboard.data.settings import SignInKeys, key_name, signin_environment

AUTH_SECTION = "auth"  # Streamlit's table in .streamlit/secrets.toml
SIGNIN_SECTION = "signin"  # this dashboard's table beside it
SECRETS_FILE = ".streamlit/secrets.toml"

ALLOWED_EMAILS = "allowed_emails"
ALLOWED_DOMAINS = "allowed_domains"
OPERATORS = "operators"
MARKERS = "markers"
REQUIRE_VERIFIED_EMAIL = "require_verified_email"
ENV_NAMES = {
    ALLOWED_EMAILS: "QA_DASHBOARD_ALLOWED_EMAILS",
    ALLOWED_DOMAINS: "QA_DASHBOARD_ALLOWED_DOMAINS",
    OPERATORS: "QA_DASHBOARD_OPERATORS",
    MARKERS: "QA_DASHBOARD_MARKERS",
}
KNOWN_KEYS = (*ENV_NAMES, REQUIRE_VERIFIED_EMAIL)
SUBJECT = "sub:"
"""The prefix of an operators or markers entry naming the provider's subject (`sub` claim)."""

PROVIDER_KEYS = ("client_id", "client_secret", "server_metadata_url")
COOKIE_SECRET_MIN_LENGTH = 32
"""The shortest `cookie_secret` accepted: it signs the identity cookie, so a short one could be
guessed (`python -c "import secrets; print(secrets.token_urlsafe(32))"` gives 43 characters)."""
PROBE_DEADLINE_S = 5.0
"""How long, all told, the sign-in page waits for the provider's OpenID configuration before
saying it is not answering: connecting, the headers and the whole body (a provider dripping a
byte at a time is given up then too, though no single read is slow)."""
PROBE_MAX_BYTES = 256 * 1024
"""The most of an OpenID configuration read (real ones are a few KiB): a provider sending more
is not answering with one."""

_EMAIL = re.compile(r"[^@\s,;<>\"']+@[^@\s,;<>\"']+\.[^@\s,;<>\"']+")
_SUBJECT = re.compile(r"[^\s,;<>\"']{1,255}")
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
    markers: frozenset[str] = frozenset()
    require_verified_email: bool = True
    problems: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def admits(self, email: str) -> bool:
        """Whether the (normalised) address may see the dashboard."""
        domain = email.rpartition("@")[2]
        return email in self.allowed_emails or domain in self.allowed_domains


@dataclass(frozen=True)
class Admission:
    """What the sign-in rule says of one signed-in viewer: their address (normalised, when the
    provider gave one) and whether it is admitted; `reason` says why not. `verified`: the
    provider said it verified the address; `subject`: its `sub` claim (None when absent)."""

    email: str | None
    admitted: bool
    reason: str = ""  # "no-email", "unverified" or "not-listed" when not admitted
    verified: bool = False
    subject: str | None = None


def normalise(email: str) -> str:
    """An address as compared and kept: trimmed, lower-case (domains are case-blind, and every
    provider this is used with treats the local part so too)."""
    return email.strip().lower()


def admission(settings: SignIn, claims: Mapping[str, Any]) -> Admission:
    """Whether the signed-in viewer whose identity claims are `claims` may see the dashboard.

    The address must be there, the provider must say it verified it (`email_verified` true, or
    the string "true" in any case; unless `require_verified_email` is off), and it must be listed
    or in a listed domain. A missing claim is no proof: it is refused as `false` is.
    """
    raw = claims.get("email")
    if not isinstance(raw, str) or not _EMAIL.fullmatch(raw.strip()):
        return Admission(None, False, "no-email")
    email = normalise(raw)
    verified = _says_true(claims.get("email_verified"))
    sub = claims.get("sub")
    subject = sub.strip() if isinstance(sub, str) and sub.strip() else None
    if settings.require_verified_email and not verified:
        return Admission(email, False, "unverified", verified, subject)
    if settings.problems or not settings.admits(email):
        return Admission(email, False, "not-listed", verified, subject)
    return Admission(email, True, "", verified, subject)


def holds(entries: frozenset[str], seen: Admission) -> bool:
    """Whether an admitted viewer is one of `entries` (an operators or markers list): by their
    address when the provider verified it, or by their subject (`sub:SUBJECT`)."""
    if not seen.admitted:
        return False
    by_address = seen.verified and seen.email is not None and seen.email in entries
    return by_address or (seen.subject is not None and SUBJECT + seen.subject in entries)


def may_operate(settings: SignIn, seen: Admission) -> bool:
    """Whether the viewer may do what the `operators` may (clear a shared store from the page)."""
    return holds(settings.operators, seen)


def may_mark(settings: SignIn, seen: Admission) -> bool:
    """Whether the viewer may mark, change and close known failures: one of `markers` when that
    list is set; else any admitted viewer whose address the provider verified (a mark says who
    made it, and an unverified address could say anyone)."""
    if settings.markers:
        return holds(settings.markers, seen)
    return seen.admitted and seen.verified


@dataclass(frozen=True)
class MarkRights:
    """Whether this viewer may mark, change and close known failures from the page, and as whom.

    `author`: what a mark says made it: the signed-in address; None on one person's dashboard,
    where the viewer types a name. `why_not` when not allowed: "no-sign-in" (a team's dashboard
    that nobody signs in to), "unverified" (an address the provider did not verify, admitted
    under `require_verified_email = false`), "not-a-marker" (not in `markers`)."""

    allowed: bool
    author: str | None = None
    why_not: str = ""
    email: str | None = None  # the signed-in address, for the sentence that says why not


def mark_rights(settings: SignIn, seen: Admission | None, *, serves_a_team: bool) -> MarkRights:
    """Who may mark on this dashboard. A mark is the gate's only input besides the service, so
    on a dashboard that serves a team only a signed-in viewer marks, and always under the
    address the provider signed, never a typed one; one person's own dashboard marks under a
    typed name (nobody else can reach it to say otherwise)."""
    if not serves_a_team and not settings.configured:
        return MarkRights(allowed=True)
    if not settings.configured or settings.problems or seen is None or not seen.admitted:
        return MarkRights(allowed=False, why_not="no-sign-in")
    if not may_mark(settings, seen):
        unverified = not seen.verified and not settings.markers
        reason = "unverified" if unverified else "not-a-marker"
        return MarkRights(allowed=False, why_not=reason, email=seen.email)
    return MarkRights(allowed=True, author=seen.email, email=seen.email)


def beyond_loopback(address: str | None) -> bool:
    """Whether a dashboard serving at `address` (Streamlit's `server.address`) can be reached
    from other machines: unset means every interface (Streamlit's default); only a loopback
    address or `localhost` keeps it to this one. A Unix socket counts as reachable (a proxy
    in front of it serves whoever reaches the proxy)."""
    if address is None or not address.strip():
        return True
    host = address.strip().strip("[]").lower()
    if host == "localhost":
        return False
    try:
        return not ipaddress.ip_address(host).is_loopback
    except ValueError:
        return True


def settings(*, secrets: Mapping[str, Any] | None, env: Mapping[str, str]) -> SignIn:
    """The sign-in settings of `secrets` (`.streamlit/secrets.toml` as a dictionary) and `env`."""
    secrets = secrets or {}
    problems: list[str] = []
    table = secrets.get(SIGNIN_SECTION)
    if table is not None and not isinstance(table, Mapping):
        problems.append(f"[{SIGNIN_SECTION}] in {SECRETS_FILE} is not a table.")
        table = {}
    (written, table_errors), (variables, env_errors) = (
        SignInKeys.read(table or {}),
        SignInKeys.read(signin_environment(env)),
    )
    bad = {str(e["loc"][0]): e for e in table_errors}
    problems += [
        f'[{SIGNIN_SECTION}] in {SECRETS_FILE} has a key "{key}" this dashboard does not '
        f"know (it knows {', '.join(KNOWN_KEYS)})."
        for key, error in sorted(bad.items())
        if error["type"] == "extra_forbidden"
    ]
    sources = [(written, bad, False), (variables, {str(e["loc"][0]): e for e in env_errors}, True)]

    def where(key: str, environment: bool) -> str:
        return (
            key_name(key, environment=True)
            if environment
            else (f"{key} in [{SIGNIN_SECTION}] of {SECRETS_FILE}")
        )

    def listed(key: str, shape: re.Pattern[str]) -> frozenset[str]:
        found: set[str] = set()
        for keys, errors, environment in sources:
            if key in errors:
                problems.append(f"{where(key, environment)} is not a list.")
            for position, entry in enumerate(getattr(keys, key) or (), start=1):
                text = _entry(key, entry, shape)
                if text is None:
                    problems.append(f"Entry {position} of {where(key, environment)} is not "
                                    f"{_ENTRY_KINDS[key]}.")  # fmt: skip
                elif text:
                    found.add(text)
        return frozenset(found)

    emails = listed(ALLOWED_EMAILS, _EMAIL)
    domains = listed(ALLOWED_DOMAINS, _DOMAIN)
    operators = listed(OPERATORS, _EMAIL)
    markers = listed(MARKERS, _EMAIL)
    # On unless the table or the environment turns it off; a value that is neither yes nor no
    # is a problem (it decides who gets in).
    problems += [
        f"{where(REQUIRE_VERIFIED_EMAIL, environment)} is not true or false."
        for _, errors, environment in sources
        if REQUIRE_VERIFIED_EMAIL in errors
    ]
    require_verified = False not in (keys.require_verified_email for keys, _, _ in sources)

    auth = secrets.get(AUTH_SECTION)
    if auth is None:
        named = [*_named(emails, domains, operators), (MARKERS, markers)]
        listed_names = [name for name, values in named if values]
        notes = tuple(
            f"{name} is set, but sign-in is not (no [{AUTH_SECTION}] table in {SECRETS_FILE}): "
            "anyone who can reach this dashboard sees it."
            for name in listed_names[:1]
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
        markers=markers,
        require_verified_email=require_verified,
        problems=tuple(problems),
    )


def _named(
    emails: frozenset[str], domains: frozenset[str], operators: frozenset[str]
) -> list[tuple[str, frozenset[str]]]:
    return [(ALLOWED_EMAILS, emails), (ALLOWED_DOMAINS, domains), (OPERATORS, operators)]


_ENTRY_KINDS = {
    ALLOWED_EMAILS: "an e-mail address",
    ALLOWED_DOMAINS: "a domain name",
    OPERATORS: f"an e-mail address or {SUBJECT}SUBJECT",
    MARKERS: f"an e-mail address or {SUBJECT}SUBJECT",
}


def _entry(key: str, entry: Any, shape: re.Pattern[str]) -> str | None:
    """One entry of a list setting as kept ("" for a blank one: "a,b," in a variable), or None
    when it does not fit `shape`. The lists of rights (operators, markers) also take
    `sub:SUBJECT`, kept as written (a subject is case-sensitive)."""
    if not isinstance(entry, str):
        return None
    if not entry.strip():
        return ""
    if key in (OPERATORS, MARKERS) and entry.strip().startswith(SUBJECT):
        subject = entry.strip().removeprefix(SUBJECT).strip()
        return SUBJECT + subject if _SUBJECT.fullmatch(subject) else None
    text = normalise(entry)
    text = text.removeprefix("@") if key == ALLOWED_DOMAINS else text
    return text if shape.fullmatch(text) else None


def _says_true(value: Any) -> bool:
    """Whether a claim says yes: JSON true, or the string "true" in any case (some providers
    send strings); anything else, absence included, is no."""
    return value is True or (isinstance(value, str) and value.strip().lower() == "true")


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
    deadline: float | None = None,
    max_bytes: int = PROBE_MAX_BYTES,
    transport: httpx.BaseTransport | None = None,
) -> str | None:
    """Why the provider cannot sign anyone in right now (None: its OpenID configuration answers).

    A short phrase for a sentence ("does not answer", "answers HTTP 503"), naming nothing of
    the URL but what `Provider.host` shows. The whole look takes at most `deadline` seconds
    (default `PROBE_DEADLINE_S`, read at each call): httpx's timeouts bound each read, not their
    sum, so the look runs in a thread of its own that is waited for that long, and stops
    reading once past it. `transport` is the tests' seam.
    """
    limit = PROBE_DEADLINE_S if deadline is None else deadline
    too_late = f"did not answer within {limit:g} s"
    said: list[str | None] = []
    look = threading.Thread(
        target=lambda: said.append(_look(provider, limit, max_bytes, transport, too_late)),
        name="signin-provider-probe",
        daemon=True,  # past the deadline it ends at its next read; it never holds the process
    )
    look.start()
    look.join(limit)
    return said[0] if said else too_late


def _look(
    provider: Provider,
    limit: float,
    max_bytes: int,
    transport: httpx.BaseTransport | None,
    too_late: str,
) -> str | None:
    """One GET of the OpenID configuration, read within `max_bytes` and `limit` seconds."""
    ends = time.monotonic() + limit
    body = bytearray()
    try:
        with (
            httpx.Client(transport=transport, timeout=limit) as client,
            client.stream("GET", provider.metadata_url) as response,
        ):
            if response.status_code != 200:
                return f"answers HTTP {response.status_code}"
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) > max_bytes:
                    return (
                        f"answers with more than {max_bytes // 1024} KiB, "
                        "not an OpenID Connect configuration"
                    )
                if time.monotonic() > ends:
                    return too_late
    except httpx.TimeoutException:
        return too_late
    except httpx.HTTPError:
        return "does not answer"
    try:
        document = json.loads(bytes(body))
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
