"""`python -m dashboard mcp` as an assistant runs it: over stdio (the SDK's stdio client starts
it), and over streamable HTTP, where every request needs a bearer token of the sign-in
provider, verified against its keys, of an admitted address."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import httpx2
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.assistant.conftest import History, rows, run_async, stdio, whole
from tests.browser.harness import free_port
from tests.cli.plan_service import PLAN_ID
from tests.loopback_service import serve_json
from tests.oidc_provider import CLIENT_ID, auth_table
from tests.waiting import wait_for_answer

KEY_ID = "assistant-test-key"
DASHBOARD = "https://qa.example.com/"
REMOTE = "192.0.2.10"  # TEST-NET-1: refused before anything listens


def test_over_stdio_every_tool_is_read_only_and_answers(history: History, tmp_path: Path) -> None:
    async def run() -> tuple[Any, Any, Any]:
        async with Client(stdio(history.env, tmp_path)) as client:
            tools = await client.list_tools()
            prompts = await client.list_prompts()
            answer = await client.call_tool("red_plans", {})
            return tools, prompts, answer

    tools, prompts, answer = run_async(run)
    assert len(tools.tools) == 14
    for tool in tools.tools:
        assert tool.annotations is not None, tool.name
        assert tool.annotations.read_only_hint, tool.name
        assert tool.annotations.destructive_hint is False, tool.name
        assert tool.description, tool.name
        assert "detail" in tool.input_schema["properties"], tool.name
    assert {p.name for p in prompts.prompts} == {"triage_last_night", "standup_since_yesterday"}
    (plan,) = rows(answer)
    assert plan["Now"].startswith("✖ red"), whole(answer)


# -- HTTP ---------------------------------------------------------------------------------------


@dataclass
class Provider:
    """A hand-built OpenID provider on loopback: its configuration and key set, and a key that
    signs tokens as it would (`token`), and one it never published (`forged`)."""

    issuer: str
    key: Any
    other_key: Any

    def token(
        self, email: str, *, key: Any = None, audience: str = CLIENT_ID, **claims: Any
    ) -> str:
        now = int(time.time())
        body = {
            "iss": self.issuer,
            "aud": audience,
            "sub": f"sub-{email}",
            "email": email,
            "email_verified": True,
            "iat": now,
            "exp": now + 600,
            **claims,
        }
        return jwt.encode(body, key or self.key, algorithm="RS256", headers={"kid": KEY_ID})


@contextmanager
def provider() -> Iterator[Provider]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key()))
    issuer = ""

    def answer(target: str) -> tuple[int, Any]:
        if target.startswith("/.well-known/openid-configuration"):
            return 200, {"issuer": issuer, "jwks_uri": f"{issuer}/jwks"}
        if target.startswith("/jwks"):
            return 200, {"keys": [{**public, "kid": KEY_ID, "use": "sig", "alg": "RS256"}]}
        return 404, {}

    with serve_json(answer, name="assistant-oidc") as base_url:
        issuer = base_url
        yield Provider(issuer, key, other)


def signed_in(tmp_path: Path, issuer: str) -> Path:
    """A secrets file with the dashboard's sign-in through `issuer`, example.com admitted."""
    secrets = tmp_path / "secrets.toml"
    table = auth_table(f"{issuer}/.well-known/openid-configuration", "http://x/oauth2callback")
    lines = ["[auth]", *(f'{k} = "{v}"' for k, v in table.items())]
    lines += ["[signin]", 'allowed_domains = ["example.com"]']
    secrets.write_text("\n".join(lines) + "\n")
    return secrets


@contextmanager
def http_server(
    history: History, tmp_path: Path, issuer: str, *extra: str, host: str = "127.0.0.1"
) -> Iterator[str]:
    """`python -m dashboard mcp --http [extra]` with sign-in through `issuer`, example.com
    admitted, listening on `host`."""
    port = free_port()
    secrets = signed_in(tmp_path, issuer)
    log = (tmp_path / "mcp-http.log").open("wb")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "dashboard",
            "mcp",
            "--http",
            "--port",
            str(port),
            "--secrets",
            str(secrets),
            *extra,
        ],
        env=history.env,
        cwd=tmp_path,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://{host}:{port}/mcp"
    try:
        # Until it listens (any answer) or it ended, with its log (tests/waiting.py).
        wait_for_answer(url, method="POST", alive=process, log=tmp_path / "mcp-http.log")
        yield url
    finally:
        process.terminate()
        process.wait()  # no limit of its own: pytest-timeout ends a hang
        log.close()


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def _post(url: str, token: str | None, **more: str) -> httpx.Response:
    headers = {**HEADERS, **more}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    return httpx.post(url, json=INITIALIZE, headers=headers, timeout=30.0)


