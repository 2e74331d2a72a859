"""Entry point: `streamlit run dashboard/app.py` (the README's `make run`).

This file has two roles. Streamlit runs it as the app's script (as `__main__`) on every rerun:
it declares the pages, draws the frame they share (sidebar: which data is shown, the
connection form, Refresh) and runs the current page. The page scripts live in `app_pages/`
and stay thin: they lay out the screen and call the `dashboard` packages.

Before that, `streamlit run` imports it as a module and finds `app`, an `st.App` that serves
the script with the server pieces of `dashboard.ui.server`: a "page not found" page for
unknown paths, a sign-in that lands on the link it started from, and a shutdown that ends
whatever requests are in flight.
"""

import sys
from pathlib import Path

# `streamlit run dashboard/app.py` puts dashboard/ (not the repository root) on sys.path. The
# package is normally installed (pip install -e .), but this keeps a plain checkout working too.
_ROOT = str(Path(__file__).resolve().parent.parent)
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

import streamlit as st  # noqa: E402

from dashboard.state import routes  # noqa: E402
from dashboard.ui import server  # noqa: E402


def main() -> None:
    """One run of the app's script: the page frame, then the current page.

    With sign-in configured, a viewer who is not admitted sees only the sign-in page (or one
    sentence): no page list, no sidebar, and nothing is loaded. The pages are still declared
    (hidden), so the address and its query parameters stay as the link gave them.
    """
    # The script's own helpers, imported here and not at the top: they declare `st.cache_data`
    # functions, which log "No runtime found" when declared before Streamlit's runtime exists,
    # as they would be by `streamlit run` importing this file for `app` (see `_lifespan`).
    from dashboard.ui import notices, session, sidebar, theme, viewer

    st.set_page_config(page_title="QA dashboard", page_icon=":material/fact_check:", layout="wide")
    notices.styles()
    theme.keep_theme()
    theme.chart_text()
    admitted = viewer.admitted()
    # One list, in the order of routes.SECTIONS, not Streamlit's sectioned form: Streamlit 1.67
    # draws sections as <div>s inside the <ul>, whose items axe-core then finds outside any list
    # (the `list` and `listitem` rules, rated serious; tests/browser/test_every_page.py).
    page = st.navigation(
        [
            st.Page(
                route.script,
                title=route.title,
                icon=route.icon,
                url_path=route.url_path,
                default=route.default,
            )
            for route in routes.ALL
        ],
        position="sidebar" if admitted else "hidden",
        # Every page in view on arrival: by default Streamlit shows ten of more than twelve
        # and hides the rest behind "View N more".
        expanded=True,
    )
    if not admitted:
        viewer.door()
        return
    conn = session.current_connection()
    with session.page_area(conn):
        sidebar.sidebar(conn)
        page.run()


if __name__ == "__main__":
    main()
else:
    from collections.abc import AsyncIterator
    from contextlib import asynccontextmanager
    from typing import Any

    from starlette.middleware import Middleware

    @asynccontextmanager
    async def _lifespan(app: Any) -> AsyncIterator[None]:
        """Load the script's modules now that the runtime has started (their `st.cache_data`
        functions then find it), before the server's lifespan keeps what is loaded out of the
        garbage collector's passes."""
        from dashboard.ui import notices, session, sidebar, theme, viewer  # noqa: F401

        async with server.lifespan(app):
            yield

    _pages = [route.url_path for route in routes.ALL]
    _base_path = st.get_option("server.baseUrlPath") or ""
    app = st.App(
        __file__,
        middleware=[
            Middleware(
                server.UnknownPaths,
                pages=_pages,
                default=next(route.url_path for route in routes.ALL if route.default),
                base_path=_base_path,
            ),
            Middleware(server.ReturnAfterSignIn, pages=_pages, base_path=_base_path),
        ],
        lifespan=_lifespan,
    )
