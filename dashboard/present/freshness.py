"""How fresh the stored history is, in words: "History synced 3 min ago by the worker on qa-1".

A sync records when it ran and who ran it in the store (`last_sync`, `last_sync_by`); the
dashboard shows this line when a worker keeps the store current, so a viewer knows the finished
history they see is that old at most (running executions are always asked for afresh).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

import pandas as pd

from dashboard.present.formatting import visible_text


def ago(then: datetime, now: datetime) -> str:
    """ "just now", "3 min ago", "2 h ago", "4 days ago" (a time ahead of `now`: "just now")."""
    seconds = (now - then).total_seconds()
    if seconds < 60:
        return "just now"
    minutes = int(seconds // 60)
    if minutes < 60:
        return f"{minutes} min ago"
    hours = minutes // 60
    if hours < 48:
        return f"{hours} h ago"
    return f"{hours // 24} days ago"


def history_freshness(meta: Mapping[str, str], now: datetime) -> str | None:
    """The freshness line from a store's recorded facts; None when no worker has synced it."""
    who, when = meta.get("last_sync_by"), meta.get("last_sync")
    if not who or not when:
        return None
    try:
        then = pd.Timestamp(when)
    except ValueError:
        return None
    if then.tzinfo is None:
        then = then.tz_localize("UTC")
    name = visible_text(who, one_line=True)[:80]
    return f"History synced {ago(then.to_pydatetime(), now)} by {name}."
