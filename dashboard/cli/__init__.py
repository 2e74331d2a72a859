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
fetched is kept).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence

from dashboard.cli import digest, gate, known, store_commands
from dashboard.cli.common import INTERRUPTED, CliError


def main(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> int:
    from dashboard.cli.worker import Stopped

    parser = build_parser()
    args = parser.parse_args(argv)
    env = os.environ if env is None else env
    try:
        return int(args.run(args, env))
    except CliError as error:
        print(f"error: {error}", file=sys.stderr)
        return error.code
    except (KeyboardInterrupt, Stopped):
        print("interrupted: what was fetched so far is kept", file=sys.stderr)
        return INTERRUPTED


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