@pytest.mark.slow
def test_over_http_only_a_valid_token_of_an_admitted_viewer_gets_an_answer(
    history: History, tmp_path: Path
) -> None:
    with provider() as oidc, http_server(history, tmp_path, oidc.issuer) as url:
        refused = {
            "no token": None,
            "not a token": "not-a-jwt",
            "a refused domain": oidc.token("eve@elsewhere.test"),
            "an unverified address": oidc.token("ada@example.com", email_verified=False),
            "another audience": oidc.token("ada@example.com", audience="another-app"),
            "a key the provider never published": oidc.token("ada@example.com", key=oidc.other_key),
            "an expired token": oidc.token("ada@example.com", exp=int(time.time()) - 3600),
        }
        for why, token in refused.items():
            answer = _post(url, token)
            assert answer.status_code == 401, why
            assert "plan" not in answer.text.lower(), why

        token = oidc.token("ada@example.com")

        async def compare() -> Any:
            headers = {"Authorization": f"Bearer {token}"}
            async with httpx2.AsyncClient(headers=headers, timeout=120.0) as http:
                transport = streamable_http_client(url, http_client=http)
                async with Client(transport) as client:
                    return await client.call_tool("compare_executions", {"plan": PLAN_ID})

        answer = run_async(compare)
        assert answer.structured_content["figures"]["Fixed"] == "1", whole(answer)  # type: ignore[index]
    logged = (tmp_path / "mcp-http.log").read_text()
    assert token not in logged


def test_http_without_sign_in_configured_refuses_to_start(history: History, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "dashboard", "mcp", "--http", "--port", str(free_port())],
        env=history.env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert "--http needs the dashboard's sign-in" in done.stderr


def test_http_beyond_loopback_is_refused_without_allow_remote(
    history: History, tmp_path: Path
) -> None:
    """Plain HTTP carries bearer tokens: listening beyond this machine needs --allow-remote
    (a TLS proxy in front), whatever else is configured."""
    with provider() as oidc:
        secrets = signed_in(tmp_path, oidc.issuer)
        command = ["mcp", "--http", "--host", REMOTE, "--port", str(free_port())]
        done = subprocess.run(
            [sys.executable, "-m", "dashboard", *command, "--secrets", str(secrets)],
            env=history.env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert done.returncode == 2
    assert f"--host {REMOTE} is not a loopback address" in done.stderr
    assert "--allow-remote" in done.stderr


@pytest.mark.slow
def test_the_dns_rebinding_check_lets_the_configured_hosts_through_and_no_other(
    history: History, tmp_path: Path
) -> None:
    """The SDK's Host check stays on for an address of our choosing: the address listened on
    and the dashboard's public address (a proxy in front of both) get through, another name
    (a DNS-rebinding page) does not, even with a valid token."""
    host = "127.0.0.2"  # not the SDK's own loopback names: only our settings let it through
    with (
        provider() as oidc,
        http_server(
            history, tmp_path, oidc.issuer, "--host", host, "--dashboard-url", DASHBOARD, host=host
        ) as url,
    ):
        token = oidc.token("ada@example.com")
        port = url.split(":")[2].split("/")[0]
        assert _post(url, token).status_code == 200  # Host: 127.0.0.2:port
        assert _post(url, token, Host="qa.example.com").status_code == 200
        assert _post(url, token, Host=f"rebinding.example:{port}").status_code == 421
        assert _post(url, token, Origin="https://rebinding.example").status_code == 403
        assert _post(url, token, Origin="https://qa.example.com").status_code == 200
        assert _post(url, None, Host="qa.example.com").status_code == 401  # still a token
