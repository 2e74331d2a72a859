"""`python -m dashboard known ...` end to end, configured as an operator would (QA_DASHBOARD_*),
run in this process as `python -m dashboard` would run it (`tests.cli.in_process`), against
the sandbox over HTTP, on a store one sync filled. Marks of every target added, listed,
closed, exported and imported back (into another store, and again); bad input refused with a
sentence and exit 2, nothing written; a refused credential exit 3; a held store (by another
process) exit 4; formulas and markup kept as text."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import pytest

from sandbox import RunningSandbox
from tests.cli.conftest import Cli
from tests.cli.in_process import run_cli
from tests.store.holder import holding

FORMULA = '=HYPERLINK("https://evil.example","click")'


@pytest.fixture(scope="module")
def synced(live_sandbox: RunningSandbox, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache folder whose store one sync of the demo's last two days filled (copied per
    test)."""
    from tests.cli.conftest import REPO

    cache = tmp_path_factory.mktemp("synced") / "cache"
    lead = next(u for u in live_sandbox.users if u.company_id == 1 and len(u.authorities) == 3)
    env = {"QA_DASHBOARD_CACHE_DIR": str(cache), **service_env(live_sandbox, lead.token)}
    # The demo data ends at the sandbox's own "now": the two days before it.
    days = (datetime.now(UTC) - live_sandbox.settings.now).days + 2
    done = run_cli(["store", "sync", "--days", str(days), "--quiet"], env=env, cwd=REPO)
    assert done.returncode == 0, done.stderr[-2000:]
    assert list(cache.iterdir())
    return cache


def service_env(running: RunningSandbox, token: str, company: int = 1) -> dict[str, str]:
    return {
        "QA_DASHBOARD_BASE_URL": running.base_url,
        "QA_DASHBOARD_TOKEN": token,
        "QA_DASHBOARD_COMPANY_ID": str(company),
    }


@pytest.fixture
def env(live_sandbox: RunningSandbox) -> dict[str, str]:
    lead = next(u for u in live_sandbox.users if u.company_id == 1 and len(u.authorities) == 3)
    return service_env(live_sandbox, lead.token)


@pytest.fixture
def store_file(synced: Path, cache: Path) -> Path:
    """The test's own copy of the synced store, where the CLI finds it."""
    import shutil

    shutil.copytree(synced, cache)
    (found,) = cache.glob("*.duckdb")
    return found


def stored(store_file: Path) -> dict[str, Any]:
    """A scenario, an environment of it, a failure message and an execution the store holds."""
    con = duckdb.connect(str(store_file), read_only=True)
    try:
        plan, scenario, os_, browser, version, device = con.execute(
            "SELECT plan_id, scenario_id, os, browser, browser_version, device FROM results "
            "WHERE mobile = false ORDER BY result_id LIMIT 1"
        ).fetchone()
        message, message_plan = con.execute(
            "SELECT message, plan_id FROM results WHERE level IN ('FAILURE', 'ERROR') "
            "AND message <> '' ORDER BY result_id LIMIT 1"
        ).fetchone()
        (execution,) = con.execute("SELECT MIN(execution_id) FROM executions").fetchone()
    finally:
        con.close()
    return {
        "plan": str(plan),
        "scenario": str(scenario),
        "environment": f"{browser} {version} / {os_}",
        "message": message,
        "message_plan": str(message_plan),
        "execution": str(execution),
        "device": device,
    }


@pytest.fixture
def run(
    env: dict[str, str], cache: Path, capsys: pytest.CaptureFixture[str]
) -> Callable[..., tuple[int, str, str]]:
    """The command line called in this process (`dashboard.cli.main`, as `python -m dashboard`
    runs it): its exit code, stdout and stderr. `cache` names another environment's cache
    folder."""
    from dashboard.cli import main

    def call(*args: str, cache: dict[str, str] | None = None) -> tuple[int, str, str]:
        given = cache or {"QA_DASHBOARD_CACHE_DIR": str(cache_folder)}
        code = main(list(args), env={**env, **given})
        said = capsys.readouterr()
        return code, said.out, said.err

    cache_folder = cache
    return call


