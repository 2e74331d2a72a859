"""Presenter mode for a shared screen: large type, no sidebar, nothing to click but links.

Only the page's own style changes: no service data goes into this CSS.
"""

from __future__ import annotations

import streamlit as st

_STYLE = """
<style>
section[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],
header[data-testid="stHeader"] { display: none; }
.stMainBlockContainer { max-width: 100%; padding-top: 1rem; }
html { font-size: 20px; }
</style>
"""


def enter() -> None:
    """Switch this page to presenter mode."""
    st.html(_STYLE)
