"""Where a configured connection's token comes from, besides a token pasted as it is.

One of four keys of a source (the `[service]` table of the secrets file, a worker's
`[connections.NAME]` table, or the `QA_DASHBOARD_*` environment variables) says it:

- `token` (QA_DASHBOARD_TOKEN): the token itself, used until the service refuses it;
- `token_file` (QA_DASHBOARD_TOKEN_FILE): a file something else keeps renewed, read again when it
  changes;
- `token_command` (QA_DASHBOARD_TOKEN_COMMAND; `token_command_timeout`, default 30 s): a program
  that prints a token, run again when it expires or is refused;
- an `oauth` table (`[service.oauth]`; QA_DASHBOARD_OAUTH_TOKEN_URL, _GRANT, _CLIENT_ID,
  _CLIENT_SECRET, _USERNAME, _PASSWORD, _SCOPE): an OAuth2 token endpoint, with the `password` or
  `client_credentials` grant.

They are checked as strictly as the other keys: two of them at once, a half-filled `oauth`
table, an unknown grant are problems that name the key, never a value. The renewing sources
(`api_client.tokens`) are made once per configuration and process (`shared_source`), so every
client of a connection, however often a page builds one, renews through the same source.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from pydantic import SecretStr

if TYPE_CHECKING:
    from api_client.tokens import TokenSource

ENV_TOKEN_FILE = "QA_DASHBOARD_TOKEN_FILE"  # noqa: S105 - the name of a variable
ENV_TOKEN_COMMAND = "QA_DASHBOARD_TOKEN_COMMAND"  # noqa: S105
ENV_TOKEN_COMMAND_TIMEOUT = "QA_DASHBOARD_TOKEN_COMMAND_TIMEOUT"  # noqa: S105
ENV_OAUTH_PREFIX = "QA_DASHBOARD_OAUTH_"
OAUTH_TABLE = "oauth"
OAUTH_KEYS = ("token_url", "grant", "client_id", "client_secret", "username", "password", "scope")
GRANTS = ("password", "client_credentials")
# The keys each grant cannot do without (the password grant's client secret is optional: some
# endpoints have public clients).
REQUIRED_OAUTH_KEYS = {
    "password": ("token_url", "grant", "client_id", "username", "password"),
    "client_credentials": ("token_url", "grant", "client_id", "client_secret"),
}
DEFAULT_COMMAND_TIMEOUT = 30.0
MAX_COMMAND_TIMEOUT = 600.0


@dataclass(frozen=True)
class OAuthSettings:
    """An OAuth2 token endpoint and the grant to ask it with; the secrets never in a repr."""

    token_url: str
    grant: str
    client_id: str
    client_secret: SecretStr = field(repr=False)
    username: str | None = None
    password: SecretStr = field(default=SecretStr(""), repr=False)
    scope: str | None = None


@dataclass(frozen=True)
class TokenSourceSettings:
    """A renewing token source: exactly one of a file, a command or a token endpoint."""

    token_file: str | None = None
    token_command: str | tuple[str, ...] | None = None
    command_timeout: float = DEFAULT_COMMAND_TIMEOUT
    oauth: OAuthSettings | None = None

    @property
    def kind(self) -> str:
        if self.token_file is not None:
            return "token file"
        if self.token_command is not None:
            return "token command"
        return "token endpoint"

    def fingerprint_material(self) -> str:
        """What identifies this source in a connection's fingerprint: its settings, with a
        SHA-256 of each secret in place of the secret."""
        if self.token_file is not None:
            return f"file\n{self.token_file}"
        if self.token_command is not None:
            command = (
                self.token_command
                if isinstance(self.token_command, str)
                else "\0".join(self.token_command)
            )
            return f"command\n{command}\n{self.command_timeout}"
        oauth = self.oauth
        assert oauth is not None
        return "\n".join(
            [
                "oauth",
                oauth.token_url,
                oauth.grant,
                oauth.client_id,
                _digest(oauth.client_secret),
                oauth.username or "",
                _digest(oauth.password),
                oauth.scope or "",
            ]
        )


def read_token_source(
    values: Mapping[str, Any], *, environment: bool, where: str
) -> tuple[TokenSourceSettings | None, bool, list[str]]:
    """The renewing source configured in one source's `values`, whether any of its keys is set,
    and the problems with it (each naming a key, never a value). `environment`: `values` are
    the environment variables, not a table."""
    names = _ENV_NAMES if environment else _TABLE_NAMES
    token_file = as_text(values.get(names["token_file"]))
    raw_command = values.get(names["token_command"])
    oauth_values = _oauth_values(values, environment)
    given = [
        key
        for key, present in (
            ("token", is_set(values.get(names["token"]))),
            ("token_file", bool(token_file)),
            ("token_command", is_set(raw_command)),
            ("oauth", bool(oauth_values)),
        )
        if present
    ]
    if len(given) > 1:
        shown = ", ".join(
            names[key] if key != "oauth" else _oauth_name(environment) for key in given
        )
        return None, True, [f"{where} sets more than one way to get a token ({shown}); keep one."]
    if not given or given == ["token"]:
        return None, bool(given), []
    if token_file:
        return TokenSourceSettings(token_file=token_file), True, []
    if given == ["token_command"]:
        return _command(raw_command, values.get(names["token_command_timeout"]), names, where)
    return _oauth(oauth_values, environment, where)


def _command(
    raw: Any, raw_timeout: Any, names: Mapping[str, str], where: str
) -> tuple[TokenSourceSettings | None, bool, list[str]]:
    from api_client import RequestValidationError
    from api_client.tokens.command import command_arguments

    problems: list[str] = []
    command: str | tuple[str, ...] | None = None
    try:
        command_arguments(raw)
        command = raw.strip() if isinstance(raw, str) else tuple(raw)
    except RequestValidationError as error:
        problems.append(f"{names['token_command']} in {where}: {error.message}.")
    timeout = DEFAULT_COMMAND_TIMEOUT
    if raw_timeout is not None and as_text(raw_timeout):
        number = _seconds(raw_timeout)
        if number is None or not 0 < number <= MAX_COMMAND_TIMEOUT:
            problems.append(
                f"{names['token_command_timeout']} in {where} is not a number of seconds from "
                f"1 to {MAX_COMMAND_TIMEOUT:.0f}."
            )
        else:
            timeout = number
    if problems or command is None:
        return None, True, problems
    return TokenSourceSettings(token_command=command, command_timeout=timeout), True, []


def _oauth(
    values: Mapping[str, Any], environment: bool, where: str
) -> tuple[TokenSourceSettings | None, bool, list[str]]:
    table = _oauth_name(environment)

    def name(key: str) -> str:
        return f"{ENV_OAUTH_PREFIX}{key.upper()}" if environment else key

    if "" in values:
        return None, True, [f"{OAUTH_TABLE} in {where} must be a table ([service.{OAUTH_TABLE}])."]
    problems = [
        f"The {table} table in {where} has an unknown key {key!r}."
        for key in values
        if key not in OAUTH_KEYS
    ]
    grant = as_text(values.get("grant"))
    if grant and grant not in GRANTS:
        problems.append(f"{name('grant')} in {where} must be {' or '.join(GRANTS)}.")
    required = REQUIRED_OAUTH_KEYS.get(grant, ("token_url", "grant", "client_id"))
    missing = [name(key) for key in required if not is_set(values.get(key))]
    if missing:
        what = f"the {table} table in {where}" if not environment else where
        problems.append(
            f"{', '.join(missing)} {'is' if len(missing) == 1 else 'are'} missing in {what}."
        )
    token_url = as_text(values.get("token_url"))
    if token_url and not is_http_url(token_url):
        problems.append(
            f"{name('token_url')} in {where} is not an http(s) address like "
            "https://host/oauth/token."
        )
    if problems:
        return None, True, problems
    settings = OAuthSettings(
        token_url=token_url,
        grant=grant,
        client_id=as_text(values.get("client_id")),
        client_secret=_secret(values.get("client_secret")),
        username=as_text(values.get("username")) or None,
        password=_secret(values.get("password")),
        scope=as_text(values.get("scope")) or None,
    )
    return TokenSourceSettings(oauth=settings), True, []


# -- the sources themselves, one per configuration ------------------------------------------------

_MAX_SOURCES = 32
_SOURCES: OrderedDict[str, TokenSource] = OrderedDict()
_SOURCES_LOCK = threading.Lock()


def shared_source(settings: TokenSourceSettings, *, ca_bundle: str | None, key: str) -> TokenSource:
    """The one source of `settings` in this process (made on first use), so that every client
    of a connection renews through it: one renewal at a time, the last good token kept.
    `key` identifies the connection (its fingerprint); `ca_bundle` also verifies the token
    endpoint."""
    with _SOURCES_LOCK:
        source = _SOURCES.get(key)
        if source is None:
            source = _make(settings, ca_bundle)
            _SOURCES[key] = source
            while len(_SOURCES) > _MAX_SOURCES:
                _SOURCES.popitem(last=False)  # sources hold no open connection
        else:
            _SOURCES.move_to_end(key)
        return source


def _make(settings: TokenSourceSettings, ca_bundle: str | None) -> TokenSource:
    from api_client.tokens import TokenCommand, TokenEndpoint, TokenFile

    if settings.token_file is not None:
        return TokenFile(settings.token_file)
    if settings.token_command is not None:
        return TokenCommand(settings.token_command, timeout=settings.command_timeout)
    oauth = settings.oauth
    assert oauth is not None
    return TokenEndpoint(
        token_url=oauth.token_url,
        grant="password" if oauth.grant == "password" else "client_credentials",
        client_id=oauth.client_id,
        client_secret=oauth.client_secret,
        username=oauth.username,
        password=oauth.password,
        scope=oauth.scope,
        verify=ca_bundle or True,
    )


# -- reading values ----------------------------------------------------------------------------

_TABLE_NAMES = {
    key: key for key in ("token", "token_file", "token_command", "token_command_timeout")
}
_ENV_NAMES = {
    "token": "QA_DASHBOARD_TOKEN",
    "token_file": ENV_TOKEN_FILE,
    "token_command": ENV_TOKEN_COMMAND,
    "token_command_timeout": ENV_TOKEN_COMMAND_TIMEOUT,
}


def _oauth_name(environment: bool) -> str:
    return f"{ENV_OAUTH_PREFIX}*" if environment else OAUTH_TABLE


def _oauth_values(values: Mapping[str, Any], environment: bool) -> dict[str, Any]:
    """The oauth settings that are set, by their table key."""
    if environment:
        found = {
            name[len(ENV_OAUTH_PREFIX) :].lower(): value
            for name, value in values.items()
            if name.startswith(ENV_OAUTH_PREFIX)
        }
    else:
        table = values.get(OAUTH_TABLE)
        if table is not None and not isinstance(table, Mapping):
            return {"": table}  # reported as a table that is not one
        found = dict(table) if isinstance(table, Mapping) else {}
    return {key: value for key, value in found.items() if is_set(value)}


def _digest(secret: SecretStr) -> str:
    return hashlib.sha256(secret.get_secret_value().encode()).hexdigest()


def _secret(value: Any) -> SecretStr:
    return value if isinstance(value, SecretStr) else SecretStr(as_text(value))


def is_set(value: Any) -> bool:
    """Whether a setting is given: a non-blank text, secret or list."""
    if isinstance(value, SecretStr):
        return bool(value.get_secret_value())
    if isinstance(value, list | tuple):
        return bool(value)
    return bool(as_text(value))


def as_text(value: Any) -> str:
    """A setting as stripped text ("" for None)."""
    return value.strip() if isinstance(value, str) else ("" if value is None else str(value))


def _seconds(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def is_http_url(value: str) -> bool:
    """Whether `value` is an http(s) URL with a host."""
    parts = urlsplit(value)
    return parts.scheme in ("http", "https") and bool(parts.hostname)
