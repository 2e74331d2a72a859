"""`python -m dashboard scenarios ...` end to end, configured as an operator would
(QA_DASHBOARD_*) and run in this process as `python -m dashboard` would run it
(`tests.cli.in_process`), against a service on loopback. A names file imported, listed, edited
and exported (which imports back exactly, formulas made inert); bad files refused whole with
the lines named and nothing written (exit 2); long names cut and said; a hundred thousand rows
imported (and how long it took printed, for the record)."""

from __future__ import annotations

import csv
import io
import time
from pathlib import Path

import pytest

from tests.cli.conftest import Cli

GOOD = (
    "id,name,owner,tags\n"
    '402,Checkout as guest,ann@example.com,"checkout, smoke"\n'
    "403,<b>Login</b>,,\n"
    '404,=HYPERLINK("https://evil.example"),,\n'
)


def test_names_are_imported_listed_set_and_exported_back(
    cli: Cli, env: dict[str, str], tmp_path: Path
) -> None:
    names = tmp_path / "names.csv"
    names.write_text(GOOD, encoding="utf-8")

    imported = cli("scenarios", "import", str(names), "--by", "ann", env=env)
    assert imported.returncode == 0, imported.stderr
    assert "Read 3 names for company 1: 3 new, 0 changed, 0 as they were." in imported.stdout
    assert "line 4 begin with =, +, - or @: they are kept as text" in imported.stderr

    changed = cli("scenarios", "set", "403", "--owner", "bob@example.com", "--by", "bob", env=env)
    assert changed.returncode == 0, changed.stderr
    assert changed.stdout.strip() == (
        "Scenario 403 is now <b>Login</b> (403), owned by bob@example.com."
    )

    listed = cli("scenarios", "list", env=env)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[0].split() == ["ID", "NAME", "OWNER", "TAGS", "CHANGED", "BY", "CHANGED"]
    assert lines[1].startswith("402  Checkout as guest")
    assert "bob@example.com" in lines[2]
    assert "bob" in lines[2].split()
    assert "ann" in lines[1].split()

    exported = tmp_path / "out.csv"
    done = cli("scenarios", "export", str(exported), env=env)
    assert done.returncode == 0, done.stderr
    rows = list(csv.reader(io.StringIO(exported.read_text(encoding="utf-8"))))
    assert rows[3] == ["404", '\'=HYPERLINK("https://evil.example")', "", ""]  # inert
    assert rows[2] == ["403", "<b>Login</b>", "bob@example.com", ""]

    again = cli("scenarios", "import", str(exported), "--by", "cy", env=env)
    assert again.returncode == 0, again.stderr
    assert "0 new, 0 changed, 3 as they were." in again.stdout
    second = tmp_path / "again.csv"
    assert cli("scenarios", "export", str(second), env=env).returncode == 0
    assert second.read_bytes() == exported.read_bytes()


def test_a_bad_file_is_refused_whole_naming_lines_and_columns(
    cli: Cli, env: dict[str, str], tmp_path: Path
) -> None:
    repeated = tmp_path / "repeated.csv"
    repeated.write_text("id,name,owner\n1,A,\n2,B,bob at example\n1,C,\n", encoding="utf-8")
    unknown = tmp_path / "unknown.csv"
    unknown.write_text("id,name,team\n1,A,x\n", encoding="utf-8")

    refused = cli("scenarios", "import", str(repeated), "--by", "ann", env=env)
    assert refused.returncode == 2
    assert "Scenario 1 is on lines 2 and 4." in refused.stderr
    assert "Line 3: has an owner that is not an e-mail address." in refused.stderr
    assert "Nothing of the file was written." in refused.stderr
    columns = cli("scenarios", "import", str(unknown), "--by", "ann", env=env)
    assert columns.returncode == 2
    assert 'columns this file cannot hold ("team")' in columns.stderr
    assert cli("scenarios", "list", env=env).stdout.splitlines()[1:] == []
    bad_owner = cli("scenarios", "set", "5", "--name", "X", "--owner", "nobody", env=env)
    assert bad_owner.returncode == 2
    assert 'The owner "nobody" is not an e-mail address' in bad_owner.stderr


def test_a_long_name_is_cut_and_said(cli: Cli, env: dict[str, str], tmp_path: Path) -> None:
    names = tmp_path / "long.csv"
    names.write_text(f"id,name\n7,{'y' * 300}\n", encoding="utf-8")

    done = cli("scenarios", "import", str(names), "--by", "ann", env=env)

    assert done.returncode == 0, done.stderr
    assert "longer than 200 characters: each was cut to its first 199" in done.stderr
    out = tmp_path / "out.csv"
    assert cli("scenarios", "export", str(out), env=env).returncode == 0
    assert out.read_text(encoding="utf-8").splitlines()[1] == "7," + "y" * 199 + "…,,"


def test_a_hundred_thousand_names_are_imported(
    cli: Cli, env: dict[str, str], tmp_path: Path
) -> None:
    names = tmp_path / "many.csv"
    rows = "".join(
        f'{i},Scenario number {i},owner{i % 97}@example.com,"a, b"\n' for i in range(1, 100_001)
    )
    names.write_text("id,name,owner,tags\n" + rows, encoding="utf-8")

    started = time.perf_counter()
    done = cli("scenarios", "import", str(names), "--by", "bulk", env=env)
    took = time.perf_counter() - started

    assert done.returncode == 0, done.stderr
    assert "Read 100,000 names for company 1: 100,000 new" in done.stdout
    print(f"100,000 names imported by the CLI in {took:.1f} s")  # a figure for the record
    out = tmp_path / "out.csv"
    assert cli("scenarios", "export", str(out), env=env).returncode == 0
    assert len(out.read_text(encoding="utf-8").splitlines()) == 100_001


def test_known_scenarios_and_rules_open_a_named_connection_the_same_way(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from dashboard.cli import main

    secrets = tmp_path / "secrets.toml"
    secrets.write_text(
        '[connections.shop]\nbase_url = "https://qa.example.test/Api"\ncompany_id = 7\n'
        'token = "t-SECRET"\n',
        encoding="utf-8",
    )
    for command in (["known", "list"], ["scenarios", "list"], ["rules", "list"]):
        code = main([*command, "--connection", "nightly", "--secrets", str(secrets)], env={})

        said = capsys.readouterr().err
        assert code == 2, command
        assert "no table [connections.nightly] in the secrets file (the file has: shop)" in said
        assert "t-SECRET" not in said
