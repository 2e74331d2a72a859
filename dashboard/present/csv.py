"""CSV downloads: a display frame as the bytes of its table's download button.

The file holds what the table shows, in a form a spreadsheet computes with: times in the
viewer's zone with the zone in their header ("Start (Europe/Istanbul)"), and durations as
numbers of seconds ("Duration (s)") where the page shows words ("1 min 05 s"). A display frame
says which of its columns are durations, and their seconds, with `with_seconds`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import pandas as pd

# What makes a spreadsheet read a cell as a formula (or split it into a new one): the ASCII
# formula starts, their full-width forms (which some spreadsheets fold to ASCII), tab, CR, LF.
_FORMULA_STARTS = ("=", "+", "-", "@", "\uff1d", "\uff0b", "\uff0d", "\uff20")
_CONTROL_STARTS = ("\t", "\r", "\n")
BOM = "\ufeff"
"""Starts every file, so spreadsheets read it as UTF-8 (non-ASCII names stay readable)."""

SECONDS_ATTR = "csv_seconds"
"""`DataFrame.attrs` key: {column label: {row index label: seconds}}, written by `with_seconds`
(by index label, so a frame sliced or sorted after it keeps each row's own number)."""
SECONDS_UNIT = "s"


def with_seconds(
    display: pd.DataFrame, seconds: Mapping[str, Iterable[float | None]]
) -> pd.DataFrame:
    """`display` (changed in place and returned), noting the seconds behind its duration
    columns: the CSV holds these numbers, in a column headed "<label> (s)"."""
    noted = dict(display.attrs.get(SECONDS_ATTR, {}))
    for label, values in seconds.items():
        numbers = [None if v is None or pd.isna(v) else float(v) for v in values]
        if len(numbers) != len(display):
            raise ValueError(f"{label}: {len(numbers)} durations for {len(display)} rows")
        noted[label] = dict(zip(display.index, numbers, strict=True))
    display.attrs[SECONDS_ATTR] = noted
    return display


def zoned_label(label: str, tz: str) -> str:
    """The CSV header of a time column: "Start (Europe/Istanbul)"."""
    return f"{label} ({tz})"


def to_csv(display: pd.DataFrame, *, tz: str = "UTC") -> bytes:
    """A display frame as UTF-8 CSV with a byte order mark, the bytes of a download button.

    Text that a spreadsheet would read as a formula gets a leading `'`, which spreadsheets show
    as text: in text cells and in the header row, whose labels can come from the service (a
    status name becomes a column of the executions table). Numbers, dates and flags stay what
    they are, and the table on the page shows the values unchanged. Rows end in CRLF (RFC 4180),
    so a cell holding a lone carriage return is quoted instead of splitting its row. Times are
    written in `tz` and durations noted by `with_seconds` as seconds (see the module's doc).
    """
    inert = display.copy()
    labels = [str(label) for label in inert.columns]
    seconds = display.attrs.get(SECONDS_ATTR, {})
    for position, label in enumerate(labels):
        if label in seconds:
            by_row = seconds[label]
            numbers = [by_row.get(row) for row in inert.index]
            inert.isetitem(position, pd.Series(numbers, index=inert.index, dtype="Float64"))
            labels[position] = f"{label} ({SECONDS_UNIT})"
        elif isinstance(inert.dtypes.iloc[position], pd.DatetimeTZDtype):
            inert.isetitem(position, inert.iloc[:, position].dt.tz_convert(tz))
            labels[position] = zoned_label(label, tz)
    for position, dtype in enumerate(inert.dtypes):
        if pd.api.types.is_object_dtype(dtype) or isinstance(dtype, pd.StringDtype):
            inert.isetitem(position, inert.iloc[:, position].map(inert_text, na_action="ignore"))
    inert.columns = [inert_text(label) for label in labels]
    text = inert.to_csv(index=False, lineterminator="\r\n")
    return (BOM + text).encode("utf-8")


def inert_text(value: object) -> object:
    """`value` as a spreadsheet shows it literally: a leading `'` on text it would run."""
    if isinstance(value, str) and (
        value.startswith(_CONTROL_STARTS) or value.lstrip().startswith(_FORMULA_STARTS)
    ):
        return "'" + value
    return value
