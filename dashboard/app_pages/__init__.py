"""Page scripts, run by `st.navigation` (see `dashboard.routes`); not meant to be imported."""
