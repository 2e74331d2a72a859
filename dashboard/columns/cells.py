"""Reading values out of frames, for every layer: single cells, a selected row, a column's span.

A frame cell may be pandas' NA, NaN, NaT or None; these helpers turn any of them into None (or
an en dash for text), so callers never test for each kind of missing value. A frame's shape
(columns, dtypes, order) is `schemas` and `shapes`.
"""

from __future__ import annotations

from datetime import datetime

import pandas as pd

EN_DASH = "\u2013"  # between the ends of a span; also stands for "no value"


def time_extent(values: pd.Series) -> tuple[datetime, datetime] | None:
    """First and last timestamp of a column, or None when it has none."""
    present = values.dropna()
    if present.empty:
        return None
    return present.min().to_pydatetime(), present.max().to_pydatetime()


def cell_text(value: object) -> str:
    """A frame cell as text for a sentence; missing values as an en dash."""
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return EN_DASH
    return str(value)


def runtime_seconds(runtime_ms: object) -> float | None:
    """An execution's runtime cell (milliseconds) in seconds, or None."""
    if runtime_ms is None or pd.isna(runtime_ms):
        return None
    return float(runtime_ms) / 1000  # type: ignore[arg-type]


def optional_datetime(value: object) -> datetime | None:
    """A timestamp cell as an aware datetime, or None when it is missing (NaT)."""
    if value is None or pd.isna(value):
        return None
    return pd.Timestamp(value).to_pydatetime()


def row_for_selection(frame: pd.DataFrame, position: int | None) -> pd.Series | None:
    """The row a table selection points at, or None: nothing selected, or a stale position
    (a selection kept from before the data changed) that no longer names a row."""
    if position is None or not 0 <= position < len(frame):
        return None
    return frame.iloc[position]


def optional_int(value: object) -> int | None:
    """A frame cell as an int, or None when it is missing (pandas' NA, NaN or None)."""
    return None if value is None or pd.isna(value) else int(value)  # type: ignore[call-overload, unused-ignore]
