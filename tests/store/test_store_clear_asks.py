"""`store clear` empties a company's history only for a credential the service accepts for that
company right now: asked first, with that credential (one cheap read). Real subprocesses
against the sandbox over HTTP."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from sandbox import DemoUser, RunningSandbox
from tests.store.conftest import lead_of, secret_bytes


def _cli(
    tmp_path: Path, running: RunningSandbox, who: DemoUser, *args: str, token: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("QA_DASHBOARD_")}
    env.update(
        QA_DASHBOARD_CACHE_DIR=str(tmp_path / "cache"),
        QA_DASHBOARD_BASE_URL=running.base_url,
        QA_DASHBOARD_TOKEN=token or who.token,
        QA_DASHBOARD_COMPANY_ID="1",  # always company 1's history, whoever's token it is
    )
    return subprocess.run(
        [sys.executable, "-m", "dashboard", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
        check=False,
    )


def _stored_results(info: subprocess.CompletedProcess[str]) -> int:
    match = re.search(r"^  results +([\d,]+)$", info.stdout, re.MULTILINE)
    assert match, info.stdout
    return int(match.group(1).replace(",", ""))


@pytest.mark.parametrize("credential", ["another company's token", "a refused token"])
def test_clear_with_a_credential_the_service_refuses_for_the_company_exits_3_and_keeps_all(
    credential: str, tmp_path: Path, live_sandbox: RunningSandbox
) -> None:
    lead = lead_of(live_sandbox)
    made = _cli(tmp_path, live_sandbox, lead, "store", "sync", "--days", "2")
    assert made.returncode == 0, made.stderr
    before = _stored_results(_cli(tmp_path, live_sandbox, lead, "store", "info"))
    assert before > 0

    other = lead_of(live_sandbox, company_id=2)
    token = "sbx-not-a-real-token-0123456789" if credential == "a refused token" else None
    refused = _cli(tmp_path, live_sandbox, other, "store", "clear", token=token)

    assert refused.returncode == 3, refused.stdout + refused.stderr
    assert "company 1" in refused.stderr
    assert "not cleared" in refused.stderr
    assert "Traceback" not in refused.stderr
    for secret in secret_bytes(live_sandbox):
        assert secret.decode() not in refused.stdout + refused.stderr
    assert "sbx-not-a-real-token" not in refused.stdout + refused.stderr
    after = _stored_results(_cli(tmp_path, live_sandbox, lead, "store", "info"))
    assert after == before

    cleared = _cli(tmp_path, live_sandbox, lead, "store", "clear")
    assert cleared.returncode == 0, cleared.stderr
    assert _stored_results(_cli(tmp_path, live_sandbox, lead, "store", "info")) == 0
