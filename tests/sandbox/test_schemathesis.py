"""Schemathesis, a tool no one here wrote, checks that the sandbox does what its document says.

It reads `/openapi.json`, generates valid and invalid requests for the three operations and the
token endpoint (which authenticates its client with HTTP Basic, not a bearer token) and runs
every check it has (`--checks all`): no server error, status codes and bodies as declared,
invalid requests rejected, valid ones accepted, required headers enforced. The run is bounded
(a fixed seed, a fixed number of examples per operation) so it is the same on every run and
takes a few seconds.
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import httpx

from sandbox import RunningSandbox
from tests.sandbox.helpers import FILTER, PLANS, UserPicker, assert_error, headers
from tests.sandbox.schemathesis_hooks import COMPANY_ENV

TOKEN_ENV = "SANDBOX_TOKEN"
CLIENT_ENV = "SANDBOX_CLIENT_BASIC"
# The config names the credentials by variable, so they are never written to a file. The
# company header is a parameter override: schemathesis then sends the caller's own company on
# every request that has the header (and still leaves it out to check that it is required).
CONFIG = f"""\
headers = {{ Authorization = "Bearer ${{{TOKEN_ENV}}}" }}

[parameters]
"current-company-id" = "${{{COMPANY_ENV}}}"

[[operations]]
include-path = "/oauth/token"
headers = {{ Authorization = "Basic ${{{CLIENT_ENV}}}" }}
"""
REPO = Path(__file__).resolve().parents[2]


def test_schemathesis_finds_no_disagreement_between_document_and_sandbox(
    live_sandbox: RunningSandbox, demo_user: UserPicker, tmp_path: Path
) -> None:
    lead = demo_user()
    config = tmp_path / "schemathesis.toml"
    config.write_text(CONFIG)
    har = tmp_path / "requests.har"
    command = [
        sys.executable, "-m", "schemathesis.cli", "--no-color", "--config-file", str(config),
        "run", f"{live_sandbox.base_url}/openapi.json",
        "--checks", "all", "--max-examples", "40", "--seed", "20261120", "--workers", "1",
        "--generation-database", "none", "--request-timeout", "10",
        "--report", "har", "--report-har-path", str(har),
    ]  # fmt: skip
    environment = {
        **os.environ,
        TOKEN_ENV: lead.token,
        CLIENT_ENV: base64.b64encode(f"{lead.client_id}:{lead.client_secret}".encode()).decode(),
        COMPANY_ENV: str(lead.company_id),
        "SCHEMATHESIS_HOOKS": "tests.sandbox.schemathesis_hooks",
        "PYTHONPATH": str(REPO),
    }
    run = subprocess.run(
        command,
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    output = run.stdout + run.stderr
    print(output)  # shown with -s or on failure: what was generated, what was filtered
    assert run.returncode == 0, output
    assert "4 selected / 4 total" in output, output
    generated = re.search(r"(\d+) generated", output)
    assert generated is not None, output
    assert int(generated.group(1)) >= 100, output

    # The run really reached each operation as the demo lead (not only its 400s and 401s),
    # and the report it wrote carries no token.
    report = har.read_text()
    assert lead.token not in report
    answered = Counter(
        (entry["request"]["url"].split("?")[0].removeprefix(live_sandbox.base_url).split("/")[2],
         entry["response"]["status"])
        for entry in json.loads(report)["log"]["entries"]
    )  # fmt: skip
    for operation in ("results", "executions", "plans", "token"):
        assert answered[(operation, 200)] > 0, sorted(answered.items())


def test_a_401_from_the_security_layer_is_declared_on_every_operation(
    http: httpx.Client,
) -> None:
    document = http.get("/openapi.json").json()
    for path in document["paths"].values():
        for operation in path.values():  # the three GETs and the token endpoint's POST
            declared = operation["responses"]["401"]["content"]["application/json"]["schema"]
            text = json.dumps(declared)
            assert "AuthErrorBody" in text, declared
    auth_body = document["components"]["schemas"]["AuthErrorBody"]
    assert set(auth_body["required"]) == {"error", "error_description"}


def test_from_after_to_is_an_empty_window(http: httpx.Client, demo_user: UserPicker) -> None:
    lead = demo_user()
    response = http.get(
        FILTER,
        params={"page": 1, "size": 10, "from": 2, "to": 1},
        headers=headers(lead, lead.company_id),
    )
    assert_error(response, 404, "TEST_EXECUTION_NOT_FOUND")


def test_company_header_outside_the_long_range_is_rejected(
    http: httpx.Client, demo_user: UserPicker
) -> None:
    lead = demo_user()
    for value in (-(2**63) - 1, 2**63):
        assert_error(http.get(PLANS, headers=headers(lead, value)), 400, "INVALID_REQUEST")
    # In range but not the caller's: refused, never another company's (or no company's) data.
    for value in (-5, 0, -(2**63)):
        assert_error(http.get(PLANS, headers=headers(lead, value)), 403, "ACCESS_DENIED")
