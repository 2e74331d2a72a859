"""The defaults the command line shows in its help, in a module that imports nothing, so that
`python -m dashboard --help` and a usage error load no pandas or DuckDB (#36).

`dashboard.cli.options` imports them from here, and so do the modules that use them
(`data.sync`, `data.results_fanout`, `data.store.types`): each is defined once.
"""

DEFAULT_DAYS = 90
"""How many days of executions a sync keeps current (`data.sync`)."""
DEFAULT_CONCURRENCY = 16
"""Results requests in flight at once (`data.results_fanout`)."""
MAX_CONCURRENCY = 32
"""The most results requests in flight at once the service is asked to bear."""
DEFAULT_WAIT = 20.0
"""Seconds to wait for another process to let go of the store (`data.store.types`)."""
