"""The dashboard's settings as pydantic models: a connection's keys (`ServiceKeys`), `[signin]`
(`SignInKeys`) and the process's own variables (`ProcessKeys`).

A source is a table (`[service]` of `.streamlit/secrets.toml`, a worker's `[connections.NAME]`,
the form) or the QA_DASHBOARD_* variables, which pydantic-settings' environment source reads
with the prefix (QA_DASHBOARD_TOKEN_FILE is `token_file`) from the mapping it is given, never
from `os.environ` behind the caller's back. Sources are not merged (`dashboard.data.connection`
takes the first complete one), so each is read on its own: `Keys.read` keeps the keys that fit
and returns the errors of the others, which `problem` words by the key's name as that source
writes it, never its value (`hide_input_in_errors`, and no error's input is read).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from typing import Annotated, Any, Literal, Self
from urllib.parse import urlsplit

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
)
from pydantic_core import ErrorDetails, PydanticCustomError
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    NoDecode,
    SettingsConfigDict,
)
from pydantic_settings.sources.utils import parse_env_vars

ENV_PREFIX = "QA_DASHBOARD_"
ENV_OAUTH_PREFIX = f"{ENV_PREFIX}OAUTH_"
DEFAULT_COMMAND_TIMEOUT = 30.0
MAX_COMMAND_TIMEOUT = 600.0
MAX_DEMO_EXECUTIONS = 1_000_000
MAX_COMPANY_ID = 2**63 - 1
"""The largest company id: the service's ids are Java longs (signed 64-bit)."""


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


def is_http_url(value: str) -> bool:
    """Whether `value` is an http(s) URL with a host."""
    parts = urlsplit(value)
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def _http(value: str) -> str:
    if value and not is_http_url(value):
        raise ValueError("not an http(s) address")
    return value


def _digits(value: Any) -> Any:
    """Only ASCII digits (pydantic also takes "+7", "7.0", 7.0 and True for an int)."""
    text = value.strip() if isinstance(value, str) else ""
    if not (type(value) is int or (text.isascii() and text.isdigit())):
        raise ValueError("not ASCII digits")
    return value


def _readable_file(value: str) -> str:
    if value and not os.path.isfile(value):
        raise ValueError("not a file")
    return value


def _command(value: Any) -> str | tuple[str, ...]:
    from api_client import RequestValidationError
    from api_client.tokens.command import command_arguments

    try:
        command_arguments(value)
    except RequestValidationError as error:
        raise PydanticCustomError("command", error.message) from None
    return value.strip() if isinstance(value, str) else tuple(value)


def _flag(value: Any) -> bool:
    """true/1/yes/on or false/0/no/off, in any case (pydantic's own bool also takes t, y, n)."""
    text = str(value).strip().lower()
    if isinstance(value, bool) or text in ("true", "1", "yes", "on", "false", "0", "no", "off"):
        return value if isinstance(value, bool) else text in ("true", "1", "yes", "on")
    raise ValueError("not true or false")


