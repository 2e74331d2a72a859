"""The QA reporting dashboard: a Streamlit app over the service's read API.

Data flows one way: service -> `api_client` -> `data` (which service, live loading, the cache)
-> `analytics` (pure pandas) -> `present` (tables, charts, CSV, sentences) -> thin `app_pages`.
`state` is the one place that names the URL's query parameters and turns a view into the
`ExecutionQuery` sent; `ui` holds the Streamlit-only helpers. tests/test_architecture.py checks
who may import whom.
"""
