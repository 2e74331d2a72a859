"""`python -m dashboard scenarios import|export|list|set`: a team's names and owners for its
scenarios, kept in the history store (`store.scenario_names`).

The service knows scenarios by number; a lead imports a CSV of `id,name[,owner][,tags]` (a
header line first), edits one (`set 402 --name "Checkout as guest" --owner ann@example.com`),
and exports them back (`export names.csv`, which imports back exactly). A file is read whole and
checked before anything is written: a file with a repeated id, an unknown column, a cell that
is not an id, an empty name or an owner that is not an e-mail address is refused with each
problem named by line, and nothing of it is written (exit 2). A name longer than 200 characters
is cut, and a name that begins like a formula is kept as text; both are said on stderr. Names
are text: markup is stored as written and every face shows it as text.

Each command works on the connection the dashboard would use (or `--connection NAME`), once the
service has accepted its credential for the company (as `known` does). Exit codes as every
command's (`dashboard.cli`).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Annotated

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
)

app = typer.Typer(
    name="scenarios",
    help="Scenario names, owners and tags in the history store: what the team calls its "
    "scenarios and who looks after them. Nothing changes on the service.",
    short_help="scenario names and owners: import, export, list and set",
    rich_markup_mode=None,
)

By = Annotated[
    str | None,
    typer.Option(
        metavar="NAME",
        help="who is recorded as making the change (default: your user name)",
        show_default=False,
    ),
]


@app.command("import", help="Names from a CSV file: id,name[,owner][,tags], a header first.")
def import_command(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(metavar="FILE", help="the CSV file (- for stdin)")],
    connection: ConnectionName = None,
    by: By = None,
    secrets: Secrets = DEFAULT_SECRETS,
    wait: Wait = DEFAULT_WAIT,
) -> Parsed:
    return parsed(ctx, run_import)


@app.command("export", help="Every name, as a CSV file that imports back exactly.")
def export_command(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(metavar="FILE", help="where to write (- for stdout)")],
    connection: ConnectionName = None,
    secrets: Secrets = DEFAULT_SECRETS,
    wait: Wait = DEFAULT_WAIT,
) -> Parsed:
    return parsed(ctx, run_export)


@app.command("list", help="The named scenarios, as a table.")
def list_command(
    ctx: typer.Context,
    connection: ConnectionName = None,
    secrets: Secrets = DEFAULT_SECRETS,
    wait: Wait = DEFAULT_WAIT,
) -> Parsed:
    return parsed(ctx, run_list)


@app.command("set", help="Name one scenario, or change its owner or tags.")
def set_command(
    ctx: typer.Context,
    scenario_id: Annotated[
        int, typer.Argument(parser=identifier, metavar="ID", help="the scenario's id")
    ],
    name: Annotated[
        str | None, typer.Option(help="its name (one line)", show_default=False)
    ] = None,
    owner: Annotated[
        str | None,
        typer.Option(metavar="ADDRESS", help='its owner\'s e-mail address ("" for none)'),
    ] = None,
    tags: Annotated[
        str | None, typer.Option(help='comma-separated tags ("" for none)', show_default=False)
    ] = None,
    connection: ConnectionName = None,
    by: By = None,
    secrets: Secrets = DEFAULT_SECRETS,
    wait: Wait = DEFAULT_WAIT,
) -> Parsed:
    if name is None and owner is None and tags is None:
        ctx.fail("give --name, --owner or --tags")
    return parsed(ctx, run_set)


# -- running ---------------------------------------------------------------------------------------


def _refusals() -> AbstractContextManager[None]:
    from dashboard.data.store.scenario_names import ScenarioNamesRefused  # lazy: it loads pandas

    return refusals(ScenarioNamesRefused)


def _read(path: Path) -> str:
    try:
        return sys.stdin.read() if str(path) == "-" else path.read_text(encoding="utf-8-sig")
    except OSError as error:
        raise CliError(f"{path} cannot be read ({error.strerror}).", USAGE) from None
    except UnicodeDecodeError:
        raise CliError(f"{path} is not UTF-8 text.", USAGE) from None


def run_import(args: Args, env: Mapping[str, str]) -> int:
    from dashboard.data.store.scenario_names import read_names_csv

    by = by_of(args)
    with _refusals():
        read = read_names_csv(_read(args.file))
    for note in read.notes:
        print(f"note: {note}", file=sys.stderr)
    with checked_store(args, env) as (connection, store), _refusals():
        saved = store.save_scenario_names(connection.company_id, read.names, by=by)
    print(
        f"Read {len(read.names):,} names for company {connection.company_id}: {saved.added:,} "
        f"new, {saved.changed:,} changed, {saved.unchanged:,} as they were."
    )
    return OK


def run_export(args: Args, env: Mapping[str, str]) -> int:
    from dashboard.data.store.scenario_names import names_csv

    with checked_store(args, env) as (connection, store), _refusals():
        names = store.scenario_names(connection.company_id)
    text = names_csv(names)
    if str(args.file) == "-":
        sys.stdout.write(text)
        return OK
    try:
        args.file.write_text(text, encoding="utf-8", newline="")
    except OSError as error:
        raise CliError(f"{args.file} cannot be written ({error.strerror}).", USAGE) from None
    print(f"Exported {len(names):,} names to {args.file}.", file=sys.stderr)
    return OK


def _cell(value: object, limit: int) -> str:
    if value is None or value != value:  # missing (None, NaN, NA)
        return "-"
    flat = " ".join(str(value).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def run_list(args: Args, env: Mapping[str, str]) -> int:

    with checked_store(args, env) as (connection, store), _refusals():
        names = store.scenario_names(connection.company_id)
    rows = [("ID", "NAME", "OWNER", "TAGS", "CHANGED BY", "CHANGED")]
    for record in names.to_dict("records"):
        rows.append(
            (
                str(int(record["scenario_id"])),
                _cell(record["name"], 60),
                _cell(record["owner"], 40),
                _cell(record["tags"], 30),
                _cell(record["changed_by"], 20),
                f"{record['changed_at']:%Y-%m-%d %H:%M}",
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
    print(f"{len(names):,} named scenarios of company {connection.company_id}.", file=sys.stderr)
    return OK


def run_set(args: Args, env: Mapping[str, str]) -> int:
    from dashboard.analytics.scenario_names import scenario_label
    from dashboard.data.store.scenario_names import MAX_NAME, parse_tags

    by = by_of(args)
    tags = None if args.tags is None else parse_tags(args.tags)
    with checked_store(args, env) as (connection, store), _refusals():
        stored, cut = store.set_scenario_name(
            connection.company_id,
            args.scenario_id,
            name=args.name,
            owner=args.owner,
            tags=tags,
            by=by,
        )
    if cut:
        print(f"note: the name was cut to {MAX_NAME} characters.", file=sys.stderr)
    owner = f", owned by {stored.owner}" if stored.owner else ", no owner"
    label = scenario_label(stored.scenario_id, {stored.scenario_id: stored.name})
    print(f"Scenario {stored.scenario_id} is now {label}{owner}.")
    return OK
