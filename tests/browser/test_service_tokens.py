"""A dashboard page opened after its token expired loads, whichever way the token is renewed.

Three `streamlit run` processes, configured through QA_DASHBOARD_* as a team would deploy them,
read the sandbox (a real process whose tokens live 10 seconds) through counting proxies: one
with an OAuth2 token endpoint (QA_DASHBOARD_OAUTH_*), one with a token file a sidecar thread of
this test rewrites every 3 seconds, one with a token command printing a bare token. Each opens
a page; once every token issued until then has expired (the sandbox refuses a token issued
after theirs), each opens another page, which asks the service again and loads, with no error
and no credential shown or logged.
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.browser import screen
from tests.browser.harness import Secrets, StreamlitServer
from tests.counting_proxy import CountingProxy, counting_proxy
from tests.service_tokens import (
    ISSUED_PREFIXES,
    SandboxProcess,
    client_credentials_token,
    renewed_token_file,
    sandbox_process,
    token_command,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TOKEN_LIFETIME = "10s"
KINDS = ("oauth", "file", "command")


@pytest.fixture(scope="module")
def expiring() -> Iterator[SandboxProcess]:
    with sandbox_process(TOKEN_LIFETIME, executions=60) as running:
        yield running


def wait_until_expired(sandbox: SandboxProcess, token: str) -> None:
    """Until the sandbox refuses `token` (its lifetime is over)."""
    headers = {"Authorization": f"Bearer {token}", "current-company-id": "1"}
    deadline = time.monotonic() + 60
    with httpx.Client(base_url=sandbox.base_url, timeout=10) as http:
        while http.get("/api/plans/lazy", headers=headers).status_code == 200:
            assert time.monotonic() < deadline, "the token never expired"
            time.sleep(0.2)  # between two questions to the sandbox, not instead of one


def open_and_expect_loaded(page: Page, url: str, sandbox: SandboxProcess) -> None:
    screen.open_app(page, url)
    sidebar = page.get_by_test_id("stSidebar")
    expect(sidebar).to_contain_text("Live: 127.0.0.1")
    screen.expect_no_failure_shown(page)
    for prefix in ISSUED_PREFIXES:
        assert prefix not in page.content()


def test_a_page_opened_after_the_token_expired_loads_with_each_kind_of_renewal(
    expiring: SandboxProcess,
    start_dashboard: Callable[[str, dict[str, str]], StreamlitServer],
    new_page: Callable[[], Page],
    secrets: Secrets,
    tmp_path: Path,
) -> None:
    secrets.add(expiring.secrets())  # checked in every page and in the servers' logs
    lead = expiring.lead(1)
    token_file = tmp_path / "qa-token"
    credentials = {
        "oauth": {
            "QA_DASHBOARD_OAUTH_TOKEN_URL": expiring.token_url,
            "QA_DASHBOARD_OAUTH_GRANT": "client_credentials",
            "QA_DASHBOARD_OAUTH_CLIENT_ID": lead.client_id,
            "QA_DASHBOARD_OAUTH_CLIENT_SECRET": lead.client_secret,
        },
        "file": {"QA_DASHBOARD_TOKEN_FILE": str(token_file)},
        "command": {
            "QA_DASHBOARD_TOKEN_COMMAND": shlex.join(
                token_command(tmp_path, expiring.token_url, lead)
            )
        },
    }
    with ExitStack() as stack:
        stack.enter_context(renewed_token_file(token_file, expiring.token_url, lead, every=3.0))
        proxies: dict[str, CountingProxy] = {
            kind: stack.enter_context(counting_proxy(expiring.base_url)) for kind in KINDS
        }
        servers = {
            kind: start_dashboard(
                f"tokens-{kind}",
                {
                    "QA_DASHBOARD_BASE_URL": proxies[kind].base_url,
                    "QA_DASHBOARD_COMPANY_ID": "1",
                    **credentials[kind],
                },
            )
            for kind in KINDS
        }
        for kind in KINDS:
            open_and_expect_loaded(new_page(), servers[kind].url + "/", expiring)

        # Issued after every token the dashboards hold: once it is refused, theirs are too.
        wait_until_expired(expiring, client_credentials_token(expiring.token_url, lead))
        before = {kind: proxies[kind].count("executions") for kind in KINDS}
        for kind in KINDS:
            open_and_expect_loaded(new_page(), servers[kind].url + "/executions", expiring)

        for kind in KINDS:  # the page really asked the service, after the expiry
            assert proxies[kind].count("executions") > before[kind], kind
        for kind in KINDS:
            logged = servers[kind].log()
            for prefix in ISSUED_PREFIXES:
                assert prefix not in logged, kind
