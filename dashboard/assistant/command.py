"""`python -m dashboard mcp`: the read-only MCP server over the history (docs/assistant.md).

    python -m dashboard mcp                       # stdio: an assistant starts it for one person
    python -m dashboard mcp --http [--port 8765]  # streamable HTTP on 127.0.0.1 for a team
    python -m dashboard mcp --http --host 0.0.0.0 --allow-remote --dashboard-url https://qa...

It reads what the dashboard reads: the same connection (`.streamlit/secrets.toml`, then the
`QA_DASHBOARD_*` variables, else the embedded demo), the same history store and marks. Over
HTTP every request needs a bearer token of the sign-in provider (`assistant.auth`).

Over HTTP it listens on loopback unless told. It speaks plain HTTP, and bearer tokens must not
cross a network in clear, so a `--host` that is not a loopback address is refused unless
`--allow-remote` says a TLS proxy is in front. The SDK's DNS-rebinding check is always on: a
request is answered only when its Host header names loopback, the `--host` it listens on, or
the dashboard's public address (`--dashboard-url`, where a proxy serves both), so a web page
on another name cannot reach the server through a viewer's browser.

On stdio, stdout is the protocol's: everything else this process says goes to stderr.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any
from urllib.parse import urlsplit

import typer

from dashboard.cli.common import OK, USAGE, Args, CliError, Parsed, parsed, read_configuration
from dashboard.cli.connections import targets
from dashboard.cli.options import (
    DEFAULT_SECRETS,
    DEFAULT_ZONE,
    ConnectionName,
    DashboardUrl,
    Secrets,
    zone_checked,
)

if TYPE_CHECKING:
    from mcp.server.auth.settings import AuthSettings
    from mcp.server.transport_security import TransportSecuritySettings

    from dashboard.assistant.auth import SignInTokenVerifier

DEFAULT_PORT = 8765
LOOPBACK = "127.0.0.1"
PATH = "/mcp"


def mcp_command(
    ctx: typer.Context,
    http: Annotated[
        bool,
        typer.Option(
            "--http",
            help="serve streamable HTTP for a team (each request needs a sign-in token) "
            "instead of stdio",
        ),
    ] = False,
    host: Annotated[
        str, typer.Option(metavar="HOST", help="the address --http listens on")
    ] = LOOPBACK,
    allow_remote: Annotated[
        bool,
        typer.Option(
            "--allow-remote",
            help="let --http listen on an address other than loopback (behind a TLS proxy)",
        ),
    ] = False,
    port: Annotated[
        int, typer.Option(min=1, max=65535, metavar="PORT", help="the port --http listens on")
    ] = DEFAULT_PORT,
    tz: Annotated[
        str,
        typer.Option(
            callback=zone_checked, metavar="ZONE", help="the time zone of the times answered"
        ),
    ] = DEFAULT_ZONE,
    dashboard_url: DashboardUrl = None,
    connection: ConnectionName = None,
    secrets: Secrets = DEFAULT_SECRETS,
) -> Parsed:
    """Serve the history to an AI assistant over MCP: read-only tools answering with the
    dashboard's own numbers, coverage and links."""
    return parsed(ctx, run)


def run(args: Args, env: Mapping[str, str]) -> int:
    # Lazy: the SDK, the client and the views load pydantic, pandas and DuckDB.
    from dashboard.assistant.history import Source
    from dashboard.assistant.server import build_server
    from dashboard.assistant.tools import Tools
    from dashboard.cli.digest import dashboard_url

    if args.http and not is_loopback(args.host) and not args.allow_remote:
        raise CliError(
            f"--host {args.host} is not a loopback address: the server speaks plain HTTP, so "
            "put it behind a TLS proxy and say so with --allow-remote (or leave --host out)",
            USAGE,
        )
    secrets = read_configuration(args.secrets, env)
    base_url = dashboard_url(args.dashboard_url, secrets, env)
    names = [args.connection] if args.connection else []
    verifier, settings = None, None
    if args.http:
        verifier, settings = _auth(secrets, env, args)
    with targets(secrets, env, names) as (target, *_):
        source = Source(target.connection, secrets, env, dashboard_url=base_url)
        server = build_server(Tools(source, tz=args.tz), token_verifier=verifier, auth=settings)
        import threading

        threading.Thread(target=source.warm, name="warm-store", daemon=True).start()
        if not args.http:
            server.run("stdio")
            return OK
        import sys

        print(
            f"Serving MCP on http://{_shown(args.host)}:{args.port}{PATH} (a bearer token of "
            "the sign-in provider is needed).",
            file=sys.stderr,
            flush=True,
        )
        server.run(
            "streamable-http",
            host=args.host,
            port=args.port,
            streamable_http_path=PATH,
            transport_security=transport_security(args.host, base_url),
        )
    return OK


LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def is_loopback(host: str) -> bool:
    """`host` names this machine only (127.0.0.0/8, ::1, localhost)."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def transport_security(host: str, base_url: str | None) -> TransportSecuritySettings:
    """The SDK's DNS-rebinding check, on whatever the address: the Host header must name
    loopback, the address listened on (any port) or the dashboard's public address; a browser's
    Origin must be one of those too (assistants send none)."""
    from mcp.server.transport_security import TransportSecuritySettings

    names = [*LOOPBACK_NAMES]
    if not _is_wildcard(host):
        names.append(_shown(host))
    hosts = [f"{name}:*" for name in names]
    origins = [f"{scheme}://{name}:*" for name in names for scheme in ("http", "https")]
    if base_url:
        public = urlsplit(base_url)
        hosts.append(public.netloc)  # as a proxy passes it on: the name, and a port if given
        if public.port is None:
            hosts.append(f"{public.netloc}:*")
        origins.append(f"{public.scheme}://{public.netloc}")
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=list(dict.fromkeys(hosts)),
        allowed_origins=list(dict.fromkeys(origins)),
    )


def _is_wildcard(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.strip("[]")).is_unspecified
    except ValueError:
        return False


def _shown(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def _auth(
    secrets: Mapping[str, Any], env: Mapping[str, str], args: Args
) -> tuple[SignInTokenVerifier, AuthSettings]:
    from mcp.server.auth.settings import AuthSettings

    from dashboard.assistant.auth import AuthProblem, SignInTokenVerifier, provider_of

    try:
        settings, issuer = provider_of(secrets, env)
    except AuthProblem as problem:
        raise CliError(str(problem), USAGE) from None
    auth = AuthSettings(
        issuer_url=issuer.issuer,
        resource_server_url=f"http://{_shown(args.host)}:{args.port}{PATH}",
        validate_token_resource=False,  # the verifier checks the audience itself
    )
    return SignInTokenVerifier(settings, issuer), auth
