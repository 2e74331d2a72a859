"""Input from people: a bad value typed in the form, the environment or the secrets file is
reported in the sidebar; the page still renders, and so does the form."""

from __future__ import annotations

import pytest

from sandbox import RunningSandbox
from tests.dashboard.apptest import joined
from tests.dashboard.conftest import AppFactory

BAD_COMPANY_IDS = ["²", "①", "9" * 5000]


@pytest.mark.parametrize("company_id", BAD_COMPANY_IDS, ids=["superscript", "circled", "5000"])
def test_a_bad_company_id_in_the_form_is_reported_and_the_form_stays(
    app: AppFactory, sandbox: RunningSandbox, company_id: str
) -> None:
    lead = sandbox.users[0]
    at = app()
    at.run()
    base_url, token, company, _email = at.sidebar.text_input
    base_url.input(sandbox.base_url)
    token.input(lead.token)
    company.input(company_id)

    at.sidebar.form_submit_button[0].click().run()

    assert not at.exception
    assert "company id in the sidebar form" in joined(at.sidebar.warning)
    assert "Demo data" in joined(at.sidebar.markdown)
    assert at.dataframe, "the page showed no table"
    # The form is still there, so the viewer can correct the value without reloading.
    assert len(at.sidebar.text_input) == 4
    at.sidebar.text_input[2].input("1")
    at.run()
    assert not at.exception


@pytest.mark.parametrize("company_id", BAD_COMPANY_IDS, ids=["superscript", "circled", "5000"])
@pytest.mark.parametrize("where", ["environment", "secrets"])
def test_a_bad_company_id_configured_by_the_operator_is_reported_not_a_crash(
    app: AppFactory,
    sandbox: RunningSandbox,
    monkeypatch: pytest.MonkeyPatch,
    where: str,
    company_id: str,
) -> None:
    lead = sandbox.users[0]
    at = app()
    if where == "environment":
        monkeypatch.setenv("QA_DASHBOARD_BASE_URL", sandbox.base_url)
        monkeypatch.setenv("QA_DASHBOARD_TOKEN", lead.token)
        monkeypatch.setenv("QA_DASHBOARD_COMPANY_ID", company_id)
        label = "QA_DASHBOARD_"
    else:
        at.secrets["service"] = {
            "base_url": sandbox.base_url,
            "token": lead.token,
            "company_id": company_id,
        }
        label = "secrets.toml"

    at.run()

    assert not at.exception
    warning = joined(at.sidebar.warning)
    assert "company id" in warning
    assert label in warning
    assert "Demo data" in joined(at.sidebar.markdown)
    assert at.dataframe, "the page showed no table"
    # A second run (another viewer, a rerun) is just as well.
    at.run()
    assert not at.exception
