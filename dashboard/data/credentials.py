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
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import SecretStr
from pydantic_core import ErrorDetails

from dashboard.data.settings import (
    DEFAULT_COMMAND_TIMEOUT,
    ENV_OAUTH_PREFIX,
    OAuthKeys,
    ServiceKeys,
    is_set,
    key_name,
    problem,
)

if TYPE_CHECKING:
    from api_client.tokens import TokenSource

CREDENTIAL_KEYS = ("token", "token_file", "token_command", "oauth")
# The keys each grant cannot do without (the password grant's client secret is optional: some
# endpoints have public clients).
REQUIRED_OAUTH_KEYS = {
    "password": ("token_url", "grant", "client_id", "username", "password"),
    "client_credentials": ("token_url", "grant", "client_id", "client_secret"),
}


@dataclass(frozen=True)
class TokenSourceSettings:
    """A renewing token source: exactly one of a file, a command or a token endpoint."""

    token_file: str | None = None
    token_command: str | tuple[str, ...] | None = None
    command_timeout: float = DEFAULT_COMMAND_TIMEOUT
    oauth: OAuthKeys | None = None

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
                oauth.username,
                _digest(oauth.password),
                oauth.scope,
            ]
        )


def read_token_source(
    keys: ServiceKeys,
    given: Mapping[str, Any],
    errors: list[ErrorDetails],
    *,
    environment: bool,
    where: str,
) -> tuple[TokenSourceSettings | None, bool, list[str]]:
    """The renewing source of one source's keys (`given`: the keys it sets, `errors`: those of
    its keys that did not fit), whether any of its credential keys is set, and the problems
    with it (each naming a key, never a value)."""
    ways = [key for key in CREDENTIAL_KEYS if key in given]
    if len(ways) > 1:
        shown = ", ".join(
            f"{ENV_OAUTH_PREFIX}*"
            if key == "oauth" and environment
            else key_name(key, environment=environment)
            for key in ways
        )
        return None, True, [f"{where} sets more than one way to get a token ({shown}); keep one."]
    if ways in ([], ["token"]):
        return None, bool(ways), []
    worded = [
        problem(error, where=where, environment=environment)
        for error in errors
        if error["loc"][0] in (*ways, "token_command_timeout" if ways == ["token_command"] else "")
    ]
    if ways == ["oauth"]:
        worded += _missing_oauth_keys(given["oauth"], environment=environment, where=where)
    if worded:
        return None, True, worded
    if keys.token_file:
        return TokenSourceSettings(token_file=keys.token_file), True, []
    if keys.token_command is not None:
        timeout = keys.token_command_timeout
        return (
            TokenSourceSettings(token_command=keys.token_command, command_timeout=timeout),
            True,
            [],
        )
    return TokenSourceSettings(oauth=keys.oauth), True, []


def _missing_oauth_keys(table: Any, *, environment: bool, where: str) -> list[str]:
    """The keys the table's grant cannot do without, when not set (a table that is not one is
    said by its own error)."""
    if not isinstance(table, Mapping):
        return []
    grant = str(table.get("grant", "")).strip()
    required = REQUIRED_OAUTH_KEYS.get(grant, ("token_url", "grant", "client_id"))
    missing = [
        key_name(key, environment=environment, table="oauth")
        for key in required
        if not is_set(table.get(key))
    ]
    if not missing:
        return []
    what = where if environment else f"the oauth table in {where}"
    return [f"{', '.join(missing)} {'is' if len(missing) == 1 else 'are'} missing in {what}."]


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
        username=oauth.username or None,
        password=oauth.password,
        scope=oauth.scope or None,
        verify=ca_bundle or True,
    )


def _digest(secret: SecretStr) -> str:
    return hashlib.sha256(secret.get_secret_value().encode()).hexdigest()
