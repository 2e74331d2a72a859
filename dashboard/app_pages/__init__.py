"""Page scripts, run by `st.navigation` (see `dashboard.state.routes`); not meant to be imported."""
