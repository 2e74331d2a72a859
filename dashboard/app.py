"""Entry point: `streamlit run dashboard/app.py` (the README's `make run`).

Streamlit runs this file as a script on every rerun. It declares the pages, draws the frame
they share (sidebar: which data is shown, the connection form, Refresh) and runs the current
page. The page scripts live in `app_pages/` and stay thin: they lay out the screen and call
the `dashboard` packages.
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
from dashboard.ui import notices, sidebar  # noqa: E402

st.set_page_config(page_title="QA dashboard", page_icon=":material/fact_check:", layout="wide")
notices.styles()

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
    ]
)
sidebar.sidebar(sidebar.current_connection())
page.run()
