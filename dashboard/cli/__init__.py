"""The dashboard's command line, `python -m dashboard COMMAND`:

    python -m dashboard store sync [--every 5m]   # fill the history store (once, or as a worker)
    python -m dashboard store info                # where the store is and what it holds
    python -m dashboard store clear               # empty it
    python -m dashboard digest --standup --to URL # send the standup digest to a chat (- prints)
    python -m dashboard known list|add|close|export|import  # the known-failure ledger
    python -m dashboard scenarios import|export|list|set    # scenario names and owners
    python -m dashboard rules add|list|remove|preview       # rules for failure groups
    python -m dashboard gate --plan ID              # CI's quality gate (exit 0 pass, 1 fail)
    python -m dashboard verdicts --evaluate         # the triage verdict's precision and recall
    python -m dashboard mcp [--http]                # the read-only MCP server for AI assistants

Each command works on the connection the dashboard would use (`.streamlit/secrets.toml`, then
the `QA_DASHBOARD_*` environment variables, else the embedded demo sandbox), or on named ones
(`--connection NAME`, see `connections`).

Exit codes: 0 done; 1 done, but some results could not be fetched (the next sync retries
them); 2 bad usage or configuration, or a mark refused (the sentence says why); 3 the service
(or the digest's destination) refused or could not be reached; 4 the store is in use by another
process or cannot be opened; 130 stopped by Ctrl-C or SIGTERM during a one-off sync (what was
fetched is kept); 141 the reader of its output went away (`known export | head`), ended quietly.

Parsing is Typer's (a usage error is Click's, exit 2); the command then runs here, outside it,
so that the safety nets of `main` see what it raises. Start-up (issue #36, median of 9, loaded
2-core machine): `--help` 72 -> 96 ms; `gate --help` and a usage error 73 -> 170 ms (Typer 0.29
builds each parameter's pydantic adapter); a `store sync` usage error 455 -> 168 ms (no
pandas: a default time zone is no longer checked).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

import typer

from dashboard.assistant import command as assistant_command
from dashboard.cli import digest, gate, known, store_commands, verdicts
from dashboard.cli.common import (
    BROKEN_PIPE,
    INTERRUPTED,
    STORE,
    USAGE,
    CliError,
    Parsed,
    store_problem,
)
from dashboard.cli.rules import app as rules_app
from dashboard.cli.scenarios import app as scenarios_app
from dashboard.cli.worker import Stopped

PROG = "python -m dashboard"

app = typer.Typer(
    help="The QA dashboard's command line.",
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},  # as argparse had them
    rich_markup_mode=None,  # plain Click help and errors: no rich import, no boxes to wrap
    pretty_exceptions_enable=False,
)
app.add_typer(store_commands.app, name="store")
app.command("digest", short_help="compute the standup digest and send it to a chat (or print it)")(
    digest.digest_command
)
app.add_typer(known.app, name="known")
app.add_typer(scenarios_app, name="scenarios")
app.add_typer(rules_app, name="rules")
app.command(
    "gate", short_help="pass or fail a plan's execution for CI (exit 0 pass, 1 fail, 2-4 undecided)"
)(gate.gate_command)
app.command(
    "verdicts", short_help="the triage verdict measured on the demo: precision and recall per label"
)(verdicts.verdicts_command)
app.command(
    "mcp", short_help="serve the history read-only to AI assistants over MCP (stdio or --http)"
)(assistant_command.mcp_command)


@cache
def _command() -> Any:
    return typer.main.get_command(app)


def parse(argv: Sequence[str] | None = None) -> Parsed | int:
    """The command `argv` asks for, with its options; an exit code when there is nothing to
    run (`--help` was printed: 0). A usage error raises Click's exception (exit 2)."""
    args = sys.argv[1:] if argv is None else list(argv)
    answer = _command().main(args=args, prog_name=PROG, standalone_mode=False)
    return answer if isinstance(answer, Parsed) else int(answer or 0)


def main(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> int:
    env = os.environ if env is None else env
    try:
        command = parse(argv)
    except typer.TyperException as error:  # Click's usage errors, whose exit code is 2
        _say_usage(error)
        return int(getattr(error, "exit_code", USAGE))
    if isinstance(command, int):
        return command
    try:
        code = int(command.run(command.args, env))
        sys.stdout.flush()  # here, not at exit: a reader gone away is seen by the except below
        return code
    except CliError as error:
        print(f"error: {error}", file=sys.stderr)
        return error.code
    except BrokenPipeError:
        return _reader_gone()
    except (KeyboardInterrupt, Stopped):
        print("interrupted: what was fetched so far is kept", file=sys.stderr)
        return INTERRUPTED
    except Exception as error:
        # A command words the store's errors it expects; any other is still the store's
        # (exit 4), never a traceback nor the 1 that means "fail" to the gate's caller.
        if not _is_store_error(error):
            raise
        print(f"error: {store_problem(error)}", file=sys.stderr)  # type: ignore[arg-type]
        return STORE


def _say_usage(error: typer.TyperException) -> None:
    """A usage error as argparse said it and the other errors say theirs: the usage line, then
    `error: ...` in one sentence."""
    ctx = getattr(error, "ctx", None)
    if ctx is not None:
        usage = ctx.get_usage()
        print(usage.replace("Usage:", "usage:", 1), file=sys.stderr)
        print(f"Try '{ctx.command_path} --help' for help.", file=sys.stderr)
    print(f"error: {error.format_message()}", file=sys.stderr)


def _is_store_error(error: Exception) -> bool:
    """Whether `error` is the store's, without importing the store (and pandas, DuckDB) for a
    command that never opened one: then it cannot be."""
    errors = sys.modules.get("dashboard.data.store.errors")
    return errors is not None and isinstance(error, errors.StoreError)


def _reader_gone() -> int:
    """`known export | head`: the reader closed the pipe. Whatever is still buffered for stdout
    goes nowhere (so the interpreter's last flush raises nothing), and the command ends with
    141, the code a shell gives a writer SIGPIPE ended: a gate whose output was cut short must
    not exit 0, which would read as a pass."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return BROKEN_PIPE
