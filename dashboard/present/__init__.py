"""Presentation: analytics results worded for people (sentences, tables, chat text).

Pure Python and pandas: no Streamlit here, so every sentence is unit-tested."""
