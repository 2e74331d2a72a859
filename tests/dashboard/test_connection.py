"""Which service the dashboard reads: form > secrets > environment > demo; tokens stay secret."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import SecretStr

from dashboard.data.connection import Connection, FormPolicy, form_policy, resolve

TOKEN = "sbx-1111222233334444555566667777888899990000"
ENV = {
    "QA_DASHBOARD_BASE_URL": "https://env.example.test/Api/",
    "QA_DASHBOARD_TOKEN": TOKEN,
    "QA_DASHBOARD_COMPANY_ID": "7",
    "QA_DASHBOARD_EMAIL": "me@example.test",
}
SECRETS = {"service": {"base_url": "https://secrets.example.test", "token": "t2", "company_id": 3}}


def test_nothing_configured_means_the_demo() -> None:
    assert resolve(session=None, secrets=None, env={}).connection is None


def test_environment_variables_configure_a_connection() -> None:
    resolution = resolve(session=None, secrets={}, env=ENV)

    connection = resolution.connection
    assert connection is not None
    assert connection.base_url == "https://env.example.test/Api"
    assert connection.company_id == 7
    assert connection.email == "me@example.test"
    assert connection.source == "environment"
    assert connection.token.get_secret_value() == TOKEN
    assert resolution.problems == []


def test_secrets_win_over_the_environment_and_the_form_wins_over_both() -> None:
    from_secrets = resolve(session=None, secrets=SECRETS, env=ENV).connection
    assert from_secrets is not None
    assert from_secrets.source == "secrets"
    assert from_secrets.email is None

    form = {
        "base_url": "http://127.0.0.1:9",
        "token": SecretStr("t3"),
        "company_id": "1",
        "email": "",
    }
    # With configured sources the form is off unless the operator allows it (#14).
    allowed = {**ENV, "QA_DASHBOARD_ALLOW_CONNECTION_FORM": "true"}
    from_form = resolve(session=form, secrets=SECRETS, env=allowed).connection
    assert from_form is not None
    assert from_form.source == "session"
    assert from_form.host == "127.0.0.1:9"


def test_a_half_configured_source_is_reported_and_not_used() -> None:
    env = {"QA_DASHBOARD_TOKEN": TOKEN, "QA_DASHBOARD_COMPANY_ID": "seven"}

    resolution = resolve(session=None, secrets={}, env=env)

    assert resolution.connection is None
    text = " ".join(resolution.problems)
    assert "base URL is missing" in text
    assert "company id" in text
    assert TOKEN not in text


def test_a_broken_source_falls_through_to_the_next() -> None:
    broken_secrets = {"service": {"base_url": "ftp://x", "token": "t", "company_id": 1}}

    resolution = resolve(session=None, secrets=broken_secrets, env=ENV)

    assert resolution.connection is not None
    assert resolution.connection.source == "environment"
    assert any("not an http(s) address" in p for p in resolution.problems)


def test_a_bad_email_only_disables_only_mine() -> None:
    resolution = resolve(session=None, secrets={}, env={**ENV, "QA_DASHBOARD_EMAIL": "me"})

    assert resolution.connection is not None
    assert resolution.connection.email is None
    assert any("e-mail" in p for p in resolution.problems)


def test_the_token_is_in_no_repr_and_no_fingerprint() -> None:
    connection = resolve(session=None, secrets={}, env=ENV).connection
    assert connection is not None

    assert TOKEN not in repr(connection)
    assert TOKEN not in str(connection)
    assert TOKEN not in connection.fingerprint
    assert len(connection.fingerprint) == 64


def test_equal_service_company_and_token_means_equal_connections() -> None:
    def make(token: str, company: int = 1, email: str | None = None) -> Connection:
        return Connection(
            base_url="https://x.test", token=SecretStr(token), company_id=company, email=email
        )

    assert make("a") == make("a", email="other@x.test")
    assert hash(make("a")) == hash(make("a"))
    assert make("a") != make("b")
    assert make("a") != make("a", company=2)
    # Two viewers with different tokens never share a cache entry.
    assert make("a").fingerprint != make("b").fingerprint


def test_a_ca_bundle_for_a_self_hosted_service_is_taken_from_env_or_secrets(
    tmp_path: Path,
) -> None:
    bundle = tmp_path / "company-ca.pem"
    bundle.write_text("-----BEGIN CERTIFICATE-----\n")
    from_env = resolve(session=None, secrets={}, env={**ENV, "QA_DASHBOARD_CA_BUNDLE": str(bundle)})
    from_secrets = resolve(
        session=None,
        secrets={"service": {**SECRETS["service"], "ca_bundle": str(bundle)}},
        env={},
    )

    assert from_env.connection is not None
    assert from_env.connection.ca_bundle == str(bundle)
    assert from_secrets.connection is not None
    assert from_secrets.connection.ca_bundle == str(bundle)
    # The same service reached through another trust store is another client.
    plain = resolve(session=None, secrets={}, env=ENV).connection
    assert plain is not None
    assert from_env.connection.fingerprint != plain.fingerprint


def test_a_missing_ca_bundle_file_is_a_problem_not_a_silent_fallback(tmp_path: Path) -> None:
    missing = str(tmp_path / "nope.pem")

    resolution = resolve(session=None, secrets={}, env={**ENV, "QA_DASHBOARD_CA_BUNDLE": missing})

    assert resolution.connection is None
    assert any("CA bundle" in problem for problem in resolution.problems)


BAD_COMPANY_IDS = ["²", "①", "٣", "7²", "9" * 5000, str(2**63), "-1", "0", "+7", "7.0", "1e3"]


@pytest.mark.parametrize("company_id", BAD_COMPANY_IDS, ids=repr)
@pytest.mark.parametrize("source", ["session", "secrets", "environment"])
def test_a_company_id_that_is_not_ascii_digits_in_range_is_reported_not_a_crash(
    source: str, company_id: str
) -> None:
    form = {"base_url": "https://form.example.test", "token": SecretStr("t"), "company_id": "1"}
    secrets = {"service": {**SECRETS["service"]}}
    env = dict(ENV)
    if source == "session":
        form["company_id"] = company_id
    elif source == "secrets":
        secrets["service"]["company_id"] = company_id
    else:
        env["QA_DASHBOARD_COMPANY_ID"] = company_id
    # Only the source under test is given, so nothing falls through to another one.
    resolution = resolve(
        session=form if source == "session" else None,
        secrets=secrets if source == "secrets" else {},
        env=env if source == "environment" else {},
    )

    assert resolution.connection is None
    problem = " ".join(resolution.problems)
    assert "company id" in problem
    assert "not a whole number from 1 to 9,223,372,036,854,775,807" in problem
    if not company_id.isascii() or len(company_id) > 30:
        assert company_id not in problem  # the value itself is not echoed


@pytest.mark.parametrize(
    ("company_id", "expected"),
    [("7", 7), (" 7 ", 7), ("007", 7), (str(2**63 - 1), 2**63 - 1), (7, 7), (2**63 - 1, 2**63 - 1)],
)
def test_a_company_id_of_ascii_digits_within_a_long_is_accepted(
    company_id: object, expected: int
) -> None:
    secrets = {"service": {**SECRETS["service"], "company_id": company_id}}

    connection = resolve(session=None, secrets=secrets, env={}).connection

    assert connection is not None
    assert connection.company_id == expected


@pytest.mark.parametrize("company_id", [0, -3, 2**63, True, 7.0])
def test_a_company_id_from_toml_must_be_a_positive_long(company_id: object) -> None:
    secrets = {"service": {**SECRETS["service"], "company_id": company_id}}

    assert resolve(session=None, secrets=secrets, env={}).connection is None


@pytest.mark.parametrize(
    ("base_url", "shown"),
    [
        ("https://ops:hunter2@svc.example.test/Api", "https://ops:***@svc.example.test/Api"),
        ("https://:hunter2@svc.example.test:8443/Api", "https://:***@svc.example.test:8443/Api"),
        ("https://ops:p%40ss@x.test", "https://ops:***@x.test"),
        ("https://ops@svc.example.test/Api", "https://ops@svc.example.test/Api"),
        ("https://svc.example.test/Api", "https://svc.example.test/Api"),
    ],
)
def test_a_password_in_the_base_url_is_masked_in_the_repr(base_url: str, shown: str) -> None:
    connection = resolve(
        session=None, secrets={}, env={**ENV, "QA_DASHBOARD_BASE_URL": base_url}
    ).connection
    assert connection is not None

    assert connection.display_url == shown
    assert repr(connection).startswith(f"Connection(base_url={shown!r}, company_id=7")
    for secret in ("hunter2", "p%40ss", TOKEN):
        assert secret not in repr(connection)
        assert secret not in str(connection)
    assert "@" not in connection.host


# -- the connection form: the operator's decision ----------------------------------------------

FORM = {"base_url": "https://form.example.test/Api", "token": SecretStr("t3"), "company_id": "1"}


def test_the_form_is_on_when_nothing_is_configured() -> None:
    policy, problems = form_policy(secrets={}, env={})

    assert policy == FormPolicy(enabled=True, allowed_hosts=None)
    assert problems == []
    assert resolve(session=FORM, secrets={}, env={}).connection is not None


@pytest.mark.parametrize(
    ("secrets", "env"),
    [({}, ENV), (SECRETS, {}), ({}, {"QA_DASHBOARD_TOKEN": TOKEN})],  # even half-configured
    ids=["environment", "secrets", "half-configured"],
)
def test_a_configured_connection_turns_the_form_off(secrets: dict, env: dict) -> None:
    resolution = resolve(session=FORM, secrets=secrets, env=env)

    assert resolution.form.enabled is False
    assert resolution.connection is None or resolution.connection.source != "session"


@pytest.mark.parametrize(
    ("secrets", "env"),
    [
        ({}, {**ENV, "QA_DASHBOARD_ALLOW_CONNECTION_FORM": "true"}),
        ({}, {**ENV, "QA_DASHBOARD_ALLOW_CONNECTION_FORM": " Yes "}),
        ({"service": {**SECRETS["service"], "allow_connection_form": True}}, {}),
        ({"service": {**SECRETS["service"], "allow_connection_form": "on"}}, ENV),
    ],
)
def test_the_operator_can_turn_the_form_back_on(secrets: dict, env: dict) -> None:
    resolution = resolve(session=FORM, secrets=secrets, env=env)

    assert resolution.form.enabled is True
    assert resolution.connection is not None
    assert resolution.connection.source == "session"


def test_the_form_can_be_turned_off_in_demo_mode_and_a_bad_flag_is_reported() -> None:
    off, _ = form_policy(secrets={}, env={"QA_DASHBOARD_ALLOW_CONNECTION_FORM": "false"})
    odd, problems = form_policy(secrets={}, env={"QA_DASHBOARD_ALLOW_CONNECTION_FORM": "sure"})

    assert off.enabled is False
    assert odd.enabled is True  # not understood: the default holds, and it is said
    assert problems == ["QA_DASHBOARD_ALLOW_CONNECTION_FORM is not true or false; it was ignored."]


@pytest.mark.parametrize(
    ("allowed", "base_url", "ok"),
    [
        ("form.example.test", "https://form.example.test/Api", True),
        ("FORM.example.test", "https://form.example.test:8443/Api", True),
        ("form.example.test:443", "https://form.example.test/Api", True),
        ("form.example.test:8443", "https://form.example.test/Api", False),
        ("other.test, form.example.test:8443", "https://form.example.test:8443", True),
        ("form.example.test", "http://127.0.0.1:22", False),
        ("form.example.test", "http://form.example.test.evil.test/Api", False),
        ("form.example.test", "http://evil.test@127.0.0.1/Api", False),
    ],
)
def test_an_allow_list_limits_the_hosts_the_form_may_reach(
    allowed: str, base_url: str, ok: bool
) -> None:
    form = {**FORM, "base_url": base_url}

    resolution = resolve(session=form, secrets={}, env={"QA_DASHBOARD_ALLOWED_HOSTS": allowed})

    assert (resolution.connection is not None) is ok
    if not ok:
        assert any("allowed hosts" in problem for problem in resolution.problems)
        assert base_url not in " ".join(resolution.problems)


def test_the_allow_list_can_come_from_the_secrets_as_a_list() -> None:
    secrets = {"service": {"allowed_hosts": ["form.example.test"]}}

    allowed = resolve(session=FORM, secrets=secrets, env={})
    refused = resolve(session={**FORM, "base_url": "http://10.0.0.1:8080"}, secrets=secrets, env={})

    assert allowed.form.enabled  # allowed_hosts alone configures no connection
    assert allowed.connection is not None
    assert refused.connection is None


# -- the settings are read from the mappings given, and a problem never shows a value ----------


def test_only_the_environment_given_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)

    assert resolve(session=None, secrets={}, env={}).connection is None  # the demo


@pytest.mark.parametrize(
    "name",
    ["QA_DASHBOARD_COMPANY_ID", "QA_DASHBOARD_BASE_URL", "QA_DASHBOARD_TOKEN_COMMAND_TIMEOUT"],
)
def test_a_value_that_does_not_fit_is_named_by_its_variable_never_shown(name: str) -> None:
    value = "s3cr3t-VALUE-9"
    env = {**ENV, "QA_DASHBOARD_TOKEN_COMMAND": "get-token", name: value}
    env.pop("QA_DASHBOARD_TOKEN")

    resolution = resolve(session=None, secrets={}, env=env)

    assert resolution.connection is None
    assert resolution.problems
    assert value not in " ".join(resolution.problems)


@pytest.mark.parametrize("value", ["y", "n", "t", "maybe"])
def test_a_flag_is_true_or_false_in_words_not_any_abbreviation(value: str) -> None:
    _, problems = form_policy(secrets={}, env={"QA_DASHBOARD_ALLOW_CONNECTION_FORM": value})

    assert problems == ["QA_DASHBOARD_ALLOW_CONNECTION_FORM is not true or false; it was ignored."]


def test_a_variable_is_named_in_capitals_as_documented() -> None:
    lower = {name.lower(): value for name, value in ENV.items()}
    mixed = {f"QA_DASHBOARD_{name[len('QA_DASHBOARD_') :].lower()}": v for name, v in ENV.items()}

    assert resolve(session=None, secrets={}, env=lower).connection is None
    assert resolve(session=None, secrets={}, env=mixed).connection is None
