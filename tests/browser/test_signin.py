"""Viewer sign-in end to end: a `streamlit run` dashboard with an `[auth]` table, chromium, and an
OpenID Connect provider on loopback (tests/oidc_provider.py, a process of its own).

A viewer signs in through the provider's own form and sees the page; a link opened before
signing in lands on its view (the same page and query) afterwards; an address outside the
allowed domain reads one sentence and nothing else; sign-out goes through the provider's end of
session and leaves the sign-in page; a provider that is down is said on the sign-in page, and
nothing of the dashboard is shown. Each of these doors passes axe-core's audit in both themes,
as every page of the dashboard does (tests/browser/test_every_page.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser import axe, harness, screen
from tests.browser.conftest import DemoPlan, check_log
from tests.browser.harness import ARTIFACTS, Secrets, StreamlitServer, free_port
from tests.oidc_provider import (
    CLIENT_SECRET,
    COOKIE_SECRET,
    OidcProvider,
    auth_table,
    running_provider,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ADMITTED = "ada@example.com"
REFUSED = "eve@other.org"
SIGN_IN_TITLE = "Sign in to the QA dashboard"
REFUSED_TITLE = "The QA dashboard is not open to this account"


def secrets_file(folder: Path, metadata_url: str) -> Path:
    """A secrets file with sign-in on (example.com admitted) and nothing else: the demo data."""
    table = auth_table(metadata_url, "http://127.0.0.1:{port}/oauth2callback")
    lines = ["[auth]", *(f'{key} = "{value}"' for key, value in table.items())]
    lines += ["", "[signin]", 'allowed_domains = ["example.com"]']
    path = folder / "secrets.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def signed_in_dashboard(name: str, home: Path, metadata_url: str) -> StreamlitServer:
    home.mkdir(parents=True, exist_ok=True)
    env = harness.dashboard_env(
        home, {"STREAMLIT_SECRETS_FILES": str(secrets_file(home, metadata_url))}
    )
    return StreamlitServer(name, env, harness.server_log(name)).start()


@pytest.fixture(scope="module")
def provider() -> Iterator[OidcProvider]:
    with running_provider(ARTIFACTS / "oidc-provider.log") as running:
        yield running


@pytest.fixture(scope="module")
def dashboard_signing_in(
    chromium_executable: str,
    provider: OidcProvider,
    tmp_path_factory: pytest.TempPathFactory,
    secrets: Secrets,
) -> Iterator[StreamlitServer]:
    secrets.add([CLIENT_SECRET, COOKIE_SECRET])
    server = signed_in_dashboard(
        "signin", tmp_path_factory.mktemp("signin-home"), provider.metadata_url
    )
    try:
        yield server
    finally:
        server.stop()
    check_log(server, server.log(), secrets)


def expect_accessible(page: Page, axe_script: str, name: str) -> None:
    """axe-core finds nothing blocking on the door as it is now (see tests/browser/axe.py)."""
    result = axe.audit(page, axe_script)
    axe.save(result, ARTIFACTS / "axe" / f"{name}.json")
    if result.blocking:
        pytest.fail(f"axe-core {result.version} on {name}:\n{result.report()}")


def expect_sign_in_page(page: Page) -> None:
    """The sign-in page and nothing of the dashboard: no page list, no sidebar, no data."""
    expect(page.get_by_role("heading", name=SIGN_IN_TITLE)).to_be_visible()
    expect(page.get_by_test_id("stSidebar")).to_have_count(0)
    expect(page.locator(screen.DATAFRAME)).to_have_count(0)
    expect(page.locator(screen.METRIC)).to_have_count(0)


def sign_in(page: Page, email: str) -> None:
    """Press *Sign in*, sign in as `email` in the provider's own form, and come back."""
    origin = re.match(r"https?://[^/]+", page.url)
    assert origin is not None
    page.get_by_role("button", name="Sign in").click()
    page.get_by_placeholder("sub").fill(email)
    page.get_by_role("button", name="Authorize").click()
    page.wait_for_url(re.compile("^" + re.escape(origin.group(0)) + "/"))
    screen.wait_until_idle(page, screen.FIRST_LOAD_TIMEOUT_MS)


def test_signing_in_shows_the_page_and_the_sidebar_names_who_is_signed_in(
    dashboard_signing_in: StreamlitServer, new_page: Callable[[], Page]
) -> None:
    page = new_page()
    screen.open_app(page, dashboard_signing_in.url + "/")
    expect_sign_in_page(page)
    screen.expect_no_crash(page)

    sign_in(page, ADMITTED)

    expect(page.get_by_role("heading", name="Test plans", exact=True)).to_be_visible()
    expect(page.locator(screen.DATAFRAME).first).to_be_visible()
    sidebar = page.get_by_test_id("stSidebar")
    expect(sidebar.get_by_text(f"Signed in as {ADMITTED}")).to_be_visible()
    expect(sidebar.get_by_role("button", name="Sign out")).to_be_visible()
    screen.expect_no_failure_shown(page)


