"""A table as a view hands it to a page: the display frame, its key and CSV name, and the look
of each column as data (an id, a link, a moment, a number, a text), so a view says everything a
table is without Streamlit; `ui.table_views` turns the looks into Streamlit's column settings."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

import pandas as pd

ColumnKind = Literal["ident", "link", "time", "number", "text", "wide_text"]
Width = Literal["small", "medium", "large"]


@dataclass(frozen=True)
class Column:
    """The look of one column: `text` is a link's words, `tz` a moment's zone (None: the
    table's), `format` and `width` a number's or a text's."""

    kind: ColumnKind
    text: str = ""
    tz: str | None = None
    format: str | None = None
    width: Width | None = None


def ident() -> Column:
    """An id (scenario, execution, plan): as written, without thousands separators."""
    return Column("ident")


def link(text: str) -> Column:
    """A link shown as `text` ("history", "results", "node log")."""
    return Column("link", text=text)


def moment(tz: str | None = None) -> Column:
    """A moment, in `tz` (None: the table's own zone)."""
    return Column("time", tz=tz)


def number(format: str, *, width: Width | None = None) -> Column:
    return Column("number", format=format, width=width)


def text(width: Width) -> Column:
    return Column("text", width=width)


def wide_text() -> Column:
    """A message: the widest column, cut short so the links after it stay in view."""
    return Column("wide_text")


@dataclass(frozen=True, eq=False)
class TableView:
    """A display frame as shown and downloaded, under `key` (`present.key_columns`), its CSV
    named `file_name`, its times in `tz`, its first `max_rows` rows sent to the browser (None:
    every one). Shared between reruns and viewers when its view is: never mutate it."""

    display: pd.DataFrame
    key: str
    file_name: str
    columns: Mapping[str, Column] = field(default_factory=dict)
    tz: str = "UTC"
    max_rows: int | None = None

    @property
    def empty(self) -> bool:
        return self.display.empty
