"""Frames made from rows keep their schema's dtypes whatever the rows hold (`columns.shapes`)."""

from __future__ import annotations

import pandas as pd

from dashboard.columns.shapes import typed_rows

SCHEMA = {"execution_id": "int64", "end": "datetime64[us, UTC]"}


def test_a_time_missing_in_every_row_is_a_zoned_column_of_missing_times() -> None:
    """Every execution of a page still running: each `end` is NaT, which pandas reads as a naive
    column; the frame still has the schema's zoned dtype (it raised TypeError before)."""
    frame = typed_rows([{"execution_id": 1, "end": pd.NaT}, {"execution_id": 2}], SCHEMA)

    assert str(frame["end"].dtype) == "datetime64[us, UTC]"
    assert frame["end"].isna().all()


def test_zoned_times_keep_their_instant() -> None:
    end = pd.Timestamp("2026-11-20 18:00", tz="Europe/Berlin")
    frame = typed_rows(
        [{"execution_id": 1, "end": end}, {"execution_id": 2, "end": pd.NaT}], SCHEMA
    )

    assert frame["end"].iloc[0] == end
    assert pd.isna(frame["end"].iloc[1])
