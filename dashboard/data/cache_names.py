"""A company's scenario names as pages read them (`names`) and change them (`set_name`).

Names live in the history store (`python -m dashboard scenarios import`, `HistoryStore.
scenario_names`) and are read through the same door as the marks (`cache_history`): only while
the service accepts the connection's credential for its company, read at most every
`NAMES_TTL` per connection, and read again at once after a change made here. Without a usable
store a page has no names ("Scenario 402" everywhere, as before), never an error: the names
last read in this process are kept while the store is busy or away.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta

import pandas as pd
from cachetools import LRUCache, TTLCache

from dashboard.columns.shapes import empty
from dashboard.data import cache_connection, cache_history
from dashboard.data.cache_connection import data_key
from dashboard.data.connection import Connection
from dashboard.data.store.errors import StoreBusyError, StoreError
from dashboard.data.store.scenario_names import ScenarioNamesRefused
from dashboard.data.store.types import SCENARIO_NAME_COLUMNS

_LOG = logging.getLogger(__name__)

NAMES_TTL = timedelta(seconds=30)
"""How long a page reuses the names it read: a name imported by another process shows within
this; a name changed by the form here shows at once (saving forgets what was read)."""

_READ: TTLCache[str, pd.DataFrame] = TTLCache(maxsize=64, ttl=NAMES_TTL.total_seconds())
"""The names read, per connection's data key (fingerprint, generation and access slot, as
`cache_connection.BY_GENERATION`): Refresh reads them again. Not `st.cache_data`: the data
layer's modules that import Streamlit are the ones the architecture test names."""
_LAST_READ: LRUCache[str, pd.DataFrame] = LRUCache(maxsize=32)
"""The names last read per connection fingerprint: kept while the store is busy or away."""
_LAST_LOCK = threading.Lock()

NOT_SAVED = "Nothing was saved: {reason} What you typed is kept: save again in a moment."


def no_names() -> pd.DataFrame:
    """No scenario named (`SCENARIO_NAME_COLUMNS`)."""
    return empty(SCENARIO_NAME_COLUMNS)


def names(connection: Connection) -> pd.DataFrame:
    """The company's scenario names (`SCENARIO_NAME_COLUMNS`): none when the service has not
    accepted the connection's credential for its company; those read last in this process when
    the store is busy or cannot be reached (none if never read)."""
    if not cache_connection.STORE_ACCESS.access(connection).allowed:
        return no_names()
    if cache_history.history_store(connection) is None:
        return _last_read(connection)
    try:
        read = _read_names(connection)
    except StoreError:  # busy, or away: what was read last
        return _last_read(connection)
    with _LAST_LOCK:
        _LAST_READ[connection.fingerprint] = read
    return read


def _last_read(connection: Connection) -> pd.DataFrame:
    with _LAST_LOCK:
        return _LAST_READ.get(connection.fingerprint, no_names())


def _read_names(connection: Connection) -> pd.DataFrame:
    """The company's names from its store, reused for `NAMES_TTL` (raises `StoreError` when
    they cannot be read)."""
    key = data_key(connection)
    with _LAST_LOCK:
        kept_names = _READ.get(key)
    if kept_names is not None:
        return kept_names
    kept = cache_history.history_store(connection)
    if kept is None:
        raise StoreError("The history store is not available.", location="")
    read = kept.scenario_names(connection.company_id)
    with _LAST_LOCK:
        _READ[key] = read
    return read


@dataclass(frozen=True)
class NameSaved:
    """What became of a change of one scenario's name: `done`; the sentences of a refusal
    (the input was wrong); or why the store could not take it (`failed`)."""

    done: bool = False
    refused: tuple[str, ...] = ()
    failed: str | None = None
    cut: bool = False


def set_name(
    connection: Connection,
    scenario_id: int,
    *,
    name: str,
    owner: str,
    by: str,
    now: datetime,
) -> NameSaved:
    """Give one scenario of the connection's company `name` and `owner` ("" takes the owner
    away), written by `by` (`HistoryStore.set_scenario_name`); the names are read again."""
    if not cache_connection.STORE_ACCESS.access(connection).allowed:
        return NameSaved(
            failed=NOT_SAVED.format(
                reason="the service has not accepted this connection's credential for its company."
            )
        )
    kept = cache_history.history_store(connection)
    if kept is None:
        return NameSaved(failed=NOT_SAVED.format(reason="the history store cannot be reached."))
    if kept.read_only:
        return NameSaved(failed=NOT_SAVED.format(reason="the history store is open read-only."))
    try:
        _, cut = kept.set_scenario_name(
            connection.company_id, scenario_id, name=name, owner=owner, by=by, now=now
        )
    except ScenarioNamesRefused as refused:
        return NameSaved(refused=tuple(refused.problems))
    except StoreBusyError:
        return NameSaved(failed=NOT_SAVED.format(reason="the history store is busy."))
    except StoreError as error:
        _LOG.warning("scenario name not saved: %s", type(error).__name__)
        return NameSaved(failed=NOT_SAVED.format(reason=error.message))
    with _LAST_LOCK:
        _READ.clear()
    return NameSaved(done=True, cut=cut)


def forget_all() -> None:
    """Forget every name read (tests; `cache_history.forget_all` forgets the stores)."""
    with _LAST_LOCK:
        _READ.clear()
        _LAST_READ.clear()
