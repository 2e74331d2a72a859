"""Command line: `python -m sandbox users` lists demo users, their tokens and the credentials
of the token endpoint; `serve` runs the API (`--token-ttl 30s`: the endpoint's tokens expire
after 30 seconds).

`serve` never prints a credential (they belong to `users`, which is run on purpose), so its
output can be pasted into a chat or a CI log.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Sequence

import uvicorn

from sandbox.app import create_app
from sandbox.auth import demo_users
from sandbox.server import bind_socket, origin_of
from sandbox.settings import FaultSettings, SandboxSettings


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command == "users":
        try:
            _print_users(args.seed)
            sys.stdout.flush()
        except BrokenPipeError:
            _quiet_broken_pipe()
    else:
        _serve(args)
    return 0


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m sandbox", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    users = commands.add_parser("users", help="print demo users and their tokens as JSON")
    users.add_argument("--seed", type=int, default=SandboxSettings.seed)

    serve = commands.add_parser("serve", help="serve the read API over demo data")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000, help="0 picks a free port")
    serve.add_argument("--seed", type=int, default=SandboxSettings.seed)
    serve.add_argument("--executions", type=int, default=SandboxSettings.executions)
    serve.add_argument("--days", type=int, default=SandboxSettings.days)
    serve.add_argument("--db", default=SandboxSettings.db_path, help="SQLite file (rebuilt)")
    serve.add_argument("--prefix", default="", help='serve under a path, e.g. "/svc"')
    serve.add_argument("--public-base-url", help="origin used in page links and rest_api_url")
    serve.add_argument(
        "--token-ttl",
        type=duration,
        default=SandboxSettings.token_ttl,
        help="lifetime of the tokens POST /oauth/token issues, e.g. 30s, 5m, 1h "
        "(default: 1h; the demo users' own tokens never expire)",
    )
    serve.add_argument(
        "--latency-ms",
        type=_non_negative_int,
        default=SandboxSettings.latency_ms,
        help="delay every API response by this many milliseconds (benchmarks)",
    )

    faults = serve.add_argument_group("fault injection (fractions of API requests, 0 to 1)")
    faults.add_argument("--fault-seed", type=int, default=FaultSettings.seed)
    faults.add_argument("--error-rate", type=float, default=0.0, help="500/502/503 answers")
    faults.add_argument(
        "--error-statuses",
        default="500,502,503",
        help="comma-separated statuses the error fault picks from",
    )
    faults.add_argument("--rate-limit-rate", type=float, default=0.0, help="429 answers")
    faults.add_argument("--retry-after", type=int, default=FaultSettings.retry_after_seconds)
    faults.add_argument("--slow-rate", type=float, default=0.0, help="delayed answers")
    faults.add_argument("--slow-seconds", type=float, default=FaultSettings.slow_seconds)
    faults.add_argument("--drop-rate", type=float, default=0.0, help="connections cut mid-body")
    faults.add_argument("--truncated-rate", type=float, default=0.0, help="JSON cut in half")
    faults.add_argument(
        "--malformed-rate", type=float, default=0.0, help="one record with a wrong-typed field"
    )
    return parser


def _non_negative_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative: {value}")
    return value


_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|m|h)?\s*$")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, None: 1}


def duration(text: str) -> float:
    """ "30s", "5m", "1h" or a number of seconds; more than 0."""
    match = _DURATION.match(text.lower())
    if not match or float(match.group(1)) <= 0:
        raise argparse.ArgumentTypeError(f"not a duration like 30s, 5m or 1h: {text!r}")
    return float(match.group(1)) * _UNIT_SECONDS[match.group(2)]


def _print_users(seed: int) -> None:
    users = [
        {
            "username": user.username,
            "email": user.email,
            "company_id": user.company_id,
            "authorities": [str(authority) for authority in user.authorities],
            "token": user.token,
            # The token endpoint's credentials: the password grant takes the username and
            # password; each user is also a client (client id: its username) with this secret.
            "password": user.password,
            "client_secret": user.client_secret,
        }
        for user in demo_users(seed)
    ]
    json.dump(users, sys.stdout, indent=2)
    sys.stdout.write("\n")


def _quiet_broken_pipe() -> None:
    """The reader left early (`users | head -n 1`): what it read is all it wanted, so no error.

    stdout is pointed at /dev/null so the interpreter's final flush of what is still buffered
    cannot raise the same error again on the way out."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def settings_from(args: argparse.Namespace) -> SandboxSettings:
    """The settings a `serve` command line asks for."""
    return SandboxSettings(
        seed=args.seed,
        executions=args.executions,
        days=args.days,
        db_path=args.db,
        path_prefix=args.prefix,
        public_base_url=args.public_base_url,
        latency_ms=args.latency_ms,
        token_ttl=args.token_ttl,
        refresh_token_ttl=max(args.token_ttl, SandboxSettings.refresh_token_ttl),
        faults=FaultSettings(
            seed=args.fault_seed,
            error_rate=args.error_rate,
            error_statuses=tuple(int(s) for s in args.error_statuses.split(",")),
            rate_limit_rate=args.rate_limit_rate,
            retry_after_seconds=args.retry_after,
            slow_rate=args.slow_rate,
            slow_seconds=args.slow_seconds,
            drop_rate=args.drop_rate,
            truncated_rate=args.truncated_rate,
            malformed_record_rate=args.malformed_rate,
        ),
    )


def _serve(args: argparse.Namespace) -> None:
    settings = settings_from(args)
    app = create_app(settings)
    sock = bind_socket(args.host, args.port)
    base_url = origin_of(sock) + settings.path_prefix
    print(f"Sandbox API: {base_url}/api  (docs: {base_url}/docs)")
    print(f"Demo data: seed {settings.seed}, {settings.executions} executions")
    if settings.latency_ms:
        print(f"Latency: {settings.latency_ms} ms added to every API response")
    print(f"Token endpoint: {base_url}/oauth/token (tokens expire after {settings.token_ttl:g} s)")
    listed = f"python -m sandbox users --seed {settings.seed}"
    print(f"Demo users (tokens, passwords and client secrets: {listed}):")
    for user in demo_users(settings):
        authorities = ", ".join(user.authorities) or "none"
        print(f"  {user.username:<22} company {user.company_id:<3} {authorities}")
    sys.stdout.flush()
    uvicorn.Server(uvicorn.Config(app)).run(sockets=[sock])


if __name__ == "__main__":
    raise SystemExit(main())
