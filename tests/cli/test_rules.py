"""`python -m dashboard rules ...` end to end (in this process, as `python -m dashboard`
would run it: `tests.cli.in_process`) against a service on loopback whose failures one sync
stored. A rule previewed ("would cover N failures in M groups"), added
with its author, listed, and removed (kept with who removed it); a pattern RE2 cannot run in
linear time refused with the reason and nothing written (exit 2)."""

from __future__ import annotations

from tests.cli.conftest import Cli
from tests.cli.plan_service import PlanService


def synced(cli: Cli, env: dict[str, str], service: PlanService) -> None:
    """Three executions, two failures each of one message (one group), stored by a sync."""
    for _ in range(3):
        service.add("SUCCESS", "FAILURE", "FAILURE", "SUCCESS")
    done = cli("store", "sync", "--days", "2", "--quiet", env=env)
    assert done.returncode == 0, done.stderr


def test_a_rule_is_previewed_added_listed_and_removed(
    cli: Cli, env: dict[str, str], service: PlanService
) -> None:
    synced(cli, env, service)

    preview = cli("rules", "preview", "--message", "basket total", "--scenario", "^52$", env=env)
    assert preview.returncode == 0, preview.stderr
    assert preview.stdout.startswith(
        "This rule would cover 3 failures in 1 group of the last 30 days"
    )
    none = cli("rules", "preview", "--message", "basket", "--plan", "999", env=env)
    assert none.stdout.startswith("This rule would cover no failure")

    added = cli(
        "rules",
        "add",
        "--message",
        "(?i)BASKET",
        "--category",
        "Product-Bug",
        "--by",
        "ann",
        env=env,
    )
    assert added.returncode == 0, added.stderr
    rule_id = added.stdout.strip()
    assert len(rule_id) == 12
    # Groups as the pages count them (#38): one message in one scenario, so two scenarios' basket
    # failures are two groups.
    assert "This rule would cover 6 failures in 2 groups" in added.stderr

    listed = cli("rules", "list", env=env)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.startswith(rule_id)
    assert 'message ~ /(?i)BASKET/ -> category "product bug"' in listed.stdout
    assert " ann " in listed.stdout

    removed = cli("rules", "remove", rule_id, "--by", "bob", env=env)
    assert removed.returncode == 0, removed.stderr
    assert cli("rules", "list", env=env).stdout == ""
    kept = cli("rules", "list", "--removed", env=env).stdout
    assert kept.startswith(rule_id)
    assert "(removed by bob)" in kept
    again = cli("rules", "remove", rule_id, "--by", "bob", env=env)
    assert again.returncode == 2
    assert "no rule" in again.stderr


def test_a_pattern_re2_cannot_run_is_refused_with_the_reason(cli: Cli, env: dict[str, str]) -> None:
    refused = cli("rules", "add", "--message", r"(a+)+\1", "--merge", "x", "--by", "ann", env=env)

    assert refused.returncode == 2
    assert "The message pattern cannot be used: invalid escape sequence" in refused.stderr
    assert "backreferences and lookarounds are not supported" in refused.stderr
    assert cli("rules", "list", "--removed", env=env).stdout == ""


def test_a_rule_has_one_action(cli: Cli, env: dict[str, str]) -> None:
    both = cli("rules", "add", "--message", "x", "--category", "a", "--merge", "b", env=env)
    neither = cli("rules", "add", "--message", "x", env=env)

    assert both.returncode == neither.returncode == 2
    assert "give one of --category or --merge" in both.stderr
