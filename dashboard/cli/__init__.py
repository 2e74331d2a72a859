"""The dashboard's command line, `python -m dashboard COMMAND`:

    python -m dashboard store sync [--every 5m]   # fill the history store (once, or as a worker)
    python -m dashboard store info                # where the store is and what it holds
    python -m dashboard store clear               # empty it
    python -m dashboard digest --standup --to URL # send the standup digest to a chat (- prints)
    python -m dashboard known list|add|close|export|import  # the known-failure ledger
    python -m dashboard gate --plan ID              # CI's quality gate (exit 0 pass, 1 fail)

Each command works on the connection the dashboard would use (`.streamlit/secrets.toml`, then
the `QA_DASHBOARD_*` environment variables, else the embedded demo sandbox), or on named ones
(`--connection NAME`, see `connections`).

Exit codes: 0 done; 1 done, but some results could not be fetched (the next sync retries
them); 2 bad usage or configuration, or a mark refused (the sentence says why); 3 the service
(or the digest's destination) refused or could not be reached; 4 the store is in use by another
process or cannot be opened; 130 stopped by Ctrl-C or SIGTERM during a one-off sync (what was
fetched is kept); 141 the reader of its output went away (`known export | head`), ended quietly.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence

from dashboard.cli import digest, gate, known, store_commands
from dashboard.cli.common import BROKEN_PIPE, INTERRUPTED, STORE, CliError, store_problem


def main(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> int:
    from dashboard.cli.worker import Stopped

    parser = build_parser()
    args = parser.parse_args(argv)
    env = os.environ if env is None else env
    try:
        code = int(args.run(args, env))
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m dashboard", description="The QA dashboard's command line."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    store_commands.add_parser(commands)
    digest.add_parser(commands)
    known.add_parser(commands)
    gate.add_parser(commands)
    return parser
