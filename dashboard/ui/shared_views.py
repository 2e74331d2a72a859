"""Views that viewers of the same data share (#39): each is made once per input through
`cache.built` (Streamlit's per-key lock: the first viewer computes, the others wait for it and
get the same object) instead of once per session.

A view's key names every input it reads, by name rather than by content where a name exists:
a load by its query and `loaded_at`, a frame by `columns.shapes.frame_digest`, marks by
`analytics.marks.marks_key`, the clock by the minute (the view is given that minute, so the key
holds what it reads), the view state's fields it reads as values. A key that missed an input
would show one viewer another's view; no key holds a token (`cache.built` adds the
connection's fingerprint). What is returned is shared: never mutated.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from datetime import datetime

import pandas as pd

from api_client import ExecutionQuery
from dashboard.analytics.marks import marks_key
from dashboard.analytics.windows import Window
from dashboard.columns.shapes import frame_digest
from dashboard.data import cache, live
from dashboard.data.cache_history import Ledger
from dashboard.data.connection import Connection
from dashboard.data.fanout_answer import FanOut
from dashboard.present.standup_view import StandupNeeds, StandupView, standup_needs, standup_view
from dashboard.state import links
from dashboard.ui import standup_layout


def minute(now: datetime) -> datetime:
    """`now` to the minute: what a view keyed by the clock is given (a configured service's
    `now` is the wall clock at every run; the demo's is fixed)."""
    return now.replace(second=0, microsecond=0)


def whole_frame(frame: pd.DataFrame | None) -> str | None:
    """A frame named by all its columns (None when there is none): for the small frames a
    view reads many columns of (plans, verdicts, a few executions' results)."""
    return None if frame is None else frame_digest(frame, tuple(frame.columns))


def names_key(names: Mapping[int, str]) -> str:
    """A map of ids to names (plans), named by its items in order."""
    return hashlib.sha256(repr(tuple(names.items())).encode()).hexdigest()


def standup(
    connection: Connection,
    query: ExecutionQuery,
    data: live.ExecutionsData,
    ledger: Ledger,
    *,
    window: Window,
    now: datetime,
    include_outages: bool,
    plans: pd.DataFrame | None,
    plan_names: Mapping[int, str],
    scope: str,
) -> StandupView:
    """The standup's view (`present.standup_view`) of the executions `query` loaded (`data`):
    its two steps each made once per input and shared; between them the results and the
    verdicts are read through their own caches (saying here when they could not be read)."""
    at = minute(now)
    inputs: tuple[object, ...] = (
        repr(query),
        data.loaded_at,
        marks_key(ledger.marks),
        repr(window),
        at,
        include_outages,
    )
    needs: StandupNeeds = cache.built(
        connection,
        "standup.needs",
        inputs,
        lambda: standup_needs(
            data.executions,
            ledger.marks,
            window=window,
            now=at,
            include_outages=include_outages,
        ),
    )
    results = standup_layout.results_of(connection, needs)
    verdicts = standup_layout.verdicts_of(connection, needs, results, ledger)
    read: tuple[object, ...] = (None, None)
    if results is not None:
        read = (whole_frame(results.results), repr(results.counts))
    return cache.built(
        connection,
        "standup.view",
        (
            *inputs,
            *read,
            whole_frame(verdicts),
            whole_frame(plans),
            names_key(plan_names),
            scope,
        ),
        lambda: _standup_view(needs, results, verdicts, plans, plan_names, scope),
    )


def _standup_view(
    needs: StandupNeeds,
    results: FanOut | None,
    verdicts: pd.DataFrame | None,
    plans: pd.DataFrame | None,
    plan_names: Mapping[int, str],
    scope: str,
) -> StandupView:
    return standup_view(
        needs,
        results,
        verdicts=verdicts,
        link_for=standup_layout.link_for,
        plan_names=plan_names,
        plans=plans,
        scenario_link=links.scenario_link,
        scope=scope,
    )
