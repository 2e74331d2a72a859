"""CSV downloads: a display frame as the bytes of its table's download button.

The file holds what the table shows, in a form a spreadsheet computes with: times in the
viewer's zone with the zone in their header ("Start (Europe/Istanbul)"), and durations as
numbers of seconds ("Duration (s)") where the page shows words ("1 min 05 s"), other numbers the
page words ("\u221212 %") as signed numbers with their unit in the header ("Runtime trend (%)"),
times the page words ("still red") as times, a list (a sparkline's points) as its numbers
separated by spaces, never a Python list, and links absolute, against the dashboard's address.
A display frame says which of its columns are durations, numbers or times, and their values, with
`with_seconds`, `with_numbers` and `with_moments`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from urllib.parse import urljoin

import numpy as np
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
NUMBERS_ATTR = "csv_numbers"
"""`DataFrame.attrs` key: {column label: (unit or "", {row index label: number})}, written by
`with_numbers`."""
MOMENTS_ATTR = "csv_moments"
"""`DataFrame.attrs` key: {column label: {row index label: instant as ISO text}}, written by
`with_moments`."""


def _by_row(display: pd.DataFrame, label: str, values: list[object]) -> dict[object, object]:
    if len(values) != len(display):
        raise ValueError(f"{label}: {len(values)} values for {len(display)} rows")
    return dict(zip(display.index, values, strict=True))


def with_numbers(
    display: pd.DataFrame, numbers: Mapping[str, Iterable[float | None]], *, unit: str = ""
) -> pd.DataFrame:
    """`display` (changed in place and returned), noting the numbers behind columns the page
    words: the CSV holds these numbers (a negative one is a number, not a formula), in a column
    headed "<label> (<unit>)"."""
    noted = dict(display.attrs.get(NUMBERS_ATTR, {}))
    for label, values in numbers.items():
        floats: list[object] = [None if v is None or pd.isna(v) else float(v) for v in values]
        noted[label] = (unit, _by_row(display, label, floats))
    display.attrs[NUMBERS_ATTR] = noted
    return display


def with_moments(display: pd.DataFrame, moments: Mapping[str, Iterable[object]]) -> pd.DataFrame:
    """`display` (changed in place and returned), noting the instants behind time columns the
    page words ("still red"): the CSV holds these times in the viewer's zone."""
    noted = dict(display.attrs.get(MOMENTS_ATTR, {}))
    for label, values in moments.items():
        # As ISO text: Arrow writes a frame's attrs into its metadata as JSON when it is shown.
        stamps: list[object] = [
            None if v is None or pd.isna(v) else pd.Timestamp(v).isoformat() for v in values
        ]
        noted[label] = _by_row(display, label, stamps)
    display.attrs[MOMENTS_ATTR] = noted
    return display


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


def to_csv(
    display: pd.DataFrame,
    *,
    tz: str = "UTC",
    links: Iterable[str] = (),
    base_url: str | None = None,
) -> bytes:
    """A display frame as UTF-8 CSV with a byte order mark, the bytes of a download button.

    Text that a spreadsheet would read as a formula gets a leading `'`, which spreadsheets show
    as text: in text cells and in the header row, whose labels can come from the service (a
    status name becomes a column of the executions table). Numbers, dates and flags stay what
    they are, and the table on the page shows the values unchanged. Rows end in CRLF (RFC 4180),
    so a cell holding a lone carriage return is quoted instead of splitting its row. Times are
    written in `tz` and durations, numbers and times noted by `with_seconds`, `with_numbers`
    and `with_moments` as those (see the module's doc). The cells of the `links` columns are
    made absolute against `base_url` (the dashboard's address; None: left as they are).
    """
    inert = display.copy()
    labels = [str(label) for label in inert.columns]
    seconds = display.attrs.get(SECONDS_ATTR, {})
    numbers_noted = display.attrs.get(NUMBERS_ATTR, {})
    moments = display.attrs.get(MOMENTS_ATTR, {})
    linked = set(links)
    for position, label in enumerate(labels):
        if label in seconds or label in numbers_noted:
            unit, by_row = (
                (SECONDS_UNIT, seconds[label]) if label in seconds else numbers_noted[label]
            )
            numbers = [by_row.get(row) for row in inert.index]
            inert.isetitem(position, pd.Series(numbers, index=inert.index, dtype="Float64"))
            labels[position] = f"{label} ({unit})" if unit else label
        elif label in moments:
            stamps = [moments[label].get(row) for row in inert.index]
            column = pd.to_datetime(pd.Series(stamps, index=inert.index, dtype="object"), utc=True)
            inert.isetitem(position, column.dt.tz_convert(tz))
            labels[position] = zoned_label(label, tz)
        elif isinstance(inert.dtypes.iloc[position], pd.DatetimeTZDtype):
            inert.isetitem(position, inert.iloc[:, position].dt.tz_convert(tz))
            labels[position] = zoned_label(label, tz)
        elif label in linked and base_url:
            inert.isetitem(
                position,
                inert.iloc[:, position].map(lambda link: _absolute(link, base_url)),
            )
    for position, dtype in enumerate(inert.dtypes):
        if pd.api.types.is_object_dtype(dtype):
            inert.isetitem(position, inert.iloc[:, position].map(_listed, na_action="ignore"))
    for position, dtype in enumerate(inert.dtypes):
        if pd.api.types.is_object_dtype(dtype) or isinstance(dtype, pd.StringDtype):
            inert.isetitem(position, inert.iloc[:, position].map(inert_text, na_action="ignore"))
    inert.columns = [inert_text(label) for label in labels]
    text = inert.to_csv(index=False, lineterminator="\r\n")
    return (BOM + text).encode("utf-8")


def _absolute(link: object, base_url: str) -> object:
    """A relative link made absolute against `base_url`; an empty or missing one stays so."""
    if not isinstance(link, str) or not link:
        return link
    return urljoin(base_url, link)


def _listed(value: object) -> object:
    """A list of numbers (a sparkline's points) as its numbers separated by spaces."""
    if isinstance(value, list | tuple | np.ndarray):
        return " ".join(str(item) for item in value)
    return value


def inert_text(value: object) -> object:
    """`value` as a spreadsheet shows it literally: a leading `'` on text it would run."""
    if isinstance(value, str) and (
        value.startswith(_CONTROL_STARTS) or value.lstrip().startswith(_FORMULA_STARTS)
    ):
        return "'" + value
    return value
