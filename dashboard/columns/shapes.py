"""Holding frames to their schemas: checking a caller's columns, typed, empty and sorted frames.

Each analytic names the columns it reads, so a frame missing one fails at once with the
column's name instead of a KeyError deep in a groupby; extra columns are always welcome. What
leaves a function has exactly its schema's columns and dtypes (`schemas`), even when it has no
rows. Reading single cells is `cells`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd


def require_columns(frame: pd.DataFrame, columns: Iterable[str], what: str) -> None:
    """Raise ValueError naming every column `what` needs that `frame` lacks."""
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"{what}: expected a pandas DataFrame, got {type(frame).__name__}")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{what}: the frame lacks column(s) {', '.join(missing)}")


def typed(frame: pd.DataFrame, schema: Mapping[str, str]) -> pd.DataFrame:
    """`frame` with exactly the schema's columns, in its order and dtypes, and a fresh index
    (a frame with rows must have every column: ValueError names those it lacks)."""
    if frame.empty:
        return empty(schema)
    require_columns(frame, schema, "typed frame")
    return frame.loc[:, list(schema)].astype(dict(schema)).reset_index(drop=True)


def typed_rows(rows: Sequence[Mapping[str, Any]], schema: Mapping[str, str]) -> pd.DataFrame:
    """A frame of `rows` with exactly the columns and dtypes of `schema`, even when empty."""
    frame = pd.DataFrame(list(rows), columns=list(schema))
    for name, dtype in schema.items():
        column = frame[name]
        # A column of missing times only (NaT in every row: every execution still running) is
        # read as naive, which `astype` refuses to make zoned; it holds no instant to misplace.
        if (
            isinstance(pd.api.types.pandas_dtype(dtype), pd.DatetimeTZDtype)
            and column.dtype.kind == "M"
            and column.dt.tz is None
            and column.isna().all()
        ):
            frame[name] = column.dt.tz_localize("UTC")
    return frame.astype(dict(schema))


def empty(schema: Mapping[str, str]) -> pd.DataFrame:
    """A frame with no rows and the schema's columns and dtypes."""
    return pd.DataFrame({name: pd.Series(dtype=dtype) for name, dtype in schema.items()})


def sorted_frame(frame: pd.DataFrame, by: list[str], *, ascending: bool = True) -> pd.DataFrame:
    """`frame` sorted stably by `by`, missing values last, with a fresh index."""
    return frame.sort_values(
        by, ascending=ascending, na_position="last", kind="stable"
    ).reset_index(drop=True)


def as_utc(value: object, name: str) -> pd.Timestamp:
    """A time-zone-aware instant as a UTC Timestamp; naive or unparsable values are refused,
    because a naive time means a different instant in every viewer's zone."""
    try:
        stamp = pd.Timestamp(value)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{name}: not a point in time: {value!r}") from error
    if stamp is pd.NaT:
        raise ValueError(f"{name}: a point in time is required, got a missing value")
    if stamp.tzinfo is None:
        raise ValueError(f"{name}: needs a time zone (got the naive time {stamp})")
    return stamp.tz_convert("UTC")


def frame_digest(frame: pd.DataFrame, columns: tuple[str, ...]) -> str:
    """A short name of `frame`'s rows by `columns` (those it has), their order included: what
    a cache key names loaded data by (never a token: only the columns asked for)."""
    present = [name for name in columns if name in frame.columns]
    if frame.empty or not present:
        return f"empty:{len(frame)}"
    shown = frame[present].astype(
        {n: "str" for n in present if frame[n].dtype == object}  # lists, mixed values
    )
    hashed = pd.util.hash_pandas_object(shown, index=False).to_numpy()
    return hashlib.sha256(hashed.tobytes()).hexdigest()
