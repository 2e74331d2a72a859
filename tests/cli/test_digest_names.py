"""`python -m dashboard digest --standup` calls a newly failing scenario by the team's name and
owner (#38), read from the history store where `scenarios import` put them, as the alerts do;
a hostile name stays text. On the hand-built standup history (its scenario 1 newly failing in
plan 101 "Login smoke"), shifted to end now so that it falls in "since the last standup"."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

from tests.cli.conftest import Cli
from tests.dashboard import standup_history

HOSTILE = "<b>x</b> @channel [a](http://e)"


def digest_with(cli: Cli, tmp_path: Path, rows: str) -> str:
    names = tmp_path / "names.csv"
    names.write_text("id,name,owner\n" + rows, encoding="utf-8")
    with standup_history.serve_history(ending=datetime.now(UTC)) as service:
        env = standup_history.dashboard_env(service)
        imported = cli("scenarios", "import", str(names), "--by", "lead", env=env)
        assert imported.returncode == 0, imported.stderr
        printed = cli("digest", "--standup", "--to", "-", env=env)
    assert printed.returncode == 0, printed.stderr
    return printed.stdout


def newly_failing(text: str) -> str:
    return text.split("**Newly failing scenarios**\n", 1)[1].split("\n\n", 1)[0]


def test_a_newly_failing_scenario_is_named_with_its_owner(cli: Cli, tmp_path: Path) -> None:
    section = newly_failing(digest_with(cli, tmp_path, "1,Login works,ana@example.com\n"))

    assert "Login smoke" in section
    assert "Login works (1, owner ana@\u2060example\u2060.com) on " in section
    assert "scenario 1 on" not in section


def test_a_hostile_name_reaches_the_digest_as_text(cli: Cli, tmp_path: Path) -> None:
    section = newly_failing(digest_with(cli, tmp_path, f'1,"{HOSTILE}",\n'))

    assert f"{HOSTILE} (1) on " in re.sub(r"\\(.)", r"\1", section).replace("\u2060", "")
    for raw in ("<b>", "@channel", "[a](", "http://e"):
        assert raw not in section
