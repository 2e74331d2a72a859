"""Streamlit-only helpers the pages share: the sidebar, URL-bound filters, tables, notices."""