def _not_bool(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError("not a number")
    return value


def _entries(value: Any) -> Any:
    """A list from a comma-separated text (the environment) or a TOML array, as written."""
    return value.split(",") if isinstance(value, str) else value


Text = Annotated[str, BeforeValidator(as_text)]
Secret = Annotated[
    SecretStr, BeforeValidator(lambda v: v if isinstance(v, SecretStr) else as_text(v))
]
Flag = Annotated[bool | None, BeforeValidator(_flag)]
Entries = Annotated[tuple[Any, ...] | None, NoDecode, BeforeValidator(_entries)]


class OAuthKeys(BaseModel):
    """An OAuth2 token endpoint and the grant to ask it with; the secrets never in a repr."""

    model_config = ConfigDict(extra="forbid", frozen=True, hide_input_in_errors=True)

    token_url: Annotated[Text, AfterValidator(_http)] = ""
    grant: Literal["password", "client_credentials", ""] = ""
    client_id: Text = ""
    client_secret: Secret = SecretStr("")
    username: Text = ""
    password: Secret = SecretStr("")
    scope: Text = ""


class Keys(BaseModel):
    """Settings read from one table or environment: `read` keeps the keys that fit."""

    model_config = ConfigDict(extra="ignore", frozen=True, hide_input_in_errors=True)

    @classmethod
    def read(cls, values: Mapping[str, Any]) -> tuple[Self, list[ErrorDetails]]:
        """The settings of `values` (blank ones are not given) and the errors of the keys that
        do not fit; those keys are left at their defaults, the others are read."""
        given = {key: value for key, value in values.items() if is_set(value)}
        try:
            return cls.model_validate(given), []
        except ValidationError as error:
            errors = error.errors(include_url=False, include_input=False)
            bad = {error["loc"][0] for error in errors}
            return cls.model_validate({k: v for k, v in given.items() if k not in bad}), errors


class ServiceKeys(Keys):
    """The keys of `[service]`, a `[connections.NAME]` table, the form or QA_DASHBOARD_*."""

    base_url: Annotated[Text, AfterValidator(_http)] = ""
    token: Secret = SecretStr("")
    company_id: Annotated[int, BeforeValidator(_digits), Field(gt=0, le=MAX_COMPANY_ID)] | None = (
        None
    )
    email: Text = ""
    ca_bundle: Annotated[Text, AfterValidator(_readable_file)] = ""
    token_file: Text = ""
    token_command: Annotated[str | tuple[str, ...] | None, NoDecode, BeforeValidator(_command)] = (
        None
    )
    token_command_timeout: Annotated[
        float, BeforeValidator(_not_bool), Field(gt=0, le=MAX_COMMAND_TIMEOUT)
    ] = DEFAULT_COMMAND_TIMEOUT
    oauth: OAuthKeys | None = None
    # The operator's decision about the sidebar form (`dashboard.data.form_policy`).
    allow_connection_form: Flag = None
    allowed_hosts: Entries = None


class SignInKeys(Keys):
    """`[signin]` of the secrets file, or QA_DASHBOARD_ALLOWED_EMAILS and the others
    (`dashboard.data.signin`): lists as written, each entry checked there by its place."""

    model_config = ConfigDict(extra="forbid")

    allowed_emails: Entries = None
    allowed_domains: Entries = None
    operators: Entries = None
    markers: Entries = None
    require_verified_email: Flag = None


class _Environment(EnvSettingsSource):
    """pydantic-settings' environment source over a given mapping instead of `os.environ`."""

    def __init__(self, settings_cls: type[BaseSettings], env: Mapping[str, str]) -> None:
        self._given = env
        super().__init__(settings_cls)

    def _load_env_vars(self) -> Mapping[str, str | None]:
        return parse_env_vars(self._given, self.case_sensitive, True, self.env_parse_none_str)


class _ServiceEnvironment(ServiceKeys, BaseSettings):
    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, hide_input_in_errors=True)


class _SignInEnvironment(SignInKeys, BaseSettings):
    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, hide_input_in_errors=True)


class ProcessKeys(Keys):
    """The variables of one process, not of a connection: where its stores live, the demo's
    size and the public address of its links (`process_environment`)."""

    cache_dir: Text = ""  # the folder of the DuckDB stores (`store.location.cache_dir`)
    store_url: Text = ""  # a team's PostgreSQL store (`store.location.store_url`)
    demo_executions: (
        Annotated[int, BeforeValidator(_digits), Field(ge=0, le=MAX_DEMO_EXECUTIONS)] | None
    ) = None
    public_url: Text = ""  # the dashboard's address for absolute links (`ui.tables`)


class _ProcessEnvironment(ProcessKeys, BaseSettings):
    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, hide_input_in_errors=True)


