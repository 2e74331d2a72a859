"""`python -m dashboard store ...` end to end, configured as an operator would configure it
(QA_DASHBOARD_* variables or a secrets file), against the sandbox over HTTP. The main path
(sync, info, clear, no secret in any output or file) runs real `python -m dashboard`
subprocesses; the other tests run the command line in this process (`tests.cli.in_process`)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from api_client import ApiClient
from dashboard.data.store import sql as store_sql
from dashboard.data.store.records import execution_is_finished
from sandbox import Authority, DemoUser, RunningSandbox
from tests.cli.in_process import process_env, run_cli
from tests.counting_proxy import counting_proxy
from tests.store.conftest import REPO, files_under, lacking, lead_of, secret_bytes

Cli = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    return tmp_path / "cache" / "nested"  # made by the CLI itself


def command_env(
    cache: Path,
    running: RunningSandbox | None = None,
    who: DemoUser | None = None,
    env: dict[str, str] | None = None,
) -> dict[str, str]:
    """A command's QA_DASHBOARD_* variables: its cache folder, the sandbox's service as `who`
    (its lead by default), then `env`."""
    given = {"QA_DASHBOARD_CACHE_DIR": str(cache)}
    if running is not None:
        who = who or lead_of(running)
        given.update(
            QA_DASHBOARD_BASE_URL=running.base_url,
            QA_DASHBOARD_TOKEN=who.token,
            QA_DASHBOARD_COMPANY_ID=str(who.company_id),
        )
    given.update(env or {})
    return given


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    folder = tmp_path / "work"  # no .streamlit/secrets.toml here
    folder.mkdir()
    return folder


@pytest.fixture
def cli(workdir: Path, cache: Path) -> Cli:
    """Run the CLI in this process (`tests.cli.in_process`: its own environment, folder,
    output and exit code, as a subprocess had them) in a folder of its own."""

    def run(
        *args: str,
        running: RunningSandbox | None = None,
        who: DemoUser | None = None,
        env: dict[str, str] | None = None,
    ) -> subprocess.CompletedProcess[str]:
        return run_cli(args, env=command_env(cache, running, who, env), cwd=workdir)

    return run


@pytest.fixture
def cli_process(workdir: Path, cache: Path) -> Cli:
    """Run `python -m dashboard` as a real subprocess, configured as an operator would."""

    def run(
        *args: str,
        running: RunningSandbox | None = None,
        who: DemoUser | None = None,
        env: dict[str, str] | None = None,
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "dashboard", *args],
            capture_output=True,
            text=True,
            env=process_env(command_env(cache, running, who, env)),
            cwd=workdir,
            timeout=300,
            check=False,
        )

    return run


def assert_no_secrets(result: subprocess.CompletedProcess[str], running: RunningSandbox) -> None:
    for secret in secret_bytes(running):
        assert secret.decode() not in result.stdout + result.stderr


@pytest.mark.slow
def test_sync_info_and_clear_against_a_configured_service(
    cli_process: Cli, cache: Path, live_sandbox: RunningSandbox
) -> None:
    cli = cli_process
    empty = cli("store", "info", running=live_sandbox)
    assert empty.returncode == 0, empty.stderr
    assert "No history stored yet" in empty.stdout
    assert not cache.exists(), "info never creates anything"

    first = cli("store", "sync", "--days", "3650", running=live_sandbox)
    assert first.returncode == 0, first.stderr
    lead = lead_of(live_sandbox)
    with ApiClient(
        base_url=live_sandbox.base_url, token=lead.token, company_id=lead.company_id
    ) as client:
        every = client.all_executions()
        scenarios = {plan.id: len(plan.scenarios) for plan in client.plans(active=False)}
    done = [e for e in every if execution_is_finished(e)]
    finished, pairs = len(done), sum(scenarios.get(e.plan_id or 0, 0) for e in done)
    results = sum(sum(e.result_summary.values()) for e in done)  # one per scenario x environment
    listed = f"{len(every)} executions listed ({finished} finished, {len(every) - finished} still"
    assert listed in first.stdout
    assert f"{pairs:,} fetched, {pairs:,} stored, 0 failed" in first.stdout
    assert_no_secrets(first, live_sandbox)

    (store_file,) = files_under(cache)
    assert store_file.name.startswith("history-127.0.0.1-c1-")
    assert cache.stat().st_mode & 0o777 == 0o700
    assert store_file.stat().st_mode & 0o777 == 0o600
    for file in files_under(cache.parent):
        content = file.read_bytes()
        assert all(secret not in content for secret in secret_bytes(live_sandbox)), file

    again = cli("store", "sync", "--days", "3650", running=live_sandbox)
    assert again.returncode == 0, again.stderr
    assert "0 (execution, scenario) pairs were missing; 0 fetched" in again.stdout

    info = cli("store", "info", running=live_sandbox)
    assert info.returncode == 0, info.stderr
    assert (
        f"History of 127.0.0.1:{live_sandbox.base_url.rsplit(':', 1)[1]} (company 1)" in info.stdout
    )
    assert re.search(rf"^  results +{results:,}$", info.stdout, re.MULTILINE)
    assert re.search(rf"^  schema version +{store_sql.SCHEMA_VERSION}$", info.stdout, re.MULTILINE)
    assert str(store_file) in info.stdout

    cleared = cli("store", "clear", running=live_sandbox)
    assert cleared.returncode == 0, cleared.stderr
    assert f"{results:,} results removed" in cleared.stdout
    after = cli("store", "info", running=live_sandbox)
    assert re.search(r"^  results +0$", after.stdout, re.MULTILINE)
    assert_no_secrets(after, live_sandbox)


def test_the_secrets_file_names_the_service_and_the_cache_folder(
    cli: Cli, tmp_path: Path, live_sandbox: RunningSandbox
) -> None:
    lead = lead_of(live_sandbox, company_id=2)
    folder = tmp_path / "from-secrets"
    secrets = tmp_path / "secrets.toml"
    secrets.write_text(
        f'[service]\nbase_url = "{live_sandbox.base_url}"\ntoken = "{lead.token}"\n'
        f'company_id = 2\n\n[store]\ncache_dir = "{folder}"\n'
    )

    # Without QA_DASHBOARD_CACHE_DIR (which would win), the secrets file's folder is used.
    result = cli(
        "store",
        "sync",
        "--days",
        "1",
        "--secrets",
        str(secrets),
        env={"QA_DASHBOARD_CACHE_DIR": ""},
    )

    assert result.returncode == 0, result.stderr
    assert "(company 2)" in result.stdout
    (store_file,) = files_under(folder)
    assert "-c2-" in store_file.name
    assert_no_secrets(result, live_sandbox)


def test_a_half_configured_service_is_an_error_not_the_demo(cli: Cli, cache: Path) -> None:
    result = cli("store", "sync", env={"QA_DASHBOARD_BASE_URL": "https://svc.example.test/Api"})

    assert result.returncode == 2
    assert "The token is missing" in result.stderr
    assert "demo" not in result.stdout + result.stderr
    assert not cache.exists()


def test_a_refused_token_exits_3_without_printing_it(
    cli: Cli, live_sandbox: RunningSandbox
) -> None:
    result = cli(
        "store",
        "sync",
        running=live_sandbox,
        env={"QA_DASHBOARD_TOKEN": "sbx-not-a-real-token-0123456789"},
    )

    assert result.returncode == 3
    assert "refused the token (401)" in result.stderr
    assert "sbx-not-a-real-token" not in result.stdout + result.stderr


def test_a_token_without_the_results_authority_exits_3_and_names_it(
    cli: Cli, live_sandbox: RunningSandbox
) -> None:
    who = lacking(live_sandbox, Authority.TEST_RESULT_VIEW)

    result = cli("store", "sync", running=live_sandbox, who=who)

    assert result.returncode == 3
    assert "lacks TEST_RESULT_VIEW" in result.stderr
    assert_no_secrets(result, live_sandbox)


@pytest.mark.parametrize("engine", ["duckdb", "postgresql"])
def test_a_sync_keeps_what_the_store_knows_when_the_service_answers_otherwise(
    cli: Cli, live_sandbox: RunningSandbox, request: pytest.FixtureRequest, engine: str
) -> None:
    """Two syncs as a cron runs them; between them the service answers no plans and sends three
    finished executions changed (a new summary, no result ids, a renamed plan). The second sync
    keeps the stored plans and executions, says so on stderr, and the store counts the three."""
    lead = lead_of(live_sandbox)
    with ApiClient(base_url=live_sandbox.base_url, token=lead.token, company_id=1) as oracle:
        plans = {p.id for p in oracle.plans(active=False)}
        finished = [
            e for e in oracle.all_executions() if execution_is_finished(e) and e.plan_id in plans
        ][:3]
    summary, no_ids, renamed = (e.id for e in finished)

    def rewrite(path: str, body: bytes) -> bytes:
        if "/api/plans/" in path:
            return b"[]"
        if "/api/executions/" not in path:
            return body
        page = json.loads(body)
        for execution in page.get("item_list") or []:
            if execution["id"] == summary:
                execution["result_summary"] = {"SUCCESS": 99}
            elif execution["id"] == no_ids:
                execution["test_results"] = []
            elif execution["id"] == renamed:
                execution["plan_name"] = "Renamed by the service"
        return json.dumps(page).encode()

    with counting_proxy(live_sandbox.base_url) as proxy:
        env = {
            "QA_DASHBOARD_BASE_URL": proxy.base_url,
            "QA_DASHBOARD_TOKEN": lead.token,
            "QA_DASHBOARD_COMPANY_ID": "1",
        }
        if engine == "postgresql":
            env["QA_DASHBOARD_STORE_URL"] = request.getfixturevalue("pg_url")
        first = cli("store", "sync", "--days", "90", env=env)
        assert first.returncode == 0, first.stderr
        before = cli("store", "info", env=env)
        proxy.rewrite = rewrite
        second = cli("store", "sync", "--days", "90", env=env)
        after = cli("store", "info", env=env)

    assert second.returncode == 0, second.stderr
    assert "answered no plans" in second.stderr
    for execution_id, part in ((summary, "summary"), (no_ids, "result ids"), (renamed, "plan")):
        assert re.search(
            rf"finished execution {execution_id} came back from the service changed \({part}\); "
            "the version stored first is kept",
            second.stderr,
        ), second.stderr

    def counted(info: str, label: str) -> str:
        found = re.search(rf"^  {label} +(.+)$", info, re.MULTILINE)
        assert found, info
        return found.group(1)

    for label in ("plans", "executions", "results", "pairs fetched"):
        assert counted(after.stdout, label) == counted(before.stdout, label), label
    assert (
        counted(after.stdout, "finished executions") == "3 came back changed; kept as first stored"
    )
    assert "came back changed" not in before.stdout


def test_a_store_held_by_another_process_exits_4(
    cli: Cli, cache: Path, live_sandbox: RunningSandbox
) -> None:
    made = cli("store", "sync", "--days", "1", running=live_sandbox)
    assert made.returncode == 0, made.stderr
    (store_file,) = files_under(cache)
    holder = subprocess.Popen(
        [sys.executable, "-m", "tests.store.sync_driver", "hold", str(store_file)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        cwd=REPO,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "holding"
        result = cli("store", "sync", "--wait", "0.5", running=live_sandbox)
    finally:
        holder.communicate("go\n")  # no limit of its own: pytest-timeout ends a hang

    assert result.returncode == 4
    assert "in use by another process" in result.stderr


def test_usage_errors_exit_2(cli: Cli) -> None:
    for args in (
        ("store",),
        ("store", "sync", "--days", "0"),
        ("store", "sync", "--days", "x"),
        ("nope",),
    ):
        result = cli(*args)
        assert result.returncode == 2, args
        assert "usage:" in result.stderr
    missing = cli("store", "info", "--secrets", "/nonexistent/secrets.toml")
    assert missing.returncode == 2
    assert "does not exist" in missing.stderr


@pytest.mark.parametrize(
    ("command", "where"),
    [
        (("store", "info"), "env"),
        (("store", "sync", "--days", "1"), "env"),
        (("store", "sync", "--every", "5m"), "env"),
        (("store", "clear"), "secrets"),
        (("digest", "--standup", "--to", "-"), "env"),
    ],
)
def test_a_malformed_store_url_is_a_configuration_error_exit_2(
    cli: Cli, cache: Path, tmp_path: Path, command: tuple[str, ...], where: str
) -> None:
    """A store URL that is not postgresql://user:password@host/database is the operator's
    configuration (exit 2), not a store that cannot be opened (4), and a worker given one stops
    at once instead of logging it every pass. Its password is never echoed."""
    malformed = "user:s3cret@db/qa"
    if where == "env":
        result = cli(*command, env={"QA_DASHBOARD_STORE_URL": malformed})
    else:
        secrets = tmp_path / "secrets.toml"
        secrets.write_text(f'[store]\nurl = "{malformed}"\n')
        result = cli(*command, "--secrets", str(secrets))

    assert result.returncode == 2, result.stderr
    assert "The store URL must look like postgresql://" in result.stderr
    assert "s3cret" not in result.stdout + result.stderr
    assert not cache.exists(), "nothing was synced or stored"


def test_a_broken_secrets_file_is_named_without_its_content(cli: Cli, tmp_path: Path) -> None:
    secrets = tmp_path / "secrets.toml"
    secrets.write_text('[service]\ntoken = "sbx-secret-value-in-a-broken-file\n')

    result = cli("store", "info", "--secrets", str(secrets))

    assert result.returncode == 2
    assert "is not valid TOML" in result.stderr
    assert "sbx-secret-value" not in result.stderr + result.stdout


def test_without_configuration_the_embedded_demo_has_its_own_store(cli: Cli, cache: Path) -> None:
    result = cli("store", "sync", "--days", "7")

    assert result.returncode == 0, result.stderr
    assert "using the embedded demo sandbox" in result.stderr
    assert "Synced the embedded demo (company 1)" in result.stdout
    (store_file,) = files_under(cache)
    assert store_file.name.startswith("history-demo-c1-")
    info = cli("store", "info")
    assert str(store_file) in info.stdout


def test_sync_info_and_clear_on_a_shared_postgresql_store(
    cli: Cli, cache: Path, live_sandbox: RunningSandbox, pg_url: str
) -> None:
    from urllib.parse import urlsplit

    from dashboard.data.store.pg_pool import safe_url

    password = urlsplit(pg_url).password
    assert password
    shared = {"QA_DASHBOARD_STORE_URL": pg_url}
    empty = cli("store", "info", running=live_sandbox, env=shared)
    assert empty.returncode == 0, empty.stderr
    assert "No history stored yet" in empty.stdout
    assert safe_url(pg_url) in empty.stdout

    synced = cli("store", "sync", "--days", "30", running=live_sandbox, env=shared)
    assert synced.returncode == 0, synced.stderr
    info = cli("store", "info", running=live_sandbox, env=shared)
    assert info.returncode == 0, info.stderr
    shown = rf"^  postgresql +{re.escape(safe_url(pg_url))}#history_127_0_0_1_c1_\w+$"
    assert re.search(shown, info.stdout, re.MULTILINE), info.stdout
    stored = re.search(r"^  results +([\d,]+)$", info.stdout, re.MULTILINE)
    assert stored
    assert int(stored.group(1).replace(",", "")) > 0
    cleared = cli("store", "clear", running=live_sandbox, env=shared)
    assert cleared.returncode == 0, cleared.stderr
    assert f"{stored.group(1)} results removed" in cleared.stdout
    assert "rm " not in cleared.stdout
    assert not cache.exists(), "a shared store leaves the cache folder alone"
    for result in (empty, synced, info, cleared):
        assert password not in result.stdout + result.stderr
        assert_no_secrets(result, live_sandbox)
