"""The data layer: which service, loading through `api_client`, the history store, the cache.

It returns frames and typed errors, never sentences (those are `dashboard.present`'s), and only
`cache.py`, `cache_connection.py` and `cache_history.py` import Streamlit.
"""
