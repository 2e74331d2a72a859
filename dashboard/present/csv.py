"""CSV downloads: a display frame as the bytes of its table's download button."""

from __future__ import annotations

import pandas as pd

# What makes a spreadsheet read a cell as a formula (or split it into a new one): the ASCII
# formula starts, their full-width forms (which some spreadsheets fold to ASCII), tab, CR, LF.
_FORMULA_STARTS = ("=", "+", "-", "@", "\uff1d", "\uff0b", "\uff0d", "\uff20")
_CONTROL_STARTS = ("\t", "\r", "\n")
BOM = "\ufeff"
"""Starts every file, so spreadsheets read it as UTF-8 (non-ASCII names stay readable)."""


def to_csv(display: pd.DataFrame) -> bytes:
    """A display frame as UTF-8 CSV with a byte order mark, the bytes of a download button.

    Text that a spreadsheet would read as a formula gets a leading `'`, which spreadsheets show
    as text: in text cells and in the header row, whose labels can come from the service (a
    status name becomes a column of the executions table). Numbers, dates and flags stay what
    they are, and the table on the page shows the values unchanged. Rows end in CRLF (RFC 4180),
    so a cell holding a lone carriage return is quoted instead of splitting its row.
    """
    inert = display.copy()
    for position, dtype in enumerate(inert.dtypes):
        if pd.api.types.is_object_dtype(dtype) or isinstance(dtype, pd.StringDtype):
            inert.isetitem(position, inert.iloc[:, position].map(inert_text, na_action="ignore"))
    inert.columns = [inert_text(str(label)) for label in inert.columns]
    text = inert.to_csv(index=False, lineterminator="\r\n")
    return (BOM + text).encode("utf-8")


def inert_text(value: object) -> object:
    """`value` as a spreadsheet shows it literally: a leading `'` on text it would run."""
    if isinstance(value, str) and (
        value.startswith(_CONTROL_STARTS) or value.lstrip().startswith(_FORMULA_STARTS)
    ):
        return "'" + value
    return value
