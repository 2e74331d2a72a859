"""The `app` fixture opens a page with that page's own first run (`apptest.start_on`), not
after a run of the default page: this checks the seam against Streamlit itself, page by page.

Each run here stops at a sign-in that is set up wrong, so no page is drawn and nothing is
loaded, but `st.navigation` has already registered the pages and chosen the one to run.
"""

from __future__ import annotations

import pytest

from dashboard.state import routes
from tests.dashboard.apptest import page_hash
from tests.dashboard.conftest import AppFactory
from tests.oidc_provider import auth_table

MISCONFIGURED = {
    **auth_table("http://127.0.0.1:9/.well-known/openid-configuration", "http://localhost/cb"),
    "cookie_secret": "short",
}


@pytest.mark.parametrize("route", routes.ALL, ids=lambda route: route.url_path)
def test_the_first_run_opens_the_page_the_test_asked_for(
    app: AppFactory, route: routes.Route
) -> None:
    at = app(route.script)
    at.secrets["auth"] = MISCONFIGURED
    at.run()

    assert [t.value for t in at.title] == ["The QA dashboard's sign-in is not set up"]
    # The page st.navigation chose for this run (the default page and "Page not found" when
    # the hash matched none) ...
    assert at._finished_page_script_hash == page_hash(route.script)
    # ... and the hash AppTest's own switch_page gives the page, once the pages are known.
    at.switch_page(route.script)
    assert at._page_hash == page_hash(route.script)