def environment(settings_cls: type[BaseSettings], env: Mapping[str, str]) -> dict[str, Any]:
    """The keys of `settings_cls` that `env` sets, by field name (QA_DASHBOARD_TOKEN_FILE is
    `token_file`; QA_DASHBOARD_OAUTH_* are an `oauth` table for the service's keys)."""
    mine = (
        (k, v)
        for k, v in env.items()
        if k.startswith(ENV_PREFIX)
        and (k.isupper() or k.startswith(ENV_OAUTH_PREFIX))  # names as they always were
        and is_set(v)
    )
    return _environment(settings_cls, tuple(sorted(mine)))


@functools.lru_cache(maxsize=16)
def _environment(
    settings_cls: type[BaseSettings], variables: tuple[tuple[str, str], ...]
) -> dict[str, Any]:
    """`environment`, kept for the few environments a process sees (pages ask at every run)."""
    values = _Environment(settings_cls, dict(variables))()
    if settings_cls is not _ServiceEnvironment:
        return values
    oauth = {
        name.removeprefix(ENV_OAUTH_PREFIX).lower(): value
        for name, value in variables
        if name.startswith(ENV_OAUTH_PREFIX)
    }
    return {**values, "oauth": oauth} if oauth else values


def service_environment(env: Mapping[str, str]) -> dict[str, Any]:
    """The `ServiceKeys` that `env` sets."""
    return environment(_ServiceEnvironment, env)


def process_environment(env: Mapping[str, str]) -> tuple[ProcessKeys, list[ErrorDetails]]:
    """The `ProcessKeys` that `env` sets, and the errors of those that do not fit."""
    return ProcessKeys.read(environment(_ProcessEnvironment, env))


def signin_environment(env: Mapping[str, str]) -> dict[str, Any]:
    """The `SignInKeys` that `env` sets."""
    return environment(_SignInEnvironment, env)


def key_name(key: str, *, environment: bool, table: str = "") -> str:
    """A key as its source writes it: `token_file`, or QA_DASHBOARD_TOKEN_FILE (`table`: the
    nested table it is in, `oauth`)."""
    if not environment:
        return key
    return f"{ENV_PREFIX}{f'{table}_' if table else ''}{key}".upper()


def problem(error: ErrorDetails, *, where: str, environment: bool) -> str:
    """One error of a source in a sentence that names the key, never its value."""
    loc = [str(part) for part in error["loc"]]
    key = loc[0]
    name = key_name(key, environment=environment)
    if key == "oauth":
        return _oauth_problem(error, loc[1:], where=where, environment=environment)
    worded = {
        "base_url": f"The base URL in {where} is not an http(s) address like https://host/Api.",
        "company_id": company_id_problem(where),
        "ca_bundle": f"The CA bundle named in {where} is not a readable file.",
        "token_command": f"{name} in {where}: {error['msg']}.",
        "token_command_timeout": f"{name} in {where} is not a number of seconds from 1 to "
        f"{MAX_COMMAND_TIMEOUT:.0f}.",
        "allow_connection_form": f"{name} is not true or false; it was ignored.",
        "allowed_hosts": "The allowed hosts are not a list of host names; the form is off.",
    }
    return worded.get(key, f"{name} in {where} is not valid.")


def company_id_problem(where: str) -> str:
    return (
        f"The company id in {where} is missing or not a whole number from 1 to "
        f"{MAX_COMPANY_ID:,} (ASCII digits only)."
    )


def _oauth_problem(error: ErrorDetails, loc: list[str], *, where: str, environment: bool) -> str:
    table = f"{ENV_OAUTH_PREFIX}*" if environment else "oauth"
    if not loc:
        return f"oauth in {where} must be a table ([service.oauth])."
    if error["type"] == "extra_forbidden":
        return f"The {table} table in {where} has an unknown key {loc[0]!r}."
    name = key_name(loc[0], environment=environment, table="oauth")
    if loc[0] == "grant":
        return f"{name} in {where} must be password or client_credentials."
    if loc[0] == "token_url":
        return f"{name} in {where} is not an http(s) address like https://host/oauth/token."
    return f"{name} in {where} is not valid."
