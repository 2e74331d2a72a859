"""`python -m dashboard rules add|list|remove|preview`: a team's rules for failure groups, kept
in the history store beside the marks (`store.group_rules`).

A rule is a pattern on the failure's message (`--message`), optionally on the scenario's id or
name (`--scenario`), a plan (`--plan`) and a pattern on the environment's label
(`--environment`), and either a category (`--category product-bug|automation-bug|
infrastructure|TEXT`) or a merge of what it matches into one group (`--merge NAME`). Patterns
are RE2's: a pattern RE2 cannot run in linear time (a backreference, a lookaround) or in bounded
memory is refused with the reason (exit 2). `preview` says what a rule would cover among the
stored failures of the last days ("This rule would cover 14 failures in 3 groups."), before it
is added; `add` says it too.

Each command works on the connection the dashboard would use (or `--connection NAME`), once the
service has accepted its credential for the company (as `known` does).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from contextlib import AbstractContextManager
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Annotated, Any

import typer

from dashboard.cli.common import (
    OK,
    USAGE,
    Args,
    CliError,
    Parsed,
    by_of,
    checked_store,
    parsed,
    refusals,
)
from dashboard.cli.options import (
    DEFAULT_SECRETS,
    DEFAULT_WAIT,
    ConnectionName,
    Secrets,
    Wait,
    identifier,
    positive_int,
)
from dashboard.cli.scenarios import By

if TYPE_CHECKING:
    from dashboard.data.store import HistoryStore
    from dashboard.data.store.group_rules import RuleDraft

PREVIEW_DAYS = 30

app = typer.Typer(
    name="rules",
    help="Rules for failure groups in the history store: categories (product bug, automation "
    "bug, infrastructure, or the team's own) and merges. Nothing changes on the service.",
    short_help="rules for failure groups: add, list, remove and preview",
    rich_markup_mode=None,
)

Message = Annotated[
    str,
    typer.Option(metavar="REGEX", help="what the failure's message holds (RE2 syntax)"),
]
Scenario = Annotated[
    str | None,
    typer.Option(
        metavar="REGEX", help="only scenarios whose id or name holds this", show_default=False
    ),
]
Plan = Annotated[
    int | None,
    typer.Option(parser=identifier, metavar="ID", help="only this plan", show_default=False),
]
Environment = Annotated[
    str | None,
    typer.Option(
        metavar="REGEX",
        help='only environments whose label holds this ("^CHROME")',
        show_default=False,
    ),
]
Category = Annotated[
    str | None,
    typer.Option(
        metavar="product-bug|automation-bug|infrastructure|TEXT",
        help="the category of what the rule matches",
        show_default=False,
    ),
]
Merge = Annotated[
    str | None,
    typer.Option(
        metavar="NAME",
        help="merge what the rule matches into one group of this name",
        show_default=False,
    ),
]
Days = Annotated[
    int,
    typer.Option(parser=positive_int, metavar="DAYS", help="the stored failures of these days"),
]


def _one_action(ctx: typer.Context, *, required: bool) -> None:
    given = [n for n in ("category", "merge") if ctx.params.get(n) is not None]
    if len(given) > 1 or (required and not given):
        ctx.fail("give one of --category or --merge")


@app.command("add", help="Add a rule (it applies at once on every page).")
def add_command(
    ctx: typer.Context,
    message: Message,
    category: Category = None,
    merge: Merge = None,
    scenario: Scenario = None,
    plan: Plan = None,
    environment: Environment = None,
    days: Days = PREVIEW_DAYS,
    connection: ConnectionName = None,
    by: By = None,
    secrets: Secrets = DEFAULT_SECRETS,
    wait: Wait = DEFAULT_WAIT,
) -> Parsed:
    _one_action(ctx, required=True)
    return parsed(ctx, run_add)


@app.command("preview", help="What a rule would cover among the stored failures, unsaved.")
def preview_command(
    ctx: typer.Context,
    message: Message,
    category: Category = None,
    merge: Merge = None,
    scenario: Scenario = None,
    plan: Plan = None,
    environment: Environment = None,
    days: Days = PREVIEW_DAYS,
    connection: ConnectionName = None,
    secrets: Secrets = DEFAULT_SECRETS,
    wait: Wait = DEFAULT_WAIT,
) -> Parsed:
    _one_action(ctx, required=False)
    return parsed(ctx, run_preview)


@app.command("list", help="The rules in force, oldest first (the oldest matching rule wins).")
def list_command(
    ctx: typer.Context,
    removed: Annotated[bool, typer.Option("--removed", help="removed rules too")] = False,
    connection: ConnectionName = None,
    secrets: Secrets = DEFAULT_SECRETS,
    wait: Wait = DEFAULT_WAIT,
) -> Parsed:
    return parsed(ctx, run_list)


@app.command("remove", help="Remove a rule (it is kept, with who removed it, and stops applying).")
def remove_command(
    ctx: typer.Context,
    rule_id: Annotated[str, typer.Argument(metavar="RULE", help="the rule's id")],
    connection: ConnectionName = None,
    by: By = None,
    secrets: Secrets = DEFAULT_SECRETS,
    wait: Wait = DEFAULT_WAIT,
) -> Parsed:
    return parsed(ctx, run_remove)


# -- running ---------------------------------------------------------------------------------------


def _refusals() -> AbstractContextManager[None]:
    from dashboard.data.store.group_rules import RuleRefused  # lazy: it loads pandas

    return refusals(RuleRefused)


def _draft(args: Args) -> RuleDraft:
    from dashboard.data.store.group_rules import CATEGORY, MERGE, RuleDraft, category_word

    merging = getattr(args, "merge", None) is not None
    label = args.merge if merging else getattr(args, "category", None)
    return RuleDraft(
        message=args.message,
        label=category_word(label) if label is not None and not merging else (label or "preview"),
        action=MERGE if merging else CATEGORY,
        scenario=args.scenario,
        plan_id=args.plan,
        environment=args.environment,
    )


def _checked(draft: RuleDraft, by: str) -> None:
    from dashboard.data.store.group_rules import draft_problems

    problems = draft_problems(draft, by=by)
    if problems:
        raise CliError(" ".join(problems), USAGE)


def _preview_words(store: HistoryStore, company_id: int, draft: RuleDraft, days: int) -> str:
    """The preview sentence of `draft` over the stored failures of the last `days` days."""
    from dashboard.analytics.failure_groups import Grouping
    from dashboard.analytics.group_rules import preview, rule_of
    from dashboard.analytics.scenario_names import names_by_id
    from dashboard.data.store.group_rules import usable

    since = datetime.now(UTC) - timedelta(days=days)
    failures = store.failed_results(date_from=since)
    names = names_by_id(store.scenario_names(company_id))
    row: dict[str, Any] = {
        "message_pattern": draft.message,
        "scenario_pattern": draft.scenario,
        "plan_id": draft.plan_id,
        "environment_pattern": draft.environment,
        "action": draft.action,
        "label": draft.label,
    }
    rule = rule_of(row, usable, rule_id="preview")
    if rule is None:  # checked before: cannot happen, but say so rather than fail
        raise CliError("the rule's patterns cannot be compiled.", USAGE)
    # Counted in the groups the pages show (one message in one plan's scenario).
    found = preview(rule, failures, names=names, grouping=Grouping.SCENARIO)
    return f"{found.sentence[:-1]} of the last {days} days ({len(failures):,} failures stored)."


def run_preview(args: Args, env: Mapping[str, str]) -> int:

    draft = _draft(args)
    _checked(draft, "preview")
    with checked_store(args, env) as (connection, store), _refusals():
        print(_preview_words(store, connection.company_id, draft, args.days))
    return OK


def run_add(args: Args, env: Mapping[str, str]) -> int:

    draft, by = _draft(args), by_of(args)
    _checked(draft, by)
    with checked_store(args, env) as (connection, store), _refusals():
        words = _preview_words(store, connection.company_id, draft, args.days)
        rule_id = store.add_group_rule(connection.company_id, draft, by=by)
    print(rule_id)
    print(f"Added rule {rule_id}. {words}", file=sys.stderr)
    return OK


def run_list(args: Args, env: Mapping[str, str]) -> int:
    from dashboard.data.store.group_rules import describe_rule

    with checked_store(args, env) as (connection, store), _refusals():
        rules = store.group_rules(connection.company_id, removed=args.removed)
    for record in rules.to_dict("records"):
        removed = record["removed_at"]
        state = (
            ""
            if removed is None or removed != removed
            else f"  (removed by {record['removed_by']})"
        )
        print(
            f"{record['rule_id']}  {record['created_at']:%Y-%m-%d %H:%M}  "
            f"{' '.join(str(record['created_by']).split())[:20]}  {describe_rule(record)}{state}"
        )
    print(f"{len(rules):,} rules of company {connection.company_id}.", file=sys.stderr)
    return OK


def run_remove(args: Args, env: Mapping[str, str]) -> int:

    by = by_of(args)
    with checked_store(args, env) as (connection, store), _refusals():
        store.remove_group_rule(connection.company_id, args.rule_id, by=by)
    print(f"Removed rule {args.rule_id}: it is kept, and no longer applies.")
    return OK
