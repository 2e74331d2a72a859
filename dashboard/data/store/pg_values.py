"""Values between pandas and PostgreSQL for the store's engine: the column types and rows of a
staged frame (COPY in), and a query's CSV (COPY out) read by Arrow into a typed frame.
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Mapping
from typing import Any

import pandas as pd
import pyarrow as pa
from pyarrow import csv as pa_csv

from dashboard.columns.shapes import typed


def pg_type(series: pd.Series) -> str:
    dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype):
        return "BOOLEAN"
    if pd.api.types.is_integer_dtype(dtype):
        return "BIGINT"
    if pd.api.types.is_float_dtype(dtype):
        return "DOUBLE PRECISION"
    if isinstance(dtype, pd.DatetimeTZDtype) or pd.api.types.is_datetime64_any_dtype(dtype):
        return "TIMESTAMPTZ"
    return "TEXT"


def python_rows(frame: pd.DataFrame) -> Iterator[tuple[Any, ...]]:
    """The rows of `frame` as plain Python values (None for every kind of missing)."""
    columns = []
    for name in frame.columns:
        series = frame[name]
        values = series.astype(object).tolist()
        missing = series.isna().tolist()
        columns.append(
            [None if gone else value for value, gone in zip(values, missing, strict=True)]
        )
    return zip(*columns, strict=True) if columns else iter(())


_ARROW_TYPES = {
    "time": pa.timestamp("us", tz="UTC"),
    "int": pa.int64(),
    "bool": pa.bool_(),
    "float": pa.float64(),
    "text": pa.string(),
}
# Arrow -> pandas: nullable integers and booleans, so NULL stays <NA> before the schema's astype.
_PANDAS_TYPES = {pa.int64(): pd.Int64Dtype(), pa.bool_(): pd.BooleanDtype()}


def _kind(dtype: str) -> str:
    """The Arrow column type a frame dtype is read as."""
    if dtype.startswith("datetime64"):
        return "time"
    if dtype in ("int64", "Int64"):
        return "int"
    if dtype in ("bool", "boolean"):
        return "bool"
    if dtype.startswith("float"):
        return "float"
    return "text"


def csv_frame(data: bytes, schema: Mapping[str, str]) -> pd.DataFrame:
    """PostgreSQL's CSV (a header line, then rows; NULL unquoted-empty, '' quoted; booleans
    t/f; times ISO with an offset) as a frame of `schema`'s columns and dtypes."""
    table = pa_csv.read_csv(
        io.BytesIO(data),
        parse_options=pa_csv.ParseOptions(newlines_in_values=True),
        convert_options=pa_csv.ConvertOptions(
            column_types={name: _ARROW_TYPES[_kind(dtype)] for name, dtype in schema.items()},
            true_values=["t"],
            false_values=["f"],
            strings_can_be_null=True,
            quoted_strings_can_be_null=False,
        ),
    )
    return typed(table.to_pandas(types_mapper=_PANDAS_TYPES.get), schema)
