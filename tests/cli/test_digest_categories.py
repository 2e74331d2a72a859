"""`python -m dashboard digest --standup` ends a newly failing scenario's line with the category
the team's rules give its failures (#38), read from the history store where `rules add` put
them, as the alerts do. On the hand-built standup history (its scenario 1 newly failing in plan
101 "Login smoke" with "Search box not found"), shifted to end now so that it falls in "since
the last standup"."""

from __future__ import annotations

from datetime import UTC, datetime

from tests.cli.conftest import Cli
from tests.cli.test_digest_names import newly_failing
from tests.dashboard import standup_history


def test_a_newly_failing_scenarios_line_ends_with_its_category(cli: Cli) -> None:
    with standup_history.serve_history(ending=datetime.now(UTC)) as service:
        env = standup_history.dashboard_env(service)

        def digest_after_rule(pattern: str, category: str) -> str:
            rule = ("--message", pattern, "--category", category, "--by", "lead")
            added = cli("rules", "add", *rule, env=env)
            assert added.returncode == 0, added.stderr
            printed = cli("digest", "--standup", "--to", "-", env=env)
            assert printed.returncode == 0, printed.stderr
            return newly_failing(printed.stdout)

        # A rule that reaches none of its failures first, then one that reaches them.
        unruled = digest_after_rule("^Timeout", "infrastructure")
        ruled = digest_after_rule("^Search box", "Automation-Bug")

    (line,) = ruled.splitlines()
    assert line.startswith("- [Login smoke](")
    assert "): scenario 1 on CHROME / Windows 10 ([execution 1003](" in line
    assert line.endswith("): new; category: automation bug")
    assert unruled == line.removesuffix("; category: automation bug")
