"""CSV downloads: a display frame as the bytes of its table's download button."""

from __future__ import annotations

import pandas as pd

_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def to_csv(display: pd.DataFrame) -> bytes:
    """A display frame as UTF-8 CSV, the bytes of the table's download button.

    Text cells that a spreadsheet would read as a formula get a leading `'`, which spreadsheets
    show as text. Only text columns are touched: numbers, dates and flags stay what they are,
    and the table on the page shows the values unchanged. Rows end in CRLF (RFC 4180), so a
    cell holding a lone carriage return is quoted instead of splitting its row.
    """
    inert = display.copy()
    for position, dtype in enumerate(inert.dtypes):
        if pd.api.types.is_object_dtype(dtype) or isinstance(dtype, pd.StringDtype):
            inert.isetitem(position, inert.iloc[:, position].map(_inert_text, na_action="ignore"))
    return inert.to_csv(index=False, lineterminator="\r\n").encode("utf-8")


def _inert_text(value: object) -> object:
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS):
        return "'" + value
    return value
