"""How a connection's token is configured: a token, a token file, a token command or an OAuth2
token endpoint, from the secrets file, a worker's named connection or QA_DASHBOARD_*; checked as
strictly as the other keys, and never repeating a value."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from api_client.tokens import TokenCommand, TokenEndpoint, TokenFile
from dashboard.cli.common import CliError
from dashboard.cli.connections import named_connection
from dashboard.data.connection import Connection, api_client, form_policy, resolve

BASE = {"base_url": "https://qa.example.test/Api", "company_id": 7}
OAUTH = {
    "token_url": "https://auth.example.test/oauth/token",
    "grant": "password",
    "client_id": "qa-dashboard",
    "client_secret": "cs-SECRET-a1",
    "username": "ada",
    "password": "pw-SECRET-b2",
    "scope": "read",
}
SECRET_VALUES = ("cs-SECRET-a1", "pw-SECRET-b2")


def from_secrets(**service: Any) -> tuple[Connection | None, list[str]]:
    resolution = resolve(session=None, secrets={"service": {**BASE, **service}}, env={})
    return resolution.connection, resolution.problems


def test_a_token_file_in_the_secrets_file() -> None:
    connection, problems = from_secrets(token_file="/run/secrets/qa-token")

    assert problems == []
    assert connection is not None
    assert connection.token_source is not None
    assert connection.token_source.token_file == "/run/secrets/qa-token"
    assert connection.has_credential
    source = connection.credential()
    assert isinstance(source, TokenFile)
    assert source.path == Path("/run/secrets/qa-token")


def test_a_token_command_as_a_string_or_a_list_with_its_timeout() -> None:
    as_text, _ = from_secrets(token_command="get-token --profile qa", token_command_timeout=5)
    as_list, _ = from_secrets(token_command=["get-token", "--profile", "qa"])

    assert as_text is not None
    assert as_list is not None
    assert as_text.token_source is not None
    assert as_text.token_source.command_timeout == 5.0
    assert isinstance(as_text.credential(), TokenCommand)
    assert isinstance(as_list.credential(), TokenCommand)


def test_an_oauth_table_in_the_secrets_file() -> None:
    connection, problems = from_secrets(oauth=OAUTH)

    assert problems == []
    assert connection is not None
    source = connection.credential()
    assert isinstance(source, TokenEndpoint)
    assert source.host == "auth.example.test"
    for secret in SECRET_VALUES:
        assert secret not in repr(connection)
        assert secret not in repr(source)
        assert secret not in connection.fingerprint


def test_the_same_configuration_shares_one_source_in_the_process() -> None:
    first, _ = from_secrets(oauth=OAUTH)
    again, _ = from_secrets(oauth=dict(OAUTH))
    other, _ = from_secrets(oauth={**OAUTH, "client_secret": "cs-SECRET-other"})
    assert first is not None
    assert again is not None
    assert other is not None

    assert first == again  # one cache key: a renewed token keeps it
    assert first.credential() is again.credential()  # one renewal for every client
    assert other != first
    assert other.credential() is not first.credential()


def test_the_environment_configures_each_kind() -> None:
    env = {"QA_DASHBOARD_BASE_URL": BASE["base_url"], "QA_DASHBOARD_COMPANY_ID": "7"}
    oauth_env = {f"QA_DASHBOARD_OAUTH_{key.upper()}": value for key, value in OAUTH.items()}

    cases = {
        "file": {"QA_DASHBOARD_TOKEN_FILE": "/run/secrets/qa-token"},
        "command": {
            "QA_DASHBOARD_TOKEN_COMMAND": "get-token",
            "QA_DASHBOARD_TOKEN_COMMAND_TIMEOUT": "9",
        },
        "oauth": oauth_env,
    }
    kinds = {}
    for name, variables in cases.items():
        resolution = resolve(session=None, secrets={}, env={**env, **variables})
        assert resolution.problems == [], name
        assert resolution.connection is not None, name
        assert resolution.connection.source == "environment"
        kinds[name] = type(resolution.connection.credential())
    assert kinds == {"file": TokenFile, "command": TokenCommand, "oauth": TokenEndpoint}


def test_a_plain_token_is_still_a_static_token() -> None:
    connection, _ = from_secrets(token="sbx-plain")

    assert connection is not None
    assert connection.token_source is None
    assert connection.credential() == SecretStr("sbx-plain")
    with api_client(connection) as client:
        assert repr(client) == "ApiClient(base_url='https://qa.example.test/Api', company_id=7)"


@pytest.mark.parametrize(
    ("service", "words"),
    [
        ({"token": "t", "token_file": "/f"}, ".streamlit/secrets.toml sets more than one way to "
         "get a token (token, token_file); keep one."),
        ({"token_file": "/f", "oauth": OAUTH}, "sets more than one way to get a token "
         "(token_file, oauth)"),
        ({"oauth": {k: v for k, v in OAUTH.items() if k != "password"}}, "password is missing in "
         "the oauth table in .streamlit/secrets.toml."),
        ({"oauth": {"grant": "client_credentials", "token_url": OAUTH["token_url"],
                    "client_id": "c"}}, "client_secret is missing in the oauth table"),
        ({"oauth": {"client_secret": "cs-SECRET-a1"}}, "token_url, grant, client_id are missing "
         "in the oauth table"),
        ({"oauth": {**OAUTH, "grant": "implicit"}}, "grant in .streamlit/secrets.toml must be "
         "password or client_credentials."),
        ({"oauth": {**OAUTH, "client_secert": "cs-SECRET-a1"}}, "The oauth table in "
         ".streamlit/secrets.toml has an unknown key 'client_secert'."),
        ({"oauth": {**OAUTH, "token_url": "ftp://auth"}}, "token_url in .streamlit/secrets.toml "
         "is not an http(s) address"),
        ({"oauth": "pw-SECRET-b2"}, "oauth in .streamlit/secrets.toml must be a table"),
        ({"token_command": "get-token 'unclosed"}, "token_command in .streamlit/secrets.toml: "
         "token_command could not be split into arguments (an unclosed quote?)."),
        ({"token_command": "get-token", "token_command_timeout": "forever"},
         "token_command_timeout in .streamlit/secrets.toml is not a number of seconds"),
        ({}, "The token is missing in .streamlit/secrets.toml (or token_file, token_command or "
         "an oauth table to get one)."),
    ],
)  # fmt: skip
def test_a_half_filled_setting_names_the_key_and_never_a_value(
    service: dict[str, Any], words: str
) -> None:
    connection, problems = from_secrets(**service)

    assert connection is None  # not used: a typo never silently means the demo
    text = " ".join(problems)
    assert words in text
    for secret in SECRET_VALUES:
        assert secret not in text


def test_a_half_filled_environment_names_the_variable() -> None:
    env = {
        "QA_DASHBOARD_BASE_URL": BASE["base_url"],
        "QA_DASHBOARD_COMPANY_ID": "7",
        "QA_DASHBOARD_OAUTH_TOKEN_URL": OAUTH["token_url"],
        "QA_DASHBOARD_OAUTH_GRANT": "client_credentials",
        "QA_DASHBOARD_OAUTH_CLIENT_ID": "qa",
    }

    resolution = resolve(session=None, secrets={}, env=env)

    assert resolution.connection is None
    assert (
        "QA_DASHBOARD_OAUTH_CLIENT_SECRET is missing in QA_DASHBOARD_* environment variables."
        in resolution.problems
    )


def test_a_token_source_counts_as_a_configured_connection_for_the_form() -> None:
    policy, _ = form_policy(secrets={"service": {"token_file": "/f"}}, env={})
    env_policy, _ = form_policy(secrets={}, env={"QA_DASHBOARD_OAUTH_CLIENT_ID": "qa"})

    assert not policy.enabled
    assert not env_policy.enabled


def test_a_worker_connection_takes_the_same_keys_and_names_its_table() -> None:
    secrets = {
        "connections": {
            "shop": {**BASE, "oauth": OAUTH},
            "half": {**BASE, "oauth": {**OAUTH, "username": ""}},
            "cmd": {**BASE, "token_command": [sys.executable, "-c", "print('t')"]},
        }
    }

    shop = named_connection(secrets, "shop")
    assert isinstance(shop.credential(), TokenEndpoint)
    assert isinstance(named_connection(secrets, "cmd").credential(), TokenCommand)
    with pytest.raises(CliError) as caught:
        named_connection(secrets, "half")
    assert "username is missing in the oauth table in [connections.half]." in str(caught.value)
    for secret in SECRET_VALUES:
        assert secret not in str(caught.value)


def test_a_token_sources_sentence_reaches_the_page_and_the_worker_as_it_is() -> None:
    from api_client import TokenError
    from dashboard.cli.common import service_problem
    from dashboard.present.messages import describe_error

    error = TokenError("The token endpoint at auth.example.test refused the password grant "
                       "(invalid_grant: the username or password was not accepted).")  # fmt: skip
    connection, _ = from_secrets(oauth=OAUTH)
    assert connection is not None

    shown = describe_error(error, source="secrets").text
    logged = service_problem(error, connection)

    assert shown == (
        "No token to load the data: The token endpoint at auth\\.example\\.test refused the "
        "password grant \\(invalid\\_grant\\: the username or password was not accepted\\)\\. "
        "Check the connection's "
        "token settings (docs/service-tokens.md), then press **Refresh** in the sidebar to try "
        "again."
    )
    assert logged == (
        "no token for qa.example.test (company 7): The token endpoint at auth.example.test "
        "refused the password grant (invalid_grant: the username or password was not accepted)."
    )