def test_a_link_opened_before_signing_in_lands_on_its_view_afterwards(
    dashboard_signing_in: StreamlitServer, new_page: Callable[[], Page], demo_plan: DemoPlan
) -> None:
    link = f"{dashboard_signing_in.url}/executions?plan={demo_plan.id}&range=30d"
    page = new_page()
    screen.open_app(page, link)
    expect_sign_in_page(page)
    assert screen.path(page) == "/executions", "the sign-in page keeps the link's address"

    sign_in(page, ADMITTED)

    assert screen.path(page) == "/executions"
    assert screen.query(page) == {"plan": str(demo_plan.id), "range": "30d"}
    expect(page.get_by_role("heading", name="Executions", exact=True, level=1)).to_be_visible()
    expect(screen.selectbox(page, "Plan")).to_have_value(demo_plan.name)
    expect(screen.segment(page, "Started in the last", "30 d")).to_be_checked()
    expect(screen.metric(page, "Executions")).to_have_text(str(demo_plan.executions_30d))
    screen.expect_no_failure_shown(page)


def test_an_address_outside_the_allowed_domain_reads_one_sentence_and_nothing_else(
    dashboard_signing_in: StreamlitServer, new_page: Callable[[], Page], demo_plan: DemoPlan
) -> None:
    page = new_page()
    screen.open_app(page, f"{dashboard_signing_in.url}/executions?plan={demo_plan.id}")

    sign_in(page, REFUSED)

    main = screen.main(page)
    expect(main).to_contain_text(
        f"{REFUSED} may not see this dashboard: ask its operator to add your address, or sign "
        "out and use another account."
    )
    # One sentence under its title and the way out: no sidebar, table, chart or control.
    expect(page.get_by_test_id("stSidebar")).to_have_count(0)
    expect(main.get_by_role("heading")).to_have_count(1)
    expect(main.get_by_role("heading", level=1)).to_have_text(REFUSED_TITLE)
    expect(main.get_by_role("button")).to_have_count(1)
    expect(main.get_by_role("button", name="Sign out")).to_be_visible()
    expect(page.locator(screen.DATAFRAME)).to_have_count(0)
    expect(page.locator(screen.METRIC)).to_have_count(0)
    expect(page.locator('[data-testid="stPlotlyChart"]')).to_have_count(0)
    expect(main).not_to_contain_text(demo_plan.name)
    screen.expect_no_crash(page)


@pytest.mark.parametrize("theme", axe.THEMES)
def test_the_sign_in_page_and_the_refusal_pass_the_accessibility_audit(
    theme: str,
    dashboard_signing_in: StreamlitServer,
    new_page: Callable[[], Page],
    axe_script: str,
) -> None:
    page = new_page()
    screen.open_app(page, axe.themed(f"{dashboard_signing_in.url}/executions?range=30d", theme))
    expect_sign_in_page(page)
    expect_accessible(page, axe_script, f"signin-door-{theme}")

    sign_in(page, REFUSED)

    expect(screen.main(page).get_by_role("heading", level=1)).to_have_text(REFUSED_TITLE)
    assert f"embed_options={theme}_theme" in page.url, "the theme survives signing in"
    expect_accessible(page, axe_script, f"signin-refused-{theme}")


def test_signing_out_ends_the_session_at_the_provider_and_asks_for_sign_in_again(
    dashboard_signing_in: StreamlitServer, new_page: Callable[[], Page]
) -> None:
    page = new_page()
    screen.open_app(page, dashboard_signing_in.url + "/")
    sign_in(page, ADMITTED)
    expect(page.get_by_text(f"Signed in as {ADMITTED}")).to_be_visible()

    page.get_by_test_id("stSidebar").get_by_role("button", name="Sign out").click()
    # The provider's end of session (it asks to confirm), then back to the dashboard.
    page.get_by_role("button", name="End session").click()
    page.wait_for_url(re.compile("^" + re.escape(dashboard_signing_in.url) + "/"))
    screen.wait_until_idle(page, screen.FIRST_LOAD_TIMEOUT_MS)
    expect_sign_in_page(page)

    # The identity cookie is gone: a fresh load of any page asks again.
    screen.open_app(page, dashboard_signing_in.url + "/executions")
    expect_sign_in_page(page)
    screen.expect_no_crash(page)


def test_a_provider_that_is_down_is_said_on_the_sign_in_page_and_nothing_is_shown(
    start_dashboard: Callable[[str, dict[str, str]], StreamlitServer],
    new_page: Callable[[], Page],
    tmp_path: Path,
    axe_script: str,
) -> None:
    nobody = f"http://127.0.0.1:{free_port()}/.well-known/openid-configuration"
    settings = {"STREAMLIT_SECRETS_FILES": str(secrets_file(tmp_path, nobody))}
    server = start_dashboard("signin-provider-down", settings)
    page = new_page()
    screen.open_app(page, server.url + "/results?execution=7")

    expect(page.get_by_role("heading", name=SIGN_IN_TITLE)).to_be_visible()
    expect(screen.main(page)).to_contain_text(
        "The sign-in service (127.0.0.1) does not answer, so nobody can sign in right now."
    )
    expect(page.get_by_role("button", name="Sign in")).to_have_count(0)
    expect(page.get_by_role("button", name="Try again")).to_be_visible()
    expect(page.get_by_test_id("stSidebar")).to_have_count(0)
    expect(page.locator(screen.DATAFRAME)).to_have_count(0)
    screen.expect_no_crash(page)
    for theme in axe.THEMES:
        screen.open_app(page, axe.themed(server.url + "/results?execution=7", theme))
        expect(page.get_by_role("button", name="Try again")).to_be_visible()
        expect_accessible(page, axe_script, f"signin-provider-down-{theme}")
