"""The QA reporting dashboard: a Streamlit app over the service's read API.

Data flows one way: service -> `api_client` -> `loaders` -> `transforms` (pure pandas) ->
`charts` (pure plotly) -> thin pages in `app_pages/`, which take their decisions (filter
choices, where a selection leads) from `views`. `url_state` is the one place that knows the
URL's query parameters; `messages` is the one place that words an `ApiError` for a viewer.
"""