@pytest.fixture
def in_process(run: Callable[..., tuple[int, str, str]]) -> Callable[..., tuple[int, str]]:
    """`run`'s exit code and stderr: for the refusals."""

    def call(*args: str) -> tuple[int, str]:
        code, _, err = run(*args)
        return code, err

    return call


def marks_of(store_file: Path) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(store_file), read_only=True)
    try:
        return con.execute(
            "SELECT mark_id, closed_at IS NOT NULL FROM marks ORDER BY mark_id"
        ).fetchall()
    finally:
        con.close()


def test_marks_of_every_target_are_added_listed_closed_and_exported(
    cli: Cli,
    run: Callable[..., tuple[int, str, str]],
    env: dict[str, str],
    store_file: Path,
) -> None:
    facts = stored(store_file)
    ticket = "https://jira.example.com/browse/SHOP-123"
    scenario = ("--scenario", facts["scenario"], "--plan", facts["plan"])
    first = cli(
        "known", "add", *scenario, "--ticket", ticket, "--note", FORMULA,
        "--owner", "<b>Ann</b>", "--by", "ann", env=env,
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    more = [
        run("known", "add", *scenario, "--environment", facts["environment"], "--kind",
            "accepted", "--expires", "2999-12-31", "--by", "ann"),
        run("known", "add", "--group", facts["message"], "--plan", facts["message_plan"],
            "--by", "bob"),
        run("known", "add", "--execution", facts["execution"], "--ticket",
            "https://status.example.com/1", "--by", "bob"),
    ]  # fmt: skip
    assert [code for code, _, _ in more] == [0, 0, 0], [err for _, _, err in more]
    ids = [first.stdout.strip(), *(out.strip() for _, out, _ in more)]
    assert all(len(i) == 12 for i in ids)

    code, out, _ = run("known", "close", ids[0], "--reason", "looks fixed", "--by", "cy")
    assert code == 0
    assert f"Closed {ids[0]}" in out

    listed = cli("known", "list", env=env)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[0].split()[:4] == ["MARK", "STATE", "KIND", "TARGET"]
    rows = {line.split()[0]: line for line in lines[1:]}
    assert set(rows) == set(ids)
    assert " closed " in rows[ids[0]]
    assert " accepted " in rows[ids[1]]
    assert "2999-12-31" in rows[ids[1]]
    assert " outage " in rows[ids[3]]
    _, only_closed, _ = run("known", "list", "--state", "closed", "--format", "json")
    assert [m["mark_id"] for m in json.loads(only_closed)["marks"]] == [ids[0]]

    code, exported, _ = run("known", "export", "--format", "csv")
    assert code == 0
    by_id = {row["mark_id"]: row for row in csv.DictReader(io.StringIO(exported))}
    assert by_id[ids[0]]["note"] == "'" + FORMULA  # a spreadsheet shows it as text
    assert by_id[ids[0]]["owner"] == "<b>Ann</b>"
    assert by_id[ids[0]]["closed_by"] == "cy"
    assert by_id[ids[1]]["environment"] == facts["environment"]
    assert by_id[ids[2]]["target"] == "failure_group"


def test_an_export_imports_into_another_store_once_with_its_log(
    cli: Cli,
    run: Callable[..., tuple[int, str, str]],
    env: dict[str, str],
    store_file: Path,
    tmp_path: Path,
) -> None:
    facts = stored(store_file)
    _, added, _ = run(
        "known", "add", "--scenario", facts["scenario"], "--plan", facts["plan"],
        "--note", FORMULA, "--by", "ann",
    )  # fmt: skip
    run("known", "close", added.strip(), "--by", "bob")
    backup_json, backup_csv = tmp_path / "marks.json", tmp_path / "marks.csv"
    assert cli("known", "export", "-o", str(backup_json), env=env).returncode == 0
    assert run("known", "export", "-o", str(backup_csv))[0] == 0
    document = json.loads(backup_json.read_text())
    assert [e["action"] for e in document["marks"][0]["log"]] == ["created", "closed"]

    elsewhere = {**env, "QA_DASHBOARD_CACHE_DIR": str(tmp_path / "elsewhere")}
    restored = cli("known", "import", str(backup_json), "--by", "ops", env=elsewhere)
    code, again, _ = run("known", "import", str(backup_csv), "--by", "ops", cache=elsewhere)

    assert restored.returncode == 0, restored.stderr
    assert "Imported 1 marks into company 1's ledger." in restored.stdout
    assert code == 0
    assert "Imported 0 marks" in again
    assert "1 were there already" in again
    back = json.loads(run("known", "export", cache=elsewhere)[1])["marks"]
    assert back[0]["note"] == FORMULA  # the CSV's leading ' came off again
    assert [e["action"] for e in back[0]["log"]] == ["created", "closed", "imported"]
    assert back[0]["closed_by"] == "bob"


@pytest.mark.parametrize(
    ("args", "sentence"),
    [
        (
            ["--ticket", "javascript:alert(1)"],
            'must be a web link starting with http:// or https:// ("javascript:alert(1)" is not)',
        ),
        (["--ticket", "data:text/html;base64,PGI+"], "must be a web link"),
        (["--ticket", "file:///etc/passwd"], "must be a web link"),
        (["--note", "x" * 2001], "The note has 2,001 characters; a note holds at most 2,000."),
        (["--expires", "2020-01-01"], "is in the past"),
        (["--environment", "NETSCAPE 4 / OS/2"], 'has not run on "NETSCAPE 4 / OS/2"'),
    ],
)
def test_bad_input_is_refused_in_a_sentence_and_nothing_written(
    in_process: Callable[..., tuple[int, str]], store_file: Path, args: list[str], sentence: str
) -> None:
    facts = stored(store_file)

    code, said = in_process(
        "known",
        "add",
        "--scenario",
        facts["scenario"],
        "--plan",
        facts["plan"],
        *args,
        "--by",
        "ann",
    )

    assert code == 2
    assert sentence in said
    assert said.startswith("error: ")
    assert marks_of(store_file) == []


def test_unknown_targets_ids_and_another_companys_marks_are_refused(
    in_process: Callable[..., tuple[int, str]], store_file: Path, tmp_path: Path
) -> None:
    facts = stored(store_file)
    foreign = tmp_path / "theirs.json"
    theirs = {
        "company_id": 2,
        "target": "scenario",
        "plan_id": int(facts["plan"]),
        "scenario_id": int(facts["scenario"]),
        "kind": "known_issue",
    }
    foreign.write_text(json.dumps({"marks": [theirs]}))
    broken = tmp_path / "broken.csv"
    broken.write_text("target,plan_id\nscenario,seven\n")
    refusals = {
        ("add", "--scenario", "1", "--plan", "999999"): "Plan 999999 is not stored",
        ("add", "--execution", "999999999"): "Execution 999999999 is not stored.",
        ("add", "--group", "Nothing ever said this 42"): (
            'No stored failure reads like "Nothing ever said this {n}".'
        ),
        ("close", "0123456789ab"): "There is no mark 0123456789ab in company 1's ledger.",
        ("close", "nope"): "is not a mark id",
        ("import", str(foreign)): "Row 1: it is a mark of company 2; this ledger is company 1's.",
        ("import", str(broken)): "plan_id 'seven' is not a number",
    }

    for args, sentence in refusals.items():
        code, said = in_process("known", *args, "--by", "a")
        assert code == 2, said
        assert sentence in said
    assert marks_of(store_file) == []


def test_a_refused_credential_sees_and_changes_nothing(
    cli: Cli, live_sandbox: RunningSandbox, store_file: Path
) -> None:
    refused = cli("known", "list", env=service_env(live_sandbox, "not-a-valid-token"))

    assert refused.returncode == 3
    assert "did not accept this credential for company 1 (refused)" in refused.stderr
    assert refused.stdout == ""


def test_a_store_held_by_another_process_is_said_busy(
    cli: Cli, env: dict[str, str], store_file: Path
) -> None:
    with holding(store_file):
        busy = cli("known", "list", "--wait", "0.5", env=env)

    assert busy.returncode == 4
    assert "in use by another process" in busy.stderr
