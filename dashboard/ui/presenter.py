"""The standup on one screen: presenter mode for a shared screen (large type, no sidebar,
nothing to click but links), and the tighter spacing that keeps the page on a 1920x1080 screen
without scrolling.

Only the page's own style changes: no service data goes into this CSS.
"""

from __future__ import annotations

import streamlit as st

_STYLE = """
<style>
section[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],
header[data-testid="stHeader"] { display: none; }
.stMainBlockContainer { max-width: 100%; padding: 1rem 1.5rem; }
html { font-size: 20px; }
</style>
"""


# Streamlit's default top padding (6rem) and heading margins are made for long pages; its
# header bar is 3.75rem tall and transparent, so the title starts just below it.
_ONE_SCREEN = """
<style>
.stMainBlockContainer { padding-top: 3.5rem; padding-bottom: 1rem; }
.stMainBlockContainer h1 { padding-top: 0; padding-bottom: 0.25rem; }
.stMainBlockContainer h2 { padding-top: 0.25rem; padding-bottom: 0; }
</style>
"""


def one_screen() -> None:
    """Tighten the page's spacing so that it fits one screen."""
    st.html(_ONE_SCREEN)


def enter() -> None:
    """Switch this page to presenter mode."""
    st.html(_STYLE)
